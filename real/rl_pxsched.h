/* rl_pxsched: a scenario's `fault` blocks for one mirror carried out on a proxy at their
 * times (from the schedule's start): down closes the proxy's port and resets its connections
 * (a dead searchd: connects refused), flap(P) does that for the first half of each period,
 * partition is a blackhole toxic, and stall, stuck, slow(F) and errors(P) the toxics of those
 * names. Each toxic is named scenario_LINE (the fault's line), so the control API lists it and
 * can remove it early; a proxy deleted meanwhile is skipped. */
#ifndef RL_PXSCHED_H
#define RL_PXSCHED_H

#include "hk_scn.h"
#include "rl_pxset.h"

typedef struct rl_pxsched {
    rl_pxset *set;
    char proxy[RL_PROXY_NAME_MAX];
    struct rl_pxtimer *t;            /* two per fault: its start and its end */
    int nt;
    void (*on_change)(void *user, const char *what);
    void *user;
} rl_pxsched;

/* Start timers for the faults of host on proxy (by name) of set. 0, or -1 (out of memory). */
int rl_pxsched_start(rl_pxsched *s, rl_pxset *set, const char *proxy, const hk_scn *scn,
                     int host);
/* Stop the timers; they are freed once the loop lets go of them. */
void rl_pxsched_stop(rl_pxsched *s);

#endif
