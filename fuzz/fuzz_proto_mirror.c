/* fuzz_proto_mirror: what a mirror reads from a master — a command header and a
 * SEARCH body. */
#include <stdint.h>
#include "hk_proto.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 8)
        return 0;
    hk_hdr h;
    hk_hdr_read(data, &h);
    size_t n = size - 8 < h.len ? size - 8 : h.len;
    hk_search_req q;
    hk_rd r;
    (void)hk_search_req_parse(data + 8, n, &q, &r);
    return 0;
}
