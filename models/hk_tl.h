/* hk_tl: a run's fine timeline — for every series (one master x agent line x
 * mirror) and every time bin (1 s to start with): attempts routed, attempts
 * failed, summed latency of the successful ones, and the selection
 * probability and weight share in force at the bin's end; per bin the
 * queries answered, partial and failed. Both programs fill one, and every
 * analysis (shares, re-admission, convergence, findings, the plots' timeline)
 * reads it. Memory is bounded by the series, not by time: when a run outgrows
 * the bins, neighbouring bins are merged and the width doubles. */
#ifndef HK_TL_H
#define HK_TL_H

#include <stddef.h>
#include <stdint.h>
#include "hk_ev.h"

typedef struct hk_tl_cell {      /* what attempts write */
    uint64_t lat_us;             /* summed latency of the successful attempts, µs (exact) */
    uint32_t q;                  /* attempts routed here (counted when they start) */
    uint32_t ok, err;            /* attempts that succeeded, failed (counted when they end) */
    uint32_t warn;               /* answers with a warning among ok (a cell has no padding: runs
                                    compare cells bytewise) */
} hk_tl_cell;

typedef struct hk_tl_smp {       /* what samples write, apart: attempts never read it */
    float prob;                  /* selection probability at the bin's end (NaN: not sampled) */
    float wshare;                /* this mirror's weight / the line's summed weight, likewise */
} hk_tl_smp;

typedef struct hk_tl_bin {       /* whole queries (all masters) */
    uint32_t ok, partial, failed;
} hk_tl_bin;

typedef struct hk_tl_series {    /* who a series is */
    int master, table, line, mirror, host, nmirrors;
} hk_tl_series;

typedef struct hk_tl {
    int nser;                    /* master-major, then line, then mirror: a line's mirrors are
                                    contiguous, and every master has the same block of series */
    hk_tl_series *ser;           /* owned */
    int nbins, cap;              /* bins in use (those beyond hold garbage until reached),
                                    bins kept per series */
    int64_t t0_us, width_us;     /* bin k covers [t0 + k*width, t0 + (k+1)*width) */
    hk_tl_cell *c;               /* [cap][series]: bin-major, so the cells a moment writes lie
                                    together however many series there are */
    hk_tl_smp *sm;               /* [cap][series], likewise */
    hk_tl_bin *b;                /* [cap] */
    uint64_t *kinds;             /* [series][2][HK_EV_ALL]: every failed outcome of the run by
                                    kind, at whatever the moment (the bins hold ok/err only);
                                    then those during a declared outage of its host */
    const struct hk_scn *faults; /* the declared faults (NULL: none), borrowed */
    int64_t lo_us, hi_us;        /* the last bin looked up covers [lo, hi): no division */
    int last;
} hk_tl;

/* cap bins at most per series (a power of two; 0 = choose from nser so that the cells take at
 * most about 64 MB, and the samples a third of that, between 16 and 4096 bins). */
int hk_tl_init(hk_tl *t, const hk_tl_series *ser, int nser, int64_t t0_us, int64_t width_us,
               int cap);
void hk_tl_free(hk_tl *t);
/* Count the outcomes during a declared outage of a series' host (down, stall, stuck, partition,
 * flap; fault times from t0) apart as well; scn is borrowed and must outlive t. */
void hk_tl_set_faults(hk_tl *t, const struct hk_scn *scn);
/* The bin of time t (merging bins if t lies beyond them); -1 before t0. */
int hk_tl_bin_slow(hk_tl *t, int64_t t_us);
static inline int hk_tl_bin_of(hk_tl *t, int64_t t_us)
{
    if (t_us >= t->lo_us && t_us < t->hi_us) /* most lookups fall in the bin of the last one */
        return t->last;
    return hk_tl_bin_slow(t, t_us);
}
static inline hk_tl_cell *hk_tl_cell_at(const hk_tl *t, int s, int k)
{
    return &t->c[(size_t)k * (size_t)t->nser + (size_t)s];
}
static inline hk_tl_smp *hk_tl_smp_at(const hk_tl *t, int s, int k)
{
    return &t->sm[(size_t)k * (size_t)t->nser + (size_t)s];
}
void hk_tl_attempt(hk_tl *t, int s, int64_t t_us);
/* An attempt's outcome (an hk_ev): ok if hk_ev_ok(ev), with its latency then. */
void hk_tl_outcome(hk_tl *t, int s, int64_t t_us, int ev, int64_t lat_us);
static inline const uint64_t *hk_tl_kinds(const hk_tl *t, int s)
{
    return &t->kinds[(size_t)s * 2 * HK_EV_ALL];
}
void hk_tl_sample(hk_tl *t, int s, int64_t t_us, double prob, double wshare);
/* status 0 ok, 1 partial, 2 failed. */
void hk_tl_query(hk_tl *t, int64_t t_us, int status);
/* Carry each series' last sampled probability into the bins that have none (call at the end). */
void hk_tl_fill(hk_tl *t);
/* Time of bin k's start / end, in µs since t0. */
static inline int64_t hk_tl_start(const hk_tl *t, int k) { return (int64_t)k * t->width_us; }

/* The share of series s among its line's series (same master, table, line: contiguous, starting
 * at first) over bins [k0, k1); NaN when the line had no attempt. */
double hk_tl_share(const hk_tl *t, int first, int s, int k0, int k1);

#endif
