/* Hostile input to the core: every value the audit of issue 13 found accepted
 * (NaN, infinities, overflowing rates and spans, years far away, a worker
 * count that overflowed the heap index) is refused with its position, and a
 * heavy tail can never move the clock backwards. Each case failed before. */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "hk_arrivals.h"
#include "hk_dist.h"
#include "hk_fcfs.h"
#include "hk_qlog.h"
#include "hk_scn.h"
#include "hk_test.h"
#include "hk_time.h"

static void refused_dist(const char *s)
{
    hk_dist *d = NULL;
    int bad;
    char what[200];
    if (hk_dist_parse(s, &d, &bad, what, sizeof what) == 0) {
        hk_dist_free(d);
        fail_msg("'%s' was accepted", s);
    }
}

static void distributions(void **st)
{
    (void)st;
    refused_dist("lognormal(median=1ms, sigma=nan)");
    refused_dist("gamma(shape=inf, scale=1ms)");
    refused_dist("normal(mean=1ms, sd=1e999)");
    refused_dist("weibull(shape=-nan, scale=1)");
    refused_dist("mix(nan constant(1), 1 constant(2))");
    refused_dist("pareto(shape=1e13, scale=1)");
    /* a heavy tail is clamped: no sample is negative, NaN or beyond HK_DIST_MAX_US */
    hk_dist *d;
    int bad;
    char what[200];
    assert_int_equal(hk_dist_parse("pareto(shape=0.01, scale=1000000ms)", &d, &bad, what,
                                   sizeof what), 0);
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    for (int k = 0; k < 1000; k++) {
        double x = hk_dist_sample(d, r);
        assert_true(x >= 0 && x <= HK_DIST_MAX_US);
    }
    gsl_rng_free(r);
    hk_dist_free(d);
    /* the README's promise: a bare time is constant */
    assert_int_equal(hk_dist_parse("5ms", &d, &bad, what, sizeof what), 0);
    assert_int_equal(d->kind, HK_DIST_CONSTANT);
    assert_near(d->p[0], 5000, 0);
    hk_dist_free(d);
    /* a wrong parameter name lists the right ones */
    assert_int_equal(hk_dist_parse("lognormal(mean=5ms, sigma=1)", &d, &bad, what, sizeof what),
                     -1);
    assert_non_null(strstr(what, "median= or sigma="));
}

static void refused_arrivals(const char *s)
{
    hk_arrivals a;
    int bad;
    char what[200];
    if (hk_arrivals_parse(s, &a, &bad, what, sizeof what) == 0)
        fail_msg("'%s' was accepted", s);
}

static void arrivals(void **st)
{
    (void)st;
    refused_arrivals("poisson(1e-300/s)");
    refused_arrivals("poisson(nan/s)");
    refused_arrivals("poisson(inf/s)");
    refused_arrivals("constant(2000000/s)");
    refused_arrivals("diurnal(mean=10/s, amplitude=nan, period=1h)");
    refused_arrivals("onoff(rate=5/s, on=14000000w, off=14000000w)");
    /* the slowest rate accepted still moves forward without overflow */
    hk_arrivals a;
    int bad, table;
    char what[200];
    assert_int_equal(hk_arrivals_parse("poisson(0.000001/s)", &a, &bad, what, sizeof what), 0);
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    int64_t t = 0;
    for (int k = 0; k < 100; k++) {
        int64_t n = hk_arrivals_next(&a, t, r, &table);
        assert_true(n > t);
        t = n;
    }
    gsl_rng_free(r);
}

static void times_and_numbers(void **st)
{
    (void)st;
    int64_t us;
    long long v;
    double x;
    int bad;
    const char *what;
    assert_int_equal(hk_time_parse("400y", HK_SEC, &us, &bad, &what), -1);
    assert_int_equal(hk_time_parse("1e300s", HK_SEC, &us, &bad, &what), -1);
    assert_int_equal(hk_time_parse("20000w", HK_SEC, &us, &bad, &what), -1); /* > 317 years */
    assert_int_equal(hk_int_parse("99999999999999999999", 0, LLONG_MAX, &v, &bad, &what), -1);
    assert_int_equal(hk_int_parse("-9223372036854775808", LLONG_MIN, 0, &v, &bad, &what), 0);
    assert_true(v == LLONG_MIN);
    assert_int_equal(hk_int_parse("9223372036854775808", 0, LLONG_MAX, &v, &bad, &what), -1);
    assert_int_equal(hk_real_parse("nan", 0, 1, &x, &bad, &what), -1);
    assert_int_equal(hk_real_parse("inf", 0, 1e300, &x, &bad, &what), -1);
    assert_int_equal(hk_real_parse("1e999", 0, 1e300, &x, &bad, &what), -1);
    assert_int_equal(hk_real_parse("0.5", 0, 1, &x, &bad, &what), 0);
}

