/* hk_strat_ext: hakarma extensions — load-balancing strategies from outside searchd, never a
 * real config's ha_strategy (searchd reads those names as random), chosen with --strategy or
 * sim { strategy = ... }. Each works from the master's own view of a line: the attempts it has
 * in flight per mirror (hk_line_begin/end) and the latencies it saw.
 *   least-outstanding  the mirror with the fewest attempts in flight, ties at random (the
 *                      "least loaded" balancer of Linkerd, Envoy's LEAST_REQUEST with all).
 *   p2c                power of two choices (Mitzenmacher, "The Power of Two Choices in
 *                      Randomized Load Balancing", 2001): two distinct mirrors at random, the
 *                      one with fewer in flight; ties at random.
 *   peak-ewma          Finagle's P2C over peak-sensitive EWMA latency x (in flight + 1): a
 *                      latency above the average replaces it at once, below it decays in with
 *                      weight exp(-elapsed / 10 s), and decays towards 0 as it is read (Finagle's
 *                      getCost), so a mirror passed over is tried again; a mirror never measured but busy costs a
 *                      large penalty. Failures: an attempt that fails counts as a latency of
 *                      HK_EWMA_FAIL_US (1 s, the order of a query timeout), so a mirror that
 *                      answers errors in 0.1 ms looks slow, not fast.
 *   c3                 C3's replica ranking (Suresh et al., NSDI'15): score = R - 1/mu + q^3/mu,
 *                      R the EWMA of response time, 1/mu the EWMA of service time and
 *                      q = 1 + in flight + the EWMA of the queue the mirror reports (the
 *                      simulator reports a query's service time and its wait in the queue,
 *                      read as wait / mean service time; hareal infers service time from
 *                      response time and the queue as 0). Ranking only, no rate
 *                      control; the lowest score wins, ties at random. Without C3's rate
 *                      control a mirror ranked last is never asked again and its figures never
 *                      heal (a cubic queue term, or one slow answer among equals, bans it for
 *                      good), so its whole score fades with the time since its last reply
 *                      (exp(-age / 1 s)): a mirror passed over is asked again, as peak-ewma's
 *                      decaying cost does. */
#include <math.h>
#include <stdlib.h>
#include "hk_strat.h"
#include "hk_strat_ext.h"

#define EWMA_TAU_US 10e6         /* peak-ewma decay time (Finagle's default) */
#define EWMA_PENALTY 1e12        /* cost of a busy mirror never measured */
#define C3_ALPHA 0.9             /* C3's EWMA weight of history */
#define C3_FADE_US 1e6           /* what a mirror reported fades over this */

int hk_ext_init(hk_line *l)
{
    hk_ext *x = calloc((size_t)l->n, sizeof *x);
    if (!x)
        return -1;
    for (int i = 0; i < l->n; i++)
        x[i].fb_svc = x[i].fb_queue = -1;
    l->ext = x;
    return 0;
}

/* Uniform among the mirrors i with key(i) minimal (reservoir: one draw per tie). */
static int argmin(const hk_line *l, const double *key, gsl_rng *r)
{
    int best = 0, ties = 1;
    for (int i = 1; i < l->n; i++) {
        if (key[i] < key[best]) {
            best = i;
            ties = 1;
        } else if (key[i] == key[best] && gsl_rng_uniform_int(r, (unsigned long)++ties) == 0) {
            best = i;
        }
    }
    return best;
}

/* Finagle's cost as read: the EWMA decays towards 0 with the time since it was last updated
 * (its getCost observes a zero), so a mirror passed over is tried again. */
static double peak_cost(const hk_line *l, int i, int64_t now_us)
{
    const hk_ext *x = &l->ext[i];
    int out = l->outstanding[i];
    if (x->cost == 0.0 && out > 0)
        return EWMA_PENALTY + out;
    double age = x->t_us > 0 && now_us > x->t_us ? (double)(now_us - x->t_us) : 0.0;
    return x->cost * exp(-age / EWMA_TAU_US) * (out + 1);
}

static double c3_score(const hk_line *l, int i, int64_t now_us)
{
    const hk_ext *x = &l->ext[i];
    if (!x->seen)
        return -1.0; /* never measured: try it first (C3 has no data to rank it by) */
    double fade = exp(-(double)(now_us - x->t_us) / C3_FADE_US);
    double s = x->svc > 1.0 ? x->svc : 1.0, q = 1.0 + l->outstanding[i] + x->queue * fade;
    /* what it reported fades; an attempt in flight does not (asked again once, not flooded) */
    return (x->resp - s) * fade + q * q * q * s * (l->outstanding[i] ? 1.0 : fade);
}

