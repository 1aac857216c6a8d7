/* hk_strat: random, roundrobin, nodeads, noerrors (Manticore's StDiscardDead /
 * StLowErrors), the lazy half-period weight recomputation and weighted pick. */
#include "hk_strat.h"

#include <stdlib.h>
#include <string.h>

#define HK_ALLOWED_ERROR_RATIO 0.03f

int64_t hk_strat_timer(const hk_variant *v, const hk_block *b)
{
    uint64_t ev = hk_block_events(b);
    if (!ev)
        return 0;
    if (v->timer_reads_timeouts)
        return (int64_t)(b->c[HK_EV_QUERY_TIMEOUT] / ev);
    if (v->per_period) {
        uint64_t timed = ev - b->pings;
        return timed ? (int64_t)(b->total_us / timed) : 0;
    }
    return (int64_t)(b->total_us / ev);
}

/* ---- weights upkeep -------------------------------------------------- */

static void fill_windows(hk_line *l, int64_t now_us)
{
    for (int i = 0; i < l->n; i++)
        hk_dash_window(l->dash[i], now_us, 1, &l->win[i]);
}

/* Manticore/Sphinx: recompute when more than floor(K/2) s passed since last. */
static void maybe_recalc(hk_line *l, int64_t now_us)
{
    int64_t karma = l->dash[0]->karma_s;
    if (l->var->per_period) {
        int64_t blk = hk_dash_block_of(l->dash[0], now_us);
        if (blk == l->last_block)
            return;
        l->last_block = blk;
        for (int i = 0; i < l->n; i++) {
            hk_block b;
            hk_dash_block(l->dash[i], blk - 1, &b);
            l->timers[i] = hk_strat_timer(l->var, &b);
        }
    } else {
        int64_t secs = now_us >= 0 ? now_us / 1000000 : -((-now_us + 999999) / 1000000);
        if (secs - l->last_recalc_s <= karma / 2)
            return;
        l->last_recalc_s = secs;
        for (int i = 0; i < l->n; i++) {
            hk_block b;
            hk_dash_window(l->dash[i], now_us, 1, &b);
            l->timers[i] = hk_strat_timer(l->var, &b);
        }
    }
    l->var->rebalance(l->timers, l->w, l->n);
    l->recalcs++;
}

/* ---- candidate classes ----------------------------------------------- */

/* nodeads: mirrors with the lowest clamped errors-in-a-row, index order. */
static int cand_nodeads(const hk_line *l, int *cand)
{
    int nc = 0;
    int64_t best = -1;
    for (int i = 0; i < l->n; i++) {
        int64_t e = l->dash[i]->errors_a_row;
        if (e <= HK_DEAD_THRESHOLD)
            e = 0;
        if (best < 0 || e < best) {
            best = e;
            nc = 0;
        }
        if (e == best)
            cand[nc++] = i;
    }
    return nc;
}

/* noerrors: skip mirrors without successes; lowest critical ratio, then lowest
 * all-error ratio; ratios <= 3% count as 0. Returns 0 if none qualifies. */
static int cand_noerrors(const hk_line *l, const hk_block *win, int *cand)
{
    int nc = 0;
    float best_rc = 1.0f, best_ra = 1.0f;
    for (int i = 0; i < l->n; i++) {
        const hk_block *b = &win[i];
        uint64_t n = hk_block_events(b), crit = 0;
        for (int k = 0; k < HK_EV_WARNING; k++)
            crit += b->c[k];
        uint64_t all = crit + b->c[HK_EV_WARNING];
        if (!b->c[HK_EV_SUCCESS])
            continue;
        float rc = (float)crit / (float)n, ra = (float)all / (float)n;
        if (rc <= HK_ALLOWED_ERROR_RATIO)
            rc = 0.0f;
        if (ra <= HK_ALLOWED_ERROR_RATIO)
            ra = 0.0f;
        if (rc < best_rc || (rc == best_rc && ra < best_ra)) {
            best_rc = rc;
            best_ra = ra;
            nc = 0;
        }
        if (rc == best_rc && ra == best_ra)
            cand[nc++] = i;
    }
    return nc;
}

/* Manticore's ChooseWeightedRandAgent: the last candidate is the "best" and is
 * tried first; all-zero weights therefore pick it. */
static int pick_weighted(const hk_line *l, const int *cand, int nc, gsl_rng *r)
{
    int best = cand[nc - 1];
    double bound = l->w[best], limit = bound;
    for (int k = 0; k < nc - 1; k++)
        limit += l->w[cand[k]];
    double chance = gsl_rng_uniform(r) * limit;
    if (chance <= bound)
        return best;
    for (int k = 0; k < nc - 1; k++) {
        bound += l->w[cand[k]];
        if (chance <= bound)
            return cand[k];
    }
    return cand[nc - 2];
}

