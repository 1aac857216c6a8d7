/* hk_qlog: query-log line parsers (sphinxql and plain formats). */
#include "hk_qlog.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "hk_time.h"

int64_t hk_qlog_time(const char *s, int *len)
{
    static const char *mon[12] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                  "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
    char wd[4], mo[4];
    int d, hh, mm, ss, ms = 0, y, n = 0, n2 = 0;
    if (sscanf(s, "%3s %3s %d %d:%d:%d%n", wd, mo, &d, &hh, &mm, &ss, &n) != 6)
        return -1;
    if (s[n] == '.') {
        if (sscanf(s + n, ".%3d%n", &ms, &n2) != 1)
            return -1;
        n += n2;
    }
    if (sscanf(s + n, " %d%n", &y, &n2) != 1)
        return -1;
    n += n2;
    int m = 0;
    while (m < 12 && strcmp(mo, mon[m]))
        m++;
    if (m == 12 || y < HK_QLOG_YEAR_MIN || y > HK_QLOG_YEAR_MAX || d < 1 ||
        d > hk_month_days(y, m + 1) || hh < 0 || hh > 23 || mm < 0 || mm > 59 || ss < 0 ||
        ss > 60 || ms < 0)
        return -1;
    int64_t days = hk_days_from_civil(y, m + 1, d);
    static const char *wday[7] = {"Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"}; /* 1970-01-01 */
    if (strcmp(wd, wday[((days % 7) + 7) % 7])) /* 'Sun Feb 30', or a weekday the date is not */
        return -1;
    *len = n;
    return ((days * 86400 + hh * 3600 + mm * 60 + ss) * 1000 + ms) * 1000;
}

static const char *ci_find(const char *s, const char *word)
{
    size_t n = strlen(word);
    for (; *s; s++)
        if (!strncasecmp(s, word, n) && (s[n] == ' ' || s[n] == '(' || s[n] == '\t'))
            return s;
    return NULL;
}

/* MATCH('text') with \' escapes -> q->query */
static void match_text(const char *sql, char *out, size_t n)
{
    out[0] = '\0';
    const char *m = ci_find(sql, "MATCH");
    if (!m)
        return;
    const char *p = strchr(m, '\'');
    if (!p)
        return;
    size_t k = 0;
    for (p++; *p && *p != '\'' && k + 1 < n; p++) {
        if (*p == '\\' && p[1])
            p++;
        out[k++] = *p;
    }
    out[k] = '\0';
}

/* The table after FROM into out; -1 if it does not fit. */
static int table_of(const char *sql, char *out, size_t n)
{
    out[0] = '\0';
    const char *f = ci_find(sql, "FROM");
    if (!f)
        return 0;
    f += 4;
    while (*f == ' ')
        f++;
    size_t k = 0;
    while (isalnum((unsigned char)*f) || *f == '_' || *f == '-') {
        if (k + 1 >= n)
            return -1;
        out[k++] = *f++;
    }
    out[k] = '\0';
    return 0;
}

static void clear(hk_qrec *q)
{
    q->t_us = 0;
    q->logged_us = 0;
    q->conn = -1;
    q->batch = 1;
    q->real_s = 0;
    q->table[0] = '\0';
    q->nagents = 0;
    q->outcome = HK_QLOG_ANSWERED;
    q->blame[0] = '\0';
    if (q->qcap)
        q->query[0] = '\0';
}

/* ' xN' at p (spaces before it skipped): N into *batch and its end returned; p when the
 * text there is no ' x' and digits; NULL when N is out of range. */
static const char *batch_of(const char *p, int *batch)
{
    const char *s = p;
    while (*s == ' ')
        s++;
    if (s == p || *s != 'x' || !isdigit((unsigned char)s[1]))
        return p;
    char *e;
    long n = strtol(s + 1, &e, 10);
    if (*e != ' ' && *e != '\0')
        return p;
    if (n < 1 || n > HK_QLOG_BATCH_MAX)
        return NULL;
    *batch = (int)n;
    return e;
}

