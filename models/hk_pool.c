/* hk_pool: the persistent-connection pool of one agent host, by rule (see hk_pool.h). Each
 * function is the real one's arithmetic on positions and counts; connections are only their
 * opening times. */
#include "hk_pool.h"
#include <stdlib.h>
#include <string.h>
#include "hk_cluster.h"
#include "hk_variant.h"

int hk_pool_init(hk_pool *p, hk_pool_rule rule, int limit, int close_on_fatal)
{
    memset(p, 0, sizeof *p);
    if (limit < 1)
        limit = 1;
    p->slot = calloc((size_t)limit, sizeof *p->slot);
    if (!p->slot)
        return -1;
    p->rule = rule;
    p->limit = limit;
    p->close_on_fatal = close_on_fatal;
    for (int i = 0; i < limit; i++)
        p->slot[i].conn = HK_POOL_NEW;
    if (rule == HK_POOL_STACK) { /* every slot there, free and empty, from the start */
        p->len = limit;
        p->nfree = limit;
    }
    return 0;
}

void hk_pool_free(hk_pool *p)
{
    free(p->slot);
    memset(p, 0, sizeof *p);
}

/* The ring's step over position *v: the fixed one advances it; the stuck one leaves it and
 * wraps the member after it instead (read -> write position, write position -> free count). */
static int step(hk_pool *p, int *v)
{
    int r = *v;
    if (p->rule == HK_POOL_RING_STUCK) {
        int *next = v == &p->rit ? &p->wit : &p->nfree;
        if (*next >= p->len)
            *next = 0;
        return r;
    }
    if (++*v >= p->len)
        *v = 0;
    return r;
}

static int64_t take(hk_pool *p, hk_pool_slot *s)
{
    if (!s->idle && s->conn >= 0)
        p->shared++;
    s->idle = 0;
    return s->conn;
}

int64_t hk_pool_rent(hk_pool *p)
{
    if (p->rule == HK_POOL_STACK) {
        if (!p->nfree)
            return HK_POOL_NONE;
        hk_pool_slot *s = &p->slot[--p->nfree];
        int64_t c = s->conn;
        s->conn = HK_POOL_NEW;
        s->idle = 0;
        return c;
    }
    if (p->nfree > 0) {
        p->nfree--;
        return take(p, &p->slot[step(p, &p->rit)]);
    }
    if (p->len >= p->limit)
        return HK_POOL_NONE;
    p->slot[p->len++] = (hk_pool_slot){HK_POOL_NEW, 0}; /* filled as attempts need it */
    return HK_POOL_NEW;
}

int hk_pool_return(hk_pool *p, int64_t conn)
{
    if (p->rule == HK_POOL_STACK) {
        if (p->nfree >= p->len)
            return 0; /* closed */
        p->slot[p->nfree++] = (hk_pool_slot){conn, 1};
        return 1;
    }
    if (p->nfree >= p->len) { /* no free slot in the ring */
        if (p->len >= p->limit)
            return 0; /* closed */
        p->slot[p->len++] = (hk_pool_slot){HK_POOL_NEW, 0};
        p->wit = p->len - 1;
    }
    if (++p->nfree == 1)
        p->rit = p->wit;
    hk_pool_slot *s = &p->slot[step(p, &p->wit)];
    if (s->idle && s->conn >= 0)
        p->leaked++;
    *s = (hk_pool_slot){conn, 1};
    return 1;
}

int hk_pool_fatal(hk_pool *p, int64_t *closed, int cap)
{
    if (!p->close_on_fatal || p->rule != HK_POOL_RING)
        return 0;
    int n = 0, at = p->rit;
    for (int i = 0; i < p->nfree; i++) {
        hk_pool_slot *s = &p->slot[step(p, &at)];
        if (s->conn >= 0) {
            if (closed && n < cap)
                closed[n] = s->conn;
            s->conn = HK_POOL_NEW;
            n++;
        }
    }
    return n;
}

static const char *const rule_names[HK_POOL_RULES] = {"stack", "ring", "ring-stuck"};

const char *hk_pool_rule_name(hk_pool_rule r)
{
    return r < HK_POOL_RULES ? rule_names[r] : "?";
}

int hk_pool_rule_find(const char *name)
{
    for (int i = 0; i < HK_POOL_RULES; i++)
        if (!strcmp(name, rule_names[i]))
            return i;
    return -1;
}

hk_pool_rule hk_pool_rule_of(int variant)
{
    return variant == HK_VAR_SPHINX2 ? HK_POOL_STACK : HK_POOL_RING;
}

hk_pool_rule hk_pool_rule_pick(int scn_rule, int variant)
{
    return scn_rule >= 0 ? (hk_pool_rule)scn_rule : hk_pool_rule_of(variant);
}

hk_pool *hk_pool_hosts_new(const hk_cluster *cl, hk_pool_rule rule, int close_on_fatal)
{
    hk_pool *p = calloc((size_t)cl->nhosts + 1, sizeof *p);
    for (int t = 0; p && t < cl->ntables; t++)
        for (int k = 0; p && k < cl->tables[t].nlines; k++) {
            const hk_line_conf *lc = &cl->tables[t].lines[k];
            for (int j = 0; p && lc->a.persistent && j < lc->a.n; j++)
                if (!p[lc->host[j]].slot && hk_pool_init(&p[lc->host[j]], rule,
                        cl->set.persistent_limit, close_on_fatal) < 0) {
                    hk_pool_hosts_free(p, cl->nhosts);
                    p = NULL;
                }
        }
    return p;
}

void hk_pool_hosts_free(hk_pool *p, int nhosts)
{
    for (int h = 0; p && h < nhosts; h++)
        hk_pool_free(&p[h]);
    free(p);
}
