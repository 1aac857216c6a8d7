/* hasim_run: `hasim SCENARIO` — load a scenario, run it once or for every
 * strategy / variant / replication, say what it found, write the output
 * folder (files appear only when complete), optionally plot. */
#include <gsl/gsl_cdf.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hasim.h"
#include <stddef.h>
#include "hk_file.h"
#include "hk_keys.h"
#include "hk_report.h"
#include "hk_rundir.h"
#include "hk_scnload.h"
#include "hk_time.h"
#include "sim.h"
#include "sim_out.h"
#include "sim_report.h"

#define MAXREP 1000
#define P "hasim"

/* ---- the options (shared with --check) ----------------------------------- */

static int opt_strategy(void *set, const char *prog, const char *opt, const char *v)
{
    hasim_args *a = set;
    if ((a->nstrat = hk_cmd_strategies(prog, opt, v, a->strats, HK_STRAT_N)) < 0)
        return -1;
    a->compare |= a->nstrat > 1 || strchr(v, ',') || !strcmp(v, "all") || !strcmp(v, "every");
    a->strategy = a->compare ? -1 : a->strats[0];
    return 0;
}

static int opt_variant(void *set, const char *prog, const char *opt, const char *v)
{
    hasim_args *a = set;
    if ((a->nvar = hk_cmd_variants(prog, opt, v, a->vars, HK_VAR_N)) < 0)
        return -1;
    a->compare |= a->nvar > 1 || !strcmp(v, "all");
    a->variant = a->nvar == 1 ? a->vars[0] : -1;
    return 0;
}

static int opt_fail_on(void *set, const char *prog, const char *opt, const char *v)
{
    hasim_args *a = set;
    a->fail_on = v;
    return hk_cmd_kinds(prog, opt, v);
}

static int opt_table_map(void *set, const char *prog, const char *opt, const char *v)
{
    hasim_args *a = set;
    return hk_cmd_table_map(prog, opt, v, a->tmap, &a->ntmap, HK_TMAP_MAX);
}

static int opt_lines(void *set, const char *prog, const char *opt, const char *v)
{
    hk_plot_sel *sel = set;
    (void)prog;
    if (!strcmp(opt, "--lines"))
        snprintf(sel->lines, sizeof sel->lines, "%s", v);
    else
        snprintf(sel->mirrors, sizeof sel->mirrors, "%s", v);
    return 0;
}

static int opt_master(void *set, const char *prog, const char *opt, const char *v)
{
    long long n;
    if (hk_cmd_int(prog, opt, v, 0, 1023, &n) < 0)
        return -1;
    ((hk_plot_sel *)set)->master = (int)n;
    return 0;
}

