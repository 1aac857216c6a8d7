/* Findings: each detector fires on a run that shows its behaviour and stays
 * silent on a close run that does not (same cluster, one setting changed). */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "hk_test.h"
#include "sim.h"
#include "sim_report.h"

/* s run under variant/strategy (seed 1, the scenario's duration unless duration_us) and
 * analysed into *r; the world is the caller's to free. */
static sim_world *analysed(const hk_scn *s, int variant, int strategy, int64_t duration_us,
                           sim_result *r)
{
    sim_opts o = {0};
    o.seed = 1;
    o.variant = variant;
    o.strategy = strategy;
    o.duration_us = duration_us;
    sim_world *w = sim_new(s, &o);
    assert_non_null(w);
    assert_int_equal(sim_run(w), 0);
    assert_int_equal(sim_analyse(w, r), 0);
    return w;
}

/* How many findings of kind (on host, "" = any) a run of text under variant/strategy has. */
static int count(const char *text, int variant, int strategy, int64_t duration_us,
                 const char *kind, const char *host)
{
    hk_scn *s = hk_test_scn(text);
    sim_result r;
    sim_world *w = analysed(s, variant, strategy, duration_us, &r);
    int h = host[0] ? hk_cluster_find_host(s->cl, host) : -1, n = 0;
    for (int i = 0; i < r.fd.n; i++)
        n += !strcmp(r.fd.f[i].kind, kind) && (h < 0 || r.fd.f[i].host == h);
    sim_result_free(&r);
    sim_free(w);
    hk_scn_free(s);
    return n;
}

static const char *DOWN =
    "searchd { ha_period_karma = 30s  ha_ping_interval = 1000 }\n"
    "table d { type = distributed\n agent = a:1|b:1|c:1:s\n ha_strategy = nodeads\n}\n"
    "mirror default { rtt = constant(0.3ms) service = lognormal(median=5ms, sigma=0.3) threads = 8 }\n"
    "workload { arrivals = poisson(200/s) duration = 4m }\n"
    "fault b:1 { at = 60s for = 60s kind = down }\n";

static void starved(void **st)
{
    (void)st;
    /* manticore-fixed: b's weight is recomputed to 0 during the outage and never comes back */
    assert_int_equal(count(DOWN, HK_VAR_MANTICORE_FIXED, -1, 0, "starved", "b:1"), 1);
    /* Manticore as coded keeps uniform weights: b comes back */
    assert_int_equal(count(DOWN, HK_VAR_MANTICORE, -1, 0, "starved", ""), 0);
}

/* The same finding from every master is one line that says so; each master's own are kept. */
static void merged_across_masters(void **st)
{
    (void)st;
    hk_scn *s = hk_test_scn(
        "searchd { ha_period_karma = 30s  ha_ping_interval = 1000 }\n"
        "table d { type = distributed\n agent = a:1|b:1|c:1:s\n ha_strategy = nodeads\n}\n"
        "mirror default { rtt = constant(0.3ms) service = lognormal(median=5ms, sigma=0.3) "
        "threads = 8 }\n"
        "workload { arrivals = poisson(200/s) duration = 4m masters = 3 }\n"
        "fault b:1 { at = 60s for = 60s kind = down }\n"); /* DOWN with three masters */
    sim_result r;
    sim_world *w = analysed(s, HK_VAR_MANTICORE_FIXED, -1, 0, &r);
    int starved = 0, b = hk_cluster_find_host(s->cl, "b:1");
    for (int i = 0; i < r.fd.n; i++) {
        const hk_finding *f = &r.fd.f[i];
        assert_int_not_equal(f->master, -2);
        if (!strcmp(f->kind, "starved")) {
            starved++;
            assert_int_equal(f->host, b);
            assert_int_equal(f->master, -1);
            assert_true(!strncmp(f->detail, "3 of 3 masters: ", 16));
        }
    }
    assert_int_equal(starved, 1);
    sim_result_free(&r);
    sim_free(w);
    hk_scn_free(s);
}

