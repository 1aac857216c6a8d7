/* rl_sql: a SphinxQL connection on libuv (see rl_sql.h). Packets are a 3-byte length, a
 * sequence byte and the payload; a result set is a column count, the columns' definitions up
 * to an EOF packet, then the rows up to an EOF (its warning count) or an ERR. */
#include "rl_sql.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { S_CONNECTING, S_GREETING, S_LOGIN, S_READY, S_BUSY, S_BROKEN };
enum { P_FIRST, P_COLUMNS, P_ROWS };

struct rl_sql {
    uv_tcp_t tcp;
    uv_connect_t creq;
    int state, phase, closing;
    hk_buf in;                   /* bytes received, not yet parsed from `off` */
    size_t off;
    char rbuf[65536];
    /* the statement: waiting for the login, or in flight */
    char *sql;
    int has_q, keep;
    rl_sql_cb cb;
    void *ctx;
    unsigned long long ncols, rows;
    int warnings;
    hk_buf tsv;
    char msg[512];
};

typedef struct wreq { uv_write_t req; size_t len; char data[]; } wreq;

static void on_written(uv_write_t *r, int status)
{
    (void)status;                /* a failed write shows up as a read error */
    free(r->data);
}

/* One packet: sequence seq, payload p[0..n). */
static int send_packet(rl_sql *c, int seq, const char *p, size_t n)
{
    wreq *w = malloc(sizeof *w + n + 4);
    if (!w)
        return -1;
    w->data[0] = (char)(n & 0xff);
    w->data[1] = (char)((n >> 8) & 0xff);
    w->data[2] = (char)((n >> 16) & 0xff);
    w->data[3] = (char)seq;
    memcpy(w->data + 4, p, n);
    w->req.data = w;
    uv_buf_t b = uv_buf_init(w->data, (unsigned)(n + 4));
    if (uv_write(&w->req, (uv_stream_t *)&c->tcp, &b, 1, on_written) < 0) {
        free(w);
        return -1;
    }
    return 0;
}

/* The statement answered (or not): back to ready, then the callback. */
static void finish(rl_sql *c, rl_sql_status st, const char *msg)
{
    if (!c->has_q)
        return;
    c->has_q = 0;
    if (c->state == S_BUSY)
        c->state = S_READY;
    rl_sql_res r = {st, c->warnings, c->rows, msg ? msg : "", c->tsv.s ? c->tsv.s : ""};
    free(c->sql);
    c->sql = NULL;
    c->cb(c, c->ctx, &r);
}

static void broken(rl_sql *c, const char *why)
{
    if (c->state == S_BROKEN)
        return;
    c->state = S_BROKEN;
    size_t n = strlen(why);
    if (n >= sizeof c->msg)
        n = sizeof c->msg - 1;
    memmove(c->msg, why, n);
    c->msg[n] = 0;
    uv_read_stop((uv_stream_t *)&c->tcp);
    finish(c, RL_SQL_IO, c->msg);
}

static int send_query(rl_sql *c)
{
    size_t n = strlen(c->sql);
    char *p = malloc(n + 1);
    if (!p)
        return -1;
    p[0] = 3;                    /* COM_QUERY */
    memcpy(p + 1, c->sql, n);
    int rc = send_packet(c, 0, p, n + 1);
    free(p);
    c->state = S_BUSY;
    c->phase = P_FIRST;
    c->rows = c->ncols = 0;
    c->warnings = 0;
    hk_buf_reset(&c->tsv);
    return rc;
}

/* A length-encoded integer at *p (end e); -1 past the end. 0xfb (NULL) reads as 0. */
static long long lenenc(const unsigned char **p, const unsigned char *e)
{
    if (*p >= e)
        return -1;
    unsigned b = *(*p)++;
    int k = b < 0xfb ? 0 : b == 0xfb ? 0 : b == 0xfc ? 2 : b == 0xfd ? 3 : 8;
    if (k == 0)
        return b < 0xfb ? (long long)b : 0;
    if (e - *p < k)
        return -1;
    unsigned long long v = 0;
    for (int i = 0; i < k; i++)
        v |= (unsigned long long)(*p)[i] << (8 * i);
    *p += k;
    return v > (unsigned long long)INT64_MAX ? -1 : (long long)v;
}

