/* hk_find: what a run found, in words an operator can act on, from its
 * timeline (hk_tl) and the scenario's faults: convergence of each line's
 * probabilities, re-admission of each faulted mirror, and the findings —
 * the plain facts of each mirror first:
 *   failing            a mirror's attempts fail (or warn) at >= 5% outside its outages
 *   slow               a mirror answers in >= 2x its line's others while carrying traffic
 *                      and sets the line's tail
 *   idle               a table that received no query (said once, never as starved)
 * then what the strategy did:
 *   starved            a mirror without a fault gets (almost) no queries to the end
 *   locked             one mirror holds ~all the probability while the others are healthy
 *   failing_share      a down/hung mirror keeps receiving queries during its fault
 *   flood              a recovered mirror gets far more than its pre-fault share
 *   takeover           a recovered mirror takes (almost) all of its line's queries
 *   herding            several masters pile onto one mirror at once
 *   overload           a mirror's utilisation >= 1: its queue grows without bound
 *   oscillation        probabilities never settle
 *   fault_outside_run  a fault that never happens within the run
 *   port_exhaustion    a master's connects to one address outrun its ephemeral ports
 * Every threshold is a named constant below; the README states them. */
#ifndef HK_FIND_H
#define HK_FIND_H

#include "hk_hist.h"
#include "hk_scn.h"
#include "hk_tl.h"
#include "hk_variant.h"

#define HK_CONV_EPS 0.02         /* converged: every probability within this of its final mean */
#define HK_STARVED_SHARE 0.01    /* starved: under 1% of the line's attempts ... */
#define HK_STARVED_OF_FAIR 0.1   /* ... and under a tenth of a fair share (1/N of N mirrors) ... */
#define HK_STARVED_ALPHA 1e-6    /* ... beyond sampling noise: P(so few | that share) < 1e-6 */
#define HK_SPAN_MIN_S 10.0       /* ... (or locked) for at least 10 s and 10% of the run */
#define HK_LOCKED_PROB 0.95      /* locked: probability >= 0.95 */
#define HK_FAILING_SHARE 0.05    /* failing_share: >= 5% of the attempts during the fault */
#define HK_FAILING_GRACE_S 2.0   /* ... counted from 2 s into the fault (time to notice it) */
#define HK_BACK_TOL 0.2          /* re-admitted: a 5 s share within 20% below the pre-fault one */
#define HK_WINDOW_S 5.0          /* share windows after a fault, for re-admission and flood */
#define HK_FLOOD_FACTOR 1.5      /* flood: >= 1.5 x the pre-fault share, and 10 points above */
#define HK_TAKEOVER_SHARE 0.9    /* takeover: a 5 s share >= 90% after the fault (not a flood) */
#define HK_FLOOD_ALPHA 1e-6      /* flood/takeover: a window that full at the baseline share has
                                    P < 1e-6 (binomial), over every window judged */
#define HK_FAILING_RATE 0.05     /* failing: >= 5% of the attempts that ended fail or warn ... */
#define HK_FAILING_MIN 20        /* ... of at least 20 ended attempts, 10 of them bad, ... */
#define HK_FAILING_NOISE 0.01    /* ... and beyond a healthy mirror's 1% noise rate: so many bad
                                    of so many has P < HK_FAILING_ALPHA there (binomial) */
#define HK_FAILING_ALPHA 1e-6
#define HK_FAILING_WIN_S 10.0    /* ... or, where the run is not, in 10 s windows: the same rate
                                    beyond the noise at HK_FAILING_ALPHA over every window */
#define HK_SLOW_FACTOR 2.0       /* slow: mean latency >= 2 x the median of the line's others */
#define HK_SLOW_MIN_MS 1.0       /* ... and >= 1 ms more (microsecond noise is no finding) */
#define HK_SLOW_SHARE 0.05       /* ... while it gets >= 5% of the line's attempts */
#define HK_SLOW_MIN_ANSWERS 50   /* ... over >= 50 answers (its peers: >= 20 each) */
#define HK_SLOW_PEER_MIN 20
#define HK_SLOW_TAIL 0.8         /* ... and the line's p99 falls by >= 20% without it */
#define HK_HERD_SHARE 0.5        /* herding: >= 50% (and >= 2/n) of all masters' attempts */
#define HK_OVERLOAD_UTIL 0.98    /* overload: utilisation >= 0.98 over the last quarter, open
                                    loop; a closed loop's is `saturated` (its queue is bounded) */
