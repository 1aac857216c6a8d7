/* sweep_out: rows, aggregation, ranking, recommendation and files of a sweep (see sweep_out.h). */
#include "sweep_out.h"

#include <dirent.h>
#include <gsl/gsl_cdf.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "hk_csv.h"
#include "hk_file.h"
#include "hk_find.h"
#include "hk_hash.h"
#include "hk_time.h"
#include "hk_strat.h"
#include "hk_variant.h"

#define SWEEP_PARETO_MAX 1000     /* points judged for the Pareto front (the best-ranked) */
#define NMET 6                   /* failed%, mean, p50, p99, p999, readmit */
enum { M_FAILED, M_MEAN, M_P50, M_P99, M_P999, M_READMIT };

typedef struct agg {             /* one grid point over its replications */
    int n;                       /* rows read */
    double sum[NMET], sq[NMET];
    int never, nofault;          /* readmission: never within a run / no fault at all */
    int nlat;                    /* runs that answered a query: the latencies are theirs (none:
                                    every query of every run failed, latency n/a, ranked last) */
    double mean[NMET], half[NMET];
    char findings[160];          /* the first replication's */
    int severe;                  /* runs with a severe finding (hk_find_kind_severe) */
    int pareto;                  /* 1 on the Pareto front, 0 not, -1 not judged (ranked too low) */
    char severe_kinds[160];      /* which: "locked, starved" */
} agg;

static const char *const objs[] = {"p99", "p999", "failures", "readmit", NULL};

const char *sweep_obj_name(sweep_obj o) { return objs[o]; }

int sweep_obj_find(const char *s)
{
    for (int i = 0; objs[i]; i++)
        if (!strcmp(s, objs[i]))
            return i;
    return -1;
}

/* ---- rows ---------------------------------------------------------------- */

static double readmit_of(const sim_figures *f)
{
    double worst = -2; /* no fault */
    for (int i = 0; i < f->nfault_cells; i++) {
        if (f->readmit_s[i] == SIM_READMIT_NO_FAULT)
            continue; /* after the run: it never happened, nothing to re-admit */
        if (f->readmit_s[i] < 0)
            return -1;
        worst = f->readmit_s[i] > worst ? f->readmit_s[i] : worst;
    }
    return worst;
}

static void put_field(hk_buf *b, const char *v, int first)
{
    if (!first)
        hk_buf_put(b, ",", 1);
    hk_csv_put(b, v);
}

void sweep_row_put(hk_buf *o, long point, int rep, unsigned long long seed, const sweep_grid *g,
                   const sim_figures *f)
{
    char b[64];
    snprintf(b, sizeof b, "%ld", point);
    put_field(o, b, 1);
    snprintf(b, sizeof b, "%d", rep);
    put_field(o, b, 0);
    snprintf(b, sizeof b, "%llu", seed);
    put_field(o, b, 0);
    for (int a = 0; a < g->naxes; a++)
        put_field(o, point < g->npoints ? g->ax[a].text[sweep_point_value(g, point, a)]
                                        : "(as configured)", 0);
    double v[] = {f->n, 100.0 * f->failed_rate, f->mean, f->p50, f->p99, f->p999};
    int none = f->n <= 0 || f->failed_rate >= 1.0; /* no answer: no latency, never a fast one */
    for (int i = 0; i < 6; i++) {
        snprintf(b, sizeof b, i ? "%.4f" : "%.0f", v[i]);
        put_field(o, i >= 2 && none ? "n/a" : b, 0);
    }
    double r = readmit_of(f);
    if (r >= 0)
        snprintf(b, sizeof b, "%.3f", r);
    put_field(o, r >= 0 ? b : r == -1 ? "never" : "", 0);
    put_field(o, f->kinds[0] ? f->kinds : "none", 0);
    hk_buf_put(o, "\n", 1);
}

void sweep_rows_seal(hk_buf *b, long point, int rows, const sweep_meta *m)
{
    uint64_t h = hk_hash(HK_HASH_INIT, b->s, b->len);
    hk_buf_printf(b, "end,%ld,%d,%016llx,%016llx\n", point, rows, m->digest,
                  (unsigned long long)h);
}

void sweep_meta_digest(sweep_meta *m, const char *text)
{
    char b[7000];
    int n = snprintf(b, sizeof b, "%s\n%s\n%d\n%llu\n%d\n%lld\n%d\n%ld\n%ld\n", m->scenario,
                     m->grid, m->replications, m->seed, m->variant, (long long)m->duration_us,
                     (int)m->objective, m->nrun, m->current);
    uint64_t h = hk_hash(HK_HASH_INIT, b, (size_t)(n < (int)sizeof b ? n : (int)sizeof b - 1));
    h = hk_hash(h, m->version, strlen(m->version));
    for (int k = 0; k < m->nfiles; k++) {
        const struct sweep_file *f = &m->files[k];
        n = snprintf(b, sizeof b, "%s\n%lld\n%016llx\n", f->name, f->size, f->digest);
        h = hk_hash(h, b, (size_t)(n < (int)sizeof b ? n : (int)sizeof b - 1));
    }
    m->digest = hk_hash(h, text ? text : "", text ? strlen(text) : 0);
}

int sweep_meta_diff(const sweep_meta *a, const sweep_meta *b, char *why, size_t n)
{
#define SAME_NUM(f, name)                                                                      \
    if (a->f != b->f) {                                                                        \
        snprintf(why, n, name " differs: %lld, then %lld", (long long)a->f, (long long)b->f); \
        return -1;                                                                             \
    }
#define SAME_STR(f, name)                                                                      \
    if (strcmp(a->f, b->f)) {                                                                  \
        snprintf(why, n, name " differs: '%.300s', then '%.300s'", a->f, b->f);                 \
        return -1;                                                                             \
    }
    SAME_STR(scenario, "the scenario")
    SAME_STR(grid, "the grid")
    SAME_NUM(replications, "replications")
    SAME_NUM(seed, "the seed")
    SAME_NUM(variant, "the variant")
    SAME_NUM(duration_us, "the duration (us)")
    SAME_NUM(objective, "the objective")
    SAME_STR(version, "hakarma's version")
    for (int k = 0; k < a->nfiles || k < b->nfiles; k++) {
        const struct sweep_file *x = k < a->nfiles ? &a->files[k] : NULL;
        const struct sweep_file *y = k < b->nfiles ? &b->files[k] : NULL;
        if (x && y && !strcmp(x->name, y->name) && x->size == y->size && x->digest == y->digest)
            continue;
        if (x && y && !strcmp(x->name, y->name))
            snprintf(why, n, "the file %.400s the scenario names differs: %lld bytes, digest "
                     "%016llx, then %lld bytes, digest %016llx (edited between the runs?)",
                     x->name, x->size, x->digest, y->size, y->digest);
        else
            snprintf(why, n, "the files the scenario names differ: %.300s, then %.300s",
                     x ? x->name : "(none)", y ? y->name : "(none)");
        return -1;
    }
    SAME_NUM(digest, "the scenario's text (digest)")
#undef SAME_NUM
#undef SAME_STR
    return 0;
}

