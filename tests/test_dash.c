/* Karma blocks: window arithmetic (§8.7), ring reuse, errors in a row, pings, who is told of
 * a change. */
#include <math.h>
#include <string.h>
#include "hk_dash.h"
#include "hk_test.h"

#define S(x) ((int64_t)(x) * 1000000)

static void window_half_rule(void **st)
{
    (void)st;
    hk_dash *d = hk_dash_array_new(1, 60);
    assert_non_null(d);
    int64_t t0 = S(60 * 1000);          /* start of block 1000 */
    hk_dash_record(d, t0 - S(20), HK_EV_SUCCESS, t0 - S(20) - 5000, 0, -1); /* block 999 */
    hk_dash_record(d, t0 + S(5), HK_EV_SUCCESS, t0 + S(5) - 7000, 0, -1);   /* block 1000 */
    hk_block w;
    hk_dash_window(d, t0 + S(10), 1, &w);  /* second 10: current + previous */
    assert_int_equal(w.c[HK_EV_SUCCESS], 2);
    assert_int_equal(w.total_us, 12000);
    hk_dash_window(d, t0 + S(29), 1, &w);  /* 29 < 30: still both */
    assert_int_equal(w.c[HK_EV_SUCCESS], 2);
    hk_dash_window(d, t0 + S(30), 1, &w);  /* 30: only current */
    assert_int_equal(w.c[HK_EV_SUCCESS], 1);
    hk_dash_window(d, t0 + S(40), 1, &w);
    assert_int_equal(w.total_us, 7000);
    hk_dash_window(d, t0 + S(40), 5, &w);  /* 5 periods = 5 blocks here */
    assert_int_equal(w.c[HK_EV_SUCCESS], 2);
    uint64_t c[HK_EV_N];                    /* the counters-only read agrees */
    hk_dash_window_counts(d, t0 + S(10), c);
    assert_int_equal(c[HK_EV_SUCCESS], 2);
    hk_dash_window_counts(d, t0 + S(40), c);
    assert_int_equal(c[HK_EV_SUCCESS], 1);
    hk_dash_array_free(d);
}

static void ring_reuse_and_cap(void **st)
{
    (void)st;
    hk_dash *d = hk_dash_array_new(1, 10);
    assert_non_null(d);
    for (int b = 0; b < 20; b++)
        hk_dash_record(d, S(b * 10 + 6), HK_EV_SUCCESS, S(b * 10 + 6) - 1000, 0, -1);
    hk_block w;
    hk_dash_window(d, S(19 * 10 + 6), 15, &w);    /* 15 periods: capped at 15 blocks */
    assert_int_equal(w.c[HK_EV_SUCCESS], 15);
    hk_dash_window(d, S(19 * 10 + 1), 15, &w);    /* first half: 16 asked, capped to 15 */
    assert_int_equal(w.c[HK_EV_SUCCESS], 15);
    hk_dash_block(d, 3, &w);                       /* overwritten by block 18 */
    assert_int_equal(w.c[HK_EV_SUCCESS], 0);
    hk_dash_block(d, 18, &w);
    assert_int_equal(w.c[HK_EV_SUCCESS], 1);
    /* stale slots are not summed after a long idle gap */
    hk_dash_window(d, S(1000 * 10 + 6), 15, &w);
    assert_int_equal(hk_block_events(&w), 0);
    hk_dash_array_free(d);
}

static void errors_in_a_row(void **st)
{
    (void)st;
    hk_dash *d = hk_dash_array_new(1, 60);
    assert_non_null(d);
    static const hk_ev fails[] = {HK_EV_CONNECT_FAILURE, HK_EV_QUERY_TIMEOUT, HK_EV_WARNING};
    for (int i = 0; i < 3; i++)
        hk_dash_record(d, S(1 + i), fails[i], S(1 + i), 0, -1);
    assert_int_equal(d->errors_a_row, 3);
    assert_false(hk_dash_dead(d));               /* 3 in a row: still alive */
    hk_dash_record(d, S(5), HK_EV_REMOTE_ERROR, S(5), 0, -1);
    assert_int_equal(d->errors_a_row, 3);          /* remote error records nothing */
    hk_dash_record(d, S(6), HK_EV_WARNING, S(6), 0, -1);
    assert_true(hk_dash_dead(d));                /* the 4th makes it dead */
    hk_dash_record(d, S(7), HK_EV_SUCCESS, S(7), 1, -1);   /* one ping revives */
    assert_false(hk_dash_dead(d));
    hk_block w;
    hk_dash_window(d, S(8), 1, &w);
    assert_int_equal(hk_block_events(&w), 5);
    assert_int_equal(w.pings, 1);
    hk_dash_array_free(d);
}

static void pings_add_no_time_connects_tracked(void **st)
{
    (void)st;
    hk_dash *d = hk_dash_array_new(1, 60);
    assert_non_null(d);
    hk_dash_record(d, S(2), HK_EV_SUCCESS, S(1), 1, 300);
    hk_dash_record(d, S(3), HK_EV_SUCCESS, S(3) - 4000, 0, 500);
    hk_dash_record(d, S(4), HK_EV_QUERY_TIMEOUT, S(1), 0, 100);
    hk_block w;
    hk_dash_window(d, S(5), 1, &w);
    assert_int_equal(w.total_us, 4000 + 3000000);  /* failed attempt time counts, ping not */
    assert_int_equal(w.connect_count, 3);
    assert_int_equal(w.connect_max_us, 500);
    assert_int_equal(w.connect_sum_us, 900);
    assert_int_equal(d->last_answer_us, S(4));
    hk_dash_array_free(d);
}

