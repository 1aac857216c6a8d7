/* The simulator against closed forms and the fault timeline: pure delay
 * (shares = weights), M/M/c (Erlang C mean wait), down/stall/stuck faults under
 * random and nodeads, retries per variant, masters, determinism, and
 * scenario errors with positions. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hk_test.h"
#include "hk_time.h"
#include "sim.h"
#include "sim_report.h"

static sim_world *run_opts(hk_scn *s, const sim_opts *o)
{
    sim_world *w = sim_new(s, o);
    assert_non_null(w);
    assert_int_equal(sim_run(w), 0);
    return w;
}

static sim_world *run(hk_scn *s, int variant, int strategy, uint64_t seed)
{
    sim_opts o = {.seed = seed, .variant = variant, .strategy = strategy};
    return run_opts(s, &o);
}

/* Master 0's share of mirror j on line li over karma periods [from, to) (60 s each). */
static double share_avg(const sim_world *w, int li, int j, int from, int to)
{
    int first = w->m[0].li[li].series;
    double k = 60e6 / (double)w->tl.width_us;
    return hk_tl_share(&w->tl, first, first + j, (int)(from * k), (int)(to * k));
}

static int periods(const sim_world *w) { return (int)((w->end_us - w->t0) / 60000000); }

/* The probability in force at the end of the run. */
static double prob_end(const sim_world *w, int mi, int li, int j)
{
    return hk_tl_smp_at(&w->tl, w->m[mi].li[li].series + j, w->tl.nbins - 1)->prob;
}

static uint64_t answered(const sim_world *w) { return w->n_ok + w->n_partial; }

static const char *TEXTBOOK =
    "searchd { ha_period_karma = 60s }\n"
    "table d { type = distributed\n agent = b1:9312|b2:9312|b3:9312|b4:9312:s\n"
    " ha_strategy = nodeads\n}\n"
    "mirror b1:9312 { service = constant(10ms) }\nmirror b2:9312 { service = constant(5ms) }\n"
    "mirror b3:9312 { service = constant(30ms) }\nmirror b4:9312 { service = constant(3ms) }\n"
    "workload { arrivals = poisson(400/s) duration = 20m }\n";

static void pure_delay_shares_equal_weights(void **st)
{
    (void)st;
    hk_scn *s = hk_test_scn(TEXTBOOK);
    sim_world *w = run(s, HK_VAR_MANTICORE_FIXED, -1, 3);
    double want[4] = {0.15, 0.30, 0.05, 0.50};
    for (int j = 0; j < 4; j++) {
        assert_near(share_avg(w, 0, j, 2, periods(w)), want[j], 0.006);
        assert_near(prob_end(w, 0, 0, j), want[j], 1e-4);
    }
    sim_result r;
    assert_int_equal(sim_analyse(w, &r), 0);
    assert_true(r.fd.conv[0].converged && !r.fd.conv[0].is_static);
    assert_true(r.fd.conv[0].t_s <= 60);
    assert_int_equal(r.fd.n, 1); /* box3 at 5% still sets the line's p99 (30 ms, 10 without) */
    assert_string_equal(r.fd.f[0].kind, "slow");
    assert_int_equal(r.fd.f[0].host, 2);
    sim_result_free(&r);
    sim_free(w);
    /* Manticore as coded: the weights never move, so shares stay at 1/4 */
    w = run(s, HK_VAR_MANTICORE, -1, 3);
    for (int j = 0; j < 4; j++)
        assert_near(share_avg(w, 0, j, 1, periods(w)), 0.25, 0.01);
    assert_int_equal(sim_analyse(w, &r), 0);
    assert_true(r.fd.conv[0].is_static); /* the weights never moved: "static", not "0 s" */
    sim_result_free(&r);
    sim_free(w);
    /* Sphinx 2.2.11: 1 - t/S, not normalised: 0.2639/0.2986/0.1250/0.3125 */
    w = run(s, HK_VAR_SPHINX2, -1, 3);
    double s2[4] = {0.2639, 0.2986, 0.1250, 0.3125};
    for (int j = 0; j < 4; j++)
        assert_near(share_avg(w, 0, j, 2, periods(w)), s2[j], 0.008);
    sim_free(w);
    hk_scn_free(s);
}