/* A point file's text checked against its seal: the rows' length (its seal starts there), or -1
 * with what is wrong. */
static long sealed_rows(const char *text, size_t len, long point, const sweep_meta *m, int *rows,
                        char *why, size_t wn)
{
    if (!len || text[len - 1] != '\n') {
        snprintf(why, wn, "its last line is cut short (expected the seal 'end,%ld,...')", point);
        return -1;
    }
    size_t at = len - 1;
    while (at > 0 && text[at - 1] != '\n')
        at--;
    long p;
    int n;
    unsigned long long dg, ck;
    char tail;
    if (sscanf(text + at, "end,%ld,%d,%16llx,%16llx%c", &p, &n, &dg, &ck, &tail) != 5 ||
        tail != '\n') {
        snprintf(why, wn, "expected its last line to be the seal 'end,%ld,ROWS,DIGEST,CHECKSUM' "
                 "(the file is cut short or not a point file)", point);
        return -1;
    }
    if (p != point || dg != m->digest) {
        snprintf(why, wn, "its seal is of %s (expected point %ld of this sweep)",
                 p != point ? "another point" : "another sweep (scenario, grid or seed differ)",
                 point);
        return -1;
    }
    if ((unsigned long long)hk_hash(HK_HASH_INIT, text, at) != ck) {
        snprintf(why, wn, "its rows do not match their checksum (corrupted or edited)");
        return -1;
    }
    *rows = n;
    return (long)at;
}

int sweep_point_done(const char *dir, long point, const sweep_meta *m)
{
    char path[1200], *buf = NULL, why[200];
    size_t len;
    hk_err e;
    int rows;
    snprintf(path, sizeof path, "%s/runs/%ld.csv", dir, point);
    if (access(path, F_OK) < 0 || hk_file_read(path, &buf, &len, &e) < 0)
        return 0;
    long at = sealed_rows(buf, len, point, m, &rows, why, sizeof why);
    free(buf);
    return at >= 0 && rows == m->replications;
}

/* ---- meta ------------------------------------------------------------------ */

int sweep_meta_write(const char *dir, const sweep_meta *m, hk_err *err)
{
    hk_buf b;
    hk_buf_init(&b);
    hk_buf_printf(&b, "scenario\t%s\ngrid\t%s\nreplications\t%d\nseed\t%llu\n"
                  "variant\t%d\nduration_us\t%lld\nobjective\t%s\npoints\t%ld\ncurrent\t%ld\n"
                  "baseline\t%s\noverrode\t%s\nversion\t%s\n", m->scenario, m->grid,
                  m->replications, m->seed, m->variant, (long long)m->duration_us,
                  sweep_obj_name(m->objective), m->nrun, m->current, m->base, m->overrode,
                  m->version);
    for (int k = 0; k < m->nfiles; k++)
        hk_buf_printf(&b, "file\t%lld\t%016llx\t%s\n", m->files[k].size, m->files[k].digest,
                      m->files[k].name);
    hk_buf_printf(&b, "digest\t%016llx\n", m->digest);
    int rc = b.oom ? hk_err_set(err, dir, 0, 0, "out of memory")
                   : hk_out_write_all(dir, "sweep.meta", b.s, b.len, err);
    hk_buf_free(&b);
    return rc;
}

/* "SIZE\tDIGEST\tNAME" of a sweep.meta's file line. */
static int meta_file(const char *v, struct sweep_file *f)
{
    char *end;
    f->size = strtoll(v, &end, 10);
    if (*end != '\t')
        return -1;
    f->digest = strtoull(end + 1, &end, 16);
    if (*end != '\t')
        return -1;
    snprintf(f->name, sizeof f->name, "%s", end + 1);
    return 0;
}

int sweep_meta_read(const char *dir, sweep_meta *m, hk_err *err)
{
    char path[1100], *buf = NULL;
    size_t len;
    snprintf(path, sizeof path, "%s/sweep.meta", dir);
    if (hk_file_read(path, &buf, &len, err) < 0)
        return -1;
    memset(m, 0, sizeof *m);
    int got = 0, line = 0;
    for (char *s = buf, *e; *s; s = e + 1) {
        line++;
        e = strchr(s, '\n');
        if (!e)
            e = s + strlen(s) - 1;
        char *tab = strchr(s, '\t');
        if (!tab || tab > e)
            break;
        *tab = 0;
        if (*e == '\n')
            *e = 0;
        const char *v = tab + 1;
        if (!strcmp(s, "scenario"))
            got |= 1, snprintf(m->scenario, sizeof m->scenario, "%s", v);
        else if (!strcmp(s, "grid"))
            got |= 2, snprintf(m->grid, sizeof m->grid, "%s", v);
        else if (!strcmp(s, "replications"))
            got |= 4, m->replications = atoi(v);
        else if (!strcmp(s, "seed"))
            got |= 8, m->seed = strtoull(v, NULL, 10);
        else if (!strcmp(s, "variant"))
            got |= 16, m->variant = atoi(v);
        else if (!strcmp(s, "duration_us"))
            got |= 32, m->duration_us = strtoll(v, NULL, 10);
        else if (!strcmp(s, "objective"))
            got |= 64, m->objective = (sweep_obj)sweep_obj_find(v);
        else if (!strcmp(s, "points"))
            got |= 128, m->nrun = atol(v);
        else if (!strcmp(s, "current"))
            got |= 256, m->current = atol(v);
        else if (!strcmp(s, "baseline"))
            got |= 512, snprintf(m->base, sizeof m->base, "%s", v);
        else if (!strcmp(s, "overrode"))
            got |= 1024, snprintf(m->overrode, sizeof m->overrode, "%s", v);
        else if (!strcmp(s, "digest"))
            got |= 2048, m->digest = strtoull(v, NULL, 16);
        else if (!strcmp(s, "version"))
            snprintf(m->version, sizeof m->version, "%s", v);
        else if (!strcmp(s, "file") && m->nfiles < (int)(sizeof m->files / sizeof m->files[0]))
            got |= meta_file(v, &m->files[m->nfiles++]) < 0 ? 1 << 20 : 0;
    }
    free(buf);
    if (got != 4095 || m->current < 0 || m->current >= m->nrun || (int)m->objective < 0 || m->replications < 1 || m->replications > 1000)
        return hk_err_set(err, path, line, 1, "expected the sweep.meta a sweep writes (scenario, "
                          "grid, replications, seed, variant, duration_us, objective, points, "
                          "current, baseline, overrode, digest)");
    return 0;
}

