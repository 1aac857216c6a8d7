/* hk_strat: random, roundrobin, nodeads, noerrors (Manticore's StDiscardDead /
 * StLowErrors), the lazy half-period weight recomputation and the weighted
 * pick. The two health strategies keep each mirror's class key in a segment
 * tree (hk_stree) that is updated only for mirrors whose dashboard changed
 * (dashboards notify their subscribers) and rebuilt when the window slides,
 * so a pick costs O(log n), not O(n) (a few compares for a short line: the
 * tree keeps its best class flat). */
#include "hk_strat.h"
#include "hk_strat_ext.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define HK_ALLOWED_ERROR_RATIO 0.03f

/* A line's subscription to one mirror's dashboard. It keeps what a notice needs to be judged
 * (is the mirror already marked, is it in the best class), so most notices read this node only,
 * not the line or its tree. */
typedef struct hk_line_sub {
    hk_dash_sub base;            /* first: the dashboard's list links this */
    hk_line *l;
    int i;
    int strat;
    char dirty;                  /* on the line's dirty list */
    char best;                   /* its class key is 0 (set with the tree's leaf) */
} hk_line_sub;

static hk_line_sub *sub_of(const hk_line *l, int i) { return &((hk_line_sub *)l->subs)[i]; }

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

static int64_t secs_of(int64_t us) { return us >= 0 ? us / 1000000 : -((-us + 999999) / 1000000); }

/* ---- class keys -------------------------------------------------------- */

/* nodeads: errors in a row, <= 3 counting as 0. */
static uint64_t key_nodeads(const hk_dash *d)
{
    int64_t e = d->errors_a_row;
    return e <= HK_DEAD_THRESHOLD ? 0 : (uint64_t)e;
}

/* A float >= 0 (infinity included) as a number that sorts as the float does. */
static uint64_t fkey(float f)
{
    uint32_t b;
    memcpy(&b, &f, sizeof b);
    return b;
}

/* noerrors: no success in the window = not a candidate; else (critical ratio,
 * all-error ratio), compared in that order, with ratios <= 3% as 0, computed in
 * float as searchd does. */
static uint64_t key_noerrors(const hk_dash *d, int64_t now)
{
    uint64_t c[HK_EV_N];
    hk_dash_window_counts(d, now, c);
    if (!c[HK_EV_SUCCESS])
        return HK_STREE_NONE;
    uint64_t crit = 0;
    for (int k = 0; k < HK_EV_WARNING; k++)
        crit += c[k];
    uint64_t n = crit + c[HK_EV_WARNING] + c[HK_EV_SUCCESS];
    float rc = (float)crit / (float)n, ra = (float)(crit + c[HK_EV_WARNING]) / (float)n;
    return fkey(rc <= HK_ALLOWED_ERROR_RATIO ? 0.0f : rc) << 32 |
           fkey(ra <= HK_ALLOWED_ERROR_RATIO ? 0.0f : ra);
}

/* Whether the blocks the window covers changed (they change at block starts and half-blocks);
 * the current window's time range is kept, so most calls cost a comparison. */
static int window_moved(hk_line *l, int64_t now)
{
    if (now >= l->wid_lo_us && now < l->wid_hi_us)
        return 0;
    int64_t k = l->dash[0]->karma_s, s = secs_of(now);
    int64_t blk = hk_dash_block_of(l->dash[0], now);
    int half = s - blk * k >= k / 2;
    l->wid_lo_us = (blk * k + (half ? k / 2 : 0)) * 1000000;
    l->wid_hi_us = (half ? (blk + 1) * k : blk * k + k / 2) * 1000000;
    int64_t wid = blk * 2 + half;
    int moved = wid != l->wid;
    l->wid = wid;
    return moved;
}

/* Whether a change can move mirror i's class: nodeads reads only the errors in a row; for
 * noerrors one more success cannot move a mirror out of the best ratios (both at most 3%). */
static int class_may_move(const hk_line_sub *s, unsigned what)
{
    if (s->strat == HK_STRAT_NODEADS)
        return (what & HK_DASH_CH_ROW) != 0;
    return (what & HK_DASH_CH_COUNTS) || !s->best;
}

/* The mirror's class is (not) the best; the dashboard learns whether a lone success may move it
 * (class_may_move for HK_DASH_CH_SUCCESS alone). */
static void set_best(hk_line_sub *s, int best)
{
    s->best = (char)best;
    hk_dash_sub_wants(&s->base, class_may_move(s, HK_DASH_CH_SUCCESS));
}

static int set_leaf(hk_line *l, int i, int64_t now)
{
    uint64_t key = l->strat == HK_STRAT_NODEADS ? key_nodeads(l->dash[i])
                                                 : key_noerrors(l->dash[i], now);
    set_best(sub_of(l, i), key == 0);
    return hk_stree_leaf(&l->tree, i, key, l->w[i]);
}