static void err_packet(rl_sql *c, const unsigned char *p, size_t n)
{
    size_t at = n > 3 && p[3] == '#' ? 9 : 3;     /* code, then '#' and the SQL state */
    if (at > n)
        at = n;
    snprintf(c->msg, sizeof c->msg, "%.*s", (int)(n - at), (const char *)p + at);
}

/* A row's cells as tab-separated text. */
static int keep_row(rl_sql *c, const unsigned char *p, size_t n)
{
    const unsigned char *e = p + n;
    for (unsigned long long i = 0; i < c->ncols; i++) {
        int null = p < e && *p == 0xfb;
        long long len = lenenc(&p, e);
        if (len < 0 || len > e - p)
            return -1;
        if (i)
            hk_buf_put(&c->tsv, "\t", 1);
        hk_buf_put(&c->tsv, null ? "NULL" : (const char *)p, null ? 4 : (size_t)len);
        p += len;
    }
    hk_buf_put(&c->tsv, "\n", 1);
    return c->tsv.oom || c->tsv.len > RL_SQL_REPLY_MAX ? -1 : 0;
}

static void on_result(rl_sql *c, const unsigned char *p, size_t n)
{
    int eof = n > 0 && n < 9 && p[0] == 0xfe;
    if (c->phase != P_COLUMNS && n > 0 && p[0] == 0xff) {
        err_packet(c, p, n);
        finish(c, RL_SQL_ERR, c->msg);
    } else if (c->phase == P_FIRST) {
        const unsigned char *q = p;
        long long k = n ? lenenc(&q, p + n) : -1;
        if (k == 0) {            /* OK: affected rows, insert id, status, warnings */
            if (lenenc(&q, p + n) >= 0 && lenenc(&q, p + n) >= 0 && p + n - q >= 4)
                c->warnings = q[2] | q[3] << 8;
            finish(c, RL_SQL_OK, NULL);
        } else if (k < 0) {
            broken(c, "a malformed result set header");
        } else {
            c->ncols = (unsigned long long)k;
            c->phase = P_COLUMNS;
        }
    } else if (c->phase == P_COLUMNS) {
        if (eof)
            c->phase = P_ROWS;
    } else if (eof) {
        c->warnings = n >= 3 ? p[1] | p[2] << 8 : 0;
        finish(c, RL_SQL_OK, NULL);
    } else {
        c->rows++;
        if (c->keep && keep_row(c, p, n) < 0)
            broken(c, "a malformed row, or rows over 64 MB");
    }
}

/* The greeting (any server version), then our login: protocol 4.1, no password. */
static void on_greeting(rl_sql *c, const unsigned char *p, size_t n)
{
    if (n > 0 && p[0] == 0xff) {
        err_packet(c, p, n);
        char why[600];
        snprintf(why, sizeof why, "searchd refused the connection: %s", c->msg);
        broken(c, why);
        return;
    }
    unsigned char login[32 + 8] = {0};
    uint32_t caps = 0x0001 | 0x0200 | 0x8000;   /* long password, protocol 4.1, secure auth */
    for (int i = 0; i < 4; i++)
        login[i] = (unsigned char)(caps >> (8 * i));
    login[6] = 0;                /* max packet: 16 MB */
    login[7] = 1;
    login[8] = 33;               /* utf8 */
    memcpy(login + 32, "hk", 3); /* user "hk", then an empty auth response */
    login[35] = 0;
    c->state = S_LOGIN;
    if (send_packet(c, 1, (const char *)login, 36) < 0)
        broken(c, "out of memory");
}