void sweep_meta_bind(sweep_meta *m, const sweep_grid *g)
{
    m->nrun = g->nrun;
    m->current = g->current;
    snprintf(m->base, sizeof m->base, "%s", g->base);
    snprintf(m->overrode, sizeof m->overrode, "%s", g->overrode);
}

void sweep_grid_from_meta(sweep_grid *g, const sweep_meta *m)
{
    g->nrun = m->nrun;
    g->current = m->current;
    snprintf(g->base, sizeof g->base, "%s", m->base);
    snprintf(g->overrode, sizeof g->overrode, "%s", m->overrode);
}

/* ---- aggregation -------------------------------------------------------------- */

/* The rows file of point p: the first of the folders that has it. */
/* The rows file of point p: in exactly one of the folders (none: a shard missing; two: a
 * shard given twice, or two sweeps mixed). */
static int point_file(const char *const *dirs, int nd, long p, char *path, size_t n, hk_err *err)
{
    int found = -1;
    for (int d = 0; d < nd; d++) {
        char q[1200];
        snprintf(q, sizeof q, "%s/runs/%ld.csv", dirs[d], p);
        if (access(q, F_OK) < 0)
            continue;
        if (found >= 0)
            return hk_err_set(err, q, 0, 0, "grid point %ld is in %s too: expected each point in "
                              "one shard (a shard given twice?)", p, dirs[found]);
        found = d;
        snprintf(path, n, "%s", q);
    }
    if (found < 0)
        return hk_err_set(err, dirs[0], 0, 0, "no results for grid point %ld (runs/%ld.csv in none "
                          "of the folders): a shard missing?", p, p);
    return 0;
}

/* Every file in dir/runs/ is a point of the sweep (N.csv, N below nrun). */
static int no_stray(const char *dir, long nrun, hk_err *err)
{
    char runs[1100];
    snprintf(runs, sizeof runs, "%s/runs", dir);
    DIR *d = opendir(runs);
    if (!d)
        return 0;
    int rc = 0;
    for (struct dirent *e; rc == 0 && (e = readdir(d));) {
        char *end;
        long p = strtol(e->d_name, &end, 10);
        if (e->d_name[0] == '.' || (end != e->d_name && !strcmp(end, ".csv") && p >= 0 && p < nrun))
            continue;
        rc = hk_err_set(err, runs, 0, 0, "'%s' is not a point of this sweep (expected 0.csv to "
                        "%ld.csv)", e->d_name, nrun - 1);
    }
    closedir(d);
    return rc;
}

/* The severe kinds of a findings cell ("2 starved, 1 locked") into x's list; 1 if any. */
static int note_severe(agg *x, const char *cell)
{
    int any = 0;
    for (int k = 0; hk_find_kind(k); k++) {
        const char *kind = hk_find_kind(k);
        size_t l = strlen(kind);
        int found = 0;
        for (const char *p = strstr(cell, kind); p && !found; p = strstr(p + 1, kind))
            found = p > cell && p[-1] == ' ' && (p[l] == ',' || !p[l]);
        if (!found || hk_find_kind_severe(kind) <= 0)
            continue;
        any = 1;
        if (!strstr(x->severe_kinds, kind)) {
            size_t o = strlen(x->severe_kinds);
            snprintf(x->severe_kinds + o, sizeof x->severe_kinds - o, "%s%s", o ? ", " : "", kind);
        }
    }
    return any;
}

/* Row r of point p's file, fields f (checked: its place, its seed, every figure finite and in
 * range) into x. */
static int add_row(agg *x, char **f, int n, long p, int r, const sweep_grid *g, const sweep_meta *m,
                   const char *path, long line, hk_err *err)
{
    char want[64];
    snprintf(want, sizeof want, "%llu", m->seed + (unsigned long long)r);
    if (n != 3 + g->naxes + 8 || atol(f[0]) != p || atoi(f[1]) != r || strcmp(f[2], want))
        return hk_err_set(err, path, line, 1, "expected replication %d of grid point %ld (seed "
                          "%s, %d fields)", r, p, want, 3 + g->naxes + 8);
    const char *const *v = (const char *const *)f + 3 + g->naxes;
    static const double max[6] = {1e15, 100, 1e9, 1e9, 1e9, 1e9};
    double d[7] = {0};
    int na = !strcmp(v[2], "n/a"); /* a run that answered nothing: all four latencies n/a */
    for (int i = 0; i < 6; i++) {
        int bad;
        const char *what;
        if (i >= 2 && na && !strcmp(v[i], "n/a"))
            continue;
        if (hk_real_parse(v[i], 0, max[i], &d[i], &bad, &what) < 0)
            return hk_err_set(err, path, line, 4 + g->naxes + i, "expected %s from 0 to %g, got "
                              "'%.40s'", what, max[i], v[i]);
    }
    int bad;
    const char *what;
    if (strcmp(v[6], "never") && v[6][0] && hk_real_parse(v[6], 0, 1e9, &d[6], &bad, &what) < 0)
        return hk_err_set(err, path, line, 10 + g->naxes, "readmit_s: expected seconds, never or "
                          "nothing, got '%.40s'", v[6]);
    if (na && d[1] < 100)
        return hk_err_set(err, path, line, 6 + g->naxes, "latency n/a for a run whose queries "
                          "did not all fail (%.4f%% failed)", d[1]);
    for (int i = 0; i < (na ? 1 : 5); i++) {
        x->sum[i] += d[1 + i];
        x->sq[i] += d[1 + i] * d[1 + i];
    }
    x->nlat += !na;
    if (!strcmp(v[6], "never")) {
        x->never++;
    } else if (!v[6][0]) {
        x->nofault++;
    } else {
        x->sum[M_READMIT] += d[6];
        x->sq[M_READMIT] += d[6] * d[6];
    }
    if (!x->n)
        snprintf(x->findings, sizeof x->findings, "%s", v[7]);
    x->severe += note_severe(x, v[7]);
    x->n++;
    return 0;
}

