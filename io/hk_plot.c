/* hk_plot: CSV -> gnuplot data blocks -> PNG/SVG charts -> index.html. */
#include "hk_plot.h"

#include <errno.h>
#include <math.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "hk_csv.h"
#include "hk_file.h"

extern char **environ;

#define MAXS 48                  /* series drawn per chart */
#define MAXLINES 4               /* agent lines drawn (facets) */

typedef struct series {
    char key[300];               /* table/agent */
    char mirror[280];
    int line;                    /* facet index */
    int n, cap;
    double *t, *prob, *q, *mean, *p99;
} series;

typedef struct plotdata {
    series s[MAXS];
    int ns, nlines, lines_total;
    char lines[MAXLINES][300];
    double karma;
} plotdata;

const char *hk_plot_scripts(void)
{
    const char *e = getenv("HAKARMA_PLOTS");
    return e && *e ? e : HK_PLOTS_DIR;
}

static int fail(char *msg, int n, const char *fmt, const char *a)
{
    snprintf(msg, (size_t)n, fmt, a);
    return -1;
}

static series *find_series(plotdata *p, const char *key, const char *mirror)
{
    for (int i = 0; i < p->ns; i++)
        if (!strcmp(p->s[i].key, key) && !strcmp(p->s[i].mirror, mirror))
            return &p->s[i];
    int line = -1;
    for (int i = 0; i < p->nlines; i++)
        if (!strcmp(p->lines[i], key))
            line = i;
    if (line < 0) {
        if (p->nlines == MAXLINES)
            return NULL;
        line = p->nlines;
        snprintf(p->lines[p->nlines++], sizeof p->lines[0], "%s", key);
    }
    if (p->ns == MAXS)
        return NULL;
    series *s = &p->s[p->ns++];
    memset(s, 0, sizeof *s);
    snprintf(s->key, sizeof s->key, "%s", key);
    snprintf(s->mirror, sizeof s->mirror, "%s", mirror);
    s->line = line;
    return s;
}

static int push(series *s, double t, double prob, double q, double mean, double p99)
{
    if (s->n == s->cap) {
        int cap = s->cap ? s->cap * 2 : 64;
        double **arr[5] = {&s->t, &s->prob, &s->q, &s->mean, &s->p99};
        for (int k = 0; k < 5; k++) {
            double *nv = realloc(*arr[k], (size_t)cap * sizeof(double));
            if (!nv)
                return -1;
            *arr[k] = nv;
        }
        s->cap = cap;
    }
    s->t[s->n] = t;
    s->prob[s->n] = prob;
    s->q[s->n] = q;
    s->mean[s->n] = mean;
    s->p99[s->n++] = p99;
    return 0;
}

static int load_periods(const char *dir, plotdata *p, char *msg, int n)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/periods.csv", dir);
    hk_csvr r;
    hk_err e;
    if (hk_csvr_open(&r, path, &e) < 0)
        return fail(msg, n, "no %s to plot", path);
    char **f;
    int nf, c[9];
    static const char *cols[9] = {"t_start_s", "master", "table", "agent", "mirror",
                                  "probability", "queries", "latency_mean_ms", "latency_p99_ms"};
    int rc = hk_csvr_next(&r, &f, &nf, &e);
    for (int k = 0; rc == 1 && k < 9; k++)
        if ((c[k] = hk_csv_column(f, nf, cols[k])) < 0)
            rc = -1;
    char last[300] = "", first_t[32] = "";
    while (rc == 1 && (rc = hk_csvr_next(&r, &f, &nf, &e)) == 1) {
        if (nf < 9 || strcmp(f[c[1]], "0"))
            continue;
        char key[300];
        snprintf(key, sizeof key, "%.200s/%.40s", f[c[2]], f[c[3]]);
        if (!first_t[0])
            snprintf(first_t, sizeof first_t, "%s", f[c[0]]);
        if (!strcmp(first_t, f[c[0]]) && strcmp(last, key)) { /* rows of a line are contiguous */
            p->lines_total++;
            snprintf(last, sizeof last, "%s", key);
        }
        series *s = find_series(p, key, f[c[4]]);
        if (s && push(s, atof(f[c[0]]), atof(f[c[5]]), atof(f[c[6]]), atof(f[c[7]]),
                      atof(f[c[8]])) < 0)
            rc = -1;
    }
    hk_csvr_close(&r);
    if (rc < 0)
        return fail(msg, n, "cannot read %s", path);
    if (p->ns && p->s[0].n > 1)
        p->karma = p->s[0].t[1] - p->s[0].t[0];
    return 0;
}

