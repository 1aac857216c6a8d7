/* hk_grow: an array grows by doubling from 16, keeps what it held, zeroes its new room, and a
 * request past INT_MAX elements (or out of memory) leaves the array and its room as they were. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "hk_grow.h"
#include "hk_test.h"

typedef struct item {
    long id;
    double v[3];
} item;

static void grows_and_keeps(void **st)
{
    (void)st;
    item *a = NULL;
    int cap = 0, n = 0;
    for (int i = 0; i < 1000; i++) {
        assert_int_equal(HK_GROW(a, cap, n + 1), 0);
        assert_true(cap >= n + 1);
        assert_int_equal(a[n].id, 0);       /* new room is zeroed */
        assert_true(a[n].v[2] == 0);
        a[n++] = (item){.id = i + 1, .v = {i, i, i}};
    }
    assert_int_equal(cap, 1024);            /* 16, doubled six times */
    for (int i = 0; i < n; i++)
        assert_int_equal(a[i].id, i + 1);
    int room = cap;
    assert_int_equal(HK_GROW(a, cap, 10), 0); /* room enough: nothing moves */
    assert_int_equal(cap, room);
    free(a);
}

static void refuses_what_cannot_be(void **st)
{
    (void)st;
    int *a = NULL, cap = 0;
    assert_int_equal(HK_GROW(a, cap, 100), 0);
    a[99] = 7;
    int *before = a;
    assert_int_equal(HK_GROW(a, cap, (long)INT_MAX), -1);
    assert_ptr_equal(a, before);
    assert_int_equal(cap, 128);
    assert_int_equal(a[99], 7);
    free(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(grows_and_keeps),
                                       cmocka_unit_test(refuses_what_cannot_be)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
