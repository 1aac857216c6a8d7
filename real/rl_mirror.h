/* rl_mirror: a mirror agent on the wire. It speaks the searchd side of the
 * agent protocol (hello on accept, PERSIST, PING, SEARCH with a valid empty
 * result a 2.2.11 or Manticore master merges), serves each query after an
 * injected delay (service distribution behind `threads` FCFS workers), and
 * can fail the ways the simulator's faults name, switchable at run time. */
#ifndef RL_MIRROR_H
#define RL_MIRROR_H

/* Replies one connection holds (bytes, with their write requests, until each is called back)
 * past which the mirror reads no more of its requests until half are gone: a client that
 * pipelines requests and never reads the replies holds at most this much of the mirror's
 * memory (then TCP's own window stops it). */
#define RL_MIRROR_WQ_MAX (256u << 10)

#include <gsl/gsl_rng.h>
#include <stdio.h>
#include <uv.h>
#include "hk_dist.h"
#include "hk_fcfs.h"
#include "rl_ctl.h"
#include "rl_prom.h"

typedef enum rl_fault {
    RL_F_NONE, RL_F_DOWN, RL_F_STUCK, RL_F_SLOW, RL_F_ERRORS, RL_F_PARTITION, RL_F_CLOSE,
    RL_F_RESET, RL_F_GARBAGE, RL_F_BADVERSION, RL_F_RETRY, RL_F_WARNING, RL_F_DRIP,
    RL_F_ACCEPTCLOSE, RL_F_STALL, RL_F_N
} rl_fault;

/* What a mirror did with each SEARCH: the outcomes its query log names. */
typedef enum rl_served {
    RL_SV_OK, RL_SV_ERROR, RL_SV_WARNING, RL_SV_RETRY, RL_SV_CLOSE, RL_SV_RESET, RL_SV_GARBAGE,
    RL_SV_DRIP, RL_SV_STUCK, RL_SV_N
} rl_served;

typedef struct rl_mirror_stats {
    uint64_t searches[RL_SV_N];   /* by outcome */
    uint64_t pings, refused;     /* pings answered; requests refused with an ERROR and closed */
    rl_prom_hist delay;          /* queueing + service before each reply it sends, seconds */
} rl_mirror_stats;

const char *rl_served_name(rl_served o);

typedef struct rl_mirror_cfg {
    char host[64];
    int port;
    const hk_dist *service;      /* not owned */
    int threads;                 /* 0 = no queueing */
    double errors, warnings;     /* probabilities of ERROR / WARNING replies */
    FILE *log;                   /* CSV of served queries, or NULL */
    int max_conns;               /* connection limit */
    int64_t idle_ms;             /* idle-connection timeout */
    int64_t request_ms;          /* a request must arrive whole within this of its first byte */
    uint32_t max_request;        /* bytes */
    uint32_t matches;            /* documents per result */
    uint64_t seed;
    hk_say say;                  /* what it has to say as it runs */
} rl_mirror_cfg;

typedef struct rl_mirror {
    uv_loop_t *loop;
    rl_mirror_cfg c;
    uv_tcp_t srv;
    int listening;
    gsl_rng *rng;
    hk_fcfs workers;             /* the queueing model, on the µs monotonic clock */
    rl_fault fault;
    double fault_x;
    int nconns;                  /* connections with handles still open */
    int nopen;                   /* ... of which not closing */
    struct rl_conn *conns;
    uint64_t served, accepted;
    uint64_t persisted;          /* connections a master made persistent (PERSIST 1) */
    rl_mirror_stats st;
    void (*on_stop)(void *);     /* called when it stops (its owner's other servers), or NULL */
    void *on_stop_user;
    rl_ctl ctl;                  /* control lines on stdin */
    int log_errno;               /* a row of c.log could not be written (a full disk): the
                                    mirror stops, and its caller fails naming it */
    uint64_t log_rows;           /* rows written to c.log */
} rl_mirror;

int rl_mirror_start(rl_mirror *m, uv_loop_t *loop, const rl_mirror_cfg *c, char *msg, int n);
/* Listen for control lines ("fault KIND", "fault slow(4)", "quit") on stdin. */
int rl_mirror_control_stdin(rl_mirror *m);
/* "down", "stall", "stuck", "slow(4)", "errors(0.5)", "close", ... -> fault; -1 if unknown.
 * stall stops the process itself (SIGSTOP; SIGCONT resumes it, fault none). */
int rl_fault_parse(const char *s, rl_fault *f, double *x);
const char *rl_fault_name(rl_fault f);
int rl_mirror_set_fault(rl_mirror *m, rl_fault f, double x);
/* Its metrics in the Prometheus text format (hakarma_mirror_*), into b. */
void rl_mirror_metrics(const rl_mirror *m, hk_buf *b);
/* Stop listening and close every connection; the loop then ends. */
void rl_mirror_stop(rl_mirror *m);
/* After the loop ended. */
void rl_mirror_free(rl_mirror *m);

#endif