/* A query record whose text goes to buf. */
static hk_qrec qrec(char *buf, size_t n)
{
    hk_qrec q = {0};
    q.query = buf;
    q.qcap = n;
    return q;
}

/* The evidence in a sphinxql line's closing comment, as a real 2.2.11 master writes it. */
static void query_log_evidence(void **st)
{
    (void)st;
    char buf[256];
    hk_qrec q = qrec(buf, sizeof buf);
    int col;
    const char *what;
    assert_int_equal(hk_qlog_sphinxql("/* Fri Dec  4 05:02:39.882 2026 conn 1 real 0.005 wall 0.005 "
                                      "found 0 */ SELECT * FROM dist WHERE MATCH('q1'); /* agents="
                                      "(0.006, 0.0051) */", &q, &col, &what), 1);
    assert_int_equal(q.nagents, 2);
    assert_near(q.agent_s[0], 0.006, 1e-12);
    assert_near(q.agent_s[1], 0.0051, 1e-12);
    assert_int_equal(q.outcome, HK_QLOG_ANSWERED);
    assert_string_equal(q.blame, "");
    /* one agent line whose agent answered ERROR: the query failed, no agents=() */
    assert_int_equal(hk_qlog_sphinxql("/* Fri Dec  4 05:02:40.122 2026 conn 16 real 0.005 wall 0.005 "
                                      "found 0 */ SELECT * FROM dist WHERE MATCH('q16'); /* error="
                                      "index dist: agent 127.0.0.1:31002: remote error: hakarma "
                                      "mirror: injected error */", &q, &col, &what), 1);
    assert_int_equal(q.outcome, HK_QLOG_FAILED);
    assert_string_equal(q.blame, "127.0.0.1:31002");
    assert_int_equal(q.nagents, 0);
    /* two lines, one failed: a partial result, the times of both */
    assert_int_equal(hk_qlog_sphinxql("/* Sun Apr 28 12:38:02.808 2024 conn 2 real 0.006 wall 0.006 "
                                      "found 3 */ SELECT * FROM products WHERE MATCH('x'); /* agents="
                                      "(0.006, 0.005) warning=index products: agent box4.lan:9312: "
                                      "remote error: no such index */", &q, &col, &what), 1);
    assert_int_equal(q.outcome, HK_QLOG_WARNED);
    assert_string_equal(q.blame, "box4.lan:9312");
    assert_int_equal(q.nagents, 2);
    /* a remote error text that names no agent: counted, blamed on nobody */
    assert_int_equal(hk_qlog_sphinxql("/* Sun Apr 28 12:38:02.808 2024 conn 2 real 0.006 wall 0.006 "
                                      "found 0 */ SELECT * FROM d WHERE MATCH('x'); /* warning=index "
                                      "d: all agents failed */", &q, &col, &what), 1);
    assert_int_equal(q.outcome, HK_QLOG_WARNED);
    assert_string_equal(q.blame, "");
    /* Manticore (e790cb571, live-demo under it): no space before error=, then a second entry
     * for the failed statement, with no 'real', that is no arrival of its own */
    assert_int_equal(hk_qlog_sphinxql("/* Sun Dec 06 05:08:09.727 2026 conn 2 (127.0.0.1:41186) "
                                      "real 0.501 wall 0.501 found 0 */ SELECT * FROM dist WHERE "
                                      "MATCH('hakarma 1630'); /*error=table dist: agent "
                                      "127.0.0.1:58639: query timed out */", &q, &col, &what), 1);
    assert_int_equal(q.outcome, HK_QLOG_FAILED);
    assert_string_equal(q.blame, "127.0.0.1:58639");
    assert_int_equal(hk_qlog_sphinxql("/* Sun Dec 06 05:08:09.727 2026 conn 2 (127.0.0.1:41186) */ "
                                      "SELECT * FROM dist WHERE MATCH('hakarma 1630') # error=table "
                                      "dist: agent 127.0.0.1:58639: query timed out", &q, &col,
                                      &what), HK_QLOG_ERROR_ECHO);
    /* a header with neither 'real' nor an error echo is still malformed */
    assert_int_equal(hk_qlog_sphinxql("/* Sun Dec 06 05:08:09.727 2026 conn 2 */ SELECT * FROM d",
                                      &q, &col, &what), -1);
}

