/* hk_pool and hk_ports: each pool rule on the sequences that tell them apart (the fixed ring's
 * from Manticore's own pool test, 14.6.3), the stuck ring's leaks and double rents, 2.2.11's
 * stack, PR #4748's close on a failure; the ports a destination has over TIME_WAIT. */
#include <math.h>
#include <stdlib.h>
#include "hk_pool.h"
#include "hk_ports.h"
#include "hk_test.h"

static void ring_rents_first_returned_first(void **st)
{
    (void)st;
    hk_pool p;
    assert_int_equal(hk_pool_init(&p, HK_POOL_RING, 10, 0), 0);
    assert_int_equal(hk_pool_rent(&p), HK_POOL_NEW); /* lazily: a slot per rent that finds none */
    assert_int_equal(hk_pool_rent(&p), HK_POOL_NEW);
    assert_int_equal(p.len, 2);
    hk_pool_return(&p, 13);
    hk_pool_return(&p, 15);
    assert_int_equal(hk_pool_rent(&p), 13);
    assert_int_equal(hk_pool_rent(&p), 15);
    hk_pool_return(&p, 17);
    hk_pool_return(&p, 16);
    assert_int_equal(hk_pool_rent(&p), 17);
    assert_int_equal(hk_pool_rent(&p), 16);
    for (int i = 0; i < 8; i++)                      /* the other eight slots, one by one */
        assert_int_equal(hk_pool_rent(&p), HK_POOL_NEW);
    assert_int_equal(hk_pool_rent(&p), HK_POOL_NONE); /* the limit: a plain connection */
    assert_int_equal(hk_pool_rent(&p), HK_POOL_NONE);
    assert_int_equal(p.leaked + p.shared, 0);
    hk_pool_free(&p);
}

static void stuck_ring_leaks_and_rents_twice(void **st)
{
    (void)st;
    hk_pool p;
    assert_int_equal(hk_pool_init(&p, HK_POOL_RING_STUCK, 10, 0), 0);
    assert_int_equal(hk_pool_rent(&p), HK_POOL_NEW);
    assert_int_equal(hk_pool_rent(&p), HK_POOL_NEW);
    hk_pool_return(&p, 13);
    hk_pool_return(&p, 15);         /* written where 13 lay: 13 is never closed */
    assert_int_equal(p.leaked, 1);
    assert_int_equal(p.nfree, 0);   /* and the free count wrapped to 0 */
    assert_int_equal(hk_pool_rent(&p), HK_POOL_NEW); /* 15 idles, forgotten: a new one */
    assert_int_equal(p.len, 3);
    hk_pool_return(&p, 17);         /* over 15 */
    assert_int_equal(p.leaked, 2);
    /* one client at a time: rent and return alternate on slot 0, and that works */
    for (int i = 0; i < 5; i++) {
        assert_int_equal(hk_pool_rent(&p), 17);
        hk_pool_return(&p, 17);
    }
    assert_int_equal(p.leaked, 2);
    /* two at once: the second opens a slot; both come back to slot 0 (one leaks) and the next
     * two rents both get the one connection there */
    assert_int_equal(hk_pool_rent(&p), 17);
    assert_int_equal(hk_pool_rent(&p), HK_POOL_NEW);
    hk_pool_return(&p, 17);
    hk_pool_return(&p, 20);
    assert_int_equal(p.leaked, 3);
    assert_int_equal(hk_pool_rent(&p), 20);
    assert_int_equal(hk_pool_rent(&p), 20);
    assert_int_equal(p.shared, 1);
    hk_pool_free(&p);
}

static void stack_rents_last_returned_first(void **st)
{
    (void)st;
    hk_pool p;
    assert_int_equal(hk_pool_init(&p, HK_POOL_STACK, 2, 0), 0);
    assert_int_equal(hk_pool_rent(&p), HK_POOL_NEW);
    assert_int_equal(hk_pool_rent(&p), HK_POOL_NEW);
    assert_int_equal(hk_pool_rent(&p), HK_POOL_NONE); /* the third at once: plain */
    hk_pool_return(&p, 1);
    hk_pool_return(&p, 2);
    assert_int_equal(hk_pool_rent(&p), 2);
    hk_pool_return(&p, HK_POOL_NEW);                  /* its request failed: closed */
    assert_int_equal(hk_pool_rent(&p), HK_POOL_NEW);  /* so the next opens a new one */
    assert_int_equal(hk_pool_rent(&p), 1);
    assert_int_equal(hk_pool_return(&p, 5), 1);
    assert_int_equal(hk_pool_return(&p, 1), 1);
    assert_int_equal(hk_pool_return(&p, 9), 0);       /* full: the caller closes it */
    assert_int_equal(hk_pool_rent(&p), 1);
    assert_int_equal(hk_pool_rent(&p), 5);
    assert_int_equal(hk_pool_fatal(&p, NULL, 0), 0);  /* #4748 is Manticore's */
    hk_pool_free(&p);
}