static void on_packet(rl_sql *c, const unsigned char *p, size_t n)
{
    if (c->state == S_GREETING) {
        on_greeting(c, p, n);
    } else if (c->state == S_LOGIN) {
        if (n > 0 && p[0] != 0) {
            err_packet(c, p, n);
            char why[600];
            snprintf(why, sizeof why, "login refused: %s", c->msg);
            broken(c, why);
            return;
        }
        c->state = S_READY;
        if (c->has_q && send_query(c) < 0)
            broken(c, "out of memory");
    } else if (c->state == S_BUSY) {
        on_result(c, p, n);
    } else {
        broken(c, "a packet nobody asked for");
    }
}

static void alloc_cb(uv_handle_t *h, size_t sz, uv_buf_t *b)
{
    rl_sql *c = h->data;
    (void)sz;
    *b = uv_buf_init(c->rbuf, sizeof c->rbuf);
}

static void on_read(uv_stream_t *s, ssize_t n, const uv_buf_t *b)
{
    rl_sql *c = s->data;
    if (n < 0) {
        broken(c, n == UV_EOF ? "searchd closed the connection" : uv_strerror((int)n));
        return;
    }
    hk_buf_put(&c->in, b->base, (size_t)n);
    if (c->in.oom || c->in.len - c->off > RL_SQL_REPLY_MAX + 16) {
        broken(c, "a reply over 64 MB");
        return;
    }
    while (!c->closing && c->state != S_BROKEN && c->in.len - c->off >= 4) {
        const unsigned char *p = (const unsigned char *)c->in.s + c->off;
        size_t plen = p[0] | (size_t)p[1] << 8 | (size_t)p[2] << 16;
        if (c->in.len - c->off < plen + 4)
            break;
        c->off += plen + 4;
        on_packet(c, p + 4, plen);
    }
    if (c->off == c->in.len) {   /* everything parsed: start the buffer over */
        hk_buf_reset(&c->in);
        c->off = 0;
    }
}

static void on_connect(uv_connect_t *r, int status)
{
    rl_sql *c = r->data;
    if (c->closing)
        return;
    if (status < 0) {
        char why[128];
        snprintf(why, sizeof why, "connect: %s", uv_strerror(status));
        broken(c, why);
        return;
    }
    c->state = S_GREETING;
    if (uv_read_start((uv_stream_t *)&c->tcp, alloc_cb, on_read) < 0)
        broken(c, "cannot read");
}

rl_sql *rl_sql_new(uv_loop_t *loop, const struct sockaddr_in *to)
{
    rl_sql *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    hk_buf_init(&c->in);
    hk_buf_init(&c->tsv);
    uv_tcp_init(loop, &c->tcp);
    c->tcp.data = c;
    c->creq.data = c;
    uv_tcp_nodelay(&c->tcp, 1);
    if (uv_tcp_connect(&c->creq, &c->tcp, (const struct sockaddr *)to, on_connect) < 0)
        c->state = S_BROKEN;
    return c;
}

int rl_sql_usable(const rl_sql *c)
{
    return !c->closing && !c->has_q && c->state != S_BROKEN;
}

int rl_sql_query(rl_sql *c, const char *sql, int keep_rows, rl_sql_cb cb, void *ctx)
{
    if (!rl_sql_usable(c) || !(c->sql = strdup(sql)))
        return -1;
    c->has_q = 1;
    c->keep = keep_rows;
    c->cb = cb;
    c->ctx = ctx;
    if (c->state == S_READY && send_query(c) < 0) {
        c->has_q = 0;
        free(c->sql);
        c->sql = NULL;
        return -1;
    }
    return 0;
}

static void on_closed(uv_handle_t *h)
{
    rl_sql *c = h->data;
    hk_buf_free(&c->in);
    hk_buf_free(&c->tsv);
    free(c->sql);
    free(c);
}

void rl_sql_close(rl_sql *c)
{
    if (c->closing)
        return;
    snprintf(c->msg, sizeof c->msg, "closed");
    finish(c, RL_SQL_IO, c->msg);
    c->closing = 1;
    uv_close((uv_handle_t *)&c->tcp, on_closed);
}
