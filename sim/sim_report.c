/* sim_report: summaries, convergence and re-admission, end-of-run files. */
#include "sim_report.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "hk_buf.h"
#include "hk_csv.h"
#include "hk_file.h"
#include "hk_report.h"
#include "hk_status.h"
#include "sim_out.h"

static double ms(double us) { return us / 1000.0; }

void sim_convergence(const sim_world *w, int mi, int i, sim_conv *c)
{
    const sim_linst *li = &w->m[mi].li[i];
    int P = w->period, n = li->l->n, F = P / 4 > 0 ? P / 4 : 1;
    memset(c, 0, sizeof *c);
    c->single = n == 1;
    if (c->single || P == 0) {
        c->converged = 1;
        return;
    }
    int first = 0; /* earliest period from which every mirror stays within eps */
    for (int j = 0; j < n; j++) {
        const double *pr = li->ms[j].prob;
        double mean = 0, lo = INFINITY, hi = -INFINITY;
        for (int p = P - F; p < P; p++) {
            mean += pr[p] / F;
            lo = fmin(lo, pr[p]);
            hi = fmax(hi, pr[p]);
        }
        c->amplitude = fmax(c->amplitude, hi - lo);
        int p = P;
        while (p > 0 && fabs(pr[p - 1] - mean) <= SIM_CONV_EPS)
            p--;
        if (p > first)
            first = p;
    }
    /* converged only if the whole final window stays within eps */
    c->converged = first <= P - F;
    c->t_s = (double)first * (double)sim_karma_us(w) / 1e6;
}

static int line_with_host(const sim_world *w, int h, int *mirror)
{
    for (int i = 0; i < w->nli; i++) {
        const hk_line *l = w->m[0].li[i].l;
        const hk_table *t = &w->s->cl->tables[w->m[0].li[i].table];
        const hk_line_conf *lc = &t->lines[w->m[0].li[i].line];
        for (int j = 0; j < l->n; j++)
            if (lc->host[j] == h) {
                *mirror = j;
                return i;
            }
    }
    return -1;
}

void sim_readmission(const sim_world *w, int fi, sim_readmit *r)
{
    const hk_fault *f = &w->s->faults[fi];
    int64_t K = sim_karma_us(w);
    memset(r, 0, sizeof *r);
    int j, i = line_with_host(w, f->host, &j);
    if (i < 0 || f->for_us < 0)
        return;
    const double *sh = w->m[0].li[i].ms[j].share;
    double sum = 0;
    int n = 0;
    for (int p = (int)(f->at_us / K) - 1; p >= 0 && n < 3; p--)
        if (!isnan(sh[p])) {
            sum += sh[p];
            n++;
        }
    if (!n)
        return;
    r->known = 1;
    r->before = sum / n;
    int64_t end = f->at_us + f->for_us;
    for (int p = (int)((end + K - 1) / K); p < w->period; p++)
        if (!isnan(sh[p]) && sh[p] >= r->before / 2) {
            r->back = 1;
            r->after_s = (double)((p + 1) * K - end) / 1e6;
            return;
        }
}

void sim_figures_of(const sim_world *w, sim_figures *f)
{
    memset(f, 0, sizeof *f);
    f->n = (double)w->all.n;
    f->ok = (double)w->n_ok;
    f->partial = (double)w->n_partial;
    f->error = (double)w->n_error;
    f->mean = ms(hk_hist_mean(&w->all));
    f->p50 = ms(hk_hist_quantile(&w->all, 0.5));
    f->p95 = ms(hk_hist_quantile(&w->all, 0.95));
    f->p99 = ms(hk_hist_quantile(&w->all, 0.99));
    f->p999 = ms(hk_hist_quantile(&w->all, 0.999));
    for (int mi = 0; mi < w->nm; mi++)
        for (int i = 0; i < w->nli; i++) {
            sim_conv c;
            sim_convergence(w, mi, i, &c);
            if (!c.converged)
                f->conv_never++;
            else if (c.t_s > f->conv_worst_s)
                f->conv_worst_s = c.t_s;
        }
    if (f->conv_never)
        f->conv_worst_s = -1;
}

