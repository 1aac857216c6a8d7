/* sim_out: CSV rows of the simulator (written through io/hk_csv). */
#include "sim_out.h"

#include <inttypes.h>
#include "hk_csv.h"
#include "hk_report.h"


void sim_out_headers(const sim_opts *o)
{
    if (o->periods)
        hk_rep_periods_header(o->periods);
    if (o->latency)
        hk_rep_latency_header(o->latency);
    if (o->queries)
        hk_rep_queries_header(o->queries);
}

void sim_out_period(sim_world *w, int master, const sim_linst *li, int j, double t_s, double prob)
{
    const hk_table *t = &w->s->cl->tables[li->table];
    const hk_line_conf *lc = &t->lines[li->line];
    const hk_lper *ms = &li->rt[j].ms;
    hk_rep_period_row(w->o.periods, w->period, t_s, master, t->name, li->line + 1,
                      w->s->cl->hosts[lc->host[j]].name, prob,
                      li->l->w[j] * w->var->display_scale, ms->q, ms->err,
                      !hk_dash_dead(&w->m[master].dash[lc->host[j]]), &ms->per);
}

void sim_out_latency(sim_world *w, double t_s)
{
    hk_rep_latency_row(w->o.latency, w->period, t_s, w->per_ok, w->per_partial, w->per_err,
                       &w->per_all);
}

void sim_out_query(sim_world *w, const sim_query *q, const sim_lstate *ls)
{
    const hk_table *t = &w->s->cl->tables[q->table];
    double at = (double)sim_rel(w, q->t_arr) / 1e6;
    for (int k = 0; k < t->nlines; k++) {
        const hk_line_conf *lc = &t->lines[k];
        hk_rep_query_row(w->o.queries, q->id, at, at, t->name, k + 1,
                         w->s->cl->hosts[lc->host[ls[k].mirror]].name, ls[k].attempts,
                         ls[k].blackhole ? "blackhole" : hk_ev_name(ls[k].ev),
                         ls[k].blackhole ? 0.0 : (double)(ls[k].u.t_done - q->t_arr) / 1000.0);
    }
}
