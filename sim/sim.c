/* sim: world set-up and the event loop (see sim.h). */
#include "sim.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "sim_out.h"

enum { EV_ARRIVAL = 1, EV_ATTEMPT, EV_MIRROR_IN, EV_DONE, EV_PING, EV_PING_DONE, EV_SAMPLE,
       EV_PERIOD, EV_END };

#define LS(w, qi) (&(w)->lsbuf[(size_t)(qi) * (size_t)(w)->maxlines])

int64_t sim_karma_us(const sim_world *w) { return w->s->cl->set.karma_s * 1000000; }

int sim_strategy_of(const sim_world *w, int table, int line)
{
    return w->o.strategy >= 0 ? w->o.strategy : w->s->cl->tables[table].lines[line].strategy;
}

static gsl_rng *rng_new(uint64_t seed, uint64_t stream)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    if (r)
        gsl_rng_set(r, (unsigned long)((seed * 0x9E3779B97F4A7C15ULL) ^ (stream * 0xBF58476D1CE4E5B9ULL)));
    return r;
}

/* ---- set-up ---------------------------------------------------------- */

static int init_mirrors(sim_world *w)
{
    const hk_cluster *cl = w->s->cl;
    w->mir = calloc((size_t)cl->nhosts, sizeof *w->mir);
    if (!w->mir)
        return -1;
    for (int h = 0; h < cl->nhosts; h++) {
        sim_mirror *m = &w->mir[h];
        m->b = &w->s->behave[w->s->host_behave[h]];
        m->rng = rng_new(w->o.seed, 1000 + (uint64_t)h);
        if (!m->rng || hk_fcfs_init(&m->workers, m->b->threads) < 0)
            return -1;
    }
    return 0;
}

static int init_line(sim_world *w, sim_master *m, int t, int k, sim_linst *li)
{
    const hk_line_conf *lc = &w->s->cl->tables[t].lines[k];
    hk_dash **d = malloc((size_t)lc->a.n * sizeof *d);
    if (!d)
        return -1;
    for (int i = 0; i < lc->a.n; i++)
        d[i] = &m->dash[lc->host[i]];
    li->table = t;
    li->line = k;
    li->l = hk_line_new(lc->a.n, d, sim_strategy_of(w, t, k), w->var);
    free(d);
    li->ms = calloc((size_t)lc->a.n, sizeof *li->ms);
    if (!li->l || !li->ms)
        return -1;
    for (int i = 0; i < lc->a.n; i++) {
        li->ms[i].prob = calloc((size_t)w->nperiods + 1, sizeof(double));
        li->ms[i].share = calloc((size_t)w->nperiods + 1, sizeof(double));
        if (!li->ms[i].prob || !li->ms[i].share)
            return -1;
    }
    return 0;
}

static int init_masters(sim_world *w)
{
    const hk_cluster *cl = w->s->cl;
    w->m = calloc((size_t)w->nm, sizeof *w->m);
    if (!w->m)
        return -1;
    for (int mi = 0; mi < w->nm; mi++) {
        sim_master *m = &w->m[mi];
        m->dash = calloc((size_t)cl->nhosts, sizeof *m->dash);
        m->li = calloc((size_t)w->nli, sizeof *m->li);
        m->ping_t0 = calloc((size_t)cl->nhosts, sizeof *m->ping_t0);
        m->ping_out = calloc((size_t)cl->nhosts, sizeof *m->ping_out);
        if (!m->dash || !m->li || !m->ping_t0 || !m->ping_out)
            return -1;
        for (int h = 0; h < cl->nhosts; h++) {
            hk_dash_init(&m->dash[h], cl->set.karma_s);
            m->ping_t0[h] = -1;
        }
        for (int t = 0; t < cl->ntables; t++)
            for (int k = 0; k < cl->tables[t].nlines; k++)
                if (init_line(w, m, t, k, &m->li[w->li_base[t] + k]) < 0)
                    return -1;
    }
    return 0;
}

