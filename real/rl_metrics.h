/* rl_metrics: a /metrics endpoint — an HTTP server (rl_http) whose one page is what a
 * writer puts into it, in the Prometheus text format (rl_prom); other paths 404, methods
 * other than GET and HEAD 405. The mirror, the replay's drive and live's searchd drive each
 * serve theirs through it. */
#ifndef RL_METRICS_H
#define RL_METRICS_H

#include "rl_http.h"

typedef void (*rl_metrics_fn)(const void *src, hk_buf *b);

typedef struct rl_metrics {
    rl_http http;
    rl_metrics_fn write;
    const void *src;
    int on;
} rl_metrics;

/* Serve write(src) on addr (IP:PORT): 0, or -1 with msg ("--metrics ADDR: expected IP:PORT",
 * or why it cannot listen). */
int rl_metrics_start(rl_metrics *m, uv_loop_t *loop, const char *addr, rl_metrics_fn write,
                     const void *src, char *msg, int n);
/* Stop serving (again: nothing). */
void rl_metrics_stop(rl_metrics *m);

#endif
