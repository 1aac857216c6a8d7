/* hk_variant: which real implementation the core imitates. Manticore's code
 * and manual disagree, and Sphinx 2.2.11 differs from both, so each is a
 * named variant; `manticore` (Manticore's code as it is) is the default.
 *   manticore        Manticore HEAD: weights from a timer that reads the
 *                    query_timeouts counter (a defect), so in practice weights
 *                    stay at 100/N; choice at every attempt. Its windows also
 *                    never sum query time (MetricsAndCounters_t::Add skips
 *                    it), so SHOW AGENT STATUS shows 0 there: measured on a
 *                    real master, README "What a real Manticore does".
 *   manticore-fixed  hakarma extension: Manticore with both defects fixed —
 *                    the timer reads the summed query time of the window
 *                    (microseconds per event): inverse-latency weights.
 *   sphinx2          Sphinx 2.2.11: 1 - t/S weights, idle mirrors share 10%,
 *                    one choice per query (retries stay on that mirror).
 *   documented       the manual's rule: probabilities multiplied by inverse
 *                    latency once per karma period. */
#ifndef HK_VARIANT_H
#define HK_VARIANT_H

#include <stdint.h>

typedef enum hk_variant_id {
    HK_VAR_MANTICORE, HK_VAR_MANTICORE_FIXED, HK_VAR_SPHINX2, HK_VAR_DOCUMENTED, HK_VAR_N
} hk_variant_id;

typedef enum hk_layout { HK_LAYOUT_MANTICORE, HK_LAYOUT_SPHINX2 } hk_layout;

typedef struct hk_variant {
    const char *name;
    const char *what;
    int timer_reads_timeouts;    /* Manticore's defect */
    int rechoose_on_retry;       /* Manticore: every attempt runs the strategy */
    int per_period;              /* recompute once per karma block, from the last full block */
    int hello_in_connect;        /* 2.2.11: the connect phase lasts until the server's hello;
                                    Manticore pipelines, so a silent peer is a query timeout */
    hk_layout layout;            /* SHOW AGENT STATUS layout */
    double display_scale;        /* weight x this = what SHOW AGENT STATUS prints */
    void (*init)(double *w, int n);
    void (*rebalance)(const int64_t *timers, double *w, int n);
    int sums_window_time;        /* 0: Manticore's windows leave total_query_time at 0 */
} hk_variant;

const hk_variant *hk_variant_get(hk_variant_id id);
int hk_variant_find(const char *name);     /* -1 if unknown */
const char *hk_variant_names(void);
/* The i-th variant's name, NULL past the last. */
const char *hk_variant_name_at(int i);        /* "manticore, manticore-fixed, ..." */

#endif