static void agg_finish(agg *x)
{
    for (int i = 0; i < NMET; i++) {
        int lat = i >= M_MEAN && i <= M_P999;
        int k = i == M_READMIT ? x->n - x->never - x->nofault : lat ? x->nlat : x->n;
        double mean = k ? x->sum[i] / k : 0, var = k > 1 ? (x->sq[i] - k * mean * mean) / (k - 1) : 0;
        x->mean[i] = lat && !k ? NAN : mean; /* n/a: no run answered a query */
        x->half[i] = lat && !k ? NAN : k > 1 ? gsl_cdf_tdist_Pinv(0.975, k - 1) *
                     sqrt(var > 0 ? var / k : 0) : 0;
    }
}

/* Point p's file, trusted for nothing: its seal (rows, this sweep's digest, their checksum),
 * then each of its m->replications rows in order. */
static int read_point(const char *const *dirs, int nd, long p, const sweep_grid *g,
                      const sweep_meta *m, agg *x, hk_err *err)
{
    char path[1200], *text = NULL, why[240];
    size_t len;
    int rows;
    if (point_file(dirs, nd, p, path, sizeof path, err) < 0 ||
        hk_file_read(path, &text, &len, err) < 0)
        return -1;
    long at = sealed_rows(text, len, p, m, &rows, why, sizeof why);
    free(text);
    if (at < 0)
        return hk_err_set(err, path, 0, 0, "%s", why);
    if (rows != m->replications)
        return hk_err_set(err, path, 0, 0, "holds %d replications: expected %d", rows,
                          m->replications);
    hk_csvr r;
    if (hk_csvr_open(&r, path, err) < 0)
        return -1;
    char **f;
    int n, rc = 0;
    memset(x, 0, sizeof *x);
    for (int k = 0; rc == 0 && k < rows; k++) {
        rc = hk_csvr_next(&r, &f, &n, err);
        rc = rc == 1 ? add_row(x, f, n, p, k, g, m, path, r.lineno, err)
                     : rc < 0 ? -1 : hk_err_set(err, path, r.lineno, 1, "expected %d rows", rows);
    }
    hk_csvr_close(&r);
    if (rc < 0)
        return -1;
    agg_finish(x);
    return 0;
}

/* The objective of a point, lower is better; a run that never re-admits is worst, and a point
 * that answered no query has no latency: the worst there is, never a fast one. */
static double objective(const agg *x, sweep_obj o)
{
    switch (o) {
    case SO_P999: return x->nlat ? x->mean[M_P999] : INFINITY;
    case SO_FAILURES: return x->mean[M_FAILED];
    case SO_READMIT: return x->never ? INFINITY : x->nofault == x->n ? 0 : x->mean[M_READMIT];
    default: return x->nlat ? x->mean[M_P99] : INFINITY;
    }
}

typedef struct rank_ctx { const agg *a; sweep_obj o; } rank_ctx;

/* The half-width of the objective's confidence interval. */
static double half_of(const agg *x, sweep_obj o)
{
    int m = o == SO_P999 ? M_P999 : o == SO_FAILURES ? M_FAILED : o == SO_READMIT ? M_READMIT : M_P99;
    return isnan(x->half[m]) ? 0 : x->half[m];
}

/* a and b differ beyond noise: more than both confidence intervals and 1% apart. */
static int differ(double a, double ha, double b, double hb)
{
    if (!isfinite(a) || !isfinite(b))
        return a != b;
    double tol = fmax(fmax(ha, hb), 0.01 * fmax(fabs(a), fabs(b)));
    return fabs(a - b) > tol;
}

/* Ranking order: points whose runs raised no severe finding first; then the objective; where
 * two points are within noise of each other, fewer failures, then faster re-admission, then the
 * objective's mean, then grid order. */
static int better(const rank_ctx *c, long i, long j)
{
    const agg *x = &c->a[i], *y = &c->a[j];
    if (!x->severe != !y->severe) /* a point free of severe findings first, whatever its p99 */
        return !x->severe;
    double a = objective(x, c->o), b = objective(y, c->o);
    if (differ(a, half_of(x, c->o), b, half_of(y, c->o)))
        return a < b;
    if (c->o != SO_FAILURES && differ(x->mean[M_FAILED], x->half[M_FAILED], y->mean[M_FAILED],
                                      y->half[M_FAILED]))
        return x->mean[M_FAILED] < y->mean[M_FAILED];
    double ra = objective(x, SO_READMIT), rb = objective(y, SO_READMIT);
    if (c->o != SO_READMIT && differ(ra, x->half[M_READMIT], rb, y->half[M_READMIT]))
        return ra < rb;
    if (a != b)
        return a < b;
    return i < j;
}

/* Stable merge sort of order[lo, hi) by better(): n log n, so a 10^5-point grid ranks in a
 * moment (an insertion sort took minutes there); tmp holds n entries. */
static void rank_merge(const rank_ctx *c, long *order, long *tmp, long lo, long hi)
{
    if (hi - lo < 2)
        return;
    long mid = lo + (hi - lo) / 2, i = lo, j = mid, k = lo;
    rank_merge(c, order, tmp, lo, mid);
    rank_merge(c, order, tmp, mid, hi);
    while (i < mid && j < hi)
        tmp[k++] = better(c, order[j], order[i]) ? order[j++] : order[i++];
    while (i < mid)
        tmp[k++] = order[i++];
    while (j < hi)
        tmp[k++] = order[j++];
    memcpy(order + lo, tmp + lo, (size_t)(hi - lo) * sizeof *order);
}