/* A connect of 0 us (a persistent connection, loopback) still counts as a connect. */
static void zero_connect_counted(void **st)
{
    (void)st;
    hk_dash *d = hk_dash_array_new(1, 60);
    assert_non_null(d);
    hk_dash_record(d, S(100), HK_EV_SUCCESS, S(100) - 500, 0, 0);
    hk_dash_record(d, S(100), HK_EV_SUCCESS, S(100) - 500, 0, 200);
    hk_dash_record(d, S(100), HK_EV_SUCCESS, S(100) - 500, 0, -1);   /* no connect timed */
    hk_block b;
    hk_dash_window(d, S(100), 1, &b);
    assert_int_equal(b.connect_count, 2);
    assert_int_equal(b.connect_sum_us, 200);
    hk_dash_array_free(d);
}

static void negative_time_blocks(void **st)
{
    (void)st;
    hk_dash *d = hk_dash_array_new(1, 60);
    assert_non_null(d);
    assert_int_equal(hk_dash_block_of(d, -1), -1);
    assert_int_equal(hk_dash_block_of(d, 0), 0);
    assert_int_equal(hk_dash_block_of(d, S(59)), 0);
    assert_int_equal(hk_dash_block_of(d, S(60)), 1);
    hk_dash_array_free(d);
}

typedef struct told {
    hk_dash_sub base;
    int calls;
    unsigned last;
} told;

static void on_change(hk_dash_sub *s, unsigned what)
{
    told *t = (told *)s;
    t->calls++;
    t->last = what;
}

/* A lone success reaches the subscribers only while one of them wants it; anything else reaches
 * all; the count follows wants that change while subscribed, and unsubscribing. */
static void lone_success_told_only_when_wanted(void **st)
{
    (void)st;
    hk_dash *d = hk_dash_array_new(1, 60);
    assert_non_null(d);
    told a = {.base.fn = on_change}, b = {.base.fn = on_change};
    hk_dash_subscribe(d, &a.base);
    hk_dash_subscribe(d, &b.base);
    hk_dash_record(d, S(1), HK_EV_SUCCESS, S(1) - 10, 0, -1);
    assert_int_equal(a.calls + b.calls, 0);
    hk_dash_record(d, S(2), HK_EV_QUERY_TIMEOUT, S(1), 0, -1); /* counts and the row */
    assert_int_equal(a.calls, 1);
    assert_int_equal(b.last, HK_DASH_CH_ROW | HK_DASH_CH_COUNTS);
    hk_dash_record(d, S(3), HK_EV_SUCCESS, S(3) - 10, 0, -1); /* the row resets: told */
    assert_int_equal(a.calls, 2);
    hk_dash_sub_wants(&b.base, 1);
    hk_dash_record(d, S(4), HK_EV_SUCCESS, S(4) - 10, 0, -1);
    assert_int_equal(a.calls, 3); /* b wants it: every subscriber is told */
    assert_int_equal(b.last, HK_DASH_CH_SUCCESS);
    hk_dash_unsubscribe(&b.base);
    assert_int_equal(d->success_subs, 0);
    hk_dash_record(d, S(5), HK_EV_SUCCESS, S(5) - 10, 0, -1);
    assert_int_equal(a.calls, 3);
    hk_dash_sub_wants(&a.base, 1);
    hk_dash_sub_wants(&a.base, 1); /* twice: counted once */
    assert_int_equal(d->success_subs, 1);
    hk_dash_changed(d);
    assert_int_equal(a.calls, 4);
    hk_dash_unsubscribe(&a.base);
    assert_int_equal(d->success_subs, 0);
    hk_dash_array_free(d);
}

/* Dashboards of one array keep their own blocks although their rings interleave (slot k of
 * dashboard i lies beside slot k of i + 1), through a ring's reuse too. */
static void array_rings_apart(void **st)
{
    (void)st;
    hk_dash *d = hk_dash_array_new(3, 10);
    assert_non_null(d);
    for (int b = 0; b < 20; b++)
        for (int i = 0; i < 3; i++)
            for (int n = 0; n <= i; n++) /* dashboard i: i + 1 successes per block */
                hk_dash_record(&d[i], S(b * 10 + 6), HK_EV_SUCCESS, S(b * 10 + 6) - 1000, 0, -1);
    for (int i = 0; i < 3; i++) {
        hk_block w;
        hk_dash_window(&d[i], S(19 * 10 + 6), 15, &w);
        assert_int_equal(w.c[HK_EV_SUCCESS], 15 * (i + 1));
        assert_int_equal(w.total_us, 15 * (i + 1) * 1000);
        hk_dash_block(&d[i], 4, &w); /* overwritten by block 19 */
        assert_int_equal(w.c[HK_EV_SUCCESS], 0);
    }
    assert_null(hk_dash_array_new(0, 10));
    hk_dash_array_free(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(window_half_rule), cmocka_unit_test(ring_reuse_and_cap),
        cmocka_unit_test(errors_in_a_row), cmocka_unit_test(pings_add_no_time_connects_tracked),
        cmocka_unit_test(negative_time_blocks), cmocka_unit_test(zero_connect_counted),
        cmocka_unit_test(lone_success_told_only_when_wanted), cmocka_unit_test(array_rings_apart),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