#define A(f) offsetof(hasim_args, f)
static const hk_opt run_opts[] = {
    HK_OPT_OUT(A(out), "DIR",
        "output folder (default out/<scenario name>, replaced by the next run);\n"
        "a finished DIR is refused unless --force (which removes that run)"),
    HK_OPT_FORCE(A(force), "replace the finished run in --out"),
    HK_OPT_SEED(A(seed), "seed (default: the scenario's sim { seed }, else 1)"),
    HK_OPT_STRATEGY("LIST", opt_strategy,
        "override every line's ha_strategy; a comma list, all (searchd's four)\n"
        "or every (with the extensions) compares them, the configured one first"),
    HK_OPT_VARIANT("LIST", opt_variant,
        "which implementation (default manticore); a comma list or all compares"),
    {.name = "duration", .arg = "T", .kind = HK_OPT_TIME, .off = A(duration_us), .min = HK_SEC,
     .help = "run length (default: the workload's duration)"},
    {.name = "table-map", .arg = "LOG=CONF", .kind = HK_OPT_FN, .fn = opt_table_map,
     .help = "a trace's table name stands for the config's table (repeatable)"},
    {.name = "queries", .kind = HK_OPT_FLAG, .off = A(queries),
     .help = "also write queries.csv (one row per query and agent line)"},
    {.name = "plot", .kind = HK_OPT_FLAG, .off = A(plot),
     .help = "draw the plots (gnuplot) and DIR/index.html"},
    {.name = "lines", .arg = "LIST", .kind = HK_OPT_FN, .off = A(sel), .fn = opt_lines,
     .help = "plots: the agent lines to draw, e.g. products/1,products/2"},
    {.name = "mirrors", .arg = "LIST", .kind = HK_OPT_FN, .off = A(sel), .fn = opt_lines,
     .help = "plots: the mirrors to draw, e.g. box1:9312,box2:9312"},
    {.name = "master", .arg = "N", .kind = HK_OPT_FN, .off = A(sel), .fn = opt_master,
     .help = "plots: the master to draw (default 0)"},
    {.name = "check", .kind = HK_OPT_FLAG, .off = A(check),
     .help = "check the scenario's expect { } claims; exit 1 if one fails"},
    {.name = "fail-on", .arg = "KINDS", .kind = HK_OPT_FN, .fn = opt_fail_on,
     .help = "exit 4 when a run raises a finding of one of these kinds (a comma\n"
             "list: failing,starved,locked,...; severe = every severe kind)"},
    {.name = "allow-changed", .kind = HK_OPT_FLAG, .off = A(allow_changed),
     .help = "run although a config or trace the scenario pins (input sections,\n"
             "written by hasim init) has changed since"},
    {.name = "no-exec", .kind = HK_OPT_FLAG, .off = A(no_exec),
     .help = "refuse a config that is a '#!' script (default: run it, as Manticore)"},
    HK_OPT_QUIET(A(quiet), HK_QUIET_HELP),
    {0}};
#undef A

static const hk_cmd run_cmd = {
    .prog = P,
    .usage = "SCENARIO [options]      simulate a scenario (README: Scenarios)\n"
             "init --config FILE [...]   write a scenario from production files\n"
             "sweep SCENARIO --grid ...  rank the settings an operator can change\n"
             "merge DIR... --out DIR     combine the shards of a sweep",
    .about = "Runs the scenario once (or for every strategy / variant given, side by side), says\n"
             "what it found with the evidence, and writes the output folder; each command has\n"
             "its own --help.",
    .sets = {{run_opts, 0}},
    .min_args = 1,
    .max_args = 1,
    .args = "a scenario file",
    .tail =
        "files in DIR: report.txt (findings first), findings.csv, findings.json, summary.csv,\n"
        "  periods.csv, latency.csv, timeline.csv, convergence.csv, readmission.csv, cdf.csv,\n"
        "  faults.csv, agent_status.txt, scenario.txt, queries.csv (--queries), strategies.csv\n"
        "  (several runs), plots/ and index.html (--plot)\n"
        "stopped by a signal: the run's files are removed\n"
};

/* 0 parsed, -1 printed --help/--version (exit 0), else an exit code. */
static int parse_args(int argc, char **argv, hasim_args *a)
{
    memset(a, 0, sizeof *a);
    a->seed = a->strategy = a->variant = -1;
    a->sel.master = -1;
    const char *pos[1];
    int npos, rc = hk_cmd_parse(&run_cmd, argc, argv, a, pos, &npos);
    if (rc)
        return rc;
    a->scenario = pos[0];
    if (!a->out) {
        hk_rundir_default(a->scenario, "", "", a->outbuf, sizeof a->outbuf);
        a->out = a->outbuf;
        a->out_default = 1;
    }
    return 0;
}

void hasim_job_progress(sim_job *j, double frac, const char *what)
{
    if (frac < 0)
        hk_progress_done(&j->prog_line);
    else
        hk_progress_update(&j->prog_line, frac, what);
}

int hasim_job_exit(const sim_job *j, int rc, const char *prog, const hk_err *e)
{
    if (rc == SIM_JOB_DONE)
        return HK_EXIT_OK;
    if (rc == SIM_JOB_STOPPED)
        return HK_EXIT_SIGNAL + (int)*j->stop;
    if (e && rc == SIM_JOB_TMAP)
        fprintf(stderr, "%s: --table-map %s\n", prog, e->msg);
    else if (e)
        hk_print_err(prog, e);
    return rc == SIM_JOB_TMAP ? HK_EXIT_USAGE : rc == SIM_JOB_INPUT ? HK_EXIT_INPUT : HK_EXIT_RUN;
}

