/* hk_find: convergence, re-admission and findings from a run's timeline. */
#include "hk_find.h"
#include "hk_find_int.h"

#include <gsl/gsl_cdf.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hk_grow.h"
#include "hk_strat.h"

static const hk_cluster *cl(const fx *x) { return hk_find_cl(x); }
static const char *host_name(const fx *x, int h) { return hk_find_host(x, h); }
static double secs(const fx *x, int k) { return hk_find_secs(x, k); }

int hk_find_add(fx *x, const char *kind, int master, int table, int line, int host, double t_s,
                const char *fmt, ...)
{
    hk_findings *o = x->out;
    if (HK_GROW(o->f, o->cap, o->n + 1) < 0)
        return -1;
    hk_finding *f = &o->f[o->n++];
    memset(f, 0, sizeof *f);
    snprintf(f->kind, sizeof f->kind, "%s", kind);
    f->master = master;
    f->table = table;
    f->line = line;
    f->host = host;
    f->t_s = t_s;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(f->detail, sizeof f->detail, fmt, ap);
    va_end(ap);
    return 0;
}

hk_fault_kind hk_find_fault_in_bin(const fx *x, int host, int k)
{
    double v;
    return hk_scn_fault_at(x->in->scn, host, (int64_t)(k + 1) * x->tl->width_us - 1, &v);
}

int hk_find_is_outage(hk_fault_kind k) { return hk_fault_is_outage(k); }

int hk_find_strategy(const fx *x, int table, int line)
{
    if (x->in->strategy) {
        int id = hk_strat_find_any(x->in->strategy);
        if (id >= 0)
            return id;
    }
    return cl(x)->tables[table].lines[line].strategy;
}

uint64_t hk_find_line_q(const fx *x, int first, int k0, int k1)
{
    uint64_t all = 0;
    for (int j = first; j < first + x->tl->ser[first].nmirrors; j++)
        for (int k = k0 < 0 ? 0 : k0; k < k1; k++)
            all += hk_tl_cell_at(x->tl, j, k)->q;
    return all;
}

/* ---- convergence -------------------------------------------------------- */

/* The first bin after every fault of the line's hosts has ended (faults move probabilities:
 * convergence is judged after them). */
static int after_faults(const fx *x, int first)
{
    const hk_tl *t = x->tl;
    const hk_scn *s = x->in->scn;
    int k = 0;
    for (int fi = 0; fi < s->nfaults; fi++)
        for (int j = first; j < first + t->ser[first].nmirrors; j++) {
            const hk_fault *f = &s->faults[fi];
            if (f->host != t->ser[j].host)
                continue;
            int64_t end = f->for_us < 0 ? x->in->duration_us : f->at_us + f->for_us;
            int kb = (int)((end + t->width_us - 1) / t->width_us);
            k = kb > k ? kb : k;
        }
    return k;
}

/* Convergence: every probability within HK_CONV_EPS of its final value (the mean of the last
 * tenth of the run) from t_s on; never, when the stable tail is shorter than that tenth. The
 * final window starts after the last fault of the line's hosts. amplitude: the largest swing
 * over the last quarter; swings: how many times a probability crossed its final value there
 * (oscillation needs several, a late recovery is one). */
static void converge(const fx *x, int first, hk_conv *c)
{
    const hk_tl *t = x->tl;
    int n = t->ser[first].nmirrors, P = x->end_bin, quiet = after_faults(x, first);
    int Q = P / 4 > 1 ? P / 4 : 1, F = P / 10 > 2 ? P / 10 : 2;
    memset(c, 0, sizeof *c);
    c->first = first;
    c->single = n == 1;
    c->converged = 1;
    if (c->single || P - quiet < F)
        return;
    if (P - Q < quiet)
        Q = P - quiet;
    int latest = 0, moved = 0;
    for (int j = first; j < first + n; j++) {
        double mean = 0, lo = INFINITY, hi = -INFINITY, p0 = hk_tl_smp_at(t, j, 0)->prob;
        int m = 0, side = 0, swings = 0;
        for (int k = 0; k < P; k++) {
            double p = hk_tl_smp_at(t, j, k)->prob;
            moved |= fabs(p - p0) > 1e-9;
            if (k >= P - F && !isnan(p)) {
                mean += p;
                m++;
            }
        }
        if (!m)
            continue;
        mean /= m;
        for (int k = P - Q; k < P; k++) {
            double p = hk_tl_smp_at(t, j, k)->prob;
            if (isnan(p))
                continue;
            lo = fmin(lo, p);
            hi = fmax(hi, p);
            int now = p > mean + HK_CONV_EPS ? 1 : p < mean - HK_CONV_EPS ? -1 : 0;
            swings += now && side && now != side;
            side = now ? now : side;
        }
        c->amplitude = fmax(c->amplitude, hi - lo);
        c->swings = swings > c->swings ? swings : c->swings;
        int k = P;
        while (k > 0 && fabs(hk_tl_smp_at(t, j, k - 1)->prob - mean) <= HK_CONV_EPS)
            k--;
        latest = k > latest ? k : latest;
    }
    c->is_static = !moved;
    c->converged = latest <= P - F;
    c->t_s = secs(x, latest);
}

