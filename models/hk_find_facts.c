/* hk_find_facts: the plain facts of each mirror, judged before how the strategy
 * moved — a mirror failing its attempts (by kind), a mirror slow against its
 * line's others while it carries traffic (and what that does to the line's
 * tail), and what the strategy did about it, in the running strategy's words. */
#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hk_find_int.h"
#include "hk_hist.h"
#include "hk_strat.h"

/* "ERROR replies 11898, query timeouts 3" — the failing kinds of a series, largest first. */
static void kinds_words(const uint64_t *k, char *buf, size_t n)
{
    int used[HK_EV_ALL] = {0};
    size_t o = 0;
    buf[0] = '\0';
    for (int round = 0; round < HK_EV_ALL && o < n; round++) {
        int best = -1;
        for (int e = 0; e < HK_EV_ALL; e++)
            if (e != HK_EV_SUCCESS && !used[e] && k[e] && (best < 0 || k[e] > k[best]))
                best = e;
        if (best < 0)
            break;
        used[best] = 1;
        o += (size_t)snprintf(buf + o, n - o, "%s%llu %s", o ? ", " : "",
                              (unsigned long long)k[best], hk_ev_words(best));
    }
}

/* What the line's strategy does with a mirror whose failures are of kind `main` (the
 * largest), given the share it kept against a fair one. */
static const char *failing_response(int strat, int main_kind, double sh, int n)
{
    const hk_strat_ops *op = hk_strat_get(strat);
    if (sh >= 0.8 / n) {
        if (main_kind == HK_EV_REMOTE_ERROR && !op->extension)
            return "searchd's karma records nothing for an ERROR reply, so no ha_strategy can "
                   "steer away from it";
        if (strat == HK_STRAT_RANDOM || strat == HK_STRAT_ROUNDROBIN)
            return "this strategy does not look at failures";
        if (strat == HK_STRAT_NODEADS)
            return "nodeads marks a mirror dead only after more than 3 failures in a row, and "
                   "its next success (a ping) revives it";
        return "the strategy kept sending it its share";
    }
    return sh < HK_STARVED_SHARE ? "the strategy stopped sending it queries"
                                 : "the strategy moved most of its share to the others";
}

/* What series s's attempts did outside its host's declared outages, over the run proper. */
typedef struct badness {
    uint64_t ended, bad, q, all; /* attempts ended, failed or warned; routed, the line's routed */
    int k0, k1;                  /* first and last bin with a bad one (-1 none) */
} badness;

static void bad_of(const fx *x, int first, int s, badness *b)
{
    const hk_tl *t = x->tl;
    memset(b, 0, sizeof *b);
    b->k0 = b->k1 = -1;
    for (int k = 0; k < x->end_bin; k++) {
        if (hk_find_is_outage(hk_find_fault_in_bin(x, t->ser[s].host, k)))
            continue;
        const hk_tl_cell *c = hk_tl_cell_at(t, s, k);
        uint64_t n = (uint64_t)c->err + c->warn;
        b->ended += (uint64_t)c->ok + c->err;
        b->bad += n;
        b->q += c->q;
        b->all += hk_find_line_q(x, first, k, k + 1);
        if (n) {
            b->k0 = b->k0 < 0 ? k : b->k0;
            b->k1 = k;
        }
    }
}

static int rate_bad(const badness *b)
{
    return b->bad && (double)b->bad >= HK_FAILING_RATE * (double)b->ended;
}

/* Bin k of host lies in a declared outage of it or within its attempts' longest life after
 * one (connect and query timeout: an attempt sent into a stall ends, timed out, after it). */
static int outage_near(const fx *x, int host, int k)
{
    const hk_scn *sc = x->in->scn;
    const hk_settings *set = &hk_find_cl(x)->set;
    int64_t w = x->tl->width_us, lo = (int64_t)k * w, hi = lo + w;
    int64_t tail = set->connect_timeout_us + set->query_timeout_us;
    for (int i = 0; i < sc->nfaults; i++) {
        const hk_fault *f = &sc->faults[i];
        int64_t end = f->for_us < 0 ? INT64_MAX / 2 : f->at_us + f->for_us;
        if (f->host == host && hk_find_is_outage(f->kind) && f->at_us < hi && end + tail > lo)
            return 1;
    }
    return 0;
}

