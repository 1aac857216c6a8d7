/* Strategies: roundrobin order, random uniformity, nodeads classes,
 * noerrors ratios, the half-period recompute, each variant's weights in
 * action, and property tests over random states. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "hk_strat.h"
#include "hk_test.h"

#define S(x) ((int64_t)(x) * 1000000)
#define MAXM 8

typedef struct fx {
    hk_dash *d;
    hk_dash *p[MAXM];
    gsl_rng *r;
} fx;

static fx *fx_new(int n, int64_t karma)
{
    fx *f = calloc(1, sizeof *f);
    f->d = hk_dash_array_new(n, karma);
    for (int i = 0; i < n; i++)
        f->p[i] = &f->d[i];
    f->r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(f->r, 42);
    return f;
}

static void fx_free(fx *f)
{
    gsl_rng_free(f->r);
    hk_dash_array_free(f->d);
    free(f);
}

/* n queries of latency us, all successes, at time t. */
static void feed(hk_dash *d, int64_t t, int n, int64_t us, hk_ev ev)
{
    for (int i = 0; i < n; i++)
        hk_dash_record(d, t, ev, t - us, 0, -1);
}

static void counts(hk_line *l, int64_t t, int n, gsl_rng *r, int *c)
{
    memset(c, 0, sizeof(int) * (size_t)l->n);
    for (int i = 0; i < n; i++)
        c[hk_line_choose(l, t, r)]++;
}

static void names_prefix_matched(void **st)
{
    (void)st;
    assert_int_equal(hk_strat_find("random"), HK_STRAT_RANDOM);
    assert_int_equal(hk_strat_find("roundrobin"), HK_STRAT_ROUNDROBIN);
    assert_int_equal(hk_strat_find("nodeads"), HK_STRAT_NODEADS);
    assert_int_equal(hk_strat_find("nodeadstm"), HK_STRAT_NODEADS);
    assert_int_equal(hk_strat_find("noerrorstm"), HK_STRAT_NOERRORS);
    assert_int_equal(hk_strat_find("fastest"), -1);
    /* the extensions are not searchd's: a config's ha_strategy never reads them */
    assert_int_equal(hk_strat_find("p2c"), -1);
    assert_int_equal(hk_strat_find("peak-ewma"), -1);
    assert_int_equal(hk_strat_find_any("p2c"), HK_STRAT_P2C);
    assert_int_equal(hk_strat_find_any("least-outstanding"), HK_STRAT_LEAST_OUT);
    assert_int_equal(hk_strat_find_any("peak-ewma"), HK_STRAT_PEAK_EWMA);
    assert_int_equal(hk_strat_find_any("c3"), HK_STRAT_C3);
    assert_int_equal(hk_strat_find_any("p2cx"), -1);
    /* outside a config a prefix is a typo, not searchd's reading */
    assert_int_equal(hk_strat_find_any("nodeadstm"), -1);
    assert_int_equal(hk_strat_find_any("noerrors2"), -1);
    assert_int_equal(hk_strat_find_any("noerrors"), HK_STRAT_NOERRORS);
}

/* least-outstanding: the fewest in flight, ties uniform; p2c: the busiest of three is never
 * picked (it loses every pair), the other two half each. */
static void outstanding_strategies(void **st)
{
    (void)st;
    fx *f = fx_new(3, 60);
    int64_t t = S(1000);
    for (int s = 0; s < 2; s++) {
        hk_line *l = hk_line_new(3, f->p, s ? HK_STRAT_P2C : HK_STRAT_LEAST_OUT,
                                 hk_variant_get(HK_VAR_MANTICORE));
        for (int k = 0; k < 5; k++)
            hk_line_begin(l, 0, t);
        hk_line_begin(l, 2, t);
        int c[3];
        counts(l, t, 30000, f->r, c);
        double p[3];
        hk_line_probs(l, t, p);
        if (!s) { /* least-outstanding: mirror 1 alone */
            assert_int_equal(c[1], 30000);
            assert_near(p[1], 1.0, 1e-12);
        } else {  /* p2c: 0 never; 1 beats 0 and 2; 2 beats 0 */
            assert_int_equal(c[0], 0);
            assert_in_range(c[1], 19500, 20500);
            assert_near(p[1], 2.0 / 3, 1e-12);
            assert_near(p[2], 1.0 / 3, 1e-12);
        }
        hk_line_free(l);
    }
    fx_free(f);
}

