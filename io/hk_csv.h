/* hk_csv: CSV reading (streamed, one row per line, with line numbers) and
 * writing, both through libcsv. A row may not span lines: a quote left open
 * at the end of its line is an error there, never a row that swallows the
 * next ones. Lines are at most HK_LINE_MAX bytes and hold no NUL byte, so
 * memory is bounded by that limit, never by the file. */
#ifndef HK_CSV_H
#define HK_CSV_H

#include <csv.h>
#include <stdio.h>
#include "hk_buf.h"
#include "hk_err.h"

#define HK_CSV_MAXF 64

typedef struct hk_csvr {
    FILE *f;
    char path[1024];
    struct csv_parser p;
    char *line;
    size_t linecap;
    long lineno;                 /* line of the row last returned */
    int n, too_many, oom;        /* the row being assembled / last returned */
    char *fld[HK_CSV_MAXF];
} hk_csvr;

int hk_csvr_open(hk_csvr *r, const char *path, hk_err *err);
/* 1 = a row in *f (n fields), 0 = end, -1 = error. Strings stay valid until the next call.
 * Blank lines are skipped. */
int hk_csvr_next(hk_csvr *r, char ***f, int *n, hk_err *err);
void hk_csvr_close(hk_csvr *r);
/* Column index of name in a header row (or a 1-based number); -1 if absent. */
int hk_csv_column(char **hdr, int n, const char *name);

/* Write one field (quoted by libcsv only when needed) and separators. */
void hk_csv_str(FILE *f, const char *s, int first);
void hk_csv_end(FILE *f);
/* The same field appended to b (for rows written many times: build once, copy). */
void hk_csv_put(hk_buf *b, const char *s);

#endif
