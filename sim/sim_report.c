/* sim_report: the analysis of a run, its words and its files. */
#include "sim_report.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "hk_csv.h"
#include "hk_file.h"
#include "hk_folder.h"
#include "hk_report.h"
#include "hk_time.h"

static double ms(double us) { return us / 1000.0; }

void sim_strategy_label(const hk_scn *s, int strategy, char *buf, size_t n)
{
    if (strategy >= 0) {
        snprintf(buf, n, "%s", hk_strat_get(strategy)->name);
        return;
    }
    int seen[64] = {0};
    size_t o = 0;
    buf[0] = '\0';
    for (int t = 0; t < s->cl->ntables; t++)
        for (int k = 0; k < s->cl->tables[t].nlines; k++) {
            int id = s->cl->tables[t].lines[k].strategy;
            if (id >= 0 && id < 64 && !seen[id] && o < n) {
                seen[id] = 1;
                o += (size_t)snprintf(buf + o, n - o, "%s%s", o ? "+" : "", hk_strat_get(id)->name);
            }
        }
    if (o < n)
        snprintf(buf + o, n - o, " (configured)");
}

/* Utilisation of each host over the last quarter: offered service / (workers x time). */
static int utilisation(const sim_world *w, sim_result *r)
{
    int n = w->s->cl->nhosts;
    r->util = calloc((size_t)n + 1, sizeof *r->util);
    r->work_ms = calloc((size_t)n + 1, sizeof *r->work_ms);
    if (!r->util || !r->work_ms)
        return -1;
    double quarter_s = (double)(w->end_us - w->t0) / 4e6;
    for (int h = 0; h < n; h++) {
        const sim_mirror *m = &w->mir[h];
        r->work_ms[h] = m->busy_tail_us / 1000.0 / quarter_s;
        r->util[h] = m->workers.threads ? m->busy_tail_us / 1e6 / quarter_s / m->workers.threads
                                        : NAN;
    }
    return 0;
}

/* Each series' latency histogram: its line x mirror's run total (the masters' together). */
static int series_lat(const sim_world *w, sim_result *r)
{
    const hk_tl *t = &w->tl;
    r->lat = calloc((size_t)t->nser + 1, sizeof *r->lat);
    if (!r->lat)
        return -1;
    for (int s = 0; s < t->nser; s++) {
        const hk_tl_series *se = &t->ser[s];
        r->lat[s] = &hk_ledger_at(&w->led, w->li_base[se->table] + se->line, se->mirror)->lat;
    }
    return 0;
}

/* Every master x host whose ephemeral ports ran out. */
static int port_facts(const sim_world *w, sim_result *r, int *n)
{
    int nh = w->s->cl->nhosts;
    *n = 0;
    r->ports = calloc((size_t)w->nm * (size_t)nh + 1, sizeof *r->ports);
    if (!r->ports)
        return -1;
    for (int mi = 0; mi < w->nm; mi++)
        for (int h = 0; h < nh; h++) {
            const hk_ports *p = &w->m[mi].ports[h];
            if (p->first_out_us < 0)
                continue;
            r->ports[(*n)++] = (hk_port_fact){.master = mi, .host = h,
                .t_s = (double)sim_rel(w, p->first_out_us) / 1e6, .rate = hk_ports_out_rate(p),
                .allowed = (double)p->ports / p->time_wait_s, .refused = p->refused};
        }
    return 0;
}

int sim_analyse(const sim_world *w, sim_result *r)
{
    memset(r, 0, sizeof *r);
    int nports = 0;
    if (utilisation(w, r) < 0 || series_lat(w, r) < 0 || port_facts(w, r, &nports) < 0)
        return -1;
    r->in = (hk_find_in){
        .tl = &w->tl, .scn = w->s, .var = w->var,
        .strategy = w->o.strategy >= 0 ? hk_strat_get(w->o.strategy)->name : NULL,
        .duration_us = w->end_us - w->t0, .nmasters = w->nm, .first_after = w->first_after,
        .util = r->util, .work_ms = r->work_ms, .lat = r->lat, .lag_p99_us = 0,
        .ports = r->ports, .nports = nports};
    r->ans = (hk_ans){&r->fd, &w->tl, w->s, w->nm};
    return hk_find_run(&r->in, &r->fd);
}

void sim_result_free(sim_result *r)
{
    hk_findings_free(&r->fd);
    free(r->util);
    free(r->work_ms);
    free(r->lat);
    free(r->ports);
    memset(r, 0, sizeof *r);
}

int sim_share_count(const hk_scn *s)
{
    int n = 0;
    for (int t = 0; t < s->cl->ntables; t++)
        for (int k = 0; k < s->cl->tables[t].nlines; k++)
            n += s->cl->tables[t].lines[k].a.n;
    return n < SIM_MAX_SHARES ? n : SIM_MAX_SHARES;
}

void sim_share_label(const hk_scn *s, int want, char *buf, size_t len)
{
    const hk_cluster *cl = s->cl;
    buf[0] = '\0';
    for (int t = 0, i = 0; t < cl->ntables; t++)
        for (int k = 0; k < cl->tables[t].nlines; k++)
            for (int j = 0; j < cl->tables[t].lines[k].a.n; j++, i++)
                if (i == want)
                    snprintf(buf, len, "%s/%d/%s", cl->tables[t].name, k + 1,
                             cl->hosts[cl->tables[t].lines[k].host[j]].name);
}