/* Fast errors look slow: a mirror answering errors in 0.1 ms beside one answering successes in
 * 5 ms gets almost nothing under peak-ewma (a failure counts as HK_EWMA_FAIL_US of latency) —
 * and would take nearly everything if failures counted as their own 0.1 ms. */
static void peak_ewma_fast_errors(void **st)
{
    (void)st;
    fx *f = fx_new(2, 60);
    hk_line *l = hk_line_new(2, f->p, HK_STRAT_PEAK_EWMA, hk_variant_get(HK_VAR_MANTICORE));
    int64_t t = S(1000);
    int got[2] = {0, 0};
    for (int k = 0; k < 20000; k++, t += 1000) {
        int i = hk_line_choose(l, t, f->r);
        got[i]++;
        hk_line_begin(l, i, t);
        hk_line_end(l, i, t, i == 1, i == 0 ? 100 : 5000);
    }
    assert_true(got[0] < 200);  /* under 1%: tried, found failing, avoided */
    hk_line_free(l);
    fx_free(f);
}

static void roundrobin_order(void **st)
{
    (void)st;
    fx *f = fx_new(3, 60);
    hk_line *l = hk_line_new(3, f->p, HK_STRAT_ROUNDROBIN, hk_variant_get(HK_VAR_MANTICORE));
    int want[7] = {0, 1, 2, 0, 1, 2, 0};
    for (int i = 0; i < 7; i++)
        assert_int_equal(hk_line_choose(l, S(1), f->r), want[i]);
    hk_line_free(l);
    fx_free(f);
}

static void random_is_uniform(void **st)
{
    (void)st;
    fx *f = fx_new(4, 60);
    feed(&f->d[0], S(1), 100, 1000, HK_EV_SUCCESS);
    hk_line *l = hk_line_new(4, f->p, HK_STRAT_RANDOM, hk_variant_get(HK_VAR_MANTICORE));
    int c[4];
    counts(l, S(100), 40000, f->r, c);
    for (int i = 0; i < 4; i++)
        assert_in_range(c[i], 9600, 10400); /* 10000 +- 4 sigma */
    hk_line_free(l);
    fx_free(f);
}

static void nodeads_classes(void **st)
{
    (void)st;
    fx *f = fx_new(3, 60);
    hk_line *l = hk_line_new(3, f->p, HK_STRAT_NODEADS, hk_variant_get(HK_VAR_MANTICORE));
    f->d[1].errors_a_row = 5;
    f->d[2].errors_a_row = 2;
    hk_dash_changed(&f->d[1]);
    hk_dash_changed(&f->d[2]);
    int c[3];
    counts(l, S(1), 3000, f->r, c);
    assert_int_equal(c[1], 0);
    assert_in_range(c[0], 1350, 1650);
    double p[3];
    hk_line_probs(l, S(1), p);
    assert_near(p[0], 0.5, 1e-12);
    assert_near(p[1], 0.0, 0);
    /* all dead: the least bad wins deterministically */
    f->d[0].errors_a_row = 7;
    f->d[2].errors_a_row = 9;
    hk_dash_changed(&f->d[0]);
    hk_dash_changed(&f->d[2]);
    counts(l, S(1), 100, f->r, c);
    assert_int_equal(c[1], 100);
    hk_line_probs(l, S(1), p);
    assert_near(p[1], 1.0, 0);
    hk_line_free(l);
    fx_free(f);
}

static void nodeads_fourth_failure_and_revival(void **st)
{
    (void)st;
    fx *f = fx_new(2, 60);
    hk_line *l = hk_line_new(2, f->p, HK_STRAT_NODEADS, hk_variant_get(HK_VAR_MANTICORE));
    feed(&f->d[0], S(1), 3, 1000, HK_EV_WARNING);
    int c[2];
    counts(l, S(2), 1000, f->r, c);
    assert_true(c[0] > 0);                    /* 3 in a row: still a candidate */
    feed(&f->d[0], S(2), 1, 1000, HK_EV_WARNING);
    counts(l, S(3), 1000, f->r, c);
    assert_int_equal(c[0], 0);                /* the 4th: dead */
    hk_dash_record(&f->d[0], S(4), HK_EV_SUCCESS, S(4), 1, -1);  /* a ping revives */
    counts(l, S(5), 1000, f->r, c);
    assert_true(c[0] > 300);
    hk_line_free(l);
    fx_free(f);
}

