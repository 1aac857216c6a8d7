/* hk_plot: CSV -> gnuplot data blocks -> PNG/SVG charts -> index.html. */
#include "hk_plot.h"

#include <errno.h>
#include <math.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>
#include "hk_csv.h"
#include "hk_file.h"
#include "hk_plotdata.h"
#include "hk_quote.h"

extern char **environ;

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

/* gnuplot's first message line from f, in hakarma's words: the script's path cut to its name. */
static void first_line(FILE *f, const char *path, const char *script, char *b, size_t n)
{
    char line[600] = "";
    rewind(f);
    while (fgets(line, sizeof line, f) && strspn(line, " \t\n^") == strlen(line))
        ; /* gnuplot echoes the offending line and a caret first */
    line[strcspn(line, "\n")] = '\0';
    const char *at = strstr(line, path);
    if (at)
        snprintf(b, n, "%.*s%s%s", (int)(at - line), line, script, at + strlen(path));
    else
        snprintf(b, n, "%s", line);
}

/* Run gnuplot on script; its stdout is dropped, its stderr kept: a chart that could not be
 * drawn is said with gnuplot's own reason, a drawn one's warnings (an empty series: "no
 * valid points") are not passed on. */
static int gnuplot(const char *script, const char *vars, const hk_plot_sel *sel, char *msg,
                   int n)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/%s", hk_plot_scripts(), script);
    if (access(path, R_OK) < 0)
        return fail(msg, n, "plot script %s not found (set HAKARMA_PLOTS)", path);
    FILE *err = tmpfile();
    if (!err)
        return fail(msg, n, "cannot run gnuplot: %s", strerror(errno));
    char *args[] = {"gnuplot", "-e", (char *)vars, path, NULL};
    pid_t pid;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", 1, 0);
    posix_spawn_file_actions_adddup2(&fa, fileno(err), 2);
    int rc = posix_spawnp(&pid, "gnuplot", &fa, NULL, args, environ);
    posix_spawn_file_actions_destroy(&fa);
    int st = 0, told = 0;
    while (rc == 0 && waitpid(pid, &st, 0) < 0 && errno == EINTR)
        if (sel && sel->stop && *sel->stop && !told++)
            kill(pid, SIGTERM); /* the run is stopping: its child ends with it */
    if (told) {
        fclose(err);
        return fail(msg, n, "stopped while plotting with %s", script);
    }
    if (rc != 0 || (WIFEXITED(st) && WEXITSTATUS(st) == 127)) {
        fclose(err);
        return fail(msg, n, "gnuplot not found%s: install gnuplot-nox to get plots; the CSV "
                    "files are complete", rc ? "" : " (the shell said 127)");
    }
    char why[700];
    first_line(err, path, script, why, sizeof why);
    fclose(err);
    if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
        return 0;
    snprintf(msg, (size_t)n, "gnuplot could not draw with %s: %s; the CSV files are complete",
             script, why[0] ? why : "it was killed");
    return -1;
}

/* 1 when the file at fd ends as a complete PNG (its IEND chunk) or SVG ("</svg>") does: a
 * chart cut short by a full disk or a killed gnuplot is never taken as drawn. */
static int complete_chart(int fd, int svg)
{
    struct stat st;
    char tail[16] = "";
    if (fstat(fd, &st) < 0 || st.st_size < 16 ||
        pread(fd, tail, sizeof tail, st.st_size - (off_t)sizeof tail) != (ssize_t)sizeof tail)
        return 0;
    if (!svg)
        return !memcmp(tail + 8, "IEND\xae\x42\x60\x82", 8);
    char t[17];
    memcpy(t, tail, 16);
    t[16] = '\0';
    return strstr(t, "</svg>") != NULL;
}

/* One chart in one format: gnuplot writes plots/NAME.EXT.part (made here, so no link stands
 * there), which becomes NAME.EXT only when it is complete. */
