/* hk_report: the rows and texts both programs write, so hasim and hareal
 * produce the same files: periods.csv rows, summary.csv rows, and the
 * SHOW AGENT STATUS text of one master (global form and one per table). */
#ifndef HK_REPORT_H
#define HK_REPORT_H

#include <stdint.h>
#include <stdio.h>
#include "hk_buf.h"
#include "hk_cluster.h"
#include "hk_hist.h"
#include "hk_find.h"
#include "hk_ledger.h"
#include "hk_scn.h"
#include "hk_strat.h"

void hk_rep_periods_header(FILE *f);
void hk_rep_period_row(FILE *f, int period, double t_start_s, int master, const char *table,
                       int agent, const char *mirror, double prob, double weight, uint64_t q,
                       uint64_t err, int alive, const hk_hist *lat);
/* latency.csv: queries answered (ok, partial) and failed per period; the latency columns are
 * over the answered ones only (a failed query has no latency). */
void hk_rep_latency_header(FILE *f);
void hk_rep_latency_row(FILE *f, int period, double t_start_s, uint64_t ok, uint64_t partial,
                        uint64_t failed, const hk_hist *lat);
/* queries.csv, the same columns in hasim and hareal:
 * id,t_sched_s,t_sent_s,table,agent,mirror,attempts,status,latency_ms */
void hk_rep_queries_header(FILE *f);
void hk_rep_query_row(FILE *f, uint64_t id, double t_sched_s, double t_sent_s, const char *table,
                      int agent, const char *mirror, int attempts, const char *status,
                      double latency_ms);
/* One mirror of one agent line, totals of a run. Rows of a line are contiguous. */
typedef struct hk_rep_row {
    const char *table, *mirror;
    int agent;
    uint64_t q, err;
    const hk_hist *lat;
    int keep;                    /* a fault or a finding is about it: never folded away */
    int has_conn;                /* the connection counts below are known (else empty cells) */
    uint64_t connects;           /* connections opened to the mirror by its searches */
    uint64_t pool_hits, pool_misses, pool_fallbacks; /* persistent pool: reused, opened into a
                                    slot, no slot free (a plain connection) */
} hk_rep_row;

/* The run's per-mirror rows, from a ledger's totals (rows point into it): NULL out of memory
 * (caller frees). */
hk_rep_row *hk_rep_rows(const hk_ledger *L, int *n);
/* The run's per-mirror table from a ledger, rows marked by s's faults and fd's findings when
 * given (either NULL: none), folded past max rows (hk_rep_mirror_table). */
void hk_rep_ledger_table(FILE *f, const hk_ledger *L, const hk_scn *s, const hk_findings *fd,
                         int max);
/* "latency of answered queries, ms: p50 ... mean ..." and a newline, from h (us). */
void hk_rep_latency_line(FILE *f, const hk_hist *h);
/* Set keep on the rows of a mirror with a fault in s, or named by a finding of fd (its
 * mirror, or every mirror of its line when it names none). */
void hk_rep_mark(hk_rep_row *rows, int n, const hk_scn *s, const hk_findings *fd);
/* The per-mirror table printed at the end of a run (share of its line, failures, percentiles
 * of its successful attempts). Over max rows (0 = all), it is folded: the rows with keep and
 * the first others up to max, then a line saying how many were folded. */
void hk_rep_mirror_table(FILE *f, const hk_rep_row *rows, int n, int max);
/* summary.csv: header and one row per mirror; its last four columns (connects, pool_hits,
 * pool_misses, pool_fallbacks) are empty where has_conn is not set. */
void hk_rep_summary_csv(FILE *f, const hk_rep_row *rows, int n);
/* run.csv: what ran (key,value rows: program, scenario, variant, strategy, masters, duration_s,
 * karma_s, seed), for the plots' titles and anyone reading the folder later. */
typedef struct hk_rep_run {
    const char *program, *scenario, *variant, *strategy;
    int masters;
    double duration_s;
    int64_t karma_s;
    uint64_t seed;
} hk_rep_run;
int hk_rep_run_csv(const hk_rep_run *r, const char *dir, hk_err *err);
/* faults.csv (start_s,end_s,mirror,kind) in dir; a fault without end lasts to end_us. */
int hk_rep_faults(const hk_scn *s, int64_t end_us, const char *dir, hk_err *err);
/* dash: per host; lines: every agent line of every table, in config order. A huge cluster shows
 * its first HK_REP_STATUS_HOSTS hosts (and tables until that many lines), then says how many
 * more. -1 when out of memory. */
#define HK_REP_STATUS_HOSTS 1000
int hk_rep_status(hk_buf *b, const hk_cluster *cl, const hk_dash *dash, hk_line *const *lines,
                   const hk_variant *var, int64_t now_us, const char *title);

/* ms as "%.3f", or "n/a" when it is not a number (no answered query: never 0 ms); buf's text. */
const char *hk_rep_ms(double ms, char *buf, size_t n);

#endif
