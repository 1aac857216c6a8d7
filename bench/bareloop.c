/* bareloop: the least a C program must do to simulate a benchmark scenario — the bare-loop
 * anchor hasim's speed is measured against (bench/anchors.sh). Two models, each the same as a
 * shipped scenario and nothing else:
 *   mmc       scenarios/mmc.scn: Poisson 600/s, 4 mirrors of 2 FCFS workers, exponential
 *             service 8/6/12/4 ms, weights = 1/(mean latency in the karma window)
 *             (manticore-fixed), no pings;
 *   textbook  scenarios/textbook.scn: Poisson 200/s, 4 mirrors of constant 10/5/30/3 ms and no
 *             queue, Manticore's timer (query timeouts per attempt: the weights stay 25% each),
 *             an idle mirror pinged after 1 s (none is idle that long at 50 queries/s).
 * No network time. Each query picks a mirror by a linear weighted draw; the weights are
 * recomputed by searchd's half-period rule (more than floor(K/2) s since the last time; the
 * window is the current block plus the previous one while the current is in its first half).
 * A binary heap of (time, seq) events, two per query; GSL's taus2 draws as hasim's. Prints the
 * mean latency and each mirror's share, so the benchmark can check the models agree.
 * usage: bareloop MODEL SECONDS [SEED] */
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NM 4
#define RING 15

typedef struct model {
    const char *name;
    double rate_per_s;
    int karma_s;
    double mean_us[NM];
    int exponential;             /* service: exponential, else constant */
    int threads;                 /* FCFS workers per mirror (at most 2); 0 = no queue */
    int latency_timer;           /* timer = mean latency (manticore-fixed), else timeouts per
                                    attempt (manticore: none here, the weights stay) */
    int64_t ping_us;             /* an idle mirror is pinged after this long; 0 = never */
} model;

static const model models[] = {
    {.name = "mmc", .rate_per_s = 600, .karma_s = 10, .mean_us = {8000, 6000, 12000, 4000},
     .exponential = 1, .threads = 2, .latency_timer = 1},
    {.name = "textbook", .rate_per_s = 200, .karma_s = 60, .mean_us = {10000, 5000, 30000, 3000},
     .ping_us = 1000000},
};

enum { ARRIVAL = -1, PING = -2 }; /* ev.mirror: >= 0 an answer from that mirror */

typedef struct ev { int64_t t; uint64_t seq; int mirror, host; int64_t born; } ev;

typedef struct heap { ev *a; size_t n, cap; } heap;

static int less(const ev *x, const ev *y) { return x->t < y->t || (x->t == y->t && x->seq < y->seq); }

