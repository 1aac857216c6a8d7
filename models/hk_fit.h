/* hk_fit: a latency shape fitted to observed times by maximum likelihood — lognormal (closed
 * form) and gamma (Minka's Newton steps on the digamma equation) — and how far each lies from
 * the data (the Kolmogorov-Smirnov distance: the largest gap between the empirical and the
 * fitted CDF). hasim init fits the per-agent-line times of a query log's agents=(...). */
#ifndef HK_FIT_H
#define HK_FIT_H

#define HK_FIT_MIN 30            /* fewer positive samples: no fit (a guess is said instead) */

typedef enum { HK_FIT_LOGNORMAL, HK_FIT_GAMMA } hk_fit_kind;

typedef struct hk_fit {
    hk_fit_kind kind;            /* the one with the smaller distance */
    double median, sigma;        /* lognormal, in the samples' unit */
    double shape, scale;         /* gamma */
    double ks_lognormal, ks_gamma;
    long n;                      /* positive samples used (zeros are below the log's ms) */
    double mean;
} hk_fit;

/* Fit x[0..n) (sorted and changed in place). q > 0: the samples were cut to multiples of q (a
 * query log's milliseconds: 0.003 s is anything from 3 to 4 ms), so each run of equal values
 * v is spread evenly over [v, v + q) before the fit, as the unrounded times were; q = 0: exact
 * times, of which only the positive are used. 0, or -1 when fewer than HK_FIT_MIN remain. */
int hk_fit_times(double *x, long n, double q, hk_fit *out);
/* Sort x[0..n) and, q > 0, spread each run of equal values as hk_fit_times does; the index of
 * the first positive sample. */
long hk_fit_prepare(double *x, long n, double q);
/* Gamma's maximum-likelihood shape from s = log(mean) - mean(log x) (> 0): Minka's start, then
 * Newton steps on log(k) - psi(k) = s. */
double hk_fit_gamma_shape(double s);
/* The gamma CDF at x (shape a, scale b), 1 far beyond the body where GSL's asymptotic series
 * would fail (a narrow gamma of huge shape, read far in its tail). */
double hk_fit_gamma_P(double x, double a, double b);
/* Its p-quantile (0 < p < 1), by Wilson and Hilferty's cube root where the shape is huge. */
double hk_fit_gamma_Pinv(double p, double a, double b);
/* The fitted distance of the kind chosen. */
double hk_fit_ks(const hk_fit *f);

#endif
