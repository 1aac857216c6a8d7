/* hk_calib: a mirror's behaviour from what production measured (a saved SHOW AGENT STATUS or
 * Manticore's SHOW STATUS agent rows, hk_statread) for every host of a config's cluster.
 *   mean query time  total_query_time over the timed attempts. Pings count as events but add no
 *                    time; they go only to hosts of HA lines, and only to idle ones (no answer
 *                    for ha_ping_interval), so the estimate solves pings = min(successes,
 *                    window / ping x exp(-rate x ping)) with rate = (events - pings) / window,
 *                    the share of ping intervals without a query if queries were Poisson: all
 *                    of them for an idle host, none for a busy one. The window must be full (uptime of at
 *                    least its periods x ha_period_karma), or rates come out low. Timed-out attempts' time (query timeouts x
 *                    agent_query_timeout, connect timeouts x agent_connect_timeout) is taken out
 *                    of the total and their rate kept apart.
 *   failure rates    query and connect timeouts, refused connects over the timed attempts.
 *   network time     connect_avg (a connect costs one round trip).
 *   load             timed attempts per second, per agent line: the rate is the difference of
 *                    the 5- and 1-period windows over the 4 whole periods between them, so it
 *                    does not depend on where in its block the status was taken.
 * Manticore's SHOW AGENT STATUS windows never sum query time (see README, "What a real Manticore
 * does"): from that layout a mean needs the SHOW STATUS agent rows (lifetime, no pings). Pure. */
#ifndef HK_CALIB_H
#define HK_CALIB_H

#include "hk_cluster.h"
#include "hk_statread.h"

/* Fewer answered attempts than this (after the pings are taken out) leave the mean unknown:
 * a status of pings only gave a mean of 9.6e14 ms, its time over a near-zero count. */
#define HK_CALIB_MIN_ANSWERED 1.0

typedef struct hk_calib_host {
    int found;                   /* the status had this host */
    double attempts;             /* timed attempts in the window (or lifetime) */
    double window_s;             /* 0 for lifetime rows */
    double mean_ms;              /* of the answered attempts; < 0 unknown */
    double p_timeout, p_refuse, p_warning;
    double rtt_ms;               /* < 0 unknown */
    double pings_est;
    int contradicts;             /* its 5-period window holds fewer events than its 1-period one
                                    (a status that cannot come from one master) */
    double ev1, ev5;             /* those windows' events, for the warning */
    int window_short;            /* the widest window holds no more than its 5 newest periods: the
                                    master ran (or had traffic) for under 5 periods of 15 */
    char source[96];             /* "SHOW AGENT STATUS, 15 periods of 60 s" */
} hk_calib_host;

/* One entry per cl->hosts[i] into *out (caller frees). 0, or -1 out of memory. */
int hk_calib(const hk_status_file *st, const hk_cluster *cl, hk_calib_host **out);

#endif
