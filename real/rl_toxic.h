/* rl_toxic: the faults `hareal proxy` injects, in toxiproxy's shape (a named toxic of a type,
 * a stream, a toxicity — the probability it acts on one request — and attributes), with the
 * scenario language's kinds. Read from and written as JSON (jansson), and what the toxics on
 * a proxy do to one request of the agent protocol (rl_toxics_plan). No sockets here.
 *
 *   stall      nothing passes either way (a stopped searchd); resumes when removed
 *   stuck      searches held unanswered, pings answered (resumed when removed)
 *   blackhole  everything the master sends is dropped, nothing is answered
 *   refuse     a new connection is reset at once (toxicity: the share refused)
 *   errors     a search answered with an ERROR reply, never sent upstream
 *   warnings   a search's reply turned into a WARNING reply (attributes.message)
 *   latency    the reply held attributes.latency ms ± attributes.jitter ms
 *   slow       the reply held so the upstream's time is attributes.factor times longer
 *   bandwidth  the reply sent at attributes.rate KB/s
 *   reset      half the reply sent, then the connection reset
 * attributes.command ("search", "ping" or "any") picks the requests a toxic acts on; by
 * default searches, but latency and bandwidth act on any. */
#ifndef RL_TOXIC_H
#define RL_TOXIC_H

#include <gsl/gsl_rng.h>
#include <jansson.h>
#include <stdint.h>

typedef enum rl_tx_kind {
    RL_TX_STALL, RL_TX_STUCK, RL_TX_BLACKHOLE, RL_TX_REFUSE, RL_TX_ERRORS, RL_TX_WARNINGS,
    RL_TX_LATENCY, RL_TX_SLOW, RL_TX_BANDWIDTH, RL_TX_RESET, RL_TX_N
} rl_tx_kind;

enum { RL_TX_ON_SEARCH = 1, RL_TX_ON_PING = 2, RL_TX_ON_ANY = 3 };

#define RL_TX_NAME_MAX 64
#define RL_TX_MSG_MAX 200
#define RL_TX_MAX 32                 /* toxics on one proxy */

typedef struct rl_toxic {
    char name[RL_TX_NAME_MAX];
    rl_tx_kind kind;
    int upstream;                    /* stream: 0 downstream (default), 1 upstream */
    double toxicity;                 /* 0..1, default 1 */
    int on;                          /* RL_TX_ON_* */
    double latency_ms, jitter_ms, factor, rate_kbs;
    char message[RL_TX_MSG_MAX];
} rl_toxic;

/* What the toxics do to one request. */
typedef struct rl_tx_plan {
    int hold;                        /* stuck: not sent upstream until the toxic goes */
    int error;                       /* answer ERROR here (msg) */
    int warning;                     /* turn the reply into a WARNING (msg) */
    int reset;                       /* half the reply, then reset */
    double delay_ms, factor;         /* held after the reply: delay + (factor-1) x upstream */
    double rate_kbs;                 /* 0: at once */
    char msg[RL_TX_MSG_MAX];
} rl_tx_plan;

const char *rl_tx_kind_name(rl_tx_kind k);
/* A toxic from its JSON text (a POST body). base: the toxic it updates, or NULL for a new
 * one. 0, or -1 with msg saying what was expected. */
int rl_toxic_from_json(const char *json, const rl_toxic *base, rl_toxic *t, char *msg, int n);
/* A toxic from the scenario language: stall, stuck, down (refuse), partition (blackhole),
 * errors(P), warnings(P), slow(F), latency(MS), bandwidth(KBS), reset(P). 0 or -1. */
int rl_toxic_from_spec(const char *spec, rl_toxic *t, char *msg, int n);
/* The toxic as toxiproxy writes one (a new reference). */
json_t *rl_toxic_json(const rl_toxic *t);
/* The plan for one request (ping: 1 for PING, 0 for SEARCH); each toxic that applies acts
 * with its toxicity (one draw from rng each). */
void rl_toxics_plan(const rl_toxic *ts, int n, int ping, gsl_rng *rng, rl_tx_plan *p);
/* 1 when a toxic of that kind is on. */
int rl_toxics_have(const rl_toxic *ts, int n, rl_tx_kind k);

/* 0 when every key of object o is one of keys (NULL-ended); else -1 with msg naming the key
 * and the expected ones. */
int rl_json_only(json_t *o, const char *const *keys, const char *what, char *msg, int n);
/* 1 when s is a name of 1 to max-1 bytes of letters, digits and _ . : - (a URL segment, a line of
 * the change log). */
int rl_name_ok(const char *s, size_t max);

#endif
