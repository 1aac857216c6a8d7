/* hk_fitmix: one agent line's times separated into its mirrors. A query log gives the time of
 * each query's agent line, never which mirror answered; the status gives each mirror's share and
 * mean. The line's times are a mixture of one component per mirror at those means; EM fits
 * each component's spread, all lognormal or all gamma, whichever is the likelier. Unless fixed
 * is set, the weights are fitted too (started at the shares: a status's windows need not cover
 * every query of the log), and so is one shift common to all the means (the master's own measure
 * of an agent's time, connect included, need not be the log's); the means' differences stay as
 * measured, which keeps close mirrors apart. Mirrors whose given means lie within 5% of each
 * other cannot be told apart by their times: they share one spread.
 * Times cut to whole milliseconds are fitted on the likelihood of their cuts. Goodness: the
 * mixture's Kolmogorov-Smirnov distance to all the times, and each component's to the times
 * weighted by how likely it answered them. */
#ifndef HK_FITMIX_H
#define HK_FITMIX_H

#include "hk_fit.h"

#define HK_FITMIX_MAX 16         /* components (mirrors of one line) */
#define HK_FITMIX_POOR 0.10      /* a KS distance above this: the fit is said to be poor */

typedef struct hk_fitmix {
    int k;                       /* components */
    double w[HK_FITMIX_MAX];     /* given: each mirror's share; out: fitted (normalised) */
    double mean[HK_FITMIX_MAX];  /* given: each mirror's mean (samples' unit); out: given - shift */
    double shift;                /* out: the given means less the times' */
    double given_w[HK_FITMIX_MAX], given_mean[HK_FITMIX_MAX]; /* out: as given (w normalised) */
    int fixed;                   /* given: keep the weights and means as given (shift 0) */
    hk_fit_kind kind;            /* the family of every component */
    double sigma[HK_FITMIX_MAX]; /* lognormal: each component's sigma (median = mean e^-s²/2) */
    double shape[HK_FITMIX_MAX]; /* gamma: each component's shape (scale = mean / shape) */
    double ks[HK_FITMIX_MAX];    /* each component against its responsibility-weighted times */
    double ks_mix;               /* the mixture against every time */
    double ks_other;             /* ... of the family not chosen */
    double loglik;               /* mean log density of the times under the chosen family */
    long n;                      /* positive samples used */
    int iters;                   /* EM steps taken (the larger of the two families) */
} hk_fitmix;

/* Fit x[0..n) (sorted and changed in place; q as hk_fit_times) as the mixture whose k, w and
 * mean the caller filled in m. 0; -1 when fewer than HK_FIT_MIN positive samples remain or the
 * given components are no mixture (k outside 1..HK_FITMIX_MAX, a weight or mean not > 0). */
int hk_fitmix_times(double *x, long n, double q, hk_fitmix *m);
/* Component c's p-quantile (0 < p < 1), in the samples' unit. */
double hk_fitmix_quantile(const hk_fitmix *m, int c, double p);

#endif
