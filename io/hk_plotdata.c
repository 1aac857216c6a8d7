/* hk_plotdata: choosing what to draw and writing gnuplot's data (see hk_plotdata.h). */
#include "hk_plotdata.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "hk_csv.h"
#include "hk_file.h"
#include "hk_grow.h"
#include "hk_quote.h"

#define MAXCAND 4096             /* lines considered for the default choice */

typedef struct cand {            /* an agent line of the run, as summary.csv lists it */
    char table[200];
    int agent, nmirrors, first;  /* first: its first row in the mirror list */
    int score;
    char why[96];
} cand;

typedef struct mrow { char name[280]; double lat, failed_rate; int line; } mrow;

typedef struct sel_ctx {         /* what loading knows about the run */
    cand *c;
    int nc;
    mrow *m;
    int nm, mcap;
    hk_pdata *p;                 /* its faults and findings */
} sel_ctx;

static int fail(char *msg, int n, const char *what, const char *a)
{
    snprintf(msg, (size_t)n, "%s%s", what, a);
    return -1;
}

/* Each row of dir/name (its header first); fn returns -1 to stop. 0 ok, -1 cannot read. */
static int each_row(const char *dir, const char *name, void *ctx,
                    int (*fn)(void *ctx, char **f, int n, char **hdr, int nh))
{
    char path[1200];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    hk_csvr r;
    hk_err e;
    if (hk_csvr_open(&r, path, &e) < 0)
        return -1;
    char **f, *hdr[HK_CSV_MAXF];
    int nf, nh = 0, rc = hk_csvr_next(&r, &f, &nf, &e);
    for (int i = 0; rc == 1 && i < nf; i++)
        hdr[nh++] = strdup(f[i]);
    while (rc == 1 && (rc = hk_csvr_next(&r, &f, &nf, &e)) == 1)
        if (fn(ctx, f, nf, hdr, nh) < 0)
            break;
    for (int i = 0; i < nh; i++)
        free(hdr[i]);
    hk_csvr_close(&r);
    return rc < 0 ? -1 : 0;
}

static const char *col(char **f, int n, char **hdr, int nh, const char *name)
{
    int k = hk_csv_column(hdr, nh, name);
    return k >= 0 && k < n ? f[k] : "";
}

/* ---- the run ------------------------------------------------------------ */

static int run_row(void *ctx, char **f, int n, char **hdr, int nh)
{
    hk_pdata *p = ctx;
    const char *k = col(f, n, hdr, nh, "key"), *v = col(f, n, hdr, nh, "value");
    if (!strcmp(k, "program")) snprintf(p->program, sizeof p->program, "%s", v);
    else if (!strcmp(k, "variant")) snprintf(p->variant, sizeof p->variant, "%s", v);
    else if (!strcmp(k, "strategy")) snprintf(p->strategy, sizeof p->strategy, "%s", v);
    else if (!strcmp(k, "masters")) p->masters = atoi(v);
    else if (!strcmp(k, "duration_s")) p->duration_s = atof(v);
    else if (!strcmp(k, "karma_s")) p->karma_s = atof(v);
    return 0;
}

static int summary_row(void *ctx, char **f, int n, char **hdr, int nh)
{
    sel_ctx *s = ctx;
    const char *t = col(f, n, hdr, nh, "table");
    int agent = atoi(col(f, n, hdr, nh, "agent"));
    if (!s->nc || strcmp(s->c[s->nc - 1].table, t) || s->c[s->nc - 1].agent != agent) {
        if (s->nc == MAXCAND)
            return -1;
        cand *c = &s->c[s->nc++];
        memset(c, 0, sizeof *c);
        snprintf(c->table, sizeof c->table, "%s", t);
        c->agent = agent;
        c->first = s->nm;
    }
    if (HK_GROW(s->m, s->mcap, s->nm + 1) < 0)
        return -1;
    mrow *m = &s->m[s->nm++];
    snprintf(m->name, sizeof m->name, "%s", col(f, n, hdr, nh, "mirror"));
    double att = atof(col(f, n, hdr, nh, "attempts"));
    m->lat = atof(col(f, n, hdr, nh, "latency_mean_ms"));
    m->failed_rate = att > 0 ? atof(col(f, n, hdr, nh, "failed")) / att : 0;
    m->line = s->nc - 1;
    s->c[s->nc - 1].nmirrors++;
    return 0;
}

