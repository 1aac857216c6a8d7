/* hk_fit: maximum-likelihood shapes of observed times (see hk_fit.h). */
#include "hk_fit.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_sf_psi.h>
#include <math.h>
#include <stdlib.h>

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* sup |F_n - F| over the sorted samples x[0..n), F the fitted CDF. */
static double ks(const double *x, long n, hk_fit_kind k, const hk_fit *f)
{
    double d = 0;
    for (long i = 0; i < n; i++) {
        double F = k == HK_FIT_LOGNORMAL ? gsl_cdf_lognormal_P(x[i], log(f->median), f->sigma)
                                         : hk_fit_gamma_P(x[i], f->shape, f->scale);
        double lo = F - (double)i / (double)n, hi = (double)(i + 1) / (double)n - F;
        d = fmax(d, fmax(lo, hi));
    }
    return d;
}

double hk_fit_gamma_shape(double s)
{
    if (!(s > 0))
        return 1e6; /* every sample equal: as narrow as a gamma gets */
    double k = (3 - s + sqrt((s - 3) * (s - 3) + 24 * s)) / (12 * s);
    for (int i = 0; i < 20; i++) {
        double g = log(k) - gsl_sf_psi(k) - s, dg = 1 / k - gsl_sf_psi_1(k);
        double next = k - g / dg;
        k = next > 0 ? next : k / 2;
    }
    return k;
}

double hk_fit_gamma_P(double x, double a, double b)
{
    double t = x / b;
    if (!(t > 0))
        return 0;
    if (t > a + 40 * sqrt(a) + 40)
        return 1; /* 40 standard deviations past the mean: beyond a double's reach */
    if (t < a - 40 * sqrt(a))
        return 0;
    if (a > 1e4) { /* Wilson and Hilferty's cube root is normal to 1e-5 here; GSL's series fail */
        double v = 1 / (9 * a);
        return gsl_cdf_ugaussian_P((cbrt(t / a) - (1 - v)) / sqrt(v));
    }
    return gsl_cdf_gamma_P(x, a, b);
}

double hk_fit_gamma_Pinv(double p, double a, double b)
{
    if (a > 1e3) { /* Wilson and Hilferty: exact to 1e-4 here, where GSL's search may fail */
        double z = gsl_cdf_ugaussian_Pinv(p), v = 1 - 1 / (9 * a) + z / (3 * sqrt(a));
        return a * b * v * v * v;
    }
    return gsl_cdf_gamma_Pinv(p, a, b);
}

/* Each run of equal values v of sorted x: spread over [v, v + q), in order. */
static void spread(double *x, long n, double q)
{
    for (long i = 0; i < n;) {
        long j = i;
        while (j < n && x[j] == x[i])
            j++;
        for (long k = i; k < j; k++)
            x[k] += q * ((double)(k - i) + 0.5) / (double)(j - i);
        i = j;
    }
}

long hk_fit_prepare(double *x, long n, double q)
{
    long lo = 0;
    qsort(x, (size_t)n, sizeof *x, by_value);
    if (q > 0)
        spread(x, n, q);
    while (lo < n && !(x[lo] > 0))
        lo++;
    return lo;
}

int hk_fit_times(double *x, long n, double q, hk_fit *f)
{
    long lo = hk_fit_prepare(x, n, q);
    long m = n - lo;
    if (m < HK_FIT_MIN)
        return -1;
    const double *y = x + lo;
    double sl = 0, s = 0;
    for (long i = 0; i < m; i++) {
        sl += log(y[i]);
        s += y[i];
    }
    double mu = sl / (double)m, mean = s / (double)m, v = 0;
    for (long i = 0; i < m; i++)
        v += (log(y[i]) - mu) * (log(y[i]) - mu);
    f->n = m;
    f->mean = mean;
    f->median = exp(mu);
    f->sigma = sqrt(v / (double)m);
    if (f->sigma < 1e-3)
        f->sigma = 1e-3; /* the log's millisecond rounding: never a zero-width shape */
    f->shape = hk_fit_gamma_shape(log(mean) - mu);
    f->scale = mean / f->shape;
    f->ks_lognormal = ks(y, m, HK_FIT_LOGNORMAL, f);
    f->ks_gamma = ks(y, m, HK_FIT_GAMMA, f);
    f->kind = f->ks_gamma < f->ks_lognormal ? HK_FIT_GAMMA : HK_FIT_LOGNORMAL;
    return 0;
}

double hk_fit_ks(const hk_fit *f)
{
    return f->kind == HK_FIT_GAMMA ? f->ks_gamma : f->ks_lognormal;
}
