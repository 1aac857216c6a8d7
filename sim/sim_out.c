/* sim_out: CSV rows of the simulator (written through io/hk_csv). */
#include "sim_out.h"

#include <inttypes.h>
#include "hk_csv.h"
#include "hk_report.h"

const char *sim_ev_name(int ev)
{
    static const char *n[] = {"query_timeout", "connect_timeout", "connect_failure",
                              "network_error", "wrong_query", "wrong_reply", "unexpected_close",
                              "warning", "ok", "remote_error"};
    return ev >= 0 && ev <= HK_EV_REMOTE_ERROR ? n[ev] : "unknown";
}

void sim_out_headers(const sim_opts *o)
{
    if (o->periods)
        hk_rep_periods_header(o->periods);
    if (o->latency)
        hk_rep_latency_header(o->latency);
    if (o->queries)
        fputs("id,t_arrival_s,table,agent,mirror,attempts,status,latency_ms\n", o->queries);
}

void sim_out_period(sim_world *w, int master, const sim_linst *li, int j)
{
    const hk_table *t = &w->s->cl->tables[li->table];
    const hk_line_conf *lc = &t->lines[li->line];
    const sim_mstat *ms = &li->ms[j];
    int64_t k = sim_karma_us(w);
    hk_rep_period_row(w->o.periods, w->period, (double)((int64_t)w->period * k) / 1e6, master,
                      t->name, li->line + 1, w->s->cl->hosts[lc->host[j]].name,
                      ms->prob[w->period], li->l->w[j] * w->var->display_scale, ms->q, ms->err,
                      !hk_dash_dead(&w->m[master].dash[lc->host[j]]), &ms->per);
}

void sim_out_latency(sim_world *w)
{
    int64_t k = sim_karma_us(w);
    hk_rep_latency_row(w->o.latency, w->period, (double)((int64_t)w->period * k) / 1e6, w->per_ok,
                       w->per_partial, w->per_err, &w->per_all);
}

void sim_out_query(sim_world *w, const sim_query *q, const sim_lstate *ls)
{
    FILE *f = w->o.queries;
    const hk_table *t = &w->s->cl->tables[q->table];
    for (int k = 0; k < t->nlines; k++) {
        const hk_line_conf *lc = &t->lines[k];
        fprintf(f, "%" PRIu64 ",%.6f,", q->id, (double)q->t_arr / 1e6);
        hk_csv_str(f, t->name, 1);
        fprintf(f, ",%d,", k + 1);
        hk_csv_str(f, w->s->cl->hosts[lc->host[ls[k].mirror]].name, 1);
        fprintf(f, ",%d,%s,%.3f\n", ls[k].attempts,
                ls[k].blackhole ? "blackhole" : sim_ev_name(ls[k].ev),
                ls[k].blackhole ? 0.0 : (double)(ls[k].t_done - q->t_arr) / 1000.0);
    }
}
