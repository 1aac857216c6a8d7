/* hk_tl: the fine timeline — exact latency sums, bins merged when a run outgrows them (counts
 * add up, samples keep the later), unsampled bins carrying the last sample. */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "hk_tl.h"

#define S(x) ((int64_t)(x) * 1000000)

static void init2(hk_tl *t, int cap)
{
    hk_tl_series ser[2] = {{.nmirrors = 2}, {.mirror = 1, .host = 1, .nmirrors = 2}};
    assert_int_equal(hk_tl_init(t, ser, 2, 0, S(1), cap), 0);
}

/* A busy bin's latency is summed in whole microseconds: 10^6 answers of 12.345 ms add up to
 * exactly 12,345 s (a float sum of milliseconds is off in the third decimal long before). */
static void latency_sum_is_exact(void **st)
{
    (void)st;
    hk_tl t;
    init2(&t, 16);
    for (int i = 0; i < 1000000; i++)
        hk_tl_outcome(&t, 1, S(3) + i % 1000, HK_EV_SUCCESS, 12345);
    hk_tl_outcome(&t, 1, S(3), HK_EV_QUERY_TIMEOUT, 999999); /* a failure adds no latency */
    hk_tl_outcome(&t, 1, S(3), HK_EV_REMOTE_ERROR, 5);
    hk_tl_outcome(&t, 1, -5, HK_EV_CONNECT_FAILURE, 5); /* before t0: no bin, still a kind */
    const hk_tl_cell *c = hk_tl_cell_at(&t, 1, 3);
    const uint64_t *kinds = hk_tl_kinds(&t, 1);
    assert_int_equal(kinds[HK_EV_QUERY_TIMEOUT], 1); /* every outcome but success, by kind */
    assert_int_equal(kinds[HK_EV_REMOTE_ERROR], 1);
    assert_int_equal(kinds[HK_EV_CONNECT_FAILURE], 1);
    assert_int_equal(kinds[HK_EV_SUCCESS], 0);
    assert_int_equal(hk_tl_kinds(&t, 0)[HK_EV_REMOTE_ERROR], 0);
    assert_int_equal(c->ok, 1000000);
    assert_int_equal(c->err, 2);
    assert_true(c->lat_us == 12345000000ull);
    assert_true((double)c->lat_us / c->ok / 1000.0 == 12.345);
    hk_tl_free(&t);
}

/* 40 s into 16 one-second bins: merged twice (4 s each); every attempt and every microsecond
 * kept; each merged bin keeps its later half's sample, or the earlier's where that is none. */
static void halving_keeps_counts_and_later_samples(void **st)
{
    (void)st;
    hk_tl t;
    init2(&t, 16);
    for (int s = 0; s < 40; s++) {
        hk_tl_attempt(&t, 0, S(s));
        hk_tl_outcome(&t, 0, S(s) + 10, s % 5 ? HK_EV_SUCCESS : HK_EV_WARNING, 1000 + s);
        if (s % 2 == 0 || s < 8)
            hk_tl_sample(&t, 0, S(s), s / 100.0, 0.5);
    }
    assert_int_equal(t.width_us, S(4));
    assert_int_equal(t.nbins, 10);
    uint64_t q = 0, lat = 0, ok = 0, warn = 0;
    for (int k = 0; k < t.nbins; k++) {
        q += hk_tl_cell_at(&t, 0, k)->q;
        lat += hk_tl_cell_at(&t, 0, k)->lat_us;
        ok += hk_tl_cell_at(&t, 0, k)->ok;
        warn += hk_tl_cell_at(&t, 0, k)->warn;
        assert_int_equal(hk_tl_cell_at(&t, 1, k)->q, 0);
    }
    assert_int_equal(q, 40);
    assert_int_equal(ok, 40); /* a reply with a warning is an answer ... */
    assert_int_equal(warn, 8); /* ... counted apart too, through the merges */
    assert_int_equal(hk_tl_kinds(&t, 0)[HK_EV_WARNING], 8);
    assert_true(lat == 40 * 1000 + 39 * 40 / 2);
    assert_float_equal(hk_tl_smp_at(&t, 0, 0)->prob, 0.03f, 1e-6); /* bin 0 = seconds 0-3 */
    assert_float_equal(hk_tl_smp_at(&t, 0, 5)->prob, 0.22f, 1e-6); /* 20-23: 23 unsampled */
    assert_true(isnan(hk_tl_smp_at(&t, 1, 5)->prob));
    hk_tl_fill(&t);
    assert_true(isnan(hk_tl_smp_at(&t, 1, 5)->prob)); /* never sampled: nothing to carry */
    hk_tl_sample(&t, 1, S(2), 0.7, 0.4);
    hk_tl_fill(&t);
    assert_float_equal(hk_tl_smp_at(&t, 1, 5)->prob, 0.7f, 1e-6); /* carried from bin 0 */
    hk_tl_free(&t);
}

/* Bins are cleared as a run reaches them, not at set-up: the bins a jump skips over are empty
 * and unsampled, even in memory a previous timeline left full (malloc hands it back). */
static void skipped_bins_are_empty(void **st)
{
    (void)st;
    hk_tl t;
    init2(&t, 16);
    for (int s = 0; s < 16; s++) {
        hk_tl_attempt(&t, 0, S(s));
        hk_tl_sample(&t, 0, S(s), 0.5, 0.5);
        hk_tl_query(&t, S(s), 0);
    }
    hk_tl_free(&t);
    init2(&t, 16);
    assert_int_equal(t.nbins, 0);
    hk_tl_attempt(&t, 0, S(0));
    hk_tl_attempt(&t, 1, S(9));
    assert_int_equal(t.nbins, 10);
    for (int k = 1; k < 9; k++)
        for (int s = 0; s < 2; s++) {
            assert_int_equal(hk_tl_cell_at(&t, s, k)->q, 0);
            assert_true(isnan(hk_tl_smp_at(&t, s, k)->prob));
            assert_int_equal(t.b[k].ok, 0);
        }
    assert_int_equal(hk_tl_cell_at(&t, 1, 9)->q, 1);
    hk_tl_free(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(latency_sum_is_exact),
        cmocka_unit_test(halving_keeps_counts_and_later_samples),
        cmocka_unit_test(skipped_bins_are_empty),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