static void noerrors_ratio_threshold(void **st)
{
    (void)st;
    fx *f = fx_new(2, 60);
    hk_line *l = hk_line_new(2, f->p, HK_STRAT_NOERRORS, hk_variant_get(HK_VAR_MANTICORE));
    feed(&f->d[0], S(40), 97, 1000, HK_EV_SUCCESS);
    feed(&f->d[0], S(40), 3, 1000, HK_EV_CONNECT_FAILURE);   /* 3/100: free */
    feed(&f->d[1], S(40), 100, 1000, HK_EV_SUCCESS);
    int c[2];
    counts(l, S(45), 2000, f->r, c);
    assert_in_range(c[0], 850, 1150);
    double p[2];
    hk_line_probs(l, S(45), p);
    assert_near(p[0], 0.5, 1e-12);
    feed(&f->d[0], S(41), 1, 1000, HK_EV_QUERY_TIMEOUT);     /* 4/101 > 3%: loses */
    counts(l, S(45), 2000, f->r, c);
    assert_int_equal(c[0], 0);
    hk_line_probs(l, S(45), p);
    assert_near(p[1], 1.0, 0);
    hk_line_free(l);
    fx_free(f);
}

static void noerrors_warnings_break_ties(void **st)
{
    (void)st;
    fx *f = fx_new(2, 60);
    hk_line *l = hk_line_new(2, f->p, HK_STRAT_NOERRORS, hk_variant_get(HK_VAR_MANTICORE));
    feed(&f->d[0], S(40), 90, 1000, HK_EV_SUCCESS);
    feed(&f->d[0], S(40), 10, 1000, HK_EV_WARNING);   /* rc 0, ra 0.10 */
    feed(&f->d[1], S(40), 100, 1000, HK_EV_SUCCESS);
    int c[2];
    counts(l, S(45), 500, f->r, c);
    assert_int_equal(c[1], 500);
    hk_line_free(l);
    fx_free(f);
}

static void noerrors_skips_no_success(void **st)
{
    (void)st;
    fx *f = fx_new(3, 60);
    hk_line *l = hk_line_new(3, f->p, HK_STRAT_NOERRORS, hk_variant_get(HK_VAR_MANTICORE));
    feed(&f->d[1], S(40), 5, 1000, HK_EV_SUCCESS);
    int c[3];
    counts(l, S(45), 300, f->r, c);
    assert_int_equal(c[1], 300);   /* mirrors 0 and 2 have no successes: skipped */
    /* no successes anywhere (fresh window): uniform random */
    counts(l, S(45 + 120), 30000, f->r, c);
    for (int i = 0; i < 3; i++)
        assert_in_range(c[i], 9400, 10600);
    double p[3];
    hk_line_probs(l, S(165), p);
    assert_near(p[2], 1.0 / 3, 1e-12);
    hk_line_free(l);
    fx_free(f);
}

static void half_period_recompute(void **st)
{
    (void)st;
    fx *f = fx_new(2, 60);
    hk_line *l = hk_line_new(2, f->p, HK_STRAT_NODEADS, hk_variant_get(HK_VAR_MANTICORE_FIXED));
    int64_t t0 = S(6000);                 /* a block boundary */
    l->last_recalc_s = 6000;
    feed(&f->d[0], t0 + S(1), 10, 10000, HK_EV_SUCCESS);
    feed(&f->d[1], t0 + S(1), 10, 20000, HK_EV_SUCCESS);
    hk_line_choose(l, t0 + S(30), f->r);  /* 30 - 0 = 30, not > 30: no recompute */
    assert_int_equal(l->recalcs, 0);
    assert_near(l->w[0], 50.0, 1e-6);
    hk_line_choose(l, t0 + S(31), f->r);  /* > 30: recompute */
    assert_int_equal(l->recalcs, 1);
    assert_near(l->w[0], 66.6667, 1e-3);
    hk_line_choose(l, t0 + S(61), f->r);  /* only 30 s later: no */
    assert_int_equal(l->recalcs, 1);
    hk_line_choose(l, t0 + S(62), f->r);
    assert_int_equal(l->recalcs, 2);
    hk_line_free(l);
    fx_free(f);
}

