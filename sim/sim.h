/* sim: the discrete-event simulator. The shared core (models/) makes every
 * decision a master makes — picks, karma blocks, dead marking, retries
 * budget — while the simulator adds only time and the mirrors' behaviour:
 * network round trips, a FCFS queue behind `threads` workers, injected
 * errors and the scenario's faults. The clock is µs since the Unix epoch
 * (the run starts at the scenario's `start`), so karma blocks are numbered
 * as searchd numbers them. One run = one scenario, one seed.
 *   sim.c         set-up, the event loop, tear-down
 *   sim_query.c   arrivals (open and closed loop), attempts, replies, retries
 *   sim_period.c  pings, probability samples, karma periods, the timeline
 *   sim_out.c     CSV rows; sim_report.c: what the run means */
#ifndef SIM_H
#define SIM_H

#include <gsl/gsl_rng.h>
#include <stddef.h>
#include <signal.h>
#include <stdio.h>
#include "hk_buf.h"
#include "hk_fcfs.h"
#include "hk_hist.h"
#include "hk_ledger.h"
#include "hk_pool.h"
#include "hk_ports.h"
#include "hk_scn.h"
#include "hk_strat.h"
#include "hk_tl.h"
#include "sim_heap.h"

typedef struct sim_opts {
    uint64_t seed;
    int variant;                 /* hk_variant_id */
    int strategy;                /* -1 = as configured */
    int64_t duration_us;         /* 0 = the scenario's */
    FILE *periods;               /* periods.csv stream, or NULL */
    FILE *latency;               /* latency.csv stream, or NULL */
    FILE *queries;               /* queries.csv stream, or NULL */
    void (*progress)(void *ctx, double frac);   /* told now and then how far the run is */
    void *pctx;
    volatile sig_atomic_t *stop; /* set (by a signal handler) to end the run early, or NULL */
} sim_opts;

/* The hot structures are laid out in cache lines of this size and allocated on one
 * (sim_alloc_lines), so what an event touches misses as few lines as it can. */
#define SIM_CACHE_LINE 64


typedef struct sim_mirror {      /* in cache lines (the array is aligned): what an attempt
                                    reads first and the workers, then the draw's head and the
                                    samples ahead */
    _Alignas(SIM_CACHE_LINE) int svc_ahead; /* its stream feeds only the service times: drawn
                                    ahead (so the network time is constant, rtt_us, and there
                                    are no refusals, errors or warnings to draw for) */
    int64_t rtt_us;              /* that constant network time */
    hk_fcfs workers;
    hk_dist_ahead svc;
    double busy_tail_us;         /* service time offered in the run's last quarter */
    const hk_behave *b;
    gsl_rng *rng;                /* its own stream: common random numbers across runs */
} sim_mirror;
_Static_assert(sizeof(sim_mirror) % SIM_CACHE_LINE == 0, "mirrors lie in whole cache lines");
_Static_assert(offsetof(sim_mirror, svc) == SIM_CACHE_LINE, "the draw's head starts a line");

/* What an attempt on one mirror of one master's agent line touches, found once at set-up: the
 * hot path follows one pointer instead of recomputing five indexes per event. */
typedef struct sim_route {       /* two cache lines (aligned): what an attempt and its answer
                                    touch, then the period's histogram */
    _Alignas(SIM_CACHE_LINE) hk_dash *dash;  /* the master's dashboard of the mirror's host */
    sim_mirror *mr;              /* the host */
    int host, series;            /* host index, timeline series */
    int ext;                     /* the line's strategy is an extension (it hears every end) */
    hk_lper ms;                  /* this period's counters (beside the rest: one less miss;
                                    its histogram, added to in batches, the second line) */
} sim_route;
_Static_assert(offsetof(sim_route, ms.per) == SIM_CACHE_LINE, "the histogram starts the second line");

typedef struct sim_linst {
    hk_line *l;
    int table, line;
    int series;                  /* its first series in the timeline */
    sim_route *rt;               /* per mirror */
    const hk_table *t;
    const hk_line_conf *lc;
    int budget;                  /* attempts a query may make on this line (retries included) */
    char blackhole, persistent;  /* the line's agent flags (copied: the config is cold) */
} sim_linst;