static int init_totals(sim_world *w)
{
    const hk_cluster *cl = w->s->cl;
    w->tot = calloc((size_t)w->nli, sizeof *w->tot);
    if (!w->tot)
        return -1;
    for (int t = 0; t < cl->ntables; t++)
        for (int k = 0; k < cl->tables[t].nlines; k++)
            if (!(w->tot[w->li_base[t] + k] = calloc((size_t)cl->tables[t].lines[k].a.n,
                                                      sizeof(sim_total))))
                return -1;
    return 0;
}

static void schedule_start(sim_world *w)
{
    const hk_cluster *cl = w->s->cl;
    int64_t karma = sim_karma_us(w);
    int64_t first = hk_arrivals_next((hk_arrivals *)&w->s->wl.arr, 0, w->rng_arr);
    if (first == -2)
        w->trace_failed = 1;
    if (first >= 0 && first < w->end_us)
        sim_heap_push(&w->h, first, EV_ARRIVAL, 0, 0);
    sim_heap_push(&w->h, karma / 10 > 0 ? karma / 20 : 1, EV_SAMPLE, 0, 0);
    sim_heap_push(&w->h, karma, EV_PERIOD, 0, 0);
    sim_heap_push(&w->h, w->end_us, EV_END, 0, 0);
    if (cl->set.ping_us <= 0)
        return;
    for (int mi = 0; mi < w->nm; mi++)
        for (int h = 0; h < cl->nhosts; h++) {
            int pinged = w->var->layout == HK_LAYOUT_SPHINX2 ? cl->hosts[h].in_ha
                                                             : cl->hosts[h].in_ha_nonbh;
            if (pinged)
                sim_heap_push(&w->h, cl->set.ping_us, EV_PING, mi, h);
        }
}

sim_world *sim_new(const hk_scn *s, const sim_opts *o)
{
    sim_world *w = calloc(1, sizeof *w);
    if (!w)
        return NULL;
    w->s = s;
    w->o = *o;
    w->var = hk_variant_get((hk_variant_id)o->variant);
    w->nm = s->wl.masters;
    w->end_us = o->duration_us > 0 ? o->duration_us : s->wl.duration_us;
    int64_t karma = sim_karma_us(w);
    w->nperiods = (int)((w->end_us + karma - 1) / karma);
    w->li_base = calloc((size_t)s->cl->ntables + 1, sizeof *w->li_base);
    int maxn = 1;
    for (int t = 0; w->li_base && t < s->cl->ntables; t++) {
        w->li_base[t] = w->nli;
        w->nli += s->cl->tables[t].nlines;
        if (s->cl->tables[t].nlines > w->maxlines)
            w->maxlines = s->cl->tables[t].nlines;
        for (int k = 0; k < s->cl->tables[t].nlines; k++)
            if (s->cl->tables[t].lines[k].a.n > maxn)
                maxn = s->cl->tables[t].lines[k].a.n;
    }
    if (w->maxlines < 1)
        w->maxlines = 1;
    w->probs = calloc((size_t)maxn, sizeof *w->probs);
    w->rng_arr = rng_new(o->seed, 1);
    w->rng_pick = rng_new(o->seed, 2);
    w->qfree = -1;
    sim_heap_init(&w->h);
    if (!w->li_base || !w->probs || !w->rng_arr || !w->rng_pick || init_mirrors(w) < 0 ||
        init_masters(w) < 0 || init_totals(w) < 0) {
        sim_free(w);
        return NULL;
    }
    schedule_start(w);
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
            for (int j = 0; m->li[i].ms && m->li[i].l && j < m->li[i].l->n; j++) {
                free(m->li[i].ms[j].prob);
                free(m->li[i].ms[j].share);
            }
            free(m->li[i].ms);
            hk_line_free(m->li[i].l);
        }
        free(m->li);
        free(m->dash);
        free(m->ping_t0);
        free(m->ping_out);
    }
    free(w->m);
    for (int h = 0; w->mir && h < cl->nhosts; h++) {
        if (w->mir[h].rng)
            gsl_rng_free(w->mir[h].rng);
        hk_fcfs_free(&w->mir[h].workers);
    }
    free(w->mir);
    for (int i = 0; w->tot && i < w->nli; i++)
        free(w->tot[i]);
    free(w->tot);
    if (w->rng_arr)
        gsl_rng_free(w->rng_arr);
    if (w->rng_pick)
        gsl_rng_free(w->rng_pick);
    sim_heap_free(&w->h);
    free(w->q);
    free(w->lsbuf);
    free(w->li_base);
    free(w->probs);
    free(w);
}