/* Erlang C: probability of waiting in M/M/c. */
static double erlang_c(int c, double a)
{
    double sum = 0, term = 1;
    for (int k = 0; k < c; k++) {
        if (k > 0)
            term *= a / k;
        sum += term;
    }
    double last = term * a / c;
    double rho = a / c;
    double top = last / (1 - rho);
    return top / (sum + top);
}

static void mmc_mean_wait(void **st)
{
    (void)st;
    hk_scn *s = hk_test_scn("table d { type = distributed\n agent = m:9312:s\n}\n"
                    "mirror m:9312 { service = exponential(mean=10ms) threads = 4 }\n"
                    "workload { arrivals = poisson(300/s) duration = 2000s }\n");
    sim_world *w = run(s, HK_VAR_MANTICORE, -1, 11);
    double lam = 300.0, mu = 100.0;
    int c = 4;
    double wq = erlang_c(c, lam / mu) / (c * mu - lam);
    double want_ms = (wq + 1 / mu) * 1000.0;
    double got_ms = hk_hist_mean(&w->all) / 1000.0;
    /* 600k queries: the standard error of the mean is well under 1% */
    assert_near(got_ms, want_ms, want_ms * 0.03);
    assert_true(w->n_ok == w->all.n && w->n_error == 0);
    sim_free(w);
    hk_scn_free(s);
}

/* Every answer's latency is in its period's histogram when the period's row is written, and in
 * the run totals at the end (the simulator adds them in batches): a quiet period (fewer answers
 * than a batch) still reports its latency, and the totals count every answer, those that came
 * after the last period closed too (b's 1.5 s answers). */
static void period_rows_hold_every_answer(void **st)
{
    (void)st;
    hk_scn *s = hk_test_scn("searchd { ha_period_karma = 10s }\n"
                    "table d { type = distributed\n agent = a:9312|b:9312:s\n"
                    " ha_strategy = roundrobin\n}\n"
                    "mirror a:9312 { service = constant(5ms) }\n"
                    "mirror b:9312 { service = constant(1500ms) }\n"
                    "workload { arrivals = poisson(3/s) duration = 60s }\n");
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    sim_opts o = {.seed = 5, .variant = HK_VAR_MANTICORE, .strategy = -1, .periods = f};
    sim_world *w = run_opts(s, &o);
    fclose(f);
    int rows = 0;
    for (char *l = strtok(buf, "\n"); l; l = strtok(NULL, "\n")) {
        unsigned long q, err;
        int alive;
        double mean, p99;
        char mirror[32];
        if (sscanf(l, "%*d,%*f,%*d,%*[^,],%*d,%31[^,],%*f,%*f,%lu,%lu,%d,%lf,%lf", mirror, &q,
                   &err, &alive, &mean, &p99) != 6 || q == 0)
            continue;
        rows++;
        assert_int_equal(err, 0);
        assert_near(mean, strcmp(mirror, "a:9312") ? 1500.0 : 5.0, 0.06 * 5);
    }
    assert_int_equal(rows, 12); /* 6 periods x 2 mirrors, every one asked */
    uint64_t ok = 0;
    for (int j = 0; j < 2; j++) {
        assert_int_equal(w->led.tot[0][j].ok, w->led.tot[0][j].lat.n);
        assert_int_equal(w->led.tot[0][j].q, w->led.tot[0][j].ok);
        ok += w->led.tot[0][j].ok;
    }
    assert_int_equal(ok, w->n_ok);
    assert_true(w->n_ok > 150);
    assert_true(w->t_now > w->end_us); /* answers came after the end: the last fold took them */
    free(buf);
    sim_free(w);
    hk_scn_free(s);
}

/* noerrors at start-up (README): until the others' first pings, the mirror that answered first
 * is the only one with a success in the window and takes every query; a ping later all share. */
