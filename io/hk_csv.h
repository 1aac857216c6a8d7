/* hk_csv: CSV reading (streamed, one row at a time, with line numbers) and
 * writing, both through libcsv. Memory is bounded by the longest row. */
#ifndef HK_CSV_H
#define HK_CSV_H

#include <csv.h>
#include <stdio.h>
#include "hk_err.h"

#define HK_CSV_MAXF 64

typedef struct hk_csvr {
    FILE *f;
    char path[1024];
    struct csv_parser p;
    char *line;
    size_t linecap;
    long lineno;                 /* line of the row last returned */
    /* rows completed by libcsv, waiting to be handed out */
    int nrows, head;
    struct row { int n; char *f[HK_CSV_MAXF]; long line; int too_many; } rows[8];
    struct row cur;              /* row being assembled */
    struct row out;              /* row last returned (owned until the next call) */
    int eof;
    int overflow;
} hk_csvr;

int hk_csvr_open(hk_csvr *r, const char *path, hk_err *err);
/* 1 = a row in *f (n fields), 0 = end, -1 = error. Strings stay valid until the next call. */
int hk_csvr_next(hk_csvr *r, char ***f, int *n, hk_err *err);
void hk_csvr_close(hk_csvr *r);
/* Column index of name in a header row (or a 1-based number); -1 if absent. */
int hk_csv_column(char **hdr, int n, const char *name);

/* Write one field (quoted by libcsv only when needed) and separators. */
void hk_csv_str(FILE *f, const char *s, int first);
void hk_csv_end(FILE *f);

#endif
