/* hk_fcfs: a mirror's worker pool as a queueing model — `threads` workers
 * serve requests first come, first served; a request arriving when all are
 * busy waits for the earliest to free up. 0 workers = no queueing (pure
 * delay). Shared by the simulator's mirrors and hareal's mirror agent. */
#ifndef HK_FCFS_H
#define HK_FCFS_H

#include <stdint.h>

#define HK_FCFS_INLINE 4         /* pools this small keep their heap inline (no extra miss) */

typedef struct hk_fcfs {
    int threads;
    int64_t *free_at;            /* min-heap of worker free times (µs), when beyond small[] */
    int64_t small[HK_FCFS_INLINE]; /* ... else here (no pointer to itself: it may be copied) */
} hk_fcfs;

#define HK_FCFS_MAX_THREADS 100000

/* -1 when out of memory or threads is beyond HK_FCFS_MAX_THREADS. */
int hk_fcfs_init(hk_fcfs *q, int threads);
void hk_fcfs_free(hk_fcfs *q);
/* A request arriving at t_us needing service_us: returns when its service starts. Arrivals
 * must come in time order. */
int64_t hk_fcfs_start(hk_fcfs *q, int64_t t_us, int64_t service_us);

#endif