/* ---- re-admission ------------------------------------------------------- */

static double window_share(const fx *x, int first, int s, int k_end)
{
    return hk_tl_share(x->tl, first, s, k_end - x->win + 1, k_end + 1);
}

/* Bin k is quiet for the line starting at series first: no fault of any of its hosts is in
 * force there, nor ended within `settle` bins before it (the strategy re-weighting after it),
 * and, when `warm`, past the run's first karma period (the first weights are computed at its
 * end). */
static int quiet_bin(const fx *x, int first, int k, int settle, int warm)
{
    const hk_scn *sc = x->in->scn;
    int64_t w = x->tl->width_us, lo = (int64_t)k * w, hi = lo + w;
    if (warm && (double)lo < (double)hk_karma_us(&cl(x)->set))
        return 0;
    for (int i = 0; i < sc->nfaults; i++) {
        const hk_fault *f = &sc->faults[i];
        int on_line = 0;
        for (int j = first; j < first + x->tl->ser[first].nmirrors && !on_line; j++)
            on_line = x->tl->ser[j].host == f->host;
        if (!on_line || f->at_us >= hi)
            continue;
        if (f->for_us < 0 || f->at_us + f->for_us + settle * w > lo)
            return 0;
    }
    return 1;
}

/* Series s's share over the quiet bins of the minute before bin k_at (its healthy baseline,
 * never a share taken during another fault or its recovery), warm ones (past the first karma
 * period) if there are a window of them, else from the run's start; NaN with neither. */
static double baseline(const fx *x, int first, int s, int k_at)
{
    int settle = (int)ceil(2.0 * (double)cl(x)->set.karma_s / x->bin_s);
    for (int warm = 1; warm >= 0; warm--) {
        uint64_t mine = 0, all = 0;
        int n = 0;
        for (int k = k_at - (int)(60.0 / x->bin_s); k < k_at; k++) {
            if (k < 0 || !quiet_bin(x, first, k, settle, warm))
                continue;
            n++;
            mine += hk_tl_cell_at(x->tl, s, k)->q;
            all += hk_find_line_q(x, first, k, k + 1);
        }
        if (n >= x->win && all)
            return (double)mine / (double)all;
    }
    return NAN;
}

/* The first bin at or after k at which a fault of the line (series first ..) starts. */
static int next_fault_bin(const fx *x, int first, int k)
{
    const hk_scn *sc = x->in->scn;
    int best = x->end_bin;
    for (int i = 0; i < sc->nfaults; i++) {
        const hk_fault *f = &sc->faults[i];
        int kf = (int)(f->at_us / x->tl->width_us);
        for (int j = first; j < first + x->tl->ser[first].nmirrors; j++)
            if (x->tl->ser[j].host == f->host && kf >= k && kf < best)
                best = kf;
    }
    return best;
}

static void readmit(const fx *x, int fi, int s, int first, hk_readmit *r)
{
    const hk_fault *f = &x->in->scn->faults[fi];
    const hk_tl *t = x->tl;
    double w = (double)t->width_us;
    int k_at = (int)((double)f->at_us / w), k_end = (int)ceil((double)(f->at_us + f->for_us) / w);
    memset(r, 0, sizeof *r);
    r->fault = fi;
    r->series = s;
    r->pre = baseline(x, first, s, k_at);
    r->first_s = r->back_s = r->peak_s = -1;
    if (f->for_us < 0)
        return;
    const hk_tl_series *se = &t->ser[s];
    int64_t fa = x->in->first_after ? x->in->first_after[fi * x->in->nmasters + se->master] : -2;
    if (fa >= 0)
        r->first_s = (double)(fa - f->at_us - f->for_us) / 1e6;
    int k_next = next_fault_bin(x, first, k_end); /* the fault's own window ends there */
    for (int k = k_end; k < x->end_bin; k++) {
        if (fa == -2 && r->first_s < 0 && hk_tl_cell_at(t, s, k)->q)
            r->first_s = fmax(0.0, secs(x, k) - (double)(f->at_us + f->for_us) / 1e6);
        double sh = window_share(x, first, s, k);
        if (isnan(sh) || k - k_end + 1 < x->win)
            continue;
        double after = secs(x, k + 1) - (double)(f->at_us + f->for_us) / 1e6;
        if (r->back_s < 0 && !isnan(r->pre) && sh >= (1 - HK_BACK_TOL) * r->pre)
            r->back_s = after;
        if (sh > r->peak && after <= 120 && k < k_next) {
            r->peak = sh;
            r->peak_s = after;
            r->peak_all = hk_find_line_q(x, first, k - x->win + 1, k + 1);
            r->peak_q = 0;
            for (int j = k - x->win + 1; j <= k; j++)
                r->peak_q += hk_tl_cell_at(t, s, j)->q;
        }
    }
}

