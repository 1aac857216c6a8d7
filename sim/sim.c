/* sim: world set-up, the event loop and tear-down (see sim.h). */
#define _DEFAULT_SOURCE /* madvise's MADV_HUGEPAGE (Linux) */
#include "sim.h"

#include "hk_seed.h"

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define SIM_HUGE_PAGE ((uintptr_t)2 << 20)

int sim_strategy_of(const sim_world *w, int table, int line)
{
    return w->o.strategy >= 0 ? w->o.strategy : w->s->cl->tables[table].lines[line].strategy;
}

/* One generator per stream: the same seed gives each stream the same draws whatever else the
 * run does (common random numbers across strategies and variants). A stream per mirror needs
 * little state: GSL's taus2 (L'Ecuyer's Tausworthe, period 2^88) keeps 24 bytes where mt19937
 * keeps 5 KB, so a large cluster's streams stay in cache. */
static gsl_rng *rng_new(uint64_t seed, uint64_t stream)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_taus2);
    if (r)
        gsl_rng_set(r, (unsigned long)hk_seed_stream(seed, stream));
    return r;
}

/* ---- set-up ---------------------------------------------------------- */

/* Ask for huge pages under the 2 MB-aligned part of a large array (Linux; elsewhere, or where
 * the system lends none, nothing changes). A run fills such arrays as it goes (the timeline: a
 * large cluster's bins), and on a virtual machine the first touch of each 4 KB page is a fault
 * that costs ~10 us: on 2 MB pages, 512 times fewer. */
static void advise_huge(void *p, size_t bytes)
{
#ifdef MADV_HUGEPAGE
    uintptr_t lo = ((uintptr_t)p + SIM_HUGE_PAGE - 1) & ~(uintptr_t)(SIM_HUGE_PAGE - 1);
    uintptr_t hi = ((uintptr_t)p + bytes) & ~(uintptr_t)(SIM_HUGE_PAGE - 1);
    if (hi > lo)
        (void)madvise((void *)lo, hi - lo, MADV_HUGEPAGE); /* advice: refused, it changes nothing */
#else
    (void)p;
    (void)bytes;
#endif
}

void *sim_alloc_lines(size_t n, size_t size)
{
    if (size % SIM_CACHE_LINE || (n && size > SIZE_MAX / n))
        return NULL;
    void *p = aligned_alloc(SIM_CACHE_LINE, n * size);
    if (p)
        memset(p, 0, n * size);
    return p;
}

/* Whether host h's stream feeds its service times only: no random network time, refusals,
 * errors or warnings (then they may be drawn ahead: the same values in the same order). */
static int service_only(const sim_world *w, int h, const hk_behave *b)
{
    if (b->rtt->kind != HK_DIST_CONSTANT || b->refuse > 0 || b->errors > 0 || b->warnings > 0)
        return 0;
    for (int i = 0; i < w->s->nfaults; i++)
        if (w->s->faults[i].host == h && w->s->faults[i].kind == HK_FAULT_ERRORS)
            return 0;
    return 1;
}

static int init_mirrors(sim_world *w)
{
    const hk_cluster *cl = w->s->cl;
    w->mir = sim_alloc_lines((size_t)cl->nhosts + 1, sizeof *w->mir);
    if (!w->mir)
        return -1;
    for (int h = 0; h < cl->nhosts; h++) {
        sim_mirror *m = &w->mir[h];
        m->b = &w->s->behave[w->s->host_behave[h]];
        m->rng = rng_new(w->o.seed, HK_SEED_MIRROR_STREAM + (uint64_t)h);
        if (!m->rng || hk_fcfs_init(&m->workers, m->b->threads) < 0)
            return -1;
        m->svc_ahead = service_only(w, h, m->b);
        if (m->svc_ahead) /* a constant: draws nothing */
            m->rtt_us = (int64_t)hk_dist_sample(m->b->rtt, m->rng);
        hk_dist_ahead_init(&m->svc, m->b->service, m->rng);
    }
    return 0;
}

