/* hk_statrd: whole texts of SHOW AGENT STATUS / SHOW STATUS read — one (hk_statread), or a
 * master's successive snapshots by the keys of the last one (hk_statrd_*), line by line
 * from a text or as a client decodes the rows (see hk_statread.h). */
#include <stdlib.h>
#include <string.h>
#include "hk_buf.h"
#include "hk_grow.h"
#include "hk_statread_int.h"

/* hk_statrd: the keys of the last text read whole, line by line (a master prints its rows in
 * one order), so the next text with the same keys is read without taking them apart again
 * (nor checking them for repeats: the same keys held none). A text that holds the first
 * lines only is read the same way: its keys are those a whole read would find. */
typedef struct trow {
    size_t off, len;             /* the key: keys[off..off+len) */
    akey a;                      /* a.n -1: not an agent row (read as any line) */
} trow;

struct hk_statrd {
    char *buf;                   /* the text's copy, kept */
    size_t cap;
    trow *row;                   /* per line; NULL while there is no such list */
    int nrow, caprow;
    hk_buf keys;
    int live;                    /* a snapshot read row by row (begin ... end) */
    int rc;                      /* ... so far: 0, -1 (err) or 1 (not the list's keys) */
    rd x;
    hk_status_file st;
    hk_err err;
};

hk_statrd *hk_statrd_new(void)
{
    hk_statrd *r = calloc(1, sizeof *r);
    if (r)
        hk_buf_init(&r->keys);
    return r;
}

/* A snapshot begun row by row and never ended (its answer broke off): what it held freed. */
static void abandon(hk_statrd *r)
{
    if (r->live)
        hk_sr_finish(&r->x, 1);
    r->live = 0;
}

void hk_statrd_free(hk_statrd *r)
{
    if (!r)
        return;
    abandon(r);
    free(r->buf);
    free(r->row);
    hk_buf_free(&r->keys);
    free(r);
}

static void forget(hk_statrd *r)
{
    free(r->row);
    r->row = NULL;
    r->nrow = r->caprow = 0;
    hk_buf_reset(&r->keys);
}

/* The line x just read into r's list: 0, or -1 (it was not KEY<TAB>VALUE: no list). */
static int note_line(hk_statrd *r, const rd *x)
{
    if (!x->kraw)
        return -1;
    if (HK_GROW(r->row, r->caprow, r->nrow + 1) < 0)
        return -1;
    r->row[r->nrow++] = (trow){.off = r->keys.len, .len = x->klen, .a = x->a};
    hk_buf_put(&r->keys, x->kraw, x->klen + 1); /* with its NUL: a key for messages */
    return r->keys.oom ? -1 : 0;
}

/* A value of the rows (n bytes) into v (cap bytes), trimmed as a whole read trims it: v's
 * start, or NULL when it is longer or holds a newline or a NUL (a whole read then). */
static char *value(const char *s, size_t n, char *v, size_t cap)
{
    if (n >= cap)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '\n' || s[i] == '\0')
            return NULL;
        v[i] = s[i];
    }
    char *b = v, *e = v + n;
    while (b < e && *b == ' ')
        b++;
    while (e > b && (e[-1] == ' ' || e[-1] == '\r'))
        e--;
    *e = 0;
    return b;
}

/* Line i of a text (len bytes at line, no newline) by r's list, into x: 0, -1 (x's err),
 * DUPLICATE, or 1 when its key is not the list's (the text is then read whole). The one
 * reading of a known line, for a text and for rows as a client decodes them. */
static int known_row(const hk_statrd *r, rd *x, int i, const char *line, size_t len)
{
    char tmp[512];               /* a value, or a line read as any line; longer: read whole */
    double d;
    const trow *t = i < r->nrow ? &r->row[i] : NULL;
    if (!t || len <= t->len || line[t->len] != '\t' || memcmp(line, r->keys.s + t->off, t->len))
        return 1;
    if (t->a.n < 0) {            /* not an agent row: read as any line */
        int ok = len < sizeof tmp && !memchr(line, '\n', len) && !memchr(line, '\0', len);
        if (ok) {
            memcpy(tmp, line, len);
            tmp[len] = 0;
        }
        return ok ? hk_sr_line(x, tmp, tmp + len) : 1;
    }
    if (t->a.p > 0 && t->a.name >= 0 && t->a.n < HK_STATREAD_HOSTS_MAX &&
        hk_sr_plain(line + t->len + 1, len - t->len - 1, &d) && d <= hk_sr_max(&t->a))
        return hk_sr_agent_number(x, &t->a, d); /* most rows: a count, read at once */
    char *v = value(line + t->len + 1, len - t->len - 1, tmp, sizeof tmp);
    return v ? hk_sr_agent_row(x, &t->a, r->keys.s + t->off, v) : 1;
}