/* ---- queries ----------------------------------------------------------- */

static int q_alloc(sim_world *w)
{
    if (w->qfree < 0) {
        int cap = w->nq ? w->nq * 2 : 256;
        sim_query *q = realloc(w->q, (size_t)cap * sizeof *q);
        if (!q)
            return -1;
        w->q = q;
        sim_lstate *ls = realloc(w->lsbuf, (size_t)cap * (size_t)w->maxlines * sizeof *ls);
        if (!ls)
            return -1;
        w->lsbuf = ls;
        for (int i = cap - 1; i >= w->nq; i--) {
            w->q[i].next_free = w->qfree;
            w->qfree = i;
        }
        w->nq = cap;
    }
    int i = w->qfree;
    w->qfree = w->q[i].next_free;
    return i;
}

static void q_release(sim_world *w, int qi)
{
    w->q[qi].next_free = w->qfree;
    w->qfree = qi;
}

static sim_linst *linst(sim_world *w, const sim_query *q, int k)
{
    return &w->m[q->master].li[w->li_base[q->table] + k];
}

static double rtt(sim_mirror *m) { return hk_dist_sample(m->b->rtt, m->rng); }

static void query_finish(sim_world *w, int qi)
{
    sim_query *q = &w->q[qi];
    const hk_table *t = &w->s->cl->tables[q->table];
    double lat = (double)(q->t_last - q->t_arr);
    int status = q->failed == 0 ? 0 : (q->failed == t->nlines && t->nlocal == 0) ? 2 : 1;
    uint64_t *c[3] = {&w->n_ok, &w->n_partial, &w->n_error};
    uint64_t *pc[3] = {&w->per_ok, &w->per_partial, &w->per_err};
    (*c[status])++;
    (*pc[status])++;
    hk_hist_add(&w->per_all, lat); /* merged into w->all when the period closes */
    if (w->o.queries)
        sim_out_query(w, q, LS(w, qi));
    q->reported = 1;
}

/* One waited line (or the dispatch hold) is over. */
static void q_drop(sim_world *w, int qi, int waited)
{
    sim_query *q = &w->q[qi];
    if (waited && --q->waiting == 0)
        query_finish(w, qi);
    if (--q->pending == 0)
        q_release(w, qi);
}

static void line_finish(sim_world *w, int qi, int k, int64_t t, int ok)
{
    sim_query *q = &w->q[qi];
    LS(w, qi)[k].t_done = t;
    if (t > q->t_last)
        q->t_last = t;
    q->failed += !ok;
    q_drop(w, qi, 1);
}

static void done_at(sim_world *w, int64_t t, int qi, int k, hk_ev ev)
{
    LS(w, qi)[k].ev = ev;
    sim_heap_push(&w->h, t, EV_DONE, qi, k);
}

static void mirror_in(sim_world *w, int64_t now, int qi, int k);

static void attempt(sim_world *w, int qi, int k, int64_t now, int choose)
{
    sim_query *q = &w->q[qi];
    sim_lstate *ls = &LS(w, qi)[k];
    const hk_table *t = &w->s->cl->tables[q->table];
    const hk_line_conf *lc = &t->lines[k];
    sim_linst *li = linst(w, q, k);
    if (choose)
        ls->mirror = hk_line_choose(li->l, now, w->rng_pick);
    int h = lc->host[ls->mirror];
    sim_mirror *mr = &w->mir[h];
    ls->attempts++;
    ls->t_start = now;
    ls->connect_us = -1;
    hk_dash_begin(&w->m[q->master].dash[h], now);
    li->ms[ls->mirror].q++;
    w->tot[w->li_base[q->table] + k][ls->mirror].q++;
    double x;
    hk_fault_kind f = hk_scn_fault_at(w->s, h, now, &x);
    if (f == HK_FAULT_DOWN) {
        done_at(w, now + (int64_t)rtt(mr), qi, k, HK_EV_CONNECT_FAILURE);
        return;
    }
    int64_t c = lc->a.persistent ? 0 : (int64_t)rtt(mr);
    if (f == HK_FAULT_PARTITION || c > t->connect_timeout_us) {
        done_at(w, now + t->connect_timeout_us, qi, k, HK_EV_CONNECT_TIMEOUT);
        return;
    }
    ls->connect_us = c;
    ls->t_conn = now + c;
    ls->r2 = (int64_t)rtt(mr);
    if (mr->workers.threads == 0) /* no queue: nothing depends on arrival order at the mirror */
        mirror_in(w, ls->t_conn + ls->r2 / 2, qi, k);
    else
        sim_heap_push(&w->h, ls->t_conn + ls->r2 / 2, EV_MIRROR_IN, qi, k);
}