static void query_logs(void **st)
{
    (void)st;
    char buf[256];
    hk_qrec q = qrec(buf, sizeof buf);
    int col;
    const char *what;
    /* year 99999 overflowed the microsecond clock and made a replay sleep for centuries */
    assert_int_equal(hk_qlog_sphinxql("/* Sun Apr 28 12:38:02.808 99999 conn 2 real 0.000 wall "
                                      "0.000 found 0 */ SELECT * FROM d;", &q, &col, &what), -1);
    assert_int_equal(hk_qlog_plain("[Sun Apr 28 15:09:38.712 1969] 0.000 sec [x] [d] q", &q,
                                   &col, &what), -1);
    assert_int_equal(hk_qlog_sphinxql("/* Sun Apr 28 12:38:02.808 2024 conn 2 real 1e300 wall "
                                      "0.000 found 0 */ SELECT * FROM d;", &q, &col, &what), -1);
    /* a long query is kept whole when the buffer is large enough */
    char line[600], big[400];
    memset(big, 'w', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    snprintf(line, sizeof line, "[Sun Apr 28 15:09:38.712 2024] 0.000 sec [x] [d] %s", big);
    char qb[600];
    q.query = qb;
    q.qcap = sizeof qb;
    assert_int_equal(hk_qlog_plain(line, &q, &col, &what), 1);
    assert_int_equal(strlen(q.query), strlen(big));
}

/* Multi-query batches: ' xN' in both formats (2.2.11's own lines), conn kept; a batch size
 * out of range is refused at its column. */
static void query_log_batches(void **st)
{
    (void)st;
    char buf[256];
    hk_qrec q = qrec(buf, sizeof buf);
    int col;
    const char *what;
    assert_int_equal(hk_qlog_sphinxql("/* Fri Dec  4 19:58:11.402 2026 conn 7 real 0.000 wall 0.000 "
                                      "x3 found 2 */ SELECT * FROM loc WHERE MATCH('a');", &q, &col,
                                      &what), 1);
    assert_int_equal(q.batch, 3);
    assert_int_equal(q.conn, 7);
    assert_true(q.logged_us == q.t_us);
    assert_int_equal(hk_qlog_sphinxql("/* Fri Dec  4 19:58:11.402 2026 conn 7 real 0.002 wall 0.002 "
                                      "found 2 */ SELECT * FROM d WHERE MATCH('a'); /* agents=(0.001)"
                                      " */", &q, &col, &what), 1);
    assert_int_equal(q.batch, 1);
    assert_true(q.logged_us - q.t_us == 2000);
    assert_int_equal(hk_qlog_plain("[Fri Dec  4 19:58:11.402 2026] 0.004 sec 0.004 sec x3 "
                                   "[ext2/0/rel 2 (0,20)] [loc] a", &q, &col, &what), 1);
    assert_int_equal(q.batch, 3);
    assert_int_equal(q.conn, -1);
    assert_string_equal(q.table, "loc");
    assert_int_equal(hk_qlog_sphinxql("/* Fri Dec  4 19:58:11.402 2026 conn 7 real 0.000 wall 0.000 "
                                      "x0 found 2 */ SELECT * FROM loc;", &q, &col, &what), -1);
    assert_int_equal(col, 62);
    assert_int_equal(hk_qlog_plain("[Fri Dec  4 19:58:11.402 2026] 0.004 sec x999999 [x] [loc] a",
                                   &q, &col, &what), -1);
    assert_int_equal(col, 42);
}

static void workers(void **st)
{
    (void)st;
    hk_fcfs q;
    /* 2e9 workers overflowed the heap index and crashed the mirror's second SEARCH */
    assert_int_equal(hk_fcfs_init(&q, 2000000000), -1);
    assert_int_equal(hk_fcfs_init(&q, HK_FCFS_MAX_THREADS), 0);
    for (int k = 0; k < 1000; k++)
        assert_true(hk_fcfs_start(&q, k, 1000000) == k);
    hk_fcfs_free(&q);
}

static void scenario_values(void **st)
{
    (void)st;
    static const char *bad[] = {
        "mirror a:1 { service = 1ms errors = nan }",
        "mirror a:1 { service = 1ms }\nfault a:1 { at = 1s kind = slow(inf) }",
        "mirror a:1 { service = 1ms warnings = 2 }",
        "mirror a:1 { service = 1ms threads = 2000000000 }",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char text[512];
        snprintf(text, sizeof text, "table d { type = distributed\n agent = a:1:s\n}\n%s\n"
                 "workload { arrivals = poisson(1/s) duration = 1m }\n", bad[i]);
        hk_conf *c;
        hk_err e;
        hk_scn *s = NULL;
        assert_int_equal(hk_conf_parse(text, strlen(text), "t.scn", &c, &e), 0);
        if (hk_scn_build(c, NULL, HK_DIALECT_MANTICORE, &s, &e, NULL) == 0)
            fail_msg("case %zu was accepted", i);
        assert_true(e.line >= 4);
        hk_conf_free(c);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(distributions), cmocka_unit_test(arrivals),
        cmocka_unit_test(times_and_numbers), cmocka_unit_test(query_logs), cmocka_unit_test(query_log_evidence),
        cmocka_unit_test(query_log_batches),
        cmocka_unit_test(workers), cmocka_unit_test(scenario_values),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
