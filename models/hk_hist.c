/* hk_hist: log-bucketed histogram with interpolated quantiles. */
#include "hk_hist.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void hk_hist_reset(hk_hist *h)
{
    for (int o = 0; o < HK_HIST_OCT; o++)
        if (h->oct[o])
            memset(h->oct[o], 0, HK_HIST_SUB * sizeof *h->oct[o]);
    h->n = 0;
    h->sum = h->min = h->max = 0;
    h->lost = 0;
}

void hk_hist_free(hk_hist *h)
{
    for (int o = 0; o < HK_HIST_OCT; o++)
        free(h->oct[o]);
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

static uint32_t *slot(hk_hist *h, int k)
{
    uint32_t **o = &h->oct[k / HK_HIST_SUB];
    if (!*o && !(*o = calloc(HK_HIST_SUB, sizeof **o)))
        return NULL;
    return &(*o)[k % HK_HIST_SUB];
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
    uint32_t *c = slot(h, bucket(us));
    if (c)
        (*c)++;
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
    for (int o = 0; o < HK_HIST_OCT; o++) {
        if (!src->oct[o])
            continue;
        uint32_t *d = slot(dst, o * HK_HIST_SUB);
        if (!d) {
            for (int k = 0; k < HK_HIST_SUB; k++)
                dst->lost += src->oct[o][k];
            continue;
        }
        for (int k = 0; k < HK_HIST_SUB; k++)
            d[k] += src->oct[o][k];
    }
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
    for (int o = 0; o < HK_HIST_OCT; o++) {
        const uint32_t *c = h->oct[o];
        if (!c)
            continue;
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
