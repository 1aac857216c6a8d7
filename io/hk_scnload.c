/* hk_scnload: scenario files and the files they name. */
#include "hk_scnload.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "hk_file.h"

static int parse_file(const char *path, hk_conf **c, char **text, hk_err *err)
{
    size_t len;
    char *buf;
    if (hk_file_read(path, &buf, &len, err) < 0)
        return -1;
    int rc = hk_conf_parse(buf, len, path, c, err);
    if (text && rc == 0)
        *text = buf;
    else
        free(buf);
    return rc;
}

int hk_load_samples(const char *path, const char *column, double **out, long *n, hk_err *err)
{
    hk_csvr r;
    if (hk_csvr_open(&r, path, err) < 0)
        return -1;
    char **f;
    int nf, col = -1, rc;
    long cap = 1024, k = 0;
    double *v = malloc((size_t)cap * sizeof *v);
    if ((rc = hk_csvr_next(&r, &f, &nf, err)) == 1 && (col = hk_csv_column(f, nf, column)) < 0)
        rc = hk_err_set(err, path, 1, 1, "expected a column '%s' in the header", column);
    while (rc == 1 && v && (rc = hk_csvr_next(&r, &f, &nf, err)) == 1) {
        char *end;
        double x = col < nf ? strtod(f[col], &end) : NAN;
        if (col >= nf || end == f[col] || *end || !(x >= 0) || !isfinite(x)) {
            rc = hk_err_set(err, path, (int)r.lineno, col + 1, "column %s: expected a "
                            "latency in ms >= 0, got '%s'", column, col < nf ? f[col] : "");
            break;
        }
        if (k == cap) {
            double *nv = realloc(v, (size_t)(cap *= 2) * sizeof *v);
            if (!nv)
                break;
            v = nv;
        }
        v[k++] = x * 1000.0;
    }
    hk_csvr_close(&r);
    if (rc == 0 && k == 0)
        rc = hk_err_set(err, path, 1, 1, "expected at least one sample in column '%s'", column);
    if (rc < 0 || !v) {
        free(v);
        return -1;
    }
    *out = v;
    *n = k;
    return 0;
}

static int load_empiricals(hk_scn *s, hk_err *err)
{
    for (int i = 0; i < s->nbehave; i++) {
        hk_dist *ds[2] = {s->behave[i].rtt, s->behave[i].service};
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

static int trace_next(void *ctx, int64_t *t)
{
    hk_trace_src *src = ctx;
    char **f;
    int n;
    int rc = hk_csvr_next(&src->r, &f, &n, &src->err);
    if (rc <= 0) {
        src->failed = rc < 0;
        return rc;
    }
    char *end;
    double x = src->col < n ? strtod(f[src->col], &end) : NAN;
    if (src->col >= n || end == f[src->col] || *end || !isfinite(x)) {
        hk_err_set(&src->err, src->r.path, (int)src->r.lineno, src->col + 1,
                   "expected a timestamp in seconds, got '%s'", src->col < n ? f[src->col] : "");
        src->failed = 1;
        return -1;
    }
    *t = (int64_t)llround(x * 1e6);
    return 1;
}

static int open_trace(hk_loaded *l, hk_err *err)
{
    hk_arrivals *a = &l->scn->wl.arr;
    if (a->kind != HK_ARR_TRACE)
        return 0;
    if (!l->trace && !(l->trace = calloc(1, sizeof *l->trace)))
        return hk_err_set(err, l->scn->file, 0, 0, "out of memory");
    hk_trace_src *src = l->trace;
    char p[1024], **f;
    int n;
    hk_path_rel(l->scn->file, a->path, p, sizeof p);
    if (hk_csvr_open(&src->r, p, err) < 0)
        return -1;
    if (hk_csvr_next(&src->r, &f, &n, err) != 1 || (src->col = hk_csv_column(f, n, a->column)) < 0)
        return hk_err_set(err, p, 1, 1, "expected a header row with a '%s' column", a->column);
    a->next = trace_next;
    a->ctx = src;
    a->started = 0;
    src->failed = 0;
    return 0;
}

int hk_loaded_rewind(hk_loaded *l, hk_err *err)
{
    if (l->trace)
        hk_csvr_close(&l->trace->r);
    return open_trace(l, err);
}

int hk_scn_load(const char *path, hk_loaded *l, hk_err *err)
{
    memset(l, 0, sizeof *l);
    if (parse_file(path, &l->conf, &l->text, err) < 0)
        return -1;
    const hk_entry *ce = hk_scn_config_entry(l->conf);
    if (ce) {
        char p[1024];
        hk_path_rel(path, ce->value, p, sizeof p);
        hk_err sub;
        if (parse_file(p, &l->tables, NULL, &sub) < 0) {
            char m[700];
            hk_err_str(&sub, m, sizeof m);
            hk_err_set(err, path, ce->vline, ce->vcol, "config: %s", m);
            hk_loaded_free(l);
            return -1;
        }
    }
    if (hk_scn_build(l->conf, l->tables, &l->scn, err, &l->warns) < 0 ||
        load_empiricals(l->scn, err) < 0 || open_trace(l, err) < 0) {
        hk_loaded_free(l);
        return -1;
    }
    return 0;
}

void hk_loaded_free(hk_loaded *l)
{
    if (l->trace) {
        hk_csvr_close(&l->trace->r);
        free(l->trace);
    }
    hk_scn_free(l->scn);
    hk_conf_free(l->conf);
    hk_conf_free(l->tables);
    free(l->text);
    memset(l, 0, sizeof *l);
}