static void noerrors_first_answer_takes_all_until_pings(void **st)
{
    (void)st;
    hk_scn *s = hk_test_scn("searchd { ha_period_karma = 60s  ha_ping_interval = 1000 }\n"
                    "table d { type = distributed\n agent = a:9312|b:9312|c:9312:s\n"
                    " ha_strategy = noerrors\n}\n"
                    "mirror default { service = constant(4ms) }\n"
                    "workload { arrivals = poisson(200/s) duration = 3s }\n");
    sim_world *w = run(s, HK_VAR_MANTICORE, -1, 3);
    assert_int_equal(w->tl.width_us, 1000000);
    int first = w->m[0].li[0].series, winners = 0;
    for (int j = 0; j < 3; j++) {
        double s0 = hk_tl_share(&w->tl, first, first + j, 0, 1);
        winners += s0 > 0.97; /* the queries before the first answer went anywhere */
        assert_true(hk_tl_share(&w->tl, first, first + j, 1, 3) > 0.25);
    }
    assert_int_equal(winners, 1);
    sim_free(w);
    hk_scn_free(s);
}

static const char *DOWN =
    "searchd { ha_period_karma = 60s  ha_ping_interval = 1000 }\n"
    "table d { type = distributed\n agent = a:9312|b:9312:s\n}\n"
    "mirror default { service = constant(2ms) rtt = constant(0.2ms) }\n"
    "workload { arrivals = poisson(100/s) duration = 8m }\n"
    "fault b:9312 { at = 120s for = 120s kind = down }\n";

static void fault_timeline(void **st)
{
    (void)st;
    hk_scn *s = hk_test_scn(DOWN);
    /* random: b keeps half the traffic and fails it while down */
    sim_world *w = run(s, HK_VAR_MANTICORE, HK_STRAT_RANDOM, 5);
    assert_near(share_avg(w, 0, 1, 2, 4), 0.5, 0.03);
    assert_true(w->n_error > 5000 && w->n_error < 7000); /* 100/s x 120 s x 1/2 */
    sim_free(w);
    /* nodeads: b is dead after its 4th failure and gets (almost) nothing */
    w = run(s, HK_VAR_MANTICORE, HK_STRAT_NODEADS, 5);
    assert_true(share_avg(w, 0, 1, 2, 4) < 0.01);
    assert_true(w->n_error < 20);
    assert_near(share_avg(w, 0, 1, 5, periods(w)), 0.5, 0.03); /* back after a ping */
    sim_result r;
    assert_int_equal(sim_analyse(w, &r), 0);
    assert_int_equal(r.fd.nre, 1);
    assert_near(r.fd.re[0].pre, 0.5, 0.05);
    /* nodeads: one ping (1 s) revives it; the next query goes there at once */
    assert_true(r.fd.re[0].first_s >= 0 && r.fd.re[0].first_s <= 1.1);
    assert_true(r.fd.re[0].back_s >= 0 && r.fd.re[0].back_s <= 7);
    sim_result_free(&r);
    sim_free(w);
    hk_scn_free(s);
}

/* stuck: hello and pings answered, queries never. Under 2.2.11 a stalled mirror costs connect
 * timeouts (no hello); a stuck one costs query timeouts and its pings keep succeeding. */
static void stuck_answers_pings_not_queries(void **st)
{
    (void)st;
    for (int kind = 0; kind < 2; kind++) {
        char text[600];
        snprintf(text, sizeof text, "searchd { agent_query_timeout = 500  ha_ping_interval = 1000 }\n"
                 "table d { type = distributed\n agent = a:9312|b:9312:s\n ha_strategy = random\n}\n"
                 "mirror default { service = constant(2ms) }\n"
                 "workload { arrivals = poisson(50/s) duration = 3m }\n"
                 "fault a:9312 { at = 60s for = 60s kind = %s }\n", kind ? "stuck" : "stall");
        hk_scn *s = hk_test_scn(text);
        sim_world *w = run(s, HK_VAR_SPHINX2, -1, 2);
        hk_block b;
        hk_dash_window(&w->m[0].dash[0], 115 * 1000000LL, 5, &b);
        if (kind) {
            assert_true(b.c[HK_EV_QUERY_TIMEOUT] > 100);
            assert_int_equal(b.c[HK_EV_CONNECT_TIMEOUT], 0);
        } else {
            assert_true(b.c[HK_EV_CONNECT_TIMEOUT] > 100);
            assert_int_equal(b.c[HK_EV_QUERY_TIMEOUT], 0);
        }
        sim_free(w);
        hk_scn_free(s);
    }
}

