/* hk_statread: a saved SHOW AGENT STATUS (or SHOW STATUS) read back — the mysql client's
 * tab-separated output (-B, -e, with or without its header), its boxed table output (-t, and
 * Manticore's /cli) and its vertical output (-E, \G), from
 * Sphinx 2.2.11 or Manticore (the layout is detected) — and what it says of each host: counters
 * of the widest window, or Manticore's lifetime per-agent counters of SHOW STATUS. Pure: reads a
 * buffer the caller owns. */
#ifndef HK_STATREAD_H
#define HK_STATREAD_H

#include <stddef.h>
#include <stdint.h>
#include "hk_dash.h"
#include "hk_err.h"
#include "hk_variant.h"

#define HK_STATREAD_HOSTS_MAX 100000
#define HK_STATREAD_COUNT_MAX 1e15   /* a counter or a summed time: more is not a real master's */
#define HK_STATREAD_MS_MAX 1e9       /* a mean or average time, ms */
#define HK_STATREAD_PERIOD_MAX 604800 /* status_period_seconds: a week */

typedef struct hk_sthost {
    char name[256];              /* "host:port"; for SHOW STATUS rows "TABLE:LINE:MIRROR" */
    int by_agent;                /* SHOW STATUS lifetime row (pings not counted) */
    double c[HK_EV_N];           /* counters (HK_EV_*) */
    double total_ms;             /* total_query_time, ms */
    double connect_count, connect_avg_ms;
    int have_total, have_qt;     /* the rows said so (Manticore's window misprints them) */
    double ev1, ev5;             /* events in the 1- and 5-period windows (their spans differ
                                    by exactly 4 periods, whatever the phase) */
    int have1, have5;
    double msecs;                /* 2.2.11's msecsperqueryy: total time / events, ms */
    int have_msecs;
    double c1[HK_EV_N];          /* the 1-period window's counters (an incident's window);
                                    Manticore's, which has no query_timeouts row, get its
                                    connects that no printed outcome accounts for there */
    double connect1;             /* the 1-period window's connect_count */
    int have_connect1;
    double msecs1;               /* ... and its msecsperqueryy */
    int have_msecs1;
    double errorsarow;           /* errors in a row when the status was taken */
    int have_errorsarow;
} hk_sthost;

typedef struct hk_status_file {
    hk_layout layout;
    int periods;                 /* the window read (15, 5 or 1; 0 for lifetime rows) */
    int64_t period_s;            /* status_period_seconds (0 if absent) */
    int nhosts;
    hk_sthost *h;                /* owned */
    char version[96];            /* SHOW STATUS's version row ("" when the text has none) */
} hk_status_file;

#define HK_STATREAD_HIDDEN_MIN 2     /* Manticore: a window's connects past its printed outcomes
                                        taken as query timeouts from this many (one connect
                                        and its outcome may fall in blocks either side) */

/* Read text (len bytes, file for messages). 0, or -1 with err at file:line:col. */
int hk_statread(const char *text, size_t len, const char *file, hk_status_file *out,
                hk_err *err);
void hk_status_file_free(hk_status_file *s);

/* A reader for one master's successive snapshots: it keeps the keys of the last one read
 * whole, line by line (a master prints its rows in one order), and reads a text with the
 * same keys without taking them apart again — what hk_statread says of it, for less
 * (bench/README.md). */
typedef struct hk_statrd hk_statrd;

hk_statrd *hk_statrd_new(void);  /* NULL when out of memory */
int hk_statrd_read(hk_statrd *r, const char *text, size_t len, const char *file,
                   hk_status_file *out, hk_err *err);
void hk_statrd_free(hk_statrd *r);
/* The same, row by row as a client decodes them (the lines of the text, without their
 * newline), then the text they make: rows not in the keys' order read the text whole. */
void hk_statrd_begin(hk_statrd *r, const char *file);
void hk_statrd_line(hk_statrd *r, const char *line, size_t len);
int hk_statrd_end(hk_statrd *r, const char *text, size_t len, hk_status_file *out,
                  hk_err *err);

#endif
