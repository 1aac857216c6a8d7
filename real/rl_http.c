/* rl_http: one-answer HTTP/1.1 connections on libuv, parsed by libhttp-parser. */
#include "rl_http.h"

#include <http_parser.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct rl_hconn {
    uv_tcp_t tcp;
    uv_timer_t timer;            /* RL_HTTP_IDLE_MS for the request, then for the peer to go */
    uv_write_t wr;
    uv_shutdown_t sd;
    rl_http *h;
    http_parser p;
    char url[RL_HTTP_REQ_MAX + 1];
    char body[RL_HTTP_REQ_MAX + 1];
    size_t url_len, body_len, got, discarded;
    int done, closing, handles;  /* handles: of tcp and timer, not yet closed */
    hk_buf out;
    struct rl_hconn *next, **pprev;
} hconn;

static void on_closed(uv_handle_t *x)
{
    hconn *c = x->data;
    if (--c->handles > 0)
        return;
    c->h->nconns--;
    hk_buf_free(&c->out);
    free(c);
}

static void conn_close(hconn *c)
{
    if (c->closing)
        return;
    c->closing = 1;
    c->h->nopen--;
    if (c->pprev) {
        *c->pprev = c->next;
        if (c->next)
            c->next->pprev = c->pprev;
        c->pprev = NULL;
    }
    uv_close((uv_handle_t *)&c->tcp, on_closed);
    uv_close((uv_handle_t *)&c->timer, on_closed);
}

static void on_timeout(uv_timer_t *t)
{
    conn_close(t->data);
}

static void on_written(uv_write_t *w, int status)
{
    if (status < 0)
        conn_close(w->data);
}

/* The answer is out: the peer reads it, sees our end and closes; on_read then closes ours. */
static void on_shut(uv_shutdown_t *sd, int status)
{
    if (status < 0)
        conn_close(sd->data);
}

static const char *reason(int code)
{
    switch (code) {
    case 200: return "OK";
    case 201: return "Created";
    case 204: return "No Content";
    case 400: return "Bad Request";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 409: return "Conflict";
    case 413: return "Content Too Large";
    default: return "Internal Server Error";
    }
}

/* The whole answer into c->out, written, then our side shut; reading goes on (dropping). */
static void answer(hconn *c, int code, const char *ctype, const hk_buf *body, int head)
{
    c->done = 1;
    c->h->requests++;
    hk_buf_printf(&c->out, "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n"
                  "Connection: close\r\n\r\n", code, reason(code), ctype, body->len);
    if (!head)
        hk_buf_put(&c->out, body->s, body->len);
    if (c->out.oom) {
        conn_close(c);
        return;
    }
    uv_buf_t b = uv_buf_init(c->out.s, (unsigned)c->out.len);
    c->wr.data = c;
    c->sd.data = c;
    if (uv_write(&c->wr, (uv_stream_t *)&c->tcp, &b, 1, on_written) < 0 ||
        uv_shutdown(&c->sd, (uv_stream_t *)&c->tcp, on_shut) < 0)
        conn_close(c);
    else
        uv_timer_start(&c->timer, on_timeout, RL_HTTP_IDLE_MS, 0);
}

static void answer_text(hconn *c, int code, const char *text)
{
    hk_buf b;
    hk_buf_init(&b);
    hk_buf_printf(&b, "%s\n", text);
    answer(c, code, "text/plain; charset=utf-8", &b, 0);
    hk_buf_free(&b);
}

static int on_url(http_parser *p, const char *at, size_t n)
{
    hconn *c = p->data;
    if (c->url_len + n > RL_HTTP_REQ_MAX)
        return 1;
    memcpy(c->url + c->url_len, at, n);
    c->url_len += n;
    c->url[c->url_len] = '\0';
    return 0;
}

static int on_body(http_parser *p, const char *at, size_t n)
{
    hconn *c = p->data; /* the whole request is within RL_HTTP_REQ_MAX, so is its body */
    memcpy(c->body + c->body_len, at, n);
    c->body_len += n;
    c->body[c->body_len] = '\0';
    return 0;
}

int rl_http_reading(const rl_http_req *rq)
{
    return rq->method == HTTP_GET || rq->method == HTTP_HEAD;
}

static int on_complete(http_parser *p)
{
    hconn *c = p->data;
    int m = p->method;
    if (m != HTTP_GET && m != HTTP_HEAD && m != HTTP_POST && m != HTTP_DELETE) {
        answer_text(c, 405, "only GET, HEAD, POST and DELETE are served");
        return 1;
    }
    c->url[strcspn(c->url, "?#")] = '\0';
    rl_http_req rq = {m, c->url, c->body, c->body_len};
    hk_buf body;
    hk_buf_init(&body);
    const char *ctype = "text/plain; charset=utf-8";
    int code = c->h->fn(c->h->user, &rq, &body, &ctype);
    if (code >= 400 && body.len == 0)
        hk_buf_printf(&body, "%s: %s %s\n", code == 404 ? "no such page" : reason(code),
                      http_method_str((enum http_method)m), c->url);
    answer(c, code, ctype, &body, m == HTTP_HEAD);
    hk_buf_free(&body);
    return 1; /* one request per connection: stop parsing */
}

