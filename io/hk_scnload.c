/* hk_scnload: scenario files and the files they name. */
#include "hk_scnload.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hk_csv.h"
#include "hk_exec.h"
#include "hk_file.h"
#include "hk_grow.h"
#include "hk_keys.h"

#define EPOCH_MIN_S 1e9          /* a trace timestamp from here on is a date, not an offset */

int hk_config_read(const char *path, int exec, char **text, size_t *len, int *ran, hk_err *err)
{
    *ran = 0;
    if (hk_file_read(path, text, len, err) < 0)
        return -1;
    const char *p = *text + strspn(*text, " \t\r\n");
    if (p[0] != '#' || p[1] != '!')
        return 0;
    if (!exec) {
        free(*text);
        return hk_err_set(err, path, 1, 1, "the config is a script ('#!'): Manticore runs it and "
                          "reads its output; expected a plain config (or leave out --no-exec)");
    }
    char shebang[512];
    snprintf(shebang, sizeof shebang, "%.*s", (int)strcspn(p + 2, "\n"), p + 2);
    free(*text);
    *ran = 1;
    return hk_exec_config(path, shebang, text, len, err);
}

static int parse_file(hk_loaded *l, const char *path, hk_conf **c, char **text, hk_err *err)
{
    size_t len;
    char *buf;
    int ran;
    if (hk_config_read(path, l->exec_config, &buf, &len, &ran, err) < 0)
        return -1;
    if (ran && l->nran < 2)
        snprintf(l->ran[l->nran++], sizeof l->ran[0], "%s", path);
    int rc = hk_conf_parse(buf, len, path, c, err);
    if (text && rc == 0)
        *text = buf;
    else
        free(buf);
    return rc;
}

/* ---- empirical samples -------------------------------------------------- */

/* Which rows of a hareal file are successes: queries.csv has `status`, a mirror log `outcome`. */
static int ok_column(char **f, int n, int *col)
{
    *col = hk_csv_column(f, n, "status");
    if (*col < 0)
        *col = hk_csv_column(f, n, "outcome");
    return *col;
}

int hk_load_samples(const char *path, const char *column, double **out, long *n, hk_err *err)
{
    *out = NULL;
    *n = 0;
    hk_csvr r;
    if (hk_csvr_open(&r, path, err) < 0)
        return -1;
    char **f;
    int nf, col = -1, okc = -1, rc;
    long k = 0;
    int cap = 0;
    double *v = NULL;
    if ((rc = hk_csvr_next(&r, &f, &nf, err)) == 1) {
        if ((col = hk_csv_column(f, nf, column)) < 0)
            rc = hk_err_set(err, path, 1, 1, "expected a column '%s' in the header", column);
        ok_column(f, nf, &okc);
    }
    while (rc == 1 && (rc = hk_csvr_next(&r, &f, &nf, err)) == 1) {
        if (okc >= 0 && (okc >= nf || strcmp(f[okc], "ok")))
            continue; /* a failed query's time is not a latency */
        char *end;
        double x = col < nf ? strtod(f[col], &end) : NAN;
        if (col >= nf || end == f[col] || *end || !(x >= 0 && x <= 1e9)) {
            rc = hk_err_set(err, path, (int)r.lineno, col + 1, "column %s: expected a "
                            "latency in ms >= 0, got '%.40s'", column, col < nf ? f[col] : "");
            break;
        }
        if (HK_GROW(v, cap, k + 1) < 0) {
            rc = hk_err_set(err, path, (int)r.lineno, 1, "out of memory");
            break;
        }
        v[k++] = x * 1000.0;
    }
    hk_csvr_close(&r);
    if (rc == 0 && k == 0)
        rc = hk_err_set(err, path, 1, 1, "expected at least one sample in column '%s'%s", column,
                        okc >= 0 ? " (of a successful row)" : "");
    if (rc < 0) {
        free(v);
        return -1;
    }
    *out = v;
    *n = k;
    return 0;
}

