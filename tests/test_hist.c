/* Histogram: quantiles within the bucket precision, merge, edge values. */
#include <math.h>
#include "hk_hist.h"
#include "hk_test.h"

static void quantiles_within_precision(void **st)
{
    (void)st;
    hk_hist h = {0};
    for (int i = 1; i <= 100000; i++)
        hk_hist_add(&h, (double)i);          /* 1 µs .. 100 ms, uniform */
    static const double q[] = {0.01, 0.1, 0.5, 0.9, 0.99, 0.999};
    for (size_t k = 0; k < sizeof q / sizeof q[0]; k++) {
        double want = q[k] * 100000, got = hk_hist_quantile(&h, q[k]);
        assert_true(fabs(got - want) <= want * 0.02 + 1);
    }
    assert_near(hk_hist_mean(&h), 50000.5, 1e-6);
    assert_near(hk_hist_quantile(&h, 0), 1, 0);
    assert_near(hk_hist_quantile(&h, 1), 100000, 0);
    assert_int_equal(h.lo, 0);                  /* only the powers of two it touched: */
    assert_int_equal(h.hi, 17);                 /* 1 us .. 100 ms, 2^0 .. 2^16 */
    hk_hist_reset(&h);
    assert_int_equal(h.n, 0);
    assert_near(hk_hist_quantile(&h, 0.5), 0, 0);
    hk_hist_free(&h);
}

static void merge_and_edges(void **st)
{
    (void)st;
    hk_hist a = {0}, b = {0};
    assert_near(hk_hist_quantile(&a, 0.5), 0, 0);   /* empty */
    hk_hist_add(&a, 0.2);                           /* below 1 µs */
    hk_hist_add(&b, 3e12);                          /* beyond the last octave */
    hk_hist_add(&b, NAN);                           /* counted as 0 */
    hk_hist_merge(&a, &b);
    assert_int_equal(a.n, 3);
    assert_near(a.max, 3e12, 0);
    assert_near(a.min, 0, 0);
    assert_true(hk_hist_quantile(&a, 0.99) > 1e10);    /* the overflow bucket, up to max */
    assert_near(hk_hist_quantile(&a, 1), 3e12, 0);
    hk_hist_free(&a);
    hk_hist_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(quantiles_within_precision), cmocka_unit_test(merge_and_edges),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
