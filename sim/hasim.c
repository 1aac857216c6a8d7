/* hasim: command line of the simulator — load a scenario, run it once or for
 * every strategy / variant / replication, print the report, write the output
 * folder (files appear only when complete), optionally plot. */
#include <gsl/gsl_cdf.h>
#include <inttypes.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hk_file.h"
#include "hk_plot.h"
#include "hk_report.h"
#include "hk_scnload.h"
#include "hk_time.h"
#include "sim.h"
#include "sim_out.h"
#include "sim_report.h"

enum { EXIT_RUN = 1, EXIT_USAGE = 2, EXIT_INPUT = 3 };

typedef struct args {
    const char *scenario, *out;
    char outbuf[1024];
    long long seed;              /* -1 = scenario's */
    int strat_all, strategy;     /* strategy -1 = scenario's */
    int var_all, variant;        /* variant -1 = scenario's */
    int64_t duration_us;
    int queries, plot, quiet;
} args;

static int usage(const char *msg)
{
    if (msg)
        fprintf(stderr, "hasim: %s\n", msg);
    fprintf(stderr, "usage: hasim SCENARIO [--out DIR] [--seed N] [--strategy NAME|all] "
            "[--variant NAME|all] [--duration T] [--queries] [--plot] [--quiet]\n"
            "  strategies: random, roundrobin, nodeads, noerrors\n"
            "  variants:   %s\n", hk_variant_names());
    return EXIT_USAGE;
}

static int parse_args(int argc, char **argv, args *a)
{
    memset(a, 0, sizeof *a);
    a->seed = a->strategy = a->variant = -1;
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        int takes = !strcmp(s, "--out") || !strcmp(s, "--seed") || !strcmp(s, "--strategy") ||
                    !strcmp(s, "--variant") || !strcmp(s, "--duration");
        if (takes && !v)
            return usage("option needs a value");
        if (!strcmp(s, "--out")) a->out = v;
        else if (!strcmp(s, "--seed")) {
            char *end;
            a->seed = strtoll(v, &end, 10);
            if (*end || a->seed < 0)
                return usage("--seed: expected a non-negative integer");
        } else if (!strcmp(s, "--strategy")) {
            if (!strcmp(v, "all")) a->strat_all = 1;
            else if ((a->strategy = hk_strat_find(v)) < 0)
                return usage("--strategy: expected random, roundrobin, nodeads, noerrors or all");
        } else if (!strcmp(s, "--variant")) {
            if (!strcmp(v, "all")) a->var_all = 1;
            else if ((a->variant = hk_variant_find(v)) < 0)
                return usage("--variant: unknown variant");
        } else if (!strcmp(s, "--duration")) {
            int bad;
            const char *what;
            if (hk_time_parse(v, HK_SEC, &a->duration_us, &bad, &what) < 0 || a->duration_us <= 0)
                return usage("--duration: expected a positive time such as 90s or 10m");
        } else if (!strcmp(s, "--queries")) { a->queries = 1; continue; }
        else if (!strcmp(s, "--plot")) { a->plot = 1; continue; }
        else if (!strcmp(s, "--quiet")) { a->quiet = 1; continue; }
        else if (!strcmp(s, "-h") || !strcmp(s, "--help")) { usage(NULL); exit(0); }
        else if (s[0] == '-') return usage("unknown option");
        else if (!a->scenario) { a->scenario = s; continue; }
        else return usage("one scenario at a time");
        i++;
    }
    if (!a->scenario)
        return usage("expected a scenario file");
    if (!a->out) {
        const char *b = strrchr(a->scenario, '/');
        b = b ? b + 1 : a->scenario;
        int n = (int)strcspn(b, ".");
        snprintf(a->outbuf, sizeof a->outbuf, "out/%.*s", n, b);
        a->out = a->outbuf;
    }
    return 0;
}

static void print_err(const hk_err *e)
{
    char m[1024];
    fprintf(stderr, "hasim: %s\n", hk_err_str(e, m, sizeof m));
}

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

static int write_report(const sim_world *w, const char *scenario, const char *dir, hk_err *e)
{
    hk_out o;
    if (hk_out_open(&o, dir, "report.txt", e) < 0)
        return -1;
    sim_print(o.f, w, scenario);
    return hk_out_commit(&o, e);
}