/* ---- findings ----------------------------------------------------------- */

/* The bin from which series s stays starved to the end: after the last HK_WINDOW_S window in
 * which it had its HK_STARVED_SHARE, and after the end of any fault of its host in that span
 * (a mirror with a fault is rightly left alone); -1 if it is not starved at the end. */
/* The share under which a mirror of a line of n is starved: HK_STARVED_SHARE, and never above a
 * tenth of its fair share (120 mirrors of roundrobin get 0.83% each: fair, not starved). */
static double starved_share(int n) { return fmin(HK_STARVED_SHARE, HK_STARVED_OF_FAIR / n); }

static int starved_from(const fx *x, int first, int s)
{
    const hk_tl *t = x->tl;
    int n = t->ser[first].nmirrors, k = x->end_bin - 1;
    for (; k >= x->win - 1; k--) {
        double sh = window_share(x, first, s, k);
        uint64_t all = 0;
        for (int j = first; j < first + n; j++)
            for (int b = k - x->win + 1; b <= k; b++)
                all += hk_tl_cell_at(t, j, b)->q;
        if (all >= 5 && sh >= starved_share(n))
            break;
    }
    int from = k < x->win - 1 ? 0 : k + 1;
    if (from >= x->end_bin)
        return -1;
    const hk_scn *sc = x->in->scn;
    for (int fi = 0; fi < sc->nfaults; fi++) {
        const hk_fault *f = &sc->faults[fi];
        int64_t end = f->for_us < 0 ? x->in->duration_us : f->at_us + f->for_us;
        int kend = (int)((end + t->width_us - 1) / t->width_us);
        if (f->host == t->ser[s].host && kend > from && f->at_us < (int64_t)x->end_bin * t->width_us)
            from = kend;
    }
    return from < x->end_bin ? from : -1;
}

static double span_min_bins(const fx *x)
{
    double need = fmax(HK_SPAN_MIN_S, 0.1 * (double)x->in->duration_us / 1e6);
    return ceil(need / x->bin_s);
}

static const char *why_starved(const fx *x, int s)
{
    const hk_tl_series *se = &x->tl->ser[s];
    int strat = hk_find_strategy(x, se->table, se->line);
    if (hk_strat_get(strat)->extension)
        return "the extension's own scores keep choosing the line's other mirrors";
    if (strat == HK_STRAT_ROUNDROBIN)
        return "roundrobin passes it over (counted dead or skipped), where its turn would give "
               "it a fair share";
    if (strat == HK_STRAT_RANDOM)
        return "random picks by weight, and its weight share fell to nothing";
    const hk_tl_smp *c = hk_tl_smp_at(x->tl, s, x->end_bin - 1);
    if (c->wshare <= 0.001f)
        return x->in->var->timer_reads_timeouts
            ? "its weight is 0: Manticore's weight timer reads the query_timeouts counter, so "
              "a mirror whose window held only timeouts took all the weight"
            : "its weight was recomputed to 0: no timed query in the karma window (pings "
              "count as events, not as time), so it never gets one back";
    return strat == HK_STRAT_NODEADS
        ? "its weight is not 0, but nodeads counts it dead"
        : "its weight is not 0, but noerrors' window shows it no success or more errors than "
          "the best mirror's";
}

static int find_starved(fx *x, int first)
{
    const hk_tl *t = x->tl;
    int n = t->ser[first].nmirrors;
    for (int s = first; n > 1 && s < first + n; s++) {
        const hk_tl_series *se = &t->ser[s];
        int k = starved_from(x, first, s);
        if (k < 0 || x->end_bin - k < span_min_bins(x) ||
            hk_find_fault_in_bin(x, se->host, x->end_bin - 1) || hk_find_unhealthy(x, first, s) ||
            (hk_strat_get(hk_find_strategy(x, se->table, se->line))->extension &&
             hk_find_lags(x, first, s)))
            continue;
        double sh = hk_tl_share(t, first, s, k, x->end_bin);
        uint64_t mine = 0, all = hk_find_line_q(x, first, k, x->end_bin);
        for (int b = k; b < x->end_bin; b++)
            mine += hk_tl_cell_at(t, s, b)->q;
        if (all == 0 || gsl_cdf_binomial_P((unsigned)mine, starved_share(n), (unsigned)all) >=
                        HK_STARVED_ALPHA)
            continue; /* so few of so few attempts: sampling noise, not starvation */
        int after_fault = 0;
        for (int fi = 0; fi < x->in->scn->nfaults; fi++) {
            const hk_fault *f = &x->in->scn->faults[fi];
            after_fault |= f->host == se->host && f->for_us >= 0 &&
                           (f->at_us + f->for_us + t->width_us - 1) / t->width_us == k;
        }
        if (hk_find_add(x, "starved", se->master, se->table, se->line, se->host, secs(x, k),
                "%s gets %.1f%% of agent %d's queries from %.0f s to the end (a fair share is "
                "%.0f%%) though it is %s: %s", host_name(x, se->host), 100 * sh, se->line + 1,
                secs(x, k), 100.0 / n, after_fault ? "back from its fault" : "healthy",
                why_starved(x, s)) < 0)
            return -1;
    }
    return 0;
}

