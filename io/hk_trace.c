/* hk_trace: streaming trace readers. */
#include "hk_trace.h"

#include "hk_file.h"
#include "hk_time.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int hk_trace_fmt_parse(const char *s)
{
    static const char *n[3] = {"csv", "sphinxql", "plain"};
    for (int i = 0; i < 3; i++)
        if (!strcmp(s, n[i]))
            return i;
    return -2;
}

const char *hk_trace_fmt_name(hk_trace_fmt f)
{
    return f == HK_TRACE_CSV ? "csv" : f == HK_TRACE_SPHINXQL ? "sphinxql" : "plain";
}

const char *hk_trace_note(hk_trace_fmt f)
{
    switch (f) {
    case HK_TRACE_SPHINXQL:
        return "sphinxql log: arrivals are end timestamps minus 'real'; only MATCH() text and the "
               "table are replayed (filters, sorting and options are not); with "
               "query_log_min_msec set the log holds only slow queries, so the replay is biased";
    case HK_TRACE_PLAIN:
        return "plain log: it holds only the full-text part of each query, replayed as a match "
               "query; with query_log_min_msec set the log holds only slow queries";
    default:
        return NULL;
    }
}

/* The format from the first line: a sphinxql log opens with a comment and a date, a plain log
 * with "[" and a date; anything else is CSV. */
/* "Sun Apr ..." (whether or not the date is valid: the reader says what is wrong with it) */
static int looks_dated(const char *s)
{
    return isalpha((unsigned char)s[0]) && isalpha((unsigned char)s[1]) &&
           isalpha((unsigned char)s[2]) && s[3] == ' ' && isalpha((unsigned char)s[4]);
}

static int sniff(const char *path)
{
    FILE *f = fopen(path, "r");
    char line[64] = "";
    if (f) {
        if (!fgets(line, sizeof line, f))
            line[0] = '\0';
        fclose(f);
    }
    if (!strncmp(line, "/* ", 3) && looks_dated(line + 3))
        return HK_TRACE_SPHINXQL;
    if (line[0] == '[' && looks_dated(line + 1))
        return HK_TRACE_PLAIN;
    return HK_TRACE_CSV;
}

int hk_trace_open(hk_trace *t, const char *path, hk_trace_fmt fmt, const char *tcol, hk_err *err)
{
    memset(t, 0, sizeof *t);
    snprintf(t->path, sizeof t->path, "%s", path);
    if (hk_file_regular(path, err) < 0)
        return -1;
    t->fmt = fmt == HK_TRACE_AUTO ? (hk_trace_fmt)sniff(path) : fmt;
    struct stat st;
    t->size = stat(path, &st) == 0 && S_ISREG(st.st_mode) ? (double)st.st_size : 0;
    if (t->fmt != HK_TRACE_CSV) {
        t->f = fopen(path, "r");
        return t->f ? 0 : hk_err_set(err, path, 0, 0, "cannot open: %s", strerror(errno));
    }
    if (hk_csvr_open(&t->csv, path, err) < 0)
        return -1;
    char **f;
    int n, rc = hk_csvr_next(&t->csv, &f, &n, err);
    if (rc < 0)
        return -1;
    if (rc == 0)
        return hk_err_set(err, path, 1, 1, "expected a header row with a '%s' column (and "
                          "optionally table and query)", tcol ? tcol : "t_s");
    if (n > 0 && !strncmp(f[0], "\xEF\xBB\xBF", 3))
        return hk_err_set(err, path, 1, 1, "the file starts with a UTF-8 byte-order mark (EF BB "
                          "BF): expected the header '%s,...' (save it without the mark)",
                          tcol ? tcol : "t_s");
    t->c_t = hk_csv_column(f, n, tcol ? tcol : "t_s");
    t->c_table = hk_csv_column(f, n, "table");
    t->c_query = hk_csv_column(f, n, "query");
    if (t->c_t < 0)
        return hk_err_set(err, path, 1, 1, "expected a '%s' column (seconds) in the header",
                          tcol ? tcol : "t_s");
    return 0;
}

int hk_trace_has_tables(const hk_trace *t) { return t->fmt != HK_TRACE_CSV || t->c_table >= 0; }

static int reserve(hk_trace *t, size_t n)
{
    if (n <= t->qcap)
        return 0;
    char *p = realloc(t->qbuf, n);
    if (!p)
        return -1;
    t->qbuf = p;
    t->qcap = n;
    return 0;
}

/* Every timestamp within the span limit of the first one. */
static int check_span(hk_trace *t, const hk_qrec *q, int line, int col, hk_err *err)
{
    if (!t->have_first) {
        t->first_us = q->t_us;
        t->have_first = 1;
    }
    int64_t d = q->t_us - t->first_us;
    if (d > HK_TRACE_SPAN_MAX_US || d < -HK_TRACE_SPAN_MAX_US)
        return hk_err_set(err, t->path, line, col, "expected a timestamp within 366 days of the "
                          "trace's first one (%.0f s away)", (double)d / 1e6);
    if (d < -HK_TRACE_BACK_MAX_US) /* a log is written as queries end: a little out of order */
        return hk_err_set(err, t->path, line, col, "expected a timestamp at most %.0f s before "
                          "the trace's first one (it is %.0f s before: it would be sent at once)",
                          (double)HK_TRACE_BACK_MAX_US / 1e6, (double)-d / 1e6);
    return 0;
}

