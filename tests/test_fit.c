/* hk_fit: the shapes come back from samples drawn from them, and the right one is chosen. */
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdlib.h>
#include "hk_fit.h"
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

int main(void)
{
    const struct CMUnitTest t[] = {cmocka_unit_test(lognormal_back), cmocka_unit_test(gamma_back),
                                   cmocka_unit_test(too_few), cmocka_unit_test(quantised)};
    return cmocka_run_group_tests(t, NULL, NULL);
}