/* One gnuplot block per series: t value (stepped by gnuplot's 'steps'). */
static int write_blocks(const char *path, const plotdata *p, int what, int line)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    for (int i = 0; i < p->ns; i++) {
        const series *s = &p->s[i];
        if (s->line != line)
            continue;
        fprintf(f, "\"%s\"\n", s->mirror);
        for (int k = 0; k < s->n; k++) {
            double v = what == 0 ? s->prob[k] : what == 1 ? s->mean[k] : what == 2 ? s->p99[k]
                       : s->q[k];
            fprintf(f, "%.3f %.6f\n", s->t[k], v);
        }
        if (s->n) /* hold the last value to the end of its period */
            fprintf(f, "%.3f %.6f\n", s->t[s->n - 1] + p->karma,
                    what == 0 ? s->prob[s->n - 1] : what == 1 ? s->mean[s->n - 1]
                    : what == 2 ? s->p99[s->n - 1] : s->q[s->n - 1]);
        fprintf(f, "\n\n");
    }
    return fclose(f);
}

/* Stacked queries of the first agent line: t, then cumulative sums per mirror. */
static int write_stacked(const char *path, const plotdata *p)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    int idx[MAXS], m = 0;
    for (int i = 0; i < p->ns; i++)
        if (p->s[i].line == 0)
            idx[m++] = i;
    fprintf(f, "t");
    for (int j = 0; j < m; j++)
        fprintf(f, " \"%s\"", p->s[idx[j]].mirror);
    fprintf(f, "\n");
    for (int k = 0; m && k <= p->s[idx[0]].n; k++) { /* steps: one row per period start + end */
        int kk = k < p->s[idx[0]].n ? k : k - 1;
        fprintf(f, "%.3f", k < p->s[idx[0]].n ? p->s[idx[0]].t[k] : p->s[idx[0]].t[kk] + p->karma);
        double cum = 0;
        for (int j = 0; j < m; j++) {
            cum += kk < p->s[idx[j]].n ? p->s[idx[j]].q[kk] : 0;
            fprintf(f, " %.0f", cum);
        }
        fprintf(f, "\n");
    }
    return fclose(f);
}

static int in_panel(const plotdata *p, int line, const char *mirror)
{
    for (int i = 0; i < p->ns; i++)
        if (p->s[i].line == line && !strcmp(p->s[i].mirror, mirror))
            return 1;
    return 0;
}

/* faults.csv -> plots/faults_L.gp per panel: a shaded window for each fault of a mirror drawn
 * in that panel (`unset object; unset label` first, so panels do not inherit each other's). */
static int write_faults(const char *dir, const plotdata *p)
{
    char in[1200], out[1200];
    snprintf(in, sizeof in, "%s/faults.csv", dir);
    for (int l = 0; l < (p->nlines > 0 ? p->nlines : 1); l++) {
        snprintf(out, sizeof out, "%s/plots/faults_%d.gp", dir, l);
        FILE *o = fopen(out, "w");
        if (!o)
            return -1;
        fputs("unset object\nunset label\n", o);
        hk_csvr r;
        hk_err e;
        char **f;
        int nf, n = 0;
        if (hk_csvr_open(&r, in, &e) == 0) {
            int rc = hk_csvr_next(&r, &f, &nf, &e);
            while (rc == 1 && (rc = hk_csvr_next(&r, &f, &nf, &e)) == 1 && nf >= 4) {
                if (!in_panel(p, l, f[2]))
                    continue;
                n++;
                fprintf(o, "set object %d rect from %s, graph 0 to %s, graph 1 behind "
                        "fc rgb '#d62728' fs transparent solid 0.12 noborder\n"
                        "set label %d '%s %s' at %s, graph 0.97 left front font ',9' tc rgb "
                        "'#d62728'\n", n, f[0], f[1], n, f[2], f[3], f[0]);
            }
            hk_csvr_close(&r);
        }
        if (fclose(o) != 0)
            return -1;
    }
    return 0;
}

