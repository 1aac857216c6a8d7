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
#include "hk_cli.h"
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

static void usage(FILE *f)
{
    fprintf(f,
"usage: hasim SCENARIO [options]          simulate a scenario (see README: Config and scenarios)\n"
"       hasim init --config FILE [...]     write a scenario from production files\n"
"       hasim sweep SCENARIO --grid ...    rank the settings an operator can change\n"
"       hasim merge DIR... --out DIR       combine the shards of a sweep\n"
"options of a run:\n"
"  --out DIR            output folder (default out/<scenario name>, replaced by the next run);\n"
"                       a finished DIR is refused unless --force (which removes that run)\n"
"  --seed N             seed (default: the scenario's sim { seed }, else 1)\n"
"  --strategy LIST      override every line's ha_strategy: %s; a comma list,\n"
"                       all (searchd's four) or every (with the extensions) compares them,\n"
"                       the configured strategy first\n"
"  --variant LIST       which implementation: %s (default manticore); a comma\n"
"                       list or all compares them\n"
"  --duration T         run length (default: the workload's duration)\n"
"  --table-map LOG=CONF a trace's table name stands for the config's table (repeatable)\n"
"  --queries            also write queries.csv (one row per query and agent line)\n"
"  --plot               draw the plots (gnuplot) and DIR/index.html\n"
"  --lines LIST         plots: the agent lines to draw, e.g. products/1,products/2\n"
"  --mirrors LIST       plots: the mirrors to draw, e.g. box1:9312,box2:9312\n"
"  --master N           plots: the master to draw (default 0)\n"
"  --check              check the scenario's expect { } claims; exit 1 if one fails\n"
"  --fail-on KINDS      exit 4 when a run raises a finding of one of these kinds (a comma\n"
"                       list: failing,starved,locked,...; severe = every severe kind)\n"
"  --no-exec            refuse a config that is a '#!' script (default: run it, as Manticore)\n"
"  --quiet              print nothing but errors\n"
"  --help, --version\n"
"files in DIR: report.txt (findings first), findings.csv, summary.csv, periods.csv,\n"
"  latency.csv, timeline.csv, convergence.csv, readmission.csv, cdf.csv, faults.csv,\n"
"  agent_status.txt, scenario.txt, queries.csv (--queries), strategies.csv (several runs),\n"
"  plots/ and index.html (--plot)\n"
"exit codes: 0 ok; 1 run-time failure (or a failed --check); 2 bad command line;\n"
"  3 bad input (config, scenario, trace, sample file: file:line:column); 4 a finding named\n"
"  by --fail-on was raised (the run's files are complete)\n",
            hk_strat_all_names(), hk_variant_names());
}

static int bad(const char *msg, const char *arg)
{
    fprintf(stderr, P ": %s%s%s\n", msg, arg ? ": " : "", arg ? arg : "");
    fprintf(stderr, P ": see hasim --help\n");
    return EXIT_USAGE;
}