static void on_alloc(uv_handle_t *x, size_t want, uv_buf_t *out)
{
    (void)want;
    hconn *c = x->data;
    size_t room = c->done ? 4096 : RL_HTTP_REQ_MAX - c->got + 1; /* +1: an overflow is seen */
    out->base = malloc(room);
    out->len = out->base ? room : 0;
}

static void on_read(uv_stream_t *s, ssize_t n, const uv_buf_t *buf)
{
    hconn *c = s->data;
    static const http_parser_settings set = {.on_url = on_url, .on_body = on_body,
                                             .on_message_complete = on_complete};
    if (n < 0 || (c->done && (c->discarded += (size_t)n) > RL_HTTP_DISCARD_MAX))
        conn_close(c);
    else if (n > 0 && !c->done && c->got + (size_t)n > RL_HTTP_REQ_MAX)
        answer_text(c, 413, "request too large");
    else if (n > 0 && !c->done) {
        c->got += (size_t)n;
        size_t used = http_parser_execute(&c->p, &set, buf->base, (size_t)n);
        if (!c->done && (used != (size_t)n || HTTP_PARSER_ERRNO(&c->p) != HPE_OK))
            answer_text(c, 400, http_errno_description(HTTP_PARSER_ERRNO(&c->p)));
    }
    free(buf->base);
}

/* Full: the connection open the longest gives way — a request arriving a byte at a time has
 * had the most time, a monitoring scrape takes milliseconds — so slow clients can never lock
 * the legitimate ones out. The list holds the open connections, newest first. */
static void make_room(rl_http *h)
{
    hconn *oldest = NULL;
    for (hconn *c = h->conns; c; c = c->next)
        oldest = c;
    if (oldest)
        conn_close(oldest);
}

static void on_conn(uv_stream_t *srv, int status)
{
    rl_http *h = srv->data;
    hconn *c = status < 0 ? NULL : calloc(1, sizeof *c);
    if (!c)
        return;
    c->h = h;
    hk_buf_init(&c->out);
    uv_tcp_init(h->loop, &c->tcp);
    uv_timer_init(h->loop, &c->timer);
    c->tcp.data = c;
    c->timer.data = c;
    c->handles = 2;
    h->nconns++;
    h->nopen++;
    c->next = h->conns;
    if (h->conns)
        h->conns->pprev = &c->next;
    h->conns = c;
    c->pprev = &h->conns;
    if (uv_accept(srv, (uv_stream_t *)&c->tcp) < 0 || h->nconns > 2 * RL_HTTP_CONNS_MAX) {
        conn_close(c); /* (closed ones not yet gone count too: memory stays bounded) */
        return;
    }
    if (h->nopen > RL_HTTP_CONNS_MAX)
        make_room(h);
    http_parser_init(&c->p, HTTP_REQUEST);
    c->p.data = c;
    uv_timer_start(&c->timer, on_timeout, RL_HTTP_IDLE_MS, 0);
    uv_read_start((uv_stream_t *)&c->tcp, on_alloc, on_read);
}

int rl_http_start(rl_http *h, uv_loop_t *loop, const char *ip, int port, rl_http_fn fn,
                  void *user, char *msg, int n)
{
    memset(h, 0, sizeof *h);
    h->loop = loop;
    h->fn = fn;
    h->user = user;
    struct sockaddr_in a;
    int rc = uv_ip4_addr(ip, port, &a);
    if (rc < 0) {
        snprintf(msg, (size_t)n, "--metrics %s:%d: expected an IPv4 address", ip, port);
        return -1;
    }
    uv_tcp_init(loop, &h->srv);
    h->srv.data = h;
    h->listening = 1;
    if ((rc = uv_tcp_bind(&h->srv, (const struct sockaddr *)&a, 0)) < 0 ||
        (rc = uv_listen((uv_stream_t *)&h->srv, 64, on_conn)) < 0) {
        snprintf(msg, (size_t)n, "metrics on %s:%d: %s", ip, port, uv_strerror(rc));
        rl_http_stop(h);
        return -1;
    }
    return 0;
}

void rl_http_stop(rl_http *h)
{
    if (h->listening && !uv_is_closing((uv_handle_t *)&h->srv))
        uv_close((uv_handle_t *)&h->srv, NULL);
    h->listening = 0;
    while (h->conns)
        conn_close(h->conns);
}
