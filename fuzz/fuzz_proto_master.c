/* fuzz_proto_master: what a master reads from a mirror — a reply header and a
 * SEARCH reply body (schema, matches, attributes, stats, words). */
#include <stdint.h>
#include "hk_proto.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 8)
        return 0;
    hk_hdr h;
    hk_hdr_read(data, &h);
    size_t n = size - 8 < h.len ? size - 8 : h.len;
    hk_search_res res;
    hk_rd r;
    (void)hk_search_reply_parse(h.code, data + 8, n, &res, &r);
    return 0;
}
