/* sim_heap: binary min-heap of events. */
#include "sim_heap.h"

#include <stdlib.h>
#include <string.h>
#include "hk_grow.h"

void sim_heap_init(sim_heap *h) { memset(h, 0, sizeof *h); }
void sim_heap_free(sim_heap *h) { free(h->e); sim_heap_init(h); }

static int less(const sim_ev *x, const sim_ev *y)
{
    return x->t < y->t || (x->t == y->t && x->ord < y->ord);
}

/* The same order without branches: which of two children is the smaller is a coin toss the
 * branch predictor loses half the time, at every level of a large heap (a 1024-line query has
 * 1024 answers pending: ten levels). */
static int less_nb(const sim_ev *x, const sim_ev *y)
{
    return (x->t < y->t) | ((x->t == y->t) & (x->ord < y->ord));
}

int sim_heap_push(sim_heap *h, int64_t t, int type, int a, int b)
{
    if (HK_GROW(h->e, h->cap, h->n + 1) < 0)
        return -1;
    sim_ev v = {t, h->seq++ << SIM_EV_TYPE_BITS | (uint64_t)type, a, b};
    int i = h->n++;
    while (i > 0) {
        int p = (i - 1) / 2;
        if (!less(&v, &h->e[p]))
            break;
        h->e[i] = h->e[p];
        i = p;
    }
    h->e[i] = v;
    return 0;
}

int sim_heap_push_lane(sim_heap *h, int64_t t, int type, int a, int b)
{
    if (h->lane_on)
        return -1;
    h->lane = (sim_ev){t, h->seq++ << SIM_EV_TYPE_BITS | (uint64_t)type, a, b};
    h->lane_on = 1;
    return 0;
}

void sim_heap_clear(sim_heap *h)
{
    h->n = 0;
    h->lane_on = 0;
    if (h->e)
        h->e[0] = (sim_ev){INT64_MAX, UINT64_MAX, 0, 0};
}

int sim_heap_pop(sim_heap *h, sim_ev *out)
{
    if (h->lane_on && (!h->n || less(&h->lane, &h->e[0]))) {
        *out = h->lane;
        h->lane_on = 0;
        return 1;
    }
    if (!h->n)
        return 0;
    *out = h->e[0];
    sim_ev last = h->e[--h->n];
    h->e[h->n] = (sim_ev){INT64_MAX, UINT64_MAX, 0, 0}; /* a right child past the end: never less */
    int i = 0;
    for (;;) {
        int c = 2 * i + 1;
        if (c >= h->n)
            break;
        c += less_nb(&h->e[c + 1], &h->e[c]);
        if (!less(&h->e[c], &last))
            break;
        h->e[i] = h->e[c];
        i = c;
    }
    if (h->n)
        h->e[i] = last;
    return 1;
}