/* Series s's ended and bad attempts over bins [k0, k1), its host's declared outages (and the
 * timeouts they leave just after) left out. */
static void counts_in(const fx *x, int s, int k0, int k1, uint64_t *ended, uint64_t *bad)
{
    *ended = *bad = 0;
    for (int k = k0; k < k1 && k < x->end_bin; k++)
        if (!outage_near(x, x->tl->ser[s].host, k)) {
            const hk_tl_cell *c = hk_tl_cell_at(x->tl, s, k);
            *ended += (uint64_t)c->ok + c->err;
            *bad += (uint64_t)c->err + c->warn;
        }
}

/* A stretch in which series s failed though the run as a whole did not: the union of the
 * HK_FAILING_WIN_S windows whose bad attempts are HK_FAILING_RATE of their ended ones and
 * beyond the 1% noise rate at HK_FAILING_ALPHA over every window judged (binomial,
 * Bonferroni); 1 with b's window and counts set to it, 0 none. */
static int failing_stretch(const fx *x, int s, badness *b)
{
    int wb = (int)ceil(HK_FAILING_WIN_S / x->bin_s), n = x->end_bin - wb + 1, k0 = -1, k1 = -1;
    for (int k = 0; k < n; k++) {
        uint64_t ended, bad;
        counts_in(x, s, k, k + wb, &ended, &bad);
        if (bad < HK_FAILING_MIN / 2 || (double)bad < HK_FAILING_RATE * (double)ended ||
            gsl_cdf_binomial_Q((unsigned)(bad - 1), HK_FAILING_NOISE, (unsigned)ended) *
                    (double)n >= HK_FAILING_ALPHA)
            continue;
        k0 = k0 < 0 ? k : k0;
        k1 = k + wb - 1;
    }
    if (k0 < 0)
        return 0;
    while (k0 < k1 && !hk_tl_cell_at(x->tl, s, k0)->err && !hk_tl_cell_at(x->tl, s, k0)->warn)
        k0++; /* from its first bad attempt to its last */
    while (k1 > k0 && !hk_tl_cell_at(x->tl, s, k1)->err && !hk_tl_cell_at(x->tl, s, k1)->warn)
        k1--;
    b->k0 = k0;
    b->k1 = k1;
    counts_in(x, s, k0, k1 + 1, &b->ended, &b->bad);
    return 1;
}

int hk_find_unhealthy(const fx *x, int first, int s)
{
    badness b;
    bad_of(x, first, s, &b);
    return rate_bad(&b);
}

/* Why a mirror's connects failed when its master ran out of ports to it ("" otherwise). */
static const char *port_cause(const fx *x, int master, int host, char *buf, size_t n)
{
    buf[0] = '\0';
    for (int i = 0; i < x->in->nports; i++) {
        const hk_port_fact *p = &x->in->ports[i];
        if (p->master == master && p->host == host)
            snprintf(buf, n, "; from %.1f s its master's connects to it found no free port "
                     "(port_exhaustion)", p->t_s);
    }
    return buf;
}

/* Failing: a mirror whose attempts fail (or answer with a warning) at HK_FAILING_RATE or more
 * outside its declared outages (those are failing_share's): over HK_FAILING_MIN attempts, or
 * over fewer when the strategy then starved it (it reacted to what it saw). */
