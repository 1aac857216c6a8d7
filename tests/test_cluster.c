/* Distributed tables from a realistic manticore.conf: settings and their
 * defaults, agent kinds, strategies, retries, hosts; bad values' positions. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hk_cluster.h"
#include "hk_strat.h"
#include "hk_test.h"
#include "hk_time.h"

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    char *buf = malloc(1 << 20);
    *len = fread(buf, 1, (1 << 20) - 1, f);
    fclose(f);
    buf[*len] = '\0';
    return buf;
}

static int build(const char *text, hk_cluster **cl, hk_err *e, hk_warns *w)
{
    hk_conf *c;
    if (hk_conf_parse(text, strlen(text), "t.conf", &c, e) < 0)
        return -1;
    int rc = hk_cluster_from_conf(c, NULL, HK_DIALECT_MANTICORE, cl, e, w);
    hk_conf_free(c);
    return rc;
}

static void realistic_config(void **st)
{
    (void)st;
    size_t len;
    char *text = slurp(HK_TEST_DATA "/manticore.conf", &len);
    hk_conf *c;
    hk_err e;
    hk_warns w = {0};
    assert_int_equal(hk_conf_parse(text, len, "manticore.conf", &c, &e), 0);
    hk_cluster *cl;
    assert_int_equal(hk_cluster_from_conf(c, NULL, HK_DIALECT_MANTICORE, &cl, &e, &w), 0);
    assert_int_equal(w.n, 1); /* noerrorstm is read as noerrors: said, with its position */
    assert_int_equal(w.w[0].line, 58);
    assert_non_null(strstr(w.w[0].msg, "read as 'noerrors'"));
    assert_int_equal(cl->set.karma_s, 120);
    assert_int_equal(cl->set.ping_us, 500 * HK_MS);
    assert_int_equal(cl->set.connect_timeout_us, 300 * HK_MS);
    assert_int_equal(cl->set.query_timeout_us, 2 * HK_SEC);
    assert_int_equal(cl->set.retry_count, 1);
    assert_int_equal(cl->set.retry_delay_us, 100 * HK_MS);
    assert_int_equal(cl->ntables, 2);

    const hk_table *p = hk_cluster_find_table(cl, "products");
    assert_non_null(p);
    assert_int_equal(p->strategy, HK_STRAT_NODEADS);
    assert_int_equal(p->nlocal, 1);
    assert_string_equal(p->local[0], "products_rt");
    assert_int_equal(p->query_timeout_us, 1500 * HK_MS);
    assert_int_equal(p->connect_timeout_us, 300 * HK_MS);
    assert_int_equal(p->nlines, 2);
    assert_int_equal(p->lines[0].strategy, HK_STRAT_NODEADS);
    assert_int_equal(p->lines[1].strategy, HK_STRAT_ROUNDROBIN);
    assert_string_equal(p->lines[1].a.m[0].indexes, "shard2");
    assert_int_equal(hk_line_attempts(cl, p, &p->lines[0], 0), 1 + 1 * 2);  /* global x mirrors */
    assert_int_equal(hk_line_attempts(cl, p, &p->lines[1], 0), 3);       /* [retry_count=2] */
    assert_int_equal(hk_line_attempts(cl, p, &p->lines[1], 1), 2);       /* 2.2.11: global only */
    cl->set.retry_count = 20;
    assert_int_equal(hk_line_attempts(cl, p, &p->lines[1], 1), 9);       /* 2.2.11: at most 8 */
    cl->set.retry_count = 1;

    const hk_table *eu = hk_cluster_find_table(cl, "products_eu");
    assert_non_null(eu);
    assert_int_equal(eu->strategy, HK_STRAT_NOERRORS);     /* "noerrorstm" prefix */
    assert_int_equal(eu->nlines, 3);
    assert_false(eu->lines[0].a.persistent);
    assert_true(eu->lines[1].a.persistent);
    assert_true(eu->lines[2].a.blackhole);
    assert_int_equal(eu->nlocal, 1);                        /* inherited local */
    assert_int_equal(hk_line_attempts(cl, eu, &eu->lines[0], 0), 1 + 3 * 2);

    assert_int_equal(cl->nhosts, 9);
    int h = hk_cluster_find_host(cl, "box1:9312");
    assert_true(h >= 0);
    assert_true(cl->hosts[h].in_ha);
    int a = hk_cluster_find_host(cl, "audit:9312");
    assert_false(cl->hosts[a].in_ha);
    hk_cluster_free(cl);
    hk_conf_free(c);
    free(text);
}

static void defaults(void **st)
{
    (void)st;
    hk_cluster *cl;
    hk_err e;
    assert_int_equal(build("table d { type = distributed\n agent = a:1:x|b:1:x\n}\n", &cl, &e,
                           NULL), 0);
    assert_int_equal(cl->set.karma_s, 60);
    assert_int_equal(cl->set.ping_us, 1000 * HK_MS);
    assert_int_equal(cl->set.connect_timeout_us, 1000 * HK_MS);
    assert_int_equal(cl->set.query_timeout_us, 3000 * HK_MS);
    assert_int_equal(cl->set.retry_count, 0);
    assert_int_equal(cl->set.retry_delay_us, 500 * HK_MS);
    assert_int_equal(cl->tables[0].strategy, HK_STRAT_RANDOM);
    assert_int_equal(hk_line_attempts(cl, &cl->tables[0], &cl->tables[0].lines[0], 0), 1);
    hk_cluster_free(cl);
}

