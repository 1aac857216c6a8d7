/* hk_stree: min-key / weight-sum segment tree (see hk_stree.h). */
#include "hk_stree.h"

static int leaves(int n)
{
    int size = 1;
    while (size < n)
        size *= 2;
    return size;
}

size_t hk_stree_bytes(int n) { return (size_t)leaves(n) * 2 * sizeof(hk_stree_node); }

void hk_stree_init_in(hk_stree *s, int n, hk_stree_node *mem)
{
    s->n = n;
    s->size = leaves(n);
    s->t = mem;
    for (int i = 0; i < s->size; i++)
        hk_stree_leaf(s, i, HK_STREE_NONE, 0);
    hk_stree_build(s);
}

int hk_stree_leaf(hk_stree *s, int i, uint64_t key, double w)
{
    hk_stree_node *x = &s->t[s->size + i];
    if (i >= s->n)
        key = HK_STREE_NONE;
    int last = key != HK_STREE_NONE ? i : -1;
    if (x->key == key && x->wsum == w && x->last == last)
        return 0;
    x->key = key;
    x->wsum = w;
    x->last = last;
    return 1;
}

static void pull(hk_stree *s, int v)
{
    const hk_stree_node *l = &s->t[2 * v], *r = &s->t[2 * v + 1];
    hk_stree_node *x = &s->t[v];
    if (l->key < r->key) {
        *x = *l;
    } else if (r->key < l->key) {
        *x = *r;
    } else {
        x->key = l->key;
        x->wsum = l->wsum + r->wsum;
        x->last = r->last >= 0 ? r->last : l->last;
    }
}

/* The best class flat: each leaf's weight in it summed through the leaf. */
static void flat_build(hk_stree *s)
{
    const hk_stree_node *root = &s->t[1], *leaf = &s->t[s->size];
    double c = 0, w = 0;
    for (int i = 0; i < s->n; i++) {
        w = leaf[i].key == root->key ? leaf[i].wsum : 0.0;
        if (i < s->n - 1)
            s->cum[i] = c += w;
    }
    s->top = w > 0 ? s->n - 1 : root->last;
}

void hk_stree_fix(hk_stree *s, int i)
{
    for (int v = (s->size + i) / 2; v >= 1; v /= 2)
        pull(s, v);
    if (s->n <= HK_STREE_FLAT)
        flat_build(s);
}

void hk_stree_build(hk_stree *s)
{
    for (int v = s->size - 1; v >= 1; v--)
        pull(s, v);
    if (s->n <= HK_STREE_FLAT)
        flat_build(s);
}

const hk_stree_node *hk_stree_root(const hk_stree *s) { return &s->t[1]; }

/* The leaf whose running-sum interval holds target. A zero-weight leaf's interval is empty, so
 * the count passes it; only the last can be reached without weight (u x the sum rounded up to
 * the sum), and there the walk answers with the class's last leaf: top. */
static int flat_pick(const hk_stree *s, double target)
{
    int i = 0;
    for (int k = 0; k < s->n - 1; k++)
        i += target >= s->cum[k];
    return i == s->n - 1 ? s->top : i;
}

static int walk(const hk_stree *s, double target)
{
    const hk_stree_node *root = &s->t[1];
    int v = 1;
    while (v < s->size) {
        const hk_stree_node *l = &s->t[2 * v], *r = &s->t[2 * v + 1];
        int lin = l->key == root->key, rin = r->key == root->key; /* root's key is a class */
        int right = (!lin) | (rin & (target >= l->wsum));
        /* without branches: the side taken is random, so a branch would be mispredicted half
         * the time; passing a left subtree of the class takes its weight off the target */
        target -= (right & lin) ? l->wsum : 0.0;
        v = 2 * v + right;
    }
    int i = v - s->size;
    /* rounding can land on a zero-weight leaf at a boundary: fall back to the class's last */
    return s->t[v].wsum > 0 ? i : root->last;
}

/* The target u x the class's weight, or the answer when there is nothing to draw: -1 no
 * class, its last leaf when its weights are all 0. */
static int target_of(const hk_stree *s, double u, double *target)
{
    const hk_stree_node *root = &s->t[1];
    if (root->last < 0)
        return -1;
    if (!(root->wsum > 0))
        return root->last;
    *target = u * root->wsum;
    return -2;
}

int hk_stree_pick(const hk_stree *s, double u)
{
    if (s->n > HK_STREE_FLAT)
        return hk_stree_walk(s, u);
    double target;
    int i = target_of(s, u, &target);
    return i != -2 ? i : flat_pick(s, target);
}

int hk_stree_walk(const hk_stree *s, double u)
{
    double target;
    int i = target_of(s, u, &target);
    return i != -2 ? i : walk(s, target);
}
