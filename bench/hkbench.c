/* hkbench: hakarma's performance, measured (not a test):
 *   - simulated events/s and queries/s of hasim's engine on the textbook scenario and on the
 *     64x3 one (one core),
 *   - nanoseconds per pick of each strategy for 2, 4, 16, 256 and 4096 mirrors.
 * usage: hkbench [SCENARIO_DIR] [--quick] */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "hk_scnload.h"
#include "hk_strat.h"
#include "sim.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int bench_scenario(const char *dir, const char *name, int variant, int64_t dur_us)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    hk_loaded L;
    hk_err e;
    if (hk_scn_load(path, 1, &L, &e) < 0) {
        char m[700];
        fprintf(stderr, "hkbench: %s\n", hk_err_str(&e, m, sizeof m));
        return -1;
    }
    sim_opts o = {0};
    o.seed = 1;
    o.variant = variant;
    o.strategy = -1;
    o.duration_us = dur_us;
    hk_scn *s = hk_loaded_scn(&L, variant, NULL, &e);
    sim_world *w = s ? sim_new(s, &o) : NULL;
    if (!w) {
        hk_loaded_free(&L);
        return -1;
    }
    double t0 = now_s();
    sim_run(w);
    double dt = now_s() - t0;
    uint64_t picks = 0;
    for (int i = 0; i < s->cl->ntables; i++)
        picks += (uint64_t)s->cl->tables[i].nlines;
    printf("%-22s %-16s %9.0f s sim %10" PRIu64 " queries %11" PRIu64 " events  %6.2f s  "
           "%8.0f k queries/s  %8.0f k events/s  %6.0f ns/event\n", name,
           hk_variant_get(variant)->name, (double)(w->end_us - w->t0) / 1e6,
           (uint64_t)(w->n_ok + w->n_partial + w->n_error), w->events, dt,
           (double)(w->n_ok + w->n_partial + w->n_error) / dt / 1e3, (double)w->events / dt / 1e3,
           dt * 1e9 / (double)w->events);
    (void)picks;
    sim_free(w);
    hk_loaded_free(&L);
    return 0;
}

static void bench_picks(int n, int quick)
{
    hk_dash *d = calloc((size_t)n, sizeof *d);
    hk_dash **p = calloc((size_t)n, sizeof *p);
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    int64_t t = 1000000LL * 100000;
    for (int i = 0; i < n; i++) {
        hk_dash_init(&d[i], 60);
        p[i] = &d[i];
        for (int k = 0; k < 20; k++)
            hk_dash_record(&d[i], t - 1000000, HK_EV_SUCCESS, t - 1000000 - 1000 * (i % 7 + 1),
                           0, -1);
    }
    printf("picks %5d mirrors:", n);
    for (int s = 0; s < HK_STRAT_N; s++) {
        hk_line *l = hk_line_new(n, p, s, hk_variant_get(HK_VAR_MANTICORE_FIXED));
        long iters = (quick ? 2000000L : 20000000L) / n + 1000;
        volatile int sink = 0;
        double t0 = now_s();
        for (long k = 0; k < iters; k++)
            sink += hk_line_choose(l, t + k, r);
        double dt = now_s() - t0;
        printf("  %s %8.1f ns", hk_strat_get(s)->name, dt * 1e9 / (double)iters);
        hk_line_free(l);
        (void)sink;
    }
    printf("\n");
    gsl_rng_free(r);
    free(p);
    free(d);
}

int main(int argc, char **argv)
{
    const char *dir = "scenarios";
    int quick = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick"))
            quick = 1;
        else
            dir = argv[i];
    }
    printf("hkbench: one core; simulated time per scenario, wall time measured\n");
    int64_t h = 3600LL * 1000000;
    if (bench_scenario(dir, "textbook.scn", HK_VAR_MANTICORE, quick ? h / 6 : 2 * h) < 0 ||
        bench_scenario(dir, "textbook.scn", HK_VAR_MANTICORE_FIXED, quick ? h / 6 : 2 * h) < 0 ||
        bench_scenario(dir, "large-64x3.scn", HK_VAR_MANTICORE, quick ? 60000000 : 600000000) < 0)
        return 1;
    static const int sizes[] = {2, 4, 16, 256, 4096};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        bench_picks(sizes[i], quick);
    return 0;
}