/* A master's agent line, and its routes: each mirror's dashboard, host and series. */
static int init_line(sim_world *w, sim_master *m, int t, int k, sim_linst *li, int series,
                     sim_route *rt)
{
    const hk_line_conf *lc = &w->s->cl->tables[t].lines[k];
    hk_dash **d = malloc((size_t)lc->a.n * sizeof *d);
    if (!d)
        return -1;
    for (int i = 0; i < lc->a.n; i++) {
        int h = lc->host[i];
        rt[i].dash = d[i] = &m->dash[h];
        rt[i].mr = &w->mir[h];
        rt[i].host = h;
        rt[i].series = series + i;
    }
    li->table = t;
    li->line = k;
    li->series = series;
    li->t = &w->s->cl->tables[t];
    li->lc = lc;
    li->budget = hk_line_attempts(w->s->cl, li->t, lc, !w->var->rechoose_on_retry);
    li->blackhole = (char)(lc->a.blackhole != 0);
    li->persistent = (char)(lc->a.persistent != 0);
    li->l = hk_line_new(lc->a.n, d, sim_strategy_of(w, t, k), w->var);
    free(d);
    li->rt = rt;
    if (!li->l)
        return -1;
    hk_line_born(li->l, w->s->started_given ? w->s->started_us : w->t0);
    for (int i = 0; i < lc->a.n; i++)
        rt[i].ext = li->l->ext != NULL;
    return 0;
}

/* A master's ports per host, and a pool for each host a persistent line reaches. */
static int init_conns(sim_world *w, sim_master *m)
{
    const hk_cluster *cl = w->s->cl;
    m->pool = hk_pool_hosts_new(cl, w->pool_rule, w->s->pool_close_on_fatal);
    m->ports = calloc((size_t)cl->nhosts + 1, sizeof *m->ports);
    if (!m->pool || !m->ports)
        return -1;
    for (int h = 0; h < cl->nhosts; h++)
        if (hk_ports_init(&m->ports[h], w->ports_eff ? w->ports_eff : 1, w->s->time_wait_s) < 0)
            return -1;
    return 0;
}

/* Masters, their lines, and the timeline's series (master, line, mirror: in that order). */
static int init_masters(sim_world *w)
{
    const hk_cluster *cl = w->s->cl;
    int nrt = 0; /* routes (line x mirror) of a master */
    for (int t = 0; t < cl->ntables; t++)
        for (int k = 0; k < cl->tables[t].nlines; k++)
            nrt += cl->tables[t].lines[k].a.n;
    int nser = nrt * w->nm;
    hk_tl_series *ser = calloc((size_t)nser + 1, sizeof *ser);
    w->m = calloc((size_t)w->nm, sizeof *w->m);
    if (!ser || !w->m) {
        free(ser);
        return -1;
    }
    int s = 0, rc = 0;
    for (int mi = 0; rc == 0 && mi < w->nm; mi++) {
        sim_master *m = &w->m[mi];
        m->dash = hk_dash_array_new(cl->nhosts + 1, cl->set.karma_s);
        m->li = calloc((size_t)w->nli + 1, sizeof *m->li);
        m->rt = sim_alloc_lines((size_t)nrt + 1, sizeof *m->rt);
        m->ping_t0 = calloc((size_t)cl->nhosts + 1, sizeof *m->ping_t0);
        m->ping_out = calloc((size_t)cl->nhosts + 1, sizeof *m->ping_out);
        m->conn = calloc((size_t)nrt + 1, sizeof *m->conn);
        if (!m->dash || !m->li || !m->rt || !m->ping_t0 || !m->ping_out || !m->conn ||
            init_conns(w, m) < 0) {
            rc = -1;
            break;
        }
        for (int h = 0; h < cl->nhosts; h++)
            m->ping_t0[h] = -1;
        for (int t = 0, r = 0; rc == 0 && t < cl->ntables; t++)
            for (int k = 0; rc == 0 && k < cl->tables[t].nlines; k++) {
                const hk_line_conf *lc = &cl->tables[t].lines[k];
                rc = init_line(w, m, t, k, &m->li[w->li_base[t] + k], s, &m->rt[r]);
                r += lc->a.n;
                for (int j = 0; j < lc->a.n; j++, s++)
                    ser[s] = (hk_tl_series){.master = mi, .table = t, .line = k, .mirror = j,
                                            .host = lc->host[j], .nmirrors = lc->a.n};
            }
    }
    if (rc == 0)
        rc = hk_tl_init(&w->tl, ser, nser, w->t0, 1000000, 0);
    if (rc == 0)
        hk_tl_set_faults(&w->tl, w->s);
    if (rc == 0) { /* [cap][series] each */
        size_t cells = (size_t)w->tl.nser * (size_t)w->tl.cap;
        advise_huge(w->tl.c, cells * sizeof *w->tl.c);
        advise_huge(w->tl.sm, cells * sizeof *w->tl.sm);
    }
    free(ser);
    return rc;
}