static void failing_share(void **st)
{
    (void)st;
    assert_int_equal(count(DOWN, HK_VAR_MANTICORE, HK_STRAT_RANDOM, 0, "failing_share", "b:1"), 1);
    assert_int_equal(count(DOWN, HK_VAR_MANTICORE, HK_STRAT_NODEADS, 0, "failing_share", ""), 0);
}

/* Too little evidence is no finding: a down mirror at 3 queries a second keeps its share but
 * fails fewer than 10 attempts over its fault (failing_share needs 10); a mirror failing 6% of
 * ~120 attempts has fewer than HK_FAILING_MIN / 2 bad ones (failing needs 10 of 20 ended). */
static const char *SPARSE =
    "searchd { ha_period_karma = 30s  ha_ping_interval = 1000 }\n"
    "table d { type = distributed\n agent = a:1|b:1|c:1:s\n ha_strategy = random\n}\n"
    "mirror default { rtt = constant(0.3ms) service = lognormal(median=5ms, sigma=0.3) }\n"
    "mirror b:1 { rtt = constant(0.3ms) service = lognormal(median=5ms, sigma=0.3) errors = %s }\n"
    "workload { arrivals = poisson(3/s) duration = 2m }\n%s";

static int sparse(const char *errors, const char *fault, int strategy, const char *kind)
{
    char text[1024];
    snprintf(text, sizeof text, SPARSE, errors, fault);
    return count(text, HK_VAR_MANTICORE, strategy, 0, kind, "b:1");
}

static void little_evidence(void **st)
{
    (void)st;
    const char *down8 = "fault b:1 { at = 30s for = 8s kind = down }\n";
    assert_int_equal(sparse("0", down8, HK_STRAT_RANDOM, "failing_share"), 0);
    assert_int_equal(sparse("0", "fault b:1 { at = 30s for = 60s kind = down }\n",
                            HK_STRAT_RANDOM, "failing_share"), 1);
    assert_int_equal(sparse("0.06", "", HK_STRAT_ROUNDROBIN, "failing"), 0);
    assert_int_equal(sparse("0.3", "", HK_STRAT_ROUNDROBIN, "failing"), 1);
    /* 11 bad of 201 (5.5%, 10 or more): a mirror failing 1% shows as many with P ~ 1e-5, not
     * beyond HK_FAILING_ALPHA: no finding */
    assert_int_equal(count("searchd { ha_period_karma = 30s  ha_ping_interval = 1000 }\n"
                           "table d { type = distributed  agent = a:1|b:1|c:1:s  ha_strategy = "
                           "roundrobin }\n"
                           "mirror default { rtt = constant(0.3ms) service = lognormal(median=5ms,"
                           " sigma=0.3) }\n"
                           "mirror b:1 { rtt = constant(0.3ms) service = lognormal(median=5ms, "
                           "sigma=0.3) errors = 0.05 }\n"
                           "workload { arrivals = poisson(5/s) duration = 2m }\nsim { seed = 1 }\n",
                           HK_VAR_MANTICORE, -1, 0, "failing", ""), 0);
}

static const char *HANG =
    "searchd { ha_period_karma = 10s  ha_ping_interval = 500  agent_query_timeout = 500 }\n"
    "table d { type = distributed\n agent = a:1|b:1|c:1:s\n ha_strategy = nodeads\n}\n"
    "mirror default { service = lognormal(median=3ms, sigma=0.3) threads = 4 }\n"
    "workload { arrivals = poisson(200/s) duration = 2m }\n"
    "fault c:1 { at = 20s for = 20s kind = stall }\n";

/* Two hangs of one mirror, one master: its two takeovers stay that master's (they read
 * "3 of 1 masters", master -1, when findings rather than masters were counted). */