static int fault_row(void *ctx, char **f, int n, char **hdr, int nh)
{
    hk_pdata *p = ctx;
    if (p->nfaults == HK_PLOT_MARKS)
        return -1;
    hk_pmark *k = &p->faults[p->nfaults++];
    memset(k, 0, sizeof *k);
    snprintf(k->mirror, sizeof k->mirror, "%s", col(f, n, hdr, nh, "mirror"));
    snprintf(k->kind, sizeof k->kind, "%s", col(f, n, hdr, nh, "kind"));
    k->t0 = atof(col(f, n, hdr, nh, "start_s"));
    k->t1 = atof(col(f, n, hdr, nh, "end_s"));
    return 0;
}

static int finding_row(void *ctx, char **f, int n, char **hdr, int nh)
{
    hk_pdata *p = ctx;
    if (p->nfinds == HK_PLOT_MARKS)
        return -1;
    hk_pmark *k = &p->finds[p->nfinds++];
    memset(k, 0, sizeof *k);
    snprintf(k->table, sizeof k->table, "%s", col(f, n, hdr, nh, "table"));
    snprintf(k->mirror, sizeof k->mirror, "%s", col(f, n, hdr, nh, "mirror"));
    snprintf(k->kind, sizeof k->kind, "%s", col(f, n, hdr, nh, "kind"));
    k->agent = atoi(col(f, n, hdr, nh, "agent"));
    k->t0 = atof(col(f, n, hdr, nh, "t_s"));
    return 0;
}

/* ---- what to draw -------------------------------------------------------- */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int has_fault(const sel_ctx *s, const char *mirror)
{
    for (int i = 0; i < s->p->nfaults; i++)
        if (!strcmp(s->p->faults[i].mirror, mirror))
            return 1;
    return 0;
}

static int has_finding(const sel_ctx *s, const cand *c, const char *mirror)
{
    for (int i = 0; i < s->p->nfinds; i++) {
        const hk_pmark *k = &s->p->finds[i];
        if ((!strcmp(k->table, c->table) && k->agent == c->agent && (!mirror || !k->mirror[0] ||
             !strcmp(k->mirror, mirror))) || (!k->table[0] && mirror && !strcmp(k->mirror, mirror)))
            return 1;
    }
    return 0;
}

/* A mirror much slower than the cluster's median, or failing. */
static int deviant(const mrow *m, double median)
{
    return (median > 0 && m->lat > 1.5 * median) || m->failed_rate > 0.01;
}

static void score(sel_ctx *s)
{
    double *lat = malloc((size_t)(s->nm + 1) * sizeof *lat), median = 0;
    for (int i = 0; lat && i < s->nm; i++)
        lat[i] = s->m[i].lat;
    if (lat && s->nm) {
        qsort(lat, (size_t)s->nm, sizeof *lat, cmp_double);
        median = lat[s->nm / 2];
    }
    free(lat);
    for (int i = 0; i < s->nc; i++) {
        cand *c = &s->c[i];
        int f = 0, d = 0, g = has_finding(s, c, NULL);
        for (int j = c->first; j < c->first + c->nmirrors; j++) {
            f |= has_fault(s, s->m[j].name);
            d |= deviant(&s->m[j], median);
        }
        c->score = 4 * f + 2 * g + d;
        snprintf(c->why, sizeof c->why, "%s%s%s%s%s", f ? "a fault" : "", f && (g || d) ? ", " : "",
                 g ? "a finding" : "", g && d ? ", " : "", d ? "a deviant mirror" : "");
    }
}

