/* hk_err: filling and formatting error/warning values (no printing). */
#include "hk_err.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static void fill(hk_err *e, const char *file, int line, int col, const char *fmt, va_list ap)
{
    snprintf(e->file, sizeof e->file, "%s", file ? file : "<string>");
    e->line = line;
    e->col = col;
    vsnprintf(e->msg, sizeof e->msg, fmt, ap);
}

int hk_err_set(hk_err *e, const char *file, int line, int col, const char *fmt, ...)
{
    if (!e)
        return -1;
    va_list ap;
    va_start(ap, fmt);
    fill(e, file, line, col, fmt, ap);
    va_end(ap);
    return -1;
}

void hk_warn_add(hk_warns *w, const char *file, int line, int col, const char *fmt, ...)
{
    if (!w)
        return;
    if (w->n >= HK_WARN_MAX) {
        w->dropped++;
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    fill(&w->w[w->n++], file, line, col, fmt, ap);
    va_end(ap);
}

const char *hk_err_str(const hk_err *e, char *buf, size_t n)
{
    if (e->line > 0)
        snprintf(buf, n, "%s:%d:%d: %s", e->file, e->line, e->col, e->msg);
    else if (e->col > 0)
        snprintf(buf, n, "%s: byte %d: %s", e->file, e->col, e->msg);
    else if (!e->file[0]) /* about no file: what went wrong, and that is all */
        snprintf(buf, n, "%s", e->msg);
    else /* about the whole file (cannot open it, a folder that is in use): no position */
        snprintf(buf, n, "%s: %s", e->file, e->msg);
    return buf;
}

void hk_err_prefix(hk_err *e, const char *prefix)
{
    char m[HK_ERR_MSG];
    int n = (int)strlen(prefix);
    snprintf(m, sizeof m, "%.*s%.*s", n, prefix, (int)(sizeof m) - 1 - n > 0 ?
             (int)(sizeof m) - 1 - n : 0, e->msg);
    memcpy(e->msg, m, sizeof m);
}

int hk_err_msg(char *msg, int n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, n > 0 ? (size_t)n : 0, fmt, ap);
    va_end(ap);
    return -1;
}

void hk_sayf(const hk_say *s, const char *fmt, ...)
{
    char line[1024];
    if (!s || !s->fn)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    s->fn(s->user, line);
}
