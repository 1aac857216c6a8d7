/* hk_fitmix: a line's times as the mixture of its mirrors, spreads by EM (see hk_fitmix.h). */
#include "hk_fitmix.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define ITER_MAX 500
#define TOL 1e-6
#define SIGMA_MIN 1e-3           /* the log's millisecond rounding: never a zero-width shape */
#define SHAPE_MAX 1e4           /* a 1% spread: narrower than any measured latency */
#define SIGMA_MAX 3.0            /* ... and as wide as anything a log can tell */
#define SHAPE_MIN 0.1
#define PRIOR 0.1                /* the given shares' weight, as a fraction of the times: where
                                    mirrors' times coincide the log cannot split them, and the
                                    status's shares stand */
#define SPREAD_MIN_N 20.0        /* fewer times than this for a component: its spread stays */
#define TIE 0.05                 /* given means this close (relatively): mirrors the log cannot
                                    tell apart, so they share one spread */

/* Each component's tie leader into lead[]: the first whose given mean is within TIE of its. */
static void ties(const hk_fitmix *m, int *lead)
{
    for (int c = 0; c < m->k; c++) {
        lead[c] = c;
        for (int d = 0; d < c && lead[c] == c; d++)
            if (fabs(m->given_mean[c] - m->given_mean[d]) <=
                TIE * fmax(m->given_mean[c], m->given_mean[d]))
                lead[c] = lead[d];
    }
}

static double pdf(const hk_fitmix *m, int c, double x)
{
    if (m->kind == HK_FIT_LOGNORMAL) {
        double s = m->sigma[c];
        return gsl_ran_lognormal_pdf(x, log(m->mean[c]) - s * s / 2, s);
    }
    return gsl_ran_gamma_pdf(x, m->shape[c], m->mean[c] / m->shape[c]);
}

static double cdf(const hk_fitmix *m, int c, double x)
{
    if (m->kind == HK_FIT_LOGNORMAL) {
        double s = m->sigma[c];
        return gsl_cdf_lognormal_P(x, log(m->mean[c]) - s * s / 2, s);
    }
    return hk_fit_gamma_P(x, m->shape[c], m->mean[c] / m->shape[c]);
}

static double cdf_mix(const hk_fitmix *m, double x)
{
    double F = 0;
    for (int c = 0; c < m->k; c++)
        F += m->w[c] * cdf(m, c, x);
    return F;
}

/* Each component's responsibility for a time x: its weight times its density at x, or, for
 * times cut to multiples of q, times its probability of x's cut (a narrow mirror inside a cut
 * answers for the whole cut, wherever its spread put x); the weights where every term is 0.
 * The last cut's are kept in rc: sorted times recompute them once per cut. */
typedef struct respc {
    double cut;                  /* the cut r holds (NAN: none) */
    double r[HK_FITMIX_MAX];
} respc;

static const double *resp(const hk_fitmix *m, double x, double q, respc *rc)
{
    double cut = q > 0 ? floor(x / q) : NAN, tot = 0;
    if (q > 0 && cut == rc->cut)
        return rc->r;
    for (int c = 0; c < m->k; c++) {
        rc->r[c] = m->w[c] * (q > 0 ? cdf(m, c, (cut + 1) * q) - cdf(m, c, cut * q) : pdf(m, c, x));
        tot += rc->r[c];
    }
    for (int c = 0; c < m->k; c++)
        rc->r[c] = tot > 0 ? rc->r[c] / tot : m->w[c];
    rc->cut = cut;
    return rc->r;
}

/* Component c's spread from b, its times' responsibility-weighted mean of the family's
 * statistic, the mean held; the relative change. */
static double spread_step(hk_fitmix *m, int c, double b)
{
    double was, now;
    if (m->kind == HK_FIT_LOGNORMAL) {
        /* max over s of the weighted log density with the mean fixed (mu = log mean - s²/2):
         * u = s² solves u²/4 + u = b */
        double u = 2 * (sqrt(1 + b) - 1);
        was = m->sigma[c];
        now = m->sigma[c] = fmin(fmax(sqrt(u), SIGMA_MIN), SIGMA_MAX);
    } else {
        /* the mean fixed: log k - psi(k) = b, the mean of x/mean - log(x/mean) - 1 */
        was = m->shape[c];
        now = m->shape[c] = b > 0 ? fmin(fmax(hk_fit_gamma_shape(b), SHAPE_MIN), SHAPE_MAX)
                                  : SHAPE_MAX;
    }
    return fabs(now - was) / was;
}