/* The run's per-mirror totals as report rows (caller frees). */
static hk_rep_row *mirror_rows(const sim_world *w, int *n)
{
    const hk_cluster *cl = w->s->cl;
    *n = 0;
    for (int t = 0; t < cl->ntables; t++)
        for (int k = 0; k < cl->tables[t].nlines; k++)
            *n += cl->tables[t].lines[k].a.n;
    hk_rep_row *r = calloc((size_t)*n + 1, sizeof *r);
    for (int t = 0, i = 0; r && t < cl->ntables; t++)
        for (int k = 0; k < cl->tables[t].nlines; k++) {
            const hk_line_conf *lc = &cl->tables[t].lines[k];
            const sim_total *tt = w->tot[w->li_base[t] + k];
            for (int j = 0; j < lc->a.n; j++, i++)
                r[i] = (hk_rep_row){cl->tables[t].name, cl->hosts[lc->host[j]].name, k + 1,
                                    tt[j].q, tt[j].err, &tt[j].lat};
        }
    return r;
}

static void print_mirrors(FILE *out, const sim_world *w)
{
    int n;
    hk_rep_row *r = mirror_rows(w, &n);
    if (r)
        hk_rep_mirror_table(out, r, n);
    free(r);
}

static void print_convergence(FILE *out, const sim_world *w)
{
    int shown = 0, never = 0, total = 0;
    double worst = 0;
    for (int mi = 0; mi < w->nm; mi++)
        for (int i = 0; i < w->nli; i++) {
            sim_conv c;
            sim_convergence(w, mi, i, &c);
            if (c.single)
                continue;
            total++;
            never += !c.converged;
            if (c.converged && c.t_s > worst)
                worst = c.t_s;
            if (shown++ >= 8)
                continue;
            const sim_linst *li = &w->m[mi].li[i];
            fprintf(out, "convergence: master %d, %s agent %d: ", mi,
                    w->s->cl->tables[li->table].name, li->line + 1);
            if (c.converged)
                fprintf(out, "probabilities within %.2f of final from %.0f s\n", SIM_CONV_EPS,
                        c.t_s);
            else
                fprintf(out, "never (oscillation amplitude %.3f)\n", c.amplitude);
        }
    if (total > 8)
        fprintf(out, "convergence: %d HA lines in all, %d never converged, the latest converged "
                "at %.0f s\n", total, never, worst);
}

static void print_readmission(FILE *out, const sim_world *w)
{
    for (int fi = 0; fi < w->s->nfaults; fi++) {
        const hk_fault *f = &w->s->faults[fi];
        sim_readmit r;
        sim_readmission(w, fi, &r);
        fprintf(out, "fault: %s %s at %.0f s", w->s->cl->hosts[f->host].name,
                hk_fault_name(f->kind), (double)f->at_us / 1e6);
        if (f->for_us >= 0)
            fprintf(out, " for %.0f s", (double)f->for_us / 1e6);
        if (!r.known)
            fprintf(out, ": time-to-readmit n/a (%s)\n", f->for_us < 0 ? "the fault never ends"
                    : "no share measured before the fault");
        else if (r.back)
            fprintf(out, ": share %.3f before; back to >= %.3f within %.0f s after it ended\n",
                    r.before, r.before / 2, r.after_s);
        else
            fprintf(out, ": share %.3f before; never got half of it back\n", r.before);
    }
}