void hasim_job(sim_job *j, hk_loaded *L, const hasim_args *a, int total)
{
    memset(j, 0, sizeof *j);
    j->L = L;
    j->scenario = a->scenario;
    j->queries = a->queries;
    j->fail_on = a->fail_on;
    j->stop = a->stop;
    j->ntmap = a->ntmap;
    j->tmap = a->tmap;
    j->total = total;
    j->progress = hasim_job_progress;
    hk_progress_init(&j->prog_line, P, a->quiet);
}

#define ROW_FINDINGS 4

typedef struct runcfg {
    int strategy, variant;
    char dir[1100];
    char label[96];
    int nfind;                   /* the first run's findings, for the comparison's words */
    char find[ROW_FINDINGS][640];  /* kind[20] + ": " + detail[600] */
} runcfg;

/* Keep a row's findings (the first replication's) to print under the comparison table. */
static void keep_findings(void *ictx, const sim_world *w, const sim_result *r)
{
    runcfg *row = ictx;
    (void)w;
    if (!row)
        return;
    row->nfind = r->fd.n;
    for (int i = 0; i < r->fd.n && i < ROW_FINDINGS; i++)
        snprintf(row->find[i], sizeof row->find[i], "%.19s: %.600s", r->fd.f[i].kind,
                 r->fd.f[i].detail);
}

/* ---- several runs side by side ------------------------------------------ */

static void ci(const double *x, int n, double *mean, double *half)
{
    double m = 0, v = 0;
    for (int i = 0; i < n; i++)
        m += x[i] / n;
    for (int i = 0; i < n; i++)
        v += (x[i] - m) * (x[i] - m) / (n > 1 ? n - 1 : 1);
    *mean = m;
    *half = n > 1 ? gsl_cdf_tdist_Pinv(0.975, n - 1) * sqrt(v / n) : 0;
}

static void print_row(FILE *out, const runcfg *r, const sim_figures *f, int R, int nf)
{
    double xs[6][MAXREP], p[6][2];
    for (int k = 0; k < R; k++) {
        const double v[6] = {f[k].p50, f[k].p99, f[k].p999, 100 * f[k].failed_rate,
                             f[k].partial + f[k].error, 0};
        for (int m = 0; m < 6; m++)
            xs[m][k] = v[m];
    }
    for (int m = 0; m < 5; m++)
        ci(xs[m], R, &p[m][0], &p[m][1]);
    fprintf(out, "%-38s", r->label);
    for (int m = 0; m < 4; m++) {
        if (R > 1)
            fprintf(out, " %8.3f±%-7.3f", p[m][0], p[m][1]);
        else
            fprintf(out, " %9.3f", p[m][0]);
    }
    fprintf(out, " %9s", f[0].conv);
    for (int fi = 0; fi < nf; fi++) {
        if (R > 1) { /* the share-back time as mean ± CI over the runs that got it back */
            double v[MAXREP];
            int n = 0;
            for (int k = 0; k < R; k++)
                if (f[k].readmit_s[fi] >= 0)
                    v[n++] = f[k].readmit_s[fi];
            double m, h;
            ci(v, n > 0 ? n : 1, &m, &h);
            char cell[48];
            if (n)
                snprintf(cell, sizeof cell, "%.1f±%.1fs (%d/%d)", m, h, n, R);
            else
                snprintf(cell, sizeof cell, "never (0/%d)", R);
            fprintf(out, "  %-22s", cell);
        } else {
            fprintf(out, "  %-22s", f[0].readmit[fi]);
        }
    }
    fprintf(out, "  %s\n", f[0].kinds);
}

/* Each run's share of every mirror in its line (the replications' mean), the first
 * SIM_MAX_SHARES mirrors: where the strategies differ when their latencies do not. */
