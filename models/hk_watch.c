/* hk_watch: a running master's status windows, their reconstructed weights and findings (see
 * hk_watch.h). */
#include "hk_watch.h"

#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hk_dash.h"
#include "hk_find.h"
#include "hk_grow.h"
#include "hk_strat.h"

static const struct {
    const char *name;
    int severe;
} kinds[HK_W_N] = {
    [HK_W_FAILING] = {"failing", 1}, [HK_W_DEAD] = {"dead", 1},
    [HK_W_STALL] = {"stall", 1},     [HK_W_STUCK] = {"stuck", 1},
    [HK_W_SLOW] = {"slow", 0},       [HK_W_STARVED] = {"starved", 1},
    [HK_W_LOCKED] = {"locked", 1},   [HK_W_TAKEOVER] = {"takeover", 1},
    [HK_W_FLOOD] = {"flood", 1},     [HK_W_HERDING] = {"herding", 0}};

#define HOST_KINDS ((1u << HK_W_FAILING) | (1u << HK_W_DEAD) | (1u << HK_W_STALL) | \
                    (1u << HK_W_STUCK))
#define FAULT_KINDS ((1u << HK_W_DEAD) | (1u << HK_W_STALL) | (1u << HK_W_STUCK))

const char *hk_wkind_name(int k) { return k >= 0 && k < HK_W_N ? kinds[k].name : NULL; }
int hk_wkind_severe(int k) { return k >= 0 && k < HK_W_N && kinds[k].severe; }

int hk_wkind_find(const char *name)
{
    for (int k = 0; k < HK_W_N; k++)
        if (!strcmp(name, kinds[k].name))
            return k;
    return -1;
}

/* ---- setup --------------------------------------------------------------- */

hk_watch *hk_watch_new(int n)
{
    hk_watch *w = calloc(1, sizeof *w);
    if (!w || n < 1 || n > HK_WATCH_MASTERS_MAX || !(w->m = calloc((size_t)n, sizeof *w->m))) {
        free(w);
        return NULL;
    }
    w->nmasters = n;
    return w;
}

static void master_free(hk_wmaster *m)
{
    for (int i = 0; i < m->nlines; i++) {
        free(m->lines[i].m);
        free(m->lines[i].w);
        free(m->lines[i].timer);
    }
    free(m->lines);
    free(m->hosts);
    memset(m, 0, sizeof *m);
}

static int line_init(hk_wline *L, const hk_line_conf *lc, const hk_variant *var, int t, int l)
{
    int n = lc->a.n;
    *L = (hk_wline){.table = t, .line = l, .n = n, .strategy = lc->strategy,
                    .m = calloc((size_t)n, sizeof *L->m), .w = calloc((size_t)n, sizeof *L->w),
                    .timer = calloc((size_t)n, sizeof *L->timer)};
    if (!L->m || !L->w || !L->timer)
        return -1;
    for (int i = 0; i < n; i++)
        L->m[i] = (hk_wmirror){.host = lc->host[i], .mean_ms = -1, .share = -1, .prob = 1.0 / n,
                               .alive = 1, .pre_share = -1};
    var->init(L->w, n);
    return 0;
}

int hk_watch_master(hk_watch *w, int mi, const char *name, const hk_cluster *cl,
                    const hk_variant *var, double period_s, hk_err *e)
{
    hk_wmaster *m = &w->m[mi];
    master_free(m);
    snprintf(m->name, sizeof m->name, "%s", name);
    m->cl = cl;
    m->var = var;
    m->period_s = period_s > 0 ? period_s : 1;
    int n = 0;
    for (int t = 0; t < cl->ntables; t++)
        n += cl->tables[t].nlines;
    m->lines = calloc((size_t)(n ? n : 1), sizeof *m->lines);
    m->hosts = calloc((size_t)(cl->nhosts ? cl->nhosts : 1), sizeof *m->hosts);
    if (!m->lines || !m->hosts) {
        master_free(m);
        return hk_err_set(e, name, 0, 0, "out of memory");
    }
    for (int t = 0; t < cl->ntables; t++)
        for (int l = 0; l < cl->tables[t].nlines; l++)
            if (line_init(&m->lines[m->nlines++], &cl->tables[t].lines[l], var, t, l) < 0) {
                master_free(m);
                return hk_err_set(e, name, 0, 0, "out of memory");
            }
    return 0;
}