/* The lines named in sel ("table/agent" or "table" items), else the best-scored. */
static void choose_lines(const sel_ctx *s, const hk_plot_sel *sel, hk_pdata *p)
{
    int taken[MAXCAND] = {0};
    if (sel && sel->lines[0]) {
        char buf[256], *save = NULL;
        snprintf(buf, sizeof buf, "%s", sel->lines);
        for (char *it = strtok_r(buf, ",", &save); it; it = strtok_r(NULL, ",", &save)) {
            char *slash = strchr(it, '/');
            int agent = slash ? atoi(slash + 1) : 0;
            if (slash)
                *slash = '\0';
            for (int i = 0; i < s->nc && p->nl < HK_PLOT_LINES; i++)
                if (!taken[i] && !strcmp(s->c[i].table, it) && (!agent || s->c[i].agent == agent)) {
                    taken[i] = 1;
                    p->l[p->nl++].agent = i; /* an index for now */
                }
        }
        return;
    }
    for (int want = 7; want >= 0 && p->nl < HK_PLOT_LINES; want--)
        for (int i = 0; i < s->nc && p->nl < HK_PLOT_LINES; i++)
            if (!taken[i] && s->c[i].score == want) {
                taken[i] = 1;
                p->l[p->nl++].agent = i;
            }
}

static int named(const hk_plot_sel *sel, const char *mirror)
{
    if (!sel || !sel->mirrors[0])
        return 0;
    const char *p = strstr(sel->mirrors, mirror);
    size_t n = strlen(mirror);
    return p && (p == sel->mirrors || p[-1] == ',') && (p[n] == ',' || !p[n]);
}

/* The mirrors of a chosen line: named ones, else those with a fault, a finding or deviant, then
 * the rest in order, up to HK_PLOT_MIRRORS; an "others" series when some are left out. */
static void choose_mirrors(const sel_ctx *s, const cand *c, const hk_plot_sel *sel, hk_pline *l)
{
    snprintf(l->table, sizeof l->table, "%s", c->table);
    l->agent = c->agent;
    l->total = c->nmirrors;
    snprintf(l->why, sizeof l->why, "%s", c->why);
    int pick[4096] = {0}, n = c->nmirrors < 4096 ? c->nmirrors : 4096;
    for (int pass = 0; pass < 3; pass++)
        for (int j = 0; j < n && l->nm < HK_PLOT_MIRRORS; j++) {
            const mrow *m = &s->m[c->first + j];
            int want = pass == 0 ? named(sel, m->name)
                     : pass == 1 ? !(sel && sel->mirrors[0]) &&
                                   (has_fault(s, m->name) || has_finding(s, c, m->name))
                                 : !(sel && sel->mirrors[0]);
            if (want && !pick[j]) {
                pick[j] = 1;
                snprintf(l->m[l->nm++].mirror, sizeof l->m[0].mirror, "%s", m->name);
            }
        }
    if (l->nm < c->nmirrors) {
        l->others = 1;
        snprintf(l->m[l->nm].mirror, sizeof l->m[0].mirror, "others (%d)", c->nmirrors - l->nm);
    }
}

/* ---- the timeline --------------------------------------------------------- */

static int push(hk_pseries *s, double t, double prob, double share, double lat, double q)
{
    if (s->n && s->t[s->n - 1] == t) { /* "others": one point per bin, summed */
        s->share[s->n - 1] += share;
        s->q[s->n - 1] += q;
        return 0;
    }
    if (s->n == s->cap) {
        int c[5] = {s->cap, s->cap, s->cap, s->cap, s->cap}; /* the five grow alike */
        if (HK_GROW(s->t, c[0], s->n + 1) < 0 || HK_GROW(s->prob, c[1], s->n + 1) < 0 ||
            HK_GROW(s->share, c[2], s->n + 1) < 0 || HK_GROW(s->lat, c[3], s->n + 1) < 0 ||
            HK_GROW(s->q, c[4], s->n + 1) < 0)
            return -1;
        s->cap = c[0];
    }
    s->t[s->n] = t;
    s->prob[s->n] = prob;
    s->share[s->n] = share;
    s->lat[s->n] = lat;
    s->q[s->n++] = q;
    return 0;
}