int hk_find_failing(fx *x, int first)
{
    const hk_tl *t = x->tl;
    int n = t->ser[first].nmirrors;
    for (int s = first; s < first + n; s++) {
        const hk_tl_series *se = &t->ser[s];
        badness b;
        bad_of(x, first, s, &b);
        double sh = b.all ? (double)b.q / (double)b.all : 0;
        int evidence = b.ended >= HK_FAILING_MIN && b.bad >= HK_FAILING_MIN / 2 &&
                       gsl_cdf_binomial_Q((unsigned)(b.bad - 1), HK_FAILING_NOISE,
                                          (unsigned)b.ended) < HK_FAILING_ALPHA;
        double run_pct = b.ended ? 100.0 * (double)b.bad / (double)b.ended : 0.0;
        int stretch = 0;
        if (!rate_bad(&b) || (!evidence && sh >= HK_STARVED_SHARE)) {
            if (!failing_stretch(x, s, &b))
                continue;
            stretch = 1;
        }
        const uint64_t *all = hk_tl_kinds(t, s);
        uint64_t kinds[HK_EV_ALL]; /* outside its declared outages, as the counts below */
        for (int e = 0; e < HK_EV_ALL; e++)
            kinds[e] = all[e] - all[HK_EV_ALL + e];
        int main_kind = -1;
        for (int e = 0; e < HK_EV_ALL; e++)
            if (e != HK_EV_SUCCESS && (main_kind < 0 || kinds[e] > kinds[main_kind]))
                main_kind = e;
        char kw[240], span[120] = "";
        kinds_words(kinds, kw, sizeof kw);
        if (stretch)
            snprintf(span, sizeof span, " (a stretch: %.1f%% over the whole run)", run_pct);
        int strat = hk_find_strategy(x, se->table, se->line);
        uint64_t wended, wbad; /* the window's own counts, its declared outages left out */
        counts_in(x, s, b.k0, b.k1 + 1, &wended, &wbad);
        char cause[120];
        if (hk_find_add(x, "failing", se->master, se->table, se->line, se->host,
                        hk_find_secs(x, b.k0), "%s fails %.1f%% of its %llu attempts from %.0f s "
                        "to %.0f s%s, outside its declared outages (by kind%s: %s)%s and "
                        "gets %.1f%% of agent %d's queries (a fair share is %.0f%%) under %s: %s",
                        hk_find_host(x, se->host),
                        wended ? 100.0 * (double)wbad / (double)wended : 0.0,
                        (unsigned long long)wended, hk_find_secs(x, b.k0),
                        hk_find_secs(x, b.k1 + 1), span, stretch ? ", over the run" : "", kw,
                        port_cause(x, se->master, se->host, cause, sizeof cause),
                        100 * sh, se->line + 1, 100.0 / n, hk_strat_get(strat)->name,
                        failing_response(strat, main_kind, sh, n)) < 0)
            return -1;
    }
    return 0;
}

/* Mean latency of series s's answers over the run proper, µs; NaN with fewer than min. */
static double mean_us(const fx *x, int s, uint64_t min, uint64_t *ok)
{
    uint64_t lat = 0;
    *ok = 0;
    for (int k = 0; k < x->end_bin; k++) {
        const hk_tl_cell *c = hk_tl_cell_at(x->tl, s, k);
        lat += c->lat_us;
        *ok += c->ok;
    }
    return *ok >= min ? (double)lat / (double)*ok : NAN;
}

static int dbl_cmp(const void *a, const void *b)
{
    double u = *(const double *)a, v = *(const double *)b;
    return (u > v) - (u < v);
}

/* The p99 of the line's answers, with series `skip` left out (-1: none); NaN when the caller
 * gave no histograms. */
static double line_p99(const fx *x, int first, int skip)
{
    if (!x->in->lat)
        return NAN;
    hk_hist h = {0};
    for (int j = first; j < first + x->tl->ser[first].nmirrors; j++)
        if (j != skip && x->in->lat[j])
            hk_hist_merge(&h, x->in->lat[j]);
    double p = h.n ? hk_hist_quantile(&h, 0.99) : NAN;
    hk_hist_free(&h);
    return p;
}

/* Median of the mean latencies of the line's mirrors other than s with at least min answers
 * (m: scratch of n); NaN if none. */
static double peers_median(const fx *x, int first, int s, double *m, uint64_t min)
{
    int n = x->tl->ser[first].nmirrors, no = 0;
    uint64_t ok;
    for (int j = first; j < first + n; j++) {
        double v = j == s ? NAN : mean_us(x, j, min, &ok);
        if (!isnan(v))
            m[no++] = v;
    }
    if (!no)
        return NAN;
    qsort(m, (size_t)no, sizeof *m, dbl_cmp);
    return no % 2 ? m[no / 2] : (m[no / 2 - 1] + m[no / 2]) / 2;
}

