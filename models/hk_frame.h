/* hk_frame: the framing of the agent protocol on a byte stream, as pure
 * state machines over a caller's buffer — what a mirror reads from a master
 * (the 4-byte hello, then 8-byte headers and bodies, several on a PERSIST
 * connection) and what a master reads from a mirror (the server's hello,
 * then one reply). Bytes may arrive split anywhere: a step either needs
 * more, or consumes one whole unit. Shared by hareal's mirror and master,
 * and fuzzed on its own. */
#ifndef HK_FRAME_H
#define HK_FRAME_H

#include <stddef.h>
#include <stdint.h>
#include "hk_proto.h"

enum {
    HK_FR_NEED,                  /* not enough bytes yet */
    HK_FR_HELLO,                 /* the 4-byte hello: consumed */
    HK_FR_UNIT,                  /* a whole command (mirror) or reply (master): header + body */
    HK_FR_TOO_BIG,               /* a header announces more than the limit: close */
    HK_FR_BAD_HELLO              /* master side: the server's hello is not 1 */
};

typedef struct hk_frame {
    int got_hello;
    uint32_t max_len;            /* largest body accepted */
} hk_frame;

void hk_frame_init(hk_frame *f, uint32_t max_len);
/* One step over buf[0..len): the unit found (its header in *h, its body at buf + 8) and how
 * many bytes it used (*used; 0 with HK_FR_NEED). server = 1: a mirror reading a master. */
int hk_frame_step(hk_frame *f, int server, const uint8_t *buf, size_t len, hk_hdr *h,
                  size_t *used);

#endif