static int find_locked(fx *x, int first)
{
    const hk_tl *t = x->tl;
    int n = t->ser[first].nmirrors;
    for (int s = first; n > 1 && s < first + n; s++) {
        int k = x->end_bin;
        while (k > 0 && hk_tl_smp_at(t, s, k - 1)->prob >= HK_LOCKED_PROB)
            k--;
        int healthy = 1;
        for (int j = first; j < first + n; j++)
            healthy &= j == s || !hk_find_fault_in_bin(x, t->ser[j].host, x->end_bin - 1);
        if (!healthy || x->end_bin - k < span_min_bins(x) || k == 0)
            continue;
        const hk_tl_series *se = &t->ser[s];
        if (hk_find_add(x, "locked", se->master, se->table, se->line, se->host, secs(x, k), "%s holds "
                "%.0f%% of agent %d's probability from %.0f s to the end while the other %d "
                "mirror(s) are healthy%s", host_name(x, se->host),
                100 * hk_tl_smp_at(t, s, x->end_bin - 1)->prob, se->line + 1, secs(x, k), n - 1,
                x->in->var->timer_reads_timeouts ? ": Manticore's weight timer reads "
                "query_timeouts, so after a stall the stalled mirror's weight stays 100% until "
                "another mirror times out" : "") < 0)
            return -1;
    }
    return 0;
}

static int find_failing(fx *x, int fi, int first, int s)
{
    const hk_fault *f = &x->in->scn->faults[fi];
    const hk_tl *t = x->tl;
    if (!hk_find_is_outage(f->kind))
        return 0;
    double w = (double)t->width_us;
    int k0 = (int)ceil(((double)f->at_us + HK_FAILING_GRACE_S * 1e6) / w);
    int k1 = f->for_us < 0 ? x->end_bin : (int)((double)(f->at_us + f->for_us) / w);
    if (k1 > x->end_bin)
        k1 = x->end_bin;
    if (k1 <= k0)
        return 0;
    double sh = hk_tl_share(t, first, s, k0, k1);
    uint64_t errs = 0;
    for (int k = k0; k < k1; k++)
        errs += hk_tl_cell_at(t, s, k)->err;
    if (isnan(sh) || sh < HK_FAILING_SHARE || errs < 10)
        return 0;
    const hk_tl_series *se = &t->ser[s];
    return hk_find_add(x, "failing_share", se->master, se->table, se->line, se->host, secs(x, k0),
               "%s (%s from %.0f s) still gets %.1f%% of agent %d's queries during its fault: "
               "%llu attempts failed there", host_name(x, se->host), hk_fault_name(f->kind),
               (double)f->at_us / 1e6, 100 * sh, se->line + 1, (unsigned long long)errs);
}

static int find_flood(fx *x, const hk_readmit *r)
{
    if (isnan(r->pre) || r->peak < HK_FLOOD_FACTOR * r->pre || r->peak < r->pre + 0.1 ||
        r->pre <= 0 || r->pre >= 1 || !r->peak_q)
        return 0;
    /* beyond chance: as many in one window at the baseline share, over the 24 windows of the
     * two minutes judged, has probability under HK_FLOOD_ALPHA */
    double p = gsl_cdf_binomial_Q((unsigned)(r->peak_q - 1), r->pre, (unsigned)r->peak_all);
    if (p * (120.0 / HK_WINDOW_S) >= HK_FLOOD_ALPHA)
        return 0;
    const hk_fault *f = &x->in->scn->faults[r->fault];
    const hk_tl_series *se = &x->tl->ser[r->series];
    if (r->peak >= HK_TAKEOVER_SHARE && se->nmirrors > 1)
        return hk_find_add(x, "takeover", se->master, se->table, se->line, se->host,
                           (double)(f->at_us + f->for_us) / 1e6 + r->peak_s, "%s takes %.0f%% of "
                           "agent %d's queries %.1f s after its %s ended (%.0f%% before the "
                           "fault): the line's other %d mirror(s) get next to nothing",
                           host_name(x, se->host), 100 * r->peak, se->line + 1, r->peak_s,
                           hk_fault_name(f->kind), 100 * r->pre, se->nmirrors - 1);
    return hk_find_add(x, "flood", se->master, se->table, se->line, se->host,
               (double)(f->at_us + f->for_us) / 1e6 + r->peak_s, "%s gets %.0f%% of agent %d's "
               "queries %.1f s after its fault ended (%.0f%% before the fault)",
               host_name(x, se->host), 100 * r->peak, se->line + 1, r->peak_s, 100 * r->pre);
}

