/* Weight formulas of each variant against the spec's vectors (§8.1-8.3). */
#include <math.h>
#include "hk_test.h"
#include "hk_weights.h"

static void probs(const double *w, int n, double *p)
{
    double s = 0;
    for (int i = 0; i < n; i++)
        s += w[i];
    for (int i = 0; i < n; i++)
        p[i] = w[i] / s;
}

static void manual_example_manticore(void **st)
{
    (void)st;
    int64_t t[4] = {10000, 5000, 30000, 3000};
    double w[4], p[4];
    hk_weights_manticore_init(w, 4);
    assert_near(w[0], 25.0, 1e-6);
    hk_weights_manticore(t, w, 4);
    probs(w, 4, p);
    assert_near(p[0], 0.15, 1e-5);
    assert_near(p[1], 0.30, 1e-5);
    assert_near(p[2], 0.05, 1e-5);
    assert_near(p[3], 0.50, 1e-5);
    /* second step: Manticore ignores the old weights, same answer again */
    hk_weights_manticore(t, w, 4);
    assert_near(w[3], 50.0, 1e-4);
}

static void manual_example_documented(void **st)
{
    (void)st;
    int64_t t[4] = {10000, 5000, 30000, 3000};
    double w[4];
    hk_weights_documented_init(w, 4);
    hk_weights_documented(t, w, 4);
    assert_near(w[0], 0.15, 1e-9);
    assert_near(w[1], 0.30, 1e-9);
    assert_near(w[2], 0.05, 1e-9);
    assert_near(w[3], 0.50, 1e-9);
    /* second step multiplies again: 0.15/10, 0.3/5, 0.05/30, 0.5/3 normalised */
    hk_weights_documented(t, w, 4);
    double q[4] = {0.015, 0.06, 0.05 / 30, 0.5 / 3}, s = q[0] + q[1] + q[2] + q[3];
    for (int i = 0; i < 4; i++)
        assert_near(w[i], q[i] / s, 1e-9);
    assert_near(w[3], 0.6849315, 1e-6);
}

static void manual_example_sphinx2(void **st)
{
    (void)st;
    int64_t t[4] = {10000, 5000, 30000, 3000};
    double w[4], p[4];
    hk_weights_sphinx2_init(w, 4);
    assert_int_equal((int)w[0], 16383);
    hk_weights_sphinx2(t, w, 4);
    assert_int_equal((int)w[0], 51881);
    assert_int_equal((int)w[1], 58708);
    assert_int_equal((int)w[2], 24575);
    assert_int_equal((int)w[3], 61439);
    probs(w, 4, p);
    assert_near(p[0], 0.2639, 1e-4);
    assert_near(p[2], 0.1250, 1e-4);
    assert_near(p[3], 0.3125, 1e-4);
}

static void idle_mirror_vectors(void **st)
{
    (void)st;
    int64_t t3[3] = {10000, 0, 30000};
    double w[4];
    hk_weights_sphinx2_init(w, 3);
    hk_weights_sphinx2(t3, w, 3);
    assert_int_equal((int)w[0], 44236);
    assert_int_equal((int)w[1], 6553);
    assert_int_equal((int)w[2], 14745);
    hk_weights_manticore_init(w, 3);
    hk_weights_manticore(t3, w, 3);
    assert_near(w[0], 75.0, 1e-4);
    assert_near(w[1], 0.0, 0);
    assert_near(w[2], 25.0, 1e-4);

    int64_t t4[4] = {10000, 5000, 30000, 0};
    hk_weights_sphinx2_init(w, 4);
    hk_weights_sphinx2(t4, w, 4);
    assert_int_equal((int)w[0], 45874);
    assert_int_equal((int)w[1], 52428);
    assert_int_equal((int)w[2], 19660);
    assert_int_equal((int)w[3], 6553);
    hk_weights_manticore(t4, w, 4);
    assert_near(w[0], 30.0, 1e-4);
    assert_near(w[1], 60.0, 1e-4);
    assert_near(w[2], 10.0, 1e-4);
    assert_near(w[3], 0.0, 0);
}