/* A stuck mirror holds its searches and answers them when the fault ends: within the query
 * timeout of the end they succeed (late), before it they time out. */
static void stuck_releases_held_searches(void **st)
{
    (void)st;
    for (int len = 2; len <= 10; len += 8) {
        char text[600];
        snprintf(text, sizeof text, "searchd { agent_query_timeout = 3000  ha_period_karma = 10s }\n"
                 "table d { type = distributed\n agent = a:9312|b:9312:s\n ha_strategy = random\n}\n"
                 "mirror default { service = constant(2ms) }\n"
                 "workload { arrivals = poisson(50/s) duration = 40s }\n"
                 "fault a:9312 { at = 10s for = %ds kind = stuck }\n", len);
        hk_scn *s = hk_test_scn(text);
        sim_world *w = run(s, HK_VAR_SPHINX2, -1, 2);
        hk_block b;
        hk_dash_window(&w->m[0].dash[0], 40 * 1000000LL, 4, &b);
        if (len == 2) /* all sent within 3 s of its end: answered then */
            assert_int_equal(b.c[HK_EV_QUERY_TIMEOUT], 0);
        else /* 10 s: those of its first 7 s (about half of 50/s x 7 s) time out */
            assert_true(b.c[HK_EV_QUERY_TIMEOUT] > 100 && b.c[HK_EV_QUERY_TIMEOUT] < 250);
        sim_free(w);
        hk_scn_free(s);
    }
}

/* A fault is in force on [at, at + for): not at its end; a flap is down for the first half of
 * each period, up from the half exactly. */
static void fault_boundaries(void **st)
{
    (void)st;
    hk_scn *s = hk_test_scn("table d { type = distributed\n agent = a:9312|b:9312:s\n}\n"
                    "mirror default { service = constant(1ms) }\n"
                    "workload { arrivals = poisson(10/s) duration = 60s }\n"
                    "fault a:9312 { at = 10s for = 5s kind = down }\n"
                    "fault b:9312 { at = 20s for = 20s kind = flap(4s) }\n");
    double x;
    int a = hk_cluster_find_host(s->cl, "a:9312"), b = hk_cluster_find_host(s->cl, "b:9312");
    assert_int_equal(hk_scn_fault_at(s, a, 10 * HK_SEC, &x), HK_FAULT_DOWN);
    assert_int_equal(hk_scn_fault_at(s, a, 15 * HK_SEC - 1, &x), HK_FAULT_DOWN);
    assert_int_equal(hk_scn_fault_at(s, a, 15 * HK_SEC, &x), HK_FAULT_NONE);
    assert_int_equal(hk_scn_fault_at(s, b, 22 * HK_SEC - 1, &x), HK_FAULT_DOWN);
    assert_int_equal(hk_scn_fault_at(s, b, 22 * HK_SEC, &x), HK_FAULT_NONE);
    assert_int_equal(hk_scn_fault_at(s, b, 24 * HK_SEC, &x), HK_FAULT_DOWN);
    hk_scn_free(s);
}

/* Closed loop: 4 clients, no think time, one mirror of 2 workers serving 10 ms: the workers never
 * idle, so 200 queries/s, and by Little's law each query takes 4 / 200 s = 20 ms. With one of two
 * mirrors stalled, the waiting clients slow the load down (open loop would keep sending). */