static void push(heap *h, ev e)
{
    if (h->n == h->cap) {
        h->cap = h->cap ? 2 * h->cap : 1024;
        h->a = realloc(h->a, h->cap * sizeof *h->a);
        if (!h->a)
            exit(1);
    }
    size_t i = h->n++;
    while (i && less(&e, &h->a[(i - 1) / 2])) {
        h->a[i] = h->a[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    h->a[i] = e;
}

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

typedef struct block { int64_t id; uint64_t n, total_us, timeouts; } block;

typedef struct mirror {
    int64_t free_at[2];
    block ring[RING];
    int64_t last_answer;
    uint64_t answered;
    double lat_sum_us;
} mirror;

static void record(mirror *m, int karma_s, int64_t now, int64_t lat)
{
    int64_t id = now / 1000000 / karma_s;
    block *b = &m->ring[id % RING];
    if (b->id != id)
        *b = (block){id, 0, 0, 0};
    b->n++;
    b->total_us += (uint64_t)lat;
    m->last_answer = now;
    m->answered++;
    m->lat_sum_us += (double)lat;
}

static int64_t timer(const model *md, const mirror *m, int64_t now)
{
    int64_t s = now / 1000000, id = s / md->karma_s;
    uint64_t n = 0, t = 0;
    for (int64_t k = id - (s % md->karma_s < md->karma_s / 2); k <= id; k++) {
        const block *b = &m->ring[k % RING];
        if (k >= 0 && b->id == k) {
            n += b->n;
            t += md->latency_timer ? b->total_us : b->timeouts;
        }
    }
    return n ? (int64_t)(t / n) : 0;
}

static void rebalance(const model *md, const mirror *m, int64_t now, double *w) /* in float */
{
    int64_t t[NM];
    float sum = 0.0f;
    for (int i = 0; i < NM; i++)
        if ((t[i] = timer(md, &m[i], now)) > 0)
            sum += 1.0f / (float)t[i];
    if (sum <= 0.0f)
        return;
    for (int i = 0; i < NM; i++)
        w[i] = t[i] > 0 ? 100.0f * (1.0f / (float)t[i]) / sum : 0.0f;
}

/* The query arriving at now: pick, serve, and the answer's event. */
static void query(const model *md, mirror *m, const double *w, gsl_rng *r, heap *h,
                  uint64_t *seq, int64_t now)
{
    double u = gsl_rng_uniform(r) * (w[0] + w[1] + w[2] + w[3]);
    int i = 0;
    while (i < NM - 1 && u >= w[i])
        u -= w[i++];
    mirror *x = &m[i];
    int64_t svc = md->exponential ? (int64_t)gsl_ran_exponential(r, md->mean_us[i])
                                  : (int64_t)md->mean_us[i];
    int64_t start = now;
    if (md->threads) {
        int j = x->free_at[1] < x->free_at[0];
        start = x->free_at[j] > now ? x->free_at[j] : now;
        x->free_at[j] = start + svc;
    }
    push(h, (ev){.t = start + svc, .seq = (*seq)++, .mirror = i, .born = now});
}

int main(int argc, char **argv)
{
    const model *md = NULL;
    for (size_t k = 0; argc > 2 && k < sizeof models / sizeof *models; k++)
        if (!strcmp(argv[1], models[k].name))
            md = &models[k];
    if (!md) {
        fprintf(stderr, "usage: bareloop mmc|textbook SECONDS [SEED]\n");
        return 2;
    }
    int64_t end = (int64_t)(atof(argv[2]) * 1e6);
    gsl_rng *r = gsl_rng_alloc(gsl_rng_taus2);
    gsl_rng_set(r, argc > 3 ? strtoul(argv[3], NULL, 10) : 1);
    mirror m[NM] = {0};
    for (int i = 0; i < NM; i++)
        for (int k = 0; k < RING; k++)
            m[i].ring[k].id = -1;
    double w[NM] = {25, 25, 25, 25};
    const double gap_us = 1e6 / md->rate_per_s;
    int64_t last_recalc_s = 0;
    uint64_t seq = 0;
    heap h = {0};
    push(&h, (ev){.seq = seq++, .mirror = ARRIVAL});
    for (int i = 0; md->ping_us && i < NM; i++)
        push(&h, (ev){.t = md->ping_us, .seq = seq++, .mirror = PING, .host = i});
    while (h.n) {
        ev e = pop(&h);
        if (e.mirror >= 0) {
            record(&m[e.mirror], md->karma_s, e.t, e.t - e.born);
        } else if (e.mirror == PING) {
            mirror *x = &m[e.host];
            if (e.t - x->last_answer >= md->ping_us) /* idle that long: pinged, answered at */
                x->last_answer = e.t;                /* once (never at these rates) */
            if (e.t < end)
                push(&h, (ev){.t = x->last_answer + md->ping_us, .seq = seq++, .mirror = PING,
                              .host = e.host});
        } else if (e.t < end) {
            int64_t g = (int64_t)(gsl_ran_exponential(r, gap_us) + 0.999999999);
            push(&h, (ev){.t = e.t + (g < 1 ? 1 : g), .seq = seq++, .mirror = ARRIVAL});
            if (e.t / 1000000 - last_recalc_s > md->karma_s / 2) {
                last_recalc_s = e.t / 1000000;
                rebalance(md, m, e.t, w);
            }
            query(md, m, w, r, &h, &seq, e.t);
        }
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
