/* rl_http: a small HTTP/1.1 server on libuv for what the real mode serves to monitoring
 * (/metrics) and the proxy's control API. Requests are parsed by libhttp-parser (Debian libhttp-parser-dev), never by
 * hand; each connection gets one answer (Connection: close). A request that is not HTTP
 * gets 400, one larger than RL_HTTP_REQ_MAX bytes (body included) 413, a method other than
 * GET, HEAD, POST or DELETE 405; the handler answers the rest. After its answer a connection's write side is shut and
 * what the peer still sends is read and dropped until it closes (a close on unread bytes would
 * reset the connection and lose the answer); RL_HTTP_IDLE_MS bounds both phases from the
 * accept (a deadline, not reset by a trickled byte). Past RL_HTTP_CONNS_MAX open connections the
 * one open the longest is closed for the new one, so slow clients never lock out a scrape. */
#ifndef RL_HTTP_H
#define RL_HTTP_H

#include <uv.h>
#include "hk_buf.h"

#define RL_HTTP_REQ_MAX 8192     /* bytes of one request (headers included) */
#define RL_HTTP_CONNS_MAX 64     /* open connections at once; past it the oldest is closed */
#define RL_HTTP_DISCARD_MAX 65536 /* bytes read and dropped after an answer, then closed */
#define RL_HTTP_IDLE_MS 5000     /* a request not complete, or a peer not gone, by then: closed */

typedef struct rl_http_req {
    int method;                  /* http_parser's: HTTP_GET, HTTP_HEAD, HTTP_POST, HTTP_DELETE */
    const char *path;            /* the URL without its query */
    const char *body;            /* NUL-terminated */
    size_t len;
} rl_http_req;

/* Fill body (ctype set, text/plain by default) and return the status: 200, 201, 204, 400,
 * 404, 405, 409. An error with an empty body gets a line of text saying what. */
typedef int (*rl_http_fn)(void *user, const rl_http_req *rq, hk_buf *body, const char **ctype);

/* GET or HEAD: what a page that only shows something serves (others answer 405). */
int rl_http_reading(const rl_http_req *rq);

typedef struct rl_http {
    uv_loop_t *loop;
    uv_tcp_t srv;
    int listening, nconns;       /* nconns: allocated, closing ones included */
    int nopen;                   /* open (not closing) */
    struct rl_hconn *conns;      /* the open connections (for stop) */
    rl_http_fn fn;
    void *user;
    uint64_t requests;           /* answered, any status */
} rl_http;

/* Listen on ip:port. 0, or -1 with msg saying why (a port in use names itself). */
int rl_http_start(rl_http *h, uv_loop_t *loop, const char *ip, int port, rl_http_fn fn,
                  void *user, char *msg, int n);
/* Stop listening and close every connection (the loop then lets go of them). */
void rl_http_stop(rl_http *h);

#endif
