/* hk_frame: agent-protocol framing state machines (see hk_frame.h). */
#include "hk_frame.h"

void hk_frame_init(hk_frame *f, uint32_t max_len)
{
    f->got_hello = 0;
    f->max_len = max_len;
}

static uint32_t be32(const uint8_t *b)
{
    return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}

int hk_frame_step(hk_frame *f, int server, const uint8_t *buf, size_t len, hk_hdr *h,
                  size_t *used)
{
    *used = 0;
    if (!f->got_hello) {
        if (len < 4)
            return HK_FR_NEED;
        uint32_t v = be32(buf);
        /* a mirror takes any client version (2.2.11 sends 1, Manticore 2); a master wants 1
         * (or the byte-swapped 1 of an old host-order bug), as searchd checks it */
        if (!server && v != HK_PROTO_HELLO && v != 0x01000000u)
            return HK_FR_BAD_HELLO;
        f->got_hello = 1;
        *used = 4;
        return HK_FR_HELLO;
    }
    if (len < 8)
        return HK_FR_NEED;
    hk_hdr_read(buf, h);
    if (h->len > f->max_len)
        return HK_FR_TOO_BIG;
    if (len - 8 < h->len)
        return HK_FR_NEED;
    *used = 8 + (size_t)h->len;
    return HK_FR_UNIT;
}
