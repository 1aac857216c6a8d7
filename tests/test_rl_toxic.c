/* rl_toxic: toxics from JSON (toxiproxy's fields) and from the scenario language, every bad
 * field refused with what was expected, and what a set of toxics does to one request. */
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include "hk_test.h"
#include "rl_toxic.h"

static rl_toxic json_ok(const char *json)
{
    rl_toxic t;
    char msg[256];
    if (rl_toxic_from_json(json, NULL, &t, msg, sizeof msg) < 0)
        fail_msg("%s: %s", json, msg);
    return t;
}

static void from_json_defaults(void **st)
{
    (void)st;
    rl_toxic t = json_ok("{\"type\":\"latency\",\"attributes\":{\"latency\":25,\"jitter\":5}}");
    assert_string_equal(t.name, "latency_downstream");
    assert_int_equal(t.kind, RL_TX_LATENCY);
    assert_int_equal(t.on, RL_TX_ON_ANY);          /* latency delays pings too */
    assert_near(t.toxicity, 1, 0);
    assert_near(t.latency_ms, 25, 0);
    assert_near(t.jitter_ms, 5, 0);
    t = json_ok("{\"name\":\"e1\",\"type\":\"errors\",\"stream\":\"upstream\",\"toxicity\":0.25,"
                "\"attributes\":{\"message\":\"boom\",\"command\":\"any\"}}");
    assert_string_equal(t.name, "e1");
    assert_int_equal(t.upstream, 1);
    assert_near(t.toxicity, 0.25, 0);
    assert_string_equal(t.message, "boom");
    assert_int_equal(t.on, RL_TX_ON_ANY);
    t = json_ok("{\"type\":\"stuck\"}");
    assert_int_equal(t.on, RL_TX_ON_SEARCH);       /* stuck: pings still answered */
}

static void from_json_refused(void **st)
{
    (void)st;
    static const char *bad[][2] = {
        {"{\"type\":\"hang\"}", "type: expected one of stall, stuck"},
        {"{}", "type: expected one of"},
        {"[1]", "expected a JSON object"},
        {"{\"type\":", "not JSON: line 1 column"},
        {"{\"type\":\"errors\",\"toxicity\":1.5}", "toxicity: expected a number in [0, 1]"},
        {"{\"type\":\"errors\",\"toxicity\":\"1\"}", "toxicity: expected a number"},
        {"{\"type\":\"latency\",\"attributes\":{\"latency\":-1}}", "latency: expected a number"},
        {"{\"type\":\"slow\",\"attributes\":{\"factor\":0.5}}", "factor: expected a number in [1,"},
        {"{\"type\":\"slow\",\"attributes\":[]}", "attributes: expected an object"},
        {"{\"type\":\"errors\",\"stream\":\"sideways\"}", "stream: expected downstream or upstream"},
        {"{\"type\":\"errors\",\"attributes\":{\"command\":\"select\"}}",
         "attributes.command: expected search, ping or any"},
        {"{\"type\":\"errors\",\"name\":\"\"}", "name: expected a string of 1 to 63 bytes"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        rl_toxic t;
        char msg[256] = "";
        assert_int_equal(rl_toxic_from_json(bad[i][0], NULL, &t, msg, sizeof msg), -1);
        if (!strstr(msg, bad[i][1]))
            fail_msg("%s: got '%s', expected '%s'", bad[i][0], msg, bad[i][1]);
    }
}

static void update_keeps_type(void **st)
{
    (void)st;
    rl_toxic base = json_ok("{\"type\":\"latency\",\"attributes\":{\"latency\":5}}"), t;
    char msg[256];
    assert_int_equal(rl_toxic_from_json("{\"attributes\":{\"latency\":9}}", &base, &t, msg,
                                        sizeof msg), 0);
    assert_near(t.latency_ms, 9, 0);
    assert_string_equal(t.name, "latency_downstream");
    assert_int_equal(rl_toxic_from_json("{\"type\":\"errors\"}", &base, &t, msg, sizeof msg), -1);
    assert_non_null(strstr(msg, "a toxic keeps its type (latency)"));
}

static void from_spec(void **st)
{
    (void)st;
    rl_toxic t;
    char msg[256];
    assert_int_equal(rl_toxic_from_spec("slow(4)", &t, msg, sizeof msg), 0);
    assert_int_equal(t.kind, RL_TX_SLOW);
    assert_near(t.factor, 4, 0);
    assert_int_equal(rl_toxic_from_spec("errors(0.3)", &t, msg, sizeof msg), 0);
    assert_near(t.toxicity, 0.3, 0);
    assert_int_equal(rl_toxic_from_spec("partition", &t, msg, sizeof msg), 0);
    assert_int_equal(t.kind, RL_TX_BLACKHOLE);
    assert_int_equal(rl_toxic_from_spec("down", &t, msg, sizeof msg), 0);
    assert_int_equal(t.kind, RL_TX_REFUSE);
    static const char *bad[] = {"errors(2)", "slow(0.5)", "slow(x)", "errors(0.5", "hang",
                                "stuck(1)x", ""};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        if (rl_toxic_from_spec(bad[i], &t, msg, sizeof msg) == 0)
            fail_msg("'%s' accepted", bad[i]);
        assert_non_null(strstr(msg, "expected stall, stuck, down"));
    }
}

