/* rl_watch: the engine of `hareal watch` — running masters followed over SphinxQL, reading
 * only what they say. Per master one connection: SHOW STATUS once (its version: the variant),
 * then SHOW AGENT STATUS every karma period (status_period_seconds, else the config's
 * ha_period_karma), each answer saved whole as DIR/status/status.EPOCH.tsv (one master; several:
 * DIR/status/N-HOST_PORT/), the oldest removed past the bytes or the age kept, and fed to
 * hk_watch; its findings appended to DIR/events.jsonl and handed to the caller's say(). A
 * master that refuses, goes away, stalls (no answer in RL_WATCH_STALL_S) or answers what is not
 * a status is said once and retried with a backoff doubling from 1 s to RL_WATCH_BACKOFF_MAX_S.
 * /metrics (rl_watch_prom.c) serves the windows, the reconstructed weights and the findings.
 * Runs until the duration, a signal, or a finding of the fail_on kinds. Prints nothing. */
#ifndef RL_WATCH_H
#define RL_WATCH_H

#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <uv.h>
#include "hk_buf.h"
#include "hk_cluster.h"
#include "hk_err.h"
#include "hk_statread.h"
#include "hk_watch.h"
#include "rl_http.h"

#define RL_WATCH_STALL_S 10.0        /* a query unanswered this long: the master stalls */
#define RL_WATCH_BACKOFF_MAX_S 30.0
#define RL_WATCH_MASTERS_MAX 64

typedef struct rl_watch_cfg {
    int nmasters;
    const char *const *names;    /* "HOST:PORT" as the operator wrote them */
    const struct sockaddr_in *addrs;
    const hk_cluster *cl;        /* --config's lines and settings, or NULL: every host of a
                                    master's first status taken as one line of table '*' */
    int variant;                 /* >= 0: given; else what variant_of says of SHOW STATUS */
    int (*variant_of)(const hk_status_file *st, char *why, size_t n);
    double period_s;             /* > 0: given; else the status's status_period_seconds */
    const char *dir;             /* the run's folder, held by the caller */
    int64_t duration_us;         /* 0: until a signal */
    const char *metrics;         /* IP:PORT serving /metrics, or NULL */
    int64_t keep_bytes;          /* snapshots kept per master, at most this many bytes ... */
    double keep_s;               /* ... and this old */
    unsigned fail_on;            /* finding kinds (bit per hk_wkind) that end the watch */
    int windows;                 /* write DIR/windows.csv (a row per mirror and window) */
    void (*say)(void *user, const char *line);  /* what happens, a line at a time */
    void *user;
} rl_watch_cfg;

typedef struct rl_wmaster rl_wmaster;  /* rl_watch.c */

typedef struct rl_watch {
    const rl_watch_cfg *cfg;
    uv_loop_t loop;
    uv_timer_t end_t;
    uv_signal_t sig[3];
    rl_http http;
    int http_on;
    rl_wmaster *m;               /* cfg->nmasters */
    hk_watch *w;
    hk_wevents ev;
    FILE *events;                /* DIR/events.jsonl */
    FILE *windows;               /* DIR/windows.csv, or NULL */
    uint64_t nevents;
    int signal, failed_kind, stopping;
    hk_err err;                  /* a write or memory failure that ended it */
    int broken;
} rl_watch;

typedef struct rl_watch_result {
    int signal;                  /* the signal that ended it, 0 none */
    int failed_kind;             /* a fail_on kind raised (hk_wkind), -1 none */
    uint64_t snapshots, events;
} rl_watch_result;

/* Run it: 0 (res filled), or -1 with e (a port, a folder or memory). */
int rl_watch_run(const rl_watch_cfg *c, rl_watch_result *res, hk_err *e);

/* Its metrics in the Prometheus text format (hakarma_watch_*), into b (rl_watch_prom.c). */
void rl_watch_metrics(const rl_watch *w, hk_buf *b);
/* Master i's name, whether it answers, its snapshots (for the metrics). */
const char *rl_watch_master_name(const rl_watch *w, int i);
int rl_watch_master_up(const rl_watch *w, int i);
uint64_t rl_watch_master_snaps(const rl_watch *w, int i);

#endif