static void manticore_default_ignores_latency(void **st)
{
    (void)st;
    fx *f = fx_new(4, 60);
    hk_line *l = hk_line_new(4, f->p, HK_STRAT_NOERRORS, hk_variant_get(HK_VAR_MANTICORE));
    int64_t lat[4] = {10000, 5000, 30000, 3000};
    for (int i = 0; i < 4; i++)
        feed(&f->d[i], S(35), 50, lat[i], HK_EV_SUCCESS);
    hk_line_choose(l, S(40), f->r);
    assert_int_equal(l->recalcs, 1);
    for (int i = 0; i < 4; i++)
        assert_near(l->w[i], 25.0, 1e-6);   /* timer defect: all timers 0 -> kept */
    /* the same under the intended timer gives the manual's numbers */
    hk_line *g = hk_line_new(4, f->p, HK_STRAT_NOERRORS, hk_variant_get(HK_VAR_MANTICORE_FIXED));
    hk_line_choose(g, S(40), f->r);
    double p[4];
    hk_line_probs(g, S(40), p);
    assert_near(p[0], 0.15, 1e-5);
    assert_near(p[1], 0.30, 1e-5);
    assert_near(p[2], 0.05, 1e-5);
    assert_near(p[3], 0.50, 1e-5);
    hk_line_free(g);
    hk_line_free(l);
    fx_free(f);
}

static void manticore_timeouts_only_mirror_takes_all(void **st)
{
    (void)st;
    fx *f = fx_new(2, 60);
    hk_line *l = hk_line_new(2, f->p, HK_STRAT_NODEADS, hk_variant_get(HK_VAR_MANTICORE));
    feed(&f->d[0], S(35), 2, 3000000, HK_EV_QUERY_TIMEOUT);
    feed(&f->d[1], S(35), 20, 5000, HK_EV_SUCCESS);
    hk_line_choose(l, S(40), f->r);
    assert_near(l->w[0], 100.0, 1e-6);      /* timer = 2/2 = 1 */
    assert_near(l->w[1], 0.0, 0);
    int c[2];
    counts(l, S(41), 200, f->r, c);
    assert_int_equal(c[0], 200);            /* errors_a_row 2 <= 3: still class 0 */
    hk_line_free(l);
    fx_free(f);
}

static void documented_once_per_period(void **st)
{
    (void)st;
    fx *f = fx_new(2, 60);
    hk_line *l = hk_line_new(2, f->p, HK_STRAT_NODEADS, hk_variant_get(HK_VAR_DOCUMENTED));
    l->last_block = 0;
    feed(&f->d[0], S(10), 10, 10000, HK_EV_SUCCESS);
    feed(&f->d[1], S(10), 10, 20000, HK_EV_SUCCESS);
    hk_line_choose(l, S(50), f->r);
    assert_int_equal(l->recalcs, 0);
    hk_line_choose(l, S(61), f->r);           /* block 1 starts: scale by block 0 */
    assert_int_equal(l->recalcs, 1);
    assert_near(l->w[0], 2.0 / 3, 1e-12);
    hk_line_choose(l, S(119), f->r);
    assert_int_equal(l->recalcs, 1);
    hk_dash_record(&f->d[0], S(70), HK_EV_SUCCESS, S(70) - 10000, 0, -1);
    hk_dash_record(&f->d[1], S(70), HK_EV_SUCCESS, S(70) - 20000, 0, -1);
    hk_line_choose(l, S(121), f->r);          /* second step multiplies again */
    assert_near(l->w[0], 0.8, 1e-12);
    hk_line_free(l);
    fx_free(f);
}

static void sphinx2_weights_in_action(void **st)
{
    (void)st;
    fx *f = fx_new(3, 60);
    hk_line *l = hk_line_new(3, f->p, HK_STRAT_NODEADS, hk_variant_get(HK_VAR_SPHINX2));
    feed(&f->d[0], S(35), 10, 10000, HK_EV_SUCCESS);
    feed(&f->d[2], S(35), 10, 30000, HK_EV_SUCCESS);
    hk_line_choose(l, S(40), f->r);
    assert_int_equal((int)l->w[0], 44236);
    assert_int_equal((int)l->w[1], 6553);
    assert_int_equal((int)l->w[2], 14745);
    double p[3];
    hk_line_probs(l, S(40), p);
    assert_near(p[1], 0.1, 1e-4);
    hk_line_free(l);
    fx_free(f);
}

/* A brute-force reading of the spec (§1.3-1.5), independent of hk_strat's
 * tree: the selection probability of each mirror. */
