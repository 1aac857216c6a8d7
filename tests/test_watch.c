/* A running master's snapshots read live (hk_watch): hakarma's own Sphinx 2.2.11 status, from
 * dashboards filled through a known story — mirror b of a:9312|b:9312|c:9312 refused for 60 s,
 * then six times slower for 40 s, then every mirror 1.6x slower together (the master's load) —
 * taken just after each 10 s block begins, as hareal watch takes them. The watch must raise
 * `dead` on b within two karma periods of the refusal and clear it within two of its end, the
 * same for `slow`, nothing else (not the common slowdown); its reconstructed weights those of
 * 2.2.11's rule (1 - t/S over the windows' times); and refuse a snapshot not after the last.
 * Under Manticore's defect (the weight timer reads the query timeouts), searches hanging on b
 * (stuck, raised and cleared on time) lock the reconstructed probability onto b: `locked` from
 * its first windows (the others are healthy), for good (no later window is timed). Two masters
 * of one config each sending 90% to a: `herding` across them (one master alone: none). A day
 * of snapshots at one a second: the watch's memory flat. */
#include <malloc.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hk_conf.h"
#include "hk_find.h"
#include "hk_status.h"
#include "hk_test.h"
#include "hk_watch.h"

#define S(x) ((int64_t)(x) * 1000000)
#define K 10
#define NSNAP 32

static const char conf[] = "searchd { ha_period_karma = 10  ha_ping_interval = 1000 }\n"
                           "index d { type = distributed\n agent = a:9312|b:9312|c:9312:s\n"
                           " ha_strategy = noerrors\n}\n";

static hk_cluster *cluster(void) { return hk_test_cluster(conf, HK_DIALECT_SPHINX2); }

static int all_slow(int64_t t) { return t >= S(1260) && t < S(1280); }

/* Second t of the story: a and c answer 20 queries each in 8 and 6 ms; b 20 in 5 ms, refuses
 * 1100-1160 (or, stall: its connects time out, Manticore counting them as query timeouts),
 * answers in 30 ms 1200-1240; 1260-1280 all three 1.6x slower. */
static void second(hk_dash *d, int64_t t, int stall)
{
    static const int64_t base[3] = {8000, 5000, 6000};
    for (int m = 0; m < 3; m++) {
        if (m == 1 && t >= S(1100) && t < S(1160)) {
            if (stall)
                for (int q = 0; q < 20; q++)
                    hk_dash_record(&d[1], t + q * 50000 + 900000, HK_EV_QUERY_TIMEOUT,
                                   t + q * 50000, 0, 100);
            else
                hk_dash_record(&d[1], t + 100, HK_EV_CONNECT_FAILURE, t, 0, -1);
            continue;
        }
        int64_t us = m == 1 && t >= S(1200) && t < S(1240) ? 30000 : base[m];
        if (all_slow(t))
            us = us * 16 / 10;
        for (int q = 0; q < 20; q++) {
            int64_t at = t + q * 50000;
            hk_dash_record(&d[m], at + us, HK_EV_SUCCESS, at, 0, 100);
        }
    }
}

typedef struct run {
    hk_wevents ev;
    hk_watch *w;
    double b_prob[NSNAP], a_prob[NSNAP];
} run;

/* The story watched under variant: its events (kept in r). */
static void watch(run *r, int variant, int stall)
{
    hk_dash *d = hk_dash_array_new(3, K);
    assert_non_null(d);
    hk_status_host h[3] = {{.name = "a:9312", .refs = 1, .pinged = 1, .dash = &d[0]},
                           {.name = "b:9312", .refs = 1, .pinged = 1, .dash = &d[1]},
                           {.name = "c:9312", .refs = 1, .pinged = 1, .dash = &d[2]}};
    hk_cluster *cl = cluster();
    hk_err e;
    memset(r, 0, sizeof *r);
    r->w = hk_watch_new(1);
    assert_non_null(r->w);
    assert_int_equal(hk_watch_master(r->w, 0, "m:9306", cl, hk_variant_get(variant), K, &e), 0);
    int64_t t = S(1000);
    for (int i = 0; i < NSNAP; i++) {
        int64_t at = S(1001 + K * i) + 100000;  /* 1.1 s into the block, as next_poll asks */
        for (; t < at; t += S(1))
            second(d, t, stall);
        hk_buf b;
        hk_buf_init(&b);
        hk_status_global(&b, hk_variant_get(variant), K, h, 3, at);
        hk_status_file st;
        assert_int_equal(hk_statread(b.s, b.len, "snap", &st, &e), 0);
        hk_buf_free(&b);
        assert_int_equal(hk_watch_feed(r->w, 0, (double)at / 1e6, &st, &r->ev, &e), 0);
        if (i == 0)
            assert_int_equal(hk_watch_feed(r->w, 0, (double)at / 1e6, &st, &r->ev, &e), -1);
        hk_status_file_free(&st);
        r->a_prob[i] = r->w->m[0].lines[0].m[0].prob;
        r->b_prob[i] = r->w->m[0].lines[0].m[1].prob;
    }
    hk_dash_array_free(d);
    hk_watch_free(r->w);
    r->w = NULL;
    hk_cluster_free(cl);
}