static void print_shares(FILE *out, const hk_scn *s, const runcfg *rc, int n, int R,
                         sim_figures (*figs)[MAXREP])
{
    int ns = sim_share_count(s), all = 0;
    for (int t = 0; t < s->cl->ntables; t++)
        for (int k = 0; k < s->cl->tables[t].nlines; k++)
            all += s->cl->tables[t].lines[k].a.n;
    fprintf(out, "share of its line's attempts, %%%s:\n%-38s", all > ns ? " (the first 16 "
            "mirrors; strategies.csv has them too)" : "", "strategy/variant");
    int wd = 8;
    for (int k = 0; k < ns; k++) {
        char lab[280];
        sim_share_label(s, k, lab, sizeof lab);
        wd = (int)strlen(lab) > wd ? (int)strlen(lab) : wd;
    }
    wd = wd > 28 ? 28 : wd;
    for (int k = 0; k < ns; k++) {
        char lab[280];
        sim_share_label(s, k, lab, sizeof lab);
        size_t l = strlen(lab); /* too long: keep its end (the mirror) */
        fprintf(out, " %*s", wd, lab + (l > (size_t)wd ? l - (size_t)wd : 0));
    }
    fputc('\n', out);
    for (int i = 0; i < n; i++) {
        fprintf(out, "%-38s", rc[i].label);
        for (int k = 0; k < ns; k++) {
            double m = 0;
            for (int r = 0; r < R; r++)
                m += figs[i][r].share[k] / R;
            fprintf(out, " %*.1f", wd, 100 * m);
        }
        fputc('\n', out);
    }
}

static void print_table(FILE *out, const hk_scn *s, const runcfg *rc, int n, int R,
                        sim_figures (*figs)[MAXREP], const char *scenario, uint64_t seed)
{
    int nf = s->nfaults < SIM_MAX_FAULT_CELLS ? s->nfaults : SIM_MAX_FAULT_CELLS;
    fprintf(out, "%s: %d replication(s) per row%s (seeds from %" PRIu64 "); latency in ms over "
            "answered queries; failed%% = failed and partial queries\n", scenario, R,
            R > 1 ? ", mean ± 95% CI" : "", seed);
    fprintf(out, "%-38s %9s%s %9s%s %9s%s %9s%s %9s", "strategy/variant", "p50", R > 1 ? "        " : "",
            "p99", R > 1 ? "        " : "", "p99.9", R > 1 ? "        " : "", "failed%",
            R > 1 ? "        " : "", "converged");
    for (int fi = 0; fi < nf; fi++) {
        char h[48];
        snprintf(h, sizeof h, "readmit %s", s->cl->hosts[s->faults[fi].host].name);
        fprintf(out, "  %-22.22s", h);
    }
    fprintf(out, "  findings\n");
    for (int i = 0; i < n; i++)
        print_row(out, &rc[i], figs[i], R, nf);
    if (nf)
        fprintf(out, "readmit: first query after the fault ended / share back within %.0f%% of "
                "its pre-fault share (never: not within the run)\n", 100 * HK_BACK_TOL);
    print_shares(out, s, rc, n, R, figs);
}

static void print_row_findings(FILE *out, const runcfg *rc, int n)
{
    int any = 0;
    for (int i = 0; i < n; i++)
        any |= rc[i].nfind > 0;
    if (!any) {
        fprintf(out, "FINDINGS: none in any run\n");
        return;
    }
    fprintf(out, "FINDINGS per run (the first replication's):\n");
    for (int i = 0; i < n; i++) {
        if (!rc[i].nfind)
            continue;
        fprintf(out, "  %s:\n", rc[i].label);
        for (int k = 0; k < rc[i].nfind && k < ROW_FINDINGS; k++)
            fprintf(out, "    %s\n", rc[i].find[k]);
        if (rc[i].nfind > ROW_FINDINGS)
            fprintf(out, "    ... %d more in %s/findings.csv\n", rc[i].nfind - ROW_FINDINGS,
                    rc[i].dir);
    }
}