static void reference_probs(const hk_line *l, int64_t now, double *p)
{
    int n = l->n, cand[MAXM], nc = 0;
    if (l->strat == HK_STRAT_RANDOM || l->strat == HK_STRAT_ROUNDROBIN) {
        for (int i = 0; i < n; i++)
            p[i] = 1.0 / n;
        return;
    }
    if (l->strat == HK_STRAT_NODEADS) {
        int64_t best = -1;
        for (int i = 0; i < n; i++) {
            int64_t e = l->dash[i]->errors_a_row > 3 ? l->dash[i]->errors_a_row : 0;
            if (best < 0 || e < best) {
                best = e;
                nc = 0;
            }
            if (e == best)
                cand[nc++] = i;
        }
    } else {
        float brc = 2, bra = 2;
        for (int i = 0; i < n; i++) {
            hk_block b;
            hk_dash_window(l->dash[i], now, 1, &b);
            if (!b.c[HK_EV_SUCCESS])
                continue;
            float tot = (float)hk_block_events(&b), crit = 0;
            for (int k = 0; k < HK_EV_WARNING; k++)
                crit += (float)b.c[k];
            float rc = crit / tot, ra = (crit + (float)b.c[HK_EV_WARNING]) / tot;
            rc = rc <= 0.03f ? 0 : rc;
            ra = ra <= 0.03f ? 0 : ra;
            if (rc < brc || (rc == brc && ra < bra)) {
                brc = rc;
                bra = ra;
                nc = 0;
            }
            if (rc == brc && ra == bra)
                cand[nc++] = i;
        }
        if (!nc) {
            for (int i = 0; i < n; i++)
                p[i] = 1.0 / n;
            return;
        }
    }
    double sum = 0;
    for (int i = 0; i < n; i++)
        p[i] = 0;
    for (int k = 0; k < nc; k++)
        sum += l->w[cand[k]];
    for (int k = 0; k < nc; k++)
        p[cand[k]] = sum > 0 ? l->w[cand[k]] / sum : (k == nc - 1);
}

/* Properties over random states: probabilities >= 0 summing to 1; the
 * empirical pick frequency follows them; nodeads never picks a dead mirror
 * while a live one exists. */
static void properties(void **st)
{
    (void)st;
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 7);
    for (int iter = 0; iter < 300; iter++) {
        int n = 2 + (int)gsl_rng_uniform_int(r, MAXM - 1);
        int strat = (int)gsl_rng_uniform_int(r, HK_STRAT_SEARCHD_N); /* reference: searchd's */
        int var = (int)gsl_rng_uniform_int(r, HK_VAR_N);
        fx *f = fx_new(n, 1 + (int64_t)gsl_rng_uniform_int(r, 120));
        int64_t t = S(1000) + (int64_t)gsl_rng_uniform_int(r, 100000000);
        for (int i = 0; i < n; i++) {
            int k = (int)gsl_rng_uniform_int(r, 40);
            for (int j = 0; j < k; j++)
                feed(&f->d[i], t - (int64_t)gsl_rng_uniform_int(r, 60000000),
                     1, 1 + (int64_t)gsl_rng_uniform_int(r, 200000),
                     (hk_ev)gsl_rng_uniform_int(r, HK_EV_N));
            f->d[i].errors_a_row = (int64_t)gsl_rng_uniform_int(r, 8);
        }
        hk_line *l = hk_line_new(n, f->p, strat, hk_variant_get((hk_variant_id)var));
        int live = 0;
        for (int step = 0; step < 12; step++) {
            int64_t now = t + S(step * 17);
            int who = (int)gsl_rng_uniform_int(r, n);
            hk_dash_record(&f->d[who], now, (hk_ev)gsl_rng_uniform_int(r, HK_EV_N), now - 5000,
                           (int)gsl_rng_uniform_int(r, 2), -1);
            live = 0;
            for (int i = 0; i < n; i++)
                live |= !hk_dash_dead(&f->d[i]);
            int pick = hk_line_choose(l, now, f->r);
            assert_in_range(pick, 0, n - 1);
            if (strat == HK_STRAT_NODEADS && live)
                assert_false(hk_dash_dead(&f->d[pick]));
            double p[MAXM], ref[MAXM], sum = 0;
            hk_line_probs(l, now, p);
            reference_probs(l, now, ref);
            for (int i = 0; i < n; i++)
                assert_near(p[i], ref[i], 1e-9);
            for (int i = 0; i < n; i++) {
                assert_true(p[i] >= 0.0 && isfinite(p[i]));
                sum += p[i];
                if (strat == HK_STRAT_NODEADS && live && hk_dash_dead(&f->d[i]))
                    assert_true(p[i] == 0.0);
            }
            assert_near(sum, 1.0, 1e-9);
        }
        hk_line_free(l);
        fx_free(f);
    }
    gsl_rng_free(r);
}