static int chart_one(const char *dir, const char *name, const char *ext, const char *term,
                     const char *extra, const hk_plot_sel *sel, char *msg, int n)
{
    char pd[1200], final[300], part[310], qdir[2100], qgp[2100], vars[8000];
    hk_err e;
    snprintf(pd, sizeof pd, "%s/plots", dir);
    snprintf(final, sizeof final, "%s.%s", name, ext);
    snprintf(part, sizeof part, "%s.part", final);
    int dfd = hk_dir_open(pd, &e), fd = dfd < 0 ? -1 : hk_create_at(dfd, part);
    if (fd < 0) {
        if (dfd >= 0)
            close(dfd);
        return fail(msg, n, "cannot write the charts in %s", pd);
    }
    close(fd);
    int len = hk_quote_gp(dir, qdir, sizeof qdir) < 0 ||
              hk_quote_gp(hk_plot_scripts(), qgp, sizeof qgp) < 0 ? -1 : snprintf(vars, sizeof vars, "dir='%s'; gp='%s'; out='%s/plots/%s'; term=\"%s\"; "
                       "%s", qdir, qgp, qdir, part, term, extra);
    if (len < 0 || (size_t)len >= sizeof vars) {
        unlinkat(dfd, part, 0);
        close(dfd);
        return fail(msg, n, "the folder's name is too long for gnuplot: %s", dir);
    }
    char script[64];
    snprintf(script, sizeof script, "%s.gp", name);
    int rc = gnuplot(script, vars, sel, msg, n);
    fd = rc < 0 ? -1 : openat(dfd, part, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (rc == 0 && (fd < 0 || !complete_chart(fd, !strcmp(ext, "svg"))))
        rc = fail(msg, n, "gnuplot left %s cut short (a full disk?); the CSV files are "
                  "complete", final);
    if (fd >= 0)
        close(fd);
    if (rc == 0 && renameat(dfd, part, dfd, final) < 0)
        rc = fail(msg, n, "cannot write %s", final);
    if (rc < 0)
        unlinkat(dfd, part, 0);
    close(dfd);
    return rc;
}

/* One chart as PNG and SVG, 1200 wide and tall enough for its panels (0: 700). */
static int chart(const char *dir, const char *name, const char *extra, int panels,
                 const hk_plot_sel *sel, char *msg, int n)
{
    int h = panels > 0 ? 170 + 240 * panels : 700;
    char png[96], svg[96];
    snprintf(png, sizeof png, "pngcairo size 1200,%d font 'Sans,11'", h);
    snprintf(svg, sizeof svg, "svg size 1200,%d dynamic font 'Sans,11'", h);
    if (chart_one(dir, name, "png", png, extra, sel, msg, n) < 0)
        return -1;
    return chart_one(dir, name, "svg", svg, extra, sel, msg, n);
}

static int exists(const char *dir, const char *name)
{
    char p[1200];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    return access(p, R_OK) == 0;
}

static int open_csv(hk_csvr *r, const char *dir, const char *name, hk_err *e)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return hk_csvr_open(r, path, e);
}

static void esc(FILE *h, const char *t)
{
    for (; *t; t++)
        if (*t == '<')
            fputs("&lt;", h);
        else if (*t == '>')
            fputs("&gt;", h);
        else if (*t == '&')
            fputs("&amp;", h);
        else
            fputc(*t, h);
}

/* findings.csv as a list whose sentences wrap: the kind, where and when, what. */
static void html_findings(FILE *h, const char *dir)
{
    hk_csvr r;
    hk_err e;
    if (open_csv(&r, dir, "findings.csv", &e) < 0)
        return;
    char **f;
    int nf, n = 0, col[6];
    static const char *const names[6] = {"kind", "table", "agent", "mirror", "t_s", "detail"};
    int rc = hk_csvr_next(&r, &f, &nf, &e);
    for (int k = 0; k < 6; k++)
        col[k] = rc == 1 ? hk_csv_column(f, nf, names[k]) : -1;
    fprintf(h, "<h2>Findings</h2>\n<ul class=find>\n");
    while (col[0] >= 0 && col[5] >= 0 && hk_csvr_next(&r, &f, &nf, &e) == 1 && nf > col[5]) {
        fprintf(h, "<li><b>");
        esc(h, f[col[0]]);
        fprintf(h, "</b> ");
        for (int k = 1; k < 5; k++)
            if (col[k] >= 0 && col[k] < nf && f[col[k]][0]) {
                fprintf(h, "%s", k == 1 ? "" : k == 2 ? " agent " : k == 3 ? ", " : ", at ");
                esc(h, f[col[k]]);
                fprintf(h, "%s", k == 4 ? " s" : "");
            }
        fprintf(h, ": ");
        esc(h, f[col[5]]);
        fprintf(h, "</li>\n");
        n++;
    }
    if (!n)
        fprintf(h, "<li>none (report.txt says what was checked)</li>\n");
    fprintf(h, "</ul>\n");
    hk_csvr_close(&r);
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
    hk_csvr r;
    hk_err e;
    if (open_csv(&r, dir, "strategies.csv", &e) < 0)
        return;
    char **f;
    int nf, rc = hk_csvr_next(&r, &f, &nf, &e), col = rc == 1 ? hk_csv_column(f, nf, "dir") : -1;
    fprintf(h, "<h2>Runs</h2>\n<ul>\n");
    while (col >= 0 && hk_csvr_next(&r, &f, &nf, &e) == 1 && col < nf)
        fprintf(h, "<li><a href=\"%s/index.html\">%s</a></li>\n", f[col], f[col]);
    fprintf(h, "</ul>\n");
    hk_csvr_close(&r);
}

