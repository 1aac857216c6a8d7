/* rl_pxrun: `hareal proxy`'s engine — the proxies (from the command line or a JSON config),
 * the control API and /metrics on one HTTP port, a scenario's faults on schedule, until
 * SIGINT, SIGTERM or SIGHUP. What changes (a toxic added or removed, a proxy closed) is said
 * to its say with the time since start; it prints nothing itself. */
#ifndef RL_PXRUN_H
#define RL_PXRUN_H

#include <stdint.h>
#include <stdio.h>
#include "hk_scn.h"

typedef struct rl_pxrun_cfg {
    const char *name, *listen, *upstream;   /* one proxy, or NULL with config */
    const char *config;          /* JSON text: an array of {name, listen, upstream, enabled} */
    const char *config_file;     /* its name, for errors */
    const char *api;             /* IP:PORT of the control API (and /metrics) */
    const char *metrics;         /* another IP:PORT serving /metrics only, or NULL */
    const hk_scn *scn;           /* faults on schedule for host on proxy `name`, or NULL */
    int host;
    uint64_t seed;
    hk_say say;                  /* its addresses at the start, each change of a toxic */
    hk_say err_say;              /* a schedule that cannot start (said even when quiet) */
    const char *version;
    FILE *log;                   /* the single proxy's searches, one CSV row each, or NULL */
    int control;                 /* driven by a parent (hareal live) on stdin: the schedule
                                    starts at a line "start", EOF ends the proxy, and the
                                    proxy dies with its parent */
} rl_pxrun_cfg;

/* Run until a signal: 0; -1 with msg when a proxy or the API cannot start. *sig: the signal
 * that stopped it. */
int rl_pxrun(const rl_pxrun_cfg *c, int *sig, char *msg, int n);

#endif