/* Bring the class tree up to date at time now. */
static void refresh(hk_line *l, int64_t now)
{
    int moved = l->strat == HK_STRAT_NOERRORS && window_moved(l, now);
    if (!l->tree_ok || moved) {
        for (int i = 0; i < l->n; i++) {
            set_leaf(l, i, now);
            sub_of(l, i)->dirty = 0;
        }
        hk_stree_build(&l->tree);
        l->ndirty = 0;
        l->tree_ok = 1;
        return;
    }
    for (int k = 0; k < l->ndirty; k++) {
        int i = l->dirty[k];
        sub_of(l, i)->dirty = 0;
        if (set_leaf(l, i, now)) /* an answer that changes nothing (a success) costs no walk */
            hk_stree_fix(&l->tree, i);
    }
    l->ndirty = 0;
}

static void on_dash_change(hk_dash_sub *s, unsigned what)
{
    hk_line_sub *ls = (hk_line_sub *)s;
    if (!ls->dirty && class_may_move(ls, what)) {
        ls->dirty = 1;
        ls->l->dirty[ls->l->ndirty++] = ls->i;
    }
}

/* ---- weights upkeep -------------------------------------------------- */

/* Manticore/Sphinx: recompute when more than floor(K/2) s passed since the
 * last time; the documented variant once per karma block, from the last block. */
static void maybe_recalc(hk_line *l, int64_t now_us)
{
    if (now_us >= l->calm_lo_us && now_us < l->calm_hi_us)
        return; /* the usual case: a comparison, no division */
    int64_t karma = l->dash[0]->karma_s;
    if (l->var->per_period) {
        int64_t blk = hk_dash_block_of(l->dash[0], now_us);
        l->calm_lo_us = blk * karma * 1000000; /* the rest of this block */
        l->calm_hi_us = l->calm_lo_us + karma * 1000000;
        if (blk == l->last_block)
            return;
        l->last_block = blk;
        for (int i = 0; i < l->n; i++) {
            hk_block b;
            hk_dash_block(l->dash[i], blk - 1, &b);
            l->timers[i] = hk_strat_timer(l->var, &b);
        }
    } else {
        int64_t secs = secs_of(now_us);
        int due = secs - l->last_recalc_s > karma / 2;
        if (due)
            l->last_recalc_s = secs;
        l->calm_lo_us = INT64_MIN; /* until secs - last_recalc_s > karma / 2 */
        l->calm_hi_us = (l->last_recalc_s + karma / 2 + 1) * 1000000;
        if (!due)
            return;
        for (int i = 0; i < l->n; i++) {
            hk_block b;
            hk_dash_window(l->dash[i], now_us, 1, &b);
            l->timers[i] = hk_strat_timer(l->var, &b);
        }
    }
    l->var->rebalance(l->timers, l->w, l->n);
    l->recalcs++;
    l->tree_ok = 0; /* weights changed: rebuild on the next refresh */
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
    for (int i = 0; i < l->n; i++)
        p[i] = 1.0 / l->n;
}

static int ch_roundrobin(hk_line *l, int64_t now_us, gsl_rng *r)
{
    (void)now_us;
    (void)r;
    int i = (int)(l->rr % (uint64_t)l->n);
    l->rr = (uint64_t)(i + 1 >= l->n ? 0 : i + 1);
    return i;
}

/* nodeads and noerrors: best class, weighted random inside it; noerrors with
 * no candidate at all falls back to plain random. */
static int ch_health(hk_line *l, int64_t now_us, gsl_rng *r)
{
    maybe_recalc(l, now_us); /* reads the dashboards only; then one refresh brings the tree up */
    refresh(l, now_us);
    int i = hk_stree_pick(&l->tree, gsl_rng_uniform(r));
    return i >= 0 ? i : ch_random(l, now_us, r);
}

static void pr_health(hk_line *l, int64_t now_us, double *p)
{
    refresh(l, now_us);
    const hk_stree_node *root = hk_stree_root(&l->tree);
    if (root->last < 0) {
        pr_uniform(l, now_us, p);
        return;
    }
    for (int i = 0; i < l->n; i++) {
        const hk_stree_node *x = &l->tree.t[l->tree.size + i];
        int in = x->key == root->key;
        p[i] = !in ? 0.0 : root->wsum > 0 ? l->w[i] / root->wsum : (i == root->last);
    }
}

