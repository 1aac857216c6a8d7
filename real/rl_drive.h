/* rl_drive: feeds a master with queries — from a trace (open loop at the
 * trace's own timing scaled by --speed, or closed loop with N in flight) or
 * from a scenario's arrival process — writes one queries.csv row per query
 * and agent line, and on Ctrl-C stops sending but still gives every remaining
 * trace query its row ("not_sent"). */
#ifndef RL_DRIVE_H
#define RL_DRIVE_H

#include <stdio.h>
#include <uv.h>
#include "hk_arrivals.h"
#include "hk_hist.h"
#include "hk_trace.h"
#include "rl_master.h"

typedef struct rl_drive {
    uv_loop_t *loop;
    rl_master *m;
    const hk_cluster *cl;
    FILE *queries;               /* queries.csv stream */
    /* source: a trace, or arrivals */
    hk_trace *trace;
    hk_arrivals *arr;
    gsl_rng *rng;
    int arr_table;               /* -1 = tables in turn */
    int64_t duration_us;
    double speed;
    int concurrency;             /* > 0: closed loop */
    /* state */
    uv_timer_t timer;
    uv_signal_t sigint, sigterm;
    uv_check_t check;
    uv_idle_t idle;              /* spins the loop (I/O included) for the last millisecond */
    hk_qrec next;
    char qtext[64];              /* generated arrivals' query text */
    int have_next, eof, interrupted, failed, finished;
    int64_t t0_trace, t0_us;
    uint64_t ids, unknown, not_sent;
    hk_hist lag;
    hk_err err;
    void (*on_end)(struct rl_drive *d);   /* called once everything has finished */
    void *ctx;
    void (*user_end)(void *user);         /* then this, for the command's own clean-up */
    void *user;
} rl_drive;

int rl_drive_start(rl_drive *d);
/* Stop sending (duration over, or Ctrl-C when interrupted = 1). */
void rl_drive_stop(rl_drive *d, int interrupted);
void rl_drive_on_done(void *ctx, const rl_outcome *o, int last, int qok);

#endif
