/* hk_watch: running masters' SHOW AGENT STATUS, snapshot after snapshot, read as it happens.
 * Each snapshot's 1-period window is a cell per host (hk_incident_cell: answers, failures by
 * kind, mean, dead or not); per mirror of each agent line it gives the attempts, the share of
 * the line, the ERROR replies (2.2.11 records none: its connects that no outcome accounts
 * for), and the weights in force, reconstructed by running the variant's own rule
 * (hk_strat_timer, then the variant's rebalance) over the observed windows: searchd prints
 * none. The findings carry hasim's kinds, thresholds and words, each raised when its evidence
 * holds in a window and cleared when a window shows it over:
 *   failing   >= 5% of >= 20 ended attempts fail or get an ERROR reply, >= 10 of them, beyond
 *             a healthy mirror's 1% at P < 1e-6 (binomial), in the last window or the last two
 *   dead      a window whose failures are refused connects (or errors) with no answer or >= 3
 *             errors in a row; stall the same with connect timeouts
 *   stuck     its attempts fell under a third of its usual rate while the other hosts' did
 *             not, and it holds searches: query timeouts, or connects with no outcome yet (it
 *             answers pings, so its errors in a row stay low); over once it answers at a third
 *             of its usual rate again, or the searches it held come back (a mean 10x its own)
 *   slow      a mean >= 2x and 1 ms above the median of its line's others, with >= 5% of the
 *             line and >= 20 answers in the window (hasim: 50 over the run)
 *   starved   under min(1%, a tenth of 1/N) of its line while healthy for >= 10 s, with
 *             P < 1e-6 (binomial) of so few at that share
 *   locked    >= 95% of the reconstructed probability for >= 10 s while the others are healthy
 *   takeover  within 30 s of a fault's end, a recovered mirror's window share >= 90%, beyond
 *             its pre-fault share at P < 1e-6; flood the same at >= 1.5x it and 10 points above
 *   herding   across masters: >= 50% (and >= 2/N) of all masters' attempts on a line, beyond
 *             1/N at P < 1e-6
 * A mirror without attempts in a window keeps its state (no evidence either way). Pure: the
 * caller passes each snapshot and its time; memory is bounded by the mirrors, never by the
 * snapshots. */
#ifndef HK_WATCH_H
#define HK_WATCH_H

#include "hk_cluster.h"
#include "hk_err.h"
#include "hk_incident.h"
#include "hk_statread.h"
#include "hk_variant.h"

#define HK_WATCH_HIST 30         /* healthy windows of a host kept for its usual rate and mean */
#define HK_WATCH_REC_S 30.0      /* flood and takeover: judged this long after a fault's end */
#define HK_WATCH_SLOW_ANSWERS 20 /* slow: answers in the window */
#define HK_WATCH_MASTERS_MAX 1000

typedef enum hk_wkind {
    HK_W_FAILING, HK_W_DEAD, HK_W_STALL, HK_W_STUCK, HK_W_SLOW, HK_W_STARVED, HK_W_LOCKED,
    HK_W_TAKEOVER, HK_W_FLOOD, HK_W_HERDING, HK_W_N
} hk_wkind;

typedef struct hk_wmirror {      /* one mirror of one line of one master */
    int host;                    /* the master's cluster host */
    double attempts, ok, errors; /* errors: ERROR replies (2.2.11's unaccounted connects) */
    double by[HK_EV_N];          /* the window's outcomes by kind */
    double mean_ms;              /* < 0: none */
    double share;                /* of its line's attempts in the window; < 0: the line had none */
    double prob;                 /* the probability a pick gives it (reconstructed) */
    int alive;
    unsigned active;             /* findings on: bit k for hk_wkind k */
    double pre_share;            /* its share over healthy windows (a running mean) */
    double starve_from, starve_mine, starve_all, lock_from;
    double rec_at, rec_pre;      /* its last fault's end, and its share before it */
    double last_bad, last_n;     /* the window before: bad and ended attempts */
} hk_wmirror;

typedef struct hk_wline {
    int table, line, n;          /* cl->tables[table].lines[line], n mirrors */
    int strategy;
    hk_wmirror *m;               /* owned */
    double *w;                   /* the variant's weights, its own unit (owned) */
    int64_t *timer;              /* what the rule read in the last window (owned) */
} hk_wline;

typedef struct hk_whost {
    hk_inc_cell cell;            /* its last window */
    int present;                 /* in the last snapshot */
    int hidden;                  /* ERROR replies in the last window */
    int hidden_prev;             /* ... in the window before */
    double by[HK_EV_N];          /* its outcomes by kind there */
    double msecs;                /* its msecsperqueryy there */
    unsigned bits;               /* its findings (FAILING, DEAD, STALL, STUCK bits) */
    double bad2, n2;             /* the window before: failed and ended attempts */
    int nrate, irate, nmean, imean;
    double rate[HK_WATCH_HIST];  /* attempts per second in healthy windows (a ring) */
    double mean[HK_WATCH_HIST];  /* ... and their mean answer times, ms */
} hk_whost;

typedef struct hk_wmaster {
    char name[128];
    const hk_cluster *cl;        /* the caller's */
    const hk_variant *var;
    double period_s;
    int nlines;
    hk_wline *lines;             /* owned */
    hk_whost *hosts;             /* owned, cl->nhosts */
    double t_s;                  /* its last snapshot, 0 before the first */
    long snaps;
} hk_wmaster;

typedef struct hk_wevent {
    double t_s;                  /* the snapshot's time, seconds since the epoch */
    int raised;                  /* 1 raised, 0 cleared */
    hk_wkind kind;
    int master;                  /* -1: across masters (herding) */
    int table, line, mirror;     /* cluster table, its line (0-based), the mirror in it */
    char evidence[400];
} hk_wevent;

typedef struct hk_wevents {
    int n, cap;
    hk_wevent *e;                /* owned */
} hk_wevents;

typedef struct hk_watch {
    int nmasters;
    hk_wmaster *m;               /* owned */
} hk_watch;

const char *hk_wkind_name(int k);        /* NULL past the last */
int hk_wkind_find(const char *name);     /* -1 if unknown */
int hk_wkind_severe(int k);

/* n masters, none set yet: NULL when out of memory. */
hk_watch *hk_watch_new(int n);
/* Master m follows cl's lines (kept by the caller while the watch lives) under var, its
 * windows period_s long. 0, or -1 with e (no memory). */
int hk_watch_master(hk_watch *w, int m, const char *name, const hk_cluster *cl,
                    const hk_variant *var, double period_s, hk_err *e);
/* Master m's snapshot st taken at t_s: its windows read, the weights rebalanced, the findings
 * judged; each raised or cleared appended to ev. 0, or -1 with e (not after the last one, or
 * no memory). */
int hk_watch_feed(hk_watch *w, int m, double t_s, const hk_status_file *st, hk_wevents *ev,
                  hk_err *e);
/* Findings on now: how many of kind k (k < 0: any) across every master. */
int hk_watch_active(const hk_watch *w, int k);
void hk_watch_free(hk_watch *w);
void hk_wevents_free(hk_wevents *ev);

#endif