static void close_on_fatal_empties_the_idle(void **st)
{
    (void)st;
    hk_pool p;
    assert_int_equal(hk_pool_init(&p, HK_POOL_RING, 4, 1), 0);
    for (int i = 0; i < 3; i++)
        assert_int_equal(hk_pool_rent(&p), HK_POOL_NEW);
    hk_pool_return(&p, 100);
    hk_pool_return(&p, 101);
    int64_t closed[4] = {0};
    assert_int_equal(hk_pool_fatal(&p, closed, 4), 2); /* the third's request failed: both idle */
    assert_true(closed[0] == 100 && closed[1] == 101);  /* closed, named for the caller */
    assert_int_equal(hk_pool_rent(&p), HK_POOL_NEW);
    assert_int_equal(hk_pool_rent(&p), HK_POOL_NEW);
    hk_pool_free(&p);
    assert_int_equal(hk_pool_init(&p, HK_POOL_RING, 4, 0), 0); /* without it they stay */
    assert_int_equal(hk_pool_rent(&p), HK_POOL_NEW);
    hk_pool_return(&p, 100);
    assert_int_equal(hk_pool_fatal(&p, closed, 4), 0);
    assert_int_equal(hk_pool_rent(&p), 100);
    hk_pool_free(&p);
}

static void rules_by_name_and_variant(void **st)
{
    (void)st;
    assert_int_equal(hk_pool_rule_find("ring-stuck"), HK_POOL_RING_STUCK);
    assert_int_equal(hk_pool_rule_find("lifo"), -1);
    assert_string_equal(hk_pool_rule_name(HK_POOL_STACK), "stack");
}

/* 900 connects a second to one address: 28,232 ports over 60 s run out at 31.4 s; then about
 * 470 a second still get one (as TIME_WAIT frees them). 400 a second never run out. */
static void ports_run_out_at_the_rate_they_allow(void **st)
{
    (void)st;
    hk_ports p;
    int64_t t0 = 1700000000LL * 1000000;
    assert_int_equal(hk_ports_init(&p, HK_PORTS_LINUX, HK_TIME_WAIT_LINUX_S), 0);
    uint64_t ok_late = 0;
    for (int64_t i = 0; i < 900 * 180; i++) {
        int64_t t = t0 + i * 1000000 / 900;
        int rc = hk_ports_connect(&p, t);
        if (i >= 900 * 120)
            ok_late += rc == 0;
    }
    assert_true(p.first_out_us >= t0 + 31000000 && p.first_out_us < t0 + 32000000);
    assert_near((double)ok_late / 60, 28232.0 / 60, 10);
    assert_near(hk_ports_rate(&p, t0 + 179999999), 28232.0 / 60, 1);
    hk_ports_free(&p);
    assert_int_equal(hk_ports_init(&p, HK_PORTS_LINUX, HK_TIME_WAIT_LINUX_S), 0);
    for (int64_t i = 0; i < 400 * 300; i++)
        assert_int_equal(hk_ports_connect(&p, t0 + i * 2500), 0);
    assert_int_equal(p.first_out_us, -1);
    assert_near(hk_ports_rate(&p, t0 + 299000000), 400, 8);
    hk_ports_free(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(ring_rents_first_returned_first),
                                       cmocka_unit_test(stuck_ring_leaks_and_rents_twice),
                                       cmocka_unit_test(stack_rents_last_returned_first),
                                       cmocka_unit_test(close_on_fatal_empties_the_idle),
                                       cmocka_unit_test(rules_by_name_and_variant),
                                       cmocka_unit_test(ports_run_out_at_the_rate_they_allow)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
