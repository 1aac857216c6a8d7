/* sim_heap: the simulator's event queue, a binary min-heap ordered by time
 * then by insertion sequence, so equal-time events run in a fixed order.
 * Beside the heap, one lane: an event stream that has exactly one event
 * pending at a time (the open-loop arrivals) waits there instead, compared
 * with the heap's top on each pop — half the heap work of a query, and the
 * same order as if it were in the heap (it takes its sequence number too). */
#ifndef SIM_HEAP_H
#define SIM_HEAP_H

#include <stddef.h>
#include <stdint.h>

#define SIM_EV_TYPE_BITS 4

typedef struct sim_ev {          /* 24 bytes: the heap moves fewer of them */
    int64_t t;
    uint64_t ord;                /* insertion sequence << SIM_EV_TYPE_BITS | type: orders
                                    equal times by insertion, and carries the type */
    int a, b;
} sim_ev;

static inline int sim_ev_type(const sim_ev *e) { return (int)(e->ord & ((1u << SIM_EV_TYPE_BITS) - 1)); }

typedef struct sim_heap {
    sim_ev *e;
    int n, cap;
    uint64_t seq;
    sim_ev lane;
    int lane_on;
} sim_heap;

void sim_heap_init(sim_heap *h);
void sim_heap_free(sim_heap *h);
int sim_heap_push(sim_heap *h, int64_t t, int type, int a, int b);
/* The lane's next event; -1 if the lane holds one already. */
int sim_heap_push_lane(sim_heap *h, int64_t t, int type, int a, int b);
int sim_heap_pop(sim_heap *h, sim_ev *out);   /* 0 when empty */
/* Drop every event (a run that stops early: interrupted, or its files cannot be written). */
void sim_heap_clear(sim_heap *h);
/* The heap's top (NULL when empty): most often the next event (the lane's, an arrival, may come
 * first). The loop looks at it to fetch its memory while the current event runs. */
static inline const sim_ev *sim_heap_top(const sim_heap *h) { return h->n ? &h->e[0] : NULL; }

#endif