/* Per master x route: the connections its attempts opened and what the pool answered. */
typedef struct sim_conn {
    uint64_t connects;           /* connections opened (plain, or for a pool slot) */
    uint64_t hits;               /* pool: a connection reused */
    uint64_t misses;             /* pool: a slot without a connection: one opened (PERSIST) */
    uint64_t fallbacks;          /* pool: no slot free: a plain connection, closed after */
    uint64_t stale;              /* pool: a pooled connection whose agent had gone since:
                                    found on rent, another opened */
    uint64_t no_port;            /* connects that found no ephemeral port */
} sim_conn;

typedef struct sim_master {
    hk_dash *dash;               /* per host */
    sim_conn *conn;              /* per route (m->rt's order) */
    hk_pool *pool;               /* per host (slot NULL: no persistent line reaches it) */
    hk_ports *ports;             /* per host */
    sim_linst *li;               /* every line of every table */
    sim_route *rt;               /* every line's mirrors, in the lines' order (li[i].rt points
                                    here): one array, so the lines' routes lie together */
    int64_t *ping_t0;            /* per host: start of the ping in flight, -1 = none */
    int *ping_out;               /* per host: that ping's outcome */
} sim_master;

typedef struct sim_lstate {      /* one agent line of one query: one cache line (the buffer is
                                    aligned), so an event on a large cluster misses once; an
                                    answer finds here what it writes to (dashboard, series),
                                    not behind the route: one miss less on its way */
    sim_route *rt;               /* the mirror of the attempt under way */
    hk_dash *dash;               /* its dashboard (rt->dash) */
    int64_t t_start, connect_us; /* connected at t_start + connect_us */
    union {
        int64_t r2;              /* the attempt's return trip, until its answer */
        int64_t t_done;          /* when the line ended (no attempt follows) */
    } u;
    float svc_us, wait_us;       /* what the mirror would report (c3): service time, and the
                                    wait in its queue; < 0 none */
    int mirror, series;          /* the attempt's mirror, its timeline series (rt->series) */
    int attempts;
    char ev, blackhole, ext;     /* the outcome (hk_ev), the line's flags (ext: rt->ext) */
    char pooled;                 /* the attempt holds a slot of its host's pool */
} sim_lstate;
_Static_assert(sizeof(sim_lstate) == SIM_CACHE_LINE, "a line's state is one cache line");

typedef struct sim_query {
    const hk_table *t;
    sim_linst *li;               /* its master's first line of its table */
    uint64_t id;
    int64_t t_arr, t_last;
    int master, table, client, next_free;
    int pending;                 /* line events outstanding (blackholes included) */
    int waiting;                 /* lines the master waits for */
    int failed;
} sim_query;

/* An answer's latency on its way to its route's period histogram. They are added in batches:
 * on a large cluster each add misses the cache (thousands of histograms), and a batch's adds,
 * independent of each other, wait for their misses together instead of one by one. In order,
 * so a histogram sums its samples in the order they came. */
typedef struct sim_lat {
    hk_hist *h;
    double us;
} sim_lat;
#define SIM_LAT_BATCH 256

typedef struct sim_world {
    const hk_scn *s;
    const hk_variant *var;
    sim_opts o;
    sim_heap h;
    hk_arrivals arr;             /* the workload's arrival process, this run's copy (its state:
                                    the scenario stays untouched, so runs repeat) */
    gsl_rng *rng_arr, *rng_pick;
    int nm;                      /* masters */
    sim_master *m;
    sim_mirror *mir;             /* per host */
    int nli;                     /* lines across tables */
    int *li_base;                /* per table: index of its first line (the ledger's) */
    int maxlines;
    sim_query *q;
    int nq, qfree;
    sim_lstate *lsbuf;
    int64_t t0, end_us;          /* epoch µs: the run's start and end */
    int64_t tail_us;             /* the start of the run's last quarter */
    int64_t karma_us, sample_us;
    int64_t b0;                  /* karma block of t0 (period 0) */
    int nperiods, period;        /* periods of the run, the one being filled */
    int fetch_ahead;             /* so many mirrors that their state is not in cache: the loop
                                    fetches the next answer's while an event runs */
    uint64_t next_id, events;
    int64_t t_now;               /* time of the last event run */
    uint64_t n_ok, n_partial, n_error, n_unknown;
    hk_hist all, per_all;        /* latency of answered (ok and partial) queries */
    uint64_t per_ok, per_partial, per_err;
    hk_ledger led;               /* the run's totals per route (all masters) */
    double *probs;               /* scratch */
    hk_tl tl;                    /* the fine timeline every analysis reads */
    sim_lat lat[SIM_LAT_BATCH];  /* answers' latencies not yet in their period histograms */
    int nlat;
    int64_t *first_after;        /* [fault][master]: first attempt after its end, µs since t0 */
    hk_pool_rule pool_rule;
    int ports_eff;               /* ports over the share of TIME_WAITs a master holds; 0 never
                                    runs out */
    hk_buf status;               /* SHOW AGENT STATUS of master 0 at the run's end */
    int status_failed;
    int trace_failed;
    int stopped;                 /* SIM_STOPPED or SIM_WRITE_FAILED: the run ended early */
} sim_world;