/* Service behind the mirror's workers; returns when the reply leaves the mirror. */
static int64_t serve(sim_mirror *m, int64_t t, double svc)
{
    m->served++;
    m->busy_us += svc;
    return hk_fcfs_start(&m->workers, t, (int64_t)svc) + (int64_t)svc;
}

static void mirror_in(sim_world *w, int64_t now, int qi, int k)
{
    sim_query *q = &w->q[qi];
    sim_lstate *ls = &LS(w, qi)[k];
    const hk_table *t = &w->s->cl->tables[q->table];
    int h = t->lines[k].host[ls->mirror];
    sim_mirror *mr = &w->mir[h];
    double x = 0;
    hk_fault_kind f = hk_scn_fault_at(w->s, h, now, &x);
    int64_t deadline = ls->t_conn + t->query_timeout_us;
    if (f == HK_FAULT_HANG) { /* accepts, never says hello, never answers */
        if (w->var->hello_in_connect)
            done_at(w, ls->t_start + t->connect_timeout_us, qi, k, HK_EV_CONNECT_TIMEOUT);
        else
            done_at(w, deadline, qi, k, HK_EV_QUERY_TIMEOUT);
        return;
    }
    double perr = mr->b->errors;
    if (f == HK_FAULT_ERRORS && x > perr)
        perr = x;
    double u = perr > 0 || mr->b->warnings > 0 ? gsl_rng_uniform(mr->rng) : 1.0; /* draw if it matters */
    if (u < perr) { /* a fast ERROR reply: searchd records nothing for it */
        done_at(w, now + ls->r2 / 2, qi, k, HK_EV_REMOTE_ERROR);
        return;
    }
    double svc = hk_dist_sample(mr->b->service, mr->rng) * (f == HK_FAULT_SLOW ? x : 1.0);
    int64_t reply = serve(mr, now, svc) + ls->r2 / 2;
    hk_fault_kind cut;
    int64_t tc = hk_scn_fault_cut(w->s, h, now, reply < deadline ? reply : deadline, &cut);
    if (tc >= 0 && cut == HK_FAULT_DOWN) /* killed with the query in flight: connection reset */
        done_at(w, tc, qi, k, HK_EV_NETWORK_ERROR);
    else if (tc >= 0 || reply > deadline)
        done_at(w, deadline, qi, k, HK_EV_QUERY_TIMEOUT);
    else
        done_at(w, reply, qi, k, u < perr + mr->b->warnings ? HK_EV_WARNING : HK_EV_SUCCESS);
}

static int retryable(const sim_world *w, hk_ev ev)
{
    if (ev == HK_EV_SUCCESS || ev == HK_EV_WARNING)
        return 0;
    return w->var->rechoose_on_retry || ev == HK_EV_CONNECT_TIMEOUT; /* 2.2.11: connect phase */
}