static void closed_loop(void **st)
{
    (void)st;
    hk_scn *s = hk_test_scn("table d { type = distributed\n agent = a:9312:s\n}\n"
                    "mirror default { service = constant(10ms) threads = 2 }\n"
                    "workload { clients = 4 think = constant(0) duration = 60s }\n");
    sim_world *w = run(s, HK_VAR_MANTICORE, -1, 1);
    assert_in_range(answered(w), 11990, 12004); /* + the queries under way at the end */
    assert_near(hk_hist_mean(&w->all) / 1000.0, 20.0, 0.01);
    sim_free(w);
    hk_scn_free(s);
    s = hk_test_scn("searchd { agent_query_timeout = 1000  agent_connect_timeout = 1000 }\n"
            "table d { type = distributed\n agent = a:9312|b:9312:s\n ha_strategy = random\n}\n"
            "mirror default { service = constant(10ms) threads = 8 }\n"
            "workload { clients = 8 think = constant(10ms) duration = 60s }\n"
            "fault b:9312 { at = 0s kind = stall }\n");
    w = run(s, HK_VAR_MANTICORE, -1, 1);
    /* half the attempts wait 1 s: a client's cycle is about (0.5 x 1 s + 0.5 x 10 ms) + 10 ms */
    uint64_t all = answered(w) + w->n_error;
    assert_in_range(all, 8 * 60 / 0.52 * 0.9, 8 * 60 / 0.52 * 1.1);
    sim_free(w);
    hk_scn_free(s);
}

/* Route j of master 0's first line: its connection counts. */
static const sim_conn *conn_of(const sim_world *w, int j) { return &w->m[0].conn[j]; }

/* A persistent line: one client keeps one connection per mirror; four clients over a pool of 2
 * a host fall back to plain connections now and then (a real 2.2.11 opened 13-25 per 200
 * searches so), a pool of 8 never does; every attempt is a hit, a miss or a fallback, and every
 * miss or fallback opens a connection. */
static void persistent_pool_connects(void **st)
{
    (void)st;
    const char *fmt = "searchd { ha_ping_interval = 0  persistent_connections_limit = %d }\n"
                      "table d { type = distributed\n agent_persistent = a:9312|b:9312:s\n"
                      " ha_strategy = roundrobin\n}\n"
                      "mirror default { rtt = constant(0.1ms) service = exponential(mean=1ms) }\n"
                      "workload { clients = %d think = exponential(mean=1ms) duration = 10s }\n";
    static const int lim[3] = {2, 2, 8}, cl[3] = {1, 4, 4};
    for (int c = 0; c < 3; c++) {
        char text[600];
        snprintf(text, sizeof text, fmt, lim[c], cl[c]);
        hk_scn *s = hk_test_scn(text);
        for (int v = 0; v < 2; v++) {
            sim_world *w = run(s, v ? HK_VAR_SPHINX2 : HK_VAR_MANTICORE, -1, 3);
            for (int j = 0; j < 2; j++) {
                const sim_conn *k = conn_of(w, j);
                uint64_t q = w->led.tot[0][j].q;
                assert_true(q > 1000);
                assert_int_equal(k->hits + k->misses + k->fallbacks, q);
                assert_int_equal(k->connects, k->misses + k->fallbacks);
                if (c == 0)
                    assert_int_equal(k->connects, 1);
                else if (c == 1)
                    assert_true(k->fallbacks > q / 100 && k->fallbacks < q / 5);
                else
                    assert_true(k->fallbacks == 0 && k->connects >= 2 && k->connects <= 4);
            }
            sim_free(w);
        }
        hk_scn_free(s);
    }
}

/* One client every 21.1 ms over a and b: b's one pooled connection is idle when b goes down at
 * 5 s (the query before ended at 4.98 s), and dies with it. The next query to rent it finds it
 * closed and opens another (refused while b is down: connect failures, no network error), as a
 * real 2.2.11 does. */