/* Several masters on one line (series are master-major: master m's copy of the line starting
 * at s0 is at s0 + m x series per master): a mirror taking >= HK_HERD_SHARE of everyone's
 * attempts while at least two masters each send it most of theirs. */
static int find_herding(fx *x, int s0)
{
    const hk_tl *t = x->tl;
    int firsts[1024], nm = x->in->nmasters < 1024 ? x->in->nmasters : 1024;
    int per = t->nser / x->in->nmasters, table = t->ser[s0].table, line = t->ser[s0].line;
    for (int m = 0; m < nm; m++)
        firsts[m] = s0 + m * per;
    int n = t->ser[s0].nmirrors;
    double need = fmax(HK_HERD_SHARE, 2.0 / n);
    for (int k = x->win - 1; n >= 3 && k < x->end_bin; k++)
        for (int m = 0; m < n; m++) {
            uint64_t mine = 0, all = 0;
            int masters = 0;
            for (int i = 0; i < nm; i++) {
                double sh = window_share(x, firsts[i], firsts[i] + m, k);
                masters += !isnan(sh) && sh >= 0.5;
                for (int j = 0; j < n; j++)
                    for (int b = k - x->win + 1; b <= k; b++) {
                        uint32_t q = hk_tl_cell_at(t, firsts[i] + j, b)->q;
                        all += q;
                        mine += j == m ? q : 0;
                    }
            }
            if (all < 20 || (double)mine < need * (double)all || masters < 2)
                continue;
            const hk_tl_series *se = &t->ser[firsts[0] + m];
            return hk_find_add(x, "herding", -1, table, line, se->host, secs(x, k - x->win + 1), "%d of "
                       "%d masters pile onto %s at once: it gets %.0f%% of agent %d's queries "
                       "from all masters around %.0f s (a fair share is %.0f%%)", masters, nm,
                       host_name(x, se->host), 100.0 * (double)mine / (double)all, line + 1,
                       secs(x, k - x->win + 1), 100.0 / n);
        }
    return 0;
}

static int find_overload(fx *x)
{
    for (int h = 0; x->in->util && h < cl(x)->nhosts; h++) {
        double u = x->in->util[h];
        int clients = x->in->scn->wl.clients;
        if (isnan(u) || u < (clients > 0 ? HK_SATURATED_UTIL : HK_OVERLOAD_UTIL) ||
            x->in->scn->host_behave[h] < 0)
            continue;
        const hk_behave *b = &x->in->scn->behave[x->in->scn->host_behave[h]];
        if (clients > 0) { /* a closed loop: no queue grows past its clients */
            if (hk_find_add(x, "saturated", -1, -1, -1, h, 0.75 * (double)x->in->duration_us / 1e6,
                    "%s is busy %.2f of the time over the last quarter for %d worker(s): the "
                    "closed loop's %d clients keep it saturated, so its queue holds at most %d "
                    "and throughput is capped, not a queue that grows without bound",
                    host_name(x, h), u, b->threads, clients, clients) < 0)
                return -1;
            continue;
        }
        if (hk_find_add(x, "overload", -1, -1, -1, h, 0.75 * (double)x->in->duration_us / 1e6,
                "%s is offered %.0f ms of work per second for %d worker(s): utilisation %.2f "
                "over the last quarter of the run, so its queue grows without bound",
                host_name(x, h), x->in->work_ms ? x->in->work_ms[h] : NAN, b->threads, u) < 0)
            return -1;
    }
    return 0;
}

static int find_outside(fx *x)
{
    const hk_scn *s = x->in->scn;
    for (int i = 0; i < s->nfaults; i++)
        if (s->faults[i].at_us >= x->in->duration_us &&
            hk_find_add(x, "fault_outside_run", -1, -1, -1, s->faults[i].host,
                (double)s->faults[i].at_us / 1e6, "the %s fault of %s at %.0f s never happens: "
                "the run lasts %.0f s", hk_fault_name(s->faults[i].kind),
                host_name(x, s->faults[i].host), (double)s->faults[i].at_us / 1e6,
                (double)x->in->duration_us / 1e6) < 0)
            return -1;
    return 0;
}

