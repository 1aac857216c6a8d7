/* hk_hist: a log-bucketed latency histogram (about 1% relative precision
 * from 1 µs to ~1.8 hours), so percentiles cost memory bounded by the bucket
 * count, never by the number of samples. Buckets are kept per power of two,
 * for the one run of powers between the smallest and the largest a series
 * touched (a mirror's latencies span a few), in one array: an empty histogram
 * is 56 bytes, a used one a few KB, and an add touches two cache lines.
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
    uint32_t *b;                 /* HK_HIST_SUB counters per power of two in [lo, hi); NULL until
                                    used */
    int lo, hi;
    uint64_t lost;               /* samples not bucketed (out of memory): counted in n only */
} hk_hist;

/* Empty it; its buckets stay allocated for reuse. */
void hk_hist_reset(hk_hist *h);
void hk_hist_free(hk_hist *h);
void hk_hist_add_any(hk_hist *h, double us);
/* Add a sample. Inline for the common case (a sample of at least 1 µs in a power of two already
 * covered), which bins from the IEEE-754 bits as hk_hist_add_any does; the rest goes there. */
static inline void hk_hist_add(hk_hist *h, double us)
{
    uint64_t bits;
    memcpy(&bits, &us, sizeof bits);
    int oct = (int)(bits >> 52) - 1023;
    if (us >= 1.0 && h->n && oct >= h->lo && oct < h->hi) {
        if (us < h->min)
            h->min = us;
        if (us > h->max)
            h->max = us;
        h->n++;
        h->sum += us;
        h->b[(oct - h->lo) * HK_HIST_SUB + (int)((bits >> (52 - 6)) & (HK_HIST_SUB - 1))]++;
        return;
    }
    hk_hist_add_any(h, us);
}
void hk_hist_merge(hk_hist *dst, const hk_hist *src);
/* q in [0,1]; returns microseconds (0 for an empty histogram). */
double hk_hist_quantile(const hk_hist *h, double q);
double hk_hist_mean(const hk_hist *h);

#endif