static void pooled_connections_die_with_their_agent(void **st)
{
    (void)st;
    hk_scn *s = hk_test_scn("searchd { ha_ping_interval = 0  persistent_connections_limit = 4 }\n"
                    "table d { type = distributed\n agent_persistent = a:9312|b:9312:s\n"
                    " ha_strategy = roundrobin\n}\n"
                    "mirror default { rtt = constant(0.1ms) service = constant(1ms) }\n"
                    "workload { clients = 1 think = constant(20ms) duration = 10s }\n"
                    "fault b:9312 { at = 5s for = 1s kind = down }\n");
    for (int v = 0; v < 2; v++) {
        sim_world *w = run(s, v ? HK_VAR_SPHINX2 : HK_VAR_MANTICORE, -1, 1);
        const sim_conn *k = conn_of(w, 1);
        const uint64_t *kinds = hk_tl_kinds(&w->tl, w->m[0].li[0].series + 1);
        assert_int_equal(k->stale, 1);
        assert_int_equal(kinds[HK_EV_NETWORK_ERROR], 0);
        assert_true(kinds[HK_EV_CONNECT_FAILURE] >= 20);   /* while it was down */
        assert_int_equal(k->connects, 2);       /* the first, and one when b was back */
        sim_free(w);
    }
    hk_scn_free(s);
}

/* 6,000 connects a second to two mirrors: each gets 3,000/s, its 28,232 ports over 60 s at a
 * 0.23 share of TIME_WAITs (122,748 connects) run out at 40.9 s, then about 2,046/s get one; a
 * share of 0 never runs out; persistent agents take none after their first. */
static void ports_run_out(void **st)
{
    (void)st;
    const char *fmt = "searchd { ha_ping_interval = 0  persistent_connections_limit = 16 }\n"
                      "table d { type = distributed\n %s = a:9312|b:9312:s\n"
                      " ha_strategy = roundrobin\n}\n"
                      "mirror default { rtt = constant(0.1ms) service = constant(1ms) }\n"
                      "workload { arrivals = constant(6000/s) duration = 90s }\n%s";
    for (int c = 0; c < 3; c++) {
        char text[700];
        snprintf(text, sizeof text, fmt, c == 2 ? "agent_persistent" : "agent",
                 c == 1 ? "sim { time_wait_share = 0 }\n" : "");
        hk_scn *s = hk_test_scn(text);
        sim_world *w = run(s, HK_VAR_MANTICORE, -1, 1);
        const hk_ports *p = &w->m[0].ports[0];
        if (c == 0) {
            assert_near((double)sim_rel(w, p->first_out_us) / 1e6, 40.9, 0.1);
            assert_near(hk_ports_out_rate(p), 3000, 30);
            /* 122,748 in the first 40.9 s, none to 60 s; from 60 s each second gives back the
             * 3,000 ports of the second 60 s before it, so 3,000/s connect again to 90 s */
            const sim_conn *k = conn_of(w, 0);
            assert_int_equal(k->connects + k->no_port, w->led.tot[0][0].q);
            assert_int_equal(k->connects, 122748 + 3000 * 30);
        } else {
            assert_int_equal(p->first_out_us, -1);
            assert_int_equal(conn_of(w, 0)->no_port, 0);
        }
        if (c == 2)
            assert_true(conn_of(w, 0)->connects <= 16);
        sim_free(w);
        hk_scn_free(s);
    }
}

static void stall_counts_query_timeouts(void **st)
{
    (void)st;
    hk_scn *s = hk_test_scn("searchd { agent_query_timeout = 500 }\n"
                    "table d { type = distributed\n agent = a:9312|b:9312:s\n"
                    " ha_strategy = noerrors\n}\n"
                    "mirror default { service = constant(2ms) }\n"
                    "workload { arrivals = poisson(50/s) duration = 3m }\n"
                    "fault a:9312 { at = 60s for = 60s kind = stall }\n");
    sim_world *w = run(s, HK_VAR_MANTICORE, -1, 2);
    hk_block b;
    hk_dash_window(&w->m[0].dash[0], 125 * 1000000LL, 5, &b);
    assert_true(b.c[HK_EV_QUERY_TIMEOUT] > 10);
    assert_int_equal(b.c[HK_EV_CONNECT_FAILURE], 0);
    /* noerrors stops sending to the hung mirror once its error ratio exceeds 3% */
    assert_true(share_avg(w, 0, 0, 1, 2) < 0.1);
    /* the timed-out queries failed (one line): counted as failures, not as latencies */
    assert_true(w->n_error > 10);
    assert_true(hk_hist_quantile(&w->all, 1.0) / 1000.0 < 3);
    sim_free(w);
    hk_scn_free(s);
}