void hk_watch_free(hk_watch *w)
{
    if (!w)
        return;
    for (int i = 0; i < w->nmasters; i++)
        master_free(&w->m[i]);
    free(w->m);
    free(w);
}

void hk_wevents_free(hk_wevents *ev)
{
    free(ev->e);
    memset(ev, 0, sizeof *ev);
}

/* ---- events --------------------------------------------------------------- */

typedef struct wx {              /* one feed */
    hk_watch *w;
    int mi;
    hk_wmaster *m;
    double t, span;
    double others;               /* the median over the hosts of rate / usual rate (1: none) */
    hk_wevents *ev;
    int oom;
} wx;

static const char *host_name(const wx *x, int h) { return x->m->cl->hosts[h].name; }

static void HK_PRINTF(6, 7) emit(wx *x, const hk_wline *L, int i, hk_wkind k, int raised,
                                 const char *fmt, ...)
{
    hk_wevents *ev = x->ev;
    if (HK_GROW(ev->e, ev->cap, ev->n + 1) < 0) {
        x->oom = 1;
        return;
    }
    hk_wevent *e = &ev->e[ev->n++];
    *e = (hk_wevent){.t_s = x->t, .raised = raised, .kind = k,
                     .master = k == HK_W_HERDING ? -1 : x->mi, .table = L->table,
                     .line = L->line, .mirror = i};
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->evidence, sizeof e->evidence, fmt, ap);
    va_end(ap);
}

/* ---- a host's window --------------------------------------------------------- */

static int cmp_double(const void *a, const void *b)
{
    double p = *(const double *)a, q = *(const double *)b;
    return (p > q) - (p < q);
}