/* One EM step over y[0..n): the new spreads and (unless fixed) weights, the means held; the
 * largest relative change. q > 0: the times were cut to multiples of q and spread over the cut,
 * which adds about q²/12x² to a log time's variance (Sheppard's correction, in log space):
 * taken off again. */
static double step(hk_fitmix *m, const double *y, long n, double q)
{
    double R[HK_FITMIX_MAX] = {0}, B[HK_FITMIX_MAX] = {0};
    respc rc = {.cut = NAN};
    for (long i = 0; i < n; i++) {
        const double *r = resp(m, y[i], q, &rc);
        for (int c = 0; c < m->k; c++) {
            double d = log(y[i] / m->mean[c]), sh = q * q / (12 * y[i] * y[i]);
            R[c] += r[c];
            B[c] += r[c] * (m->kind == HK_FIT_LOGNORMAL ? d * d - sh
                                                        : y[i] / m->mean[c] - d - 1 - sh / 2);
        }
    }
    double moved = 0, RL[HK_FITMIX_MAX] = {0}, BL[HK_FITMIX_MAX] = {0};
    int lead[HK_FITMIX_MAX];
    ties(m, lead);
    for (int c = 0; c < m->k; c++) { /* tied mirrors: their times pooled for one spread */
        RL[lead[c]] += R[c];
        BL[lead[c]] += B[c];
    }
    for (int c = 0; c < m->k; c++) {
        if (RL[lead[c]] >= SPREAD_MIN_N)
            moved = fmax(moved, spread_step(m, c, BL[lead[c]] / RL[lead[c]]));
        if (!m->fixed) {
            double w = (R[c] + PRIOR * (double)n * m->given_w[c]) / ((1 + PRIOR) * (double)n);
            moved = fmax(moved, fabs(w - m->w[c]));
            m->w[c] = w;
        }
    }
    return moved;
}

/* Where the empirical CDF is compared at sample i of sorted y[0..n), into *at: every sample for
 * exact times (q = 0); for times cut to multiples of q only the last of each cut, at its upper
 * edge (the spread inside a cut is no evidence). 0: no comparison at i. */
static int edge(const double *y, long n, long i, double q, double *at)
{
    if (!(q > 0)) {
        *at = y[i];
        return 1;
    }
    double cut = floor(y[i] / q);
    if (i + 1 < n && floor(y[i + 1] / q) == cut)
        return 0;
    *at = (cut + 1) * q;
    return 1;
}

/* sup |F_n - F| of the mixture over the sorted y[0..n). */
static double ks_mixture(const hk_fitmix *m, const double *y, long n, double q)
{
    double d = 0, at;
    for (long i = 0; i < n; i++) {
        if (!edge(y, n, i, q, &at))
            continue;
        double F = cdf_mix(m, at), hi = (double)(i + 1) / (double)n - F;
        d = fmax(d, q > 0 ? fabs(hi) : fmax(F - (double)i / (double)n, hi));
    }
    return d;
}

/* Each component against its own share of the times: the empirical CDF of y weighted by the
 * component's responsibility, against its CDF. */
static void ks_components(hk_fitmix *m, const double *y, long n, double q)
{
    double R[HK_FITMIX_MAX] = {0}, G[HK_FITMIX_MAX] = {0}, at;
    respc rc = {.cut = NAN};
    for (long i = 0; i < n; i++) {
        const double *r = resp(m, y[i], q, &rc);
        for (int c = 0; c < m->k; c++)
            R[c] += r[c];
    }
    memset(m->ks, 0, sizeof m->ks);
    rc.cut = NAN;
    for (long i = 0; i < n; i++) {
        const double *r = resp(m, y[i], q, &rc);
        int cmp = edge(y, n, i, q, &at);
        for (int c = 0; c < m->k; c++) {
            if (!(R[c] > 0))
                continue;
            double lo = G[c] / R[c];
            G[c] += r[c];
            if (!cmp)
                continue;
            double F = cdf(m, c, at), hi = G[c] / R[c] - F;
            m->ks[c] = fmax(m->ks[c], q > 0 ? fabs(hi) : fmax(F - lo, hi));
        }
    }
}

/* The mixture's mean log likelihood of y[0..n): how the two families are told apart. Times cut
 * to multiples of q are counted per cut, each its probability F(upper) - F(lower). */
static double loglik(const hk_fitmix *m, const double *y, long n, double q)
{
    double l = 0, at;
    long from = 0;
    for (long i = 0; i < n; i++) {
        double f = 0;
        if (q > 0 && !edge(y, n, i, q, &at))
            continue;
        if (q > 0) {
            f = cdf_mix(m, at) - cdf_mix(m, at - q);
            l += (double)(i + 1 - from) * log(f > 1e-300 ? f : 1e-300);
            from = i + 1;
            continue;
        }
        for (int c = 0; c < m->k; c++)
            f += m->w[c] * pdf(m, c, y[i]);
        l += log(f > 1e-300 ? f : 1e-300);
    }
    return l / (double)n;
}