static void on_done(sim_world *w, int64_t now, int qi, int k)
{
    sim_query *q = &w->q[qi];
    sim_lstate *ls = &LS(w, qi)[k];
    const hk_table *t = &w->s->cl->tables[q->table];
    const hk_line_conf *lc = &t->lines[k];
    int h = lc->host[ls->mirror];
    int ok = ls->ev == HK_EV_SUCCESS || ls->ev == HK_EV_WARNING;
    if (ls->blackhole) {
        q_drop(w, qi, 0);
        return;
    }
    hk_dash_record(&w->m[q->master].dash[h], now, (hk_ev)ls->ev, ls->t_start, 0, ls->connect_us);
    sim_mstat *ms = &linst(w, q, k)->ms[ls->mirror];
    sim_total *tt = &w->tot[w->li_base[q->table] + k][ls->mirror];
    if (ok) {
        hk_hist_add(&ms->per, (double)(now - ls->t_start)); /* merged into tt at period close */
        tt->ok++;
    } else {
        ms->err++;
        tt->err++;
    }
    int budget = hk_line_attempts(w->s->cl, t, lc, !w->var->rechoose_on_retry);
    if (!ok && retryable(w, (hk_ev)ls->ev) && ls->attempts < budget) {
        sim_heap_push(&w->h, now + w->s->cl->set.retry_delay_us, EV_ATTEMPT, qi, k);
        return;
    }
    line_finish(w, qi, k, now, ok);
}

static void on_arrival(sim_world *w, int64_t now)
{
    const hk_cluster *cl = w->s->cl;
    int qi = q_alloc(w);
    if (qi < 0)
        return;
    sim_query *q = &w->q[qi];
    uint64_t id = w->next_id++;
    q->id = id;
    q->t_arr = q->t_last = now;
    q->master = (int)(id % (uint64_t)w->nm);
    q->table = w->s->wl.table >= 0 ? w->s->wl.table : (int)(id % (uint64_t)cl->ntables);
    q->failed = q->reported = 0;
    const hk_table *t = &cl->tables[q->table];
    q->pending = t->nlines + 1; /* +1 holds the slot until dispatch is over */
    q->waiting = 1;
    memset(LS(w, qi), 0, (size_t)w->maxlines * sizeof(sim_lstate));
    for (int k = 0; k < t->nlines; k++) {
        LS(w, qi)[k].blackhole = t->lines[k].a.blackhole; /* sent, never waited for */
        q->waiting += !t->lines[k].a.blackhole;
        attempt(w, qi, k, now, 1);
    }
    q_drop(w, qi, 1); /* release the dispatch hold */
    hk_arrivals *a = (hk_arrivals *)&w->s->wl.arr;
    int64_t next = hk_arrivals_next(a, now, w->rng_arr);
    if (next == -2)
        w->trace_failed = 1;
    if (next >= 0 && next < w->end_us)
        sim_heap_push(&w->h, next, EV_ARRIVAL, 0, 0);
}

/* ---- pings, sampling, periods ----------------------------------------- */

static void on_ping(sim_world *w, int64_t now, int mi, int h)
{
    sim_master *m = &w->m[mi];
    int64_t iv = w->s->cl->set.ping_us;
    if (now >= w->end_us || m->ping_t0[h] >= 0)
        return;
    if (now - m->dash[h].last_answer_us < iv) {
        sim_heap_push(&w->h, m->dash[h].last_answer_us + iv, EV_PING, mi, h);
        return;
    }
    double x;
    hk_fault_kind f = hk_scn_fault_at(w->s, h, now, &x);
    int64_t t = now + iv;
    int out = HK_EV_SUCCESS;
    if (f == HK_FAULT_DOWN) {
        t = now + (int64_t)rtt(&w->mir[h]);
        out = HK_EV_CONNECT_FAILURE;
    } else if (f == HK_FAULT_PARTITION) {
        out = HK_EV_CONNECT_TIMEOUT;
    } else if (f == HK_FAULT_HANG) {
        out = w->var->hello_in_connect ? HK_EV_CONNECT_TIMEOUT : HK_EV_QUERY_TIMEOUT;
    } else {
        int64_t trip = (int64_t)(rtt(&w->mir[h]) + rtt(&w->mir[h]));
        if (trip < iv)
            t = now + trip;
        else
            out = HK_EV_QUERY_TIMEOUT;
    }
    m->ping_t0[h] = now;
    m->ping_out[h] = out;
    sim_heap_push(&w->h, t, EV_PING_DONE, mi, h);
}

