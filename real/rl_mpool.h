/* rl_mpool: a wire master's persistent connections, one pool per agent host by hk_pool's rule
 * (the variant's: Sphinx 2.2.11's stack or Manticore's ring), over real sockets: a pooled
 * connection is its descriptor. A pooled socket stays in the master's epoll set from its first
 * search to its close, under a watcher the pool owns and lends to each attempt on it, so reusing
 * one costs its send and its read, no registration. Idle, a peer that closes or resets it is
 * heard and the socket marked; renting one checks it (that mark, then a peek, as searchd does),
 * and a socket found closed is closed and a new one opened in its slot. Whatever the pool lets
 * go is closed here. */
#ifndef RL_MPOOL_H
#define RL_MPOOL_H

#include "hk_cluster.h"
#include "hk_pool.h"
#include "rl_ep.h"

typedef struct rl_mpool rl_mpool;

typedef struct rl_pconn {        /* a pooled socket, by descriptor (allocated once: the set holds
                                    its watcher's address) */
    rl_epw w;                    /* its watcher, in the set while the socket is open */
    int dead;                    /* heard closed (or talking) while idle */
    rl_mpool *mp;
} rl_pconn;

struct rl_mpool {
    int nhosts;
    hk_pool *p;                  /* per host; slot NULL: no persistent line reaches it */
    rl_ep *ep;
    rl_pconn **pc;               /* by descriptor */
    int npc;
};

/* A pool for every host a persistent line of cl reaches (rule: HK_POOL_STACK or HK_POOL_RING),
 * its sockets watched in ep. 0, or -1 out of memory (*mp freed). */
int rl_mpool_init(rl_mpool *mp, const hk_cluster *cl, hk_pool_rule rule, int close_on_fatal,
                  rl_ep *ep);
/* Close every pooled socket and free the pools. */
void rl_mpool_free(rl_mpool *mp);
int rl_mpool_has(const rl_mpool *mp, int host);
/* A socket to send on (>= 0: pooled and checked; one found closed is closed here and its slot
 * given as HK_POOL_NEW), HK_POOL_NEW (open one, say PERSIST, give it back after) or
 * HK_POOL_NONE (a plain connection). */
int rl_mpool_rent(rl_mpool *mp, int host);
/* The watcher a rented pooled socket's attempt uses (cb and data are the attempt's to set). */
rl_epw *rl_mpool_watcher(rl_mpool *mp, int fd);
/* An attempt holding a slot ended. keep: its socket (under w, its own watcher or the pool's)
 * answered and goes back, w emptied; else it failed: w's socket (none: w NULL) is closed, and
 * under close-on-fatal the idle ones too. -1 out of memory (the socket closed). */
int rl_mpool_back(rl_mpool *mp, int host, rl_epw *w, int keep);

#endif
