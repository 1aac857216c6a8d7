/* hk_fmt: byte for byte what printf writes, on random values of every magnitude, on values at
 * and next to rounding halves, and on the special ones. */
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include <gsl/gsl_rng.h>
#include "../io/hk_fmt.h"

static void same_fixed(double x, int d)
{
    char want[HK_FMT_MAX], got[HK_FMT_MAX];
    int wn = snprintf(want, sizeof want, "%.*f", d, x);
    int gn = hk_fmt_fixed(got, x, d);
    if (strcmp(want, got) || wn != gn)
        fail_msg("%.17g with %d decimals: printf '%s', hk_fmt_fixed '%s'", x, d, want, got);
}

static void fixed_matches_printf(void **st)
{
    (void)st;
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 5);
    for (int i = 0; i < 400000; i++) {
        int d = (int)gsl_rng_uniform_int(r, 10);
        double mag = pow(10.0, -6.0 + 16.0 * gsl_rng_uniform(r));
        double x = (gsl_rng_uniform(r) - 0.25) * mag;
        same_fixed(x, d);
        /* at and beside a half of the last digit: exact halves go to printf's own rule */
        double k = floor(gsl_rng_uniform(r) * pow(10.0, 15.0 * gsl_rng_uniform(r)));
        double half = (k + 0.5) / pow(10.0, d);
        same_fixed(half, d);
        same_fixed(nextafter(half, 0.0), d);
        same_fixed(nextafter(half, INFINITY), d);
        same_fixed(-half, d);
        /* a few units of the double's last place either side of a half: where a value too large
         * for the fast path would round the wrong way */
        double near = (k + 0.5 + (gsl_rng_uniform(r) - 0.5) * (k + 1) * 1e-15) / pow(10.0, d);
        same_fixed(near, d);
    }
    gsl_rng_free(r);
    static const double special[] = {0.0, -0.0, 0.5, 1.5, 2.5, 0.125, 2.675, 1e-300, -1e-300,
                                     0.00049999999999999, 0.0005, 214748.36475, 1e300, -1e300,
                                     DBL_MAX, DBL_MIN, INFINITY, -INFINITY, NAN};
    for (size_t i = 0; i < sizeof special / sizeof special[0]; i++)
        for (int d = 0; d <= 9; d++)
            same_fixed(special[i], d);
}

static void u64_matches_printf(void **st)
{
    (void)st;
    char want[HK_FMT_MAX], got[HK_FMT_MAX];
    uint64_t v[] = {0, 1, 9, 10, 99, 100, 4294967295u, 4294967296u, UINT64_MAX, UINT64_MAX - 1};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        snprintf(want, sizeof want, "%" PRIu64, v[i]);
        assert_int_equal(hk_fmt_u64(got, v[i]), (int)strlen(want));
        assert_string_equal(got, want);
    }
    uint64_t x = 88172645463325252u;
    for (int i = 0; i < 100000; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        uint64_t y = x >> (x % 64);
        snprintf(want, sizeof want, "%" PRIu64, y);
        hk_fmt_u64(got, y);
        assert_string_equal(got, want);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fixed_matches_printf),
        cmocka_unit_test(u64_matches_printf),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
