/* sim_heap: the simulator's event queue, a binary min-heap ordered by time
 * then by insertion sequence, so equal-time events run in a fixed order. */
#ifndef SIM_HEAP_H
#define SIM_HEAP_H

#include <stdint.h>

typedef struct sim_ev {
    int64_t t;
    uint64_t seq;
    int type;
    int a, b;
} sim_ev;

typedef struct sim_heap {
    sim_ev *e;
    int n, cap;
    uint64_t seq;
} sim_heap;

void sim_heap_init(sim_heap *h);
void sim_heap_free(sim_heap *h);
int sim_heap_push(sim_heap *h, int64_t t, int type, int a, int b);
int sim_heap_pop(sim_heap *h, sim_ev *out);   /* 0 when empty */

#endif