static void unknown_strategy_warns(void **st)
{
    (void)st;
    hk_cluster *cl;
    hk_err e;
    hk_warns w = {0};
    assert_int_equal(build("table d { type = distributed\n agent = a:1:x|b:1:x\n"
                           " ha_strategy = fastest\n}\n", &cl, &e, &w), 0);
    assert_int_equal(cl->tables[0].strategy, HK_STRAT_RANDOM);
    assert_int_equal(w.n, 1);
    assert_int_equal(w.w[0].line, 3);
    assert_non_null(strstr(w.w[0].msg, "will use random"));
    hk_cluster_free(cl);
}

static void bad_values(void **st)
{
    (void)st;
    static const struct { const char *text; int line, col; const char *needle; } cases[] = {
        {"searchd {\n ha_period_karma = 1x\n}\n", 2, 21, "time suffix"},
        {"searchd {\n ha_period_karma = 500ms\n}\n", 2, 20, "at least 1s"},
        {"searchd {\n agent_retry_count = many\n}\n", 2, 22, "an integer"},
        {"searchd {\n ha_strategy = nodeads\n}\n", 2, 2, "not a searchd setting"},
        {"table d {\n type = distributed\n agent = a:1:x\n agent_query_timeout = -5\n}\n",
         4, 24, "a number"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        hk_cluster *cl = NULL;
        hk_err e;
        assert_int_equal(build(cases[i].text, &cl, &e, NULL), -1);
        if (e.line != cases[i].line || e.col != cases[i].col || !strstr(e.msg, cases[i].needle))
            fail_msg("case %zu: got %d:%d '%s'", i, e.line, e.col, e.msg);
    }
}

/* Manticore refuses the whole table over one bad agent line; the reason is kept, where it is. */
static void refused_tables(void **st)
{
    (void)st;
    static const struct { const char *text; int line, col; const char *needle; } cases[] = {
        {"table d { type = distributed\n}\n", 1, 1, "at least one agent"},
        {"table d {\n type = distributed\n agent = a:1:x [bad=1]\n}\n", 3, 17, "an option"},
        {"table d {\n type = distributed\n agent = a:65536:x\n}\n", 3, 12, "port number"},
        {"table d {\n type = distributed\n local = nowhere\n agent = a:1:x\n}\n", 3, 10,
         "no such local table 'nowhere'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        hk_cluster *cl = NULL;
        hk_err e;
        hk_warns w = {0};
        assert_int_equal(build(cases[i].text, &cl, &e, &w), 0);
        assert_int_equal(cl->ntables, 0);
        assert_int_equal(cl->nrefused, 1);
        assert_int_equal(cl->nhosts, 0); /* a refused table's mirrors are nobody's */
        const hk_err *y = &cl->refused[0].why;
        if (y->line != cases[i].line || y->col != cases[i].col || !strstr(y->msg, cases[i].needle))
            fail_msg("case %zu: got %d:%d '%s'", i, y->line, y->col, y->msg);
        assert_true(w.n >= 1);
        hk_cluster_free(cl);
    }
}

/* A non-positive global agent_connect_timeout with a table that does not set it: the global value
 * stands (the fuzzer found a crash here: the table's warning looked up a key it did not have). */
static void global_timeout_zero(void **st)
{
    (void)st;
    const char *t = "searchd { agent_connect_timeout = 0 }\n"
                    "index d { type = distributed\n agent = a:9312|b:9312:s\n}\n";
    hk_conf *c = NULL;
    hk_cluster *cl = NULL;
    hk_err e;
    assert_int_equal(hk_conf_parse(t, strlen(t), "t.conf", &c, &e), 0);
    assert_int_equal(hk_cluster_from_conf(c, NULL, HK_DIALECT_MANTICORE, &cl, &e, NULL), 0);
    assert_int_equal(cl->tables[0].query_timeout_us, cl->set.query_timeout_us);
    hk_cluster_free(cl);
    hk_conf_free(c);
}

static void time_suffixes(void **st)
{
    (void)st;
    int64_t us;
    int bad;
    const char *what;
    assert_int_equal(hk_time_parse("2m", HK_SEC, &us, &bad, &what), 0);
    assert_int_equal(us, 120 * HK_SEC);
    assert_int_equal(hk_time_parse("1000", HK_MS, &us, &bad, &what), 0);
    assert_int_equal(us, HK_SEC);
    assert_int_equal(hk_time_parse("3s", HK_MS, &us, &bad, &what), 0);
    assert_int_equal(us, 3 * HK_SEC);
    assert_int_equal(hk_time_parse("250us", HK_MS, &us, &bad, &what), 0);
    assert_int_equal(us, 250);
    assert_int_equal(hk_time_parse("1h", HK_SEC, &us, &bad, &what), 0);
    assert_int_equal(us, 3600 * HK_SEC);
    assert_int_equal(hk_time_parse("1d", HK_SEC, &us, &bad, &what), 0);
    assert_int_equal(hk_time_parse("2w", HK_SEC, &us, &bad, &what), 0);
    assert_int_equal(us, 14 * 86400 * HK_SEC);
    assert_int_equal(hk_time_parse("0.2ms", HK_MS, &us, &bad, &what), 0);
    assert_int_equal(us, 200);
    assert_int_equal(hk_time_parse("5 parsecs", HK_MS, &us, &bad, &what), -1);
    assert_int_equal(bad, 2);
    assert_int_equal(hk_time_parse("", HK_MS, &us, &bad, &what), -1);
    assert_int_equal(hk_time_parse("1e300s", HK_MS, &us, &bad, &what), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(realistic_config), cmocka_unit_test(defaults),
        cmocka_unit_test(unknown_strategy_warns), cmocka_unit_test(bad_values),
        cmocka_unit_test(time_suffixes), cmocka_unit_test(refused_tables),
        cmocka_unit_test(global_timeout_zero),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