static int gnuplot(const char *script, const char *vars, char *msg, int n)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/%s", hk_plot_scripts(), script);
    if (access(path, R_OK) < 0)
        return fail(msg, n, "plot script %s not found (set HAKARMA_PLOTS)", path);
    char *argv[] = {"gnuplot", "-e", (char *)vars, path, NULL};
    pid_t pid;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", 1, 0);
    int rc = posix_spawnp(&pid, "gnuplot", &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0)
        return fail(msg, n, "gnuplot not found (%s): install gnuplot-nox to get plots; the CSV "
                    "files are complete", strerror(rc));
    int st;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    if (WIFEXITED(st) && WEXITSTATUS(st) == 127)
        return fail(msg, n, "gnuplot not found%s: install gnuplot-nox to get plots; the CSV "
                    "files are complete", "");
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
        return fail(msg, n, "gnuplot failed on %s", path);
    return 0;
}

static int chart(const char *dir, const char *name, const char *extra, char *msg, int n)
{
    static const char *terms[2][2] = {{"png", "pngcairo size 1200,700 font 'Sans,11'"},
                                      {"svg", "svg size 1200,700 dynamic font 'Sans,11'"}};
    char script[64];
    snprintf(script, sizeof script, "%s.gp", name);
    for (int k = 0; k < 2; k++) {
        char vars[2600];
        snprintf(vars, sizeof vars, "dir='%s'; gp='%s'; out='%s/plots/%s.%s'; term=\"%s\"; %s",
                 dir, hk_plot_scripts(), dir, name, terms[k][0], terms[k][1], extra);
        if (gnuplot(script, vars, msg, n) < 0)
            return -1;
    }
    return 0;
}

static int exists(const char *dir, const char *name)
{
    char p[1200];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    return access(p, R_OK) == 0;
}

static void html_file(FILE *h, const char *dir, const char *name, const char *title)
{
    char p[1200];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "r");
    if (!f)
        return;
    fprintf(h, "<h2>%s</h2>\n<pre>", title);
    for (int c; (c = fgetc(f)) != EOF;)
        fputs(c == '<' ? "&lt;" : c == '>' ? "&gt;" : c == '&' ? "&amp;" : (char[]){(char)c, 0},
              h);
    fprintf(h, "</pre>\n");
    fclose(f);
}

/* A --strategy/--variant all folder: link every run's own page. */
static void html_runs(FILE *h, const char *dir)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/strategies.csv", dir);
    hk_csvr r;
    hk_err e;
    if (hk_csvr_open(&r, path, &e) < 0)
        return;
    char **f;
    int nf, rc = hk_csvr_next(&r, &f, &nf, &e), col = rc == 1 ? hk_csv_column(f, nf, "dir") : -1;
    fprintf(h, "<h2>Runs</h2>\n<ul>\n");
    while (col >= 0 && hk_csvr_next(&r, &f, &nf, &e) == 1 && col < nf)
        fprintf(h, "<li><a href=\"%s/index.html\">%s</a></li>\n", f[col], f[col]);
    fprintf(h, "</ul>\n");
    hk_csvr_close(&r);
}