static const hk_strat_ops ops[HK_STRAT_N] = {
    {.name = "random", .choose = ch_random, .probs = pr_uniform},
    {.name = "roundrobin", .choose = ch_roundrobin, .probs = pr_uniform},
    {.name = "nodeads", .adaptive = 1, .choose = ch_health, .probs = pr_health},
    {.name = "noerrors", .adaptive = 1, .choose = ch_health, .probs = pr_health},
    {.name = "p2c", .extension = 1, .choose = hk_ext_choose, .probs = hk_ext_probs},
    {.name = "least-outstanding", .extension = 1, .choose = hk_ext_choose, .probs = hk_ext_probs},
    {.name = "peak-ewma", .extension = 1, .choose = hk_ext_choose, .probs = hk_ext_probs},
    {.name = "c3", .extension = 1, .choose = hk_ext_choose, .probs = hk_ext_probs},
};

int hk_strat_find(const char *value)
{
    for (int i = 0; i < HK_STRAT_SEARCHD_N; i++)
        if (!strncmp(value, ops[i].name, strlen(ops[i].name)))
            return i;
    return -1;
}

int hk_strat_find_any(const char *value)
{
    for (int i = 0; i < HK_STRAT_N; i++)
        if (!strcmp(value, ops[i].name))
            return i;
    return -1;
}

const char *hk_strat_name_at(int i) { return i >= 0 && i < HK_STRAT_N ? ops[i].name : NULL; }

const hk_strat_ops *hk_strat_get(int id) { return &ops[id >= 0 && id < HK_STRAT_N ? id : 0]; }

const char *hk_strat_names(void) { return "random, roundrobin, nodeads or noerrors"; }

const char *hk_strat_all_names(void)
{
    return "random, roundrobin, nodeads, noerrors, or a hakarma extension: p2c, "
           "least-outstanding, peak-ewma or c3";
}

/* ---- line lifecycle --------------------------------------------------- */

/* The next piece of a line's single allocation (8-byte aligned). */
static void *carve(char **p, size_t bytes)
{
    void *r = *p;
    *p += (bytes + 7) & ~(size_t)7;
    return r;
}

/* One allocation holds the line and its per-mirror arrays, the ones an attempt reads first:
 * a line's state stays together, so an attempt on a large cluster touches few cache lines. */
hk_line *hk_line_new(int n, hk_dash **dash, int strat, const hk_variant *var)
{
    if (n < 1 || n > HK_LINE_MAX_MIRRORS)
        return NULL;
    size_t k = (size_t)n, per = 2 * sizeof(int) + sizeof(hk_dash *) + sizeof(double) +
                                sizeof(int64_t) + sizeof(double) + sizeof(hk_line_sub);
    char *p = calloc(1, sizeof(hk_line) + hk_stree_bytes(n) + k * per + 9 * 8);
    if (!p)
        return NULL;
    hk_line *l = carve(&p, sizeof *l);
    hk_stree_init_in(&l->tree, n, carve(&p, hk_stree_bytes(n)));
    l->outstanding = carve(&p, k * sizeof *l->outstanding);
    l->dirty = carve(&p, k * sizeof *l->dirty);
    l->dash = carve(&p, k * sizeof *l->dash);
    l->w = carve(&p, k * sizeof *l->w);
    l->timers = carve(&p, k * sizeof *l->timers);
    l->scratch = carve(&p, k * sizeof *l->scratch);
    l->subs = carve(&p, k * sizeof(hk_line_sub));
    l->n = n;
    l->strat = strat;
    l->var = var;
    if (hk_strat_get(strat)->extension && hk_ext_init(l) < 0) {
        hk_line_free(l);
        return NULL;
    }
    memcpy(l->dash, dash, k * sizeof *dash);
    var->init(l->w, n);
    if (hk_strat_get(strat)->adaptive)
        for (int i = 0; i < n; i++) {
            hk_line_sub *s = sub_of(l, i);
            s->base.fn = on_dash_change;
            s->l = l;
            s->i = i;
            s->strat = strat;
            set_best(s, 0); /* no class yet: it hears of successes until it is the best */
            hk_dash_subscribe(dash[i], &s->base);
        }
    return l;
}

void hk_line_born(hk_line *l, int64_t now_us)
{
    l->last_recalc_s = secs_of(now_us);
    l->calm_lo_us = l->calm_hi_us = 0; /* the next pick looks again */
}

void hk_line_free(hk_line *l)
{
    if (!l)
        return;
    for (int i = 0; i < l->n; i++)
        hk_dash_unsubscribe(&sub_of(l, i)->base);
    free(l->ext);
    free(l); /* the tree and the per-mirror arrays with it */
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

/* Only the extensions read what is in flight: for searchd's strategies an attempt touches no
 * count (on a large cluster, a cache line less at each end of every attempt). */
void hk_line_begin(hk_line *l, int i, int64_t now_us)
{
    (void)now_us;
    if (l->ext)
        l->outstanding[i]++;
}

void hk_line_end(hk_line *l, int i, int64_t now_us, int ok, int64_t latency_us)
{
    if (!l->ext)
        return;
    l->outstanding[i]--;
    hk_ext_end(l, i, now_us, ok, latency_us);
}