static double median(const double *v, int n)
{
    double s[HK_WATCH_HIST];
    if (n <= 0)
        return -1;
    memcpy(s, v, (size_t)n * sizeof *s);
    qsort(s, (size_t)n, sizeof *s, cmp_double);
    return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

static double attempts(const hk_whost *H) { return H->cell.ok + H->cell.failed + H->hidden; }

/* 2.2.11 counts the connect of an ERROR reply and no outcome: the window's connects beyond
 * its outcomes, less those still in flight at the snapshot (its rate times its mean) and one
 * more (a search connected in the window before whose outcome fell in this one). */
static int hidden_errors(const hk_sthost *s, const hk_inc_cell *c, hk_layout layout)
{
    if (layout != HK_LAYOUT_SPHINX2 || !s->have_connect1 || c->state == HK_INC_DEAD ||
        c->qtimeout > 0)
        return 0;
    double printed = 0;
    for (int k = 0; k < HK_EV_N; k++)
        printed += s->c1[k];
    double flight = c->span_s > 0 && c->mean_ms > 0 ? printed / c->span_s * c->mean_ms / 1e3 : 0;
    double h = floor(s->connect1 - printed - flight - 1);
    return h > 0 ? (int)h : 0;
}

/* P(X >= k) for X ~ Binomial(n, p). */
static double beyond(double k, double p, double n)
{
    if (k < 1)
        return 1;
    return gsl_cdf_binomial_Q((unsigned)(k - 1), p, (unsigned)n);
}

static int failing_test(double bad, double n)
{
    return n >= HK_FAILING_MIN && bad >= HK_FAILING_MIN / 2 && bad >= HK_FAILING_RATE * n &&
           beyond(bad, HK_FAILING_NOISE, n) < HK_FAILING_ALPHA;
}

/* The fault kind a dead window shows: the failure it holds most of. */
static hk_wkind dead_kind(const hk_inc_cell *c)
{
    if (c->qtimeout >= c->ctimeout && c->qtimeout >= c->refused + c->other)
        return HK_W_STUCK;
    return c->ctimeout >= c->refused + c->other ? HK_W_STALL : HK_W_DEAD;
}

/* The host's findings after this window (FAILING, DEAD, STALL, STUCK bits), from was. */
static unsigned host_judge(const wx *x, hk_whost *H, unsigned was)
{
    double *bad2 = &H->bad2, *n2 = &H->n2;
    const hk_inc_cell *c = &H->cell;
    double a = attempts(H), usual = median(H->rate, H->nrate), umean = median(H->mean, H->nmean);
    double rate = x->span > 0 ? a / x->span : 0, okrate = x->span > 0 ? c->ok / x->span : 0;
    if (!H->present || a < 1)
        return was;              /* no attempt: no evidence either way */
    unsigned now = was & ~(1u << HK_W_FAILING);
    int faulted = (was & FAULT_KINDS) != 0;  /* a fault goes on: its kind was told at its start */
    /* stuck: its attempts collapsed while the others' did not, and it holds searches - timed
     * out, or connected with no outcome yet (their timeouts come a query timeout later) */
    int collapsed = usual > 0 && rate < HK_INCIDENT_COLLAPSE * usual &&
                    x->others >= 3 * rate / usual;
    int held = c->qtimeout >= 1 || H->hidden >= 1;
    /* back: at a third of its usual rate, or the searches it held answered (a mean 10x its
     * own), or a window without a timeout or a held search whose answers come at their usual
     * speed (the strategy may still be steering away from it) */
    int clean = c->ok >= 1 && c->qtimeout < 1 && H->hidden < 1 && umean > 0 && c->mean_ms > 0 &&
                c->mean_ms < HK_INCIDENT_SLOW * umean;
    int back = usual <= 0 || okrate >= HK_INCIDENT_COLLAPSE * usual || clean ||
               (c->ok >= 1 && umean > 0 && c->mean_ms >= HK_INCIDENT_HELD * umean);
    if (c->state == HK_INC_DEAD)
        now = faulted ? now : (now | 1u << dead_kind(c));
    else if (collapsed && held)
        now = faulted ? now : (now | 1u << HK_W_STUCK);
    else if ((was & (1u << HK_W_STUCK)) && back)
        now &= ~(1u << HK_W_STUCK); /* it answers again, or the searches it held come back */
    if ((now & ((1u << HK_W_DEAD) | (1u << HK_W_STALL))) && c->state != HK_INC_DEAD && c->ok >= 1)
        now &= ~((1u << HK_W_DEAD) | (1u << HK_W_STALL));
    /* A held search's connect is counted before its timeout: unaccounted connects are ERROR
     * replies only once a second window shows them without a query timeout */
    double seen = c->failed + (H->hidden_prev > 0 ? H->hidden : 0), bad = c->failed + H->hidden;
    int was_on = (was & (1u << HK_W_FAILING)) != 0;
    /* raised on one window, or two when one holds too few; on until a window shows it over */
    int on = failing_test(seen, a) || (!was_on && failing_test(seen + *bad2, a + *n2)) ||
             (was_on && bad >= HK_FAILING_RATE * a);
    if (!(now & FAULT_KINDS) && !faulted && on)  /* an outage's last window is the outage's */
        now |= 1u << HK_W_FAILING;
    *bad2 = faulted ? 0 : seen;
    *n2 = a;
    H->hidden_prev = H->hidden;
    if (!(now & FAULT_KINDS) && c->state == HK_INC_OK && bad < 1) {
        H->rate[H->irate] = rate;
        H->irate = (H->irate + 1) % HK_WATCH_HIST;
        H->nrate += H->nrate < HK_WATCH_HIST;
        if (c->mean_ms > 0) {
            H->mean[H->imean] = c->mean_ms;
            H->imean = (H->imean + 1) % HK_WATCH_HIST;
            H->nmean += H->nmean < HK_WATCH_HIST;
        }
    }
    return now;
}

/* ---- words ------------------------------------------------------------------ */

static void fault_words(const hk_whost *H, hk_wkind k, char *b, size_t n)
{
    const hk_inc_cell *c = &H->cell;
    if (k == HK_W_STUCK)
        snprintf(b, n, "%.0f query timeouts and %.0f answers in the last window while it answers "
                 "pings (errors in a row %.0f): its searches hang", c->qtimeout, c->ok,
                 c->errorsarow);
    else if (k == HK_W_STALL)
        snprintf(b, n, "%.0f connect timeouts, %.0f answers in the last window, %.0f errors in a "
                 "row: connects hang", c->ctimeout, c->ok, c->errorsarow);
    else if (k == HK_W_DEAD)
        snprintf(b, n, "%.0f refused connects and %.0f other failures, %.0f answers in the last "
                 "window, %.0f errors in a row", c->refused, c->other, c->ok, c->errorsarow);
    else
        snprintf(b, n, "%.0f of %.0f attempts failed in the last windows (%.0f ERROR replies, "
                 "%.0f timeouts, %.0f refused, %.0f other)", c->failed + H->hidden,
                 c->ok + c->failed + H->hidden, (double)H->hidden, c->qtimeout + c->ctimeout,
                 c->refused, c->other);
}

/* ---- a line's window -------------------------------------------------------- */

static double starved_share(int n) { return fmin(HK_STARVED_SHARE, HK_STARVED_OF_FAIR / n); }

static void reweigh(wx *x, hk_wline *L)
{
    const hk_variant *v = x->m->var;
    for (int i = 0; i < L->n; i++) {
        const hk_whost *H = &x->m->hosts[L->m[i].host];
        hk_block b = {.period = 0};
        double ev = 0;
        for (int k = 0; k < HK_EV_N; k++) {
            b.c[k] = (uint64_t)H->by[k];
            ev += H->by[k];
        }
        b.total_us = (uint64_t)(H->msecs * ev * 1e3 + 0.5);
        L->timer[i] = H->present ? hk_strat_timer(v, &b) : 0;
    }
    v->rebalance(L->timer, L->w, L->n);
    double sum = 0;
    for (int i = 0; i < L->n; i++)
        sum += L->w[i] > 0 ? L->w[i] : 0;
    for (int i = 0; i < L->n; i++)
        L->m[i].prob = L->strategy == HK_STRAT_ROUNDROBIN || sum <= 0
                           ? 1.0 / L->n : (L->w[i] > 0 ? L->w[i] : 0) / sum;
}

/* 1 when finding k of mirror M would go from its state to on: only then are words formatted. */
static int changes(const hk_wmirror *M, hk_wkind k, int on)
{
    return !!on != !!(M->active & (1u << k));
}

static void set(wx *x, hk_wline *L, int i, hk_wkind k, int on, const char *words)
{
    hk_wmirror *M = &L->m[i];
    int was = !!(M->active & (1u << k));
    if (on == was)
        return;
    M->active ^= 1u << k;
    const hk_table *T = &x->m->cl->tables[L->table];
    emit(x, L, i, k, on, "%s of %s agent %d (%s): %s", host_name(x, M->host), T->name,
         L->line + 1, x->m->name, words);
}

static void judge_slow(wx *x, hk_wline *L, int i, double A)
{
    hk_wmirror *M = &L->m[i];
    const hk_whost *H = &x->m->hosts[M->host];
    double v[HK_WATCH_HIST];
    int n = 0;
    for (int j = 0; j < L->n && n < HK_WATCH_HIST; j++) {
        const hk_whost *o = &x->m->hosts[L->m[j].host];
        if (j != i && o->present && o->cell.mean_ms > 0 && o->cell.ok >= HK_SLOW_PEER_MIN / 4)
            v[n++] = o->cell.mean_ms;
    }
    double others = median(v, n);
    if (H->cell.ok < HK_WATCH_SLOW_ANSWERS || others <= 0 || H->cell.mean_ms <= 0)
        return;                  /* too few answers to tell: as it was */
    int on = H->cell.mean_ms >= HK_SLOW_FACTOR * others &&
             H->cell.mean_ms >= others + HK_SLOW_MIN_MS && A > 0 && M->share >= HK_SLOW_SHARE;
    if (!changes(M, HK_W_SLOW, on))
        return;
    char b[200];
    if (on)
        snprintf(b, sizeof b, "answers in %.1f ms, %.1fx its line's others (%.1f ms), with "
                 "%.0f%% of the line's attempts", H->cell.mean_ms, H->cell.mean_ms / others,
                 others, 100 * M->share);
    else
        snprintf(b, sizeof b, "answers in %.1f ms again, its line's others in %.1f ms",
                 H->cell.mean_ms, others);
    set(x, L, i, HK_W_SLOW, on, b);
}

static int others_healthy(const hk_wline *L, int i)
{
    for (int j = 0; j < L->n; j++)
        if (j != i && (L->m[j].active & HOST_KINDS))
            return 0;
    return 1;
}

static void judge_share(wx *x, hk_wline *L, int i, double A)
{
    hk_wmirror *M = &L->m[i];
    double a = M->attempts, ss = starved_share(L->n);
    char b[300];
    if (M->active & HOST_KINDS || A < 1) {
        if (M->active & HOST_KINDS) {
            M->starve_from = 0;
            set(x, L, i, HK_W_STARVED, 0, "it has a fault of its own now");
        }
    } else if (M->share < ss) {
        if (M->starve_from <= 0) {
            M->starve_from = x->t - x->span;
            M->starve_mine = M->starve_all = 0;
        }
        M->starve_mine += a;
        M->starve_all += A;
        if (changes(M, HK_W_STARVED, 1) && x->t - M->starve_from >= HK_SPAN_MIN_S &&
            gsl_cdf_binomial_P((unsigned)M->starve_mine, ss, (unsigned)M->starve_all) <
                HK_STARVED_ALPHA) {
            snprintf(b, sizeof b, "gets %.1f%% of its line's attempts (%.0f of %.0f) for %.0f s "
                     "though it is healthy; a fair share is %.0f%%", 100 * M->starve_mine /
                     M->starve_all, M->starve_mine, M->starve_all, x->t - M->starve_from,
                     100.0 / L->n);
            set(x, L, i, HK_W_STARVED, 1, b);
        }
    } else if (A >= 5) {
        M->starve_from = 0;
        if (changes(M, HK_W_STARVED, 0)) {
            snprintf(b, sizeof b, "gets %.1f%% of its line's attempts again", 100 * M->share);
            set(x, L, i, HK_W_STARVED, 0, b);
        }
    }
    int lock = M->prob >= HK_LOCKED_PROB && others_healthy(L, i) && L->n > 1;
    if (lock && M->lock_from <= 0)
        M->lock_from = x->t - x->span;
    if (!lock)
        M->lock_from = 0;
    if (lock ? x->t - M->lock_from < HK_SPAN_MIN_S : !changes(M, HK_W_LOCKED, 0))
        return;                  /* not yet 10 s, or nothing to clear */
    if (!changes(M, HK_W_LOCKED, lock))
        return;
    if (lock)
        snprintf(b, sizeof b, "holds %.0f%% of the probability (reconstructed from its windows) "
                 "for %.0f s while the line's others are healthy", 100 * M->prob,
                 x->t - M->lock_from);
    else
        snprintf(b, sizeof b, "holds %.0f%% of the probability again (reconstructed)",
                 100 * M->prob);
    set(x, L, i, HK_W_LOCKED, lock, b);
}

static void judge_recovery(wx *x, hk_wline *L, int i, double A)
{
    hk_wmirror *M = &L->m[i];
    int take = 0, flood = 0;
    if (M->rec_at > 0 && x->t - M->rec_at <= HK_WATCH_REC_S && M->rec_pre > 0 &&
        A >= HK_FAILING_MIN && !(M->active & HOST_KINDS) &&
        beyond(M->attempts, M->rec_pre, A) < HK_FLOOD_ALPHA) {
        take = M->share >= HK_TAKEOVER_SHARE;
        flood = !take && M->share >= HK_FLOOD_FACTOR * M->rec_pre &&
                M->share >= M->rec_pre + 0.1;
    }
    if (!changes(M, HK_W_TAKEOVER, take) && !changes(M, HK_W_FLOOD, flood))
        return;
    char b[240];
    if (take || flood)
        snprintf(b, sizeof b, "takes %.0f%% of its line's attempts (%.0f of %.0f) %.0f s after "
                 "its fault ended, where it had %.0f%% before it", 100 * M->share, M->attempts,
                 A, x->t - M->rec_at, 100 * M->rec_pre);
    else
        snprintf(b, sizeof b, "its share is back to %.0f%% (%.0f%% before its fault)",
                 100 * (M->share > 0 ? M->share : 0), 100 * M->rec_pre);
    set(x, L, i, HK_W_TAKEOVER, take, b);
    set(x, L, i, HK_W_FLOOD, flood, b);
}

static void line_window(wx *x, hk_wline *L)
{
    double A = 0;
    for (int i = 0; i < L->n; i++)
        A += attempts(&x->m->hosts[L->m[i].host]);
    reweigh(x, L);
    for (int i = 0; i < L->n; i++) {
        hk_wmirror *M = &L->m[i];
        const hk_whost *H = &x->m->hosts[M->host];
        M->attempts = attempts(H);
        M->ok = H->cell.ok;
        M->errors = H->hidden;
        memcpy(M->by, H->by, sizeof M->by);
        M->mean_ms = H->cell.mean_ms;
        M->share = A > 0 ? M->attempts / A : -1;
    }
    for (int i = 0; i < L->n; i++) {
        hk_wmirror *M = &L->m[i];
        const hk_whost *H = &x->m->hosts[M->host];
        unsigned hostbits = H->bits;
        char b[300];
        for (int k = 0; k < HK_W_N; k++) {
            if (!(HOST_KINDS & (1u << k)) || !!(hostbits & (1u << k)) == !!(M->active & (1u << k)))
                continue;
            int on = !!(hostbits & (1u << k));
            if (on)
                fault_words(H, (hk_wkind)k, b, sizeof b);
            else
                snprintf(b, sizeof b, "%.0f answers and %.0f failures in the last window",
                         H->cell.ok, H->cell.failed + H->hidden);
            if (!on && (FAULT_KINDS & (1u << k))) {
                M->rec_at = x->t;
                M->rec_pre = M->pre_share;
            }
            set(x, L, i, (hk_wkind)k, on, b);
        }
        M->alive = !(M->active & FAULT_KINDS);
        judge_slow(x, L, i, A);
        judge_share(x, L, i, A);
        judge_recovery(x, L, i, A);
        int calm = !(M->active & ~(1u << HK_W_SLOW)) &&
                   (M->rec_at <= 0 || x->t - M->rec_at > HK_WATCH_REC_S);
        if (calm && A >= HK_FAILING_MIN && others_healthy(L, i))
            M->pre_share = M->pre_share < 0 ? M->share : 0.8 * M->pre_share + 0.2 * M->share;
    }
}

/* ---- across masters --------------------------------------------------------- */

/* Line li of every master (they share the config: the same lines in the same order). */
static int same_lines(const hk_watch *w, int li)
{
    for (int k = 1; k < w->nmasters; k++)
        if (!w->m[k].lines || w->m[k].nlines <= li || w->m[k].lines[li].n != w->m[0].lines[li].n)
            return 0;
    return w->nmasters > 1 && w->m[0].lines && w->m[0].nlines > li;
}

static void herding(wx *x)
{
    hk_watch *w = x->w;
    for (int li = 0; same_lines(w, li); li++) {
        hk_wline *L0 = &w->m[0].lines[li];
        int n = L0->n;
        for (int i = 0; i < n; i++) {
            double mine = 0, all = 0;
            int most = 0;
            for (int k = 0; k < w->nmasters; k++) {
                const hk_wline *L = &w->m[k].lines[li];
                double A = 0;
                for (int j = 0; j < n; j++)
                    A += L->m[j].attempts;
                mine += L->m[i].attempts;
                all += A;
                most += A > 0 && L->m[i].attempts / A >= HK_HERD_SHARE;
            }
            if (all < HK_FAILING_MIN)
                continue;
            double sh = mine / all;
            int on = most >= 2 && sh >= HK_HERD_SHARE && sh >= 2.0 / n &&
                     beyond(mine, 1.0 / n, all) < HK_FAILING_ALPHA;
            char b[240];
            snprintf(b, sizeof b, on ? "gets %.0f%% of all %d masters' attempts on its line (%.0f "
                     "of %.0f), %d of them sending it most of theirs" : "gets %.0f%% of all %d "
                     "masters' attempts on its line again", 100 * sh, w->nmasters, mine, all,
                     most);
            wx h = *x;
            h.m = &w->m[0];
            set(&h, L0, i, HK_W_HERDING, on, b);
            x->oom |= h.oom;
        }
    }
}

/* ---- a snapshot ---------------------------------------------------------------- */

/* The median over the present hosts of their attempts per second over their usual rate: when
 * every host's falls together it is the master's load, not a mirror. */
static double others_ratio(const wx *x)
{
    double v[HK_WATCH_HIST];
    int n = 0, step = x->m->cl->nhosts / HK_WATCH_HIST + 1;  /* a sample of a large master */
    for (int h = 0; h < x->m->cl->nhosts && n < HK_WATCH_HIST; h += step) {
        const hk_whost *H = &x->m->hosts[h];
        double usual = median(H->rate, H->nrate);
        if (H->present && usual > 0 && x->span > 0)
            v[n++] = attempts(H) / x->span / usual;
    }
    return n ? median(v, n) : 1;
}

int hk_watch_feed(hk_watch *w, int mi, double t_s, const hk_status_file *st, hk_wevents *ev,
                  hk_err *e)
{
    hk_wmaster *m = &w->m[mi];
    if (!m->cl)
        return hk_err_set(e, m->name, 0, 0, "no lines to follow (hk_watch_master first)");
    if (t_s <= m->t_s)
        return hk_err_set(e, m->name, 0, 0, "a snapshot at %.3f, not after the last one (%.3f)",
                          t_s, m->t_s);
    wx x = {.w = w, .mi = mi, .m = m, .t = t_s, .span = hk_incident_span(t_s, m->period_s),
            .ev = ev};
    const hk_cluster *cl = m->cl;
    for (int h = 0; h < cl->nhosts; h++)
        m->hosts[h].present = 0;
    for (int k = 0; k < st->nhosts; k++) {
        int h = hk_cluster_find_host(cl, st->h[k].name);
        if (h < 0 || st->h[k].by_agent)
            continue;
        hk_whost *H = &m->hosts[h];
        H->present = 1;
        hk_incident_cell(&st->h[k], &cl->set, x.span, &H->cell);
        memcpy(H->by, st->h[k].c1, sizeof H->by);
        H->msecs = st->h[k].have_msecs1 ? st->h[k].msecs1 : 0;
        H->hidden = hidden_errors(&st->h[k], &H->cell, st->layout);
    }
    x.others = others_ratio(&x);
    for (int h = 0; h < cl->nhosts; h++) {
        hk_whost *H = &m->hosts[h];
        if (!H->present) {
            memset(&H->cell, 0, sizeof H->cell);
            memset(H->by, 0, sizeof H->by);
            H->hidden = 0;
            H->cell.mean_ms = -1;
        }
        H->bits = host_judge(&x, H, H->bits);
    }
    for (int li = 0; li < m->nlines; li++)
        line_window(&x, &m->lines[li]);
    m->t_s = t_s;
    m->snaps++;
    herding(&x);
    return x.oom ? hk_err_set(e, m->name, 0, 0, "out of memory") : 0;
}

int hk_watch_active(const hk_watch *w, int k)
{
    int n = 0;
    for (int mi = 0; mi < w->nmasters; mi++)
        for (int li = 0; li < w->m[mi].nlines; li++)
            for (int i = 0; i < w->m[mi].lines[li].n; i++) {
                unsigned a = w->m[mi].lines[li].m[i].active;
                for (int j = 0; j < HK_W_N; j++)
                    n += (k < 0 || k == j) && (a & (1u << j));
            }
    return n;
}