static int write_index(const char *dir, const char *const *charts, int nc, const char *note)
{
    hk_out o;
    hk_err e;
    if (hk_out_open(&o, dir, "index.html", &e) < 0)
        return -1;
    fprintf(o.f, "<!doctype html>\n<meta charset=\"utf-8\">\n<title>hakarma: %s</title>\n"
            "<style>body{font-family:sans-serif;max-width:1240px;margin:auto} img{width:100%%}"
            " pre{background:#f4f4f4;padding:8px;white-space:pre-wrap;overflow-wrap:anywhere}"
            " ul.find li{margin:4px 0}</style>\n<h1>hakarma run: %s</h1>\n", dir, dir);
    html_findings(o.f, dir);
    html_file(o.f, dir, "report.txt", "Summary");
    if (note)
        fprintf(o.f, "<p>%s</p>\n", note);
    for (int i = 0; i < nc; i++)
        fprintf(o.f, "<h2>%s</h2>\n<a href=\"plots/%s.svg\"><img src=\"plots/%s.png\" "
                "alt=\"%s\"></a>\n", charts[i], charts[i], charts[i], charts[i]);
    html_runs(o.f, dir);
    html_file(o.f, dir, "scenario.txt", "Scenario");
    return hk_out_commit(&o, &e);
}

/* The per-run charts: gnuplot variables that say what each panel holds. */
static int run_charts(const char *dir, const hk_plot_sel *sel, const char **charts, int *nc,
                      char *msg, int n)
{
    hk_pdata *p = calloc(1, sizeof *p);
    if (!p)
        return fail(msg, n, "out of memory%s", "");
    int rc = hk_pdata_load(dir, sel, p, msg, n);
    if (rc == 0)
        rc = hk_pdata_write(dir, p, msg, n);
    char extra[3000];
    int off = snprintf(extra, sizeof extra, "nl=%d; lines_total=%d; xmax=%.3f; runtitle='%s: "
                       "variant %s, strategy %s, master %d of %d'", p->nl, p->lines_total,
                       p->duration_s, p->program[0] ? p->program : "run",
                       p->variant[0] ? p->variant : "?", p->strategy[0] ? p->strategy : "?",
                       p->master, p->masters);
    for (int l = 0; rc == 0 && l < p->nl && off < (int)sizeof extra; l++) {
        const hk_pline *pl = &p->l[l];
        char table[64];
        snprintf(table, sizeof table, "%.60s", pl->table);
        for (char *c = table; *c; c++) /* gnuplot strings here are single-quoted */
            *c = *c == '\'' || *c == '\\' ? '_' : *c;
        off += snprintf(extra + off, sizeof extra - (size_t)off, "; n%d=%d; s%d=%d; t%d='%s "
                        "agent %d%s%s%s'", l, pl->nm, l, pl->nm + pl->others, l, table,
                        pl->agent, pl->why[0] ? " — " : "", pl->why,
                        pl->total > pl->nm ? ", the mirrors not drawn summed as others" : "");
    }
    static const char *per[4] = {"convergence", "shares", "latency", "queries"};
    for (int k = 0; rc == 0 && k < 4; k++) {
        if ((rc = chart(dir, per[k], extra, p->nl + (k == 2), sel, msg, n)) == 0)
            charts[(*nc)++] = per[k];
    }
    hk_pdata_free(p);
    free(p);
    return rc;
}

/* What a comparison's strategies.csv says differs between its runs: latency (p50, p99),
 * failures, per-mirror shares, re-admission; and how many re-admission and share columns follow
 * its 16 fixed ones. */
typedef struct strat_facts {
    int nreadmit, nshares;
    int lat, fail, share, readmit;
} strat_facts;

static int differs(double lo, double hi, double abs_tol)
{
    return hi - lo > fmax(abs_tol, 0.01 * fmax(fabs(hi), fabs(lo)));
}

