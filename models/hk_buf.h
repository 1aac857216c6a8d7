/* hk_buf: a growable text buffer owned by its caller, for rendering reports
 * (SHOW AGENT STATUS, tables) without the core doing any I/O. */
#ifndef HK_BUF_H
#define HK_BUF_H

#include <stddef.h>
#include "hk_err.h"

typedef struct hk_buf {
    char *s;       /* NUL-terminated contents */
    size_t len;
    size_t cap;
    int oom;       /* set once an allocation failed; contents then truncated */
} hk_buf;

void hk_buf_init(hk_buf *b);
void hk_buf_free(hk_buf *b);
void hk_buf_reset(hk_buf *b);
void hk_buf_printf(hk_buf *b, const char *fmt, ...) HK_PRINTF(2, 3);
void hk_buf_put(hk_buf *b, const char *s, size_t n);
/* Room for n more bytes past the end, for the caller to write before hk_buf_commit(b, k) (k of
 * them kept): NULL when out of memory. */
char *hk_buf_room(hk_buf *b, size_t n);
void hk_buf_commit(hk_buf *b, size_t k);

#endif