static void one_master_stays_one(void **st)
{
    (void)st;
    char text[1024];
    snprintf(text, sizeof text, "%sfault c:1 { at = 70s for = 20s kind = stall }\n", HANG);
    hk_scn *s = hk_test_scn(text);
    sim_result r;
    sim_world *w = analysed(s, HK_VAR_MANTICORE, -1, 0, &r);
    int take = 0;
    for (int i = 0; i < r.fd.n; i++) {
        assert_int_equal(r.fd.f[i].master, 0);
        assert_null(strstr(r.fd.f[i].detail, "of 1 masters"));
        take += !strcmp(r.fd.f[i].kind, "takeover");
    }
    assert_int_equal(take, 2);
    sim_result_free(&r);
    sim_free(w);
    hk_scn_free(s);
}

static void locked_and_flood(void **st)
{
    (void)st;
    /* Manticore's timer reads query_timeouts: the hung mirror takes all the weight, then all
     * the traffic once back */
    assert_int_equal(count(HANG, HK_VAR_MANTICORE, -1, 0, "locked", "c:1"), 1);
    assert_int_equal(count(HANG, HK_VAR_MANTICORE, -1, 0, "takeover", "c:1"), 1);
    assert_int_equal(count(HANG, HK_VAR_MANTICORE, -1, 0, "flood", ""), 0); /* not both */
    assert_int_equal(count(HANG, HK_VAR_SPHINX2, -1, 0, "locked", ""), 0);
    assert_int_equal(count(HANG, HK_VAR_SPHINX2, -1, 0, "flood", ""), 0);
    assert_int_equal(count(HANG, HK_VAR_SPHINX2, -1, 0, "takeover", ""), 0);
}

/* Three mirrors; b's behaviour is the %s (an ERROR rate, a refusal rate, a service time). */
static const char *FACTS =
    "searchd { ha_period_karma = 60s  ha_ping_interval = 1000 }\n"
    "table d { type = distributed\n agent = a:1|b:1|c:1:s\n ha_strategy = roundrobin\n}\n"
    "table idle { type = distributed\n agent = x:1|y:1:s\n}\n"
    "mirror default { service = lognormal(median=5ms, sigma=0.2) }\n"
    "mirror b:1 { service = lognormal(median=%s, sigma=0.2) errors = %s refuse = %s }\n"
    "workload { arrivals = poisson(100/s) duration = 2m table = d }\n";

static int facts(const char *svc, const char *errors, const char *refuse, int strategy,
                 const char *kind, const char *host)
{
    char text[1024];
    snprintf(text, sizeof text, FACTS, svc, errors, refuse);
    return count(text, HK_VAR_MANTICORE, strategy, 0, kind, host);
}

/* The plain facts: a mirror failing by any kind, slow against its line while it sets the tail;
 * near misses (a rate under 5%, 1.5x slower) raise nothing; an idle table is said once. */
static void failing_slow_idle(void **st)
{
    (void)st;
    assert_int_equal(facts("5ms", "0.6", "0", -1, "failing", "b:1"), 1);
    assert_int_equal(facts("5ms", "0", "0.3", HK_STRAT_NODEADS, "failing", "b:1"), 1);
    assert_int_equal(facts("5ms", "0.02", "0", -1, "failing", ""), 0);
    assert_int_equal(facts("5ms", "0", "0.02", HK_STRAT_NOERRORS, "failing", ""), 0);
    assert_int_equal(facts("20ms", "0", "0", HK_STRAT_RANDOM, "slow", "b:1"), 1);
    assert_int_equal(facts("7.5ms", "0", "0", HK_STRAT_RANDOM, "slow", ""), 0);
    assert_int_equal(facts("5ms", "0.6", "0", -1, "slow", ""), 0);
    assert_int_equal(facts("5ms", "0", "0", -1, "idle", ""), 1);
    assert_int_equal(facts("5ms", "0", "0", -1, "starved", ""), 0); /* not the idle table */
}

/* A run says when it is not to be trusted: a replay that lagged its schedule (told by its
 * caller), a run shorter than one karma period. */
