/* hk_strat: ha_strategy — choosing one mirror of an agent line. One interface
 * for every strategy: hk_line_choose() picks (and may lazily recompute the
 * line's weights, as searchd does), hk_line_probs() reports the selection
 * probability in force without changing the line's state (it uses the
 * line's caches only). Dashboards must outlive the lines that use them; change
 * a dashboard's fields by hand only followed by hk_dash_changed(). A new strategy is one more
 * row in the ops table (hk_strat.c); callers do not change.
 * Randomness comes from the caller's seeded GSL generator. */
#ifndef HK_STRAT_H
#define HK_STRAT_H

#include <gsl/gsl_rng.h>
#include <stdint.h>
#include "hk_dash.h"
#include "hk_stree.h"
#include "hk_variant.h"

enum {
    HK_STRAT_RANDOM, HK_STRAT_ROUNDROBIN, HK_STRAT_NODEADS, HK_STRAT_NOERRORS,
    HK_STRAT_SEARCHD_N,          /* searchd's own end here; hakarma extensions follow */
    HK_STRAT_P2C = HK_STRAT_SEARCHD_N, HK_STRAT_LEAST_OUT, HK_STRAT_PEAK_EWMA, HK_STRAT_C3,
    HK_STRAT_N
};

#define HK_LINE_MAX_MIRRORS (1 << 20)

/* Runtime state of one agent line as one master sees it. */
typedef struct hk_line {
    /* what a pick reads, together: the first cache line, then the tree's flat class */
    int n;                       /* mirrors */
    int strat;
    int64_t calm_lo_us, calm_hi_us; /* no recomputation is due for times in [lo, hi) */
    int64_t wid_lo_us, wid_hi_us; /* the times the keys' window covers */
    int tree_ok;
    int ndirty;
    hk_stree tree;               /* health strategies: class keys and weights in a segment tree */
    /* the rest */
    int *outstanding;            /* per mirror: attempts in flight from this master */
    int *dirty;                  /* mirrors whose dashboard changed since the last pick */
    hk_dash **dash;              /* per mirror: its host's dashboard (not owned) */
    const hk_variant *var;
    double *w;                   /* weights, variant's unit */
    int64_t last_recalc_s;       /* IsHalfPeriodChanged timestamp */
    int64_t last_block;          /* per-period variants: block of the last recompute */
    uint64_t rr;                 /* roundrobin counter */
    uint64_t recalcs;            /* weight recomputations done */
    int64_t *timers;             /* scratch: per-mirror timers */
    int64_t wid;                 /* window the keys were computed for */
    void *subs;                  /* dashboard subscriptions (one per mirror) */
    struct hk_ext *ext;          /* extension strategies: per-mirror view (NULL otherwise) */
    double *scratch;             /* per mirror */
} hk_line;

typedef struct hk_strat_ops {
    const char *name;
    int adaptive;                /* uses statistics and weights */
    int extension;               /* a hakarma extension: not searchd's */
    int (*choose)(hk_line *l, int64_t now_us, gsl_rng *r);
    void (*probs)(hk_line *l, int64_t now_us, double *p);
} hk_strat_ops;

/* searchd's strategy by name, prefix-matched as searchd does ("nodeadstm" = nodeads); -1 if
 * none (a config's ha_strategy: the extensions are not searchd's). */
int hk_strat_find(const char *value);
/* Any strategy, searchd's or an extension, by its exact name (command lines, grids, scenario
 * sim sections, claims: a prefix there is a typo, not searchd's reading); -1 if none. */
int hk_strat_find_any(const char *value);
/* The i-th strategy's name (searchd's four, then the extensions), NULL past the last. */
const char *hk_strat_name_at(int i);
const hk_strat_ops *hk_strat_get(int id);
/* "random, roundrobin, nodeads or noerrors" — searchd's names, for messages. */
const char *hk_strat_names(void);
/* ... and the extensions too. */
const char *hk_strat_all_names(void);

hk_line *hk_line_new(int n, hk_dash **dash, int strat, const hk_variant *var);
void hk_line_free(hk_line *l);
/* The master loaded the line at now_us (searchd: its config load, when each line takes its
 * recompute timestamp): the first recomputation waits until more than floor(K/2) s after it.
 * A line never told recomputes at its first pick. */
void hk_line_born(hk_line *l, int64_t now_us);
int hk_line_choose(hk_line *l, int64_t now_us, gsl_rng *r);
void hk_line_probs(hk_line *l, int64_t now_us, double *p);
/* An attempt on mirror i starts; it ends with ok (a usable reply) after latency_us. The
 * master's view of what is outstanding and how fast each mirror answers, for the strategies
 * that need it (searchd's do not). Every attempt that begins must end. */
void hk_line_begin(hk_line *l, int i, int64_t now_us);
void hk_line_end(hk_line *l, int i, int64_t now_us, int ok, int64_t latency_us);
/* What mirror i reported with the reply about to end (its service time and the time the query
 * waited in its queue, us; < 0 unknown), for c3. */
void hk_line_feedback(hk_line *l, int i, double svc_us, double wait_us);

/* Exposed for tests: the per-mirror timer the variant feeds to the weights. */
int64_t hk_strat_timer(const hk_variant *v, const hk_block *window);

#endif
