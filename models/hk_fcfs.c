/* hk_fcfs: FCFS multi-server queue on a min-heap of worker free times. */
#include "hk_fcfs.h"

#include <stdlib.h>
#include <string.h>

int hk_fcfs_init(hk_fcfs *q, int threads)
{
    q->free_at = NULL;
    if (threads > HK_FCFS_MAX_THREADS)
        return -1;
    q->threads = threads > 0 ? threads : 0;
    memset(q->small, 0, sizeof q->small);
    if (q->threads <= HK_FCFS_INLINE)
        return 0;
    q->free_at = calloc((size_t)q->threads + 1, sizeof *q->free_at);
    return q->free_at ? 0 : -1;
}

void hk_fcfs_free(hk_fcfs *q)
{
    free(q->free_at);
    q->free_at = NULL;
}

int64_t hk_fcfs_start(hk_fcfs *q, int64_t t, int64_t s)
{
    if (q->threads == 0)
        return t;
    int64_t *a = q->threads <= HK_FCFS_INLINE ? q->small : q->free_at, start = a[0] > t ? a[0] : t, v = start + s;
    size_t i = 0, n = (size_t)q->threads; /* the earliest worker takes it: replace the root */
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n)
            break;
        if (c + 1 < n && a[c + 1] < a[c])
            c++;
        if (a[c] >= v)
            break;
        a[i] = a[c];
        i = c;
    }
    a[i] = v;
    return start;
}
