/* hk_tl: the fine timeline (see hk_tl.h). */
#include "hk_tl.h"
#include "hk_scn.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define TL_BYTES (64u << 20)

static const hk_tl_smp no_sample = {NAN, NAN};

/* n cells and their samples from the first of both: empty, not sampled */
static void clear_cells(hk_tl_cell *c, hk_tl_smp *sm, size_t n)
{
    memset(c, 0, n * sizeof *c);
    for (size_t i = 0; i < n; i++)
        sm[i] = no_sample;
}

int hk_tl_init(hk_tl *t, const hk_tl_series *ser, int nser, int64_t t0_us, int64_t width_us,
               int cap)
{
    memset(t, 0, sizeof *t);
    if (cap <= 0) { /* as many bins as fit the budget: 4096 for small clusters, 16 at least */
        size_t per_bin = (size_t)(nser > 0 ? nser : 1) * sizeof(hk_tl_cell);
        cap = 16;
        while (cap < 4096 && (size_t)cap * 2 * per_bin <= TL_BYTES)
            cap *= 2;
    }
    t->nser = nser;
    t->cap = cap;
    t->t0_us = t0_us;
    t->width_us = width_us > 0 ? width_us : 1000000;
    t->ser = malloc((size_t)(nser > 0 ? nser : 1) * sizeof *t->ser);
    t->c = malloc((size_t)(nser > 0 ? nser : 1) * (size_t)cap * sizeof *t->c);
    t->sm = malloc((size_t)(nser > 0 ? nser : 1) * (size_t)cap * sizeof *t->sm);
    t->b = malloc((size_t)cap * sizeof *t->b);
    t->kinds = calloc((size_t)(nser > 0 ? nser : 1) * 2 * HK_EV_ALL, sizeof *t->kinds);
    if (!t->ser || !t->c || !t->sm || !t->b || !t->kinds) {
        hk_tl_free(t);
        return -1;
    }
    if (nser > 0)
        memcpy(t->ser, ser, (size_t)nser * sizeof *ser);
    return 0; /* bins are cleared as the run reaches them: a short run of a large cluster
                 touches a few of the cap bins, not the whole budget */
}

void hk_tl_set_faults(hk_tl *t, const hk_scn *scn) { t->faults = scn; }

void hk_tl_free(hk_tl *t)
{
    free(t->ser);
    free(t->c);
    free(t->sm);
    free(t->b);
    free(t->kinds);
    memset(t, 0, sizeof *t);
}

/* Merge bins pairwise: the width doubles, counts add up, samples keep the later one. */
static void halve(hk_tl *t)
{
    int half = (t->nbins + 1) / 2;
    for (int k = 0; k < half; k++) /* bin k from bins 2k and 2k+1: k <= 2k, so in place */
        for (int s = 0; s < t->nser; s++) {
            int odd = 2 * k + 1 < t->nbins;
            hk_tl_cell a = *hk_tl_cell_at(t, s, 2 * k);
            hk_tl_cell b = odd ? *hk_tl_cell_at(t, s, 2 * k + 1) : (hk_tl_cell){0};
            hk_tl_smp x = *hk_tl_smp_at(t, s, 2 * k);
            hk_tl_smp y = odd ? *hk_tl_smp_at(t, s, 2 * k + 1) : no_sample;
            *hk_tl_cell_at(t, s, k) = (hk_tl_cell){.lat_us = a.lat_us + b.lat_us,
                                                   .q = a.q + b.q, .ok = a.ok + b.ok,
                                                   .err = a.err + b.err, .warn = a.warn + b.warn};
            *hk_tl_smp_at(t, s, k) = (hk_tl_smp){isnan(y.prob) ? x.prob : y.prob,
                                                 isnan(y.wshare) ? x.wshare : y.wshare};
        }
    for (int k = 0; k < half; k++) {
        hk_tl_bin a = t->b[2 * k], b = 2 * k + 1 < t->nbins ? t->b[2 * k + 1] : (hk_tl_bin){0};
        t->b[k] = (hk_tl_bin){a.ok + b.ok, a.partial + b.partial, a.failed + b.failed};
    }
    t->nbins = half; /* the bins beyond are cleared when reached again */
    t->width_us *= 2;
    t->hi_us = t->lo_us; /* the cached bin is gone */
}

