/* rl_addr: where each mirror host of a cluster is on the network: IPv4
 * literals as written, names resolved once at start (as searchd does at
 * config load), and --map host:port=ip:port overrides (hareal live maps every
 * scenario host to a loopback port); and the loopback ports hareal live hands
 * out and waits on. */
#ifndef RL_ADDR_H
#define RL_ADDR_H

#include <netinet/in.h>
#include "hk_cluster.h"

/* maps: "host:port=ip:port" strings. Returns 0, or -1 with msg naming the host. */
int rl_addr_resolve(const hk_cluster *cl, const char *const *maps, int nmaps,
                    struct sockaddr_in *out, char *msg, int n);
int rl_addr_parse(const char *s, char *host, int nhost, int *port);
/* Loopback ports: one the kernel picks free now (-1: none); whether port can be bound now
 * (0 with errno set when not); whether something accepts connections on it. */
int rl_port_any(void);
int rl_port_free(int port);
int rl_port_up(int port);

#endif
