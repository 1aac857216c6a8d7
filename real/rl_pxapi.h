/* rl_pxapi: the proxies' control API over HTTP/JSON, in toxiproxy's shape, so that the
 * clients and habits operators have for toxiproxy work here (rl_http serves it):
 *   GET /version                     {"version": "..."}
 *   GET /proxies                     every proxy, by name, with its toxics
 *   POST /proxies                    {name, listen, upstream, enabled}: 201, 409 if it exists
 *   POST /populate                   [proxies]: each made or updated; 201 {"proxies": [...]}
 *   GET|POST|DELETE /proxies/NAME    one proxy; POST updates enabled and upstream
 *   GET|POST /proxies/NAME/toxics    its toxics; POST adds one (rl_toxic.h for the types)
 *   GET|POST|DELETE /proxies/NAME/toxics/TOXIC   one toxic; POST updates its fields
 *   POST /reset                      every proxy enabled, every toxic removed: 204
 *   GET /metrics                     the proxies' counters for Prometheus
 * Errors answer {"error": "...", "status": N} with that HTTP status. */
#ifndef RL_PXAPI_H
#define RL_PXAPI_H

#include "rl_http.h"
#include "rl_pxset.h"

typedef struct rl_pxapi {
    rl_pxset *set;
    const char *version;
    void (*on_change)(void *user, const char *what); /* a change made, said in words; or NULL */
    void *user;
} rl_pxapi;

/* The rl_http handler: user is an rl_pxapi. */
int rl_pxapi_page(void *user, const rl_http_req *rq, hk_buf *body, const char **ctype);

#endif