/* Over 20000 searches, toxicity p acts on p of them (4 sigma). */
static void plan_toxicity(void **st)
{
    (void)st;
    rl_toxic ts[2];
    ts[0] = json_ok("{\"type\":\"errors\",\"toxicity\":0.3}");
    ts[1] = json_ok("{\"type\":\"latency\",\"attributes\":{\"latency\":10,\"jitter\":4}}");
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    int errors = 0, n = 20000;
    double lo = 1e9, hi = 0;
    for (int i = 0; i < n; i++) {
        rl_tx_plan p;
        rl_toxics_plan(ts, 2, 0, r, &p);
        errors += p.error;
        lo = fmin(lo, p.delay_ms);
        hi = fmax(hi, p.delay_ms);
        assert_near(p.factor, 1, 0);
    }
    assert_near(errors, 0.3 * n, 4 * sqrt(0.3 * 0.7 * n));
    assert_true(lo >= 6 && lo < 6.1 && hi <= 14 && hi > 13.9);
    rl_tx_plan p; /* a ping: errors act on searches only, latency on any */
    rl_toxics_plan(ts, 2, 1, r, &p);
    assert_int_equal(p.error, 0);
    assert_true(p.delay_ms >= 6);
    gsl_rng_free(r);
}

static void plan_combines(void **st)
{
    (void)st;
    rl_toxic ts[3] = {json_ok("{\"type\":\"slow\",\"attributes\":{\"factor\":3}}"),
                      json_ok("{\"name\":\"s2\",\"type\":\"slow\",\"attributes\":{\"factor\":2}}"),
                      json_ok("{\"type\":\"stuck\"}")};
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    rl_tx_plan p;
    rl_toxics_plan(ts, 3, 0, r, &p);
    assert_near(p.factor, 6, 1e-12);
    assert_int_equal(p.hold, 1);
    rl_toxics_plan(ts, 3, 1, r, &p);
    assert_int_equal(p.hold, 0);                   /* pings pass a stuck agent */
    assert_int_equal(rl_toxics_have(ts, 3, RL_TX_STUCK), 1);
    assert_int_equal(rl_toxics_have(ts, 3, RL_TX_STALL), 0);
    /* two bandwidth toxics: the slower one holds (a link is as fast as its narrowest part) */
    rl_toxic bw[2] = {json_ok("{\"type\":\"bandwidth\",\"attributes\":{\"rate\":100}}"),
                      json_ok("{\"name\":\"b2\",\"type\":\"bandwidth\",\"attributes\":{\"rate\":40}}")};
    for (int first = 0; first < 2; first++) {
        rl_toxic two[2] = {bw[first], bw[1 - first]};
        rl_toxics_plan(two, 2, 0, r, &p);
        assert_near(p.rate_kbs, 40, 1e-12);
    }
    gsl_rng_free(r);
}

static void json_round_trip(void **st)
{
    (void)st;
    rl_toxic t = json_ok("{\"name\":\"w\",\"type\":\"warnings\",\"toxicity\":0.5,"
                         "\"attributes\":{\"message\":\"m\"}}");
    json_t *j = rl_toxic_json(&t);
    char *s = json_dumps(j, JSON_COMPACT);
    rl_toxic back = json_ok(s);
    assert_string_equal(back.name, "w");
    assert_int_equal(back.kind, RL_TX_WARNINGS);
    assert_near(back.toxicity, 0.5, 0);
    assert_string_equal(back.message, "m");
    free(s);
    json_decref(j);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(from_json_defaults), cmocka_unit_test(from_json_refused),
        cmocka_unit_test(update_keeps_type),  cmocka_unit_test(from_spec),
        cmocka_unit_test(plan_toxicity),      cmocka_unit_test(plan_combines),
        cmocka_unit_test(json_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