/* Each of the first SIM_MAX_SHARES mirrors' share of its line's attempts (all masters). */
static void shares_of(const sim_world *w, sim_figures *f)
{
    const hk_cluster *cl = w->s->cl;
    f->nshares = sim_share_count(w->s);
    for (int t = 0, i = 0; t < cl->ntables; t++)
        for (int k = 0; k < cl->tables[t].nlines; k++) {
            const hk_ltot *tt = w->led.tot[w->li_base[t] + k];
            uint64_t all = 0;
            for (int j = 0; j < cl->tables[t].lines[k].a.n; j++)
                all += tt[j].q;
            for (int j = 0; j < cl->tables[t].lines[k].a.n; j++, i++)
                if (i < f->nshares)
                    f->share[i] = all ? (double)tt[j].q / (double)all : 0;
        }
}

void sim_figures_of(const sim_world *w, const sim_result *r, sim_figures *f)
{
    memset(f, 0, sizeof *f);
    f->ok = (double)w->n_ok;
    f->partial = (double)w->n_partial;
    f->error = (double)w->n_error;
    f->n = f->ok + f->partial + f->error;
    f->failed_rate = f->n ? (f->partial + f->error) / f->n : 0;
    f->mean = ms(hk_hist_mean(&w->all));
    f->p50 = ms(hk_hist_quantile(&w->all, 0.5));
    f->p95 = ms(hk_hist_quantile(&w->all, 0.95));
    f->p99 = ms(hk_hist_quantile(&w->all, 0.99));
    f->p999 = ms(hk_hist_quantile(&w->all, 0.999));
    hk_ans_conv_cell(&r->ans, f->conv, sizeof f->conv);
    hk_ans_kinds_cell(&r->ans, f->kinds, sizeof f->kinds);
    shares_of(w, f);
    for (int fi = 0; fi < w->s->nfaults && fi < SIM_MAX_FAULT_CELLS; fi++) {
        hk_ans_readmit_cell(&r->ans, fi, f->readmit[fi], sizeof f->readmit[fi]);
        /* a fault that starts after the run never happened: no re-admission to wait for */
        f->readmit_s[fi] = w->s->faults[fi].at_us >= w->end_us - w->t0 ? SIM_READMIT_NO_FAULT : -1;
        for (int i = 0; i < r->fd.nre; i++)
            if (r->fd.re[i].fault == fi && w->tl.ser[r->fd.re[i].series].master == 0) {
                f->readmit_s[fi] = r->fd.re[i].back_s;
                break;
            }
        f->nfault_cells++;
    }
}

static void print_head(FILE *out, const sim_world *w, const char *scenario)
{
    char start[40];
    fprintf(out, "hasim: %s, seed %" PRIu64 ", variant %s, strategy %s, %d master(s), %.0f s "
            "simulated from %s, %" PRIu64 " events\n", scenario, w->o.seed, w->var->name,
            w->o.strategy >= 0 ? hk_strat_get(w->o.strategy)->name : "as configured", w->nm,
            (double)(w->end_us - w->t0) / 1e6, hk_iso_format(w->t0, start, sizeof start),
            w->events);
}

static void print_queries(FILE *out, const sim_world *w)
{
    sim_figures f;
    memset(&f, 0, sizeof f);
    double n = (double)(w->n_ok + w->n_partial + w->n_error);
    fprintf(out, "queries: %.0f: answered %" PRIu64 " (ok %" PRIu64 ", partial %" PRIu64 "), "
            "failed %" PRIu64 " (%.2f%%)", n, w->n_ok + w->n_partial, w->n_ok, w->n_partial,
            w->n_error, n ? 100.0 * (double)w->n_error / n : 0.0);
    if (w->n_unknown)
        fprintf(out, ", %" PRIu64 " more for tables the config does not serve", w->n_unknown);
    fputc('\n', out);
    hk_rep_latency_line(out, &w->all);
}

void sim_print(FILE *out, const sim_world *w, const sim_result *r, const char *scenario,
               int findings_first)
{
    if (findings_first)
        hk_ans_findings(out, &r->ans);
    print_head(out, w, scenario);
    hk_rep_ledger_table(out, &w->led, w->s, r->ans.fd, findings_first ? 1000 : 48);
    print_queries(out, w);
    hk_ans_conv(out, &r->ans);
    hk_ans_readmit(out, &r->ans);
    if (!findings_first)
        hk_ans_findings(out, &r->ans);
}

int sim_write_files(const sim_world *w, const sim_result *r, const char *dir, hk_err *err)
{
    if (w->status_failed)
        return hk_err_set(err, dir, 0, 0, "out of memory");
    char strat[96];
    sim_strategy_label(w->s, w->o.strategy, strat, sizeof strat);
    hk_rep_run run = {.program = "hasim", .scenario = w->s->file, .variant = w->var->name,
                      .strategy = strat, .masters = w->nm,
                      .duration_s = (double)(w->end_us - w->t0) / 1e6,
                      .karma_s = w->s->cl->set.karma_s, .seed = w->o.seed};
    hk_folder f = {.ans = &r->ans, .led = &w->led, .status = w->status.s,
                   .status_len = w->status.len, .all = &w->all, .run = &run};
    return hk_folder_write(&f, dir, err);
}
