/* hk_err: error and warning values returned by every parser in the core.
 * An error names the input (file or "<string>"), a 1-based line and column
 * (or a byte offset when line is 0) and what was expected. Nothing in the
 * core prints: callers format these with hk_err_str(). */
#ifndef HK_ERR_H
#define HK_ERR_H

#include <stddef.h>

#define HK_ERR_MSG 320
#define HK_WARN_MAX 32

typedef struct hk_err {
    char file[256];
    int line;      /* 1-based; 0 = position is a byte offset */
    int col;       /* 1-based column, or byte offset when line == 0 (line 0, col 0: the whole
                      file, no position) */
    char msg[HK_ERR_MSG];
} hk_err;

typedef struct hk_warns {
    int n;         /* warnings kept (at most HK_WARN_MAX) */
    int dropped;   /* warnings beyond HK_WARN_MAX */
    hk_err w[HK_WARN_MAX];
} hk_warns;

#if defined(__GNUC__)
#define HK_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define HK_PRINTF(a, b)
#endif

/* Fill *e (if not NULL); always returns -1 so callers can `return hk_err_set(...)`. */
int hk_err_set(hk_err *e, const char *file, int line, int col, const char *fmt, ...) HK_PRINTF(5, 6);
void hk_warn_add(hk_warns *w, const char *file, int line, int col, const char *fmt, ...) HK_PRINTF(5, 6);
/* msg (n bytes, the caller's) = the formatted text; always returns -1, for the functions that
 * report into a caller's buffer: `return hk_err_msg(msg, n, ...)`. */
int hk_err_msg(char *msg, int n, const char *fmt, ...) HK_PRINTF(3, 4);
/* Put prefix before e's message (the end is cut if it does not fit). */
void hk_err_prefix(hk_err *e, const char *prefix);
/* "file:line:col: msg" into a caller buffer; returns buf. */
const char *hk_err_str(const hk_err *e, char *buf, size_t n);

/* What an engine has to say as it runs (a port it listens on, a signal it stops for), handed
 * to its front end a line at a time: engines never print, and never name a program. */
typedef struct hk_say {
    void (*fn)(void *user, const char *line);   /* NULL: nothing is said */
    void *user;
} hk_say;

/* The formatted line to s->fn, if any. */
void hk_sayf(const hk_say *s, const char *fmt, ...) HK_PRINTF(2, 3);

#endif
