/* hk_grow: growing a caller's array (see hk_grow.h). */
#include "hk_grow.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int hk_grow(void *arr, int *cap, long need, size_t size)
{
    if (need <= *cap)
        return 0;
    if (need > INT_MAX / 2 || size == 0 || (size_t)need > SIZE_MAX / 2 / size)
        return -1;
    long room = *cap > 0 ? *cap : 16;
    while (room < need)
        room *= 2;
    void *old;
    memcpy(&old, arr, sizeof old);  /* the caller's T *, read and written as its bytes */
    char *p = realloc(old, (size_t)room * size);
    if (!p)
        return -1;
    memset(p + (size_t)*cap * size, 0, (size_t)(room - *cap) * size);
    memcpy(arr, &p, sizeof p);
    *cap = (int)room;
    return 0;
}