static int write_strategies(const hk_scn *s, const char *dir, const runcfg *rc, int n,
                            sim_figures (*f)[MAXREP], hk_err *e)
{
    hk_out o;
    if (hk_out_open(&o, dir, "strategies.csv", e) < 0)
        return -1;
    fputs("strategy,variant,dir,queries,ok,partial,failed,failed_rate,latency_mean_ms,"
          "latency_p50_ms,latency_p95_ms,latency_p99_ms,latency_p999_ms,converged,readmit,"
          "findings", o.f);
    int ns = sim_share_count(s), nf = s->nfaults < SIM_MAX_FAULT_CELLS ? s->nfaults
                                                                        : SIM_MAX_FAULT_CELLS;
    for (int k = 0; k < nf; k++) { /* numeric re-admission per fault, then shares */
        char h[300];
        snprintf(h, sizeof h, "readmit_s %s", s->cl->hosts[s->faults[k].host].name);
        hk_csv_str(o.f, h, 0);
    }
    for (int k = 0; k < ns; k++) {
        char h[300], lab[280];
        sim_share_label(s, k, lab, sizeof lab);
        snprintf(h, sizeof h, "share %s", lab);
        hk_csv_str(o.f, h, 0);
    }
    fputc('\n', o.f);
    for (int i = 0; i < n; i++) {
        const sim_figures *x = &f[i][0];
        const char *d = strrchr(rc[i].dir, '/');
        char strat[96], readmit[256] = "";
        sim_strategy_label(s, rc[i].strategy, strat, sizeof strat);
        for (int fi = 0, off = 0; fi < x->nfault_cells; fi++)
            off += snprintf(readmit + off, sizeof readmit - (size_t)off, "%s%s", fi ? "; " : "",
                            x->readmit[fi]);
        hk_csv_str(o.f, strat, 1);
        fprintf(o.f, ",%s,%s,%.0f,%.0f,%.0f,%.0f,%.6f,%.3f,%.3f,%.3f,%.3f,%.3f,%s,",
                hk_variant_get(rc[i].variant)->name, d ? d + 1 : rc[i].dir, x->n, x->ok,
                x->partial, x->error, x->failed_rate, x->mean, x->p50, x->p95, x->p99, x->p999,
                x->conv);
        hk_csv_str(o.f, readmit, 1);
        hk_csv_str(o.f, x->kinds, 0);
        for (int k = 0; k < nf; k++) /* never: an empty cell (no number to plot) */
            if (x->readmit_s[k] >= 0)
                fprintf(o.f, ",%.3f", x->readmit_s[k]);
            else
                fputc(',', o.f);
        for (int k = 0; k < ns; k++)
            fprintf(o.f, ",%.4f", x->share[k]);
        fputc('\n', o.f);
    }
    return hk_out_commit(&o, e);
}

/* The strategy every line of the scenario runs when nothing overrides it (-1: the lines differ,
 * "configured"). */
static int configured_strategy(const hk_scn *s)
{
    if (s->strategy >= 0)
        return s->strategy;
    int c = -2;
    for (int t = 0; t < s->cl->ntables; t++)
        for (int k = 0; k < s->cl->tables[t].nlines; k++) {
            int id = s->cl->tables[t].lines[k].strategy;
            c = c == -2 || c == id ? id : -1;
        }
    return c < 0 ? -1 : c;
}

/* The strategies to run: the one given, or for a comparison the configured one first, then
 * the others of the list in its order. */
static int plan_strategies(const hasim_args *a, const hk_scn *s, int *ids)
{
    if (!a->compare || !a->nstrat) {
        ids[0] = a->strategy >= 0 ? a->strategy : s->strategy;
        return 1;
    }
    int conf = configured_strategy(s), n = 0;
    ids[n++] = conf;
    for (int i = 0; i < a->nstrat; i++)
        if (a->strats[i] != conf)
            ids[n++] = a->strats[i];
    return n;
}

