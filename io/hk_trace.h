/* hk_trace: a query trace read one query at a time (memory does not grow
 * with its length): CSV with at least t_s,table,query (libcsv), or a searchd
 * query log in the sphinxql or plain format (hk_qlog). Limits: lines of at
 * most HK_LINE_MAX bytes, no NUL bytes, t_s from 0 to 10^10 s, and every
 * timestamp within HK_TRACE_SPAN_MAX of the first (a replay never sleeps for
 * years on a bad row). A log's multi-query batch (hk_qlog.h) is one arrival: its first
 * line is returned, the others counted in batched. */
#ifndef HK_TRACE_H
#define HK_TRACE_H

#include <stdio.h>
#include "hk_csv.h"
#include "hk_qlog.h"

#define HK_TRACE_SPAN_MAX_US (366LL * 86400 * 1000000)
#define HK_TRACE_BACK_MAX_US (3600LL * 1000000) /* how far a line may start before the first */
#define HK_TRACE_TS_MAX_S 1e10

typedef enum hk_trace_fmt { HK_TRACE_AUTO = -1, HK_TRACE_CSV, HK_TRACE_SPHINXQL, HK_TRACE_PLAIN }
    hk_trace_fmt;

typedef struct hk_trace {
    hk_trace_fmt fmt;
    char path[1024];
    FILE *f;
    char *line;
    size_t cap;
    long lineno;
    hk_csvr csv;
    int c_t, c_table, c_query;
    long skipped;                /* log entries that were not searches (SHOW, SET, SELECT 1) */
    long garbage;                /* lines of a log that are no log entry at all */
    long echoes;                 /* Manticore's ' # error=' entries of failed statements */
    long batched;                /* queries folded into the batch of the line before */
    hk_qrec prev;                /* the last query returned (its batch key; no query text) */
    int batch_left;              /* lines of its ' xN' batch still to come */
    char *qbuf;                  /* the last query's text (q->query points here) */
    size_t qcap;
    int64_t first_us;            /* the first timestamp (for the span limit) */
    int have_first;
    int64_t last_us;             /* a CSV trace's last timestamp: they may not go back */
    double size;                 /* the file's size in bytes (0: unknown) */
} hk_trace;

int hk_trace_fmt_parse(const char *s);   /* -2 if unknown */
const char *hk_trace_fmt_name(hk_trace_fmt f);
/* Open a trace; HK_TRACE_AUTO detects the format from its first line. A CSV needs the time
 * column tcol (NULL: t_s); table and query columns are optional (empty when absent). */
int hk_trace_open(hk_trace *t, const char *path, hk_trace_fmt fmt, const char *tcol, hk_err *err);
/* Whether its queries name their table (logs always do; a CSV with a table column). */
int hk_trace_has_tables(const hk_trace *t);
/* 1 = a query in *q (q->query valid until the next call), 0 = end, -1 = error
 * (file:line:col in err). */
int hk_trace_next(hk_trace *t, hk_qrec *q, hk_err *err);
void hk_trace_close(hk_trace *t);
/* How far the reading is, 0..1 (the file's bytes read); -1 when unknown. */
double hk_trace_progress(const hk_trace *t);
/* What a trace of this format cannot tell (one line, for the user). */
const char *hk_trace_note(hk_trace_fmt f);

#endif