static int value_opt(hasim_args *a, const char *s, const char *v)
{
    long long n;
    if (!strcmp(s, "--out"))
        a->out = v;
    else if (!strcmp(s, "--seed")) {
        if (hk_cli_int(P, s, v, 0, 4294967295LL, &a->seed) < 0)
            return -1;
    } else if (!strcmp(s, "--strategy")) {
        if ((a->nstrat = hk_cli_strategies(P, s, v, a->strats, HK_STRAT_N)) < 0)
            return -1;
        a->compare |= a->nstrat > 1 || strchr(v, ',') || !strcmp(v, "all") || !strcmp(v, "every");
        a->strategy = a->compare ? -1 : a->strats[0];
    } else if (!strcmp(s, "--fail-on")) {
        if (hk_cli_kinds(P, s, v) < 0)
            return -1;
        a->fail_on = v;
    } else if (!strcmp(s, "--table-map")) {
        if (a->ntmap == HK_TMAP_MAX || !strchr(v, '=') || v[0] == '=')
            return bad("--table-map: expected LOG=CONFIG (at most 64), got", v), -1;
        a->tmap[a->ntmap++] = v;
    } else if (!strcmp(s, "--variant")) {
        if ((a->nvar = hk_cli_variants(P, s, v, a->vars, HK_VAR_N)) < 0)
            return -1;
        a->compare |= a->nvar > 1 || !strcmp(v, "all");
        a->variant = a->nvar == 1 ? a->vars[0] : -1;
    } else if (!strcmp(s, "--duration")) {
        if (hk_cli_time(P, s, v, HK_SEC, &a->duration_us) < 0)
            return -1;
    } else if (!strcmp(s, "--lines"))
        snprintf(a->sel.lines, sizeof a->sel.lines, "%s", v);
    else if (!strcmp(s, "--mirrors"))
        snprintf(a->sel.mirrors, sizeof a->sel.mirrors, "%s", v);
    else if (!strcmp(s, "--master")) {
        if (hk_cli_int(P, s, v, 0, 1023, &n) < 0)
            return -1;
        a->sel.master = (int)n;
    } else
        return 1;
    return 0;
}

/* 0 parsed, -1 error (printed), 1 printed --help/--version (exit 0). */
static int parse_args(int argc, char **argv, hasim_args *a)
{
    memset(a, 0, sizeof *a);
    a->seed = a->strategy = a->variant = -1;
    a->sel.master = -1;
    static const char *flags[] = {"--queries", "--plot", "--quiet", "--no-exec", "--check",
                                  "--force"};
    int *fl[] = {&a->queries, &a->plot, &a->quiet, &a->no_exec, &a->check, &a->force};
    const int nfl = (int)(sizeof fl / sizeof fl[0]);
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i];
        int k = 0;
        while (k < nfl && strcmp(s, flags[k]))
            k++;
        if (k < nfl) {
            *fl[k] = 1;
            continue;
        }
        if (!strcmp(s, "-h") || !strcmp(s, "--help")) {
            usage(stdout);
            return 1;
        }
        if (!strcmp(s, "--version")) {
            hk_cli_version(P);
            return 1;
        }
        if (s[0] != '-') {
            if (a->scenario)
                return bad("one scenario at a time; a second one", s), -1;
            a->scenario = s;
            continue;
        }
        if (i + 1 >= argc) { /* a known option without its value, or no option at all */
            static const char *const valued[] = {"--out", "--seed", "--strategy", "--variant",
                                                 "--duration", "--table-map", "--lines",
                                                 "--mirrors", "--master", "--fail-on", NULL};
            int known = hk_word_in(s, valued);
            return bad(known ? "option needs a value" : "unknown option", s), -1;
        }
        int rc = value_opt(a, s, argv[i + 1]);
        if (rc > 0)
            return bad("unknown option", s), -1;
        if (rc < 0)
            return -1;
        i++;
    }
    if (!a->scenario)
        return bad("expected a scenario file", NULL), -1;
    if (!a->out) {
        const char *b = strrchr(a->scenario, '/');
        b = b ? b + 1 : a->scenario;
        snprintf(a->outbuf, sizeof a->outbuf, "out/%.*s", (int)strcspn(b, "."), b);
        a->out = a->outbuf;
        a->out_default = 1;
    }
    return 0;
}

void hasim_print_err(const hk_err *e)
{
    char m[1024];
    fprintf(stderr, P ": %s\n", hk_err_str(e, m, sizeof m));
}

/* ---- one run ---------------------------------------------------------- */

typedef struct streams { hk_out periods, latency, queries; } streams;

static int open_streams(const char *dir, int queries, streams *st, sim_opts *o, hk_err *e)
{
    memset(st, 0, sizeof *st);
    if (hk_out_open(&st->periods, dir, "periods.csv", e) < 0 ||
        hk_out_open(&st->latency, dir, "latency.csv", e) < 0 ||
        (queries && hk_out_open(&st->queries, dir, "queries.csv", e) < 0))
        return -1;
    o->periods = st->periods.f;
    o->latency = st->latency.f;
    o->queries = st->queries.f;
    sim_out_headers(o);
    return 0;
}