static void retries_per_variant(void **st)
{
    (void)st;
    hk_scn *s = hk_test_scn("searchd { agent_retry_count = 1  agent_retry_delay = 10 }\n"
                    "table d { type = distributed\n agent = a:9312|b:9312:s\n}\n"
                    "mirror default { service = constant(1ms) }\n"
                    "workload { arrivals = poisson(100/s) duration = 60s }\n"
                    "fault b:9312 { at = 0s kind = down }\n");
    /* Manticore: 1 x 2 mirrors = 2 retries, each re-running random: a failure needs 3 misses */
    sim_world *w = run(s, HK_VAR_MANTICORE, HK_STRAT_RANDOM, 9);
    double frac = (double)w->n_error / (double)(answered(w) + w->n_error);
    assert_near(frac, 0.125, 0.02);
    sim_free(w);
    /* Sphinx 2.2.11: a refused connect is not retried and retries stay on the mirror */
    w = run(s, HK_VAR_SPHINX2, HK_STRAT_RANDOM, 9);
    frac = (double)w->n_error / (double)(answered(w) + w->n_error);
    assert_near(frac, 0.5, 0.03);
    sim_free(w);
    hk_scn_free(s);
}

static void masters_and_determinism(void **st)
{
    (void)st;
    hk_scn *s = hk_test_scn("table d { type = distributed\n agent = a:9312|b:9312:s\n"
                    " ha_strategy = noerrors\n}\n"
                    "mirror a:9312 { service = lognormal(median=4ms, sigma=0.5) threads = 2 }\n"
                    "mirror b:9312 { service = lognormal(median=8ms, sigma=0.5) threads = 2 }\n"
                    "workload { arrivals = poisson(150/s) duration = 5m masters = 3 }\n");
    sim_world *w1 = run(s, HK_VAR_MANTICORE_FIXED, -1, 77);
    sim_world *w2 = run(s, HK_VAR_MANTICORE_FIXED, -1, 77);
    assert_int_equal(w1->events, w2->events);
    assert_true(w1->all.sum == w2->all.sum);
    assert_int_equal(w1->tl.nbins, w2->tl.nbins);
    assert_memory_equal(w1->tl.c, w2->tl.c, (size_t)w1->tl.nser * (size_t)w1->tl.cap *
                        sizeof(hk_tl_cell));
    /* every master got its third of the queries and learnt its own weights */
    uint64_t total = 0, per[3] = {0};
    for (int m = 0; m < 3; m++) {
        for (int k = 0; k < w1->tl.nbins; k++)
            for (int j = 0; j < 2; j++)
                per[m] += hk_tl_cell_at(&w1->tl, w1->m[m].li[0].series + j, k)->q;
        total += per[m];
        assert_true(w1->m[m].li[0].l->recalcs > 0);
    }
    for (int m = 0; m < 3; m++)
        assert_near((double)per[m] / (double)total, 1.0 / 3, 0.01);
    sim_world *w3 = run(s, HK_VAR_MANTICORE_FIXED, -1, 78);
    assert_true(w3->all.sum != w1->all.sum);
    sim_free(w1);
    sim_free(w2);
    sim_free(w3);
    hk_scn_free(s);
}