/* A line of up to HK_STREE_FLAT mirrors picks from its tree's flat running sums: the same mirror
 * the walk down the tree gives for the same draw, whatever the classes and weights (zero
 * included). */
static void small_line_picks_as_the_tree(void **st)
{
    (void)st;
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 11);
    int compared = 0;
    for (int iter = 0; iter < 400; iter++) {
        int n = 2 + (int)gsl_rng_uniform_int(r, HK_STREE_FLAT - 1);
        int strat = gsl_rng_uniform_int(r, 2) ? HK_STRAT_NOERRORS : HK_STRAT_NODEADS;
        int var = (int)gsl_rng_uniform_int(r, HK_VAR_N);
        fx *f = fx_new(n, 1 + (int64_t)gsl_rng_uniform_int(r, 60));
        int64_t t = S(1000);
        for (int i = 0; i < n; i++) {
            int k = (int)gsl_rng_uniform_int(r, 30);
            for (int j = 0; j < k; j++)
                feed(&f->d[i], t - (int64_t)gsl_rng_uniform_int(r, 30000000), 1,
                     1 + (int64_t)gsl_rng_uniform_int(r, 200000),
                     gsl_rng_uniform_int(r, 4) ? HK_EV_SUCCESS : (hk_ev)gsl_rng_uniform_int(r, HK_EV_N));
            f->d[i].errors_a_row = (int64_t)gsl_rng_uniform_int(r, 6);
        }
        hk_line *l = hk_line_new(n, f->p, strat, hk_variant_get((hk_variant_id)var));
        for (int step = 0; step < 50; step++) {
            gsl_rng *twin = gsl_rng_clone(f->r);
            int pick = hk_line_choose(l, t + step * 1000, f->r);
            int want = hk_stree_walk(&l->tree, gsl_rng_uniform(twin));
            gsl_rng_free(twin);
            if (want >= 0) { /* -1: no candidate, plain random instead (its own draw) */
                assert_int_equal(pick, want);
                compared++;
            }
        }
        hk_line_free(l);
        fx_free(f);
    }
    assert_true(compared > 10000);
    gsl_rng_free(r);
}

static void frequency_matches_probs(void **st)
{
    (void)st;
    fx *f = fx_new(4, 60);
    hk_line *l = hk_line_new(4, f->p, HK_STRAT_NODEADS, hk_variant_get(HK_VAR_MANTICORE_FIXED));
    int64_t lat[4] = {10000, 5000, 30000, 3000};
    for (int i = 0; i < 4; i++)
        feed(&f->d[i], S(35), 20, lat[i], HK_EV_SUCCESS);
    hk_line_choose(l, S(40), f->r);
    int c[4];
    counts(l, S(41), 100000, f->r, c);
    double want[4] = {0.15, 0.30, 0.05, 0.50};
    for (int i = 0; i < 4; i++)
        assert_near(c[i] / 100000.0, want[i], 0.006);
    hk_line_free(l);
    fx_free(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(names_prefix_matched),
        cmocka_unit_test(roundrobin_order),
        cmocka_unit_test(random_is_uniform),
        cmocka_unit_test(nodeads_classes),
        cmocka_unit_test(nodeads_fourth_failure_and_revival),
        cmocka_unit_test(noerrors_ratio_threshold),
        cmocka_unit_test(noerrors_warnings_break_ties),
        cmocka_unit_test(noerrors_skips_no_success),
        cmocka_unit_test(half_period_recompute),
        cmocka_unit_test(manticore_default_ignores_latency),
        cmocka_unit_test(manticore_timeouts_only_mirror_takes_all),
        cmocka_unit_test(documented_once_per_period),
        cmocka_unit_test(sphinx2_weights_in_action),
        cmocka_unit_test(properties),
        cmocka_unit_test(outstanding_strategies),
        cmocka_unit_test(peak_ewma_fast_errors),
        cmocka_unit_test(frequency_matches_probs),
        cmocka_unit_test(small_line_picks_as_the_tree),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
