/* hk_hist: a log-bucketed latency histogram (about 1% relative precision
 * from 1 µs to ~1.8 hours), so percentiles cost memory bounded by the bucket
 * count, never by the number of samples. Buckets are kept per power of two
 * and allocated only for the powers a series touches (a mirror's latencies
 * span a few), so an empty histogram is ~300 bytes and a used one a few KB.
 * A zeroed struct is an empty histogram; hk_hist_free releases its buckets. */
#ifndef HK_HIST_H
#define HK_HIST_H

#include <stdint.h>
#include <string.h>

#define HK_HIST_SUB 64           /* buckets per power of two */
#define HK_HIST_OCT 33           /* powers of two covered */
#define HK_HIST_N (HK_HIST_SUB * HK_HIST_OCT)

typedef struct hk_hist {
    uint64_t n;
    double sum, min, max;
    uint32_t *oct[HK_HIST_OCT];  /* HK_HIST_SUB counters each, NULL until used */
    uint64_t lost;               /* samples not bucketed (out of memory): counted in n only */
} hk_hist;

/* Empty it; its buckets stay allocated for reuse. */
void hk_hist_reset(hk_hist *h);
void hk_hist_free(hk_hist *h);
void hk_hist_add_any(hk_hist *h, double us);
/* Add a sample. Inline for the common case (a sample of at least 1 µs in a power of two already
 * in use), which bins from the IEEE-754 bits as hk_hist_add_any does; the rest goes there. */
static inline void hk_hist_add(hk_hist *h, double us)
{
    uint64_t bits;
    memcpy(&bits, &us, sizeof bits);
    int oct = (int)(bits >> 52) - 1023;
    uint32_t *o;
    if (us >= 1.0 && h->n && oct < HK_HIST_OCT && (o = h->oct[oct])) {
        if (us < h->min)
            h->min = us;
        if (us > h->max)
            h->max = us;
        h->n++;
        h->sum += us;
        o[(bits >> (52 - 6)) & (HK_HIST_SUB - 1)]++;
        return;
    }
    hk_hist_add_any(h, us);
}
void hk_hist_merge(hk_hist *dst, const hk_hist *src);
/* q in [0,1]; returns microseconds (0 for an empty histogram). */
double hk_hist_quantile(const hk_hist *h, double q);
double hk_hist_mean(const hk_hist *h);

#endif
