/* hk_hist: log-bucketed histogram with interpolated quantiles. */
#include "hk_hist.h"

#include <math.h>
#include <string.h>

void hk_hist_reset(hk_hist *h)
{
    memset(h, 0, sizeof *h);
}

/* Bucket from the IEEE-754 bits: exponent = octave, top 6 mantissa bits = sub-bucket
 * (the same buckets as floor(log2) and a linear split of each octave, without frexp). */
static int bucket(double us)
{
    if (us < 1.0)
        return 0;
    uint64_t bits;
    memcpy(&bits, &us, sizeof bits);
    int oct = (int)((bits >> 52) & 0x7ff) - 1023;
    if (oct >= HK_HIST_OCT)
        return HK_HIST_N - 1;
    int sub = (int)((bits >> (52 - 6)) & (HK_HIST_SUB - 1));
    return oct * HK_HIST_SUB + sub;
}

static double lower(int k)
{
    int oct = k / HK_HIST_SUB, sub = k % HK_HIST_SUB;
    return ldexp(1.0 + (double)sub / HK_HIST_SUB, oct);
}

void hk_hist_add(hk_hist *h, double us)
{
    if (!(us >= 0))
        us = 0;
    if (h->n == 0 || us < h->min)
        h->min = us;
    if (us > h->max)
        h->max = us;
    h->n++;
    h->sum += us;
    h->b[bucket(us)]++;
}

void hk_hist_merge(hk_hist *dst, const hk_hist *src)
{
    if (!src->n)
        return;
    if (!dst->n || src->min < dst->min)
        dst->min = src->min;
    if (src->max > dst->max)
        dst->max = src->max;
    dst->n += src->n;
    dst->sum += src->sum;
    for (int k = 0; k < HK_HIST_N; k++)
        dst->b[k] += src->b[k];
}

double hk_hist_quantile(const hk_hist *h, double q)
{
    if (!h->n)
        return 0.0;
    if (q <= 0)
        return h->min;
    if (q >= 1)
        return h->max;
    double rank = q * (double)h->n;
    uint64_t seen = 0;
    for (int k = 0; k < HK_HIST_N; k++) {
        if (!h->b[k])
            continue;
        if ((double)(seen + h->b[k]) >= rank) {
            double lo = k ? lower(k) : 0.0, hi = k + 1 < HK_HIST_N ? lower(k + 1) : h->max;
            double v = lo + (hi - lo) * (rank - (double)seen) / (double)h->b[k];
            return v < h->min ? h->min : v > h->max ? h->max : v;
        }
        seen += h->b[k];
    }
    return h->max;
}

double hk_hist_mean(const hk_hist *h) { return h->n ? h->sum / (double)h->n : 0.0; }
