/* A series of SHOW AGENT STATUS snapshots read as an incident (hk_incident): snapshots written by
 * hakarma's own 2.2.11 status from dashboards filled through a known story — host b refused for
 * 60 s, then six times slower for 40 s — must give a `down` fault and a `slow(F)` fault at the
 * story's times (within one karma period), nothing on the healthy host, a calibration base from
 * the healthy windows only; and a series out of order, at the same time, or mixing layouts is
 * refused naming the snapshot. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hk_calib.h"
#include "hk_conf.h"
#include "hk_incident.h"
#include "hk_status.h"
#include "hk_test.h"

#define S(x) ((int64_t)(x) * 1000000)
#define K 10
#define NSNAP 30

static const char conf[] = "searchd { ha_period_karma = 10  ha_ping_interval = 1000 }\n"
                           "index d { type = distributed\n agent = a:9312|b:9312:s\n}\n";
static const char conf_nodeads[] = "searchd { ha_period_karma = 10  ha_ping_interval = 1000 }\n"
                                   "index d { type = distributed\n agent = a:9312|b:9312:s\n"
                                   " ha_strategy = nodeads\n}\n";

static hk_cluster *cluster_of(const char *text)
{
    return hk_test_cluster(text, HK_DIALECT_SPHINX2);
}

static hk_cluster *cluster(void) { return cluster_of(conf); }

/* The story of second t: a answers 20 queries in 8 ms; b 20 in 5 ms, refuses 1100-1160 (only
 * its pings reach it then, one a second, refused), answers in 30 ms 1200-1240; 1260-1280 both
 * answer 1.6x slower (the master's machine loaded: no mirror's fault). */
static int all_slow(int64_t t) { return t >= S(1260) && t < S(1280); }

/* killed: b's process is killed at 1100 instead: the 30 searches in flight get a reset
 * (network errors), then a refused ping every 10 s only: far fewer refusals than resets. */
static void second(hk_dash *d, int64_t t, int killed)
{
    for (int q = 0; q < 20; q++) {
        int64_t at = t + q * 50000;
        hk_dash_record(&d[0], at + (all_slow(t) ? 12800 : 8000), HK_EV_SUCCESS, at, 0, 100);
    }
    if (killed && t == S(1100))
        for (int q = 0; q < 30; q++)
            hk_dash_record(&d[1], t + 200, HK_EV_NETWORK_ERROR, t - 3000 + q * 100, 0, 100);
    if (t >= S(1100) && t < S(1160)) {
        if (!killed || t % S(10) == 0)
            hk_dash_record(&d[1], t + 100, HK_EV_CONNECT_FAILURE, t, 1, -1);
        return;
    }
    int64_t us = t >= S(1200) && t < S(1240) ? 30000 : all_slow(t) ? 8000 : 5000;
    for (int q = 0; q < 20; q++) {
        int64_t at = t + q * 50000;
        hk_dash_record(&d[1], at + us, HK_EV_SUCCESS, at, 0, 100);
    }
}

typedef struct series {
    hk_status_file st[NSNAP];
    hk_snap s[NSNAP];
    char name[NSNAP][32];
    int late;                    /* this snapshot (when > 0) was answered 0.1 s past the half */
                                 /* point of its block but named 0.1 s before it */
    int killed;                  /* b killed at 1100 (second()'s other story) */
} series;

/* Snapshots every karma period, 7 s into each block, as a scrape would take them. */
static void record(series *x, int variant)
{
    hk_dash *d = hk_dash_array_new(2, K);
    assert_non_null(d);
    hk_status_host h[2] = {{.name = "a:9312", .refs = 1, .pinged = 1,
                            .dash = &d[0]}, {.name = "b:9312", .refs = 1, .pinged = 1,
                                                        .dash = &d[1]}};
    int64_t t = S(1000);
    for (int i = 0; i < NSNAP; i++) {
        int64_t at = S(1007 + K * i);
        double named = (double)at / 1e6;
        if (x->late > 0 && i == x->late) {
            at = S(1005 + K * i) + 100000;
            named = 1004.9 + K * i;
        }
        for (; t < at; t += S(1))
            second(d, t, x->killed);
        hk_buf b;
        hk_buf_init(&b);
        hk_status_global(&b, hk_variant_get(variant), K, h, 2, at);
        snprintf(x->name[i], sizeof x->name[i], "status.%d.tsv", 1007 + K * i);
        hk_err e;
        assert_int_equal(hk_statread(b.s, b.len, x->name[i], &x->st[i], &e), 0);
        hk_buf_free(&b);
        x->s[i] = (hk_snap){named, x->name[i], &x->st[i]};
    }
    hk_dash_array_free(d);
}