/* The first event of kind on mirror i raised (or cleared) at [lo, hi]: its index, or -1. */
static int find(const run *r, hk_wkind k, int mirror, int raised, double lo, double hi)
{
    for (int j = 0; j < r->ev.n; j++) {
        const hk_wevent *e = &r->ev.e[j];
        if (e->kind == k && e->mirror == mirror && e->raised == raised && e->t_s >= lo &&
            e->t_s <= hi)
            return j;
    }
    return -1;
}

static void show(const run *r)
{
    for (int j = 0; j < r->ev.n; j++)
        fprintf(stderr, "  %.1f %s %s mirror %d: %s\n", r->ev.e[j].t_s,
                r->ev.e[j].raised ? "raised" : "cleared", hk_wkind_name(r->ev.e[j].kind),
                r->ev.e[j].mirror, r->ev.e[j].evidence);
}

static void story_sphinx2(void **state)
{
    (void)state;
    run *r = calloc(1, sizeof *r);
    assert_non_null(r);
    watch(r, HK_VAR_SPHINX2, 0);
    show(r);
    int dead_on = find(r, HK_W_DEAD, 1, 1, 1100, 1100 + 2 * K);
    int dead_off = find(r, HK_W_DEAD, 1, 0, 1160, 1160 + 2 * K);
    int slow_on = find(r, HK_W_SLOW, 1, 1, 1200, 1200 + 2 * K);
    int slow_off = find(r, HK_W_SLOW, 1, 0, 1240, 1240 + 2 * K);
    assert_true(dead_on >= 0 && dead_off >= 0 && slow_on >= 0 && slow_off >= 0);
    assert_non_null(strstr(r->ev.e[dead_on].evidence, "refused connects"));
    assert_non_null(strstr(r->ev.e[slow_on].evidence, "its line's others"));
    for (int j = 0; j < r->ev.n; j++)   /* nothing else: not the common slowdown of 1260-1280 */
        assert_true(j == dead_on || j == dead_off || j == slow_on || j == slow_off);
    /* 2.2.11's rule over the healthy windows' times (8, 5, 6 ms): f = 1 - t/S */
    assert_near(r->a_prob[5], (1 - 8.0 / 19) / 2, 0.02);
    assert_near(r->b_prob[5], (1 - 5.0 / 19) / 2, 0.02);
    hk_wevents_free(&r->ev);
    free(r);
}

static void manticore_lockin(void **state)
{
    (void)state;
    run *r = calloc(1, sizeof *r);
    assert_non_null(r);
    watch(r, HK_VAR_MANTICORE, 1);
    show(r);
    assert_near(r->a_prob[5], 1.0 / 3, 1e-9);         /* the static 100/N before the stall */
    assert_near(r->b_prob[NSNAP - 1], 1.0, 1e-9);     /* the timer read its timeouts: all b's */
    assert_true(find(r, HK_W_STUCK, 1, 1, 1100, 1100 + 2 * K) >= 0 ||
                find(r, HK_W_DEAD, 1, 1, 1100, 1100 + 2 * K) >= 0 ||
                find(r, HK_W_STALL, 1, 1, 1100, 1100 + 2 * K) >= 0);
    /* locked from the stall's first windows (the others healthy), and never cleared */
    assert_true(find(r, HK_W_LOCKED, 1, 1, 1100, 1100 + 2 * K + HK_SPAN_MIN_S) >= 0);
    assert_int_equal(find(r, HK_W_LOCKED, 1, 0, 0, 1e12), -1);
    assert_true(find(r, HK_W_STUCK, 1, 0, 1160, 1160 + 2 * K) >= 0);
    hk_wevents_free(&r->ev);
    free(r);
}

