/* hk_arrivals: when queries arrive, as scenario workloads write it.
 *   poisson(200/s)  constant(200/s)  onoff(rate=500/s, on=10s, off=20s)
 *   diurnal(mean=200/s, amplitude=0.5, period=24h)   (sinusoidal, thinned Poisson)
 *   trace(FILE.csv [, COLUMN])   timestamps in seconds, streamed by the caller
 * Rates are N/s, N/m, N/h or N/ms, from HK_ARR_RATE_MIN to HK_ARR_RATE_MAX per
 * second (one query per simulated microsecond at most); on/off/period at most
 * 10 years. Generates one arrival at a time, so memory does not grow with the
 * number of queries. */
#ifndef HK_ARRIVALS_H
#define HK_ARRIVALS_H

#include <gsl/gsl_rng.h>
#include <stdint.h>

#define HK_ARR_RATE_MIN 1e-6
#define HK_ARR_RATE_MAX 1e6
#define HK_ARR_SPAN_MAX_US (3650LL * 86400 * 1000000)

typedef enum hk_arr_kind {
    HK_ARR_POISSON, HK_ARR_CONSTANT, HK_ARR_ONOFF, HK_ARR_DIURNAL, HK_ARR_TRACE
} hk_arr_kind;

/* Trace source: returns 1 with the next arrival's moment on the simulated clock, in µs, and its
 * table (an index, -1 = the workload's, -2 = a table the config does not serve), 0 at the end,
 * -1 on error. */
typedef int (*hk_arr_next_fn)(void *ctx, int64_t *t_us, int *table);

#define HK_ARR_AHEAD 16

typedef struct hk_arrivals {
    hk_arr_kind kind;
    double rate;                 /* per microsecond (mean rate for diurnal) */
    double gap_us;               /* 1 / rate, the mean gap (computed once, not per arrival) */
    double amplitude;            /* diurnal */
    int64_t on_us, off_us, period_us;
    char path[512], column[128]; /* trace */
    hk_arr_next_fn next;
    void *ctx;
    int started;
    double carry;                /* the fraction of a us the last gap left over */
    int draw_ahead;              /* the caller's generator feeds nothing else: exponential gaps
                                    may be drawn HK_ARR_AHEAD together (same values, same order;
                                    the CPU overlaps the draws' libm calls) */
    int ahead_i, ahead_n;
    double ahead[HK_ARR_AHEAD];
} hk_arrivals;

int hk_arrivals_parse(const char *s, hk_arrivals *a, int *bad, char *what, int nwhat);
/* The next arrival after now_us (the first call may return now_us itself for constant and
 * trace sources, and a trace arrival earlier than now_us comes at now_us); -1 when the source
 * is exhausted, -2 on a trace error. *table: as hk_arr_next_fn's (-1 for generated arrivals). */
int64_t hk_arrivals_next(hk_arrivals *a, int64_t now_us, gsl_rng *r, int *table);
/* Mean rate per second (trace: 0, unknown). */
double hk_arrivals_rate_per_s(const hk_arrivals *a);

#endif
