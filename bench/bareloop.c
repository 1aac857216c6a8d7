/* bareloop: the least a C program must do to simulate scenarios/mmc.scn — the bare-loop anchor
 * hasim's speed is measured against (bench/anchors.sh). Poisson arrivals, 4 mirrors of 2 FCFS
 * workers with exponential service, no network time, no pings; each query picks a mirror by a
 * linear weighted draw over weights = 1/(mean latency in the karma window), recomputed by
 * searchd's half-period rule (more than floor(K/2) s since the last recomputation; the window is
 * the current block plus the previous one while the current is in its first half). A binary
 * heap of (time, seq) events, two per query; GSL's taus2 draws as hasim's. Prints the mean
 * latency and each mirror's share so the benchmark can check the models agree.
 * usage: bareloop SECONDS [SEED] */
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define NM 4
#define KARMA_S 10
#define RING 15

typedef struct ev { int64_t t; uint64_t seq; int mirror; int64_t born; } ev; /* mirror<0: arrival */

typedef struct heap { ev *a; size_t n, cap; } heap;

static void push(heap *h, ev e)
{
    if (h->n == h->cap) {
        h->cap = h->cap ? 2 * h->cap : 1024;
        h->a = realloc(h->a, h->cap * sizeof *h->a);
        if (!h->a)
            exit(1);
    }
    size_t i = h->n++;
    while (i && (h->a[(i - 1) / 2].t > e.t ||
                 (h->a[(i - 1) / 2].t == e.t && h->a[(i - 1) / 2].seq > e.seq))) {
        h->a[i] = h->a[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    h->a[i] = e;
}

static int less(const ev *x, const ev *y) { return x->t < y->t || (x->t == y->t && x->seq < y->seq); }

static ev pop(heap *h)
{
    ev top = h->a[0], last = h->a[--h->n];
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= h->n)
            break;
        if (c + 1 < h->n && less(&h->a[c + 1], &h->a[c]))
            c++;
        if (!less(&h->a[c], &last))
            break;
        h->a[i] = h->a[c];
        i = c;
    }
    h->a[i] = last;
    return top;
}

typedef struct block { int64_t id; uint64_t n, total_us; } block;

typedef struct mirror {
    double mean_us;
    int64_t free_at[2];
    block ring[RING];
    uint64_t answered;
    double lat_sum_us;
} mirror;

static void record(mirror *m, int64_t now, int64_t lat)
{
    int64_t id = now / 1000000 / KARMA_S;
    block *b = &m->ring[id % RING];
    if (b->id != id)
        *b = (block){id, 0, 0};
    b->n++;
    b->total_us += (uint64_t)lat;
    m->answered++;
    m->lat_sum_us += (double)lat;
}

static int64_t timer(const mirror *m, int64_t now)
{
    int64_t s = now / 1000000, id = s / KARMA_S;
    uint64_t n = 0, t = 0;
    for (int64_t k = id - (s % KARMA_S < KARMA_S / 2); k <= id; k++) {
        const block *b = &m->ring[k % RING];
        if (k >= 0 && b->id == k) {
            n += b->n;
            t += b->total_us;
        }
    }
    return n ? (int64_t)(t / n) : 0;
}

static void rebalance(const mirror *m, int64_t now, double *w) /* in float, as searchd */
{
    int64_t t[NM];
    float sum = 0.0f;
    for (int i = 0; i < NM; i++)
        if ((t[i] = timer(&m[i], now)) > 0)
            sum += 1.0f / (float)t[i];
    if (sum <= 0.0f)
        return;
    for (int i = 0; i < NM; i++)
        w[i] = t[i] > 0 ? 100.0f * (1.0f / (float)t[i]) / sum : 0.0f;
}

int main(int argc, char **argv)
{
    int64_t end = (int64_t)((argc > 1 ? atof(argv[1]) : 600) * 1e6);
    gsl_rng *r = gsl_rng_alloc(gsl_rng_taus2);
    gsl_rng_set(r, argc > 2 ? strtoul(argv[2], NULL, 10) : 1);
    mirror m[NM] = {{.mean_us = 8000}, {.mean_us = 6000}, {.mean_us = 12000}, {.mean_us = 4000}};
    for (int i = 0; i < NM; i++)
        for (int k = 0; k < RING; k++)
            m[i].ring[k].id = -1;
    double w[NM] = {25, 25, 25, 25};
    const double gap_us = 1e6 / 600.0;
    int64_t last_recalc_s = 0;
    uint64_t seq = 0;
    heap h = {0};
    push(&h, (ev){0, seq++, -1, 0});
    while (h.n) {
        ev e = pop(&h);
        if (e.mirror >= 0) {
            record(&m[e.mirror], e.t, e.t - e.born);
            continue;
        }
        if (e.t >= end)
            continue;
        int64_t g = (int64_t)(gsl_ran_exponential(r, gap_us) + 0.999999999);
        push(&h, (ev){e.t + (g < 1 ? 1 : g), seq++, -1, 0});
        if (e.t / 1000000 - last_recalc_s > KARMA_S / 2) {
            last_recalc_s = e.t / 1000000;
            rebalance(m, e.t, w);
        }
        double u = gsl_rng_uniform(r) * (w[0] + w[1] + w[2] + w[3]);
        int i = 0;
        while (i < NM - 1 && u >= w[i])
            u -= w[i++];
        mirror *x = &m[i];
        int64_t svc = (int64_t)gsl_ran_exponential(r, x->mean_us);
        int j = x->free_at[1] < x->free_at[0];
        int64_t start = x->free_at[j] > e.t ? x->free_at[j] : e.t;
        x->free_at[j] = start + svc;
        push(&h, (ev){start + svc, seq++, i, e.t});
    }
    uint64_t all = 0;
    double sum = 0;
    for (int i = 0; i < NM; i++) {
        all += m[i].answered;
        sum += m[i].lat_sum_us;
    }
    printf("queries %llu mean_ms %.4f shares", (unsigned long long)all, sum / (double)all / 1000.0);
    for (int i = 0; i < NM; i++)
        printf(" %.4f", (double)m[i].answered / (double)all);
    printf("\n");
    free(h.a);
    gsl_rng_free(r);
    return 0;
}
