/* rl_pxset: the proxies one `hareal proxy` process serves, by name — made from the command
 * line, from a toxiproxy-style JSON config (an array of {name, listen, upstream, enabled}),
 * or over the control API (rl_pxapi) — and their toxics, in and out as toxiproxy's JSON. */
#ifndef RL_PXSET_H
#define RL_PXSET_H

#include <jansson.h>
#include <uv.h>
#include "rl_proxy.h"

#define RL_PXSET_MAX 64              /* proxies in one process */

typedef struct rl_pxset {
    uv_loop_t *loop;
    rl_proxy *px[RL_PXSET_MAX];      /* each malloc'd */
    int n;
    uint64_t seed;                   /* proxy i draws from seed + i */
    uint64_t made;                   /* proxies ever made (seeds stay apart after a delete) */
} rl_pxset;

void rl_pxset_init(rl_pxset *s, uv_loop_t *loop, uint64_t seed);
/* A new proxy, listening unless enabled is 0. 0, or -1 with msg (409: the name is taken, or
 * the set is full; 400: an address is wrong; 500: it cannot listen) in *code. */
int rl_pxset_add(rl_pxset *s, const char *name, const char *listen, const char *upstream,
                 int enabled, int *code, char *msg, int n);
int rl_pxset_find(const rl_pxset *s, const char *name);
/* Stop proxy i and free it once the loop lets go of it. */
void rl_pxset_delete(rl_pxset *s, int i);
/* toxiproxy's /reset: every proxy enabled, every toxic removed. 0, or -1 (msg). */
int rl_pxset_reset(rl_pxset *s, char *msg, int n);
/* A JSON array of proxies: each made, or updated when its name exists (its upstream and
 * enabled). 0, or -1 with msg naming the entry and what was expected. */
int rl_pxset_populate(rl_pxset *s, const char *json, int *code, char *msg, int n);
/* One proxy from a JSON object ({name, listen, upstream, enabled}): made, or updated when
 * its name exists. 0 or -1 (msg, *code) as rl_pxset_add. */
int rl_pxset_entry(rl_pxset *s, json_t *e, int *code, char *msg, int n);
/* The proxy as toxiproxy writes one, with its toxics (a new reference). */
json_t *rl_pxset_proxy_json(const rl_proxy *p);
/* Every proxy stopped; freed once the loop lets go of them. */
void rl_pxset_free(rl_pxset *s);

#endif
