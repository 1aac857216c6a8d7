/* rl_serve: one mirror agent served until it is told to stop — SIGINT, SIGTERM or SIGHUP,
 * 'quit' on its control stdin, or EOF there; a controlled mirror dies with its parent, even
 * stopped (the stall fault) and even when the parent is killed outright. */
#ifndef RL_SERVE_H
#define RL_SERVE_H

#include "rl_mirror.h"

typedef struct rl_serve_cfg {
    rl_fault fault;              /* from the start */
    double x;                    /* its figure */
    int control;                 /* read 'fault KIND' and 'quit' lines on stdin */
    hk_say say;                  /* the listening line (errors come back in msg) */
    const char *metrics;         /* IP:PORT serving /metrics (Prometheus text), or NULL */
} rl_serve_cfg;

/* Serve c as s says. 0 when stopped, -1 with msg when it cannot listen or run. */
int rl_serve(const rl_mirror_cfg *c, const rl_serve_cfg *s, char *msg, int n);

#endif
