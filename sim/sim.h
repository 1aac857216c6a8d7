/* sim: the discrete-event simulator. The shared core (models/) makes every
 * decision a master makes — picks, karma blocks, dead marking, retries
 * budget — while the simulator adds only time and the mirrors' behaviour:
 * network round trips, a FCFS queue behind `threads` workers, injected
 * errors and the scenario's faults. One run = one scenario, one seed. */
#ifndef SIM_H
#define SIM_H

#include <gsl/gsl_rng.h>
#include <stdio.h>
#include "hk_fcfs.h"
#include "hk_hist.h"
#include "hk_scn.h"
#include "hk_strat.h"
#include "sim_heap.h"

typedef struct sim_opts {
    uint64_t seed;
    int variant;                 /* hk_variant_id */
    int strategy;                /* -1 = as configured */
    int64_t duration_us;
    FILE *periods;               /* periods.csv stream, or NULL */
    FILE *latency;               /* latency.csv stream, or NULL */
    FILE *queries;               /* queries.csv stream, or NULL */
} sim_opts;

/* Per master x line x mirror statistics. */
typedef struct sim_mstat {
    uint64_t q, err;             /* this period: attempts routed, failed */
    hk_hist per;                 /* this period: attempt latency */
    double psum;                 /* this period: sum of sampled probabilities */
    int pn;
    double *prob, *share;        /* per period history (for convergence, readmission) */
} sim_mstat;

typedef struct sim_linst {
    hk_line *l;
    int table, line;
    sim_mstat *ms;
} sim_linst;

typedef struct sim_master {
    hk_dash *dash;               /* per host */
    sim_linst *li;               /* every line of every table */
    int64_t *ping_t0;            /* per host: start of the ping in flight, -1 = none */
    int *ping_out;               /* per host: that ping's outcome */
} sim_master;

typedef struct sim_mirror {
    const hk_behave *b;
    gsl_rng *rng;
    hk_fcfs workers;
    uint64_t served;
    double busy_us;
} sim_mirror;

typedef struct sim_lstate {
    int mirror, attempts, ev, blackhole;
    int64_t t_start, t_conn, connect_us, r2, t_done;
} sim_lstate;

typedef struct sim_query {
    uint64_t id;
    int64_t t_arr, t_last;
    int master, table, next_free;
    int pending;                 /* line events outstanding (blackholes included) */
    int waiting;                 /* lines the master waits for */
    int failed, reported;
} sim_query;

/* Totals per table x line x mirror (all masters), for the summary. */
typedef struct sim_total {
    uint64_t q, err, ok;
    hk_hist lat;
} sim_total;

typedef struct sim_world {
    const hk_scn *s;
    const hk_variant *var;
    sim_opts o;
    sim_heap h;
    gsl_rng *rng_arr, *rng_pick;
    int nm;                      /* masters */
    sim_master *m;
    sim_mirror *mir;             /* per host */
    int nli;                     /* lines across tables */
    int *li_base;                /* per table: index of its first line */
    int maxlines;
    sim_query *q;
    int nq, qfree;
    sim_lstate *lsbuf;
    int64_t end_us;
    int nperiods, period;        /* periods with history, current period index */
    uint64_t next_id, events;
    int64_t t_now;               /* time of the last event run */
    uint64_t n_ok, n_partial, n_error;
    hk_hist all, per_all;
    uint64_t per_ok, per_partial, per_err;
    sim_total **tot;             /* [line index][mirror] */
    double *probs;               /* scratch */
    int trace_failed;
} sim_world;

sim_world *sim_new(const hk_scn *s, const sim_opts *o);
/* Run to completion. Returns 0, or -1 if the trace source failed. */
int sim_run(sim_world *w);
void sim_free(sim_world *w);

/* Karma period length in microseconds. */
int64_t sim_karma_us(const sim_world *w);
int sim_strategy_of(const sim_world *w, int table, int line);

#endif