static void series_free(series *x)
{
    for (int i = 0; i < NSNAP; i++)
        hk_status_file_free(&x->st[i]);
}

static void story(void **state)
{
    (void)state;
    series *x = calloc(1, sizeof *x);
    assert_non_null(x);
    record(x, HK_VAR_SPHINX2);
    hk_cluster *cl = cluster();
    hk_incident inc;
    hk_err e;
    assert_int_equal(hk_incident_build(x->s, NSNAP, cl, &inc, &e), 0);
    int a = hk_cluster_find_host(cl, "a:9312"), b = hk_cluster_find_host(cl, "b:9312");
    assert_int_equal(inc.nfaults, 2);
    const hk_inc_fault *down = &inc.faults[0], *slow = &inc.faults[1];
    if (down->kind != HK_FAULT_DOWN) {
        down = &inc.faults[1];
        slow = &inc.faults[0];
    }
    assert_int_equal(down->kind, HK_FAULT_DOWN);
    assert_int_equal(down->host, b);
    assert_near(down->from_s, 1100, K);
    assert_near(down->to_s, 1160, K);
    assert_false(down->open);
    assert_int_equal(slow->kind, HK_FAULT_SLOW);
    assert_int_equal(slow->host, b);
    assert_near(slow->factor, 6.0, 0.5);
    assert_near(slow->from_s, 1200, K);
    assert_near(slow->to_s, 1240, K);
    /* under nodeads the master leaves b alone until a ping succeeds: it came back half a ping
     * interval before it answered again, and the fault ends that much earlier */
    hk_cluster *cn = cluster_of(conf_nodeads);
    hk_incident in2;
    assert_int_equal(hk_incident_build(x->s, NSNAP, cn, &in2, &e), 0);
    assert_near(in2.ping_wait_s[b], 0.5, 1e-12);
    assert_near(in2.ping_wait_s[a], 0.5, 1e-12);
    assert_near(inc.ping_wait_s[b], 0, 1e-12);
    assert_int_equal(in2.nfaults, 2);
    for (int i = 0; i < 2; i++)
        if (in2.faults[i].kind == HK_FAULT_DOWN) {
            assert_near(in2.faults[i].to_s, down->to_s - 0.5, 1e-9);
            assert_near(in2.faults[i].from_s, down->from_s, 1e-9);
        }
    hk_incident_free(&in2);
    hk_cluster_free(cn);
    /* the healthy host's windows are all ok, with its 8 ms; 12.8 where both slowed down, and
     * neither is slow there (2 faults above, none at 1260-1280) */
    for (int i = 1; i < NSNAP; i++) {
        int both = i == 26 || i == 27;
        assert_int_equal(inc.cell[i * inc.nhosts + a].state, HK_INC_OK);
        assert_int_equal(inc.cell[i * inc.nhosts + b].state, both ? HK_INC_OK
                         : inc.cell[i * inc.nhosts + b].state);
        assert_near(inc.cell[i * inc.nhosts + a].mean_ms, both ? 12.8 : 8.0, 0.01);
    }
    assert_ptr_equal(hk_incident_fault_at(&inc, b, 1130, 0), down);
    assert_null(hk_incident_fault_at(&inc, a, 1130, K));
    assert_null(hk_incident_fault_at(&inc, b, 1180, 0));
    /* the calibration base holds b's healthy windows only: its 5 ms (8 in the 2 loaded of its
     * 19), not the outage's or 30; a's 30 windows, 2 of them at 12.8 */
    hk_calib_host *c;
    assert_int_equal(hk_calib(&inc.base, cl, &c), 0);
    assert_true(c[b].found);
    assert_near(c[b].mean_ms, (17 * 5.0 + 2 * 8.0) / 19, 0.01);
    assert_near(c[a].mean_ms, (28 * 8.0 + 2 * 12.8) / 30, 0.01);
    free(c);
    hk_incident_free(&inc);
    hk_cluster_free(cl);
    series_free(x);
    free(x);
}

/* A process killed: its searches in flight reset (30 network errors) outnumber the refused
 * pings after (6): down, not stuck, from the kill. */
static void killed_is_down(void **state)
{
    (void)state;
    series *x = calloc(1, sizeof *x);
    assert_non_null(x);
    x->killed = 1;
    record(x, HK_VAR_SPHINX2);
    hk_cluster *cl = cluster();
    hk_incident inc;
    hk_err e;
    assert_int_equal(hk_incident_build(x->s, NSNAP, cl, &inc, &e), 0);
    int b = hk_cluster_find_host(cl, "b:9312");
    const hk_inc_fault *down = NULL;
    for (int i = 0; i < inc.nfaults; i++)
        if (inc.faults[i].host == b && inc.faults[i].from_s < 1180)
            down = &inc.faults[i];
    assert_non_null(down);
    assert_int_equal(down->kind, HK_FAULT_DOWN);
    assert_near(down->from_s, 1100, K);
    hk_incident_free(&inc);
    hk_cluster_free(cl);
    series_free(x);
    free(x);
}