static int find_ports(fx *x)
{
    const hk_scn *s = x->in->scn;
    for (int i = 0; i < x->in->nports; i++) {
        const hk_port_fact *p = &x->in->ports[i];
        if (hk_find_add(x, "port_exhaustion", p->master, -1, -1, p->host, p->t_s,
                "connects to %s at %.0f/s: port exhaustion from %.1f s: %d ephemeral ports over "
                "a %d s TIME_WAIT, of which the master holds %.0f%% (the side that closes first "
                "holds it), allow about %.0f new connections a second to one address; %" PRIu64
                " connects found no port (connect() failed, EADDRNOTAVAIL). Persistent agents "
                "(agent_persistent) keep their connections instead", host_name(x, p->host),
                p->rate, p->t_s, s->ports, s->time_wait_s, 100 * s->time_wait_share, p->allowed,
                p->refused) < 0)
            return -1;
    }
    return 0;
}

/* ---- driver ------------------------------------------------------------- */

/* A table none of whose lines got an attempt in the run: said once (its first line), and
 * nothing else is judged on it (a share of nothing is no share). */
static int idle_line(fx *x, int first)
{
    const hk_tl_series *se = &x->tl->ser[first];
    if (hk_find_line_q(x, first, 0, x->end_bin))
        return 0;
    if (se->line == 0 && hk_find_add(x, "idle", se->master, se->table, -1, -1, 0.0, "table %s "
                                     "received no query in the run: nothing is judged on it",
                                     cl(x)->tables[se->table].name) < 0)
        return -1;
    return 1;
}

/* A line whose picks follow weights that can settle: searchd's nodeads and noerrors. Random
 * and roundrobin keep fixed odds, and the extensions pick per query by load or latency: their
 * probability of the moment swings by design, with no weight to settle. */
static int weighted(const fx *x, int first)
{
    const hk_tl_series *se = &x->tl->ser[first];
    int strat = hk_find_strategy(x, se->table, se->line);
    return strat == HK_STRAT_NODEADS || strat == HK_STRAT_NOERRORS;
}

static int per_line(fx *x, int first)
{
    hk_findings *o = x->out;
    hk_conv *c = &o->conv[o->nconv++];
    converge(x, first, c);
    const hk_tl_series *se = &x->tl->ser[first];
    int idle = idle_line(x, first);
    if (idle)
        return idle < 0 ? -1 : 0;
    if (hk_find_failing(x, first) < 0 || hk_find_slow(x, first) < 0)
        return -1;
    if (weighted(x, first) && !c->converged && c->amplitude >= HK_OSC_AMPLITUDE &&
        c->swings >= HK_OSC_SWINGS && hk_find_add(x, "oscillation", se->master, se->table, se->line, -1, 0.75 * secs(x, x->end_bin),
            "agent %d's probabilities never settle: they swing by %.2f, %d times, over the "
            "last quarter of the run", se->line + 1, c->amplitude, c->swings) < 0)
        return -1;
    if (find_starved(x, first) < 0 || find_locked(x, first) < 0)
        return -1;
    const hk_scn *s = x->in->scn;
    for (int fi = 0; fi < s->nfaults; fi++)
        for (int j = first; j < first + se->nmirrors; j++) {
            if (x->tl->ser[j].host != s->faults[fi].host || s->faults[fi].at_us >= x->in->duration_us)
                continue;
            hk_readmit *r = &o->re[o->nre++];
            readmit(x, fi, j, first, r);
            if (find_failing(x, fi, first, j) < 0 || find_flood(x, r) < 0)
                return -1;
        }
    return 0;
}

/* A finding of one master, by what it is about: findings of several masters about the same
 * thing sort together, in the order they were found. */
typedef struct fkey {
    const hk_finding *f;
    int i;
} fkey;

/* What a finding is about: mirror, line, table, kind (0 = the same). */
static int about_cmp(const hk_finding *f, const hk_finding *g)
{
    if (f->host != g->host)
        return f->host < g->host ? -1 : 1;
    if (f->line != g->line)
        return f->line < g->line ? -1 : 1;
    if (f->table != g->table)
        return f->table < g->table ? -1 : 1;
    return strcmp(f->kind, g->kind);
}

static int fkey_cmp(const void *pa, const void *pb)
{
    const fkey *a = pa, *b = pb;
    int c = about_cmp(a->f, b->f);
    if (c)
        return c;
    if (a->f->master != b->f->master)
        return a->f->master < b->f->master ? -1 : 1;
    return (a->i > b->i) - (a->i < b->i);
}

/* Fold the findings of two or more masters about the same thing into the first one found: it
 * keeps the earliest start, and same[its index] says how many masters it stands for. A thing
 * only one master saw (however often) stays that master's. Sorting makes it n log n (a large
 * cluster has thousands of findings); -1 out of memory. */
