/* rl_cluster: a scenario's mirrors as `hareal mirror` children, each on its own loopback
 * port, and its faults applied to them for real on schedule (down: kill and restart; stall:
 * SIGSTOP and SIGCONT; stuck, slow, errors, partition, flap: the child's control line) — or,
 * for a mirror that is one of the operator's real agents, an `hareal proxy` child in front of
 * it, whose own schedule starts with the run; every child stopped at the end, on an error or
 * a signal. */
#ifndef RL_CLUSTER_H
#define RL_CLUSTER_H

#include <stdint.h>

#include <netinet/in.h>
#include <uv.h>
#include "hk_scn.h"

typedef struct rl_child {
    uv_process_t proc;
    uv_pipe_t in;
    int running, stopped, port, host, pipe_open;
    int mport;                   /* its /metrics port, 0 none */
    int starts;                  /* times started (a down fault restarts it) */
    int aport;                   /* a proxy child's control API port */
    struct rl_cluster *lv;
} rl_child;

typedef struct rl_ftimer {
    uv_timer_t t;
    struct rl_cluster *lv;
    const hk_fault *f;
    int phase;                   /* 0 start, 1 end, 2 flap toggle */
    int down;
} rl_ftimer;

/* Fill loop, s, self (the hareal binary), scn (the scenario path the children read) and seed
 * (each mirror child draws from its own stream of it, hk_seed_stream); the rest is the
 * cluster's. */
typedef struct rl_cluster {
    uv_loop_t *loop;
    rl_child *ch;
    int n;
    rl_ftimer *ft;
    int nft;
    char self[1024], scn[1024];
    uint64_t seed;
    int ending;
    int base_port;               /* mirror h on base_port + h; 0: each on a free port */
    int metrics_base;            /* mirror h serves /metrics on metrics_base + h; 0: none */
    const char *base_what, *metrics_what;  /* what the front end calls them, for errors */
    const hk_scn *s;             /* the scenario in the variant's dialect */
    const char *logdir;          /* each child logs its queries to LOGDIR/mirror-H.START.csv */
    int defer_faults;            /* rl_cluster_faults schedules them, not rl_cluster_start */
    const char *const *upstream; /* per host, or NULL: a real agent (IP:PORT) that host is, run
                                    behind an `hareal proxy` child which carries out its faults
                                    (the rest are `hareal mirror` children) */
    hk_say say;                  /* the mirrors up, with their ports */
} rl_cluster;

/* Start every mirror (addr[h]: where host h listens), wait until each accepts (said to
 * lv->say), schedule the faults; -1 with e saying which did not start, or which pinned port is
 * in use or past 65535 (stop the cluster then). */
int rl_cluster_start(rl_cluster *lv, struct sockaddr_in *addr, hk_err *e);
/* With defer_faults: schedule the faults from now (0, -1 no memory). */
int rl_cluster_faults(rl_cluster *lv);
/* Stop every child and fault timer (user: the cluster; usable as a drive's end callback). */
void rl_cluster_stop(void *user);

#endif
