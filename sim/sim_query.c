/* sim_query: a query's life in the simulator — its arrival (open loop from
 * the arrival process or a trace; closed loop from a client whose previous
 * query was answered), one attempt per agent line (the core picks the
 * mirror), the mirror's answer or failure, retries, and the query's end. */
#include <stdlib.h>
#include <string.h>
#include "sim.h"
#include "sim_out.h"

#define SIM_Q_FIRST_BYTES (1u << 20) /* the line states of the first query slots, at most */

/* ---- query slots -------------------------------------------------------- */

static int q_alloc(sim_world *w)
{
    if (w->qfree < 0) {
        /* the first slots: 256, or fewer where a query has many lines (a slot is 64 bytes a
         * line, and a 1024-line cluster keeps a few queries in flight, not 256 x 64 KB) */
        int first = (int)(SIM_Q_FIRST_BYTES / ((size_t)w->maxlines * sizeof(sim_lstate)));
        int cap = w->nq ? w->nq * 2 : first < 2 ? 2 : first > 256 ? 256 : first;
        sim_query *q = realloc(w->q, (size_t)cap * sizeof *q);
        if (!q)
            return -1;
        w->q = q;
        size_t per = (size_t)w->maxlines * sizeof(sim_lstate);
        sim_lstate *ls = sim_alloc_lines((size_t)cap, per);
        if (!ls)
            return -1;
        if (w->nq)
            memcpy(ls, w->lsbuf, (size_t)w->nq * per);
        free(w->lsbuf);
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

static int64_t rtt(sim_mirror *m)
{
    return m->svc_ahead ? m->rtt_us : (int64_t)hk_dist_sample(m->b->rtt, m->rng);
}

/* Open-loop arrivals come one at a time: they wait in the heap's lane. */
static void push_arrival(sim_world *w, int64_t t, int client, int table)
{
    if (t < 0 || t >= w->end_us)
        return;
    if (client >= 0 || sim_heap_push_lane(&w->h, t, EV_ARRIVAL, client, table) < 0)
        sim_heap_push(&w->h, t, EV_ARRIVAL, client, table);
}

/* The next open-loop arrival after now (its table rides in the event). */
static void next_arrival(sim_world *w, int64_t now)
{
    int table;
    int64_t t = hk_arrivals_next(&w->arr, now, w->rng_arr, &table);
    if (t == -2)
        w->trace_failed = 1;
    push_arrival(w, t, -1, table);
}

void sim_q_start(sim_world *w)
{
    const hk_workload *wl = &w->s->wl;
    if (!wl->clients) {
        next_arrival(w, w->t0);
        return;
    }
    for (int c = 0; c < wl->clients; c++) /* every client starts after one think time */
        push_arrival(w, w->t0 + (int64_t)hk_dist_sample(wl->think, w->rng_arr), c, -1);
}

/* ---- the end of a query -------------------------------------------------- */

static void query_finish(sim_world *w, int qi)
{
    sim_query *q = &w->q[qi];
    const hk_table *t = q->t;
    int status = q->failed == 0 ? 0 : (q->failed == t->nlines && t->nlocal == 0) ? 2 : 1;
    if (status == 0) {
        w->n_ok++;
        w->per_ok++;
    } else if (status == 1) {
        w->n_partial++;
        w->per_partial++;
    } else {
        w->n_error++;
        w->per_err++;
    }
    /* a failed query is no latency: it is counted beside (merged into w->all at period close) */
    if (status != 2)
        hk_hist_add(&w->per_all, (double)(q->t_last - q->t_arr));
    hk_tl_query(&w->tl, q->t_last, status);
    if (w->o.queries)
        sim_out_query(w, q, SIM_LS(w, qi));
    if (q->client >= 0) /* closed loop: the client thinks, then sends its next query */
        push_arrival(w, q->t_last + (int64_t)hk_dist_sample(w->s->wl.think, w->rng_arr),
                     q->client, -1);
}

/* A line's event is over; waited: the master waited for it (not a blackhole). */
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
    SIM_LS(w, qi)[k].u.t_done = t;
    if (t > q->t_last)
        q->t_last = t;
    q->failed += !ok;
    q_drop(w, qi, 1);
}

static void done_at(sim_world *w, int64_t t, int qi, int k, hk_ev ev)
{
    SIM_LS(w, qi)[k].ev = (char)ev;
    sim_heap_push(&w->h, t, EV_DONE, qi, k);
}

/* The first attempt on host h after one of its faults ended (time to re-admission). */
static void note_readmit(sim_world *w, int mi, int h, int64_t now)
{
    const hk_scn *s = w->s;
    int64_t rel = sim_rel(w, now);
    for (int fi = 0; fi < s->nfaults; fi++) {
        const hk_fault *f = &s->faults[fi];
        int64_t *fa = &w->first_after[fi * w->nm + mi];
        if (f->host == h && *fa < 0 && f->for_us >= 0 && rel >= f->at_us + f->for_us)
            *fa = rel;
    }
}

/* ---- attempts --------------------------------------------------------- */

/* A persistent line's attempt rents from its host's pool: 1 a pooled connection that still
 * works (no connect), 0 one to open (a slot without one, a slot whose connection its agent
 * closed since it last answered — found on rent and replaced, no failure: measured on 2.2.11 —
 * or no slot free: a plain one). */
static int pool_rent(sim_world *w, sim_master *ma, int h, sim_conn *cn, sim_lstate *ls,
                     int64_t now)
{
    hk_pool *p = &ma->pool[h];
    int64_t c = hk_pool_rent(p);
    if (c == HK_POOL_NONE) {
        cn->fallbacks++;
        return 0;
    }
    ls->pooled = 1;
    if (c == HK_POOL_NEW) {
        cn->misses++;
        return 0;
    }
    if (!w->s->nfaults || !hk_scn_down_in(w->s, h, sim_rel(w, c), sim_rel(w, now))) {
        cn->hits++;
        return 1;
    }
    cn->stale++;
    cn->misses++; /* closed on rent, a new one opened in its slot */
    return 0;
}

/* The attempt's end gives its pooled connection back: open after a reply (its last sign of
 * life: now), closed after a failure (and, with close-on-fatal, the idle ones with it). */
static void pool_back(sim_world *w, int qi, sim_lstate *ls, int64_t now)
{
    hk_pool *p = &w->m[w->q[qi].master].pool[ls->rt->host];
    int keep = hk_ev_ok(ls->ev) || ls->ev == HK_EV_REMOTE_ERROR;
    hk_pool_return(p, keep ? now : HK_POOL_NEW);
    if (!keep)
        hk_pool_fatal(p, NULL, 0);
    ls->pooled = 0;
}

void sim_q_attempt(sim_world *w, int qi, int k, int64_t now, int choose)
{
    sim_query *q = &w->q[qi];
    sim_lstate *ls = &SIM_LS(w, qi)[k];
    const hk_table *t = q->t;
    sim_linst *li = &q->li[k];
    if (choose)
        ls->mirror = hk_line_choose(li->l, now, w->rng_pick);
    sim_route *rt = ls->rt = &li->rt[ls->mirror];
    ls->dash = rt->dash;
    ls->series = rt->series;
    ls->ext = (char)rt->ext;
    int h = rt->host;
    sim_mirror *mr = rt->mr;
    ls->attempts++;
    ls->svc_us = ls->wait_us = -1.0f;
    ls->t_start = now;
    ls->connect_us = -1;
    hk_dash_begin(rt->dash, now);
    if (rt->ext) /* as at its end: only an extension's line counts what is in flight */
        hk_line_begin(li->l, ls->mirror, now);
    rt->ms.q++; /* folded into the run's totals at period close, as the latencies are */
    hk_tl_attempt(&w->tl, rt->series, now);
    if (w->s->nfaults)
        note_readmit(w, q->master, h, now);
    double x;
    hk_fault_kind f = w->s->nfaults ? hk_scn_fault_at(w->s, h, sim_rel(w, now), &x)
                                    : HK_FAULT_NONE;
    sim_master *ma = &w->m[q->master];
    sim_conn *cn = &ma->conn[rt - ma->rt];
    ls->pooled = 0;
    int have = li->persistent ? pool_rent(w, ma, h, cn, ls, now) : 0;
    if (!have && (f == HK_FAULT_DOWN || (!mr->svc_ahead && mr->b->refuse > 0 &&
                                         gsl_rng_uniform(mr->rng) < mr->b->refuse))) {
        done_at(w, now + rtt(mr), qi, k, HK_EV_CONNECT_FAILURE);
        return;
    }
    int64_t c = have ? 0 : rtt(mr);
    if (f == HK_FAULT_PARTITION || c > t->connect_timeout_us) {
        done_at(w, now + t->connect_timeout_us, qi, k, HK_EV_CONNECT_TIMEOUT);
        return;
    }
    if (!have) { /* a connection opened: it holds a port until its TIME_WAIT is over */
        if (w->ports_eff && hk_ports_connect(&ma->ports[h], now) < 0) {
            cn->no_port++; /* EADDRNOTAVAIL, at once: "connect() failed" */
            done_at(w, now, qi, k, HK_EV_CONNECT_FAILURE);
            return;
        }
        cn->connects++;
    }
    ls->connect_us = c;
    ls->u.r2 = rtt(mr);
    int64_t in = now + c + ls->u.r2 / 2;
    /* No queue, nothing depends on arrival order at the mirror; no delay, it arrives now, in
     * order: either way no event is needed. */
    if (mr->workers.threads == 0 || in == now)
        sim_q_mirror_in(w, in, qi, k);
    else
        sim_heap_push(&w->h, in, EV_MIRROR_IN, qi, k);
}

/* Service behind the mirror's workers; returns when the reply leaves the mirror. */
static int64_t serve(sim_world *w, sim_mirror *m, int64_t t, double svc)
{
    if (t >= w->tail_us && t < w->end_us)
        m->busy_tail_us += svc;
    return hk_fcfs_start(&m->workers, t, (int64_t)svc) + (int64_t)svc;
}

void sim_q_mirror_in(sim_world *w, int64_t now, int qi, int k)
{
    sim_lstate *ls = &SIM_LS(w, qi)[k];
    const hk_table *t = w->q[qi].t;
    int h = ls->rt->host;
    sim_mirror *mr = ls->rt->mr;
    double x = 0;
    hk_fault_kind f = w->s->nfaults ? hk_scn_fault_at(w->s, h, sim_rel(w, now), &x)
                                    : HK_FAULT_NONE;
    int64_t deadline = ls->t_start + ls->connect_us + t->query_timeout_us;
    if (f == HK_FAULT_STUCK) { /* hello came; the search is held until the mirror unsticks, */
        int64_t end = hk_scn_fault_end(w->s, h, sim_rel(w, now), HK_FAULT_STUCK);
        if (end < 0 || w->t0 + end >= deadline) /* ... too late for its master */
            done_at(w, deadline, qi, k, HK_EV_QUERY_TIMEOUT);
        else /* ... then taken in as if it arrived then (its deadline unchanged) */
            sim_heap_push(&w->h, w->t0 + end, EV_MIRROR_IN, qi, k);
        return;
    }
    if (f == HK_FAULT_STALL) { /* the kernel accepts, nothing says hello, nothing answers */
        if (w->var->hello_in_connect)
            done_at(w, ls->t_start + t->connect_timeout_us, qi, k, HK_EV_CONNECT_TIMEOUT);
        else
            done_at(w, deadline, qi, k, HK_EV_QUERY_TIMEOUT);
        return;
    }
    double perr = 0, u = 1.0;
    if (!mr->svc_ahead) {
        perr = f == HK_FAULT_ERRORS && x > mr->b->errors ? x : mr->b->errors;
        u = perr > 0 || mr->b->warnings > 0 ? gsl_rng_uniform(mr->rng) : 1.0; /* if it matters */
    }
    if (u < perr) { /* a fast ERROR reply: searchd records nothing for it */
        done_at(w, now + ls->u.r2 / 2, qi, k, HK_EV_REMOTE_ERROR);
        return;
    }
    double svc = (mr->svc_ahead ? hk_dist_ahead_next(&mr->svc)
                                : hk_dist_sample(mr->b->service, mr->rng)) *
                 (f == HK_FAULT_SLOW ? x : 1.0);
    int64_t left = serve(w, mr, now, svc), reply = left + ls->u.r2 / 2;
    ls->svc_us = (float)svc;
    ls->wait_us = (float)((double)(left - now) - svc);
    hk_fault_kind cut = HK_FAULT_NONE;
    int64_t tc = w->s->nfaults ? hk_scn_fault_cut(w->s, h, sim_rel(w, now),
                                                  sim_rel(w, reply < deadline ? reply : deadline),
                                                  &cut) : -1;
    if (tc >= 0 && cut == HK_FAULT_DOWN) /* killed with the query in flight: connection reset */
        done_at(w, w->t0 + tc, qi, k, HK_EV_NETWORK_ERROR);
    else if (tc >= 0 || reply > deadline)
        done_at(w, deadline, qi, k, HK_EV_QUERY_TIMEOUT);
    else
        done_at(w, reply, qi, k,
                !mr->svc_ahead && u < perr + mr->b->warnings ? HK_EV_WARNING : HK_EV_SUCCESS);
}

static int retryable(const sim_world *w, hk_ev ev)
{
    if (ev == HK_EV_SUCCESS || ev == HK_EV_WARNING)
        return 0;
    return w->var->rechoose_on_retry || ev == HK_EV_CONNECT_TIMEOUT; /* 2.2.11: connect phase */
}

void sim_q_done(sim_world *w, int64_t now, int qi, int k)
{
    sim_lstate *ls = &SIM_LS(w, qi)[k];
    int ok = hk_ev_ok(ls->ev);
    if (ls->pooled)
        pool_back(w, qi, ls, now);
    if (ls->ext) { /* only an extension's line hears of an end (the line itself is cold) */
        hk_line *l = w->q[qi].li[k].l;
        hk_line_feedback(l, ls->mirror, ls->svc_us, ls->wait_us);
        hk_line_end(l, ls->mirror, now, ok, now - ls->t_start);
    }
    if (ls->blackhole) {
        q_drop(w, qi, 0);
        return;
    }
    hk_dash_record(ls->dash, now, (hk_ev)ls->ev, ls->t_start, 0, ls->connect_us);
    hk_tl_outcome(&w->tl, ls->series, now, ls->ev, now - ls->t_start);
    if (ok) /* the period's counts and latencies: folded into tt at period close */
        sim_p_lat(w, &ls->rt->ms.per, (double)(now - ls->t_start));
    else
        ls->rt->ms.err++;
    if (!ok && retryable(w, (hk_ev)ls->ev) && ls->attempts < w->q[qi].li[k].budget) {
        sim_heap_push(&w->h, now + w->s->cl->set.retry_delay_us, EV_ATTEMPT, qi, k);
        return;
    }
    line_finish(w, qi, k, now, ok);
}

/* ---- arrivals ----------------------------------------------------------- */

static int pick_table(sim_world *w, int table)
{
    if (table >= 0)
        return table;
    const hk_workload *wl = &w->s->wl;
    int n = w->s->cl->ntables;
    return wl->table >= 0 ? wl->table : n == 1 ? 0 : (int)(w->next_id % (uint64_t)n);
}

/* client: a closed-loop client's index, -1 for open loop; table: as its source gave it (-1 the
 * workload's, -2 a table the config does not serve). */
void sim_q_arrival(sim_world *w, int64_t now, int client, int table)
{
    const hk_cluster *cl = w->s->cl;
    if (client < 0)
        next_arrival(w, now);
    if (table == -2) { /* a trace query for a table the config does not serve */
        w->n_unknown++;
        return;
    }
    int qi = q_alloc(w);
    if (qi < 0)
        return;
    sim_query *q = &w->q[qi];
    q->id = w->next_id;
    q->table = pick_table(w, table);
    w->next_id++;
    q->t_arr = q->t_last = now;
    q->client = client;
    q->master = w->nm == 1 ? 0 : (int)((client >= 0 ? (uint64_t)client : q->id) % (uint64_t)w->nm);
    q->failed = 0;
    const hk_table *t = q->t = &cl->tables[q->table];
    q->li = &w->m[q->master].li[w->li_base[q->table]];
    q->pending = t->nlines;
    q->waiting = 0;
    sim_lstate *ls = SIM_LS(w, qi);
    for (int k = 0; k < t->nlines; k++) {
        ls[k].blackhole = q->li[k].blackhole; /* sent, never waited for */
        ls[k].attempts = 0; /* the attempt sets the rest; these are read at the end */
        ls[k].ev = 0;
        ls[k].u.t_done = 0;
        q->waiting += !q->li[k].blackhole;
        sim_q_attempt(w, qi, k, now, 1); /* never ends a line at once: its end is an event */
    }
    if (q->waiting == 0) /* nothing to wait for: only local indexes, or blackholes */
        query_finish(w, qi);
    if (q->pending == 0)
        q_release(w, qi);
}