static int fold_same(hk_findings *o, int *same)
{
    fkey *k = malloc(((size_t)o->n + 1) * sizeof *k);
    if (!k)
        return -1;
    int m = 0;
    for (int i = 0; i < o->n; i++)
        if (o->f[i].master >= 0)
            k[m++] = (fkey){.f = &o->f[i], .i = i};
    qsort(k, (size_t)m, sizeof *k, fkey_cmp);
    for (int a = 0, b; a < m; a = b) {
        int masters = 1, lead = k[a].i;
        for (b = a + 1; b < m && about_cmp(k[b].f, k[a].f) == 0; b++) {
            masters += k[b].f->master != k[b - 1].f->master;
            lead = k[b].i < lead ? k[b].i : lead;
        }
        if (masters < 2)
            continue;
        hk_finding *f = &o->f[lead];
        for (int j = a; j < b; j++) {
            hk_finding *g = &o->f[k[j].i];
            f->t_s = g->t_s < f->t_s ? g->t_s : f->t_s;
            if (g != f)
                g->master = -2; /* folded into f */
        }
        same[lead] = masters;
    }
    free(k);
    return 0;
}

/* The same finding (kind, line, mirror) from several masters: one line that says how many. */
static int merge_masters(fx *x)
{
    hk_findings *o = x->out;
    int *same_of = calloc((size_t)o->n + 1, sizeof *same_of);
    if (!same_of || fold_same(o, same_of) < 0) {
        free(same_of);
        return -1;
    }
    int n = 0;
    for (int i = 0; i < o->n; i++) {
        hk_finding *f = &o->f[i];
        if (f->master == -2)
            continue;
        if (same_of[i] > 1) {
            char d[sizeof f->detail];
            snprintf(d, sizeof d, "%d of %d masters: %.*s", same_of[i], x->in->nmasters,
                     (int)sizeof d - 32, f->detail);
            memcpy(f->detail, d, sizeof d);
            f->master = -1;
        }
        o->f[n++] = *f;
    }
    o->n = n;
    free(same_of);
    return 0;
}

static void caveat(hk_findings *o, const char *text)
{
    if (o->ncav < HK_CAVEATS)
        snprintf(o->cav[o->ncav++], sizeof o->cav[0], "%s", text);
}

/* What makes the run's figures less than they look: a replay that lagged its schedule, a run
 * shorter than the karma period (weights never recomputed from a whole window). */
static void caveats(const hk_find_in *in, hk_findings *o)
{
    char b[400];
    if (in->lag_p99_us > HK_LAG_WARN_US) {
        snprintf(b, sizeof b, "the replay lagged its schedule: p99 %.2f ms behind (the bound is "
                 "%.0f ms), so the mirrors saw the trace later and smoother than it was; shares "
                 "and latencies are of that load", in->lag_p99_us / 1000, HK_LAG_WARN_US / 1000);
        caveat(o, b);
    }
    double k = (double)in->scn->cl->set.karma_s, d = (double)in->duration_us / 1e6;
    if (k > d) {
        snprintf(b, sizeof b, "the run (%.3g s) is shorter than one ha_period_karma (%.0f s): "
                 "the weights were never recomputed from a whole period, so a strategy that "
                 "weighs latency has not shown what it does", d, k);
        caveat(o, b);
    }
}

int hk_find_run(const hk_find_in *in, hk_findings *out)
{
    memset(out, 0, sizeof *out);
    const hk_tl *t = in->tl;
    fx x = {.in = in, .tl = t, .out = out, .bin_s = (double)t->width_us / 1e6, .win = 1,
            .end_bin = 0};
    x.win = (int)ceil(HK_WINDOW_S / x.bin_s);
    x.end_bin = (int)((in->duration_us + t->width_us - 1) / t->width_us);
    if (x.end_bin > t->nbins)
        x.end_bin = t->nbins;
    int nlines = 0;
    for (int s = 0; s < t->nser; s++)
        nlines += t->ser[s].mirror == 0;
    out->conv = calloc((size_t)nlines + 1, sizeof *out->conv);
    out->re = calloc((size_t)t->nser * (size_t)(in->scn->nfaults + 1) + 1, sizeof *out->re);
    if (!out->conv || !out->re)
        return -1;
    for (int s = 0; s < t->nser; s++)
        if (t->ser[s].mirror == 0 && per_line(&x, s) < 0)
            return -1;
    for (int s = 0; in->nmasters > 1 && s < t->nser / in->nmasters; s += t->ser[s].nmirrors)
        if (find_herding(&x, s) < 0)
            return -1;
    if (find_overload(&x) < 0 || find_outside(&x) < 0 || find_ports(&x) < 0)
        return -1;
    caveats(in, out);
    return merge_masters(&x);
}

void hk_findings_free(hk_findings *f)
{
    free(f->conv);
    free(f->re);
    free(f->f);
    memset(f, 0, sizeof *f);
}