static int rank(const rank_ctx *c, long *order, long n)
{
    long *tmp = malloc(((size_t)n + 1) * sizeof *tmp);
    if (!tmp)
        return -1;
    for (long i = 0; i < n; i++)
        order[i] = i;
    rank_merge(c, order, tmp, 0, n);
    free(tmp);
    return 0;
}

/* Some j is, beyond noise, better than i on one of (p99, failed, readmit) and worse on none. */
static int dominated(const agg *a, long i, long n)
{
    static const sweep_obj dim[3] = {SO_P99, SO_FAILURES, SO_READMIT};
    for (long j = 0; j < n; j++) {
        int worse = 0, better_one = 0;
        for (int k = 0; k < 3; k++) {
            double xi = objective(&a[i], dim[k]), xj = objective(&a[j], dim[k]);
            if (!differ(xi, half_of(&a[i], dim[k]), xj, half_of(&a[j], dim[k])))
                continue;
            worse |= xj > xi;
            better_one |= xj < xi;
        }
        if (j != i && better_one && !worse)
            return 1;
    }
    return 0;
}

/* best is better than cur beyond noise on the objective, failures or re-admission. */
static int dominated_by(const agg *a, long cur, long best)
{
    static const sweep_obj dim[3] = {SO_P99, SO_FAILURES, SO_READMIT};
    for (int k = 0; k < 3; k++) {
        double xc = objective(&a[cur], dim[k]), xb = objective(&a[best], dim[k]);
        if (differ(xc, half_of(&a[cur], dim[k]), xb, half_of(&a[best], dim[k])) && xb < xc)
            return 1;
    }
    return 0;
}

/* ---- words -------------------------------------------------------------------- */

static void figures(char *b, size_t n, const agg *x)
{
    char rd[64];
    if (x->nofault == x->n)
        snprintf(rd, sizeof rd, "no fault");
    else if (x->never)
        snprintf(rd, sizeof rd, "readmit never (%d of %d runs)", x->never, x->n);
    else
        snprintf(rd, sizeof rd, "readmitted in %.1f +- %.1f s", x->mean[M_READMIT], x->half[M_READMIT]);
    if (!x->nlat)
        snprintf(b, n, "p99 n/a (every query of every run failed), %.3f +- %.3f%% failed, %s",
                 x->mean[M_FAILED], x->half[M_FAILED], rd);
    else
        snprintf(b, n, "p99 %.1f +- %.1f ms, %.3f +- %.3f%% failed, %s", x->mean[M_P99],
                 x->half[M_P99], x->mean[M_FAILED], x->half[M_FAILED], rd);
}

/* A point an operator can configure: searchd's strategies, the scenario's variant. */
static int configurable(const sweep_grid *g, long p, int variant)
{
    if (p >= g->npoints) /* the baseline: the scenario as it is configured */
        return 1;
    for (int a = 0; a < g->naxes; a++) {
        int64_t v = g->ax[a].v[sweep_point_value(g, p, a)];
        if ((g->ax[a].key == SK_STRATEGY && v >= HK_STRAT_SEARCHD_N) ||
            (g->ax[a].key == SK_VARIANT && v != variant))
            return 0;
    }
    return 1;
}

/* Which of (objective, failures, re-admission) a and b are within noise of each other on:
 * "p99, failures and re-admission", or "" when they differ on the objective. */
static void tie_words(const agg *a, const agg *b, sweep_obj o, char *buf, size_t n)
{
    static const sweep_obj dim[3] = {SO_P99, SO_FAILURES, SO_READMIT};
    static const char *const word[4] = {"p99", "p999", "failures", "re-admission"};
    const char *tied[4];
    int nt = 0;
    buf[0] = '\0';
    if (differ(objective(a, o), half_of(a, o), objective(b, o), half_of(b, o)))
        return;
    tied[nt++] = word[o];
    for (int k = 0; k < 3; k++)
        if (dim[k] != o && (o != SO_P999 || dim[k] != SO_P99) &&
            !differ(objective(a, dim[k]), half_of(a, dim[k]), objective(b, dim[k]),
                    half_of(b, dim[k])))
            tied[nt++] = word[dim[k]];
    for (int i = 0, off = 0; i < nt; i++)
        off += snprintf(buf + off, n - (size_t)off, "%s%s", i == 0 ? "" : i == nt - 1 ? " and "
                        : ", ", tied[i]);
}

static long rank_of(const long *order, long n, long p)
{
    long r = 0;
    while (r < n && order[r] != p)
        r++;
    return r;
}

/* The recommendation: the best point an operator can configure with no severe finding; else
 * (every configurable point raises one) none, with the least bad and what they all raise. */
/* Points tied with best within noise (severe ones only when best is severe itself). */
static void ties(FILE *o, const sweep_meta *m, const sweep_grid *g, const agg *a,
                 const long *order, long best)
{
    char lab[600], tie[120];
    for (long i = 0; i < g->nrun; i++) {
        long p = order[i];
        if (p == best || (a[p].severe && !a[best].severe))
            continue;
        tie_words(&a[best], &a[p], m->objective, tie, sizeof tie);
        if (!tie[0])
            continue;
        sweep_point_label(g, p, lab, sizeof lab);
        fprintf(o, "  rank 1 ties with rank %ld (%s): within noise on %s\n", i + 1, lab, tie);
    }
}

/* The recommendation: the best point an operator can configure with no severe finding — or the
 * current settings when that point is not better beyond noise; none when every configurable
 * point raises a severe finding (then the least bad, and what they raise). */
/* What the sweep recommends: the best configurable point, whether to change to it, keep the
 * current settings, or nothing (every point severe, or none configurable). */
typedef enum verdict { V_NONE_CONFIGURABLE, V_NONE_SEVERE, V_KEEP, V_CHANGE } verdict;

/* The best-ranked point an operator can configure that answered queries at all. */
static long best_of(const sweep_meta *m, const sweep_grid *g, const agg *a, const long *order)
{
    for (long i = 0; i < g->nrun; i++)
        if (configurable(g, order[i], m->variant) && a[order[i]].nlat)
            return order[i];
    return -1;
}