static int strat_facts_read(const char *dir, strat_facts *sf)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/strategies.csv", dir);
    hk_csvr r;
    hk_err e;
    memset(sf, 0, sizeof *sf);
    if (hk_csvr_open(&r, path, &e) < 0)
        return -1;
    char **f;
    int nf, rc, rows = 0, missing[HK_CSV_MAXF] = {0};
    double lo[HK_CSV_MAXF], hi[HK_CSV_MAXF];
    for (int i = 0; i < HK_CSV_MAXF; i++) {
        lo[i] = INFINITY;
        hi[i] = -INFINITY;
    }
    while ((rc = hk_csvr_next(&r, &f, &nf, &e)) == 1) {
        if (rows++ == 0) { /* the header: 16 fixed columns, then readmit_s ..., share ... */
            for (int i = 16; i < nf; i++) {
                sf->nreadmit += !strncmp(f[i], "readmit_s ", 10);
                sf->nshares += !strncmp(f[i], "share ", 6);
            }
            continue;
        }
        for (int i = 0; i < nf && i < HK_CSV_MAXF; i++) {
            if (!f[i][0]) {
                missing[i]++;
                continue;
            }
            double v = atof(f[i]);
            lo[i] = fmin(lo[i], v);
            hi[i] = fmax(hi[i], v);
        }
    }
    hk_csvr_close(&r);
    if (rc < 0)
        return -1;
    sf->lat = differs(lo[9], hi[9], 0.001) || differs(lo[11], hi[11], 0.001);
    sf->fail = differs(lo[7], hi[7], 0.0005);
    for (int i = 16; i < 16 + sf->nreadmit && i < HK_CSV_MAXF; i++)
        sf->readmit |= (missing[i] && missing[i] < rows - 1) || differs(lo[i], hi[i], 0.5);
    for (int i = 16 + sf->nreadmit; i < 16 + sf->nreadmit + sf->nshares && i < HK_CSV_MAXF; i++)
        sf->share |= differs(lo[i], hi[i], 0.01);
    return 0;
}

/* The comparison charts, each only where its figures differ between the runs (a chart of
 * identical bars says nothing). */
static int strat_charts(const char *dir, const hk_plot_sel *sel, const char **charts, int *nc,
                        char *msg, int n)
{
    strat_facts sf;
    if (strat_facts_read(dir, &sf) < 0)
        return fail(msg, n, "cannot read %s/strategies.csv", dir);
    char v[200];
    if (sf.lat) {
        if (chart(dir, "strategies_cdf", "", 0, sel, msg, n) < 0)
            return -1;
        charts[(*nc)++] = "strategies_cdf";
    }
    if (sf.lat || sf.fail) {
        snprintf(v, sizeof v, "lat=%d; fail=%d", sf.lat, sf.fail);
        if (chart(dir, "strategies_p99", v, 0, sel, msg, n) < 0)
            return -1;
        charts[(*nc)++] = "strategies_p99";
    }
    if (sf.share || sf.readmit) {
        snprintf(v, sizeof v, "nr=%d; ns=%d; rd=%d", sf.nreadmit, sf.nshares, sf.readmit);
        if (chart(dir, "strategies_shares", v, 0, sel, msg, n) < 0)
            return -1;
        charts[(*nc)++] = "strategies_shares";
    }
    return 0;
}

int hk_plot_run(const char *dir, int multi, const hk_plot_sel *sel, char *msg, int n)
{
    char pd[1200];
    hk_err e;
    snprintf(pd, sizeof pd, "%s/plots", dir);
    if (hk_mkdirs(pd, &e) < 0)
        return fail(msg, n, "cannot create %s", pd);
    const char *charts[12];
    int nc = 0;
    if (exists(dir, "summary.csv") && exists(dir, "timeline.csv") &&
        run_charts(dir, sel, charts, &nc, msg, n) < 0)
        return -1;
    const char *note = NULL;
    if (multi && exists(dir, "strategies.csv")) {
        if (strat_charts(dir, sel, charts, &nc, msg, n) < 0)
            return -1;
        if (nc == 0)
            note = "No comparison chart: every run gave the same latencies, failures, per-mirror "
                   "shares and re-admission (within 1%). Each run's own charts are linked below.";
    }
    if (exists(dir, "compare.csv")) {
        if (chart(dir, "compare", "", 0, sel, msg, n) < 0)
            return -1;
        charts[nc++] = "compare";
    }
    if (nc == 0 && !note)
        return fail(msg, n, "nothing to plot in %s", dir);
    if (write_index(dir, charts, nc, note) < 0)
        return fail(msg, n, "cannot write %s/index.html", dir);
    return nc;
}