static void unit_test_vectors(void **st)
{
    (void)st;
    double w[4];
    int64_t a[2] = {0, 18469};
    hk_weights_sphinx2_init(w, 2);
    hk_weights_sphinx2(a, w, 2);
    assert_int_equal((int)w[0], 6553);
    assert_int_equal((int)w[1], 58981);
    hk_weights_manticore_init(w, 2);
    hk_weights_manticore(a, w, 2);
    assert_near(w[0], 0.0, 0);
    assert_near(w[1], 100.0, 1e-4);

    int64_t b[4] = {0, 0, 0, 18469};
    hk_weights_sphinx2_init(w, 4);
    hk_weights_sphinx2(b, w, 4);
    assert_int_equal((int)w[0], 2184);
    assert_int_equal((int)w[2], 2184);
    assert_int_equal((int)w[3], 58981);

    int64_t c[3] = {7100, 0, 18469};
    hk_weights_sphinx2_init(w, 3);
    hk_weights_sphinx2(c, w, 3);
    assert_int_equal((int)w[0], 42603);
    assert_int_equal((int)w[1], 6553);
    assert_int_equal((int)w[2], 16377);
    hk_weights_manticore_init(w, 3);
    hk_weights_manticore(c, w, 3);
    assert_near(w[0], 72.232, 1e-3);
    assert_near(w[2], 27.768, 1e-3);
}

static void no_timing_keeps_weights(void **st)
{
    (void)st;
    int64_t z[2] = {0, 0};
    double w[2];
    hk_weights_sphinx2_init(w, 2);
    hk_weights_sphinx2(z, w, 2);
    assert_int_equal((int)w[0], 32767);
    assert_int_equal((int)w[1], 32767);
    hk_weights_manticore_init(w, 2);
    hk_weights_manticore(z, w, 2);
    assert_near(w[0], 50.0, 1e-6);
    hk_weights_documented_init(w, 2);
    hk_weights_documented(z, w, 2);
    assert_near(w[0], 0.5, 1e-12);
}

static void two_mirrors_agree(void **st)
{
    (void)st;
    int64_t t[2] = {186751, 228828};
    double w[2];
    hk_weights_sphinx2_init(w, 2);
    hk_weights_sphinx2(t, w, 2);
    assert_int_equal((int)w[0], 36085);
    assert_int_equal((int)w[1], 29449);
    hk_weights_manticore(t, w, 2);
    assert_near(w[0], 55.0625, 1e-3);
    int64_t u[2] = {10000, 20000};
    hk_weights_sphinx2(u, w, 2);
    assert_int_equal((int)w[0], 43689);
    assert_int_equal((int)w[1], 21844);
    int64_t v[2] = {3000000, 5000};
    hk_weights_sphinx2(v, w, 2);
    assert_int_equal((int)w[0], 109);
    assert_int_equal((int)w[1], 65425);
    hk_weights_manticore(v, w, 2);
    assert_near(w[0], 0.166, 1e-3);
}

static void documented_untimed_keeps_mass(void **st)
{
    (void)st;
    int64_t t[3] = {10000, 0, 30000};
    double w[3] = {0.5, 0.2, 0.3};
    hk_weights_documented(t, w, 3);
    assert_near(w[1], 0.2, 1e-12);
    assert_near(w[0] + w[2], 0.8, 1e-12);
    assert_near(w[0] / w[2], (0.5 / 10000) / (0.3 / 30000), 1e-9);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(manual_example_manticore), cmocka_unit_test(manual_example_documented),
        cmocka_unit_test(manual_example_sphinx2),   cmocka_unit_test(idle_mirror_vectors),
        cmocka_unit_test(unit_test_vectors),        cmocka_unit_test(no_timing_keeps_weights),
        cmocka_unit_test(two_mirrors_agree),        cmocka_unit_test(documented_untimed_keeps_mass),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
