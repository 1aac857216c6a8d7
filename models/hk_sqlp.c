/* hk_sqlp: a SphinxQL answer read packet by packet (see hk_sqlp.h). */
#include "hk_sqlp.h"

#include <stdio.h>
#include <string.h>

enum { P_FIRST, P_COLUMNS, P_ROWS };

int hk_sqlp_split(const uint8_t *buf, size_t len, size_t *n, size_t *used)
{
    if (len < 4)
        return 0;
    size_t k = buf[0] | (size_t)buf[1] << 8 | (size_t)buf[2] << 16;
    if (k > HK_SQLP_MAX)
        return -1;
    if (len - 4 < k)
        return 0;
    *n = k;
    *used = k + 4;
    return 1;
}

void hk_sqlp_begin(hk_sqlp *p, int keep)
{
    p->phase = P_FIRST;
    p->keep = keep;
    p->ncols = p->rows = 0;
    p->warnings = 0;
    p->off = 0;
    p->msg[0] = 0;
    hk_buf_reset(&p->tsv);
}

void hk_sqlp_free(hk_sqlp *p) { hk_buf_free(&p->tsv); }

/* A length-encoded integer at b[*i] (n bytes in all); -1 past the end. 0xfb (NULL) reads 0. */
static long long lenenc(const uint8_t *b, size_t n, size_t *i)
{
    if (*i >= n)
        return -1;
    unsigned c = b[(*i)++];
    int k = c < 0xfb ? 0 : c == 0xfb ? 0 : c == 0xfc ? 2 : c == 0xfd ? 3 : 8;
    if (c == 0xff || n - *i < (size_t)k)
        return -1;
    unsigned long long v = k ? 0 : c < 0xfb ? c : 0;
    for (int j = 0; j < k; j++)
        v |= (unsigned long long)b[*i + (size_t)j] << (8 * j);
    *i += (size_t)k;
    return v > (unsigned long long)INT64_MAX ? -1 : (long long)v;
}

static int bad(hk_sqlp *p, size_t at, const char *what)
{
    snprintf(p->msg, sizeof p->msg, "byte %zu of the answer: expected %s", p->off + 4 + at,
             what);
    return HK_SQLP_BAD;
}

void hk_sqlp_err_text(const uint8_t *b, size_t n, char *out, size_t cap)
{
    size_t at = n > 3 && b[3] == '#' ? 9 : 3;  /* 0xff, the code, then '#' and the SQL state */
    if (at > n)
        at = n;
    size_t len = n - at < cap - 1 ? n - at : cap - 1;
    memcpy(out, b + at, len);
    out[len] = 0;
}

/* A row's columns, tab-separated, written at out (room for n + 4 * ncols bytes: a column's
 * length takes at least a byte, NULL's one byte becomes four): the bytes written, or -1
 * (p->msg says why). */
static long long columns(hk_sqlp *p, const uint8_t *b, size_t n, char *out)
{
    size_t i = 0, w = 0;
    for (uint64_t c = 0; c < p->ncols; c++) {
        size_t at = i;           /* the column's length: where a bad one is said to be */
        int null = i < n && b[i] == 0xfb;
        long long len = lenenc(b, n, &i);
        if (len < 0 || (size_t)len > n - i) {
            bad(p, at, "a column of the row within its packet");
            return -1;
        }
        if (c && out)
            out[w++] = '\t';
        if (out)
            memcpy(out + w, null ? "NULL" : (const char *)b + i, null ? 4 : (size_t)len);
        w += null ? 4 : (size_t)len;
        i += (size_t)len;
    }
    if (i != n) {
        bad(p, i, "the row's end (more bytes than its columns)");
        return -1;
    }
    if (out)
        out[w++] = '\n';
    return (long long)w;
}

/* n bytes from s to d, for the short columns of a status's rows: overlapping 8- and 4-byte
 * moves, every read and write within the n bytes (an inlined memcpy here was a `rep movsq`,
 * whose start-up took a third of the decoding's time). */
