/* hk_stree: a segment tree over the mirrors of one agent line, keeping for
 * every subtree the smallest health key (an integer: the strategy encodes its
 * class so that a better class is a smaller number), the summed weight of
 * the mirrors that have it, and the highest index that has it. It makes a
 * strategy pick O(log n) — weighted random among the healthiest class, or
 * that class's last mirror when their weights are all 0 — and an update of
 * one mirror O(log n). A tree of a few leaves (the usual agent line) also
 * keeps its best class flat, as running sums, rebuilt with the tree: its pick
 * is a few independent compares instead of a walk whose every step waits on
 * the last. */
#ifndef HK_STREE_H
#define HK_STREE_H

#include <stddef.h>
#include <stdint.h>

#define HK_STREE_NONE UINT64_MAX  /* the key of a mirror that is no candidate at all */

typedef struct hk_stree_node {
    uint64_t key;
    double wsum;
    int last;                    /* highest leaf index attaining the key, -1 = none (exactly
                                    when the key is HK_STREE_NONE) */
} hk_stree_node;

#define HK_STREE_FLAT 8          /* trees of up to this many leaves pick from running sums */

typedef struct hk_stree {
    int n, size;                 /* leaves used, leaves allocated (power of two) */
    hk_stree_node *t;            /* 2*size nodes, root at 1 */
    /* n <= HK_STREE_FLAT: the best class, flat */
    double cum[HK_STREE_FLAT - 1]; /* running sum of the class's weights through leaf k */
    int top;                     /* the pick when the count reaches the last leaf */
} hk_stree;

/* The tree lives in the caller's memory of hk_stree_bytes(n) bytes (the owner's allocation:
 * a line keeps its tree beside its other state). */
size_t hk_stree_bytes(int n);
void hk_stree_init_in(hk_stree *s, int n, hk_stree_node *mem);
/* Set leaf i; hk_stree_fix(i) repairs its path, hk_stree_build() all. */
int hk_stree_leaf(hk_stree *s, int i, uint64_t key, double w); /* 1 if it changed */
void hk_stree_fix(hk_stree *s, int i);
void hk_stree_build(hk_stree *s);
const hk_stree_node *hk_stree_root(const hk_stree *s);
/* u in [0,1): leaf of the best class, chosen with probability w / wsum (from the flat class
 * when n <= HK_STREE_FLAT, by walking the tree beyond). */
int hk_stree_pick(const hk_stree *s, double u);
/* The same pick by walking the tree, whatever n (what the flat class is tested against). */
int hk_stree_walk(const hk_stree *s, double u);

#endif
