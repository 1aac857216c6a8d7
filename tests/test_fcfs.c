/* The workers' FCFS queue: waits behind busy workers, none without queueing. */
#include "hk_fcfs.h"
#include "hk_test.h"

static void two_workers(void **st)
{
    (void)st;
    hk_fcfs q;
    assert_int_equal(hk_fcfs_init(&q, 2), 0);
    assert_int_equal(hk_fcfs_start(&q, 0, 10), 0);
    assert_int_equal(hk_fcfs_start(&q, 0, 10), 0);
    assert_int_equal(hk_fcfs_start(&q, 0, 10), 10);   /* waits for the first free worker */
    assert_int_equal(hk_fcfs_start(&q, 5, 10), 10);
    assert_int_equal(hk_fcfs_start(&q, 30, 1), 30);   /* idle again */
    hk_fcfs_free(&q);
}

static void no_queueing(void **st)
{
    (void)st;
    hk_fcfs q;
    assert_int_equal(hk_fcfs_init(&q, 0), 0);
    for (int i = 0; i < 5; i++)
        assert_int_equal(hk_fcfs_start(&q, 7, 1000), 7);
    hk_fcfs_free(&q);
}

/* Up to HK_FCFS_INLINE workers live inside the struct: a copy keeps working on its own. */
static void small_pool_inline_and_copied(void **st)
{
    (void)st;
    hk_fcfs q, c;
    assert_int_equal(hk_fcfs_init(&q, HK_FCFS_INLINE), 0);
    for (int i = 0; i < HK_FCFS_INLINE; i++)
        assert_int_equal(hk_fcfs_start(&q, 0, 10 + i), 0);
    c = q;
    assert_int_equal(hk_fcfs_start(&c, 1, 5), 10);   /* the copy's first free worker */
    assert_int_equal(hk_fcfs_start(&q, 1, 5), 10);   /* the original is untouched by it */
    assert_int_equal(hk_fcfs_start(&q, 1, 5), 11);
    hk_fcfs_free(&q);
}

static void many_workers_order(void **st)
{
    (void)st;
    hk_fcfs q;
    assert_int_equal(hk_fcfs_init(&q, 5), 0);
    int64_t s[12];
    for (int i = 0; i < 12; i++)
        s[i] = hk_fcfs_start(&q, i, 100 + 7 * i);
    for (int i = 0; i < 5; i++)
        assert_int_equal(s[i], i);
    assert_int_equal(s[5], 100);        /* worker 0 frees at 0 + 100 */
    assert_int_equal(s[6], 1 + 107);    /* worker 1 frees at 108 */
    for (int i = 6; i < 12; i++)
        assert_true(s[i] >= s[i - 1]);  /* first come, first served */
    hk_fcfs_free(&q);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(two_workers), cmocka_unit_test(no_queueing),
        cmocka_unit_test(small_pool_inline_and_copied), cmocka_unit_test(many_workers_order),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
