/* rl_sql: a SphinxQL connection on libuv (see rl_sql.h): the greeting and login here, each
 * answer read by hk_sqlp. */
#include "rl_sql.h"

#include <arpa/inet.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { S_CONNECTING, S_GREETING, S_LOGIN, S_READY, S_BUSY, S_BROKEN };

struct rl_sql {
    uv_tcp_t tcp;
    uv_connect_t creq;
    int state, phase, closing;
    hk_buf in;                   /* bytes received, not yet parsed from `off` */
    size_t off;
    /* the statement: waiting for the login, or in flight */
    char *sql;
    int has_q, keep;
    rl_sql_cb cb;
    void *ctx;
    hk_sqlp ans;                 /* the statement's answer being read */
    char peer[32];               /* searchd's address, for what is malformed */
    char msg[600];
};

#define RL_SQL_READ 65536      /* a read's room */

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
    rl_sql_res r = {.status = st, .warnings = c->ans.warnings, .rows = c->ans.rows,
                    .msg = msg ? msg : "", .tsv = c->ans.tsv.s ? c->ans.tsv.s : ""};
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
    hk_sqlp_begin(&c->ans, c->keep);
    return rc;
}

static void err_packet(rl_sql *c, const unsigned char *p, size_t n)
{
    hk_sqlp_err_text(p, n, c->msg, sizeof c->msg);
}

static void on_result(rl_sql *c, const unsigned char *p, size_t n)
{
    int rc = hk_sqlp_packet(&c->ans, p, n);
    if (rc == HK_SQLP_OK) {
        finish(c, RL_SQL_OK, NULL);
    } else if (rc == HK_SQLP_ERR) {
        snprintf(c->msg, sizeof c->msg, "%s", c->ans.msg);
        finish(c, RL_SQL_ERR, c->msg);
    } else if (rc == HK_SQLP_BAD) {
        char why[600];
        snprintf(why, sizeof why, "searchd %s: a malformed answer: %s", c->peer, c->ans.msg);
        broken(c, why);
    }
}

/* The greeting (any server version), then our login: protocol 4.1, no password. */
static void on_greeting(rl_sql *c, const unsigned char *p, size_t n)
{
    if (n > 0 && p[0] == 0xff) {
        err_packet(c, p, n);
        char why[600];
        snprintf(why, sizeof why, "searchd refused the connection: %.500s", c->msg);
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
            snprintf(why, sizeof why, "login refused: %.500s", c->msg);
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

/* Reads land at the end of c->in (64 KB of room): no copy between the socket and the parser. */
static void alloc_cb(uv_handle_t *h, size_t sz, uv_buf_t *b)
{
    rl_sql *c = h->data;
    (void)sz;
    char *room = hk_buf_room(&c->in, RL_SQL_READ);
    *b = uv_buf_init(room, room ? RL_SQL_READ : 0); /* 0 bytes: libuv says UV_ENOBUFS */
}

static void on_read(uv_stream_t *s, ssize_t n, const uv_buf_t *b)
{
    rl_sql *c = s->data;
    (void)b;                     /* it is c->in's end (alloc_cb) */
    if (n == UV_ENOBUFS || c->in.oom) {
        broken(c, "out of memory");
        return;
    }
    if (n < 0) {
        broken(c, n == UV_EOF ? "searchd closed the connection" : uv_strerror((int)n));
        return;
    }
    hk_buf_commit(&c->in, (size_t)n);
    while (!c->closing && c->state != S_BROKEN) {
        const unsigned char *p = (const unsigned char *)c->in.s + c->off;
        size_t plen, used;
        int k = hk_sqlp_split(p, c->in.len - c->off, &plen, &used);
        if (k < 0) {
            char why[120];
            snprintf(why, sizeof why, "searchd %s: a packet over 64 MB", c->peer);
            broken(c, why);
        }
        if (k <= 0)
            break;
        c->off += used;
        on_packet(c, p + 4, plen);
    }
    if (c->off > 0) {            /* what is parsed goes: the buffer holds a packet's part */
        memmove(c->in.s, c->in.s + c->off, c->in.len - c->off);
        c->in.len -= c->off;
        c->in.s[c->in.len] = '\0';
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
    hk_buf_init(&c->ans.tsv);
    snprintf(c->peer, sizeof c->peer, "%s:%d", inet_ntoa(to->sin_addr), ntohs(to->sin_port));
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

void rl_sql_rows_to(rl_sql *c, void (*fn)(void *ctx, const char *line, size_t len), void *ctx)
{
    c->ans.row = fn;
    c->ans.row_ctx = ctx;
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
    hk_sqlp_free(&c->ans);
    free(c->sql);
    free(c);
}

void rl_sql_close(rl_sql *c)
{
    if (c->closing)
        return;
    c->closing = 1;              /* first: the callback below may close it again */
    snprintf(c->msg, sizeof c->msg, "closed");
    finish(c, RL_SQL_IO, c->msg);
    uv_close((uv_handle_t *)&c->tcp, on_closed);
}