static int timeline_row(void *ctx, char **f, int n, char **hdr, int nh)
{
    hk_pdata *p = ctx;
    if (atoi(col(f, n, hdr, nh, "master")) != p->master)
        return 0;
    const char *t = col(f, n, hdr, nh, "table"), *m = col(f, n, hdr, nh, "mirror");
    int agent = atoi(col(f, n, hdr, nh, "agent"));
    for (int i = 0; i < p->nl; i++) {
        hk_pline *l = &p->l[i];
        if (l->agent != agent || strcmp(l->table, t))
            continue;
        int k = 0;
        while (k < l->nm && strcmp(l->m[k].mirror, m))
            k++;
        if (k == l->nm && !l->others)
            return 0;
        double q = atof(col(f, n, hdr, nh, "attempts"));
        return push(&l->m[k], atof(col(f, n, hdr, nh, "t_s")), atof(col(f, n, hdr, nh,
                    "probability")), atof(col(f, n, hdr, nh, "share")),
                    q > 0 ? atof(col(f, n, hdr, nh, "latency_mean_ms")) : NAN, q);
    }
    return 0;
}

int hk_pdata_load(const char *dir, const hk_plot_sel *sel, hk_pdata *p, char *msg, int n)
{
    memset(p, 0, sizeof *p);
    p->masters = 1;
    p->master = sel && sel->master >= 0 ? sel->master : 0;
    each_row(dir, "run.csv", p, run_row);
    sel_ctx s;
    memset(&s, 0, sizeof s);
    s.p = p;
    s.c = calloc(MAXCAND, sizeof *s.c);
    if (!s.c || each_row(dir, "summary.csv", &s, summary_row) < 0 || !s.nc) {
        free(s.c);
        free(s.m);
        return fail(msg, n, "nothing to plot: no summary.csv in ", dir);
    }
    each_row(dir, "faults.csv", p, fault_row);
    each_row(dir, "findings.csv", p, finding_row);
    score(&s);
    p->lines_total = s.nc;
    choose_lines(&s, sel, p);
    int kept = 0;
    for (int i = 0; i < p->nl; i++) {
        const cand *c = &s.c[p->l[i].agent];
        hk_pline *l = &p->l[kept];
        memset(l, 0, sizeof *l);
        choose_mirrors(&s, c, sel, l);
        kept += l->nm > 0; /* a line none of whose mirrors is named is not drawn */
    }
    p->nl = kept;
    free(s.c);
    free(s.m);
    if (!p->nl)
        return fail(msg, n, "nothing to plot: no agent line or mirror matches --lines/--mirrors "
                    "in ", dir);
    if (each_row(dir, "timeline.csv", p, timeline_row) < 0)
        return fail(msg, n, "cannot read timeline.csv in ", dir);
    double end = 0;
    for (int i = 0; i < p->nl; i++)
        for (int k = 0; k <= p->l[i].nm; k++)
            if (p->l[i].m[k].n)
                end = fmax(end, p->l[i].m[k].t[p->l[i].m[k].n - 1]);
    if (p->duration_s <= 0)
        p->duration_s = end + 1;
    return 0;
}

void hk_pdata_free(hk_pdata *p)
{
    for (int i = 0; i < p->nl; i++)
        for (int k = 0; k <= HK_PLOT_MIRRORS; k++) {
            hk_pseries *s = &p->l[i].m[k];
            free(s->t), free(s->prob), free(s->share), free(s->lat), free(s->q);
        }
    memset(p, 0, sizeof *p);
}

/* ---- data files ----------------------------------------------------------- */

static double width_of(const hk_pseries *s) { return s->n > 1 ? s->t[1] - s->t[0] : 1.0; }

/* plots/NAME anew in dir (no link written through), for writing. */
static FILE *create_plot_file(const char *dir, const char *name)
{
    char pd[1200];
    hk_err e;
    snprintf(pd, sizeof pd, "%s/plots", dir);
    int dfd = hk_dir_open(pd, &e), fd = dfd < 0 ? -1 : hk_create_at(dfd, name);
    if (dfd >= 0)
        close(dfd);
    FILE *f = fd < 0 ? NULL : fdopen(fd, "w");
    if (fd >= 0 && !f)
        close(fd);
    return f;
}

static FILE *open_dat(const char *dir, const char *name, int i)
{
    char file[200];
    snprintf(file, sizeof file, "%s_%d.dat", name, i);
    return create_plot_file(dir, file);
}

/* One block per drawn mirror (its name first): bin start, value; and the end of the last bin
 * (gnuplot's steps hold each value over its bin). what: 0 probability, 1 latency. */
