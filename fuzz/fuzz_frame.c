/* fuzz_frame: the framing state machines of both sides (hk_frame) on a byte
 * stream, as hareal's mirror and master run them. The first input byte picks
 * the side and a split pattern; the rest is the stream (interleaved commands,
 * PERSIST then garbage, oversized headers...). The units found must be the
 * same whether the bytes arrive whole, one at a time, or in the pattern's
 * pieces — else abort(); every unit's body is decoded as that side would. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "hk_frame.h"
#include "hk_proto.h"

#define MAXU 64

typedef struct unit { int kind; uint16_t code; uint32_t len; uint32_t sum; } unit;

typedef struct conn {
    uint8_t *buf;
    size_t len;
    hk_frame fr;
    unit u[MAXU];
    int n, done;
} conn;

static uint32_t sum(const uint8_t *p, size_t n)
{
    uint32_t s = 2166136261u;
    for (size_t i = 0; i < n; i++)
        s = (s ^ p[i]) * 16777619u;
    return s;
}

static void decode(int server, const hk_hdr *h, const uint8_t *body)
{
    hk_rd r;
    if (server && h->code == HK_CMD_SEARCH) {
        hk_search_req q;
        (void)hk_search_req_parse(body, h->len, &q, &r);
    } else if (!server) {
        hk_search_res res;
        (void)hk_search_reply_parse(h->code, body, h->len, &res, &r);
    }
}

/* Bytes arrive: take every whole unit out, as the programs do. */
static void arrive(conn *c, int server, const uint8_t *p, size_t n)
{
    if (c->done)
        return;
    memcpy(c->buf + c->len, p, n);
    c->len += n;
    for (;;) {
        hk_hdr h = {0, 0, 0};
        size_t used;
        int r = hk_frame_step(&c->fr, server, c->buf, c->len, &h, &used);
        if (r == HK_FR_NEED)
            return;
        if (c->n < MAXU)
            c->u[c->n++] = (unit){r, h.code, h.len, r == HK_FR_UNIT ? sum(c->buf + 8, h.len) : 0};
        if (r == HK_FR_TOO_BIG || r == HK_FR_BAD_HELLO || c->n == MAXU) {
            c->done = 1;
            return;
        }
        if (r == HK_FR_UNIT)
            decode(server, &h, c->buf + 8);
        if (used > c->len)
            abort(); /* a step never consumes more than it has */
        memmove(c->buf, c->buf + used, c->len - used);
        c->len -= used;
    }
}

static void run(conn *c, int server, const uint8_t *s, size_t n, int mode, uint8_t seed)
{
    memset(c, 0, sizeof *c);
    c->buf = malloc(n + 1);
    hk_frame_init(&c->fr, 1u << 16);
    for (size_t i = 0; i < n;) {
        size_t k = mode == 0 ? n : mode == 1 ? 1 : 1 + (size_t)((seed * 31u + i * 7u) % 13u);
        if (k > n - i)
            k = n - i;
        arrive(c, server, s + i, k);
        i += k;
    }
    free(c->buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > 1 << 16)
        return 0;
    int server = data[0] & 1;
    conn a, b, c;
    run(&a, server, data + 1, size - 1, 0, data[0]);
    run(&b, server, data + 1, size - 1, 1, data[0]);
    run(&c, server, data + 1, size - 1, 2, data[0]);
    if (a.n != b.n || a.n != c.n || memcmp(a.u, b.u, (size_t)a.n * sizeof(unit)) ||
        memcmp(a.u, c.u, (size_t)a.n * sizeof(unit)))
        abort(); /* the framing depends on how the bytes were split */
    return 0;
}
