/* hk_buf: growable text buffer. */
#include "hk_buf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void hk_buf_init(hk_buf *b) { memset(b, 0, sizeof *b); }

void hk_buf_free(hk_buf *b)
{
    free(b->s);
    hk_buf_init(b);
}

void hk_buf_reset(hk_buf *b)
{
    b->len = 0;
    if (b->s)
        b->s[0] = '\0';
}

static int grow(hk_buf *b, size_t need)
{
    if (b->oom)
        return -1;
    if (b->len + need + 1 <= b->cap)
        return 0;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + need + 1)
        cap *= 2;
    char *s = realloc(b->s, cap);
    if (!s) {
        b->oom = 1;
        return -1;
    }
    b->s = s;
    b->cap = cap;
    return 0;
}

void hk_buf_put(hk_buf *b, const char *s, size_t n)
{
    if (grow(b, n) < 0)
        return;
    if (n) /* an empty buffer's s may be NULL: memcpy must not see it */
        memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = '\0';
}

char *hk_buf_room(hk_buf *b, size_t n)
{
    return grow(b, n) < 0 ? NULL : b->s + b->len;
}

void hk_buf_commit(hk_buf *b, size_t k)
{
    b->len += k;
    b->s[b->len] = '\0';
}

void hk_buf_printf(hk_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || grow(b, (size_t)n) < 0)
        return;
    va_start(ap, fmt);
    vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}