static int blocks(const char *dir, const hk_pline *l, int i, int what)
{
    FILE *f = open_dat(dir, what ? "lat" : "prob", i);
    if (!f)
        return -1;
    for (int k = 0; k < l->nm; k++) {
        const hk_pseries *s = &l->m[k];
        fprintf(f, "\"%s\"\n", s->mirror);
        for (int j = 0, gap = 0; j < s->n; j++) {
            double v = what ? s->lat[j] : s->prob[j];
            if (isnan(v)) { /* nothing in this bin: a gap (one blank line), not a line across it */
                if (!gap && j)
                    fprintf(f, "\n");
                gap = 1;
                continue;
            }
            gap = 0;
            fprintf(f, "%.3f %.6g\n", s->t[j], v);
            if (j + 1 == s->n || isnan(what ? s->lat[j + 1] : s->prob[j + 1]))
                fprintf(f, "%.3f %.6g\n", s->t[j] + width_of(s), v); /* hold to the bin's end */
        }
        fprintf(f, "\n\n");
    }
    return fclose(f);
}

/* Stacked: per bin, the cumulative share (what 0) or attempts per second (what 1). */
static int stacked(const char *dir, const hk_pline *l, int i, int what)
{
    FILE *f = open_dat(dir, what ? "rate" : "share", i);
    if (!f)
        return -1;
    int ns = l->nm + l->others, n = l->m[0].n;
    double w = width_of(&l->m[0]);
    fprintf(f, "t");
    for (int k = 0; k < ns; k++)
        fprintf(f, " \"%s\"", l->m[k].mirror);
    fprintf(f, "\n");
    for (int j = 0; j <= n && n; j++) {
        int b = j < n ? j : n - 1;
        double cum = 0;
        fprintf(f, "%.3f", j < n ? l->m[0].t[j] : l->m[0].t[n - 1] + w);
        for (int k = 0; k < ns; k++) {
            const hk_pseries *s = &l->m[k];
            cum += b < s->n ? (what ? s->q[b] / w : s->share[b]) : 0;
            fprintf(f, " %.6g", cum);
        }
        fprintf(f, "\n");
    }
    return fclose(f);
}

static int in_panel(const hk_pline *l, const char *mirror)
{
    for (int k = 0; k < l->nm; k++)
        if (!strcmp(l->m[k].mirror, mirror))
            return 1;
    return 0;
}

/* How many of the n labels at x[] start within d of t: where the next one goes. */
static int near_marks(const double *x, int n, double t, double d)
{
    int s = 0;
    for (int i = 0; i < n; i++)
        s += fabs(x[i] - t) < d;
    return s;
}

/* The panel's marks: fault windows of its mirrors (shaded), findings about it (a dotted line
 * where each starts, named). */
static int marks(const char *dir, const hk_pdata *p, int i)
{
    char file[64];
    snprintf(file, sizeof file, "marks_%d.gp", i);
    FILE *f = create_plot_file(dir, file);
    if (!f)
        return -1;
    const hk_pline *l = &p->l[i];
    fputs("unset object\nunset label\nunset arrow\n", f);
    int o = 0, nf = 0, nd = 0;
    double fx[HK_PLOT_MARKS], dx[HK_PLOT_MARKS]; /* where the labels so far start */
    for (int k = 0; k < p->nfaults; k++) {
        const hk_pmark *m = &p->faults[k];
        if (!in_panel(l, m->mirror))
            continue;
        o++;
        fprintf(f, "set object %d rect from %.3f, graph 0 to %.3f, graph 1 @marklayer fc rgb "
                "'#d62728' @markstyle\n", o, m->t0, m->t1);
        int s = near_marks(fx, nf, m->t0, 0.08 * p->duration_s); /* one under the other */
        char qm[600], qk[200];
        if (hk_quote_gp(m->mirror, qm, sizeof qm) < 0 || hk_quote_gp(m->kind, qk, sizeof qk) < 0)
            qm[0] = qk[0] = '\0';
        fprintf(f, "set label %d '%s %s' at %.3f, graph 0.97 left front font ',9' tc rgb "
                "'#b22222' offset character 0.6, character %.1f\n", o, qm, qk, m->t0,
                -1.1 * s);
        fx[nf++] = m->t0;
    }
    for (int k = 0, a = 0; k < p->nfinds; k++) {
        const hk_pmark *m = &p->finds[k];
        int mine = (!strcmp(m->table, l->table) && m->agent == l->agent) ||
                   (!m->table[0] && in_panel(l, m->mirror));
        if (!mine)
            continue;
        a++;
        o++;
        fprintf(f, "set arrow %d from %.3f, graph 0 to %.3f, graph 1 nohead dt 3 lw 1.5 lc rgb "
                "'#6a3d9a' front\n", a, m->t0, m->t0);
        int s = near_marks(dx, nd, m->t0, 0.015 * p->duration_s); /* side by side */
        char qm[600], qk[200];
        if (hk_quote_gp(m->mirror, qm, sizeof qm) < 0 || hk_quote_gp(m->kind, qk, sizeof qk) < 0)
            qm[0] = qk[0] = '\0';
        fprintf(f, "set label %d '%s %s' at %.3f, graph 0.95 right rotate by 90 front font ',9' "
                "tc rgb '#6a3d9a' offset character %.1f, 0\n", o, qk, qm, m->t0,
                -1.2 * s);
        dx[nd++] = m->t0;
    }
    return fclose(f);
}

