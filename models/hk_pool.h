/* hk_pool: the persistent-connection pool a master keeps per agent host
 * (`agent_persistent`, `conn=pconn`; persistent_connections_limit slots),
 * by each implementation's rule, and nothing else: which connection an
 * attempt rents, when it must open one, when it falls back to a plain
 * connection, and what a return does. Whether a pooled connection still
 * works (its peer went down since) is the caller's to say: the pool holds
 * each connection as a time in µs the caller gives it back with (the
 * simulator's: when it last answered).
 *   stack       Sphinx 2.2.11 (RentPersistent): the limit's slots exist
 *               from the start, empty; the last returned is rented first.
 *   ring        Manticore 14.6.3 and later (PersistentConnectionsPool_c):
 *               slots added one by one as attempts find none free, up to
 *               the limit; the first returned is rented first.
 * In both a failed request closes its connection, and a pooled connection
 * whose agent closed it is replaced when rented, without a failure
 * (Manticore peeks at it; a real 2.2.11 master whose agent was killed and
 * restarted between two searches sent the next on a new connection, no
 * warning).
 *   ring-stuck  Manticore before 14.6.3: the same ring whose read and write
 *               positions never advance (Step() moved its pointer instead
 *               of the index, and wrote 0 to the member after it): a return
 *               can overwrite an idle connection (leaked: never closed,
 *               holding a worker on the agent), the count of free ones is
 *               reset when it reaches the ring's length, and a connection
 *               can be rented twice at once.
 * close_on_fatal: Manticore PR #4748: a failed request also closes every
 * idle connection of the host's pool. */
#ifndef HK_POOL_H
#define HK_POOL_H

#include <stdint.h>

typedef enum hk_pool_rule { HK_POOL_STACK, HK_POOL_RING, HK_POOL_RING_STUCK, HK_POOL_RULES } hk_pool_rule;

enum {
    HK_POOL_NEW = -1,            /* rent: a slot without a connection: open one (and say PERSIST) */
    HK_POOL_NONE = -2            /* rent: no slot free: a plain connection, closed after */
};

typedef struct hk_pool_slot {
    int64_t conn;                /* when its connection was opened (µs), or HK_POOL_NEW */
    int idle;                    /* returned and not rented since */
} hk_pool_slot;

typedef struct hk_pool {
    hk_pool_rule rule;
    int close_on_fatal;
    int limit, len;              /* slots allowed, slots that exist */
    int rit, wit, nfree;         /* the ring's read and write positions, free slots (the
                                    stack's free count is nfree) */
    hk_pool_slot *slot;          /* limit of them */
    uint64_t leaked, shared;     /* ring-stuck: idle connections overwritten (never closed);
                                    rents of a connection already rented */
} hk_pool;

/* limit >= 1. 0, or -1 out of memory (*p zeroed). */
int hk_pool_init(hk_pool *p, hk_pool_rule rule, int limit, int close_on_fatal);
void hk_pool_free(hk_pool *p);
/* The connection an attempt starts on: when it was opened or last answered, >= 0 (pooled,
 * reused); HK_POOL_NEW or HK_POOL_NONE. */
int64_t hk_pool_rent(hk_pool *p);
/* The attempt's end: its connection back (conn >= 0, still open), or HK_POOL_NEW (closed: a
 * failure, or a pooled connection found gone). Never for a HK_POOL_NONE rent. 1 kept; 0 the
 * pool had no room for it: the caller closes it. */
int hk_pool_return(hk_pool *p, int64_t conn);
/* A request failed (a network error, a timeout): with close_on_fatal, every idle connection is
 * closed; returns how many, the first cap of them in closed (NULL: not wanted) for the caller
 * to close. */
int hk_pool_fatal(hk_pool *p, int64_t *closed, int cap);
/* A rule's name ("stack", "ring", "ring-stuck"), its index from a name (-1 if none), the rule
 * of a variant (hk_variant_id). */
const char *hk_pool_rule_name(hk_pool_rule r);
/* The rule a run keeps: the scenario's pool = (scn_rule >= 0), else the variant's. */
hk_pool_rule hk_pool_rule_pick(int scn_rule, int variant);
int hk_pool_rule_find(const char *name);
hk_pool_rule hk_pool_rule_of(int variant);

/* One pool per host of cl (cl->nhosts of them), set up for each host a persistent line reaches
 * (slot NULL: none does): NULL out of memory. Freed with hk_pool_hosts_free. */
struct hk_cluster;
hk_pool *hk_pool_hosts_new(const struct hk_cluster *cl, hk_pool_rule rule, int close_on_fatal);
void hk_pool_hosts_free(hk_pool *p, int nhosts);

#endif
