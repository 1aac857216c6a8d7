/* hk_incident: a series of SHOW AGENT STATUS snapshots (a cron scrape, an exporter's dumps) read
 * as the timeline of an incident. Each snapshot's 1-period window is the evidence of the moments
 * before it: per host its answers, its failures by kind, its mean query time and its errors in
 * a row. A host is dead in a window when it failed there and either answered nothing or had 3
 * or more errors in a row (nodeads's threshold); slow when its mean is 1.5 times or more its
 * median over the windows; stuck (dead too) when it timed out queries in a window whose
 * attempts collapsed to under a third of its own median rate while the other hosts kept theirs
 * (a mirror that hangs searches but answers pings keeps errors in a row at 0 or 1). Consecutive dead windows become one fault — `down` for refused
 * connects, `stall` for connect timeouts, `stuck` for query timeouts — and slow ones a
 * `slow(F)`; a fault's start and end are placed inside the window that shows the change, from
 * the answers it still (or already) holds at the host's rate next to it. A stuck run starts a
 * query timeout before its first timeouts were counted, and ends where the searches it held
 * come back (the slow windows just after it: HK_INCIDENT_HELD). The healthy windows,
 * summed, give the status a calibration reads (hk_calib). Pure: times are passed in. */
#ifndef HK_INCIDENT_H
#define HK_INCIDENT_H

#include "hk_cluster.h"
#include "hk_err.h"
#include "hk_scn.h"
#include "hk_statread.h"

#define HK_INCIDENT_SNAPS_MAX 100000
#define HK_INCIDENT_DEAD_ROW 3       /* errors in a row that make a failing host dead */
#define HK_INCIDENT_SLOW 1.5         /* a window's mean over the host's median: slow */
#define HK_INCIDENT_COLLAPSE 0.34    /* stuck: query timeouts in a window whose attempts fell
                                        under a third of the host's median rate (its pings
                                        still answer), while its line's others kept theirs */
#define HK_INCIDENT_HELD 10.0     /* after a stuck run, slow windows within a query timeout of
                                        it, or of a mean this many times the host's median: the
                                        searches it held, answered when it came back (part of
                                        the fault, not a slow one) */
#define HK_INCIDENT_SKEW 0.25        /* seconds a snapshot's name may be off searchd's clock at
                                        its answer (a scrape stamps the time, then connects):
                                        a window this near its block's half point may have
                                        one block more or less, decided from the counts */

typedef struct hk_snap {
    double t_s;                  /* when it was taken, seconds since the epoch */
    const char *name;            /* its file, for messages */
    const hk_status_file *st;
} hk_snap;

typedef enum hk_inc_state {
    HK_INC_ABSENT, HK_INC_OK, HK_INC_DEAD, HK_INC_SLOW,
    HK_INC_GOING,                /* failing already: a dead run began inside this window (its
                                    failures are the outage's first), so not a healthy one */
    HK_INC_BACK                  /* answering again: a dead run ended inside this window, so it
                                    holds part of the outage: not a healthy window */
} hk_inc_state;

typedef struct hk_inc_cell {     /* one host in one snapshot's window */
    hk_inc_state state;
    double ok, failed;           /* successes; timeouts, refusals and errors */
    double refused, ctimeout, qtimeout, other;
    double broken;               /* of other: network errors and unexpected closings, what the
                                    searches in flight get when a mirror's process is killed */
    double mean_ms;              /* of the answered (2.2.11: total time over answers); < 0 none */
    double errorsarow;
    double span_s;               /* how long the window is (a 1-period window holds the
                                    newest block, and the one before in its first half) */
} hk_inc_cell;

typedef struct hk_inc_fault {
    int host;                    /* cl->hosts index */
    hk_fault_kind kind;          /* DOWN, STALL, STUCK or SLOW */
    double factor;               /* slow(F) */
    double from_s, to_s;         /* seconds since the epoch; to_s = the series' end if open */
    int first, last;             /* the snapshots that show it */
    int open;                    /* still on at the last snapshot */
    double failed, errorsarow;   /* its evidence: failures over its windows, the worst row */
} hk_inc_fault;

typedef struct hk_incident {
    int nsnap, nhosts;
    double period_s;
    double qtimeout_s;           /* agent_query_timeout: a query timeout is counted that long
                                    after its search was sent */
    double start_s, end_s;       /* the first window's start, the last snapshot */
    hk_inc_cell *cell;           /* nsnap x nhosts, cell[i * nhosts + h] */
    double *median_ms;           /* per host, over its answering windows; < 0 none */
    int *healthy;                /* per host: windows that count for the calibration */
    double *ping_wait_s;         /* per host: how long after it comes back its first answer
                                    waits on average - half ha_ping_interval where a nodeads or
                                    noerrors line avoids it until a ping succeeds, else 0 */
    int nfaults, capfaults;
    hk_inc_fault *faults;
    hk_status_file base;         /* the healthy windows summed (scaled to the whole series) */
} hk_incident;

/* Build the timeline of snapshots s[0..n-1] (sorted by time) against cl's hosts. 0, or -1 with
 * e naming the snapshot: out of order or at the same second, a layout or period unlike the
 * first's, lifetime rows (SHOW STATUS) that have no windows. */
int hk_incident_build(const hk_snap *s, int n, const hk_cluster *cl, hk_incident *out,
                      hk_err *e);
void hk_incident_free(hk_incident *inc);
/* The span, seconds, of the 1-period window of a status taken at t (seconds since the epoch)
 * with karma k: the newest block so far, and the whole one before it in the newest block's
 * first half (as searchd sums its windows; blocks from the epoch). */
double hk_incident_span(double t, double k);
/* Host s's 1-period window as a cell (its answers, failures by kind, mean, dead or not). */
void hk_incident_cell(const hk_sthost *s, const hk_settings *set, double span, hk_inc_cell *x);
const char *hk_inc_state_name(hk_inc_state s);
/* The fault on host h (cl->hosts index; < 0: any host) at t (seconds since the epoch) widened
 * by margin_s on both sides, or NULL. */
const hk_inc_fault *hk_incident_fault_at(const hk_incident *inc, int h, double t, double margin_s);

#endif