/* One pass over the text (slow: every key by hash; r: by r's list of keys when it has one,
 * else making it). 0, -1 (err set), DUPLICATE, or 1 (r's list does not hold). */
static int read_text(const char *text, size_t len, const char *file, int slow, hk_statrd *r,
                     hk_status_file *out, hk_err *err)
{
    memset(out, 0, sizeof *out);
    out->layout = HK_LAYOUT_SPHINX2;
    rd x = {.s = out, .slow = slow, .file = file, .err = err};
    int known = r && r->row;
    char *buf = r && r->cap > len ? r->buf : malloc(len + 1);
    if (!buf)
        return hk_err_set(err, file, 0, 0, "out of memory");
    if (r && buf != r->buf) {
        free(r->buf);
        r->buf = buf;
        r->cap = len + 1;
    }
    memcpy(buf, text, len);
    buf[len] = 0;
    const char *nul = memchr(buf, '\0', len);
    if (slow)
        hk_sr_presize(&x, buf, len);
    int rc = 0, noting = r && !known;
    for (char *s = buf, *e; rc == 0 && s < buf + len; s = e + 1) {
        e = memchr(s, '\n', (size_t)(buf + len - s));
        if (!e)
            e = buf + len;
        *e = 0;
        x.line++;
        if (nul && nul < e)
            rc = hk_err_set(err, file, x.line, 1, "a NUL byte");
        else
            rc = known ? known_row(r, &x, x.line - 1, s, (size_t)(e - s))
                       : hk_sr_line(&x, s, e);
        if (rc == 0 && noting && note_line(r, &x) < 0)
            noting = 0;
    }
    if (!r)
        free(buf);
    rc = hk_sr_finish(&x, rc);
    if (r && !known && (rc != 0 || !noting))
        forget(r);               /* a list only of a text read whole, every line KEY<TAB>... */
    return rc;
}

int hk_statrd_read(hk_statrd *r, const char *text, size_t len, const char *file,
                   hk_status_file *out, hk_err *err)
{
    int rc = r && r->row ? read_text(text, len, file, 0, r, out, err) : 2;
    if (rc == 1)                 /* other keys: the list goes, and is made anew */
        forget(r);
    if (rc == 0 || rc == -1)
        return rc;
    rc = read_text(text, len, file, 0, r, out, err);
    return rc == DUPLICATE ? read_text(text, len, file, 1, NULL, out, err) : rc;
}

void hk_statrd_line(hk_statrd *r, const char *line, size_t len)
{
    if (!r->live || r->rc != 0)
        return;
    int i = r->x.line++;
    r->rc = known_row(r, &r->x, i, line, len);
    if (r->rc == DUPLICATE)
        r->rc = 1;
}

void hk_statrd_begin(hk_statrd *r, const char *file)
{
    abandon(r);
    r->live = r->row != NULL;
    r->rc = 0;
    r->st = (hk_status_file){.layout = HK_LAYOUT_SPHINX2};
    r->x = (rd){.s = &r->st, .file = file, .err = &r->err};
}

int hk_statrd_end(hk_statrd *r, const char *text, size_t len, hk_status_file *out,
                  hk_err *err)
{
    memset(out, 0, sizeof *out);
    if (!r->live)
        return hk_statrd_read(r, text, len, r->x.file, out, err);
    r->live = 0;
    int rc = hk_sr_finish(&r->x, r->rc);
    if (r->rc == 1) {            /* other keys: read whole (the list made anew) */
        forget(r);
        return hk_statrd_read(r, text, len, r->x.file, out, err);
    }
    if (rc < 0) {
        *err = r->err;
        return -1;
    }
    *out = r->st;
    return 0;
}

int hk_statread(const char *text, size_t len, const char *file, hk_status_file *out,
                hk_err *err)
{
    return hk_statrd_read(NULL, text, len, file, out, err);
}