static void scenario_errors(void **st)
{
    (void)st;
    static const struct { const char *text; int line, col; const char *needle; } cases[] = {
        {"table d { type = distributed\n agent = a:1:s\n}\nmirror a:1 { service = constant(1ms)"
         " colour = red }\nworkload { arrivals = poisson(1/s) }\n", 4, 38, "unknown key 'colour'"},
        {"table d { type = distributed\n agent = a:1:s\n}\nmirror z:1 { service = constant(1) }\n"
         "workload { arrivals = poisson(1/s) }\n", 4, 1, "expected host:port of a mirror"},
        {"table d { type = distributed\n agent = a:1:s\n}\nmirror a:1 { threads = 2 }\n"
         "workload { arrivals = poisson(1/s) }\n", 4, 1, "expected a 'service = DIST'"},
        {"table d { type = distributed\n agent = a:1:s\n}\nmirror a:1 {\n service = "
         "lognormal(median=1ms, sigma=x)\n}\nworkload { arrivals = poisson(1/s) }\n", 5, 40,
         "expected a number"},
        {"table d { type = distributed\n agent = a:1:s\n}\nmirror a:1 { service = constant(1) }\n"
         "workload { arrivals = poisson(fast) }\n", 5, 31, "a rate such as 200/s"},
        {"table d { type = distributed\n agent = a:1:s\n}\nmirror a:1 { service = constant(1) }\n"
         "workload { arrivals = poisson(1/s) }\nfault a:1 { at = 1s kind = melt }\n", 6, 28,
         "kind: expected down, stall, stuck"},
        {"table d { type = distributed\n agent = a:1:s\n}\nmirror a:1 { service = constant(1) }\n"
         "workload { arrivals = poisson(1/s) }\nfault a:1 { at = 1s kind = hang }\n", 6, 28,
         "'hang' names two faults"},
        {"table d { type = distributed\n agent = a:1:s\n}\nmirror default { service = constant(1) }"
         "\nsim { variant = mariadb }\nworkload { arrivals = poisson(1/s) }\n", 5, 17,
         "variant: expected one of"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        hk_conf *c;
        hk_err e;
        hk_scn *s = NULL;
        const char *t = cases[i].text;
        assert_int_equal(hk_conf_parse(t, strlen(t), "t.scn", &c, &e), 0);
        assert_int_equal(hk_scn_build(c, NULL, HK_DIALECT_MANTICORE, &s, &e, NULL), -1);
        assert_null(s);
        if (e.line != cases[i].line || e.col != cases[i].col || !strstr(e.msg, cases[i].needle))
            fail_msg("case %zu: got %d:%d '%s'", i, e.line, e.col, e.msg);
        hk_conf_free(c);
    }
}

/* A mirror without a behaviour is built (a live run's real agent); the callers that play or
 * simulate it are refused with the agent line's place. */
static void mirror_without_behaviour(void **state)
{
    (void)state;
    const char *t = "table d { type = distributed\n agent = a:1|b:1:s\n}\n"
                    "mirror b:1 { service = constant(1) }\nworkload { arrivals = poisson(1/s) }\n";
    hk_conf *c;
    hk_err e;
    hk_scn *s = NULL;
    assert_int_equal(hk_conf_parse(t, strlen(t), "t.scn", &c, &e), 0);
    assert_int_equal(hk_scn_build(c, NULL, HK_DIALECT_MANTICORE, &s, &e, NULL), 0);
    assert_int_equal(s->host_behave[0], -1);
    assert_int_equal(hk_scn_behaviour_of(s, 1, &e), 0);
    assert_int_equal(hk_scn_behaviour_of(s, 0, &e), -1);
    assert_int_equal(e.line, 2);
    assert_int_equal(e.col, 10);
    assert_non_null(strstr(e.msg, "mirror a:1 has no behaviour"));
    assert_int_equal(hk_scn_check_behaviour(s, &e), -1);
    assert_non_null(strstr(e.msg, "mirror a:1 has no behaviour"));
    hk_scn_free(s);
    hk_conf_free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(pure_delay_shares_equal_weights),
        cmocka_unit_test(mirror_without_behaviour),
        cmocka_unit_test(mmc_mean_wait),
        cmocka_unit_test(period_rows_hold_every_answer),
        cmocka_unit_test(noerrors_first_answer_takes_all_until_pings),
        cmocka_unit_test(fault_timeline),
        cmocka_unit_test(stall_counts_query_timeouts),
        cmocka_unit_test(closed_loop),
        cmocka_unit_test(fault_boundaries),
        cmocka_unit_test(stuck_answers_pings_not_queries),
        cmocka_unit_test(stuck_releases_held_searches),
        cmocka_unit_test(retries_per_variant),
        cmocka_unit_test(persistent_pool_connects),
        cmocka_unit_test(pooled_connections_die_with_their_agent),
        cmocka_unit_test(ports_run_out),
        cmocka_unit_test(masters_and_determinism),
        cmocka_unit_test(scenario_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