/* Every finding kind, the facts first: its name, what it means, whether it is severe (a
 * sweep never recommends a point that raises one over a point that does not). */
static const struct kind_def {
    const char *name, *help, *rule;
    int severe;
} kind_defs[] = {
    {.name = "failing", .severe = 1,
     .help = "a mirror fails (or warns on) 5% or more of its attempts outside its outages",
     .rule = ">= 5% of >= 20 ended attempts fail or warn outside declared outages, beyond a 1% "
             "noise rate at P < 1e-6 (binomial); or so in a stretch of 10 s windows, at P < 1e-6 "
             "over every window judged"},
    {.name = "slow", .severe = 0,
     .help = "a mirror answers in 2x its line's others while carrying traffic",
     .rule = "mean >= 2x and 1 ms above the median of the line's others over >= 50 answers, "
             ">= 5% of the line, and the line's p99 >= 20% lower without it (for mirrors alike "
             "with a lognormal sigma up to 1, P < 1e-6)"},
    {.name = "idle", .severe = 0, .help = "a table that received no query",
     .rule = "not one query in the run"},
    {.name = "starved", .severe = 1,
     .help = "a mirror without a fault gets (almost) no queries to the end",
     .rule = "under min(1%, a tenth of the fair share 1/N) of its line for >= 10 s and 10% of "
             "the run, to the end, with P < 1e-6 (binomial) of so few at that share"},
    {.name = "locked", .severe = 1,
     .help = "one mirror holds ~all the probability while the others are healthy",
     .rule = ">= 95% of the probability to the end while the others are healthy (a weight, not "
             "a draw: no sampling noise)"},
    {.name = "failing_share", .severe = 1,
     .help = "a down, stalled or stuck mirror keeps receiving queries during its fault",
     .rule = ">= 5% of the line and >= 10 failed attempts from 2 s into a declared down, stall "
             "or stuck fault (declared: no false alarm)"},
    {.name = "flood", .severe = 1,
     .help = "a recovered mirror gets far more than its pre-fault share",
     .rule = "a 5 s share in the fault's own window >= 1.5x its healthy baseline and 10 points "
             "above, with P < 1e-6 (binomial, over 24 windows) at the baseline share"},
    {.name = "takeover", .severe = 1,
     .help = "a recovered mirror takes (almost) all of its line's queries",
     .rule = "as flood, with a 5 s share >= 90%"},
    {.name = "herding", .severe = 0, .help = "several masters pile onto one mirror at once",
     .rule = ">= 50% (and >= 2/N) of all masters' attempts on one mirror while two or more "
             "masters each send it most of theirs"},
    {.name = "overload", .severe = 1,
     .help = "a mirror's utilisation is >= 1 in an open loop: its queue grows without bound",
     .rule = "busy >= 0.98 of the last quarter in an open loop (a mean over thousands of "
             "service times: its noise is well under 0.02)"},
    {.name = "saturated", .severe = 0,
     .help = "a mirror is busy all the time under a closed loop: throughput capped, its queue "
             "bounded by the clients",
     .rule = "busy >= 0.9 of the last quarter under a closed loop"},
    {.name = "oscillation", .severe = 0, .help = "probabilities never settle",
     .rule = "a nodeads or noerrors line's probabilities never within 0.02 of their final "
             "values, swinging >= 0.1 three times in the last quarter (weights, not draws)"},
    {.name = "fault_outside_run", .severe = 0,
     .help = "a fault that never happens within the run",
     .rule = "a declared fault that starts after the run's end"},
    {.name = "port_exhaustion", .severe = 1,
     .help = "a master's connects to one address outrun its ephemeral ports",
     .rule = "one master's connects to one address within TIME_WAIT (60 s) exceed its ports "
             "(28,232) over the share of TIME_WAITs it holds (0.23, measured on 2.2.11): "
             "counted connects, not a sample: no false alarm beyond that share's"}};

const char *hk_find_kind(int i)
{
    return i >= 0 && i < (int)(sizeof kind_defs / sizeof kind_defs[0]) ? kind_defs[i].name : NULL;
}

static const struct kind_def *kind_def(const char *kind)
{
    for (size_t i = 0; i < sizeof kind_defs / sizeof kind_defs[0]; i++)
        if (!strcmp(kind, kind_defs[i].name))
            return &kind_defs[i];
    return NULL;
}

const char *hk_find_kind_help(const char *kind)
{
    const struct kind_def *d = kind_def(kind);
    return d ? d->help : "";
}

const char *hk_find_kind_rule(const char *kind)
{
    const struct kind_def *d = kind_def(kind);
    return d ? d->rule : "";
}

int hk_find_kind_severe(const char *kind)
{
    const struct kind_def *d = kind_def(kind);
    return d ? d->severe : -1;
}