static void on_ping_done(sim_world *w, int64_t now, int mi, int h)
{
    sim_master *m = &w->m[mi];
    hk_dash_record(&m->dash[h], now, (hk_ev)m->ping_out[h], m->ping_t0[h], 1, -1);
    if (m->ping_out[h] == HK_EV_SUCCESS)
        m->dash[h].ping_trip_us = now - m->ping_t0[h];
    m->ping_t0[h] = -1;
    if (now < w->end_us)
        sim_heap_push(&w->h, now + w->s->cl->set.ping_us, EV_PING, mi, h);
}

static void sample_probs(sim_world *w, int64_t now)
{
    for (int mi = 0; mi < w->nm; mi++)
        for (int i = 0; i < w->nli; i++) {
            sim_linst *li = &w->m[mi].li[i];
            hk_line_probs(li->l, now, w->probs);
            for (int j = 0; j < li->l->n; j++) {
                li->ms[j].psum += w->probs[j];
                li->ms[j].pn++;
            }
        }
}

/* Fold the period histograms into the run totals. */
static void fold_period(sim_world *w)
{
    for (int mi = 0; mi < w->nm; mi++)
        for (int i = 0; i < w->nli; i++) {
            sim_linst *li = &w->m[mi].li[i];
            for (int j = 0; j < li->l->n; j++) {
                hk_hist_merge(&w->tot[i][j].lat, &li->ms[j].per);
                hk_hist_reset(&li->ms[j].per);
            }
        }
    hk_hist_merge(&w->all, &w->per_all);
    hk_hist_reset(&w->per_all);
}

static void close_period(sim_world *w, int64_t now)
{
    if (w->period >= w->nperiods)
        return;
    for (int mi = 0; mi < w->nm; mi++)
        for (int i = 0; i < w->nli; i++) {
            sim_linst *li = &w->m[mi].li[i];
            uint64_t total = 0;
            for (int j = 0; j < li->l->n; j++)
                total += li->ms[j].q;
            if (li->ms[0].pn == 0)
                sample_probs(w, now);
            for (int j = 0; j < li->l->n; j++) {
                sim_mstat *ms = &li->ms[j];
                ms->prob[w->period] = ms->pn ? ms->psum / ms->pn : 0;
                ms->share[w->period] = total ? (double)ms->q / (double)total : NAN;
                if (w->o.periods)
                    sim_out_period(w, mi, li, j);
                ms->q = ms->err = 0;
                ms->psum = 0;
                ms->pn = 0;
            }
        }
    if (w->o.latency)
        sim_out_latency(w);
    fold_period(w);
    w->per_ok = w->per_partial = w->per_err = 0;
    w->period++;
}

static void dispatch(sim_world *w, const sim_ev *e)
{
    int64_t karma = sim_karma_us(w);
    switch (e->type) {
    case EV_ARRIVAL: on_arrival(w, e->t); break;
    case EV_ATTEMPT: attempt(w, e->a, e->b, e->t, w->var->rechoose_on_retry); break;
    case EV_MIRROR_IN: mirror_in(w, e->t, e->a, e->b); break;
    case EV_DONE: on_done(w, e->t, e->a, e->b); break;
    case EV_PING: on_ping(w, e->t, e->a, e->b); break;
    case EV_PING_DONE: on_ping_done(w, e->t, e->a, e->b); break;
    case EV_SAMPLE:
        if (e->t < w->end_us) {
            sample_probs(w, e->t);
            sim_heap_push(&w->h, e->t + (karma / 10 > 0 ? karma / 10 : 1), EV_SAMPLE, 0, 0);
        }
        break;
    case EV_PERIOD:
        if (e->t <= w->end_us) {
            close_period(w, e->t);
            sim_heap_push(&w->h, e->t + karma, EV_PERIOD, 0, 0);
        }
        break;
    case EV_END:
        if (e->t % karma)
            close_period(w, e->t);
        break;
    }
}

int sim_run(sim_world *w)
{
    sim_ev e;
    while (sim_heap_pop(&w->h, &e)) {
        w->events++;
        w->t_now = e.t;
        dispatch(w, &e);
    }
    fold_period(w); /* queries that finished after the last period closed */
    return w->trace_failed ? -1 : 0;
}
