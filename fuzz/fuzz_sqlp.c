/* fuzz_sqlp: SphinxQL answers (hk_sqlp) as hareal's client reads them from a byte stream.
 * The first input byte keeps or drops rows and picks a split pattern; the rest is the stream
 * of answers, one after another. The outcomes, the rows and the kept text must be the same
 * whether the packets are split from the whole stream or from pieces that grow — else
 * abort(); a BAD answer must say a byte within what was read. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "hk_sqlp.h"

#define MAXA 64

typedef struct run { int rc[MAXA]; uint64_t rows[MAXA]; size_t tsv[MAXA]; int n; } run;

static void answers(const uint8_t *b, size_t len, int keep, size_t step, run *r)
{
    hk_sqlp p = {0};
    size_t off = 0, have = step ? 0 : len, n, used;
    memset(r, 0, sizeof *r);
    hk_sqlp_begin(&p, keep);
    while (r->n < MAXA) {
        if (step && have < len)
            have = have + step < len ? have + step : len;
        int k = hk_sqlp_split(b + off, have - off, &n, &used);
        if (k < 0) {
            r->rc[r->n++] = -1;
            break;
        }
        if (k == 0) {
            if (have == len)
                break;
            continue;
        }
        int rc = hk_sqlp_packet(&p, b + off + 4, n);
        off += used;
        if (rc == HK_SQLP_MORE)
            continue;
        if (rc == HK_SQLP_BAD && !strstr(p.msg, "byte "))
            abort();
        r->rc[r->n] = rc;
        r->rows[r->n] = p.rows;
        r->tsv[r->n++] = p.tsv.len;
        if (rc == HK_SQLP_BAD)
            break;               /* the client drops the connection */
        hk_sqlp_begin(&p, keep);
    }
    hk_sqlp_free(&p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    int keep = data[0] & 1;
    size_t step = 1 + (data[0] >> 1);
    run whole, pieces;
    answers(data + 1, size - 1, keep, 0, &whole);
    answers(data + 1, size - 1, keep, step, &pieces);
    if (memcmp(&whole, &pieces, sizeof whole))
        abort();
    return 0;
}