static int plan(const hasim_args *a, const hk_scn *s, runcfg *rc)
{
    int ids[HK_STRAT_N + 1], ns = plan_strategies(a, s, ids), n = 0;
    int nv = a->nvar ? a->nvar : 1;
    for (int v = 0; v < nv; v++) {
        int var = a->nvar ? a->vars[v] : s->variant;
        for (int i = 0; i < ns; i++) {
            int strat = ids[i];
            runcfg *r = &rc[n++];
            char label[64];
            sim_strategy_label(s, strat, label, sizeof label);
            r->strategy = strat;
            r->variant = var;
            snprintf(r->label, sizeof r->label, "%s/%s", label, hk_variant_get(var)->name);
            if (a->compare)
                snprintf(r->dir, sizeof r->dir, "%s/%s-%s", a->out, strat >= 0 ?
                         hk_strat_get(strat)->name : "configured", hk_variant_get(var)->name);
            else
                snprintf(r->dir, sizeof r->dir, "%s", a->out);
        }
    }
    return n;
}

static int summary_out(const hasim_args *a, hk_scn *s, runcfg *rc, int n, int R,
                       sim_figures (*figs)[MAXREP], uint64_t seed)
{
    hk_err e;
    hk_out o;
    if (write_strategies(s, a->out, rc, n, figs, &e) < 0 ||
        hk_out_open(&o, a->out, "report.txt", &e) < 0) {
        hk_print_err(P, &e);
        return HK_EXIT_RUN;
    }
    if (!a->quiet) { /* stdout ends with the findings, report.txt starts with them */
        print_table(stdout, s, rc, n, R, figs, a->scenario, seed);
        print_row_findings(stdout, rc, n);
    }
    print_row_findings(o.f, rc, n);
    print_table(o.f, s, rc, n, R, figs, a->scenario, seed);
    if (hk_out_commit(&o, &e) < 0) {
        hk_print_err(P, &e);
        return HK_EXIT_RUN;
    }
    return 0;
}

static int run_grid(sim_job *c, const hasim_args *a, runcfg *rc, int n, int R,
                    sim_figures (*figs)[MAXREP])
{
    int multi = n > 1;
    uint64_t seed = hk_cmd_seed(a->seed, c->L->scn->seed);
    c->total = n * R;
    for (int i = 0; i < n; i++) {
        hk_err e;
        hk_warns w = {0};
        int fresh = !c->L->by_dialect[hk_dialect_of(rc[i].variant)];
        hk_scn *s = hk_loaded_scn(c->L, rc[i].variant, &w, &e);
        if (!s) {
            hk_print_err(P, &e);
            return HK_EXIT_INPUT;
        }
        if (fresh)
            hk_print_warns(P, &w);
        for (int r = 0; r < R; r++) {
            sim_opts o = {0};
            o.seed = seed + (uint64_t)r;
            o.variant = rc[i].variant;
            o.strategy = rc[i].strategy;
            o.duration_us = a->duration_us;
            o.progress = sim_job_progress;
            o.pctx = c;
            FILE *rep = !a->quiet && !multi && r == 0 && R == 1 ? stdout : NULL;
            c->inspect = keep_findings;
            c->ictx = r == 0 ? &rc[i] : NULL;
            int code = sim_job_run(c, s, &o, r == 0 ? rc[i].dir : NULL, &figs[i][r], rep, &e);
            if (code)
                return hasim_job_exit(c, code, P, &e);
        }
    }
    hk_err e;
    if (hk_mkdirs(a->out, &e) < 0 ||
        hk_out_write_all(a->out, "scenario.txt", c->L->text, strlen(c->L->text), &e) < 0) {
        hk_print_err(P, &e);
        return HK_EXIT_RUN;
    }
    if (multi || R > 1) {
        int code = summary_out(a, c->L->scn, rc, n, R, figs, seed);
        if (code)
            return code;
    }
    return 0;
}

/* The charts of the run; 0, or an exit code: a chart that could not be drawn is said, and none
 * is left cut short (the CSV files stay complete); a stop while plotting is the stop's. */
