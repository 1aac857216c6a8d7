/* sim_expect: a claim against a finished run (see sim_expect.h). */
#include "sim_expect.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static int host_of(const sim_world *w, const char *name)
{
    return name[0] ? hk_cluster_find_host(w->s->cl, name) : -1;
}

static int findings(const hk_claim *c, const sim_world *w, const sim_result *r, char *ev, int n)
{
    int h = host_of(w, c->mirror), found = 0;
    const hk_finding *first = NULL;
    for (int i = 0; i < r->fd.n; i++) {
        const hk_finding *f = &r->fd.f[i];
        if ((c->finding[0] && strcmp(f->kind, c->finding)) || (h >= 0 && f->host != h))
            continue;
        if (!found++)
            first = f;
    }
    if (first)
        snprintf(ev, (size_t)n, "%d found; the first: %s at %.1f s: %.300s", found, first->kind,
                 first->t_s, first->detail);
    else
        snprintf(ev, (size_t)n, "none found (the run's findings: %d)", r->fd.n);
    return c->kind == HK_X_FINDING ? found > 0 : found == 0;
}

/* Master 0's share of the mirror on the first line that has it. */
static int share(const hk_claim *c, const sim_world *w, char *ev, int n)
{
    int h = host_of(w, c->mirror);
    const hk_tl *t = &w->tl;
    for (int s = 0; s < t->nser; s++) {
        if (t->ser[s].master || t->ser[s].host != h)
            continue;
        double bw = (double)t->width_us / 1e6;
        int k0 = (int)(c->from_s / bw), k1 = c->to_s < 0 ? t->nbins : (int)ceil(c->to_s / bw);
        double got = hk_tl_share(t, s - t->ser[s].mirror, s, k0, k1);
        snprintf(ev, (size_t)n, "share %.4f (master 0, agent %d)", got, t->ser[s].line + 1);
        return hk_expect_holds(c, got);
    }
    snprintf(ev, (size_t)n, "the mirror is on no line");
    return 0;
}

static int readmit(const hk_claim *c, const sim_world *w, const sim_result *r, char *ev, int n)
{
    int h = host_of(w, c->mirror);
    for (int i = 0; i < r->fd.nre; i++) {
        const hk_readmit *x = &r->fd.re[i];
        if (w->tl.ser[x->series].host != h || w->tl.ser[x->series].master)
            continue;
        if (x->back_s < 0)
            snprintf(ev, (size_t)n, "never back (first query after the fault: %s)",
                     x->first_s < 0 ? "none" : "came");
        else
            snprintf(ev, (size_t)n, "back after %.1f s (first query %.2f s)", x->back_s,
                     x->first_s);
        return c->op == HK_XOP_NEVER ? x->back_s < 0
                                     : x->back_s >= 0 && hk_expect_holds(c, x->back_s);
    }
    snprintf(ev, (size_t)n, "no fault of this mirror within the run");
    return 0;
}

static int converged(const hk_claim *c, const sim_result *r, char *ev, int n)
{
    int ha = 0, stat = 0, never = 0;
    double worst = 0;
    for (int i = 0; i < r->fd.nconv; i++) {
        const hk_conv *v = &r->fd.conv[i];
        if (v->single)
            continue;
        ha++;
        stat += v->is_static;
        never += !v->converged;
        if (v->converged && !v->is_static && v->t_s > worst)
            worst = v->t_s;
    }
    snprintf(ev, (size_t)n, "%d HA line(s): %d static, %d never, the latest converged at %.0f s",
             ha, stat, never, worst);
    if (c->op == HK_XOP_STATIC)
        return ha > 0 && stat == ha;
    if (c->op == HK_XOP_NEVER)
        return never > 0;
    return !never && hk_expect_holds(c, worst);
}

/* Connections opened per attempt on the mirror, over its routes and every master. */
static int connects(const hk_claim *c, const sim_world *w, char *ev, int n)
{
    const hk_cluster *cl = w->s->cl;
    uint64_t q = 0, cn = 0;
    for (int t = 0, i = 0; t < cl->ntables; t++)
        for (int k = 0; k < cl->tables[t].nlines; k++) {
            const hk_line_conf *lc = &cl->tables[t].lines[k];
            for (int j = 0; j < lc->a.n; j++, i++) {
                if (strcmp(cl->hosts[lc->host[j]].name, c->mirror))
                    continue;
                const hk_ltot *tt = hk_ledger_at(&w->led, w->li_base[t] + k, j);
                q += tt->q;
                cn += tt->connects;
            }
        }
    double got = q ? (double)cn / (double)q : NAN;
    snprintf(ev, (size_t)n, "%" PRIu64 " connections for %" PRIu64 " attempts (%.4f each)", cn, q,
             got);
    return hk_expect_holds(c, got);
}

int sim_expect_eval(const hk_claim *c, const sim_world *w, const sim_result *r, char *ev, int n)
{
    double all = (double)(w->n_ok + w->n_partial + w->n_error), got;
    switch (c->kind) {
    case HK_X_FINDING:
    case HK_X_NO_FINDING:
        return findings(c, w, r, ev, n);
    case HK_X_SHARE:
        return share(c, w, ev, n);
    case HK_X_READMIT:
        return readmit(c, w, r, ev, n);
    case HK_X_FAILED:
        got = all ? 100.0 * (double)(w->n_partial + w->n_error) / all : NAN;
        snprintf(ev, (size_t)n, "%.3f%% failed or partial", got);
        return hk_expect_holds(c, got);
    case HK_X_P99:
        if (c->q < 0) {
            got = hk_hist_mean(&w->all) / 1e6;
            snprintf(ev, (size_t)n, "mean %.4f ms", got * 1e3);
        } else {
            got = hk_hist_quantile(&w->all, c->q) / 1e6;
            snprintf(ev, (size_t)n, "p%g %.4f ms", c->q * 100, got * 1e3);
        }
        return hk_expect_holds(c, got);
    case HK_X_CONVERGED:
        return converged(c, r, ev, n);
    case HK_X_CONNECTS:
        return connects(c, w, ev, n);
    }
    return 0;
}