static int load_empiricals(hk_scn *s, hk_err *err)
{
    for (int i = 0; i < s->nbehave + 1; i++) {
        hk_dist *ds[2] = {i < s->nbehave ? s->behave[i].rtt : s->wl.think,
                          i < s->nbehave ? s->behave[i].service : NULL};
        for (int k = 0; k < 2; k++)
            for (hk_dist *e; (e = hk_dist_next_empirical(ds[k]));) {
                char p[1024];
                double *v;
                long n;
                hk_path_rel(s->file, e->path, p, sizeof p);
                if (hk_load_samples(p, e->column, &v, &n, err) < 0)
                    return -1;
                hk_dist_set_samples(e, v, n);
            }
    }
    return 0;
}

/* ---- trace arrivals ----------------------------------------------------- */

static int64_t sim_time(const hk_trace_src *src, int64_t t)
{
    return (double)t >= EPOCH_MIN_S * 1e6 ? t : src->start_us + t;
}

static int trace_next(void *ctx, int64_t *t, int *table)
{
    hk_trace_src *src = ctx;
    hk_qrec q;
    for (;;) {
        int rc = hk_trace_next(&src->tr, &q, &src->err);
        if (rc <= 0) {
            src->failed = rc < 0;
            return rc;
        }
        *t = sim_time(src, q.t_us);
        if (*t < src->start_us) {
            src->before_start++;
            continue;
        }
        if (*t >= src->end_us)
            return 0; /* the rest of the trace is beyond the run */
        *table = -1;
        if (!src->scn->wl.table_set && hk_trace_has_tables(&src->tr)) {
            *table = hk_scn_table_of(src->scn, q.table);
            if (*table < 0) {
                src->unknown++;
                *table = -2;
            }
        }
        return 1;
    }
}

/* The first timestamp of the trace (a pass over its first record). */
static int first_time(const char *path, const char *col, int64_t *t, hk_err *err)
{
    hk_trace tr;
    hk_qrec q;
    int rc = hk_trace_open(&tr, path, HK_TRACE_AUTO, col, err);
    if (rc == 0)
        rc = hk_trace_next(&tr, &q, err);
    hk_trace_close(&tr);
    if (rc == 0)
        return hk_err_set(err, path, 1, 1, "expected at least one query in the trace");
    *t = q.t_us;
    return rc < 0 ? -1 : 0;
}

int hk_loaded_rewind(hk_loaded *l, hk_scn *scn, int64_t duration_us, hk_err *err)
{
    hk_arrivals *a = &scn->wl.arr;
    if (scn->wl.clients || a->kind != HK_ARR_TRACE)
        return 0;
    if (!l->trace && !(l->trace = calloc(1, sizeof *l->trace)))
        return hk_err_set(err, scn->file, 0, 0, "out of memory");
    hk_trace_src *src = l->trace;
    if (src->open)
        hk_trace_close(&src->tr);
    src->open = 0;
    char p[1024];
    hk_path_rel(scn->file, a->path, p, sizeof p);
    const char *col = strcmp(a->column, "t_s") ? a->column : NULL;
    int64_t first = 0;
    if (first_time(p, col, &first, err) < 0)
        return -1;
    if (scn->start_us == HK_START_TRACE || (!scn->start_given && (double)first >= EPOCH_MIN_S * 1e6))
        scn->start_us = (double)first >= EPOCH_MIN_S * 1e6 ? first : 0;
    if (hk_trace_open(&src->tr, p, HK_TRACE_AUTO, col, err) < 0)
        return -1;
    src->open = 1;
    src->scn = scn;
    src->start_us = scn->start_us;
    src->end_us = scn->start_us + duration_us;
    src->before_start = src->unknown = 0;
    src->failed = 0;
    a->next = trace_next;
    a->ctx = src;
    a->started = 0;
    return 0;
}

/* ---- loading ------------------------------------------------------------ */