static void abort_streams(streams *st)
{
    hk_out_abort(&st->periods);
    hk_out_abort(&st->latency);
    hk_out_abort(&st->queries);
}

static int commit_streams(streams *st, hk_err *e)
{
    int rc = hk_out_commit(&st->periods, e);
    rc |= hk_out_commit(&st->latency, e);
    rc |= hk_out_commit(&st->queries, e);
    return rc ? -1 : 0;
}

static int write_report(const sim_world *w, const sim_result *r, const char *scenario,
                        const char *dir, hk_err *e)
{
    hk_out o;
    if (hk_out_open(&o, dir, "report.txt", e) < 0)
        return -1;
    sim_print(o.f, w, r, scenario, 1);
    return hk_out_commit(&o, e);
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

void hasim_progress(void *ctx, double frac)
{
    runctx *c = ctx;
    char what[48];
    snprintf(what, sizeof what, "run %d of %d", c->done + 1, c->total);
    hk_progress_update(&c->prog, ((double)c->done + frac) / c->total, what);
}

/* --table-map entries onto the scenario's own table_map (once per scenario). */
static int add_tmap(const hasim_args *a, hk_scn *s)
{
    for (int i = 0; i < a->ntmap; i++) {
        const char *eq = strchr(a->tmap[i], '=');
        char log[128], conf[128];
        snprintf(log, sizeof log, "%.*s", (int)(eq - a->tmap[i]), a->tmap[i]);
        snprintf(conf, sizeof conf, "%s", eq + 1);
        if (!hk_cluster_find_table(s->cl, conf))
            return fprintf(stderr, P ": --table-map %s: the config has no distributed table "
                           "'%s'\n", a->tmap[i], conf), EXIT_USAGE;
        int k = 0;
        while (k < s->wl.ntmap && strcmp(s->wl.tmap[k][0], log))
            k++;
        if (k == HK_TMAP_MAX)
            return fprintf(stderr, P ": --table-map: at most %d names\n", HK_TMAP_MAX), EXIT_USAGE;
        snprintf(s->wl.tmap[k][0], sizeof s->wl.tmap[k][0], "%s", log);
        snprintf(s->wl.tmap[k][1], sizeof s->wl.tmap[k][1], "%s", conf);
        s->wl.ntmap += k == s->wl.ntmap;
    }
    return 0;
}

int hasim_one(runctx *c, hk_scn *s, sim_opts *o, const char *dir, sim_figures *fig,
              FILE *report)
{
    hk_err e;
    int trc = add_tmap(c->a, s);
    if (trc)
        return trc;
    streams st;
    memset(&st, 0, sizeof st);
    if (hk_loaded_rewind(c->L, s, o->duration_us ? o->duration_us : s->wl.duration_us, &e) < 0) {
        hasim_print_err(&e);
        return EXIT_INPUT;
    }
    if (dir && (hk_mkdirs(dir, &e) < 0 || open_streams(dir, c->a->queries, &st, o, &e) < 0)) {
        hasim_print_err(&e);
        abort_streams(&st);
        return EXIT_RUN;
    }
    o->stop = c->a->stop;
    sim_world *w = sim_new(s, o);
    int rc = w ? sim_run(w) : -2;
    sim_result r;
    memset(&r, 0, sizeof r);
    if (rc == 0 && sim_analyse(w, &r) < 0)
        rc = -2;
    c->done++;
    hk_progress_done(&c->prog);
    if (rc == SIM_STOPPED || rc == SIM_WRITE_FAILED) {
        abort_streams(&st);
        sim_free(w);
        if (rc == SIM_WRITE_FAILED) /* a full disk: said at once, the run's files go */
            fprintf(stderr, P ": %s: a file of the run could not be written (disk full?): the "
                    "run stopped at its first failed write and its files were removed\n",
                    dir ? dir : "output");
        return rc == SIM_STOPPED ? 128 + (int)*c->a->stop : EXIT_RUN;
    }
    if (rc < 0) {
        int input = rc == -1 && c->L->trace && c->L->trace->failed;
        if (input)
            hasim_print_err(&c->L->trace->err);
        else
            fprintf(stderr, P ": out of memory\n");
        abort_streams(&st);
        sim_result_free(&r);
        sim_free(w);
        return input ? EXIT_INPUT : EXIT_RUN;
    }
    sim_figures_of(w, &r, fig);
    c->failed_on |= hk_ans_fail_on(&r.ans, c->a->fail_on);
    if (c->inspect)
        c->inspect(c->ictx, w, &r);
    if (report)
        sim_print(report, w, &r, c->a->scenario, 0);
    if (dir && (sim_write_files(w, &r, dir, &e) < 0 ||
                hk_rep_faults(s, w->end_us - w->t0, dir, &e) < 0 ||
                write_report(w, &r, c->a->scenario, dir, &e) < 0 || commit_streams(&st, &e) < 0)) {
        hasim_print_err(&e);
        abort_streams(&st);
        rc = EXIT_RUN;
    }
    sim_result_free(&r);
    sim_free(w);
    return rc < 0 ? EXIT_RUN : rc;
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

void hasim_print_warns(const hk_warns *w)
{
    for (int i = 0; i < w->n; i++) {
        char m[1024];
        fprintf(stderr, P ": warning: %s\n", hk_err_str(&w->w[i], m, sizeof m));
    }
    if (w->dropped)
        fprintf(stderr, P ": %d more warnings\n", w->dropped);
}

static int summary_out(runctx *c, hk_scn *s, runcfg *rc, int n, int R,
                       sim_figures (*figs)[MAXREP], uint64_t seed)
{
    hk_err e;
    hk_out o;
    if (write_strategies(s, c->a->out, rc, n, figs, &e) < 0 ||
        hk_out_open(&o, c->a->out, "report.txt", &e) < 0) {
        hasim_print_err(&e);
        return EXIT_RUN;
    }
    if (!c->a->quiet) { /* stdout ends with the findings, report.txt starts with them */
        print_table(stdout, s, rc, n, R, figs, c->a->scenario, seed);
        print_row_findings(stdout, rc, n);
    }
    print_row_findings(o.f, rc, n);
    print_table(o.f, s, rc, n, R, figs, c->a->scenario, seed);
    if (hk_out_commit(&o, &e) < 0) {
        hasim_print_err(&e);
        return EXIT_RUN;
    }
    return 0;
}

static int run_grid(runctx *c, runcfg *rc, int n, int R, sim_figures (*figs)[MAXREP])
{
    const hasim_args *a = c->a;
    int multi = n > 1;
    uint64_t seed = (uint64_t)(a->seed >= 0 ? a->seed : (long long)c->L->scn->seed);
    c->total = n * R;
    hk_progress_init(&c->prog, P, a->quiet);
    for (int i = 0; i < n; i++) {
        hk_err e;
        hk_warns w = {0};
        int fresh = !c->L->by_dialect[hk_dialect_of(rc[i].variant)];
        hk_scn *s = hk_loaded_scn(c->L, rc[i].variant, &w, &e);
        if (!s) {
            hasim_print_err(&e);
            return EXIT_INPUT;
        }
        if (fresh)
            hasim_print_warns(&w);
        for (int r = 0; r < R; r++) {
            sim_opts o = {0};
            o.seed = seed + (uint64_t)r;
            o.variant = rc[i].variant;
            o.strategy = rc[i].strategy;
            o.duration_us = a->duration_us;
            o.progress = hasim_progress;
            o.pctx = c;
            FILE *rep = !a->quiet && !multi && r == 0 && R == 1 ? stdout : NULL;
            c->inspect = keep_findings;
            c->ictx = r == 0 ? &rc[i] : NULL;
            int code = hasim_one(c, s, &o, r == 0 ? rc[i].dir : NULL, &figs[i][r], rep);
            if (code)
                return code;
        }
    }
    hk_err e;
    if (hk_mkdirs(a->out, &e) < 0 ||
        hk_out_write_all(a->out, "scenario.txt", c->L->text, strlen(c->L->text), &e) < 0) {
        hasim_print_err(&e);
        return EXIT_RUN;
    }
    if (multi || R > 1) {
        int code = summary_out(c, c->L->scn, rc, n, R, figs, seed);
        if (code)
            return code;
    }
    return 0;
}

static void plots(const hasim_args *a, const runcfg *rc, int n)
{
    char msg[512];
    int ok = 1, nc = 0;
    for (int i = 0; n > 1 && ok && i < n; i++)
        ok = hk_plot_run(rc[i].dir, 0, &a->sel, msg, sizeof msg) >= 0;
    if (!ok || (nc = hk_plot_run(a->out, n > 1, &a->sel, msg, sizeof msg)) < 0)
        fprintf(stderr, P ": %s\n", msg);
    else if (!a->quiet && nc == 0)
        printf("plots: each run's in %s/*/plots/ (open %s/index.html); no comparison chart: "
               "every run gave the same latencies, failures, shares and re-admission\n", a->out,
               a->out);
    else if (!a->quiet)
        printf("plots: %s/plots/ (open %s/index.html)\n", a->out, a->out);
}

int hasim_run(int argc, char **argv, volatile sig_atomic_t *stop)
{
    hasim_args a;
    int rc = parse_args(argc, argv, &a);
    if (rc)
        return rc > 0 ? 0 : EXIT_USAGE;
    a.stop = stop;
    if (a.check)
        return hasim_check(&a);
    hk_loaded L;
    hk_err e;
    if (hk_scn_load(a.scenario, !a.no_exec, &L, &e) < 0) {
        hasim_print_err(&e);
        return EXIT_INPUT;
    }
    for (int i = 0; i < L.nran; i++)
        fprintf(stderr, P ": note: %s starts with '#!': ran it as Manticore does and read its "
                "output as the config\n", L.ran[i]);
    hasim_print_warns(&L.warns);
    runcfg cfg[HK_VAR_N * (HK_STRAT_N + 1)];
    int n = plan(&a, L.scn, cfg), R = L.scn->replications;
    sim_figures (*figs)[MAXREP] = calloc((size_t)n, sizeof *figs);
    runctx c = {&L, &a, {0}, 0, 0, NULL, NULL, 0};
    hk_rundir rd;
    if (hk_rundir_open(&rd, a.out, "hasim", a.force || a.out_default, &e) < 0) {
        hasim_print_err(&e);
        free(figs);
        hk_loaded_free(&L);
        return EXIT_USAGE;
    }
    rc = figs ? run_grid(&c, cfg, n, R, figs) : EXIT_RUN;
    if (rc == 0 && a.plot)
        plots(&a, cfg, n);
    if (rc == 0 && hk_rundir_done(&rd, &e) < 0) {
        hasim_print_err(&e);
        rc = EXIT_RUN;
    }
    if (rc) /* nothing of a failed run stays behind looking finished */
        hk_rundir_abort(&rd);
    if (*stop)
        fprintf(stderr, P ": stopped by %s: the run's files in %s/ were removed (exit %d)\n",
                strsignal(*stop), a.out, 128 + (int)*stop);
    if (rc == 0 && !a.quiet)
        printf("files: %s/\n", a.out);
    if (rc == 0 && c.failed_on) {
        fprintf(stderr, P ": a finding of a kind in --fail-on %s was raised (exit %d)\n",
                a.fail_on, EXIT_FINDING);
        rc = EXIT_FINDING;
    }
    free(figs);
    hk_loaded_free(&L);
    return rc;
}
