/* hk_stree: min-key / weight-sum segment tree (see hk_stree.h). */
#include "hk_stree.h"

#include <math.h>
#include <stdlib.h>

int hk_stree_init(hk_stree *s, int n)
{
    s->n = n;
    s->size = 1;
    while (s->size < n)
        s->size *= 2;
    s->t = calloc((size_t)s->size * 2, sizeof *s->t);
    if (!s->t)
        return -1;
    for (int i = 0; i < s->size; i++)
        hk_stree_leaf(s, i, INFINITY, INFINITY, 0);
    hk_stree_build(s);
    return 0;
}

void hk_stree_free(hk_stree *s)
{
    free(s->t);
    s->t = NULL;
}

int hk_stree_leaf(hk_stree *s, int i, double k1, double k2, double w)
{
    hk_stree_node *x = &s->t[s->size + i];
    int last = i < s->n && isfinite(k1) ? i : -1;
    if (x->k1 == k1 && x->k2 == k2 && x->wsum == w && x->last == last)
        return 0;
    x->k1 = k1;
    x->k2 = k2;
    x->wsum = w;
    x->last = last;
    return 1;
}

static int less(const hk_stree_node *a, const hk_stree_node *b)
{
    return a->k1 < b->k1 || (a->k1 == b->k1 && a->k2 < b->k2);
}

static void pull(hk_stree *s, int v)
{
    const hk_stree_node *l = &s->t[2 * v], *r = &s->t[2 * v + 1];
    hk_stree_node *x = &s->t[v];
    if (less(l, r)) {
        *x = *l;
    } else if (less(r, l)) {
        *x = *r;
    } else {
        x->k1 = l->k1;
        x->k2 = l->k2;
        x->wsum = l->wsum + r->wsum;
        x->last = r->last >= 0 ? r->last : l->last;
    }
}

void hk_stree_fix(hk_stree *s, int i)
{
    for (int v = (s->size + i) / 2; v >= 1; v /= 2)
        pull(s, v);
}

void hk_stree_build(hk_stree *s)
{
    for (int v = s->size - 1; v >= 1; v--)
        pull(s, v);
}

const hk_stree_node *hk_stree_root(const hk_stree *s) { return &s->t[1]; }

int hk_stree_pick(const hk_stree *s, double u)
{
    const hk_stree_node *root = &s->t[1];
    if (root->last < 0)
        return -1;
    if (!(root->wsum > 0))
        return root->last;
    double target = u * root->wsum;
    int v = 1;
    while (v < s->size) {
        const hk_stree_node *l = &s->t[2 * v], *r = &s->t[2 * v + 1];
        int lin = l->last >= 0 && l->k1 == root->k1 && l->k2 == root->k2;
        int rin = r->last >= 0 && r->k1 == root->k1 && r->k2 == root->k2;
        if (lin && (!rin || target < l->wsum)) {
            v = 2 * v;
        } else {
            if (lin)
                target -= l->wsum;
            v = 2 * v + 1;
        }
    }
    int i = v - s->size;
    /* rounding can land on a zero-weight leaf at a boundary: fall back to the class's last */
    return s->t[v].wsum > 0 ? i : root->last;
}
