/* hk_find_int: what the two halves of the analysis share — the run under
 * analysis and the helpers that read it. hk_find.c judges how the strategy
 * moved (convergence, starved, locked, flood, herding, overload);
 * hk_find_facts.c judges the plain facts of each mirror (failing, slow,
 * idle tables). Private to them. */
#ifndef HK_FIND_INT_H
#define HK_FIND_INT_H

#include "hk_find.h"

typedef struct fx {              /* the analysis under way */
    const hk_find_in *in;
    const hk_tl *tl;
    hk_findings *out;
    double bin_s;                /* bin width, seconds */
    int win;                     /* bins in HK_WINDOW_S */
    int end_bin;                 /* bins of the run proper (queries draining after are left out) */
} fx;

static inline const hk_cluster *hk_find_cl(const fx *x) { return x->in->scn->cl; }
static inline const char *hk_find_host(const fx *x, int h) { return hk_find_cl(x)->hosts[h].name; }
static inline double hk_find_secs(const fx *x, int k) { return k * x->bin_s; }

/* Append a finding; -1 out of memory. */
int hk_find_add(fx *x, const char *kind, int master, int table, int line, int host, double t_s,
                const char *fmt, ...) HK_PRINTF(8, 9);
/* The fault in force on host at bin k's end (fault times count from the run's start). */
hk_fault_kind hk_find_fault_in_bin(const fx *x, int host, int k);
/* A fault during which the mirror answers nothing (down, stall, stuck, partition, flap). */
int hk_find_is_outage(hk_fault_kind k);
/* The strategy that ran on a line: the run's override, or the line's own. */
int hk_find_strategy(const fx *x, int table, int line);
/* Attempts of a line (series first .. first + nmirrors) over bins [k0, k1). */
uint64_t hk_find_line_q(const fx *x, int first, int k0, int k1);

/* hk_find_facts.c: failing and slow mirrors of the line starting at series first; idle. */
int hk_find_failing(fx *x, int first);
int hk_find_slow(fx *x, int first);
/* Series s fails (or warns on) HK_FAILING_RATE of its attempts outside its outages, however
 * few: not a healthy mirror, so leaving it alone is no starving. */
int hk_find_unhealthy(const fx *x, int first, int s);
/* Series s answers in HK_SLOW_FACTOR x (and HK_SLOW_MIN_MS more than) its line's others, over
 * however few answers: an extension that ranks by latency and leaves it alone is working, not
 * starving it (searchd's weights promise a slow mirror a share in proportion, not nothing). */
int hk_find_lags(const fx *x, int first, int s);

#endif
