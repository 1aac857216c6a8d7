/* hk_ledger: the run's record per route — routes numbered as both engines number them
 * (tables in order, their lines, then mirrors), a closed period folded into its route's totals
 * once (counts, successes, latencies; the period emptied but for its probability samples),
 * and the run's rows read from the totals alone (hk_rep_rows). */
#include <string.h>
#include "hk_conf.h"
#include "hk_ledger.h"
#include "hk_report.h"
#include "hk_test.h"

static hk_cluster *cluster(void)
{
    static const char text[] =
        "index a { type = distributed\nagent = h1:9312|h2:9312:x\nagent = h3:9312:y\n}\n"
        "index b { type = distributed\nagent = h4:9312|h5:9312|h6:9312:z\n}\n";
    return hk_test_cluster(text, HK_DIALECT_SPHINX2);
}

static void folds_and_rows(void **st)
{
    (void)st;
    hk_cluster *cl = cluster();
    hk_ledger L;
    assert_int_equal(hk_ledger_init(&L, cl), 0);
    assert_int_equal(L.nli, 3);
    assert_int_equal(L.li_base[1], 2);       /* b's line follows a's two */
    hk_lper p = {.q = 5, .err = 2, .psum = 1.5, .pn = 3};
    hk_hist_add(&p.per, 1000);
    hk_hist_add(&p.per, 3000);
    hk_hist_add(&p.per, 2000);
    hk_ledger_fold(hk_ledger_at(&L, 2, 1), &p); /* b, line 1, h5 */
    assert_int_equal(p.q, 0);
    assert_int_equal(p.err, 0);
    assert_int_equal(p.per.n, 0);
    assert_true(p.psum == 1.5 && p.pn == 3); /* the engine's to reset */
    p.q = 2;
    hk_hist_add(&p.per, 4000);
    hk_ledger_fold(hk_ledger_at(&L, 2, 1), &p);
    const hk_ltot *t = hk_ledger_at(&L, 2, 1);
    assert_int_equal(t->q, 7);
    assert_int_equal(t->err, 2);
    assert_int_equal(t->ok, 4);
    assert_int_equal(t->lat.n, 4);
    assert_true(t->lat.sum == 10000);
    hk_ledger_at(&L, 0, 0)->connects = 9;
    int n;
    hk_rep_row *r = hk_rep_rows(&L, &n);
    assert_non_null(r);
    assert_int_equal(n, 6);
    assert_string_equal(r[0].mirror, "h1:9312");
    assert_int_equal(r[0].connects, 9);
    assert_string_equal(r[4].table, "b");
    assert_string_equal(r[4].mirror, "h5:9312");
    assert_int_equal(r[4].q, 7);
    assert_int_equal(r[4].err, 2);
    assert_true(r[4].lat == &t->lat);
    assert_int_equal(r[3].q, 0);
    free(r);
    hk_hist_free(&p.per);
    hk_ledger_free(&L);
    hk_ledger_free(&L);                      /* freed twice: a no-op */
    hk_cluster_free(cl);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(folds_and_rows)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