/* Lines per table, the largest line, the longest table. */
static int init_layout(sim_world *w)
{
    const hk_cluster *cl = w->s->cl;
    int maxn = 1;
    if (hk_ledger_init(&w->led, cl) < 0)
        return -1;
    w->li_base = w->led.li_base; /* the ledger numbers the lines for both engines */
    w->nli = w->led.nli;
    for (int t = 0; t < cl->ntables; t++) {
        if (cl->tables[t].nlines > w->maxlines)
            w->maxlines = cl->tables[t].nlines;
        for (int k = 0; k < cl->tables[t].nlines; k++)
            if (cl->tables[t].lines[k].a.n > maxn)
                maxn = cl->tables[t].lines[k].a.n;
    }
    if (w->maxlines < 1)
        w->maxlines = 1;
    w->probs = calloc((size_t)maxn, sizeof *w->probs);
    int nf = w->s->nfaults * w->nm;
    w->first_after = malloc((size_t)(nf > 0 ? nf : 1) * sizeof *w->first_after);
    for (int i = 0; w->first_after && i < nf; i++)
        w->first_after[i] = -1;
    return w->probs && w->first_after ? 0 : -1;
}

sim_world *sim_new(const hk_scn *s, const sim_opts *o)
{
    sim_world *w = calloc(1, sizeof *w);
    if (!w)
        return NULL;
    w->s = s;
    w->o = *o;
    w->var = hk_variant_get((hk_variant_id)o->variant);
    w->pool_rule = hk_pool_rule_pick(s->pool_rule, o->variant);
    double eff = s->time_wait_share > 0 ? ceil(s->ports / s->time_wait_share) : 0;
    w->ports_eff = eff > INT_MAX ? INT_MAX : (int)eff;
    w->nm = s->wl.masters;
    w->t0 = s->start_us;
    w->end_us = w->t0 + (o->duration_us > 0 ? o->duration_us : s->wl.duration_us);
    w->tail_us = w->t0 + (3 * (w->end_us - w->t0) + 3) / 4; /* 4 (t - t0) >= 3 (end - t0) */
    w->karma_us = hk_karma_us(&s->cl->set);
    w->sample_us = w->karma_us / 10 < 1000000 ? w->karma_us / 10 : 1000000;
    w->b0 = w->t0 / w->karma_us;
    w->nperiods = (int)((w->end_us - 1) / w->karma_us - w->b0 + 1);
    w->qfree = -1;
    w->rng_arr = rng_new(o->seed, 1);
    w->arr = s->wl.arr;
    w->arr.draw_ahead = 1; /* rng_arr feeds open-loop arrivals alone (a closed loop draws its
                              think times from it and never asks the arrival process) */
    w->rng_pick = rng_new(o->seed, 2);
    sim_heap_init(&w->h);
    hk_buf_init(&w->status);
    if (!w->rng_arr || !w->rng_pick || init_layout(w) < 0 || init_mirrors(w) < 0 ||
        init_masters(w) < 0) {
        sim_free(w);
        return NULL;
    }
    w->fetch_ahead = (int64_t)s->cl->nhosts * w->nm > SIM_FETCH_MIRRORS;
    sim_q_start(w);
    sim_p_start(w);
    return w;
}