static void copy_short(char *d, const uint8_t *s, size_t n)
{
    if (n >= 8) {
        for (size_t i = 0; i + 8 < n; i += 8)
            memcpy(d + i, s + i, 8);
        memcpy(d + n - 8, s + n - 8, 8);
    } else if (n >= 4) {
        memcpy(d, s, 4);
        memcpy(d + n - 4, s + n - 4, 4);
    } else if (n > 0) {
        d[0] = (char)s[0];
        d[n / 2] = (char)s[n / 2];
        d[n - 1] = (char)s[n - 1];
    }
}

/* The common row of a status, two short columns (each under 251 bytes: a one-byte length;
 * neither NULL), written at out as columns() writes it: the bytes written, or -1 when the row
 * is not one such (columns() reads it then). */
static long long pair(const uint8_t *b, size_t n, char *out)
{
    if (n < 2 || b[0] >= 0xfb || (size_t)b[0] + 1 >= n)
        return -1;
    size_t k = b[0], v = b[k + 1];
    if (v >= 0xfb || k + v + 2 != n)
        return -1;
    copy_short(out, b + 1, k);
    out[k] = '\t';
    copy_short(out + k + 1, b + k + 2, v);
    out[k + v + 1] = '\n';
    return (long long)(k + v + 2);
}

static int row(hk_sqlp *p, const uint8_t *b, size_t n)
{
    int fits = p->ncols <= n;  /* more columns than bytes: malformed, said by columns() */
    char *out = p->keep && fits ? hk_buf_room(&p->tsv, n + 4 * (size_t)p->ncols + 1) : NULL;
    if (p->keep && fits && !out)
        return bad(p, 0, "rows of at most 64 MB in all");
    long long w = out && p->ncols == 2 ? pair(b, n, out) : -1;
    if (w < 0 && (w = columns(p, b, n, out)) < 0)
        return HK_SQLP_BAD;
    p->rows++;
    if (p->keep)
        hk_buf_commit(&p->tsv, (size_t)w);
    if (p->keep && p->row)
        p->row(p->row_ctx, p->tsv.s + p->tsv.len - (size_t)w, (size_t)w - 1);
    if (p->tsv.oom || p->tsv.len > HK_SQLP_MAX)
        return bad(p, 0, "rows of at most 64 MB in all");
    return HK_SQLP_MORE;
}

static int first(hk_sqlp *p, const uint8_t *b, size_t n)
{
    size_t i = 0;
    long long k = lenenc(b, n, &i);
    if (k < 0)
        return bad(p, 0, "OK, ERR or a column count");
    if (k > 0) {
        p->ncols = (uint64_t)k;
        p->phase = P_COLUMNS;
        return i == n ? HK_SQLP_MORE : bad(p, i, "the column count alone");
    }
    /* OK: affected rows, insert id, status flags (2), warnings (2) */
    if (lenenc(b, n, &i) < 0 || lenenc(b, n, &i) < 0 || n - i < 4)
        return bad(p, i, "an OK packet's affected rows, id, status and warnings");
    p->warnings = b[i + 2] | b[i + 3] << 8;
    return HK_SQLP_OK;
}

int hk_sqlp_packet(hk_sqlp *p, const uint8_t *b, size_t n)
{
    int rc, eof = n > 0 && n < 9 && b[0] == 0xfe;
    if (n > 0 && b[0] == 0xff && p->phase != P_COLUMNS) {
        hk_sqlp_err_text(b, n, p->msg, sizeof p->msg);
        rc = HK_SQLP_ERR;
    } else if (p->phase == P_FIRST) {
        rc = first(p, b, n);
    } else if (p->phase == P_COLUMNS) {
        if (eof)
            p->phase = P_ROWS;
        rc = HK_SQLP_MORE;
    } else if (eof) {
        p->warnings = n >= 3 ? b[1] | b[2] << 8 : 0;
        rc = HK_SQLP_OK;
    } else {
        rc = row(p, b, n);
    }
    p->off += n + 4;
    return rc;
}
