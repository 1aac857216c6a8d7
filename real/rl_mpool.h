/* rl_mpool: a wire master's persistent connections, one pool per agent host by hk_pool's rule
 * (the variant's: Sphinx 2.2.11's stack or Manticore's ring), over real sockets: a pooled
 * connection is its descriptor. Renting one checks it (a peek: a peer that closed or reset is
 * seen, the socket closed and a new one opened in its slot, as both masters do), and whatever
 * the pool lets go is closed here. */
#ifndef RL_MPOOL_H
#define RL_MPOOL_H

#include "hk_cluster.h"
#include "hk_pool.h"

typedef struct rl_mpool {
    int nhosts;
    hk_pool *p;                  /* per host; slot NULL: no persistent line reaches it */
} rl_mpool;

/* A pool for every host a persistent line of cl reaches (rule: HK_POOL_STACK or HK_POOL_RING).
 * 0, or -1 out of memory (*mp freed). */
int rl_mpool_init(rl_mpool *mp, const hk_cluster *cl, hk_pool_rule rule, int close_on_fatal);
/* Close every pooled socket and free the pools. */
void rl_mpool_free(rl_mpool *mp);
int rl_mpool_has(const rl_mpool *mp, int host);
/* A socket to send on (>= 0: pooled and checked), HK_POOL_NEW (open one, say
 * PERSIST, give it back after) or HK_POOL_NONE (a plain connection); *stale: 1 when a pooled
 * socket found closed was dropped. */
int rl_mpool_rent(rl_mpool *mp, int host, int *stale);
/* An attempt holding a slot ended: fd open and fine (keep), or failed (fd closed here, or -1
 * for none); a failure closes the idle ones too under close-on-fatal. */
void rl_mpool_back(rl_mpool *mp, int host, int fd, int keep);

#endif
