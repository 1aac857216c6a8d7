/* rl_sqldrive: a scenario's workload sent to a real searchd through SphinxQL — open-loop
 * arrivals, closed-loop clients or a trace at its own timing (each query's full-text part
 * sent as MATCH('...'); after a signal the rest of the trace gets not_sent rows), one
 * connection per query in flight (reused), the warnings
 * of a partial result read back with SHOW WARNINGS and the agent each names charged with the
 * failure; one queries.csv row per query; SHOW AGENT STATUS saved every karma period as
 * status/status.EPOCH.tsv (what `hasim init --status` reads) and once more at the end. */
#ifndef RL_SQLDRIVE_H
#define RL_SQLDRIVE_H

#include <netinet/in.h>
#include <stdio.h>
#include <uv.h>
#include <gsl/gsl_rng.h>
#include "hk_scn.h"
#include "hk_trace.h"
#include "rl_prom.h"
#include "rl_sql.h"

#define RL_SQD_CONN_MAX 1024     /* queries in flight at most; past it a query is not sent */

enum { RL_SQ_OK, RL_SQ_PARTIAL, RL_SQ_FAILED, RL_SQ_NO_ANSWER, RL_SQ_NOT_SENT,
       RL_SQ_UNKNOWN_TABLE, RL_SQ_N };

typedef struct rl_sq rl_sq;      /* a query in flight (rl_sqldrive.c) */

typedef struct rl_sqclient {     /* a closed-loop client */
    uv_timer_t think;
    struct rl_sqldrive *d;
} rl_sqclient;

typedef struct rl_sqldrive {
    /* the caller's */
    uv_loop_t *loop;
    const hk_scn *s;
    struct sockaddr_in ql;       /* searchd's SphinxQL listener */
    const int *host_port;        /* per host: its loopback port, to name a failing agent */
    gsl_rng *rng;
    hk_trace *trace;             /* the workload, or NULL: the scenario's arrivals or clients */
    int64_t duration_us;
    const char *dir;             /* the run's folder: status/ and queries.csv's rows */
    FILE *queries;
    void (*on_end)(void *user);  /* once every query has its row and the last status */
    void *user;
    /* the run */
    rl_sql **idle;
    int nidle, nconn;
    rl_sq *flight;               /* queries in flight, a list */
    rl_sqclient *clients;
    rl_sql *snapc;
    uv_timer_t send_t, snap_t, drain_t;
    uv_signal_t sig[3];
    int64_t t0_us, next_us;
    uint64_t ids, inflight;
    uint64_t count[RL_SQ_N];
    uint64_t *fail_query, *fail_connect;   /* per host, named by searchd's messages */
    uint64_t snaps;
    rl_prom_hist latency, lag;   /* answered queries; an open loop's lateness, seconds */
    int stopping, interrupted, final_asked, finished, handles_on, snap_busy;
    char first_error[260];       /* searchd's first ERR or transport failure, verbatim */
    hk_qrec rec;                 /* the trace's next query */
    int have_rec, have_t0, failed;   /* failed: the trace is malformed (err) */
    int64_t trace_t0;
    hk_err err;
} rl_sqldrive;

/* Start sending: 0, or -1 (no memory). */
int rl_sqldrive_start(rl_sqldrive *d);
/* Stop sending (sig: the signal that asked, 0 for the end of the run). */
void rl_sqldrive_stop(rl_sqldrive *d, int sig);
void rl_sqldrive_free(rl_sqldrive *d);
const char *rl_sq_status_name(int st);
/* Its metrics in the Prometheus text format (hakarma_searchd_*), into b (rl_sqldrive_prom.c). */
void rl_sqldrive_metrics(const rl_sqldrive *d, hk_buf *b);

#endif
