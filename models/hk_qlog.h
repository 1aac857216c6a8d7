/* hk_qlog: one line of a searchd query log, as a replayable query.
 *   sphinxql: / * Sun Apr 28 12:38:02.808 2024 conn 2 (127.0.0.1:53228) real 0.000 wall 0.000
 *             found 0 * / SELECT ... FROM t WHERE MATCH('text') ...; / * agents=(...) * /
 *   plain:    [Sun Apr 28 15:09:38.712 2024] 0.000 sec 0.000 sec [ext2/0/ext 0 (0,20)] [t] text
 * Timestamps are written when the query ends, in the server's local time; the
 * arrival is taken as timestamp - real. Times are read as if UTC (a DST jump
 * inside a log shifts the replay by an hour there). */
#ifndef HK_QLOG_H
#define HK_QLOG_H

#include <stdint.h>

typedef struct hk_qrec {
    int64_t t_us;                /* arrival, µs since the epoch */
    double real_s;               /* query time the log recorded */
    char table[128];
    char query[1024];            /* full-text part (what MATCH() held) */
} hk_qrec;

/* 1 = a query, 0 = not a query line (skip), -1 = malformed (*col, *what set). */
int hk_qlog_sphinxql(const char *line, hk_qrec *q, int *col, const char **what);
int hk_qlog_plain(const char *line, hk_qrec *q, int *col, const char **what);
/* "Sun Apr 28 12:38:02.808 2024" at s: consumes it, returns µs since epoch or -1. */
int64_t hk_qlog_time(const char *s, int *len);

#endif