void sim_free(sim_world *w)
{
    if (!w)
        return;
    const hk_cluster *cl = w->s->cl;
    for (int mi = 0; w->m && mi < w->nm; mi++) {
        sim_master *m = &w->m[mi];
        for (int i = 0; m->li && i < w->nli; i++) {
            for (int j = 0; m->li[i].rt && m->li[i].l && j < m->li[i].l->n; j++)
                hk_hist_free(&m->li[i].rt[j].ms.per);
            hk_line_free(m->li[i].l);
        }
        free(m->li);
        free(m->rt);
        hk_dash_array_free(m->dash);
        free(m->ping_t0);
        free(m->ping_out);
        free(m->conn);
        hk_pool_hosts_free(m->pool, cl->nhosts);
        for (int h = 0; m->ports && h < cl->nhosts; h++)
            hk_ports_free(&m->ports[h]);
        free(m->ports);
    }
    free(w->m);
    for (int h = 0; w->mir && h < cl->nhosts; h++) {
        if (w->mir[h].rng)
            gsl_rng_free(w->mir[h].rng);
        hk_fcfs_free(&w->mir[h].workers);
    }
    free(w->mir);
    hk_ledger_free(&w->led);
    if (w->rng_arr)
        gsl_rng_free(w->rng_arr);
    if (w->rng_pick)
        gsl_rng_free(w->rng_pick);
    sim_heap_free(&w->h);
    hk_hist_free(&w->all);
    hk_hist_free(&w->per_all);
    hk_tl_free(&w->tl);
    hk_buf_free(&w->status);
    free(w->q);
    free(w->lsbuf);
    free(w->probs);
    free(w->first_after);
    free(w);
}

/* ---- the loop ---------------------------------------------------------- */

/* Asked to stop, or a stream failed to write: checked at every sample (a simulated second). */
static int should_stop(sim_world *w)
{
    if (w->o.stop && *w->o.stop)
        w->stopped = SIM_STOPPED;
    FILE *f[3] = {w->o.periods, w->o.latency, w->o.queries};
    for (int i = 0; i < 3 && !w->stopped; i++)
        if (f[i] && ferror(f[i]))
            w->stopped = SIM_WRITE_FAILED;
    return w->stopped != 0;
}

/* The timers: a few per simulated second, apart from the queries' events. */
static void dispatch_timer(sim_world *w, const sim_ev *e)
{
    switch (sim_ev_type(e)) {
    case EV_PING: sim_p_ping(w, e->t, e->a, e->b); break;
    case EV_PING_DONE: sim_p_ping_done(w, e->t, e->a, e->b); break;
    case EV_SAMPLE:
        if (should_stop(w)) {
            sim_heap_clear(&w->h);
            break;
        }
        if (e->t < w->end_us) {
            if (w->o.progress) /* told at each sample (at most 1 s of simulated time apart) */
                w->o.progress(w->o.pctx, (double)(e->t - w->t0) / (double)(w->end_us - w->t0));
            sim_p_sample(w, e->t);
            sim_heap_push(&w->h, e->t + w->sample_us, EV_SAMPLE, 0, 0);
        }
        break;
    case EV_PERIOD:
        if (e->t <= w->end_us) {
            sim_p_close(w, e->t);
            if (e->t + w->karma_us <= w->end_us)
                sim_heap_push(&w->h, e->t + w->karma_us, EV_PERIOD, 0, 0);
        }
        break;
    case EV_END:
        sim_p_status(w, e->t);
        if (e->t % w->karma_us)
            sim_p_close(w, e->t);
        break;
    }
}

/* Small, so the loop holds it: a query's events, the rest to dispatch_timer. */
static void dispatch(sim_world *w, const sim_ev *e)
{
    switch (sim_ev_type(e)) {
    case EV_ARRIVAL: sim_q_arrival(w, e->t, e->a, e->b); break;
    case EV_ATTEMPT: sim_q_attempt(w, e->a, e->b, e->t, w->var->rechoose_on_retry); break;
    case EV_MIRROR_IN: sim_q_mirror_in(w, e->t, e->a, e->b); break;
    case EV_DONE: sim_q_done(w, e->t, e->a, e->b); break;
    default: dispatch_timer(w, e); break;
    }
}

int sim_run(sim_world *w)
{
    sim_ev e;
    while (sim_heap_pop(&w->h, &e)) {
        w->events++;
        w->t_now = e.t;
        const sim_ev *nx = w->fetch_ahead ? sim_heap_top(&w->h) : NULL;
        if (nx && sim_ev_type(nx) == EV_DONE)
            sim_q_done_fetch(w, nx->a, nx->b);
        dispatch(w, &e);
    }
    sim_p_fold(w); /* queries that finished after the last period closed */
    sim_p_conns(w);
    hk_tl_fill(&w->tl);
    return w->stopped ? w->stopped : w->trace_failed ? -1 : 0;
}
