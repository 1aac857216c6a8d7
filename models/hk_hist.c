/* hk_hist: log-bucketed histogram with interpolated quantiles. */
#include "hk_hist.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void hk_hist_reset(hk_hist *h)
{
    if (h->b)
        memset(h->b, 0, (size_t)(h->hi - h->lo) * HK_HIST_SUB * sizeof *h->b);
    h->n = 0;
    h->sum = h->min = h->max = 0;
    h->lost = 0;
}

void hk_hist_free(hk_hist *h)
{
    free(h->b);
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

/* Make the buckets cover powers of two [lo, hi) (and what they covered); -1 out of memory. */
static int cover(hk_hist *h, int lo, int hi)
{
    if (h->b && lo >= h->lo && hi <= h->hi)
        return 0;
    if (h->b) {
        lo = lo < h->lo ? lo : h->lo;
        hi = hi > h->hi ? hi : h->hi;
    }
    uint32_t *b = calloc((size_t)(hi - lo) * HK_HIST_SUB, sizeof *b);
    if (!b)
        return -1;
    if (h->b)
        memcpy(b + (h->lo - lo) * HK_HIST_SUB, h->b,
               (size_t)(h->hi - h->lo) * HK_HIST_SUB * sizeof *b);
    free(h->b);
    h->b = b;
    h->lo = lo;
    h->hi = hi;
    return 0;
}

void hk_hist_add_any(hk_hist *h, double us)
{
    if (!(us >= 0))
        us = 0;
    if (h->n == 0 || us < h->min)
        h->min = us;
    if (us > h->max)
        h->max = us;
    h->n++;
    h->sum += us;
    int k = bucket(us), o = k / HK_HIST_SUB;
    if (cover(h, o, o + 1) == 0)
        h->b[(o - h->lo) * HK_HIST_SUB + k % HK_HIST_SUB]++;
    else
        h->lost++;
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
    dst->lost += src->lost;
    if (!src->b)
        return;
    size_t nb = (size_t)(src->hi - src->lo) * HK_HIST_SUB;
    if (cover(dst, src->lo, src->hi) < 0) {
        for (size_t k = 0; k < nb; k++)
            dst->lost += src->b[k];
        return;
    }
    uint32_t *d = dst->b + (src->lo - dst->lo) * HK_HIST_SUB;
    for (size_t k = 0; k < nb; k++)
        d[k] += src->b[k];
}

double hk_hist_quantile(const hk_hist *h, double q)
{
    uint64_t n = h->n - h->lost;
    if (!n)
        return h->n ? h->min : 0.0;
    if (q <= 0)
        return h->min;
    if (q >= 1)
        return h->max;
    double rank = q * (double)n;
    uint64_t seen = 0;
    for (int o = h->lo; h->b && o < h->hi; o++) {
        const uint32_t *c = h->b + (o - h->lo) * HK_HIST_SUB;
        uint64_t all = 0;
        for (int j = 0; j < HK_HIST_SUB; j++)
            all += c[j];
        if ((double)(seen + all) < rank) { /* the rank lies beyond this power of two */
            seen += all;
            continue;
        }
        for (int j = 0; j < HK_HIST_SUB; j++) {
            if (!c[j])
                continue;
            if ((double)(seen + c[j]) >= rank) {
                int k = o * HK_HIST_SUB + j;
                double lo = k ? lower(k) : 0.0, hi = k + 1 < HK_HIST_N ? lower(k + 1) : h->max;
                double v = lo + (hi - lo) * (rank - (double)seen) / (double)c[j];
                return v < h->min ? h->min : v > h->max ? h->max : v;
            }
            seen += c[j];
        }
    }
    return h->max;
}

double hk_hist_mean(const hk_hist *h) { return h->n ? h->sum / (double)h->n : 0.0; }