hk_scn *hk_loaded_scn(hk_loaded *l, int variant, hk_warns *warns, hk_err *err)
{
    hk_dialect d = hk_dialect_of(variant);
    if (l->by_dialect[d])
        return l->by_dialect[d];
    hk_warns local = {0};
    if (hk_scn_build(l->conf, l->tables, d, &l->by_dialect[d], err, warns ? warns : &local) < 0)
        return NULL;
    if ((!l->behave_optional && hk_scn_check_behaviour(l->by_dialect[d], err) < 0) ||
        load_empiricals(l->by_dialect[d], err) < 0) {
        hk_scn_free(l->by_dialect[d]);
        l->by_dialect[d] = NULL;
        return NULL;
    }
    return l->by_dialect[d];
}

/* The file at path and the config its sim { config = } names, parsed. */
static int read_files(const char *path, int exec, hk_loaded *l, hk_err *err)
{
    memset(l, 0, sizeof *l);
    snprintf(l->path, sizeof l->path, "%s", path);
    l->exec_config = exec;
    if (parse_file(l, path, &l->conf, &l->text, err) < 0)
        return -1;
    const hk_entry *ce = hk_scn_config_entry(l->conf);
    if (ce) {
        char p[1024];
        hk_path_rel(path, ce->value, p, sizeof p);
        hk_err sub;
        if (parse_file(l, p, &l->tables, NULL, &sub) < 0) {
            char m[700];
            hk_err_str(&sub, m, sizeof m);
            hk_err_set(err, path, ce->vline, ce->vcol, "config: %s", m);
            hk_loaded_free(l);
            return -1;
        }
    }
    return 0;
}

static int load(const char *path, int exec, int variant, int live, hk_loaded *l, hk_err *err)
{
    if (read_files(path, exec, l, err) < 0)
        return -1;
    l->behave_optional = live;
    int v = variant >= 0 ? variant : hk_scn_variant_of(l->conf);
    if (!(l->scn = hk_loaded_scn(l, v < 0 ? 0 : v, &l->warns, err))) {
        hk_loaded_free(l);
        return -1;
    }
    return 0;
}

int hk_scn_load(const char *path, int exec, hk_loaded *l, hk_err *err)
{
    return load(path, exec, -1, 0, l, err);
}

int hk_scn_load_live(const char *path, int exec, hk_loaded *l, hk_err *err)
{
    return load(path, exec, -1, 1, l, err);
}

/* No distributed table is served: why (the first refused one's reason, where), or what to add. */
static int none_served(const hk_cluster *cl, const char *path, hk_err *e)
{
    if (!cl->nrefused)
        return hk_err_set(e, path, 1, 1, "expected a table with 'type = distributed' and agents");
    char pre[200];
    snprintf(pre, sizeof pre, "no distributed table is served; table '%.120s': ",
             cl->refused[0].name);
    *e = cl->refused[0].why;
    hk_err_prefix(e, pre);
    return -1;
}

int hk_tables_load(const char *path, int exec, int variant, hk_loaded *l, hk_err *err)
{
    if (read_files(path, exec, l, err) < 0)
        return -1;
    const hk_conf *c = l->tables ? l->tables : l->conf;
    if (hk_scn_check_sections(l->conf, l->tables, err) < 0 ||
        hk_cluster_from_conf(c, l->conf, hk_dialect_of(variant), &l->cl, err, &l->warns) < 0 ||
        (!l->cl->ntables && none_served(l->cl, path, err) < 0)) {
        hk_loaded_free(l);
        return -1;
    }
    return 0;
}

/* ---- the files a scenario names ---------------------------------------- */

static int add_named(hk_named *out, int n, int max, const char *base, const char *name,
                     const char *what)
{
    for (int k = 0; k < n; k++)
        if (!strcmp(out[k].name, name))
            return n;
    if (n >= max)
        return n;
    snprintf(out[n].name, sizeof out[n].name, "%s", name);
    hk_path_rel(base, name, out[n].path, sizeof out[n].path);
    out[n].what = what;
    return n + 1;
}

static int dist_named(const hk_dist *d, hk_named *out, int n, int max, const char *base)
{
    if (!d)
        return n;
    if (d->kind == HK_DIST_EMPIRICAL)
        n = add_named(out, n, max, base, d->path, "empirical");
    for (int k = 0; k < d->nparts; k++)
        n = dist_named(d->parts[k], out, n, max, base);
    return n;
}

