/* hk_dist: latency distributions written as in scenario files, sampled with
 * the caller's GSL generator. All values are microseconds; a bare number in a
 * distribution is milliseconds.
 *   constant(X)  uniform(LO, HI)  normal(mean=, sd=) (truncated at 0)
 *   lognormal(median=, sigma=)  exponential(mean=)  gamma(shape=, scale=)
 *   weibull(shape=, scale=)  pareto(shape=, scale=)
 *   empirical(FILE.csv, COLUMN)  (samples in ms, supplied by the caller)
 *   mix(0.99 A, 0.01 B)
 * A bare time (5ms, 2.5 = ms) means constant(time).
 * Parameters may be given by name or by position in the order above; they are
 * finite and at most HK_DIST_MAX_PARAM in size. A sample is clamped to
 * [0, HK_DIST_MAX_US] (a heavy tail never overflows the simulated clock). */
#ifndef HK_DIST_H
#define HK_DIST_H

#include <gsl/gsl_rng.h>

#define HK_DIST_MAX_PARAM 1e12
#define HK_DIST_MAX_US 1e12      /* about 11.6 days */

typedef enum hk_dist_kind {
    HK_DIST_CONSTANT, HK_DIST_UNIFORM, HK_DIST_NORMAL, HK_DIST_LOGNORMAL, HK_DIST_EXPONENTIAL,
    HK_DIST_GAMMA, HK_DIST_WEIBULL, HK_DIST_PARETO, HK_DIST_EMPIRICAL, HK_DIST_MIX
} hk_dist_kind;

typedef struct hk_dist {
    hk_dist_kind kind;
    double p[2];                 /* parameters, times in microseconds */
    /* empirical */
    char path[512], column[128];
    double *samples;             /* owned, microseconds */
    long nsamples;
    /* mix */
    int nparts;
    double *cum;                 /* cumulative weights, last = 1 */
    struct hk_dist **parts;
} hk_dist;

/* Parse s. On error: -1, *bad = byte offset, what = what was expected. */
int hk_dist_parse(const char *s, hk_dist **out, int *bad, char *what, int nwhat);
void hk_dist_free(hk_dist *d);
double hk_dist_sample_any(const hk_dist *d, gsl_rng *r);
/* A sample (clamped as above). A constant draws nothing and costs no call: network times are
 * often constant, and they are sampled twice per attempt. */
static inline double hk_dist_sample(const hk_dist *d, gsl_rng *r)
{
    if (d->kind == HK_DIST_CONSTANT) {
        double x = d->p[0];
        return x >= 0 ? (x <= HK_DIST_MAX_US ? x : HK_DIST_MAX_US) : 0.0;
    }
    return hk_dist_sample_any(d, r);
}
double hk_dist_mean(const hk_dist *d);
/* Samples of one distribution drawn HK_DIST_AHEAD at a time from a generator that feeds
 * nothing else: the same values in the same order as one hk_dist_sample() per call, but drawn
 * back to back, so the CPU overlaps their libm calls instead of waiting for each in turn. */
#define HK_DIST_AHEAD 16

typedef struct hk_dist_ahead {
    int i, n;                    /* next sample, samples held (first: what a draw reads) */
    const hk_dist *d;
    gsl_rng *r;
    double v[HK_DIST_AHEAD];
} hk_dist_ahead;

void hk_dist_ahead_init(hk_dist_ahead *a, const hk_dist *d, gsl_rng *r);
void hk_dist_ahead_fill(hk_dist_ahead *a);
static inline double hk_dist_ahead_next(hk_dist_ahead *a)
{
    if (a->i == a->n)
        hk_dist_ahead_fill(a);
    return a->v[a->i++];
}

/* Empirical parts that still need samples (depth-first); NULL when none left. */
hk_dist *hk_dist_next_empirical(hk_dist *d);
/* Take ownership of samples (microseconds) for an empirical distribution. */
void hk_dist_set_samples(hk_dist *d, double *samples, long n);

#endif
