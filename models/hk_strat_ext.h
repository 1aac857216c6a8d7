/* hk_strat_ext: the hakarma-extension strategies (p2c, least-outstanding, peak-ewma, c3) behind
 * hk_strat's one interface; see hk_strat_ext.c for what each does and where it comes from.
 * Internal to hk_strat: callers use hk_line_*. */
#ifndef HK_STRAT_EXT_H
#define HK_STRAT_EXT_H

#include <gsl/gsl_rng.h>
#include <stdint.h>

#define HK_EWMA_FAIL_US 1e6      /* a failed attempt counts as this latency (peak-ewma, c3) */

struct hk_line;

/* Per mirror, what the master learnt of it. */
typedef struct hk_ext {
    int seen;                    /* an attempt has ended */
    double cost;                 /* peak-ewma latency, us */
    int64_t t_us;                /* ... last updated */
    double resp, svc, queue;     /* c3: EWMAs of response time, service time (us), queue */
    double fb_svc, fb_queue;     /* what the mirror reported for the attempt ending (service
                                    time, wait in its queue, us); < 0 none */
} hk_ext;

int hk_ext_init(struct hk_line *l);
int hk_ext_choose(struct hk_line *l, int64_t now_us, gsl_rng *r);
void hk_ext_probs(struct hk_line *l, int64_t now_us, double *p);
void hk_ext_end(struct hk_line *l, int i, int64_t now_us, int ok, int64_t latency_us);

#endif