/* The first dead window named 0.1 s before its block's half point but answered 0.1 s after
 * (a scrape stamps the time, then connects): its window is the short one, told by its counts,
 * so the fault starts at 1100, not where the long window would put it (1097). */
static void late_snapshot(void **state)
{
    (void)state;
    series *x = calloc(1, sizeof *x);
    assert_non_null(x);
    x->late = 10;
    record(x, HK_VAR_SPHINX2);
    hk_cluster *cl = cluster();
    hk_incident inc;
    hk_err e;
    assert_int_equal(hk_incident_build(x->s, NSNAP, cl, &inc, &e), 0);
    int b = hk_cluster_find_host(cl, "b:9312");
    assert_near(inc.cell[10 * inc.nhosts + b].span_s, 4.9, 1e-9);
    assert_near(inc.cell[9 * inc.nhosts + b].span_s, 7, 1e-9);
    const hk_inc_fault *down = NULL;
    for (int i = 0; i < inc.nfaults; i++)
        if (inc.faults[i].kind == HK_FAULT_DOWN)
            down = &inc.faults[i];
    assert_non_null(down);
    assert_near(down->from_s, 1100, 0.5);
    hk_incident_free(&inc);
    hk_cluster_free(cl);
    series_free(x);
    free(x);
}

static void refused_series(void **state)
{
    (void)state;
    series *x = calloc(1, sizeof *x), *m = calloc(1, sizeof *m);
    assert_non_null(x);
    assert_non_null(m);
    record(x, HK_VAR_SPHINX2);
    record(m, HK_VAR_MANTICORE);
    hk_cluster *cl = cluster();
    hk_incident inc;
    hk_err e;
    hk_snap s[4] = {x->s[0], x->s[2], x->s[1], x->s[3]}; /* out of order */
    assert_int_equal(hk_incident_build(s, 4, cl, &inc, &e), -1);
    assert_string_equal(e.file, x->name[1]);
    assert_non_null(strstr(e.msg, "not after"));
    s[2] = x->s[2]; /* the same time twice */
    assert_int_equal(hk_incident_build(s, 4, cl, &inc, &e), -1);
    assert_string_equal(e.file, x->name[2]);
    s[2] = m->s[2]; /* another layout in the middle */
    s[1] = x->s[1];
    assert_int_equal(hk_incident_build(s, 4, cl, &inc, &e), -1);
    assert_string_equal(e.file, m->name[2]);
    assert_non_null(strstr(e.msg, "layout"));
    assert_int_equal(hk_incident_build(s, 1, cl, &inc, &e), -1); /* one is no series */
    hk_cluster_free(cl);
    series_free(x);
    series_free(m);
    free(x);
    free(m);
}

/* A mirror that hangs its searches but answers its pings (the proxy's `stuck`): in windows 3
 * and 4 b gets a ping a second (answered) and a search every 3 s that times out, against 7
 * searches a second before: errors in a row stay at 0 or 1, yet its attempts collapsed while
 * a kept its own. Read as dead, one `stuck` fault over those windows; with its attempts at
 * half their rate (above a third) it is no fault. */