static verdict verdict_of(const sweep_grid *g, const agg *a, long best)
{
    long cur = g->current;
    if (best < 0)
        return V_NONE_CONFIGURABLE;
    if (a[best].severe)
        return V_NONE_SEVERE;
    return best == cur || (!a[cur].severe && !dominated_by(a, cur, best)) ? V_KEEP : V_CHANGE;
}

static void recommend(FILE *o, const sweep_meta *m, const sweep_grid *g, const agg *a,
                      const long *order, long best)
{
    char lab[600], fig[200], cfg[600];
    long cur = g->current;
    verdict v = verdict_of(g, a, best);
    if (v == V_NONE_CONFIGURABLE) {
        fprintf(o, "RECOMMENDATION: none: no point of the grid is a setting searchd offers and "
                "answers queries\n");
        return;
    }
    sweep_point_label(g, best, lab, sizeof lab);
    figures(fig, sizeof fig, &a[best]);
    if (v == V_NONE_SEVERE) {
        fprintf(o, "RECOMMENDATION: none: every setting of the grid raises a severe finding "
                "(%s in the best one); changing these settings does not fix it. Least bad: %s: "
                "%s\n", a[best].severe_kinds, lab, fig);
    } else if (v == V_KEEP) {
        sweep_point_label(g, cur, lab, sizeof lab);
        figures(fig, sizeof fig, &a[cur]);
        fprintf(o, "RECOMMENDATION: keep your current settings (%s): no point of the grid is "
                "better beyond noise on %s, failures or re-admission: %s; findings: %s\n", lab,
                sweep_obj_name(m->objective), fig, a[cur].findings);
    } else {
        sweep_point_config(g, best, cfg, sizeof cfg);
        fprintf(o, "RECOMMENDATION: %s: %s; findings: %s\n", lab, fig, a[best].findings);
        if (cfg[0])
            fprintf(o, "  in the config (as %s reads it): %s\n",
                    hk_dialect_of(m->variant) == HK_DIALECT_SPHINX2
                        ? "Sphinx 2.2.11, with no time suffixes," : "Manticore", cfg);
    }
    ties(o, m, g, a, order, best);
}

static void report(FILE *o, const sweep_meta *m, const sweep_grid *g, const agg *a,
                   const long *order)
{
    char lab[600], fig[200];
    long n = g->nrun, best = best_of(m, g, a, order), best_any = order[0], current = g->current;
    fprintf(o, "sweep of %s: %ld settings%s x %d replications (seeds from %llu, common random "
            "numbers), objective %s, 95%% confidence intervals\n", m->scenario, g->npoints,
            n > g->npoints ? " and the current one" : "", m->replications, m->seed,
            sweep_obj_name(m->objective));
    if (g->overrode[0])
        fprintf(o, "ha_strategy in the grid overrides every table's own: %s (per table: "
                "TABLE.ha_strategy=...)\n", g->overrode);
    long severe = 0;
    for (long i = 0; i < n; i++)
        severe += a[i].severe > 0;
    if (severe == n)
        fprintf(o, "every point raises a severe finding in its runs (the first one's: %s)\n",
                a[0].severe_kinds);
    recommend(o, m, g, a, order, best);
    sweep_point_label(g, current, lab, sizeof lab);
    figures(fig, sizeof fig, &a[current]);
    fprintf(o, "  your current settings (%s): %s — rank %ld of %ld%s%s\n", lab, fig,
            rank_of(order, n, current) + 1, n, a[current].severe ? "; severe findings: " : "",
            a[current].severe ? a[current].severe_kinds : "");
    if (best_any != best) {
        sweep_point_label(g, best_any, lab, sizeof lab);
        figures(fig, sizeof fig, &a[best_any]);
        fprintf(o, "  best of all (not a searchd setting: a hakarma extension or another "
                "variant): %s: %s\n", lab, fig);
    }
    if (n > SWEEP_PARETO_MAX)
        fprintf(o, "pareto: judged for the %d best-ranked points (each against all %ld); '?' "
                "below them\n", SWEEP_PARETO_MAX, n);
    int w = 8; /* the widest label: every row's columns line up (tests/cli_sweep.sh reads them) */
    for (long i = 0; i < n; i++) {
        sweep_point_label(g, order[i], lab, sizeof lab);
        w = (int)strlen(lab) > w ? (int)strlen(lab) : w;
    }
    fprintf(o, "rank  %-*s %18s %16s %16s  pareto  findings\n", w, "settings", "p99 ms",
            "failed %", "readmit s");
    for (long i = 0; i < n; i++) {
        const agg *x = &a[order[i]];
        char rd[40], p99[40];
        if (x->nlat)
            snprintf(p99, sizeof p99, "%9.2f +- %5.2f", x->mean[M_P99], x->half[M_P99]);
        else
            snprintf(p99, sizeof p99, "%18s", "n/a");
        if (x->nofault == x->n)
            snprintf(rd, sizeof rd, "-");
        else if (x->never)
            snprintf(rd, sizeof rd, "never");
        else
            snprintf(rd, sizeof rd, "%.2f +- %.2f", x->mean[M_READMIT], x->half[M_READMIT]);
        sweep_point_label(g, order[i], lab, sizeof lab);
        fprintf(o, "%4ld  %-*s %18s %7.3f +- %5.3f %16s  %-6s  %s%s\n", i + 1, w, lab, p99,
                x->mean[M_FAILED], x->half[M_FAILED], rd,
                x->pareto > 0 ? "yes" : x->pareto < 0 ? "?" : "", x->findings,
                x->severe ? " (severe)" : "");
    }
}

/* ---- files ------------------------------------------------------------------- */