#define HK_SATURATED_UTIL 0.9    /* saturated: a closed loop's mirror busy >= 0.9 of the run (a
                                    round trip between a client's queries keeps it below 1) */
#define HK_OSC_AMPLITUDE 0.1     /* oscillation: never converged, swinging >= 0.1 ... */
#define HK_OSC_SWINGS 3          /* ... back and forth at least 3 times in the last quarter */

typedef struct hk_conv {         /* one master x line */
    int first;                   /* its first series in the timeline */
    int single;                  /* one mirror: nothing to converge */
    int is_static;               /* probabilities never moved */
    int converged;
    double t_s;                  /* converged from this time on (s since the start) */
    double amplitude;            /* the last quarter's largest swing */
    int swings;                  /* times a probability crossed its final value there */
} hk_conv;

typedef struct hk_readmit {      /* one fault x series on its host */
    int fault, series;
    double pre;                  /* share before the fault (NaN: unknown) */
    double first_s;              /* first query after the fault ended, s after; -1 never */
    double back_s;               /* share back (HK_BACK_TOL), s after the end; -1 never */
    double peak, peak_s;         /* highest 5 s share after the end, and when */
    uint64_t peak_q, peak_all;   /* that window's attempts on the mirror and on its line */
} hk_readmit;

typedef struct hk_finding {
    char kind[20];
    int master;                  /* -1 = every master */
    int table, line;             /* line 0-based; -1 = none */
    int host;                    /* -1 = none */
    double t_s;                  /* when it starts, s since the start */
    char detail[600];
} hk_finding;

typedef struct hk_port_fact {    /* one master's ports to one address ran out */
    int master, host;
    double t_s;                  /* when, s since the start */
    double rate;                 /* connects a second that ran them out */
    double allowed;              /* connects a second the ports allow for long */
    uint64_t refused;            /* connects that found no port */
} hk_port_fact;
typedef struct hk_find_in {
    const hk_tl *tl;             /* hk_tl_fill()ed */
    const hk_scn *scn;
    const hk_variant *var;
    const char *strategy;        /* the strategy that ran ("as configured" = NULL) */
    int64_t duration_us;         /* the run's length */
    int nmasters;
    const int64_t *first_after;  /* [fault][master]: first attempt after the fault's end, µs
                                    since the start; -1 none (NULL: from the bins) */
    const double *util;          /* per host: utilisation over the last quarter (NULL: unknown) */
    const double *work_ms;       /* per host: offered work per second, ms (with util) */
    const hk_hist *const *lat;   /* per series: latency of its answers over the run (NULL: none;
                                    for the line's tail with and without a slow mirror) */
    double lag_p99_us;           /* a replay's p99 lag behind its schedule (0: none, a simulation) */
    const hk_port_fact *ports;   /* where a master's ephemeral ports ran out (port_exhaustion) */
    int nports;
} hk_find_in;

#define HK_CAVEATS 4
#define HK_LAG_WARN_US 1000.0    /* a replay whose p99 lag is above 1 ms did not send the trace's
                                    load: its mirrors saw it later and smoother */

typedef struct hk_findings {
    int ncav;                    /* why the run is not to be trusted as it stands, in words */
    char cav[HK_CAVEATS][400];
    int nconv;
    hk_conv *conv;
    int nre;
    hk_readmit *re;
    int n, cap;
    hk_finding *f;
} hk_findings;

int hk_find_run(const hk_find_in *in, hk_findings *out);
void hk_findings_free(hk_findings *f);
/* The rule a finding kind is raised by: its threshold and the false-alarm rate it holds at the
 * run's sample size ("" if unknown). */
const char *hk_find_kind_rule(const char *kind);
/* A short description of a finding kind, for legends ("" if unknown). */
const char *hk_find_kind_help(const char *kind);
/* The i-th finding kind (0, 1, ...), NULL past the last: the one list of kinds. */
const char *hk_find_kind(int i);
/* 1 a severe kind (failing, starved, locked, failing_share, flood, takeover, overload,
 * port_exhaustion), 0 not, -1 no such kind. */
int hk_find_kind_severe(const char *kind);

#endif
