/* hk_csv: libcsv-based streaming reader (one row per line) and field writer. */
#include "hk_csv.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "hk_file.h"

static void free_row(hk_csvr *r)
{
    for (int i = 0; i < r->n; i++)
        free(r->fld[i]);
    r->n = 0;
    r->too_many = 0;
    r->oom = 0;
}

static void on_field(void *s, size_t len, void *data)
{
    hk_csvr *r = data;
    if (r->n == HK_CSV_MAXF) {
        r->too_many = 1;
        return;
    }
    char *v = malloc(len + 1);
    if (!v) {
        r->oom = 1;
        return;
    }
    memcpy(v, s ? s : "", len);
    v[len] = '\0';
    r->fld[r->n++] = v;
}

static void on_row(int c, void *data)
{
    (void)c;
    (void)data;
}

int hk_csvr_open(hk_csvr *r, const char *path, hk_err *err)
{
    memset(r, 0, sizeof *r);
    snprintf(r->path, sizeof r->path, "%s", path);
    if (hk_file_regular(path, err) < 0) /* a FIFO's open would wait for a writer forever */
        return -1;
    r->f = fopen(path, "rb");
    if (!r->f)
        return hk_err_set(err, path, 0, 0, "cannot open: %s", strerror(errno));
    csv_init(&r->p, CSV_STRICT | CSV_STRICT_FINI | CSV_APPEND_NULL);
    return 0;
}

/* Parse one line as one row. */
static int parse_line(hk_csvr *r, size_t n, hk_err *err)
{
    while (n > 0 && (r->line[n - 1] == '\n' || r->line[n - 1] == '\r'))
        n--;
    if (csv_parse(&r->p, r->line, n, on_field, on_row, r) != n) {
        int code = csv_error(&r->p);
        csv_fini(&r->p, on_field, on_row, r);
        return hk_err_set(err, r->path, (int)r->lineno, 1, "CSV: %s: expected "
                          "quotes only around whole fields, doubled inside them",
                          csv_strerror(code));
    }
    if (csv_fini(&r->p, on_field, on_row, r) != 0)
        return hk_err_set(err, r->path, (int)r->lineno, 1, "CSV: a quote is left open at the "
                          "end of the line: expected its closing quote on the same line");
    if (r->oom)
        return hk_err_set(err, r->path, (int)r->lineno, 1, "out of memory");
    if (r->too_many)
        return hk_err_set(err, r->path, (int)r->lineno, 1, "expected at most %d columns",
                          HK_CSV_MAXF);
    return 0;
}

int hk_csvr_next(hk_csvr *r, char ***f, int *n, hk_err *err)
{
    free_row(r);
    for (;;) {
        ssize_t len = hk_read_line(r->f, &r->line, &r->linecap, HK_LINE_MAX);
        if (len == 0)
            return 0;
        r->lineno++;
        if (len < 0)
            return hk_line_err(err, r->path, r->lineno, len);
        if (parse_line(r, (size_t)len, err) < 0) {
            free_row(r);
            return -1;
        }
        if (r->n > 0)
            break;
    }
    *f = r->fld;
    *n = r->n;
    return 1;
}

void hk_csvr_close(hk_csvr *r)
{
    free_row(r);
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

/* Whether a field must be quoted (libcsv quotes it whole). */
static int needs_quotes(const char *s) { return strpbrk(s, ",\"\n\r") != NULL; }

void hk_csv_str(FILE *f, const char *s, int first)
{
    if (!first)
        fputc(',', f);
    if (needs_quotes(s))
        csv_fwrite(f, s, strlen(s));
    else
        fputs(s, f);
}

void hk_csv_end(FILE *f) { fputc('\n', f); }

void hk_csv_put(hk_buf *b, const char *s)
{
    size_t n = strlen(s);
    if (!needs_quotes(s)) {
        hk_buf_put(b, s, n);
        return;
    }
    size_t q = csv_write(NULL, 0, s, n); /* the quoted length */
    char *tmp = malloc(q);
    if (!tmp) {
        b->oom = 1;
        return;
    }
    csv_write(tmp, q, s, n);
    hk_buf_put(b, tmp, q);
    free(tmp);
}
