/* hk_grow: how a caller's array grows — its room doubled (from 16) when an element more is
 * wanted, so appending n elements costs O(n) in all; the new room zeroed. The one way every
 * growable array of the project grows. */
#ifndef HK_GROW_H
#define HK_GROW_H

#include <stddef.h>

/* The array whose address is at arr (a T **, its room *cap elements of size bytes) made to hold
 * at least need elements: 0, or -1 when out of memory or past INT_MAX elements (the array and
 * *cap then unchanged). */
int hk_grow(void *arr, int *cap, long need, size_t size);

/* hk_grow for an array a (a T *) and its int room: HK_GROW(x->rows, x->cap, x->n + 1). */
#define HK_GROW(a, cap, need) hk_grow(&(a), &(cap), (need), sizeof *(a))

#endif