/* The answered queries' p50 and p99 per karma period, each over its own interval. */
typedef struct periods { double *t, *p50, *p99; int n, cap; } periods;

static int period_row(void *ctx, char **f, int n, char **hdr, int nh)
{
    periods *p = ctx;
    if (p->n == p->cap) {
        int c[3] = {p->cap, p->cap, p->cap}; /* the three grow alike */
        if (HK_GROW(p->t, c[0], p->n + 1) < 0 || HK_GROW(p->p50, c[1], p->n + 1) < 0 ||
            HK_GROW(p->p99, c[2], p->n + 1) < 0)
            return -1;
        p->cap = c[0];
    }
    p->t[p->n] = atof(col(f, n, hdr, nh, "t_start_s"));
    p->p50[p->n] = atof(col(f, n, hdr, nh, "latency_p50_ms"));
    p->p99[p->n++] = atof(col(f, n, hdr, nh, "latency_p99_ms"));
    return 0;
}

static int overall(const char *dir, const hk_pdata *d)
{
    periods p = {0};
    int rc = each_row(dir, "latency.csv", &p, period_row);
    FILE *f = create_plot_file(dir, "overall.dat");
    for (int k = 0; f && rc == 0 && k < p.n; k++) {
        double end = k + 1 < p.n ? p.t[k + 1] : d->duration_s;
        if (p.p50[k] > 0)
            fprintf(f, "%.3f %.6g %.6g\n%.3f %.6g %.6g\n\n", p.t[k], p.p50[k], p.p99[k], end,
                    p.p50[k], p.p99[k]);
    }
    free(p.t), free(p.p50), free(p.p99);
    return !f || fclose(f) != 0 ? -1 : 0;
}

/* Data files of an earlier drawing (more panels then) must not linger. */
static void clean(const char *dir)
{
    static const char *names[] = {"prob", "lat", "share", "rate"};
    char path[1300];
    for (int i = 0; i < HK_PLOT_LINES; i++) {
        for (int k = 0; k < 4; k++) {
            snprintf(path, sizeof path, "%s/plots/%s_%d.dat", dir, names[k], i);
            unlink(path);
        }
        snprintf(path, sizeof path, "%s/plots/marks_%d.gp", dir, i);
        unlink(path);
    }
}

int hk_pdata_write(const char *dir, const hk_pdata *p, char *msg, int n)
{
    clean(dir);
    for (int i = 0; i < p->nl; i++)
        if (blocks(dir, &p->l[i], i, 0) || blocks(dir, &p->l[i], i, 1) ||
            stacked(dir, &p->l[i], i, 0) || stacked(dir, &p->l[i], i, 1) || marks(dir, p, i))
            return fail(msg, n, "cannot write the plot data in ", dir);
    return overall(dir, p) < 0 ? fail(msg, n, "cannot write the plot data in ", dir) : 0;
}
