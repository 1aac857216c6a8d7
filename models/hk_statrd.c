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
enum { K_LINE, K_WINDOW, K_HOST, K_OTHER }; /* how a known row is read (trow.kind) */

typedef struct trow {             /* 16 bytes: 45,000 of them are read a snapshot */
    uint32_t off;                /* the key: keys[off..off+len) */
    uint16_t len;
    int8_t kind;                 /* K_LINE: as any line; K_WINDOW: a window's count (read at
                                    once when it is a plain number); K_HOST: a row that only
                                    notes its host; K_OTHER: by hk_sr_agent_row */
    int8_t p, name;              /* the key taken apart (akey); n -1: not an agent row */
    int32_t n;
} trow;

static akey akey_of(const trow *t)
{
    return (akey){.n = t->n, .p = t->p, .name = t->name};
}

struct hk_statrd {
    char *buf;                   /* the text's copy, kept */
    size_t cap;
    trow *row;                   /* per line; NULL while there is no such list */
    int nrow, caprow;
    long hosts;                  /* the list's hosts: its highest host number + 1 */
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
    r->hosts = 0;
    hk_buf_reset(&r->keys);
}

/* How a row of key a is read again (hk_sr_agent_row's cases: a plain row past the first five,
 * one not known and a window not read only note their host). */
static int kind_of(const akey *a)
{
    if (a->n < 0)
        return K_LINE;
    if (a->n >= HK_STATREAD_HOSTS_MAX)
        return K_OTHER;
    if (a->p > 0 && a->name >= 0)
        return K_WINDOW;
    return a->p < 0 || (a->p == 0 && (a->name < 0 || a->name >= 5)) ? K_HOST : K_OTHER;
}

/* The line x just read into r's list: 0, or -1 (it was not KEY<TAB>VALUE: no list). */
static int note_line(hk_statrd *r, const rd *x)
{
    if (!x->kraw || x->klen > UINT16_MAX || r->keys.len + x->klen >= UINT32_MAX)
        return -1;
    if (HK_GROW(r->row, r->caprow, r->nrow + 1) < 0)
        return -1;
    r->row[r->nrow++] = (trow){.off = (uint32_t)r->keys.len, .len = (uint16_t)x->klen,
                               .kind = (int8_t)kind_of(&x->a), .p = (int8_t)x->a.p,
                               .name = (int8_t)x->a.name, .n = (int32_t)x->a.n};
    if (x->a.n >= 0 && x->a.n < HK_STATREAD_HOSTS_MAX && x->a.n >= r->hosts)
        r->hosts = x->a.n + 1;
    hk_buf_put(&r->keys, x->kraw, x->klen + 1); /* with its NUL: a key for messages */
    return r->keys.oom ? -1 : 0;
}

#define VALUE_MAX 512            /* a known row's value, or a line read as any line: longer,
                                    the text is read whole */

/* The n bytes at s a value or line a known row can hold (under VALUE_MAX bytes, no newline,
 * no NUL). */
static int value_ok(const char *s, size_t n)
{
    if (n >= VALUE_MAX)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (s[i] == '\n' || s[i] == '\0')
            return 0;
    return 1;
}

/* A value of the rows (n bytes) into v (cap bytes), trimmed as a whole read trims it: v's
 * start, or NULL when it is longer or holds a newline or a NUL (a whole read then). */
static char *value(const char *s, size_t n, char *v, size_t cap)
{
    if (n >= cap || !value_ok(s, n))
        return NULL;
    memcpy(v, s, n);
    char *b = v, *e = v + n;
    while (b < e && *b == ' ')
        b++;
    while (e > b && (e[-1] == ' ' || e[-1] == '\r'))
        e--;
    *e = 0;
    return b;
}

/* The n bytes at a and b alike (a key of the list: short), in overlapping 8- and 4-byte
 * words, every read within the n bytes: memcmp's call cost as much as the rest of a row. */
static int same(const char *a, const char *b, size_t n)
{
    uint64_t x, y;
    uint32_t u, v;
    if (n >= 8) {
        for (size_t i = 0; i + 8 < n; i += 8) {
            memcpy(&x, a + i, 8);
            memcpy(&y, b + i, 8);
            if (x != y)
                return 0;
        }
        memcpy(&x, a + n - 8, 8);
        memcpy(&y, b + n - 8, 8);
        return x == y;
    }
    if (n >= 4) {
        memcpy(&u, a, 4);
        memcpy(&v, b, 4);
        int head = u == v;
        memcpy(&u, a + n - 4, 4);
        memcpy(&v, b + n - 4, 4);
        return head && u == v;
    }
    for (size_t i = 0; i < n; i++)
        if (a[i] != b[i])
            return 0;
    return 1;
}

/* The n bytes at s a count of at most 15 digits (most window rows): 1 and *d, else 0 (it
 * may still be a number: hk_sr_plain reads the rest). */
static int count_of(const char *s, size_t n, double *d)
{
    uint64_t u = 0;
    if (n == 0 || n > 15)
        return 0;
    for (size_t i = 0; i < n; i++) {
        unsigned c = (unsigned char)s[i] - (unsigned)'0';
        if (c > 9)
            return 0;
        u = u * 10 + c;
    }
    *d = (double)u;
    return 1;
}

/* Line i of a text (len bytes at line, no newline) by r's list, into x: 0, -1 (x's err),
 * DUPLICATE, or 1 when its key is not the list's (the text is then read whole). The one
 * reading of a known line, for a text and for rows as a client decodes them. */
static int known_row(const hk_statrd *r, rd *x, int i, const char *line, size_t len)
{
    char tmp[VALUE_MAX];
    double d;
    const trow *t = i < r->nrow ? &r->row[i] : NULL;
    if (!t || len <= t->len || line[t->len] != '\t' || !same(line, r->keys.s + t->off, t->len))
        return 1;
    const char *val = line + t->len + 1;
    size_t vn = len - t->len - 1;
    akey a = akey_of(t);
    if (t->kind == K_WINDOW && count_of(val, vn, &d) && d <= hk_sr_max(&a))
        return hk_sr_agent_number(x, &a, d);
    if (t->kind == K_HOST)
        return value_ok(val, vn) ? hk_sr_host_row(x, a.n) : 1;
    if (a.n < 0) {               /* not an agent row: read as any line */
        int ok = value_ok(line, len);
        if (ok) {
            memcpy(tmp, line, len);
            tmp[len] = 0;
        }
        return ok ? hk_sr_line(x, tmp, tmp + len) : 1;
    }
    if (a.p > 0 && a.name >= 0 && a.n < HK_STATREAD_HOSTS_MAX &&
        hk_sr_plain(val, vn, &d) && d <= hk_sr_max(&a))
        return hk_sr_agent_number(x, &a, d); /* a number not a count: read at once */
    char *v = value(line + t->len + 1, len - t->len - 1, tmp, sizeof tmp);
    return v ? hk_sr_agent_row(x, &a, r->keys.s + t->off, v) : 1;
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
    if (known)
        hk_sr_reserve(&x, r->hosts); /* out of memory: said by the first row that wants it */
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
    if (r->live)
        hk_sr_reserve(&r->x, r->hosts); /* out of memory: said by the first row that wants it */
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