int hk_find_lags(const fx *x, int first, int s)
{
    int n = x->tl->ser[first].nmirrors;
    if (n < 2 || n > 4096)
        return 0;
    double *m = malloc((size_t)n * sizeof *m);
    if (!m)
        return 0;
    uint64_t ok;
    double mine = mean_us(x, s, 1, &ok), peers = peers_median(x, first, s, m, HK_SLOW_PEER_MIN);
    free(m);
    return !isnan(mine) && !isnan(peers) && mine >= HK_SLOW_FACTOR * peers &&
           mine - peers >= HK_SLOW_MIN_MS * 1000;
}

static const char *slow_response(const fx *x, int strat)
{
    const hk_strat_ops *op = hk_strat_get(strat);
    if (op->extension)
        return "the extension still sends it this share";
    if (strat == HK_STRAT_RANDOM || strat == HK_STRAT_ROUNDROBIN)
        return "this strategy does not weigh latency";
    if (x->in->var->timer_reads_timeouts)
        return "Manticore's weight timer reads the query_timeouts counter, not query time, so "
               "its weight stays at 100/N";
    return "the strategy's latency weights leave it this share";
}

/* Slow: a mirror answering in HK_SLOW_FACTOR x (and HK_SLOW_MIN_MS more than) the median of its
 * line's other mirrors while it carries HK_SLOW_SHARE of the line's attempts, and the line's
 * p99 without it is at most HK_SLOW_TAIL of the p99 with it (where the histograms are known). */
int hk_find_slow(fx *x, int first)
{
    const hk_tl *t = x->tl;
    int n = t->ser[first].nmirrors;
    if (n < 2 || n > 4096)
        return 0;
    double *m = malloc((size_t)n * sizeof *m), *o = malloc((size_t)n * sizeof *o);
    if (!m || !o) {
        free(m);
        free(o);
        return -1;
    }
    uint64_t ok;
    for (int j = 0; j < n; j++)
        m[j] = mean_us(x, first + j, HK_SLOW_PEER_MIN, &ok);
    uint64_t all = hk_find_line_q(x, first, 0, x->end_bin);
    int rc = 0;
    for (int j = 0; j < n && rc == 0; j++) {
        int s = first + j, no = 0;
        double mine = mean_us(x, s, HK_SLOW_MIN_ANSWERS, &ok);
        for (int i = 0; i < n; i++)
            if (i != j && !isnan(m[i]))
                o[no++] = m[i];
        if (isnan(mine) || !no || !all)
            continue;
        qsort(o, (size_t)no, sizeof *o, dbl_cmp);
        double peers = no % 2 ? o[no / 2] : (o[no / 2 - 1] + o[no / 2]) / 2;
        double sh = hk_tl_share(t, first, s, 0, x->end_bin);
        if (mine < HK_SLOW_FACTOR * peers || mine - peers < HK_SLOW_MIN_MS * 1000 ||
            isnan(sh) || sh < HK_SLOW_SHARE)
            continue;
        const hk_tl_series *se = &t->ser[s];
        int strat = hk_find_strategy(x, se->table, se->line);
        double with = line_p99(x, first, -1), without = line_p99(x, first, s);
        if (!isnan(with) && !isnan(without) && without > HK_SLOW_TAIL * with)
            continue; /* slower, but the line's tail is not its doing */
        char tail[160] = "";
        if (!isnan(with) && !isnan(without))
            snprintf(tail, sizeof tail, "; the line's p99 is %.1f ms with it, %.1f ms without",
                     with / 1000, without / 1000);
        rc = hk_find_add(x, "slow", se->master, se->table, se->line, se->host, 0.0,
                         "%s answers in %.1f ms on average, %.1fx the %.1f ms of agent %d's other "
                         "mirrors, and gets %.1f%% of its queries (a fair share is %.0f%%) "
                         "under %s%s: %s", hk_find_host(x, se->host), mine / 1000,
                         mine / peers, peers / 1000, se->line + 1, 100 * sh, 100.0 / n,
                         hk_strat_get(strat)->name, tail, slow_response(x, strat));
    }
    free(m);
    free(o);
    return rc;
}