void sim_print(FILE *out, const sim_world *w, const char *scenario)
{
    sim_figures f;
    sim_figures_of(w, &f);
    fprintf(out, "hasim: %s, seed %" PRIu64 ", variant %s, strategy %s, %d master(s), %.0f s "
            "simulated, %" PRIu64 " events\n", scenario, w->o.seed, w->var->name,
            w->o.strategy >= 0 ? hk_strat_get(w->o.strategy)->name : "as configured", w->nm,
            (double)w->end_us / 1e6, w->events);
    print_mirrors(out, w);
    fprintf(out, "queries: %.0f (ok %.0f, partial %.0f, failed %.0f); latency ms: p50 %.3f  "
            "p95 %.3f  p99 %.3f  p99.9 %.3f  mean %.3f\n", f.n, f.ok, f.partial, f.error, f.p50,
            f.p95, f.p99, f.p999, f.mean);
    print_convergence(out, w);
    print_readmission(out, w);
}

static int write_summary(const sim_world *w, const char *dir, hk_err *err)
{
    int n;
    hk_rep_row *r = mirror_rows(w, &n);
    hk_out o;
    if (!r || hk_out_open(&o, dir, "summary.csv", err) < 0) {
        free(r);
        return r ? -1 : hk_err_set(err, dir, 0, 0, "out of memory");
    }
    hk_rep_summary_csv(o.f, r, n);
    free(r);
    return hk_out_commit(&o, err);
}

static int write_convergence(const sim_world *w, const char *dir, hk_err *err)
{
    hk_out o;
    if (hk_out_open(&o, dir, "convergence.csv", err) < 0)
        return -1;
    fputs("master,table,agent,converged,t_converged_s,amplitude\n", o.f);
    for (int mi = 0; mi < w->nm; mi++)
        for (int i = 0; i < w->nli; i++) {
            sim_conv c;
            sim_convergence(w, mi, i, &c);
            const sim_linst *li = &w->m[mi].li[i];
            fprintf(o.f, "%d,", mi);
            hk_csv_str(o.f, w->s->cl->tables[li->table].name, 1);
            fprintf(o.f, ",%d,%s,%.0f,%.4f\n", li->line + 1, c.converged ? "yes" : "never",
                    c.converged ? c.t_s : -1.0, c.amplitude);
        }
    fputs("\n", o.f);
    return hk_out_commit(&o, err);
}

static int status_text(const sim_world *w, hk_buf *b)
{
    hk_line **lines = calloc((size_t)w->nli + 1, sizeof *lines);
    if (!lines)
        return -1;
    for (int i = 0; i < w->nli; i++)
        lines[i] = w->m[0].li[i].l;
    char title[64];
    int64_t at = w->t_now > w->end_us ? w->t_now : w->end_us; /* after in-flight queries drained */
    snprintf(title, sizeof title, "master 0, at %.3f s", (double)at / 1e6);
    int rc = hk_rep_status(b, w->s->cl, w->m[0].dash, lines, w->var, at, title);
    free(lines);
    return rc;
}

int sim_write_cdf(const sim_world *w, const char *dir, hk_err *err)
{
    hk_out o;
    if (hk_out_open(&o, dir, "cdf.csv", err) < 0)
        return -1;
    fputs("quantile,latency_ms\n", o.f);
    for (int k = 1; k <= 999; k++)
        fprintf(o.f, "%.3f,%.4f\n", k / 1000.0, ms(hk_hist_quantile(&w->all, k / 1000.0)));
    fprintf(o.f, "0.9999,%.4f\n", ms(hk_hist_quantile(&w->all, 0.9999)));
    return hk_out_commit(&o, err);
}

int sim_write_files(const sim_world *w, const char *dir, hk_err *err)
{
    hk_buf b;
    hk_buf_init(&b);
    int rc = status_text(w, &b) < 0 ? hk_err_set(err, dir, 0, 0, "out of memory") :
             hk_out_write_all(dir, "agent_status.txt", b.s, b.len, err);
    hk_buf_free(&b);
    if (rc == 0)
        rc = write_summary(w, dir, err);
    if (rc == 0)
        rc = write_convergence(w, dir, err);
    if (rc == 0)
        rc = sim_write_cdf(w, dir, err);
    return rc;
}
