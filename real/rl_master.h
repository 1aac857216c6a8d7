/* rl_master: a master on the wire. For each query it picks one mirror per
 * agent line with the shared core's strategy (wall-clock karma blocks,
 * Manticore's retry budget and re-choice, dead marking), speaks the agent
 * protocol as a Sphinx 2.2.11 master does (connect and query timeouts, hello,
 * SEARCH, reply checks mapped to searchd's counters), pings idle HA mirrors,
 * and reports every query's outcome. Driven by a libuv loop it does not own. */
#ifndef RL_MASTER_H
#define RL_MASTER_H

#include <gsl/gsl_rng.h>
#include <netinet/in.h>
#include <stdio.h>
#include <uv.h>
#include "hk_buf.h"
#include "hk_cluster.h"
#include "hk_find.h"
#include "hk_hist.h"
#include "hk_ledger.h"
#include "hk_strat.h"
#include "hk_tl.h"
#include "rl_mpool.h"

typedef struct rl_master rl_master;

/* One finished query line, as reported to the driver. */
/* A finished query line's outcome: an hk_ev kind, or one of these two past them. */
#define RL_OUT_BLACKHOLE HK_EV_ALL       /* swallowed by a mirror that never answers */
#define RL_OUT_CANCELLED (HK_EV_ALL + 1) /* given up (the run ended first) */
#define RL_OUT_N (HK_EV_ALL + 2)

typedef struct rl_outcome {
    uint64_t id;
    int table, line, mirror, attempts;
    int kind;                    /* HK_EV_*, RL_OUT_BLACKHOLE or RL_OUT_CANCELLED */
    int ok;
    int64_t t_sched_us, t_sent_us, t_done_us;
} rl_outcome;

/* A kind's name in outcomes.csv and the metrics (hk_ev_name's, blackhole, cancelled). */
const char *rl_outcome_name(int kind);

typedef void (*rl_done_fn)(void *ctx, const rl_outcome *o, int last_line, int query_ok);

typedef struct rl_master_cfg {
    const hk_cluster *cl;
    int variant, strategy;       /* strategy -1 = as configured */
    const struct sockaddr_in *addr;   /* per host */
    uint64_t seed;
    FILE *periods;               /* periods.csv stream or NULL */
    FILE *latency;               /* latency.csv stream or NULL */
    const hk_scn *scn;           /* a live scenario (its faults, for re-admission; its pool
                                    settings), or NULL */
    rl_done_fn done;
    void *ctx;
} rl_master_cfg;


struct rl_master {
    uv_loop_t *loop;
    rl_master_cfg c;
    const hk_variant *var;
    hk_dash *dash;               /* per host */
    hk_line **lines;             /* every agent line */
    hk_lper **st;                /* [line][mirror]: this karma period */
    hk_ledger led;               /* the run's totals per route */
    hk_buf status;               /* SHOW AGENT STATUS at the end (rl_master_finish) */
    int nli, *li_base;           /* the ledger's numbering of the lines (not owned) */
    int *series;                 /* per line: its first series in the timeline */
    gsl_rng *rng;
    uv_timer_t period_timer, sample_timer;
    struct rl_ping *pings;
    int npings, stopping, timers_on;
    int64_t t0_us, period_start_us;
    int period;
    uint64_t inflight, sent, finished, ok, partial, failed, cancelled;
    uint64_t wrong_replies;
    char first_wrong[320];       /* the first malformed reply: peer, byte offset, what was expected */
    hk_hist all, per_all;        /* latency of answered (ok and partial) queries */
    uint64_t per_ok, per_partial, per_failed;
    double *probs;
    hk_tl tl;                    /* the fine timeline every analysis reads */
    int64_t *first_after;        /* per fault: first attempt after its end, µs since t0; -1 */
    int64_t end_us;              /* when the run stopped sending */
    struct rl_ep *ep;            /* the attempts' sockets (rl_ep) */
    struct rl_att *atts;         /* the attempts in flight */
    rl_mpool mp;                 /* persistent connections per host */
};

rl_master *rl_master_new(uv_loop_t *loop, const rl_master_cfg *c, char *msg, int n);
/* Send query `id` to `table` now (t_sched_us: when it was due). */
int rl_master_submit(rl_master *m, uint64_t id, int table, const char *query, int64_t t_sched_us);
/* Stop: no new pings or periods; queries in flight end as "cancelled". */
void rl_master_stop(rl_master *m);
/* Stop and abort every attempt in flight (Ctrl-C). */
void rl_master_abort(rl_master *m);
/* Close the last period (its totals into the ledger) and render SHOW AGENT STATUS at the end
 * into m->status. 0, or -1 with err. */
int rl_master_finish(rl_master *m, hk_err *err);
/* What the run found (after rl_master_finish): findings, convergence, re-admission. scn holds
 * the cluster (and the live scenario's faults); out is freed with hk_findings_free. The run's
 * files are the front end's to write (io/hk_folder). */
int rl_master_analyse(rl_master *m, const hk_scn *scn, double lag_p99_us, hk_findings *out,
                      hk_err *err);
void rl_master_free(rl_master *m);
int64_t rl_now_us(void);

#endif