static int write_csv(const char *const *dirs, int nd, const char *out, const sweep_grid *g,
                     hk_err *err)
{
    hk_out o;
    if (hk_out_open(&o, out, "sweep.csv", err) < 0)
        return -1;
    static const char *const tail[] = {"queries", "failed_pct", "mean_ms", "p50_ms", "p99_ms",
                                       "p999_ms", "readmit_s", "findings"};
    hk_csv_str(o.f, "point", 1);
    hk_csv_str(o.f, "replication", 0);
    hk_csv_str(o.f, "seed", 0);
    for (int a = 0; a < g->naxes; a++)
        hk_csv_str(o.f, sweep_key_name(g->ax[a].key), 0);
    for (int i = 0; i < 8; i++)
        hk_csv_str(o.f, tail[i], 0);
    hk_csv_end(o.f);
    for (long p = 0; p < g->nrun; p++) {
        char path[1200], *buf = NULL;
        size_t len = 0;
        if (point_file(dirs, nd, p, path, sizeof path, err) < 0 ||
            hk_file_read(path, &buf, &len, err) < 0) {
            hk_out_abort(&o);
            return -1;
        }
        size_t rows = len; /* the rows, without the seal (its last line: read_point checked it) */
        if (rows && buf[rows - 1] == '\n')
            rows--;
        while (rows > 0 && buf[rows - 1] != '\n')
            rows--;
        fwrite(buf, 1, rows, o.f);
        free(buf);
    }
    return hk_out_commit(&o, err);
}

/* Green (rank 1) to red (the last rank) by a cell's mean rank, so the colour says what the
 * ranking says (severe findings, failures and noise included), not the raw objective. */
static void colour(FILE *o, double rank, long n)
{
    double t = n > 1 ? (rank - 1) / (double)(n - 1) : 0;
    fprintf(o, "background:rgb(%d,%d,120)", (int)(120 + 135 * t), (int)(230 - 130 * t));
}

/* One heatmap: axes a (rows) x b (columns); each cell the objective's mean over the other axes
 * (n/a where no run answered a query, never where no run re-admitted), coloured by its points'
 * mean rank, a severe finding in any of them marked. */
static void heatmap(FILE *o, const sweep_meta *m, const sweep_grid *g, const agg *x,
                    const long *rank, int a, int b)
{
    int na = g->ax[a].n, nb = g->ax[b].n;
    double *cell = calloc((size_t)na * (size_t)nb, sizeof *cell);
    double *rk = calloc((size_t)na * (size_t)nb, sizeof *rk);
    int *cnt = calloc((size_t)na * (size_t)nb, sizeof *cnt);
    int *sev = calloc((size_t)na * (size_t)nb, sizeof *sev);
    if (!cell || !rk || !cnt || !sev) {
        free(cell), free(rk), free(cnt), free(sev);
        return;
    }
    for (long p = 0; p < g->npoints; p++) {
        int i = sweep_point_value(g, p, a), j = sweep_point_value(g, p, b);
        cell[i * nb + j] += objective(&x[p], m->objective);
        rk[i * nb + j] += (double)rank[p];
        sev[i * nb + j] |= x[p].severe > 0;
        cnt[i * nb + j]++;
    }
    fprintf(o, "<h3>%s by %s x %s</h3>\n<table class=h><tr><th></th>", sweep_obj_name(m->objective),
            sweep_key_name(g->ax[a].key), sweep_key_name(g->ax[b].key));
    for (int j = 0; j < nb; j++)
        fprintf(o, "<th>%s</th>", g->ax[b].text[j]);
    fprintf(o, "</tr>\n");
    for (int i = 0; i < na; i++) {
        fprintf(o, "<tr><th>%s</th>", g->ax[a].text[i]);
        for (int j = 0; j < nb; j++) {
            int k = i * nb + j, c = cnt[k] ? cnt[k] : 1;
            double v = cell[k] / c;
            fprintf(o, "<td style=\"");
            colour(o, rk[k] / c, g->nrun);
            fprintf(o, "%s\" title=\"mean rank %.1f of %ld\">", sev[k] ? ";outline:3px solid "
                    "#8b0000" : "", rk[k] / c, g->nrun);
            if (isfinite(v))
                fprintf(o, "%.2f", v);
            else
                fprintf(o, "%s", m->objective == SO_READMIT ? "never" : "n/a");
            fprintf(o, "%s</td>", sev[k] ? " &#9888; severe" : "");
        }
        fprintf(o, "</tr>\n");
    }
    fprintf(o, "</table>\n");
    free(cell), free(rk), free(cnt), free(sev);
}

static int write_html(const char *out, const sweep_meta *m, const sweep_grid *g, const agg *x,
                      const long *order, hk_err *err)
{
    hk_out o;
    long *rank = malloc(((size_t)g->nrun + 1) * sizeof *rank);
    if (!rank)
        return hk_err_set(err, out, 0, 0, "out of memory");
    for (long i = 0; i < g->nrun; i++)
        rank[order[i]] = i + 1;
    if (hk_out_open(&o, out, "index.html", err) < 0) {
        free(rank);
        return -1;
    }
    fprintf(o.f, "<!doctype html><meta charset=utf-8><title>hakarma sweep</title>\n<style>body{"
            "font-family:sans-serif} table.h td{padding:4px 10px;text-align:right} pre{font-size:"
            "13px;white-space:pre-wrap}</style>\n<h1>Sweep of %s</h1>\n<p>Each cell: the mean of the objective (%s; "
            "lower is better) over the other swept settings, coloured by its points' mean rank: "
            "green ranks first, red last (severe findings, failures and noise included); a "
            "framed cell holds a point with a severe finding; n/a: no run answered a query. "
            "sweep.csv has every run.</p>\n", m->scenario, sweep_obj_name(m->objective));
    for (int a = 0; a < g->naxes; a++)
        for (int b = a + 1; b < g->naxes; b++)
            heatmap(o.f, m, g, x, rank, a, b);
    if (g->naxes == 1)
        heatmap(o.f, m, g, x, rank, 0, 0);
    free(rank);
    fprintf(o.f, "<h2>Ranking</h2>\n<pre>");
    report(o.f, m, g, x, order); /* settings and numbers only: nothing to escape */
    fprintf(o.f, "</pre>\n");
    return hk_out_commit(&o, err);
}