int hk_tl_bin_slow(hk_tl *t, int64_t t_us)
{
    if (t_us < t->t0_us || !t->c)
        return -1;
    int64_t k = (t_us - t->t0_us) / t->width_us;
    while (k >= t->cap) {
        halve(t);
        k = (t_us - t->t0_us) / t->width_us;
    }
    if (k >= t->nbins) { /* bins [nbins, k] come into use: empty, not sampled */
        size_t from = (size_t)t->nbins, n = (size_t)k + 1 - from;
        clear_cells(hk_tl_cell_at(t, 0, (int)from), hk_tl_smp_at(t, 0, (int)from),
                    n * (size_t)t->nser);
        memset(t->b + from, 0, n * sizeof *t->b);
        t->nbins = (int)k + 1;
    }
    t->lo_us = t->t0_us + k * t->width_us;
    t->hi_us = t->lo_us + t->width_us;
    t->last = (int)k;
    return (int)k;
}

void hk_tl_attempt(hk_tl *t, int s, int64_t t_us)
{
    int k = hk_tl_bin_of(t, t_us);
    if (k >= 0)
        hk_tl_cell_at(t, s, k)->q++;
}

void hk_tl_outcome(hk_tl *t, int s, int64_t t_us, int ev, int64_t lat_us)
{
    if (ev != HK_EV_SUCCESS && ev >= 0 && ev < HK_EV_ALL) {
        uint64_t *k = &t->kinds[(size_t)s * 2 * HK_EV_ALL];
        double x;
        k[ev]++;
        if (t->faults && hk_fault_is_outage(hk_scn_fault_at(t->faults, t->ser[s].host,
                                                            t_us - t->t0_us, &x)))
            k[HK_EV_ALL + ev]++;
    }
    int k = hk_tl_bin_of(t, t_us);
    if (k < 0)
        return;
    hk_tl_cell *c = hk_tl_cell_at(t, s, k);
    if (hk_ev_ok(ev)) {
        c->ok++;
        c->warn += ev == HK_EV_WARNING;
        c->lat_us += lat_us > 0 ? (uint64_t)lat_us : 0;
    } else {
        c->err++;
    }
}

void hk_tl_sample(hk_tl *t, int s, int64_t t_us, double prob, double wshare)
{
    int k = hk_tl_bin_of(t, t_us);
    if (k < 0)
        return;
    hk_tl_smp *c = hk_tl_smp_at(t, s, k);
    c->prob = (float)prob;
    c->wshare = (float)wshare;
}

void hk_tl_query(hk_tl *t, int64_t t_us, int status)
{
    int k = hk_tl_bin_of(t, t_us);
    if (k < 0)
        return;
    hk_tl_bin *b = &t->b[k];
    if (status <= 0)
        b->ok++;
    else if (status == 1)
        b->partial++;
    else
        b->failed++;
}

void hk_tl_fill(hk_tl *t)
{
    for (int s = 0; s < t->nser; s++) {
        float p = NAN, w = NAN;
        for (int k = 0; k < t->nbins; k++) {
            hk_tl_smp *c = hk_tl_smp_at(t, s, k);
            if (isnan(c->prob)) {
                c->prob = p;
                c->wshare = w;
            }
            p = c->prob;
            w = c->wshare;
        }
    }
}

double hk_tl_share(const hk_tl *t, int first, int s, int k0, int k1)
{
    uint64_t mine = 0, all = 0;
    int n = t->ser[first].nmirrors;
    for (int j = first; j < first + n; j++)
        for (int k = k0 < 0 ? 0 : k0; k < k1 && k < t->nbins; k++) {
            uint32_t q = hk_tl_cell_at(t, j, k)->q;
            all += q;
            if (j == s)
                mine += q;
        }
    return all ? (double)mine / (double)all : NAN;
}