/* One simulation; files into dir when dir != NULL. */
static int run_one(hk_loaded *L, const args *a, sim_opts *o, const char *dir, sim_figures *fig,
                   FILE *report)
{
    hk_err e;
    streams st;
    memset(&st, 0, sizeof st);
    if (hk_loaded_rewind(L, &e) < 0) {
        print_err(&e);
        return EXIT_INPUT;
    }
    if (dir && (hk_mkdirs(dir, &e) < 0 || open_streams(dir, a->queries, &st, o, &e) < 0)) {
        print_err(&e);
        abort_streams(&st);
        return EXIT_RUN;
    }
    sim_world *w = sim_new(L->scn, o);
    int rc = w ? sim_run(w) : -1;
    if (rc < 0) {
        if (L->trace && L->trace->failed)
            print_err(&L->trace->err);
        else
            fprintf(stderr, "hasim: out of memory\n");
        abort_streams(&st);
        sim_free(w);
        return L->trace && L->trace->failed ? EXIT_INPUT : EXIT_RUN;
    }
    sim_figures_of(w, fig);
    if (report)
        sim_print(report, w, a->scenario);
    if (dir && (sim_write_files(w, dir, &e) < 0 || hk_rep_faults(L->scn, w->end_us, dir, &e) < 0 ||
                write_report(w, a->scenario, dir, &e) < 0 || commit_streams(&st, &e) < 0)) {
        print_err(&e);
        abort_streams(&st);
        sim_free(w);
        return EXIT_RUN;
    }
    sim_free(w);
    return 0;
}

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

typedef struct runcfg { int strategy, variant; char dir[1100]; char label[64]; } runcfg;

static void print_row(FILE *out, const runcfg *r, const sim_figures *f, int R)
{
    double p[5][2];
    double xs[5][1000];
    for (int k = 0; k < R; k++) {
        xs[0][k] = f[k].p50;
        xs[1][k] = f[k].p99;
        xs[2][k] = f[k].p999;
        xs[3][k] = f[k].mean;
        xs[4][k] = f[k].error + f[k].partial;
    }
    for (int m = 0; m < 5; m++)
        ci(xs[m], R, &p[m][0], &p[m][1]);
    char conv[32];
    if (f[0].conv_never)
        snprintf(conv, sizeof conv, "never(%d)", f[0].conv_never);
    else
        snprintf(conv, sizeof conv, "%.0f s", f[0].conv_worst_s);
    if (R == 1)
        fprintf(out, "%-28s %9.3f %9.3f %9.3f %9.3f %10.0f %10s\n", r->label, p[0][0], p[1][0],
               p[2][0], p[3][0], p[4][0], conv);
    else
        fprintf(out, "%-28s %7.3f±%-6.3f %7.3f±%-6.3f %8.3f±%-6.3f %7.3f±%-6.3f %8.0f±%-5.0f %s\n",
               r->label, p[0][0], p[0][1], p[1][0], p[1][1], p[2][0], p[2][1], p[3][0], p[3][1],
               p[4][0], p[4][1], conv);
}

static int write_strategies(const char *dir, const runcfg *rc, int n, sim_figures (*f)[1000],
                            hk_err *e)
{
    hk_out o;
    if (hk_out_open(&o, dir, "strategies.csv", e) < 0)
        return -1;
    fputs("strategy,variant,dir,queries,failed,partial,latency_mean_ms,latency_p50_ms,"
          "latency_p95_ms,latency_p99_ms,latency_p999_ms,converged_s\n", o.f);
    for (int i = 0; i < n; i++) {
        const sim_figures *x = &f[i][0];
        const char *d = strrchr(rc[i].dir, '/');
        fprintf(o.f, "%s,%s,%s,%.0f,%.0f,%.0f,%.3f,%.3f,%.3f,%.3f,%.3f,%.0f\n",
                hk_strat_get(rc[i].strategy)->name, hk_variant_get(rc[i].variant)->name,
                d ? d + 1 : rc[i].dir, x->n, x->error, x->partial, x->mean, x->p50, x->p95,
                x->p99, x->p999, x->conv_worst_s);
    }
    return hk_out_commit(&o, e);
}

static int plan(const args *a, const hk_scn *s, runcfg *rc)
{
    int n = 0;
    for (int v = 0; v < HK_VAR_N; v++) {
        int var = a->var_all ? v : a->variant >= 0 ? a->variant : s->variant;
        for (int st = 0; st < HK_STRAT_N; st++) {
            int strat = a->strat_all ? st : a->strategy;
            runcfg *r = &rc[n++];
            r->strategy = strat;
            r->variant = var;
            snprintf(r->label, sizeof r->label, "%s/%s", strat >= 0 ?
                     hk_strat_get(strat)->name : "configured", hk_variant_get(var)->name);
            if (a->strat_all || a->var_all)
                snprintf(r->dir, sizeof r->dir, "%s/%s-%s", a->out, strat >= 0 ?
                         hk_strat_get(strat)->name : "configured", hk_variant_get(var)->name);
            else
                snprintf(r->dir, sizeof r->dir, "%s", a->out);
            if (!a->strat_all)
                break;
        }
        if (!a->var_all)
            break;
    }
    return n;
}

