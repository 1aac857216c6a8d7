/* fuzz_conf: config and scenario syntax — hk_conf_parse, then the cluster and
 * scenario builders on whatever parsed. */
#include <stddef.h>
#include <stdint.h>
#include "hk_scn.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    hk_conf *c = NULL;
    hk_err e;
    hk_warns w = {0};
    if (hk_conf_parse((const char *)data, size, "fuzz.conf", &c, &e) < 0)
        return 0;
    for (int d = 0; d < 2; d++) { /* as Manticore and as Sphinx 2.2.11 read it */
        hk_scn *s = NULL;
        if (hk_scn_build(c, NULL, (hk_dialect)d, &s, &e, &w) == 0)
            hk_scn_free(s);
    }
    hk_conf_free(c);
    return 0;
}