const char *hk_qlog_agent(const char *t, const char *e, char *out, size_t n)
{
    for (const char *a = strstr(t, "agent "); a && a < e; a = strstr(a + 1, "agent ")) {
        const char *h = a + 6;
        size_t k = strspn(h, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_");
        if (!k || h[k] != ':' || !isdigit((unsigned char)h[k + 1]))
            continue;
        k += 1 + strspn(h + k + 1, "0123456789");
        if (k < n && h + k <= e) {
            memcpy(out, h, k);
            out[k] = '\0';
            return h + k;
        }
    }
    return NULL;
}

/* The comment after the statement: agents=(...), warning=, error=. 2.2.11 opens it with a
 * space after the slash-star; Manticore puts its first item right after it, so a failed
 * query's comment starts "error=" with no space before it. */
static void tail_comment(const char *sql, hk_qrec *q)
{
    const char *c = strstr(sql, "/*"), *e;
    while (c && strstr(c + 2, "/*")) /* the last comment of the line */
        c = strstr(c + 2, "/*");
    if (!c || !(e = strstr(c, "*/")))
        return;
    const char *a = strstr(c, "agents=(");
    for (const char *p = a && a < e ? a + 8 : NULL; p && q->nagents < HK_QLOG_AGENTS;) {
        char *end;
        double v = strtod(p, &end);
        if (end == p || !(v >= 0 && v <= HK_QLOG_REAL_MAX))
            break;
        q->agent_s[q->nagents++] = v;
        p = end;
        while (*p == ' ')
            p++;
        p = *p == ',' ? p + 1 : NULL;
    }
    const char *w = strstr(c, "warning="), *x = strstr(c, "error=");
    if (x && x < e && (x == c + 2 || x[-1] == ' ')) {
        q->outcome = HK_QLOG_FAILED;
        hk_qlog_agent(x, e, q->blame, sizeof q->blame);
    } else if (w && w < e) {
        q->outcome = HK_QLOG_WARNED;
        hk_qlog_agent(w, e, q->blame, sizeof q->blame);
    }
}

int hk_qlog_sphinxql(const char *line, hk_qrec *q, int *col, const char **what)
{
    clear(q);
    if (strncmp(line, "/* ", 3))
        return 0;
    int n;
    int64_t t = hk_qlog_time(line + 3, &n);
    if (t < 0) {
        *col = 4;
        *what = "a timestamp like 'Sun Apr 28 12:38:02.808 2024' (years 1970 to 2200)";
        return -1;
    }
    const char *r = strstr(line, " real ");
    const char *end = strstr(line, "*/");
    if (end && (!r || r > end) && strstr(end, " # error="))
        return HK_QLOG_ERROR_ECHO;
    if (!r || !end || r > end) {
        *col = (int)(r ? r - line : 3 + n) + 1;
        *what = "'real SECONDS' and '*/' closing the header comment";
        return -1;
    }
    char *e;
    q->real_s = strtod(r + 6, &e);
    if (e == r + 6 || !(q->real_s >= 0 && q->real_s <= HK_QLOG_REAL_MAX)) {
        *col = (int)(r - line) + 7;
        *what = "the query time in seconds (0 to 1000000) after 'real'";
        return -1;
    }
    const char *c = strstr(line + 3 + n, " conn ");
    if (c && c < r && isdigit((unsigned char)c[6]))
        q->conn = strtoll(c + 6, NULL, 10);
    const char *x = strstr(r, " x");
    while (x && x < end && batch_of(x, &q->batch) == x)
        x = strstr(x + 2, " x");
    if (x && x < end && !batch_of(x, &q->batch)) {
        *col = (int)(x - line) + 2;
        *what = "a batch size from x1 to x100000";
        return -1;
    }
    const char *sql = end + 2;
    while (*sql == ' ')
        sql++;
    if (strncasecmp(sql, "SELECT", 6))
        return HK_QLOG_NOT_SEARCH; /* SHOW, SET, CALL ... */
    int tr = table_of(sql, q->table, sizeof q->table);
    if (tr == 0 && !q->table[0])
        return HK_QLOG_NOT_SEARCH; /* SELECT 1, SELECT @@version: no table */
    if (tr < 0 || !q->table[0]) {
        *col = (int)(sql - line) + 1;
        *what = q->table[0] ? "a table name of at most 127 characters" : "SELECT ... FROM TABLE";
        return -1;
    }
    if (q->qcap)
        match_text(sql, q->query, q->qcap);
    tail_comment(sql, q);
    q->logged_us = t;
    q->t_us = t - (int64_t)(q->real_s * 1e6);
    return 1;
}

int hk_qlog_plain(const char *line, hk_qrec *q, int *col, const char **what)
{
    clear(q);
    if (line[0] != '[')
        return 0;
    int n;
    int64_t t = hk_qlog_time(line + 1, &n);
    if (t < 0 || line[1 + n] != ']') {
        *col = 2;
        *what = "a timestamp like '[Sun Apr 28 15:09:38.712 2024]' (years 1970 to 2200)";
        return -1;
    }
    const char *p = line + 2 + n;
    char *e;
    q->real_s = strtod(p, &e);
    if (e == p || strncmp(e, " sec", 4) || !(q->real_s >= 0 && q->real_s <= HK_QLOG_REAL_MAX)) {
        *col = (int)(p - line) + 1;
        *what = "'SECONDS sec' after the timestamp";
        return -1;
    }
    p = e + 4;
    double wall = strtod(p, &e); /* Manticore adds the wall time */
    if (e != p && !strncmp(e, " sec", 4))
        p = e + 4;
    (void)wall;
    const char *b = batch_of(p, &q->batch);
    if (!b) {
        *col = (int)(p - line) + 2;
        *what = "a batch size from x1 to x100000";
        return -1;
    }
    p = b;
    while (*p == ' ')
        p++;
    if (*p == '[') /* [mode/filters/sort total (offset,limit)] */
        p = strchr(p, ']') ? strchr(p, ']') + 1 : p;
    while (*p == ' ')
        p++;
    const char *close = *p == '[' ? strchr(p, ']') : NULL;
    if (!close) {
        *col = (int)(p - line) + 1;
        *what = "'[INDEX]' before the query text";
        return -1;
    }
    size_t k = (size_t)(close - p - 1);
    if (k >= sizeof q->table) {
        *col = (int)(p - line) + 2;
        *what = "a table name of at most 127 characters";
        return -1;
    }
    memcpy(q->table, p + 1, k);
    q->table[k] = '\0';
    const char *txt = close + 1;
    while (*txt == ' ')
        txt++;
    size_t m = strcspn(txt, "\r\n");
    if (q->qcap) {
        if (m >= q->qcap)
            m = q->qcap - 1;
        memcpy(q->query, txt, m);
        q->query[m] = '\0';
    }
    q->logged_us = t;
    q->t_us = t - (int64_t)(q->real_s * 1e6);
    return 1;
}