static void caveats(void **st)
{
    (void)st;
    hk_scn *s = hk_test_scn("searchd { ha_period_karma = 60s }\n"
                    "table d { type = distributed\n agent = a:1|b:1:s\n}\n"
                    "mirror default { service = constant(5ms) }\n"
                    "workload { arrivals = poisson(50/s) duration = 30s }\n");
    sim_result r;
    sim_world *w = analysed(s, HK_VAR_MANTICORE, -1, 0, &r);
    assert_int_equal(r.fd.ncav, 1);
    assert_non_null(strstr(r.fd.cav[0], "shorter than one ha_period_karma (60 s)"));
    hk_find_in in = r.in;
    in.lag_p99_us = 2.5 * HK_LAG_WARN_US;
    hk_findings fd;
    assert_int_equal(hk_find_run(&in, &fd), 0);
    assert_int_equal(fd.ncav, 2);
    assert_non_null(strstr(fd.cav[0], "lagged its schedule: p99 2.50 ms"));
    hk_findings_free(&fd);
    in.lag_p99_us = 0.5 * HK_LAG_WARN_US; /* within the bound: nothing said */
    assert_int_equal(hk_find_run(&in, &fd), 0);
    assert_int_equal(fd.ncav, 1);
    hk_findings_free(&fd);
    sim_result_free(&r);
    sim_free(w);
    hk_scn_free(s);
}

static const char *HERD =
    "searchd { ha_period_karma = 10s  ha_ping_interval = 1000 }\n"
    "table d { type = distributed\n agent = a:1|b:1|c:1:s\n ha_strategy = noerrors\n}\n"
    "mirror default { rtt = constant(0.2ms) service = exponential(mean=5ms) threads = 1 }\n"
    "workload { arrivals = poisson(480/s) duration = 2m masters = %d }\n";

static void herding_and_oscillation(void **st)
{
    (void)st;
    char eight[600], one[600];
    snprintf(eight, sizeof eight, HERD, 8);
    snprintf(one, sizeof one, HERD, 1);
    assert_int_equal(count(eight, HK_VAR_MANTICORE_FIXED, -1, 0, "herding", ""), 1);
    assert_int_equal(count(eight, HK_VAR_MANTICORE_FIXED, -1, 0, "oscillation", ""), 1);
    /* one master cannot herd; with uniform weights nothing swings */
    assert_int_equal(count(one, HK_VAR_MANTICORE_FIXED, -1, 0, "herding", ""), 0);
    assert_int_equal(count(eight, HK_VAR_MANTICORE, -1, 0, "oscillation", ""), 0);
    assert_int_equal(count(eight, HK_VAR_MANTICORE, -1, 0, "herding", ""), 0);
}

static const char *LOAD =
    "table d { type = distributed\n agent = a:1|b:1:s\n}\n"
    "mirror default { service = exponential(mean=10ms) threads = 1 }\n"
    "workload { arrivals = poisson(%d/s) duration = 1m }\n";

static void overload(void **st)
{
    (void)st;
    char hot[400], cool[400];
    snprintf(hot, sizeof hot, LOAD, 260);  /* 130/s each on 100/s of capacity */
    snprintf(cool, sizeof cool, LOAD, 120); /* 60% busy */
    assert_int_equal(count(hot, HK_VAR_MANTICORE, -1, 0, "overload", ""), 2);
    assert_int_equal(count(cool, HK_VAR_MANTICORE, -1, 0, "overload", ""), 0);
}

static void fault_outside_run(void **st)
{
    (void)st;
    /* --duration 50s: the fault at 60 s never happens */
    assert_int_equal(count(DOWN, HK_VAR_MANTICORE, -1, 50000000, "fault_outside_run", "b:1"), 1);
    assert_int_equal(count(DOWN, HK_VAR_MANTICORE, -1, 0, "fault_outside_run", ""), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(starved), cmocka_unit_test(merged_across_masters),
        cmocka_unit_test(failing_share),
        cmocka_unit_test(little_evidence),
        cmocka_unit_test(locked_and_flood),
        cmocka_unit_test(failing_slow_idle), cmocka_unit_test(one_master_stays_one), cmocka_unit_test(caveats), cmocka_unit_test(herding_and_oscillation),
        cmocka_unit_test(overload), cmocka_unit_test(fault_outside_run),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