static void probs_weighted(const hk_line *l, const int *cand, int nc, double *p)
{
    double sum = 0.0;
    memset(p, 0, (size_t)l->n * sizeof *p);
    for (int k = 0; k < nc; k++)
        sum += l->w[cand[k]];
    for (int k = 0; k < nc; k++)
        p[cand[k]] = sum > 0.0 ? l->w[cand[k]] / sum : (k == nc - 1);
}

static void probs_uniform(const hk_line *l, double *p)
{
    for (int i = 0; i < l->n; i++)
        p[i] = 1.0 / l->n;
}

/* ---- the four strategies --------------------------------------------- */

static int ch_random(hk_line *l, int64_t now_us, gsl_rng *r)
{
    (void)now_us;
    return (int)gsl_rng_uniform_int(r, (unsigned long)l->n);
}

static void pr_uniform(hk_line *l, int64_t now_us, double *p)
{
    (void)now_us;
    probs_uniform(l, p);
}

static int ch_roundrobin(hk_line *l, int64_t now_us, gsl_rng *r)
{
    (void)now_us;
    (void)r;
    int i = (int)(l->rr % (uint64_t)l->n);
    l->rr = (uint64_t)(i + 1 >= l->n ? 0 : i + 1);
    return i;
}

static int ch_nodeads(hk_line *l, int64_t now_us, gsl_rng *r)
{
    int nc = cand_nodeads(l, l->cand);
    maybe_recalc(l, now_us);
    return nc == 1 ? l->cand[0] : pick_weighted(l, l->cand, nc, r);
}

static void pr_nodeads(hk_line *l, int64_t now_us, double *p)
{
    (void)now_us;
    probs_weighted(l, l->cand, cand_nodeads(l, l->cand), p);
}

static int ch_noerrors(hk_line *l, int64_t now_us, gsl_rng *r)
{
    fill_windows(l, now_us);
    int nc = cand_noerrors(l, l->win, l->cand);
    maybe_recalc(l, now_us);
    if (nc == 0)
        return ch_random(l, now_us, r);
    return nc == 1 ? l->cand[0] : pick_weighted(l, l->cand, nc, r);
}

static void pr_noerrors(hk_line *l, int64_t now_us, double *p)
{
    fill_windows(l, now_us);
    int nc = cand_noerrors(l, l->win, l->cand);
    if (nc == 0)
        probs_uniform(l, p);
    else
        probs_weighted(l, l->cand, nc, p);
}

static const hk_strat_ops ops[HK_STRAT_N] = {
    {"random", 0, ch_random, pr_uniform},
    {"roundrobin", 0, ch_roundrobin, pr_uniform},
    {"nodeads", 1, ch_nodeads, pr_nodeads},
    {"noerrors", 1, ch_noerrors, pr_noerrors},
};

int hk_strat_find(const char *value)
{
    for (int i = 0; i < HK_STRAT_N; i++)
        if (!strncmp(value, ops[i].name, strlen(ops[i].name)))
            return i;
    return -1;
}

const hk_strat_ops *hk_strat_get(int id) { return &ops[id >= 0 && id < HK_STRAT_N ? id : 0]; }

/* ---- line lifecycle --------------------------------------------------- */

hk_line *hk_line_new(int n, hk_dash **dash, int strat, const hk_variant *var)
{
    if (n < 1)
        return NULL;
    hk_line *l = calloc(1, sizeof *l);
    if (!l)
        return NULL;
    l->n = n;
    l->strat = strat;
    l->var = var;
    l->dash = calloc((size_t)n, sizeof *l->dash);
    l->w = calloc((size_t)n, sizeof *l->w);
    l->timers = calloc((size_t)n, sizeof *l->timers);
    l->cand = calloc((size_t)n, sizeof *l->cand);
    l->win = calloc((size_t)n, sizeof *l->win);
    if (!l->dash || !l->w || !l->timers || !l->cand || !l->win) {
        hk_line_free(l);
        return NULL;
    }
    memcpy(l->dash, dash, (size_t)n * sizeof *dash);
    var->init(l->w, n);
    return l;
}

void hk_line_free(hk_line *l)
{
    if (!l)
        return;
    free(l->dash);
    free(l->w);
    free(l->timers);
    free(l->cand);
    free(l->win);
    free(l);
}

int hk_line_choose(hk_line *l, int64_t now_us, gsl_rng *r)
{
    if (l->n == 1)
        return 0;
    return hk_strat_get(l->strat)->choose(l, now_us, r);
}

void hk_line_probs(hk_line *l, int64_t now_us, double *p)
{
    if (l->n == 1) {
        p[0] = 1.0;
        return;
    }
    hk_strat_get(l->strat)->probs(l, now_us, p);
}