static int next_csv(hk_trace *t, hk_qrec *q, hk_err *err)
{
    char **f;
    int n;
    int rc = hk_csvr_next(&t->csv, &f, &n, err);
    if (rc <= 0)
        return rc;
    int line = (int)t->csv.lineno, need = t->c_t;
    if (t->c_table > need)
        need = t->c_table;
    if (t->c_query > need)
        need = t->c_query;
    if (n <= need)
        return hk_err_set(err, t->path, line, 1, "expected %d columns, got %d", need + 1, n);
    const char *table = t->c_table >= 0 ? f[t->c_table] : "";
    const char *query = t->c_query >= 0 ? f[t->c_query] : "";
    char *e;
    double ts = strtod(f[t->c_t], &e);
    if (e == f[t->c_t] || *e || !hk_is_decimal(f[t->c_t], e) ||
        !(ts >= 0 && ts <= HK_TRACE_TS_MAX_S))
        return hk_err_set(err, t->path, line, t->c_t + 1, "t_s: expected decimal seconds from 0 "
                          "to 10000000000, got '%.40s'", f[t->c_t]);
    size_t tl = strlen(table), ql = strlen(query);
    if ((t->c_table >= 0 && !tl) || tl >= sizeof q->table)
        return hk_err_set(err, t->path, line, t->c_table + 1, "table: expected a table name of "
                          "1 to %zu characters", sizeof q->table - 1);
    if (reserve(t, ql + 1) < 0)
        return hk_err_set(err, t->path, line, 1, "out of memory");
    q->t_us = (int64_t)llround(ts * 1e6);
    if (t->have_first && q->t_us < t->last_us)
        return hk_err_set(err, t->path, line, t->c_t + 1, "t_s goes back in time (%.6f s after "
                          "%.6f s): expected a trace sorted by t_s (sort -t, -k1,1g)", ts,
                          (double)t->last_us / 1e6);
    t->last_us = q->t_us;
    q->real_s = 0;
    memcpy(q->table, table, tl + 1);
    memcpy(t->qbuf, query, ql + 1);
    q->query = t->qbuf;
    q->qcap = t->qcap;
    return check_span(t, q, line, t->c_t + 1, err) < 0 ? -1 : 1;
}

/* Whether log line q continues the batch of the query returned before it: the same end
 * time and table, and either the rest of an ' xN' batch on its connection, or (no xN) the
 * same connection and the very same agents=() times - one request to the agents. */
static int same_batch(const hk_trace *t, const hk_qrec *q)
{
    const hk_qrec *p = &t->prev;
    if (!t->have_first || q->logged_us != p->logged_us || strcmp(q->table, p->table) ||
        q->conn != p->conn)
        return 0;
    if (q->batch > 1 || p->batch > 1)
        return q->batch == p->batch && t->batch_left > 0;
    if (q->conn < 0 || !q->nagents || q->nagents != p->nagents)
        return 0;
    return !memcmp(q->agent_s, p->agent_s, (size_t)q->nagents * sizeof q->agent_s[0]);
}

static void remember(hk_trace *t, const hk_qrec *q, int folded)
{
    if (folded) {
        t->batched++;
        t->batch_left -= t->batch_left > 0;
        return;
    }
    t->prev = *q;
    t->prev.query = NULL;
    t->prev.qcap = 0;
    t->batch_left = q->batch - 1;
}

int hk_trace_next(hk_trace *t, hk_qrec *q, hk_err *err)
{
    if (t->fmt == HK_TRACE_CSV)
        return next_csv(t, q, err);
    for (;;) {
        ssize_t n = hk_read_line(t->f, &t->line, &t->cap, HK_LINE_MAX);
        if (n == 0)
            return 0;
        t->lineno++;
        if (n < 0)
            return hk_line_err(err, t->path, t->lineno, n);
        if (reserve(t, (size_t)n + 1) < 0)
            return hk_err_set(err, t->path, (int)t->lineno, 1, "out of memory");
        q->query = t->qbuf;
        q->qcap = t->qcap;
        int col = 1;
        const char *what = "";
        int rc = t->fmt == HK_TRACE_SPHINXQL ? hk_qlog_sphinxql(t->line, q, &col, &what)
                                             : hk_qlog_plain(t->line, q, &col, &what);
        if (rc < 0)
            return hk_err_set(err, t->path, (int)t->lineno, col, "expected %s", what);
        if (rc == 1) {
            int folded = same_batch(t, q);
            remember(t, q, folded);
            if (!folded)
                return check_span(t, q, (int)t->lineno, 2, err) < 0 ? -1 : 1;
            continue;
        }
        if (rc == HK_QLOG_NOT_SEARCH)
            t->skipped++;
        else if (rc == HK_QLOG_ERROR_ECHO)
            t->echoes++;
        else if (n > 1) /* not a blank line */
            t->garbage++;
    }
}

double hk_trace_progress(const hk_trace *t)
{
    FILE *f = t->fmt == HK_TRACE_CSV ? t->csv.f : t->f;
    long at = f ? ftell(f) : -1;
    return t->size > 0 && at >= 0 ? (double)at / t->size : -1;
}

void hk_trace_close(hk_trace *t)
{
    if (t->fmt == HK_TRACE_CSV)
        hk_csvr_close(&t->csv);
    if (t->f)
        fclose(t->f);
    free(t->line);
    free(t->qbuf);
    t->f = NULL;
    t->line = NULL;
    t->qbuf = NULL;
    t->qcap = 0;
}