static void stuck_from_the_status(void **state)
{
    (void)state;
    hk_cluster *cl = cluster();
    int b = hk_cluster_find_host(cl, "b:9312");
    for (int half = 0; half <= 1; half++) {
        enum { N = 7 };
        hk_status_file st[N];
        hk_snap sn[N];
        char name[N][32];
        hk_dash *d = hk_dash_array_new(2, K);
        assert_non_null(d);
        hk_status_host h[2] = {{.name = "a:9312", .refs = 1, .pinged = 1,
                                .dash = &d[0]}, {.name = "b:9312", .refs = 1,
                                                            .pinged = 1, .dash = &d[1]}};
        int64_t t = S(1000);
        for (int i = 0; i < N; i++) {
            int64_t at = S(1007 + K * i);
            for (; t < at; t += S(1)) {
                int hung = t >= S(1027) && t < S(1047);
                for (int q = 0; q < N; q++)
                    hk_dash_record(&d[0], t + q * 100000 + 5000, HK_EV_SUCCESS,
                                   t + q * 100000, 0, 100);
                if (hung && !half) {
                    hk_dash_record(&d[1], t + 2000, HK_EV_SUCCESS, t, 1, -1); /* a ping */
                    if ((t / S(1)) % 3 == 0)
                        hk_dash_record(&d[1], t + S(1) - 1, HK_EV_QUERY_TIMEOUT, t, 0, 100);
                    continue;
                }
                int nq = hung ? 3 : N;
                for (int q = 0; q < nq; q++)
                    hk_dash_record(&d[1], t + q * 100000 + 5000, HK_EV_SUCCESS,
                                   t + q * 100000, 0, 100);
                if (hung && (t / S(1)) % 3 == 0)
                    hk_dash_record(&d[1], t + S(1) - 1, HK_EV_QUERY_TIMEOUT, t, 0, 100);
            }
            hk_buf buf;
            hk_buf_init(&buf);
            hk_status_global(&buf, hk_variant_get(HK_VAR_SPHINX2), K, h, 2, at);
            snprintf(name[i], sizeof name[i], "status.%d.tsv", 1007 + K * i);
            hk_err e;
            assert_int_equal(hk_statread(buf.s, buf.len, name[i], &st[i], &e), 0);
            hk_buf_free(&buf);
            sn[i] = (hk_snap){(double)at / 1e6, name[i], &st[i]};
        }
        hk_incident inc;
        hk_err e;
        assert_int_equal(hk_incident_build(sn, N, cl, &inc, &e), 0);
        int stuck = 0;
        for (int i = 0; i < inc.nfaults; i++)
            stuck += inc.faults[i].host == b && inc.faults[i].kind == HK_FAULT_STUCK;
        assert_int_equal(stuck, half ? 0 : 1);
        assert_true(inc.cell[3 * inc.nhosts + b].errorsarow <= 1.0);
        hk_incident_free(&inc);
        for (int i = 0; i < N; i++)
            hk_status_file_free(&st[i]);
        hk_dash_array_free(d);
    }
    hk_cluster_free(cl);
}

/* A host that answers, then fails HK_INCIDENT_DEAD_ROW times in a row right before a snapshot,
 * is dead in that window (searchd's nodeads counts it dead from the third error in a row); one
 * error fewer is not. */
static void dead_at_three_in_a_row(void **state)
{
    (void)state;
    hk_cluster *cl = cluster();
    int b = hk_cluster_find_host(cl, "b:9312");
    for (int row = 2; row <= 3; row++) { /* 3: the number, pinned, not the constant */
        hk_status_file st[2];
        hk_snap sn[2];
        char name[2][32];
        hk_dash *d = hk_dash_array_new(2, K);
        assert_non_null(d);
        hk_status_host h[2] = {{.name = "a:9312", .refs = 1, .pinged = 1,
                                .dash = &d[0]}, {.name = "b:9312", .refs = 1,
                                                            .pinged = 1, .dash = &d[1]}};
        for (int i = 0; i < 2; i++) {
            int64_t from = S(1000 + K * i), at = S(1007 + K * i);
            for (int64_t t = from; t < at; t += S(1)) {
                hk_dash_record(&d[0], t + 5000, HK_EV_SUCCESS, t, 0, 100);
                if (i == 1 && t >= at - S(row))
                    hk_dash_record(&d[1], t + 100, HK_EV_CONNECT_FAILURE, t, 0, -1);
                else
                    hk_dash_record(&d[1], t + 5000, HK_EV_SUCCESS, t, 0, 100);
            }
            hk_buf buf;
            hk_buf_init(&buf);
            hk_status_global(&buf, hk_variant_get(HK_VAR_SPHINX2), K, h, 2, at);
            snprintf(name[i], sizeof name[i], "status.%d.tsv", 1007 + K * i);
            hk_err e;
            assert_int_equal(hk_statread(buf.s, buf.len, name[i], &st[i], &e), 0);
            hk_buf_free(&buf);
            sn[i] = (hk_snap){(double)at / 1e6, name[i], &st[i]};
        }
        hk_incident inc;
        hk_err e;
        assert_int_equal(hk_incident_build(sn, 2, cl, &inc, &e), 0);
        const hk_inc_cell *c = &inc.cell[1 * inc.nhosts + b];
        assert_near(c->errorsarow, row, 1e-9);
        assert_true(c->ok >= 1);
        assert_int_equal(c->state, row == 3 ? HK_INC_DEAD : HK_INC_OK);
        hk_incident_free(&inc);
        for (int i = 0; i < 2; i++)
            hk_status_file_free(&st[i]);
        hk_dash_array_free(d);
    }
    hk_cluster_free(cl);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(dead_at_three_in_a_row), cmocka_unit_test(stuck_from_the_status),
        cmocka_unit_test(story),
        cmocka_unit_test(killed_is_down),
        cmocka_unit_test(late_snapshot),
        cmocka_unit_test(refused_series),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