int hk_loaded_files(const hk_loaded *l, hk_named *out, int max)
{
    int n = 0;
    const hk_entry *ce = l->conf ? hk_scn_config_entry(l->conf) : NULL;
    if (ce)
        n = add_named(out, n, max, l->path, ce->value, "config");
    const hk_scn *s = l->scn;
    if (!s)
        return n;
    for (int i = 0; i < s->nbehave; i++) {
        n = dist_named(s->behave[i].rtt, out, n, max, s->file);
        n = dist_named(s->behave[i].service, out, n, max, s->file);
    }
    n = dist_named(s->wl.think, out, n, max, s->file);
    if (s->wl.arr.kind == HK_ARR_TRACE)
        n = add_named(out, n, max, s->file, s->wl.arr.path, "trace");
    return n;
}

void hk_loaded_free(hk_loaded *l)
{
    if (l->trace) {
        if (l->trace->open)
            hk_trace_close(&l->trace->tr);
        free(l->trace);
    }
    for (int d = 0; d < 2; d++)
        hk_scn_free(l->by_dialect[d]);
    if (l->cl)
        hk_cluster_free(l->cl);
    hk_conf_free(l->conf);
    hk_conf_free(l->tables);
    free(l->text);
    memset(l, 0, sizeof *l);
}

/* ---- inputs pinned by `hasim init` ---------------------------------------- */

static const char *const input_keys[] = {"size", "digest", "first", "last", NULL};

/* One `input NAME { size = N  digest = fnv1a64:HEX ... }` section against the file it names. */
static int input_check(const hk_loaded *l, const hk_section *sec, const hk_named *named, int n,
                       hk_err *err)
{
    const char *file = l->conf->file;
    for (int i = 0; i < sec->n; i++)
        if (!hk_word_in(sec->e[i].key, input_keys))
            return hk_err_set(err, file, sec->e[i].line, sec->e[i].col, "unknown key '%s' in "
                              "input section: expected size, digest, first or last",
                              sec->e[i].key);
    const hk_named *f = NULL;
    for (int k = 0; k < n && !f; k++)
        if (sec->name && !strcmp(named[k].name, sec->name))
            f = &named[k];
    if (!f)
        return hk_err_set(err, file, sec->line, sec->col, "input %s: the scenario uses no such "
                          "file (an input section names the config or trace it reads)",
                          sec->name ? sec->name : "(no name)");
    const hk_entry *size = NULL, *dig = NULL;
    for (int i = 0; i < sec->n; i++) {
        if (!strcmp(sec->e[i].key, "size"))
            size = &sec->e[i];
        else if (!strcmp(sec->e[i].key, "digest"))
            dig = &sec->e[i];
    }
    if (!size || !dig)
        return hk_err_set(err, file, sec->line, sec->col, "input %s: expected size and digest",
                          sec->name);
    unsigned long long d;
    long long sz;
    hk_err e2;
    if (hk_file_digest(f->path, &d, &sz, &e2) < 0)
        return hk_err_set(err, file, sec->line, sec->col, "input %s: %s", sec->name, e2.msg);
    char now[64];
    snprintf(now, sizeof now, "fnv1a64:%016llx", d);
    if (strtoll(size->value, NULL, 10) != sz || strcmp(dig->value, now))
        return hk_err_set(err, file, dig->vline, dig->vcol, "the %s %s has changed since the "
                          "scenario recorded it: %lld bytes, %s (recorded %s bytes, %s) — "
                          "rotated or rewritten? --allow-changed runs it as it is now",
                          f->what, f->path, sz, now, size->value, dig->value);
    return 0;
}

int hk_loaded_check_inputs(const hk_loaded *l, hk_err *err)
{
    if (!l->conf)
        return 0;
    hk_named named[HK_NAMED_MAX];
    int n = hk_loaded_files(l, named, HK_NAMED_MAX);
    for (int i = 0; i < l->conf->n; i++)
        if (!strcmp(l->conf->s[i].type, "input") && input_check(l, &l->conf->s[i], named, n, err) < 0)
            return -1;
    return 0;
}
