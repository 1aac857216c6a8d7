/* rl_proxy: one protocol-aware TCP proxy between masters and one real agent (searchd 2.2.11
 * or Manticore). Each master connection gets its own upstream connection; both streams are
 * framed as the agent protocol (the hellos, then requests one way and replies the other) and
 * passed on byte for byte, unless a toxic (rl_toxic) says otherwise for that request. The
 * toxics can change at any time: a held request goes on when its toxic goes. */
#ifndef RL_PROXY_H
#define RL_PROXY_H

#include <netinet/in.h>
#include <stdio.h>
#include <uv.h>
#include "hk_buf.h"
#include "rl_ep.h"
#include "rl_prom.h"
#include "rl_toxic.h"

#define RL_PROXY_NAME_MAX 64
#define RL_PROXY_CONNS_MAX 4096      /* master connections at once; more are reset */

/* What happened to the requests (ping or search) through the proxy. */
typedef enum rl_px_act {
    RL_PX_PASSED, RL_PX_ERROR, RL_PX_WARNING, RL_PX_HELD, RL_PX_DELAYED, RL_PX_RESET,
    RL_PX_DROPPED, RL_PX_N
} rl_px_act;

typedef struct rl_proxy_stats {
    uint64_t accepted, refused, upstream_failed, persist;
    uint64_t listen_failed;          /* the port could not be listened on again */
    uint64_t req[2][RL_PX_N];        /* [0 search, 1 ping][action] */
    rl_prom_hist upstream[2];        /* the upstream's time per request, toxics aside */
} rl_proxy_stats;

typedef struct rl_proxy {
    uv_loop_t *loop;
    char name[RL_PROXY_NAME_MAX], listen[64], upstream[64];
    struct sockaddr_in up_addr;
    rl_ep *ep;                   /* the epoll set of its sockets (rl_ep) */
    rl_epw srv;                  /* the listener (fd -1: not listening) */
    int spare_fd;                /* a descriptor kept to shed connections at EMFILE */
    int enabled, nconns;
    rl_toxic tx[RL_TX_MAX];
    int ntx;
    gsl_rng *rng;
    struct rl_pconn *conns;
    rl_proxy_stats st;
    FILE *log;                   /* one CSV row per search, as hareal mirror's --log, or NULL */
} rl_proxy;

const char *rl_px_act_name(rl_px_act a);
/* A proxy on listen (IP:PORT) to upstream (IP:PORT), not yet listening. 0, or -1 (msg). */
int rl_proxy_init(rl_proxy *p, uv_loop_t *loop, const char *name, const char *listen,
                  const char *upstream, uint64_t seed, char *msg, int n);
/* Listen (enabled = 1), or stop listening and reset every connection (enabled = 0), as
 * toxiproxy's enabled does. 0, or -1 (msg: the port and why). */
int rl_proxy_enable(rl_proxy *p, int enabled, char *msg, int n);
/* Add a toxic (-1: its name is taken, or RL_TX_MAX reached; msg), replace one of that name
 * (rl_proxy_set), remove one (-1: no such toxic), or all; each takes effect at once. */
int rl_proxy_add(rl_proxy *p, const rl_toxic *t, char *msg, int n);
int rl_proxy_find(const rl_proxy *p, const char *name);
void rl_proxy_set(rl_proxy *p, int i, const rl_toxic *t);
int rl_proxy_remove(rl_proxy *p, const char *name);
void rl_proxy_clear(rl_proxy *p);
/* Stop (rl_proxy_enable(p, 0)) and free what it owns; p itself may be freed at once (the
 * handles the loop still closes are not in it). */
void rl_proxy_free(rl_proxy *p);
/* rl_proxy_prom.c: the counters of n proxies as Prometheus metrics (hakarma_proxy_*, one
 * sample per proxy, labelled proxy="NAME"). */
void rl_proxy_metrics(rl_proxy *const *ps, int n, hk_buf *b);

#endif