/* Times cut to multiples of q, as counts per cut: cut c holds count[c] times in [lo, lo + q). */
typedef struct cuts {
    long n;
    double *lo, *count;
} cuts;

static int cuts_of(const double *y, long n, double q, cuts *b)
{
    double at;
    long from = 0;
    b->n = 0;
    b->lo = malloc((size_t)n * sizeof *b->lo);
    b->count = malloc((size_t)n * sizeof *b->count);
    if (!b->lo || !b->count)
        return -1;
    for (long i = 0; i < n; i++) {
        if (!edge(y, n, i, q, &at))
            continue;
        b->lo[b->n] = at - q;
        b->count[b->n++] = (double)(i + 1 - from);
        from = i + 1;
    }
    return 0;
}

static double cut_loglik(const hk_fitmix *m, const cuts *b, double q)
{
    double l = 0;
    for (long i = 0; i < b->n; i++) {
        double f = cdf_mix(m, b->lo[i] + q) - cdf_mix(m, b->lo[i]);
        l += b->count[i] * log(f > 1e-300 ? f : 1e-300);
    }
    return l;
}

static double *param(hk_fitmix *m, int c)
{
    return m->kind == HK_FIT_LOGNORMAL ? &m->sigma[c] : &m->shape[c];
}

/* Component c's spread, and that of every component tied to it, set to v. */
static void set_param(hk_fitmix *m, int c, const int *lead, double v)
{
    for (int d = 0; d < m->k; d++)
        if (lead[d] == lead[c])
            *param(m, d) = v;
}

/* Component c's spread (and its ties', lead) that maximises the cut likelihood, the others
 * held: a golden-section search over its logarithm, within a factor 3 of where it stands. The
 * relative change. */
static double cut_coordinate(hk_fitmix *m, int c, const int *lead, const cuts *b, double q)
{
    const double g = (sqrt(5) - 1) / 2;
    double was = *param(m, c), lo = log(was / 3), hi = log(was * 3);
    int ln = m->kind == HK_FIT_LOGNORMAL;
    lo = fmax(lo, log(ln ? SIGMA_MIN : SHAPE_MIN));
    hi = fmin(hi, log(ln ? SIGMA_MAX : SHAPE_MAX));
    for (int it = 0; it < 40; it++) {
        double a = hi - g * (hi - lo), z = lo + g * (hi - lo);
        set_param(m, c, lead, exp(a));
        double fa = cut_loglik(m, b, q);
        set_param(m, c, lead, exp(z));
        double fz = cut_loglik(m, b, q);
        if (fa > fz)
            hi = z;
        else
            lo = a;
    }
    set_param(m, c, lead, exp((lo + hi) / 2));
    return fabs(*param(m, c) - was) / was;
}

/* Times cut to multiples of q: the spreads EM (with Sheppard's correction) found, refined on
 * the likelihood of the cuts themselves, which is exact for such times. */
static void cut_refine(hk_fitmix *m, const double *y, long n, double q)
{
    cuts b;
    int lead[HK_FITMIX_MAX];
    ties(m, lead);
    if (cuts_of(y, n, q, &b) == 0) {
        for (int sweep = 0; sweep < 30; sweep++) {
            double moved = 0;
            for (int c = 0; c < m->k; c++)
                if (lead[c] == c)
                    moved = fmax(moved, cut_coordinate(m, c, lead, &b, q));
            if (moved < 1e-4)
                break;
        }
    }
    free(b.lo);
    free(b.count);
}

/* EM from the given weights at means given - shift, spreads started alike. */
static int em(hk_fitmix *m, double shift, const double *y, long n, double q, int max)
{
    m->shift = shift;
    for (int c = 0; c < m->k; c++) {
        m->w[c] = m->given_w[c];
        m->mean[c] = m->given_mean[c] - shift;
        m->sigma[c] = 0.3;
        m->shape[c] = 10;
    }
    int it = 0;
    while (it < max && step(m, y, n, q) > TOL)
        it++;
    return it + 1;
}

/* At most SEARCH_N of the sorted y[0..n), evenly through them (a quantile sample): the shift is
 * searched on these. */