/* One point in JSON: its settings, figures with their 95% half-widths, findings. */
static json_t *point_json(const sweep_grid *g, const agg *x, long p, long rank)
{
    char lab[600], cfg[600];
    sweep_point_label(g, p, lab, sizeof lab);
    sweep_point_config(g, p, cfg, sizeof cfg);
    char rwhy[80];
    int readmitted = x->nofault < x->n && !x->never;
    snprintf(rwhy, sizeof rwhy, x->nofault == x->n ? "no fault in its runs" : "never re-admitted "
             "in %d of %d runs", x->never, x->n);
    json_t *o = json_pack("{s:I, s:s, s:s, s:o, s:{s:f, s:f}, s:o, s:i, s:s, s:b, s:s}", "rank",
                          (json_int_t)rank, "settings", lab, "config", cfg, "p99_ms",
                          x->nlat ? json_pack("{s:f, s:f}", "mean", x->mean[M_P99], "ci95",
                                              x->half[M_P99])
                                  : json_pack("{s:n, s:n, s:s}", "mean", "ci95", "why",
                                              "every query of every run failed"),
                          "failed_pct", "mean", x->mean[M_FAILED], "ci95", x->half[M_FAILED],
                          "readmit_s", readmitted ? json_pack("{s:f, s:f}", "mean",
                                                              x->mean[M_READMIT], "ci95",
                                                              x->half[M_READMIT])
                                                  : json_pack("{s:n, s:n, s:s}", "mean", "ci95",
                                                              "why", rwhy),
                          "runs", x->n, "findings", x->findings, "severe", x->severe > 0,
                          "readmit", x->nofault == x->n ? "no fault" : x->never ? "never"
                                                                                : "readmitted");
    if (o && x->pareto >= 0)
        json_object_set_new(o, "pareto", json_boolean(x->pareto));
    return o;
}

/* recommendation.json (schema hakarma-sweep/1): the verdict, the point it names and the
 * current settings, the ties, and every point by rank. */
static int write_json(const char *out, const sweep_meta *m, const sweep_grid *g, const agg *a,
                      const long *order, hk_err *err)
{
    static const char *const words[] = {
        "none: no configurable point",
        "none: every point raises a severe finding",
        "keep",
        "change"};
    long best = best_of(m, g, a, order), *rank = malloc(((size_t)g->nrun + 1) * sizeof *rank);
    json_t *doc = json_object(), *pts = json_array(), *ties = json_array();
    int rc = !rank || !doc || !pts || !ties;
    for (long i = 0; !rc && i < g->nrun; i++)
        rank[order[i]] = i + 1;
    for (long i = 0; !rc && i < g->nrun; i++) {
        char tie[120] = "";
        rc = json_array_append_new(pts, point_json(g, &a[order[i]], order[i], i + 1));
        if (best >= 0 && order[i] != best && !(a[order[i]].severe && !a[best].severe))
            tie_words(&a[best], &a[order[i]], m->objective, tie, sizeof tie);
        if (!rc && tie[0])
            rc = json_array_append_new(ties, json_pack("{s:I, s:s}", "rank", (json_int_t)i + 1,
                                                       "within_noise_on", tie));
    }
    verdict v = verdict_of(g, a, best);
    if (!rc) {
        rc = json_object_set_new(doc, "schema", json_string("hakarma-sweep/1"));
        rc |= json_object_set_new(doc, "scenario", json_string(m->scenario));
        rc |= json_object_set_new(doc, "objective", json_string(sweep_obj_name(m->objective)));
        rc |= json_object_set_new(doc, "verdict", json_string(words[v]));
        long r = v == V_KEEP ? g->current : best; /* what the words name */
        rc |= json_object_set_new(doc, "recommended", v == V_KEEP || v == V_CHANGE
                                  ? point_json(g, &a[r], r, rank[r]) : json_null());
        if (v == V_NONE_SEVERE)
            rc |= json_object_set_new(doc, "least_bad", point_json(g, &a[best], best, rank[best]));
        rc |= json_object_set_new(doc, "current", point_json(g, &a[g->current], g->current,
                                                             rank[g->current]));
        rc |= json_object_set(doc, "ties", ties);
        rc |= json_object_set(doc, "points", pts);
    }
    json_decref(pts);
    json_decref(ties);
    free(rank);
    char *text = !rc ? json_dumps(doc, JSON_INDENT(1) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(8))
                     : NULL;
    json_decref(doc);
    if (!text)
        return hk_err_set(err, out, 0, 0, "recommendation.json: out of memory");
    size_t n = strlen(text);
    text[n] = '\n'; /* json_dumps leaves room for its NUL */
    int w = hk_out_write_all(out, "recommendation.json", text, n + 1, err);
    free(text);
    return w;
}

int sweep_finish(const char *const *dirs, int ndirs, const char *out, const sweep_meta *m,
                 const sweep_grid *g, FILE *show, hk_err *err)
{
    agg *a = calloc((size_t)g->nrun, sizeof *a);
    long *order = calloc((size_t)g->nrun, sizeof *order);
    int rc = a && order ? 0 : hk_err_set(err, out, 0, 0, "out of memory");
    for (int d = 0; rc == 0 && d < ndirs; d++)
        rc = no_stray(dirs[d], g->nrun, err);
    for (long p = 0; rc == 0 && p < g->nrun; p++)
        rc = read_point(dirs, ndirs, p, g, m, &a[p], err);
    if (rc < 0 && a && order) { /* a point file missing, extra, doubled or damaged */
        free(a);
        free(order);
        return SWEEP_EPOINTS;
    }
    if (rc == 0 && rank(&(rank_ctx){a, m->objective}, order, g->nrun) < 0)
        rc = hk_err_set(err, out, 0, 0, "out of memory");
    for (long i = 0; rc == 0 && i < g->nrun; i++) /* each against all: n x SWEEP_PARETO_MAX */
        a[order[i]].pareto = i >= SWEEP_PARETO_MAX ? -1 : a[order[i]].nlat > 0 &&
                             !dominated(a, order[i], g->nrun); /* no answer: never a choice */
    if (rc == 0)
        rc = write_csv(dirs, ndirs, out, g, err);
    hk_out rep;
    if (rc == 0 && (rc = hk_out_open(&rep, out, "report.txt", err)) == 0) {
        report(rep.f, m, g, a, order);
        rc = hk_out_commit(&rep, err);
    }
    if (rc == 0)
        rc = write_html(out, m, g, a, order, err);
    if (rc == 0)
        rc = write_json(out, m, g, a, order, err);
    if (rc == 0 && show)
        report(show, m, g, a, order);
    free(a);
    free(order);
    return rc;
}
