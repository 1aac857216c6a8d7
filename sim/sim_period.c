/* sim_period: the simulator's clockwork besides queries — pings of idle HA
 * mirrors, probability samples (into the karma period's mean and the fine
 * timeline), the close of each karma period (epoch-aligned, as searchd's
 * blocks), and SHOW AGENT STATUS taken when the run ends. */
#include <stdio.h>
#include <stdlib.h>
#include "hk_report.h"
#include <gsl/gsl_rng.h>
#include "sim.h"
#include "sim_out.h"

void sim_p_start(sim_world *w)
{
    const hk_cluster *cl = w->s->cl;
    sim_heap_push(&w->h, w->t0 + w->sample_us / 2, EV_SAMPLE, 0, 0);
    if ((w->b0 + 1) * w->karma_us <= w->end_us)
        sim_heap_push(&w->h, (w->b0 + 1) * w->karma_us, EV_PERIOD, 0, 0);
    sim_heap_push(&w->h, w->end_us, EV_END, 0, 0);
    if (cl->set.ping_us <= 0)
        return;
    for (int mi = 0; mi < w->nm; mi++)
        for (int h = 0; h < cl->nhosts; h++) {
            int pinged = w->var->layout == HK_LAYOUT_SPHINX2 ? cl->hosts[h].in_ha
                                                             : cl->hosts[h].in_ha_nonbh;
            if (pinged)
                sim_heap_push(&w->h, w->t0 + cl->set.ping_us, EV_PING, mi, h);
        }
}

/* ---- pings ------------------------------------------------------------ */

static double rtt(sim_mirror *m) { return hk_dist_sample(m->b->rtt, m->rng); }

void sim_p_ping(sim_world *w, int64_t now, int mi, int h)
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
    hk_fault_kind f = hk_scn_fault_at(w->s, h, sim_rel(w, now), &x);
    int64_t t = now + iv;
    int out = HK_EV_SUCCESS;
    sim_mirror *mr = &w->mir[h];
    /* a ping connects as a query does: a mirror that refuses a share of connects refuses its
     * pings alike (a draw only where it refuses some, so other runs keep their draws) */
    int refused = f == HK_FAULT_NONE && mr->b && mr->b->refuse > 0 &&
                  gsl_rng_uniform(mr->rng) < mr->b->refuse;
    if (f == HK_FAULT_DOWN || refused) {
        t = now + (int64_t)rtt(mr);
        out = HK_EV_CONNECT_FAILURE;
    } else if (f != HK_FAULT_PARTITION && w->ports_eff &&
               hk_ports_connect(&m->ports[h], now) < 0) { /* a ping's connection takes a port */
        t = now;
        out = HK_EV_CONNECT_FAILURE;
    } else if (f == HK_FAULT_PARTITION) {
        out = HK_EV_CONNECT_TIMEOUT;
    } else if (f == HK_FAULT_STALL) {
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

void sim_p_ping_done(sim_world *w, int64_t now, int mi, int h)
{
    sim_master *m = &w->m[mi];
    hk_dash_record(&m->dash[h], now, (hk_ev)m->ping_out[h], m->ping_t0[h], 1, -1);
    if (m->ping_out[h] == HK_EV_SUCCESS)
        m->dash[h].ping_trip_us = now - m->ping_t0[h];
    m->ping_t0[h] = -1;
    if (now < w->end_us)
        sim_heap_push(&w->h, now + w->s->cl->set.ping_us, EV_PING, mi, h);
}

/* ---- samples and periods ---------------------------------------------- */

void sim_p_sample(sim_world *w, int64_t now)
{
    for (int mi = 0; mi < w->nm; mi++)
        for (int i = 0; i < w->nli; i++) {
            sim_linst *li = &w->m[mi].li[i];
            const hk_line *l = li->l;
            hk_line_probs(li->l, now, w->probs);
            double wsum = 0;
            for (int j = 0; j < l->n; j++)
                wsum += l->w[j];
            for (int j = 0; j < l->n; j++) {
                li->rt[j].ms.psum += w->probs[j];
                li->rt[j].ms.pn++;
                hk_tl_sample(&w->tl, li->series + j, now, w->probs[j],
                             wsum > 0 ? l->w[j] / wsum : 0);
            }
        }
}

void sim_p_lat_flush(sim_world *w)
{
    for (int i = 0; i < w->nlat; i++)
        hk_hist_add(w->lat[i].h, w->lat[i].us);
    w->nlat = 0;
}

/* Fold the period's counts and histograms into the run totals (an attempt writes only its
 * route's period counters: one cache line less per attempt on a large cluster). */
void sim_p_fold(sim_world *w)
{
    sim_p_lat_flush(w);
    for (int mi = 0; mi < w->nm; mi++)
        for (int i = 0; i < w->nli; i++) {
            sim_linst *li = &w->m[mi].li[i];
            for (int j = 0; j < li->l->n; j++) {
                hk_ledger_fold(hk_ledger_at(&w->led, i, j), &li->rt[j].ms);
            }
        }
    hk_hist_merge(&w->all, &w->per_all);
    hk_hist_reset(&w->per_all);
}

void sim_p_conns(sim_world *w)
{
    for (int mi = 0; mi < w->nm; mi++)
        for (int i = 0, r = 0; i < w->nli; i++)
            for (int j = 0; j < w->m[mi].li[i].l->n; j++, r++) {
                const sim_conn *c = &w->m[mi].conn[r];
                hk_ltot *t = hk_ledger_at(&w->led, i, j);
                t->connects += c->connects;
                t->hits += c->hits;
                t->misses += c->misses;
                t->fallbacks += c->fallbacks;
            }
}

/* The period being closed starts at its block's start, or at the run's start. */
static double period_start_s(const sim_world *w)
{
    int64_t b = (w->b0 + w->period) * w->karma_us;
    return (double)(sim_rel(w, b > w->t0 ? b : w->t0)) / 1e6;
}

void sim_p_close(sim_world *w, int64_t now)
{
    if (w->period >= w->nperiods)
        return;
    double t_s = period_start_s(w);
    sim_p_lat_flush(w); /* the period's rows read its histograms */
    for (int mi = 0; mi < w->nm; mi++)
        for (int i = 0; i < w->nli; i++) {
            sim_linst *li = &w->m[mi].li[i];
            if (li->rt[0].ms.pn == 0)
                sim_p_sample(w, now);
            for (int j = 0; j < li->l->n; j++) {
                hk_lper *ms = &li->rt[j].ms;
                if (w->o.periods)
                    sim_out_period(w, mi, li, j, t_s, ms->pn ? ms->psum / ms->pn : 0);
                ms->psum = 0;
                ms->pn = 0;
            }
        }
    if (w->o.latency)
        sim_out_latency(w, t_s);
    sim_p_fold(w);
    w->per_ok = w->per_partial = w->per_err = 0;
    w->period++;
}

/* SHOW AGENT STATUS of master 0 as the run ends (queries still in flight drain after). */
void sim_p_status(sim_world *w, int64_t now)
{
    hk_line **lines = calloc((size_t)w->nli + 1, sizeof *lines);
    if (!lines) {
        w->status_failed = 1;
        return;
    }
    for (int i = 0; i < w->nli; i++)
        lines[i] = w->m[0].li[i].l;
    char title[96];
    snprintf(title, sizeof title, "master 0 of %d, at the run's end, %.3f s", w->nm,
             (double)sim_rel(w, now) / 1e6);
    w->status_failed = hk_rep_status(&w->status, w->s->cl, w->m[0].dash, lines, w->var, now,
                                     title) < 0;
    free(lines);
}