static int write_index(const char *dir, const char *const *charts, int nc)
{
    hk_out o;
    hk_err e;
    if (hk_out_open(&o, dir, "index.html", &e) < 0)
        return -1;
    fprintf(o.f, "<!doctype html>\n<meta charset=\"utf-8\">\n<title>hakarma: %s</title>\n"
            "<style>body{font-family:sans-serif;max-width:1240px;margin:auto} img{width:100%%}"
            " pre{background:#f4f4f4;padding:8px;overflow:auto}</style>\n<h1>hakarma run: %s</h1>\n",
            dir, dir);
    html_file(o.f, dir, "report.txt", "Summary");
    for (int i = 0; i < nc; i++)
        fprintf(o.f, "<h2>%s</h2>\n<a href=\"plots/%s.svg\"><img src=\"plots/%s.png\" "
                "alt=\"%s\"></a>\n", charts[i], charts[i], charts[i], charts[i]);
    html_runs(o.f, dir);
    html_file(o.f, dir, "scenario.txt", "Scenario");
    return hk_out_commit(&o, &e);
}

static int data_files(const char *dir, const plotdata *p)
{
    static const char *names[4] = {"convergence", "latency_mean", "latency_p99", "queries"};
    char path[1200];
    for (int l = 0; l < p->nlines; l++)
        for (int k = 0; k < 4; k++) {
            snprintf(path, sizeof path, "%s/plots/%s_%d.dat", dir, names[k], l);
            if (write_blocks(path, p, k, l) != 0)
                return -1;
        }
    snprintf(path, sizeof path, "%s/plots/queries_stacked.dat", dir);
    return write_stacked(path, p);
}

static int plot_all(const char *dir, int multi, plotdata *p, char *msg, int n);

int hk_plot_run(const char *dir, int multi, const hk_plot_sel *sel, char *msg, int n)
{
    (void)sel;
    char pd[1200];
    hk_err e;
    snprintf(pd, sizeof pd, "%s/plots", dir);
    if (hk_mkdirs(pd, &e) < 0)
        return fail(msg, n, "cannot create %s", pd);
    plotdata *pp = calloc(1, sizeof *pp);
    if (!pp)
        return fail(msg, n, "out of memory%s", "");
    int rc = plot_all(dir, multi, pp, msg, n);
    for (int i = 0; i < pp->ns; i++) {
        series *x = &pp->s[i];
        free(x->t), free(x->prob), free(x->q), free(x->mean), free(x->p99);
    }
    free(pp);
    return rc;
}

static int plot_all(const char *dir, int multi, plotdata *p, char *msg, int n)
{
    char pd[1200];
    snprintf(pd, sizeof pd, "%s/plots", dir);
    const char *charts[8];
    int nc = 0;
    char extra[2048];
    if (exists(dir, "periods.csv")) {
        if (load_periods(dir, p, msg, n) < 0 || data_files(dir, p) < 0)
            return p->ns ? fail(msg, n, "cannot write data files in %s", pd) : -1;
        if (write_faults(dir, p) != 0)
            return fail(msg, n, "cannot write the fault windows in %s", pd);
        int cnt[MAXLINES] = {0};
        for (int i = 0; i < p->ns; i++)
            cnt[p->s[i].line]++;
        int off = snprintf(extra, sizeof extra, "nlines=%d; lines_total=%d", p->nlines,
                           p->lines_total);
        for (int l = 0; l < p->nlines; l++)
            off += snprintf(extra + off, sizeof extra - (size_t)off, "; n%d=%d; t%d='%s'", l,
                            cnt[l], l, p->lines[l]);
        static const char *per[3] = {"convergence", "latency", "queries"};
        for (int k = 0; k < 3; k++) {
            if (chart(dir, per[k], extra, msg, n) < 0)
                return -1;
            charts[nc++] = per[k];
        }
    }
    if (multi && exists(dir, "strategies.csv")) {
        if (chart(dir, "strategies_cdf", "", msg, n) < 0 ||
            chart(dir, "strategies_p99", "", msg, n) < 0)
            return -1;
        charts[nc++] = "strategies_cdf";
        charts[nc++] = "strategies_p99";
    }
    if (exists(dir, "compare.csv")) {
        if (chart(dir, "compare", "", msg, n) < 0)
            return -1;
        charts[nc++] = "compare";
    }
    if (nc == 0)
        return fail(msg, n, "nothing to plot in %s", dir);
    if (write_index(dir, charts, nc) < 0)
        return fail(msg, n, "cannot write %s/index.html", dir);
    return nc;
}
