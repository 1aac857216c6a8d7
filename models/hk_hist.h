/* hk_hist: a fixed-size log-bucketed latency histogram (about 1% relative
 * precision from 1 µs to ~1.8 hours), so percentiles cost memory bounded by
 * the bucket count, never by the number of samples. */
#ifndef HK_HIST_H
#define HK_HIST_H

#include <stdint.h>

#define HK_HIST_SUB 64           /* buckets per power of two */
#define HK_HIST_OCT 33           /* powers of two covered */
#define HK_HIST_N (HK_HIST_SUB * HK_HIST_OCT)

typedef struct hk_hist {
    uint64_t n;
    double sum, min, max;
    uint32_t b[HK_HIST_N];
} hk_hist;

void hk_hist_reset(hk_hist *h);
void hk_hist_add(hk_hist *h, double us);
void hk_hist_merge(hk_hist *dst, const hk_hist *src);
/* q in [0,1]; returns microseconds (0 for an empty histogram). */
double hk_hist_quantile(const hk_hist *h, double q);
double hk_hist_mean(const hk_hist *h);

#endif