static double load(const hk_line *l, int strat, int i, int64_t now_us)
{
    switch (strat) {
    case HK_STRAT_PEAK_EWMA: return peak_cost(l, i, now_us);
    case HK_STRAT_C3: return c3_score(l, i, now_us);
    default: return (double)l->outstanding[i];
    }
}

/* Two distinct mirrors at random, the lower load; ties at random. */
static int two_choices(hk_line *l, int strat, int64_t now_us, gsl_rng *r)
{
    int a = (int)gsl_rng_uniform_int(r, (unsigned long)l->n);
    int b = (int)gsl_rng_uniform_int(r, (unsigned long)l->n - 1);
    b += b >= a;
    double la = load(l, strat, a, now_us), lb = load(l, strat, b, now_us);
    if (la != lb)
        return la < lb ? a : b;
    return gsl_rng_uniform(r) < 0.5 ? a : b;
}

int hk_ext_choose(hk_line *l, int64_t now_us, gsl_rng *r)
{
    if (l->strat == HK_STRAT_P2C || l->strat == HK_STRAT_PEAK_EWMA)
        return two_choices(l, l->strat, now_us, r);
    double *key = l->scratch;
    for (int i = 0; i < l->n; i++)
        key[i] = load(l, l->strat, i, now_us);
    return argmin(l, key, r);
}

/* The probability in force: exact for pairs (O(n^2), n <= 64), else uniform over the
 * lowest-load mirrors. */
void hk_ext_probs(hk_line *l, int64_t now_us, double *p)
{
    int n = l->n, pairs = l->strat == HK_STRAT_P2C || l->strat == HK_STRAT_PEAK_EWMA;
    double *key = l->scratch, lo = INFINITY;
    for (int i = 0; i < n; i++) {
        key[i] = load(l, l->strat, i, now_us);
        lo = key[i] < lo ? key[i] : lo;
        p[i] = 0.0;
    }
    if (pairs && n <= 64) {
        double each = 1.0 / ((double)n * (n - 1) / 2.0);
        for (int a = 0; a < n; a++)
            for (int b = a + 1; b < n; b++) {
                if (key[a] == key[b]) {
                    p[a] += each / 2;
                    p[b] += each / 2;
                } else {
                    p[key[a] < key[b] ? a : b] += each;
                }
            }
        return;
    }
    int m = 0;
    for (int i = 0; i < n; i++)
        m += key[i] == lo;
    for (int i = 0; i < n; i++)
        p[i] = key[i] == lo ? 1.0 / m : 0.0;
}

void hk_ext_end(hk_line *l, int i, int64_t now_us, int ok, int64_t latency_us)
{
    hk_ext *x = &l->ext[i];
    double lat = ok ? (double)latency_us : fmax((double)latency_us, HK_EWMA_FAIL_US);
    /* peak-ewma */
    if (!x->seen || lat > x->cost) {
        x->cost = lat;
    } else {
        double w = exp(-(double)(now_us - x->t_us) / EWMA_TAU_US);
        x->cost = x->cost * w + lat * (1.0 - w);
    }
    x->t_us = now_us;
    /* c3 */
    double svc = x->fb_svc >= 0 ? x->fb_svc : lat;
    x->resp = x->seen ? C3_ALPHA * x->resp + (1 - C3_ALPHA) * lat : lat;
    x->svc = x->seen ? C3_ALPHA * x->svc + (1 - C3_ALPHA) * svc : svc;
    /* the queue in requests: the reported wait over the mean service time */
    double q = x->fb_queue >= 0 ? x->fb_queue / (x->svc > 1.0 ? x->svc : 1.0) : 0.0;
    x->queue = x->seen ? C3_ALPHA * x->queue + (1 - C3_ALPHA) * q : q;
    x->seen = 1;
    x->fb_svc = x->fb_queue = -1;
}

void hk_line_feedback(hk_line *l, int i, double svc_us, double wait_us)
{
    if (l->ext) {
        l->ext[i].fb_svc = svc_us;
        l->ext[i].fb_queue = wait_us;
    }
}
