/* hk_csv: libcsv-based streaming reader and field writer. */
#include "hk_csv.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static void free_row(struct row *w)
{
    for (int i = 0; i < w->n; i++)
        free(w->f[i]);
    w->n = 0;
    w->too_many = 0;
}

static void on_field(void *s, size_t len, void *data)
{
    hk_csvr *r = data;
    if (r->cur.n == HK_CSV_MAXF) {
        r->cur.too_many = 1;
        return;
    }
    char *v = malloc(len + 1);
    if (v) {
        memcpy(v, s ? s : "", len);
        v[len] = '\0';
    }
    r->cur.f[r->cur.n++] = v;
}

static void on_row(int c, void *data)
{
    (void)c;
    hk_csvr *r = data;
    r->cur.line = r->lineno;
    if (r->nrows < 8)
        r->rows[(r->head + r->nrows++) % 8] = r->cur;
    else {
        free_row(&r->cur);
        r->overflow = 1;
    }
    memset(&r->cur, 0, sizeof r->cur);
}

int hk_csvr_open(hk_csvr *r, const char *path, hk_err *err)
{
    memset(r, 0, sizeof *r);
    snprintf(r->path, sizeof r->path, "%s", path);
    r->f = fopen(path, "rb");
    if (!r->f)
        return hk_err_set(err, path, 0, 0, "cannot open: %s", strerror(errno));
    csv_init(&r->p, CSV_APPEND_NULL);
    return 0;
}

static int feed(hk_csvr *r, hk_err *err)
{
    ssize_t n = getline(&r->line, &r->linecap, r->f);
    if (n < 0) {
        if (ferror(r->f))
            return hk_err_set(err, r->path, (int)r->lineno + 1, 1, "read error");
        r->eof = 1;
        csv_fini(&r->p, on_field, on_row, r);
        return 0;
    }
    r->lineno++;
    if (csv_parse(&r->p, r->line, (size_t)n, on_field, on_row, r) != (size_t)n)
        return hk_err_set(err, r->path, (int)r->lineno, 1, "CSV: %s",
                          csv_strerror(csv_error(&r->p)));
    return 0;
}

int hk_csvr_next(hk_csvr *r, char ***f, int *n, hk_err *err)
{
    free_row(&r->out);
    while (r->nrows == 0) {
        if (r->eof)
            return 0;
        if (feed(r, err) < 0)
            return -1;
    }
    r->out = r->rows[r->head];
    r->head = (r->head + 1) % 8;
    r->nrows--;
    if (r->overflow)
        return hk_err_set(err, r->path, (int)r->lineno, 1, "expected one CSV row per line");
    if (r->out.too_many)
        return hk_err_set(err, r->path, (int)r->out.line, 1, "expected at most %d columns",
                          HK_CSV_MAXF);
    for (int i = 0; i < r->out.n; i++)
        if (!r->out.f[i])
            return hk_err_set(err, r->path, (int)r->out.line, 1, "out of memory");
    r->lineno = r->out.line;
    *f = r->out.f;
    *n = r->out.n;
    return 1;
}

void hk_csvr_close(hk_csvr *r)
{
    free_row(&r->out);
    free_row(&r->cur);
    while (r->nrows) {
        free_row(&r->rows[r->head]);
        r->head = (r->head + 1) % 8;
        r->nrows--;
    }
    csv_free(&r->p);
    free(r->line);
    r->line = NULL;
    r->linecap = 0;
    if (r->f)
        fclose(r->f);
    r->f = NULL;
}

int hk_csv_column(char **hdr, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(hdr[i], name))
            return i;
    char *end;
    long k = strtol(name, &end, 10);
    return *name && !*end && k >= 1 && k <= n ? (int)k - 1 : -1;
}

void hk_csv_str(FILE *f, const char *s, int first)
{
    if (!first)
        fputc(',', f);
    if (strpbrk(s, ",\"\n\r"))
        csv_fwrite(f, s, strlen(s));
    else
        fputs(s, f);
}

void hk_csv_end(FILE *f) { fputc('\n', f); }
