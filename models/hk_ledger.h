/* hk_ledger: what a run's masters did on each route (a mirror of an agent line of a table),
 * the one record both engines keep. An engine counts a karma period in an hk_lper of its own
 * (kept beside its hot data: the simulator's route, the wire master's line), writes the
 * period's row from it, then folds it into the ledger's totals (hk_ledger_fold); the run's
 * per-mirror rows (summary.csv, the mirror table, --compare-sim) are read from the totals
 * alone (io/hk_report: hk_rep_rows). Routes are numbered as the engines number agent lines:
 * tables in the config's order, each table's lines in order (li), then the line's mirrors. */
#ifndef HK_LEDGER_H
#define HK_LEDGER_H

#include <stdint.h>
#include "hk_cluster.h"
#include "hk_hist.h"

/* One route, this karma period. */
typedef struct hk_lper {
    uint64_t q, err;             /* attempts routed, failed */
    double psum;                 /* sum of the sampled probabilities ... */
    int pn;                      /* ... and how many samples */
    hk_hist per;                 /* latency of the successful attempts, us */
} hk_lper;

/* One route, the run so far. */
typedef struct hk_ltot {
    uint64_t q, err, ok;         /* attempts, failed, succeeded */
    hk_hist lat;                 /* latency of the successful attempts, us */
    uint64_t connects;           /* connections opened by its attempts */
    uint64_t hits, misses, fallbacks; /* the persistent pool's answers: a pooled connection
                                    reused, a slot opened, no slot free (a plain connection) */
} hk_ltot;

typedef struct hk_ledger {
    const hk_cluster *cl;        /* not owned */
    int nli;                     /* agent lines of every table */
    int *li_base;                /* per table: its first line's li */
    hk_ltot **tot;               /* [li][mirror] */
} hk_ledger;

/* A ledger of cl's routes, every total zero: 0, or -1 out of memory (L then freeable). */
int hk_ledger_init(hk_ledger *L, const hk_cluster *cl);
void hk_ledger_free(hk_ledger *L);
/* Route (li, mirror j)'s totals. */
static inline hk_ltot *hk_ledger_at(const hk_ledger *L, int li, int j) { return &L->tot[li][j]; }
/* A closed period's counts and latencies added to t; p's counts and histogram emptied (its
 * probability samples are the engine's to reset). */
void hk_ledger_fold(hk_ltot *t, hk_lper *p);

#endif
