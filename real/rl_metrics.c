/* rl_metrics: one /metrics page on an HTTP server (see rl_metrics.h). */
#include "rl_metrics.h"

#include <stdio.h>
#include <string.h>
#include "rl_addr.h"
#include "rl_prom.h"

static int page(void *user, const rl_http_req *rq, hk_buf *body, const char **ctype)
{
    rl_metrics *m = user;
    if (strcmp(rq->path, "/metrics"))
        return 404;
    if (!rl_http_reading(rq))
        return 405;
    m->write(m->src, body);
    *ctype = RL_PROM_CTYPE;
    return 200;
}

int rl_metrics_start(rl_metrics *m, uv_loop_t *loop, const char *addr, rl_metrics_fn write,
                     const void *src, char *msg, int n)
{
    char host[64];
    int port;
    m->write = write;
    m->src = src;
    if (rl_addr_parse(addr, host, sizeof host, &port) < 0) {
        snprintf(msg, (size_t)n, "--metrics %s: expected IP:PORT", addr);
        return -1;
    }
    if (rl_http_start(&m->http, loop, host, port, page, m, msg, n) < 0)
        return -1;
    m->on = 1;
    return 0;
}

void rl_metrics_stop(rl_metrics *m)
{
    if (m->on)
        rl_http_stop(&m->http);
    m->on = 0;
}
