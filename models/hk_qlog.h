/* hk_qlog: one line of a searchd query log, as a replayable query.
 *   sphinxql: / * Sun Apr 28 12:38:02.808 2024 conn 2 (127.0.0.1:53228) real 0.000 wall 0.000
 *             found 0 * / SELECT ... FROM t WHERE MATCH('text') ...; / * agents=(...) * /
 *             the closing comment: agents=(0.006, 0.005) per agent line in seconds, then
 *             warning=TEXT (a partial result) or error=TEXT (a failed query), whose TEXT names
 *             the agent ("index t: agent 10.0.0.2:9312: remote error: ..."), as 2.2.11 and
 *             Manticore write them
 *   plain:    [Sun Apr 28 15:09:38.712 2024] 0.000 sec 0.000 sec [ext2/0/ext 0 (0,20)] [t] text
 * A multi-query batch (several statements in one request) logs one line per query: each
 * says ' xN' after its times where searchd ran the batch as one (local tables); over a
 * distributed table 2.2.11 writes the lines with no xN, on one connection, at one time, with
 * one agents=() list - the agents got one request. hk_trace folds either into one arrival.
 * Timestamps are written when the query ends, in the server's local time; the
 * arrival is taken as timestamp - real. Times are read as if UTC (a DST jump
 * inside a log shifts the replay by an hour there). Years 1970..2200 and query
 * times up to 10^6 s are accepted; anything else is a malformed line. */
#ifndef HK_QLOG_H
#define HK_QLOG_H

#include <stddef.h>
#include <stdint.h>

#define HK_QLOG_YEAR_MIN 1970
#define HK_QLOG_YEAR_MAX 2200
#define HK_QLOG_REAL_MAX 1e6     /* seconds a logged query may have taken */

#define HK_QLOG_AGENTS 64
#define HK_QLOG_BATCH_MAX 100000 /* the largest ' xN' accepted (searchd's max_batch_queries
                                    is 32 by default) */        /* agents=(...) times kept per line (one per agent line) */

/* What the log says came back (sphinxql format: the comment after the statement). */
enum { HK_QLOG_ANSWERED = 0,     /* no error= or warning= */
       HK_QLOG_WARNED = 1,       /* warning=...: a partial result (an agent failed) */
       HK_QLOG_FAILED = 2 };     /* error=...: the query failed */

typedef struct hk_qrec {
    int64_t t_us;                /* arrival, µs since the epoch */
    int64_t logged_us;           /* the line's own timestamp: when the query ended */
    int64_t conn;                /* sphinxql: 'conn N', -1 when the line names none */
    int batch;                   /* ' xN': one of a multi-query batch of N; 1 when alone */
    double real_s;               /* query time the log recorded */
    char table[128];
    int nagents;                 /* agents=(t1, t2, ...): per agent line, positional */
    double agent_s[HK_QLOG_AGENTS];
    int outcome;                 /* HK_QLOG_ANSWERED, _WARNED, _FAILED */
    char blame[128];             /* the HOST:PORT its warning or error names ("agent H:P: ..."),
                                    "" when it names none */
    char *query;                 /* full-text part (what MATCH() held): the caller's buffer */
    size_t qcap;                 /* its size; strlen(line) + 1 is always enough */
} hk_qrec;

/* 1 = a query; HK_QLOG_NOT_SEARCH = a log entry that is no search (SHOW, SET, CALL, a SELECT
 * with no FROM such as 'SELECT 1'); HK_QLOG_ERROR_ECHO = Manticore's entry for a statement that
 * failed, '/ * TIME conn N (ADDR) * / STATEMENT # error=TEXT' with no 'real' (a query that ran
 * has its own line too, which carries the outcome; one that never ran reached no agent);
 * 0 = not a log entry at all (garbage: counted, skipped); -1 = malformed (*col, *what set).
 * A table name longer than 127 characters is malformed; the query is never truncated when
 * qcap is enough. */
#define HK_QLOG_NOT_SEARCH 2
#define HK_QLOG_ERROR_ECHO 3
int hk_qlog_sphinxql(const char *line, hk_qrec *q, int *col, const char **what);
int hk_qlog_plain(const char *line, hk_qrec *q, int *col, const char **what);
/* "Sun Apr 28 12:38:02.808 2024" at s: consumes it, returns µs since epoch or -1. */
int64_t hk_qlog_time(const char *s, int *len);

/* The next "agent HOST:PORT" that searchd's warning or error wording names in [t, e): HOST:PORT
 * into out (n bytes) and where it ends; NULL when there is none. */
const char *hk_qlog_agent(const char *t, const char *e, char *out, size_t n);

#endif
