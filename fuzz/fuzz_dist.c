/* fuzz_dist: distribution and arrival-process syntax, and sampling what parsed. */
#include <gsl/gsl_rng.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "hk_arrivals.h"
#include "hk_dist.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    memcpy(s, data, size);
    s[size] = '\0';
    int bad;
    char what[200];
    hk_dist *d = NULL;
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    if (hk_dist_parse(s, &d, &bad, what, sizeof what) == 0) {
        for (hk_dist *e; (e = hk_dist_next_empirical(d));) {
            double *v = malloc(sizeof *v);
            v[0] = 1000;
            hk_dist_set_samples(e, v, 1);
        }
        for (int k = 0; k < 8; k++)
            (void)hk_dist_sample(d, r);
        (void)hk_dist_mean(d);
        hk_dist_free(d);
    }
    hk_arrivals a;
    if (hk_arrivals_parse(s, &a, &bad, what, sizeof what) == 0 && a.kind != HK_ARR_TRACE) {
        int64_t t = 0;
        int table;
        for (int k = 0; k < 8 && t >= 0; k++) {
            int64_t next = hk_arrivals_next(&a, t, r, &table);
            if (next >= 0 && next < t)
                abort(); /* arrivals never go back in time */
            t = next;
        }
    }
    gsl_rng_free(r);
    free(s);
    return 0;
}