static int copy_scenario(const hk_loaded *L, const char *dir, hk_err *e)
{
    return hk_out_write_all(dir, "scenario.txt", L->text, strlen(L->text), e);
}

static int run_grid(hk_loaded *L, const args *a, runcfg *rc, int n, int R,
                    sim_figures (*figs)[1000]);

static int run_all(hk_loaded *L, const args *a)
{
    runcfg rc[HK_VAR_N * HK_STRAT_N];
    int n = plan(a, L->scn, rc), R = L->scn->replications;
    sim_figures (*figs)[1000] = calloc(HK_VAR_N * HK_STRAT_N, sizeof *figs);
    if (!figs)
        return EXIT_RUN;
    int code = run_grid(L, a, rc, n, R, figs);
    free(figs);
    return code;
}

static int run_grid(hk_loaded *L, const args *a, runcfg *rc, int n, int R, sim_figures (*figs)[1000])
{
    int multi = n > 1;
    for (int i = 0; i < n; i++)
        for (int r = 0; r < R; r++) {
            sim_opts o = {0};
            o.seed = (uint64_t)(a->seed >= 0 ? a->seed : (long long)L->scn->seed) + (uint64_t)r;
            o.variant = rc[i].variant;
            o.strategy = rc[i].strategy;
            o.duration_us = a->duration_us;
            FILE *rep = !a->quiet && !multi && r == 0 ? stdout : NULL;
            int code = run_one(L, a, &o, r == 0 ? rc[i].dir : NULL, &figs[i][r], rep);
            if (code)
                return code;
        }
    hk_err e;
    if (hk_mkdirs(a->out, &e) < 0 || copy_scenario(L, a->out, &e) < 0 ||
        (multi && write_strategies(a->out, rc, n, figs, &e) < 0)) {
        print_err(&e);
        return EXIT_RUN;
    }
    if (multi || R > 1) {
        hk_out o;
        if (hk_out_open(&o, a->out, "report.txt", &e) < 0) {
            print_err(&e);
            return EXIT_RUN;
        }
        FILE *outs[2] = {a->quiet ? NULL : stdout, o.f};
        for (int k = 0; k < 2; k++) {
            if (!outs[k])
                continue;
            fprintf(outs[k], "%s: %d replication(s) per row%s (seeds from %" PRIu64 "), latency "
                    "in ms\n", a->scenario, R, R > 1 ? ", mean ± 95% CI" : "",
                    (uint64_t)(a->seed >= 0 ? a->seed : (long long)L->scn->seed));
            fprintf(outs[k], "%-28s %9s %9s %9s %9s %10s %10s\n", "strategy/variant", "p50",
                    "p99", "p99.9", "mean", "failed+part", "converged");
            for (int i = 0; i < n; i++)
                print_row(outs[k], &rc[i], figs[i], R);
        }
        if (hk_out_commit(&o, &e) < 0) {
            print_err(&e);
            return EXIT_RUN;
        }
    }
    if (a->plot) {
        char msg[512];
        int ok = 1;
        for (int i = 0; multi && ok && i < n; i++)
            ok = hk_plot_run(rc[i].dir, 0, msg, sizeof msg) >= 0;
        if (!ok || hk_plot_run(a->out, multi, msg, sizeof msg) < 0)
            fprintf(stderr, "hasim: %s\n", msg);
        else if (!a->quiet)
            printf("plots: %s/plots/ (open %s/index.html)\n", a->out, a->out);
    }
    if (!a->quiet)
        printf("files: %s/\n", a->out);
    return 0;
}

int main(int argc, char **argv)
{
    args a;
    int rc = parse_args(argc, argv, &a);
    if (rc)
        return rc;
    hk_loaded L;
    hk_err e;
    if (hk_scn_load(a.scenario, &L, &e) < 0) {
        print_err(&e);
        return EXIT_INPUT;
    }
    for (int i = 0; i < L.warns.n; i++) {
        char m[1024];
        fprintf(stderr, "hasim: warning: %s\n", hk_err_str(&L.warns.w[i], m, sizeof m));
    }
    rc = run_all(&L, &a);
    hk_loaded_free(&L);
    return rc;
}