#define SEARCH_N 1000
#define SEARCH_ITERS 40        /* EM steps per shift tried */
#define SEARCH_GRID 25
#define SEARCH_GOLDEN 12
static long thin(const double *y, long n, double *out)
{
    if (n <= SEARCH_N) {
        memcpy(out, y, (size_t)n * sizeof *out);
        return n;
    }
    for (long i = 0; i < SEARCH_N; i++)
        out[i] = y[(long)(((double)i + 0.5) * (double)n / SEARCH_N)];
    return SEARCH_N;
}

/* The likelihood of y[0..n) after a short EM at the given shift. */
static double shift_loglik(hk_fitmix *t, double shift, const double *y, long n, double q)
{
    em(t, shift, y, n, q, SEARCH_ITERS);
    return loglik(t, y, n, q);
}

/* The common shift between the given means and the times' (the status's agent time and the
 * log's need not be the same measure), over shifts that keep every mean above a tenth of the
 * smallest given one. Narrow mirrors make the likelihood many-peaked (a mean just below a cut
 * the times never reach loses its mirror): a grid first, then a golden-section search around
 * its best point. */
static double find_shift(hk_fitmix *m, const double *y, long n, double q)
{
    const double g = (sqrt(5) - 1) / 2;
    double least = HUGE_VAL, x[SEARCH_N];
    for (int c = 0; c < m->k; c++)
        least = fmin(least, m->given_mean[c]);
    double from = -0.5 * least, to = 0.9 * least, step = (to - from) / (SEARCH_GRID - 1);
    long k = thin(y, n, x);
    hk_fitmix t = *m;
    double best = from, fbest = -HUGE_VAL;
    for (int i = 0; i < SEARCH_GRID; i++) {
        double s = from + step * i, f = shift_loglik(&t, s, x, k, q);
        if (f > fbest) {
            fbest = f;
            best = s;
        }
    }
    double lo = fmax(from, best - step), hi = fmin(to, best + step);
    for (int it = 0; it < SEARCH_GOLDEN; it++) {
        double a = hi - g * (hi - lo), z = lo + g * (hi - lo);
        if (shift_loglik(&t, a, x, k, q) > shift_loglik(&t, z, x, k, q))
            hi = z;
        else
            lo = a;
    }
    double mid = (lo + hi) / 2;
    return shift_loglik(&t, mid, x, k, q) >= fbest ? mid : best;
}

static void fit_family(hk_fitmix *m, hk_fit_kind kind, const double *y, long n, double q)
{
    m->kind = kind;
    int it = em(m, m->fixed ? 0 : find_shift(m, y, n, q), y, n, q, ITER_MAX);
    m->iters = it > m->iters ? it : m->iters;
    if (q > 0)
        cut_refine(m, y, n, q);
    m->ks_mix = ks_mixture(m, y, n, q);
    m->loglik = loglik(m, y, n, q);
}

static int given_ok(hk_fitmix *m)
{
    double tot = 0;
    if (m->k < 1 || m->k > HK_FITMIX_MAX)
        return 0;
    for (int c = 0; c < m->k; c++) {
        if (!(m->w[c] > 0) || !(m->mean[c] > 0) || !isfinite(m->w[c] + m->mean[c]))
            return 0;
        tot += m->w[c];
    }
    for (int c = 0; c < m->k; c++) {
        m->given_w[c] = m->w[c] /= tot;
        m->given_mean[c] = m->mean[c];
    }
    return 1;
}

int hk_fitmix_times(double *x, long n, double q, hk_fitmix *m)
{
    if (!given_ok(m))
        return -1;
    long lo = hk_fit_prepare(x, n, q);
    const double *y = x + lo;
    m->n = n - lo;
    m->iters = 0;
    if (m->n < HK_FIT_MIN)
        return -1;
    hk_fitmix g = *m;
    fit_family(m, HK_FIT_LOGNORMAL, y, m->n, q);
    fit_family(&g, HK_FIT_GAMMA, y, g.n, q);
    if (g.loglik > m->loglik) {
        g.ks_other = m->ks_mix;
        g.iters = g.iters > m->iters ? g.iters : m->iters;
        *m = g;
    } else {
        m->ks_other = g.ks_mix;
        m->iters = g.iters > m->iters ? g.iters : m->iters;
    }
    ks_components(m, y, m->n, q);
    return 0;
}

double hk_fitmix_quantile(const hk_fitmix *m, int c, double p)
{
    if (m->kind == HK_FIT_LOGNORMAL) {
        double s = m->sigma[c];
        return gsl_cdf_lognormal_Pinv(p, log(m->mean[c]) - s * s / 2, s);
    }
    return hk_fit_gamma_Pinv(p, m->shape[c], m->mean[c] / m->shape[c]);
}
