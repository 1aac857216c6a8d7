/* hk_fit: the shapes come back from samples drawn from them, and the right one is chosen. */
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdlib.h>
#include "hk_fit.h"
#include "hk_fitmix.h"
#include "hk_test.h"

#define N 5000

static void lognormal_back(void **st)
{
    (void)st;
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 7);
    double *x = malloc(N * sizeof *x);
    for (int i = 0; i < N; i++)
        x[i] = gsl_ran_lognormal(r, log(5.0), 0.4);
    hk_fit f;
    assert_int_equal(hk_fit_times(x, N, 0, &f), 0);
    assert_int_equal(f.kind, HK_FIT_LOGNORMAL);
    assert_near(f.median, 5.0, 0.15);
    assert_near(f.sigma, 0.4, 0.02);
    assert_true(f.ks_lognormal < 0.02);
    assert_true(f.ks_gamma > f.ks_lognormal);
    free(x);
    gsl_rng_free(r);
}

static void gamma_back(void **st)
{
    (void)st;
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 11);
    double *x = malloc(N * sizeof *x);
    for (int i = 0; i < N; i++)
        x[i] = gsl_ran_gamma(r, 3.0, 2.0);
    hk_fit f;
    assert_int_equal(hk_fit_times(x, N, 0, &f), 0);
    assert_int_equal(f.kind, HK_FIT_GAMMA);
    assert_near(f.shape, 3.0, 0.25);
    assert_near(f.shape * f.scale, 6.0, 0.2);
    assert_true(f.ks_gamma < 0.02);
    free(x);
    gsl_rng_free(r);
}

/* zeros are times below the log's resolution: left out; too few samples: no fit */
static void too_few(void **st)
{
    (void)st;
    double x[40];
    for (int i = 0; i < 40; i++)
        x[i] = i < 15 ? 0 : 0.001 * (i % 7 + 1);
    hk_fit f;
    assert_int_equal(hk_fit_times(x, 40, 0, &f), -1);
    double y[40];
    for (int i = 0; i < 40; i++)
        y[i] = 0.004;
    assert_int_equal(hk_fit_times(y, 40, 0, &f), 0);
    assert_near(f.median, 0.004, 1e-9);
    assert_true(f.sigma > 0);
}

/* times cut to whole milliseconds, as a query log prints them: the spread gets the shape back */
static void quantised(void **st)
{
    (void)st;
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 5);
    double *x = malloc(N * sizeof *x);
    for (int i = 0; i < N; i++)
        x[i] = floor(gsl_ran_lognormal(r, log(4.0), 0.4));
    hk_fit f;
    assert_int_equal(hk_fit_times(x, N, 1.0, &f), 0);
    assert_int_equal(f.kind, HK_FIT_LOGNORMAL);
    assert_near(f.median, 4.0, 0.25);
    assert_near(f.sigma, 0.4, 0.05);
    assert_true(f.ks_lognormal < 0.03);
    free(x);
    gsl_rng_free(r);
}

/* Three mirrors of one line, 4, 6 and 25 ms, shares .5/.3/.2, each its own spread: the line's
 * times (cut to whole ms when floor is set) give each mirror its spread back, given the shares
 * and means the status measures. */
static double *mixture(gsl_rng *r, int gamma, int floor_ms)
{
    static const double w[3] = {0.5, 0.3, 0.2}, mean[3] = {4, 6, 25}, sg[3] = {0.2, 0.35, 0.5};
    static const double shape[3] = {20, 8, 3};
    double *x = malloc(4 * N * sizeof *x);
    for (int i = 0; i < 4 * N; i++) {
        double u = gsl_rng_uniform(r);
        int c = u < w[0] ? 0 : u < w[0] + w[1] ? 1 : 2;
        double v = gamma ? gsl_ran_gamma(r, shape[c], mean[c] / shape[c])
                         : gsl_ran_lognormal(r, log(mean[c]) - sg[c] * sg[c] / 2, sg[c]);
        x[i] = floor_ms ? floor(v) : v;
    }
    return x;
}

/* the shares and means as a status measures them: exact and fixed, or shares off by 10 points
 * and every mean 1 ms high (the connect the master counts), fitted back */
static void given(hk_fitmix *m, int fixed)
{
    double up = fixed ? 0 : 1;
    *m = (hk_fitmix){.k = 3, .w = {fixed ? 5 : 6, 3, fixed ? 2 : 1},
                     .mean = {4 + up, 6 + up, 25 + up}, .fixed = fixed};
}

