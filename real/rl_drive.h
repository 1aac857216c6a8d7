/* rl_drive: feeds a master with queries — from a trace (open loop at the
 * trace's own timing scaled by --speed, or closed loop with N in flight), from
 * a scenario's arrival process, or from N closed-loop clients that think
 * between an answer and their next query — writes one queries.csv row per
 * query and agent line, and on Ctrl-C stops sending but still gives every
 * remaining trace query its rows ("not_sent", one per agent line). A trace's
 * table names go through the table map first. */
#ifndef RL_DRIVE_H
#define RL_DRIVE_H

#include <stdio.h>
#include <uv.h>
#include "hk_arrivals.h"
#include "hk_progress.h"
#include "hk_dist.h"
#include "hk_hist.h"
#include "hk_trace.h"
#include "rl_master.h"
#include "rl_prom.h"

#define RL_TMAP_MAX 64

typedef struct rl_drive_stats {  /* what /metrics shows; memory by mirrors, not queries */
    int nhosts;
    uint64_t (*lines)[RL_OUT_N]; /* per host: finished query lines by outcome (rl_outcome.kind) */
    rl_prom_hist *latency;       /* per host: answered lines' latency, seconds */
    rl_prom_hist lag;            /* an open loop's sending behind its schedule, seconds */
    uint64_t answered, partial, failed;  /* finished queries: every line answered, some, none */
} rl_drive_stats;

typedef struct rl_client {       /* one closed-loop client */
    uv_timer_t think;
    struct rl_drive *d;
    uint64_t inflight;           /* its query's id + 1, 0 = thinking */
} rl_client;

typedef struct rl_drive {
    uv_loop_t *loop;
    rl_master *m;
    const hk_cluster *cl;
    FILE *queries;               /* queries.csv stream */
    /* source: a trace, arrivals, or clients */
    hk_trace *trace;
    hk_arrivals *arr;
    gsl_rng *rng;
    int arr_table;               /* -1 = tables in turn */
    int64_t duration_us;
    double speed;
    int concurrency;             /* > 0: closed loop over a trace */
    int nclients;                /* > 0: closed-loop clients (scenario workload) */
    const hk_dist *think;
    rl_client *clients;
    const char *metrics;         /* IP:PORT serving /metrics while it runs, or NULL */
    int ntmap;                   /* a trace's table names -> the config's */
    const char *tmap[RL_TMAP_MAX][2];
    /* state */
    uv_timer_t timer;
    uv_signal_t sigint, sigterm, sighup;
    uv_check_t check;
    uv_idle_t idle;              /* spins the loop (I/O included) for the last millisecond */
    uv_timer_t tick;             /* the progress line */
    hk_progress *progress;       /* the command's, or NULL */
    hk_say say;                  /* a signal it stops for */
    int handles_on;
    hk_qrec next;
    char qtext[64];              /* generated queries' text */
    int have_next, eof, failed, finished, have_t0;
    int interrupted;             /* the signal that stopped the run, 0 none */
    int write_failed;            /* a stream of the run could not be written (a full disk) */
    int64_t t0_trace, t0_us;
    uint64_t ids, unknown, not_sent;
    char unknown_names[256];     /* the first few table names the config lacks */
    hk_hist lag;
    rl_drive_stats st;
    hk_err err;
    void (*on_end)(struct rl_drive *d);   /* called once everything has finished */
    void *ctx;
    void (*user_end)(void *user);         /* then this, for the command's own clean-up */
    void *user;
} rl_drive;

/* -1 with d->err set when the source's first record is bad (nothing is started then). */
int rl_drive_start(rl_drive *d);
/* Stop sending: the duration is over (0), or a signal (its number) interrupted the run. */
void rl_drive_stop(rl_drive *d, int interrupted);
void rl_drive_on_done(void *ctx, const rl_outcome *o, int last, int qok);
/* Its metrics in the Prometheus text format (hakarma_master_*), into b (rl_drive_prom.c). */
void rl_drive_metrics(const rl_drive *d, hk_buf *b);
int rl_drive_stats_init(rl_drive_stats *st, int nhosts);
void rl_drive_stats_free(rl_drive_stats *st);
/* A finished line of host's; last: the query's last line (qok: 1 answered, 0 partial, -1
 * failed, as rl_done_fn says). */
void rl_drive_count(rl_drive_stats *st, const rl_outcome *o, int host, int last, int qok,
                    int open_loop);
/* After the loop: the drive's own memory. */
void rl_drive_free(rl_drive *d);
/* The p99 of an open-loop drive's lag behind its schedule, µs (0: a closed loop has none). */
double rl_drive_lag_p99(const rl_drive *d);

#endif