enum { SIM_STOPPED = -3, SIM_WRITE_FAILED = -4 };

sim_world *sim_new(const hk_scn *s, const sim_opts *o);
/* Run to completion. Returns 0; -1 if the trace source failed; SIM_STOPPED when *o.stop was
 * set; SIM_WRITE_FAILED when a stream (periods, latency, queries) could not be written (a full
 * disk is noticed within a simulated second of the first failed write). */
int sim_run(sim_world *w);
void sim_free(sim_world *w);

int sim_strategy_of(const sim_world *w, int table, int line);
/* n objects of size bytes (a multiple of SIM_CACHE_LINE), zeroed, on a cache line; free() it. */
void *sim_alloc_lines(size_t n, size_t size);
/* µs since the run's start. */
static inline int64_t sim_rel(const sim_world *w, int64_t t) { return t - w->t0; }

/* sim_query.c */
void sim_q_arrival(sim_world *w, int64_t now, int client, int table);
void sim_q_attempt(sim_world *w, int qi, int k, int64_t now, int choose);
void sim_q_mirror_in(sim_world *w, int64_t now, int qi, int k);
void sim_q_done(sim_world *w, int64_t now, int qi, int k);
void sim_q_start(sim_world *w);
/* sim_period.c */
void sim_p_ping(sim_world *w, int64_t now, int mi, int h);
void sim_p_ping_done(sim_world *w, int64_t now, int mi, int h);
void sim_p_sample(sim_world *w, int64_t now);
void sim_p_close(sim_world *w, int64_t now);
void sim_p_fold(sim_world *w);
/* The run's end: every master's connection counts added to the ledger's totals (once). */
void sim_p_conns(sim_world *w);
void sim_p_lat_flush(sim_world *w);
static inline void sim_p_lat(sim_world *w, hk_hist *h, double us)
{
    w->lat[w->nlat] = (sim_lat){h, us};
    if (++w->nlat == SIM_LAT_BATCH)
        sim_p_lat_flush(w);
}
void sim_p_status(sim_world *w, int64_t now);
void sim_p_start(sim_world *w);

enum { EV_ARRIVAL = 1, EV_ATTEMPT, EV_MIRROR_IN, EV_DONE, EV_PING, EV_PING_DONE, EV_SAMPLE,
       EV_PERIOD, EV_END };
_Static_assert(EV_END < (1 << SIM_EV_TYPE_BITS), "an event type fits in sim_ev.ord's low bits");

/* Mirrors (hosts x masters) beyond which the loop fetches ahead (sim_q_done_fetch): below, their
 * dashboards stay in cache and the fetch would only cost its instructions (2% of a small run). */
#define SIM_FETCH_MIRRORS 256

#define SIM_LS(w, qi) (&(w)->lsbuf[(size_t)(qi) * (size_t)(w)->maxlines])

/* An answer about to come: ask for its dashboard's header (which it reads, then writes) while
 * the event before it runs. On a large cluster an answer comes for a random one of thousands of
 * mirrors, and the header is a cache miss that then waits beside that event's work instead of
 * alone. (Its line state is read here, and so fetched too; its dashboard's block and its
 * timeline cell were tried as well, for no gain.) */
static inline void sim_q_done_fetch(const sim_world *w, int qi, int k)
{
    __builtin_prefetch(SIM_LS(w, qi)[k].dash, 1);
}

#endif