static void mixture_back(void **st)
{
    (void)st;
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 3);
    for (int fl = 0; fl < 2; fl++) {
        double *x = mixture(r, 0, fl);
        hk_fitmix m;
        given(&m, fl);
        assert_int_equal(hk_fitmix_times(x, 4 * N, fl ? 1.0 : 0, &m), 0);
        assert_near(m.w[0], 0.5, fl ? 1e-12 : 0.02);
        assert_near(m.w[2], 0.2, fl ? 1e-12 : 0.02);
        assert_near(m.given_w[2], fl ? 0.2 : 0.1, 1e-12);
        assert_near(m.shift, fl ? 0 : 1, 0.1);
        assert_near(m.mean[0], 4, 0.1);
        assert_near(m.given_mean[0], fl ? 4 : 5, 1e-12);
        assert_int_equal(m.kind, HK_FIT_LOGNORMAL);
        assert_near(m.sigma[0], 0.2, 0.02);
        assert_near(m.sigma[1], 0.35, 0.03);
        assert_near(m.sigma[2], 0.5, 0.03);
        assert_true(m.ks_mix < 0.02);
        for (int c = 0; c < 3; c++)
            assert_true(m.ks[c] < HK_FITMIX_POOR);
        /* each mirror's p99 (lognormal(log mean - s²/2, s): 6.24, 12.74 and 70.4 ms) within 5%,
         * whole milliseconds or not */
        assert_near(hk_fitmix_quantile(&m, 0, 0.99), 6.24, 0.31);
        assert_near(hk_fitmix_quantile(&m, 1, 0.99), 12.74, 0.64);
        assert_near(hk_fitmix_quantile(&m, 2, 0.99), 70.4, 3.5);
        free(x);
    }
    gsl_rng_free(r);
}

static void mixture_gamma(void **st)
{
    (void)st;
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 9);
    double *x = mixture(r, 1, 0);
    hk_fitmix m;
    given(&m, 0);
    assert_int_equal(hk_fitmix_times(x, 4 * N, 0, &m), 0);
    assert_int_equal(m.kind, HK_FIT_GAMMA);
    assert_near(m.shape[0], 20, 3);
    assert_near(m.shape[2], 3, 0.4);
    assert_true(m.ks_mix < m.ks_other);
    free(x);
    gsl_rng_free(r);
}

/* Mirrors narrower than the log's millisecond (issue 37's interop capture: constant 10, 5, 30 and
 * 3 ms, each within its cut): each keeps its share; judged on the density where the spreading put
 * a time, the 3 ms mirror lost its weight to the 5 ms one (0.03 of 0.30, KS 0.13). */
static void mixture_narrow(void **st)
{
    (void)st;
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 5);
    const double mean[4] = {10.5, 5.5, 30.3, 3.45}, w[4] = {0.26, 0.30, 0.14, 0.30};
    enum { M = 2400 };
    double *x = malloc(M * sizeof *x);
    assert_non_null(x);
    for (int i = 0; i < M; i++) {
        double u = gsl_rng_uniform(r), acc = 0;
        int c = 0;
        while (c < 3 && u >= (acc += w[c]))
            c++;
        x[i] = floor(mean[c] * exp(gsl_ran_gaussian(r, 0.01)));
    }
    hk_fitmix m = {.k = 4, .w = {623, 734, 339, 723}, .mean = {10.45, 5.46, 30.26, 3.44}};
    assert_int_equal(hk_fitmix_times(x, M, 1.0, &m), 0);
    for (int c = 0; c < 4; c++) {
        assert_near(m.w[c], w[c], 0.03);
        assert_true(m.ks[c] < HK_FITMIX_POOR);
    }
    assert_true(m.ks_mix < 0.05);
    free(x);
    gsl_rng_free(r);
}

/* Two mirrors of one service (cli_interop's e2: both lognormal 3 ms, sigma 0.4): their times
 * cannot be told apart, so they share one spread, the data's (apart, one took 0.55 and its p99
 * 1.38x its own log's). */
static void mixture_tied(void **st)
{
    (void)st;
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 6);
    enum { M = 3000 };
    double *x = malloc(M * sizeof *x);
    assert_non_null(x);
    for (int i = 0; i < M; i++)
        x[i] = floor(3 * exp(gsl_ran_gaussian(r, 0.4)) * 1000) / 1000;
    hk_fitmix m = {.k = 2, .w = {1, 2}, .mean = {3.58, 3.61}};
    assert_int_equal(hk_fitmix_times(x, M, 0, &m), 0);
    assert_near(m.sigma[0], m.sigma[1], 1e-12);
    assert_near(m.sigma[0], 0.4, 0.03);
    free(x);
    gsl_rng_free(r);
}

/* means that are not the data's: said as a poor fit, not hidden */
static void mixture_poor(void **st)
{
    (void)st;
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 4);
    double *x = mixture(r, 0, 0);
    hk_fitmix m = {.k = 3, .w = {5, 3, 2}, .mean = {12, 14, 16}, .fixed = 1};
    assert_int_equal(hk_fitmix_times(x, 4 * N, 0, &m), 0);
    assert_true(m.ks_mix > HK_FITMIX_POOR);
    hk_fitmix bad = {.k = 2, .w = {1, 0}, .mean = {4, 6}};
    assert_int_equal(hk_fitmix_times(x, 4 * N, 0, &bad), -1);
    free(x);
    gsl_rng_free(r);
}

int main(void)
{
    const struct CMUnitTest t[] = {cmocka_unit_test(lognormal_back), cmocka_unit_test(gamma_back),
                                   cmocka_unit_test(too_few), cmocka_unit_test(quantised),
                                   cmocka_unit_test(mixture_back), cmocka_unit_test(mixture_gamma),
                                   cmocka_unit_test(mixture_narrow), cmocka_unit_test(mixture_tied),
                                   cmocka_unit_test(mixture_poor)};
    return cmocka_run_group_tests(t, NULL, NULL);
}