/* A 2.2.11 status at t where the three hosts got qa, qb, qc answers in the last block. */
static void status_at(hk_status_file *st, double t, int qa, int qb, int qc)
{
    hk_dash *d = hk_dash_array_new(3, K);
    assert_non_null(d);
    int q[3] = {qa, qb, qc};
    int64_t at = (int64_t)(t * 1e6);
    for (int m = 0; m < 3; m++)
        for (int i = 0; i < q[m]; i++) {
            int64_t s = at - S(1) - i * 10000;
            hk_dash_record(&d[m], s + 5000, HK_EV_SUCCESS, s, 0, 100);
        }
    hk_status_host h[3] = {{.name = "a:9312", .refs = 1, .pinged = 1, .dash = &d[0]},
                           {.name = "b:9312", .refs = 1, .pinged = 1, .dash = &d[1]},
                           {.name = "c:9312", .refs = 1, .pinged = 1, .dash = &d[2]}};
    hk_buf b;
    hk_buf_init(&b);
    hk_status_global(&b, hk_variant_get(HK_VAR_SPHINX2), K, h, 3, at);
    hk_err e;
    assert_int_equal(hk_statread(b.s, b.len, "snap", st, &e), 0);
    hk_buf_free(&b);
    hk_dash_array_free(d);
}

static void herding(void **state)
{
    (void)state;
    hk_cluster *cl = cluster();
    hk_err e;
    for (int nm = 1; nm <= 2; nm++) {
        hk_watch *w = hk_watch_new(nm);
        hk_wevents ev = {0};
        assert_non_null(w);
        for (int m = 0; m < nm; m++)
            assert_int_equal(hk_watch_master(w, m, m ? "m1:9306" : "m0:9306", cl,
                                             hk_variant_get(HK_VAR_SPHINX2), K, &e), 0);
        int raised = 0;
        for (int i = 0; i < 3; i++)
            for (int m = 0; m < nm; m++) {
                hk_status_file st;
                status_at(&st, 1001.1 + K * i + 0.1 * m, 90, 5, 5);
                assert_int_equal(hk_watch_feed(w, m, 1001.1 + K * i + 0.1 * m, &st, &ev, &e), 0);
                hk_status_file_free(&st);
                for (int j = 0; j < ev.n; j++)
                    raised += ev.e[j].kind == HK_W_HERDING && ev.e[j].raised &&
                              ev.e[j].master == -1 && ev.e[j].mirror == 0;
                ev.n = 0;
            }
        assert_int_equal(raised, nm == 2);
        hk_wevents_free(&ev);
        hk_watch_free(w);
    }
    hk_cluster_free(cl);
}

static void soak(void **state)
{
    (void)state;
    hk_cluster *cl = cluster();
    hk_watch *w = hk_watch_new(1);
    hk_wevents ev = {0};
    hk_err e;
    assert_non_null(w);
    assert_int_equal(hk_watch_master(w, 0, "m:9306", cl, hk_variant_get(HK_VAR_SPHINX2), 1, &e), 0);
    hk_status_file st[2];
    status_at(&st[0], 1001.1, 40, 40, 40);
    status_at(&st[1], 1002.1, 40, 0, 40);   /* b idle now and then: findings come and go */
    size_t at_hour = 0;
    for (int i = 0; i < 86400; i++) {
        ev.n = 0;
        assert_int_equal(hk_watch_feed(w, 0, 1001.1 + i, &st[(i / 600) % 2], &ev, &e), 0);
        if (i == 3600)
            at_hour = mallinfo2().uordblks;
    }
    assert_true(ev.cap <= 64);
    assert_true(mallinfo2().uordblks <= at_hour + 65536);  /* flat (0 = 0 under ASan) */
    hk_status_file_free(&st[0]);
    hk_status_file_free(&st[1]);
    hk_wevents_free(&ev);
    hk_watch_free(w);
    hk_cluster_free(cl);
}

static void kinds(void **state)
{
    (void)state;
    for (int k = 0; k < HK_W_N; k++)
        assert_int_equal(hk_wkind_find(hk_wkind_name(k)), k);
    assert_null(hk_wkind_name(HK_W_N));
    assert_int_equal(hk_wkind_find("nonsense"), -1);
    assert_true(hk_wkind_severe(HK_W_STUCK) && !hk_wkind_severe(HK_W_HERDING));
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(story_sphinx2),
                                       cmocka_unit_test(manticore_lockin),
                                       cmocka_unit_test(herding), cmocka_unit_test(soak),
                                       cmocka_unit_test(kinds)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