static int plots(const hasim_args *a, const runcfg *rc, int n)
{
    char msg[512];
    int ok = 1, nc = 0;
    for (int i = 0; n > 1 && ok && i < n; i++)
        ok = hk_plot_run(rc[i].dir, 0, &a->sel, msg, sizeof msg) >= 0;
    if (*a->stop)
        return HK_EXIT_SIGNAL + (int)*a->stop;
    if (!ok || (nc = hk_plot_run(a->out, n > 1, &a->sel, msg, sizeof msg)) < 0) {
        if (*a->stop)
            return HK_EXIT_SIGNAL + (int)*a->stop;
        fprintf(stderr, P ": %s (exit %d)\n", msg, HK_EXIT_RUN);
        return HK_EXIT_RUN;
    }
    if (!a->quiet && nc == 0)
        printf("plots: each run's in %s/*/plots/ (open %s/index.html); no comparison chart: "
               "every run gave the same latencies, failures, shares and re-admission\n", a->out,
               a->out);
    else if (!a->quiet)
        printf("plots: %s/plots/ (open %s/index.html)\n", a->out, a->out);
    return 0;
}

int hasim_run(int argc, char **argv, volatile sig_atomic_t *stop)
{
    hasim_args a;
    int rc = parse_args(argc, argv, &a);
    if (rc)
        return rc < 0 ? 0 : rc;
    a.stop = stop;
    if (a.check)
        return hasim_check(&a);
    hk_loaded L;
    hk_err e;
    if (hk_scn_load(a.scenario, !a.no_exec, &L, &e) < 0) {
        hk_print_err(P, &e);
        return HK_EXIT_INPUT;
    }
    if (!a.allow_changed && hk_loaded_check_inputs(&L, &e) < 0) {
        hk_print_err(P, &e);
        hk_loaded_free(&L);
        return HK_EXIT_INPUT;
    }
    for (int i = 0; i < L.nran; i++)
        fprintf(stderr, P ": note: %s starts with '#!': ran it as Manticore does and read its "
                "output as the config\n", L.ran[i]);
    hk_print_warns(P, &L.warns);
    runcfg cfg[HK_VAR_N * (HK_STRAT_N + 1)];
    int n = plan(&a, L.scn, cfg), R = L.scn->replications;
    sim_figures (*figs)[MAXREP] = calloc((size_t)n, sizeof *figs);
    sim_job c;
    hasim_job(&c, &L, &a, n * R);
    hk_rundir rd;
    if (hk_rundir_open(&rd, a.out, "hasim", a.force || a.out_default, &e) < 0) {
        hk_print_err(P, &e);
        free(figs);
        hk_loaded_free(&L);
        return HK_EXIT_USAGE;
    }
    a.sel.stop = stop;
    rc = figs ? run_grid(&c, &a, cfg, n, R, figs) : HK_EXIT_RUN;
    int prc = rc == 0 && a.plot ? plots(&a, cfg, n) : 0;
    if (prc > HK_EXIT_SIGNAL || (rc == 0 && *stop))
        rc = HK_EXIT_SIGNAL + (int)*stop; /* stopped while plotting: the run did not end */
    if (rc == 0 && hk_rundir_done(&rd, &e) < 0) {
        hk_print_err(P, &e);
        rc = HK_EXIT_RUN;
    }
    if (rc) /* nothing of a failed run stays behind looking finished */
        hk_rundir_abort(&rd);
    else if (prc) /* the files are complete, the charts not all drawn: said above */
        rc = prc;
    if (*stop)
        fprintf(stderr, P ": stopped by %s: the run's files in %s/ were removed (exit %d)\n",
                strsignal(*stop), a.out, 128 + (int)*stop);
    if (rc == 0 && !a.quiet)
        printf("files: %s/\n", a.out);
    if (rc == 0 && c.failed_on) {
        fprintf(stderr, P ": a finding of a kind in --fail-on %s was raised (exit %d)\n",
                a.fail_on, HK_EXIT_FINDING);
        rc = HK_EXIT_FINDING;
    }
    free(figs);
    hk_loaded_free(&L);
    return rc;
}
