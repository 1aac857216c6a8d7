/* rl_pxsched: a mirror's scenario faults on a proxy, on their schedule (see rl_pxsched.h). */
#include "rl_pxsched.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct rl_pxtimer {
    uv_timer_t t;
    rl_pxsched *s;
    const hk_fault *f;
    int end;                         /* 0: the fault starts, 1: it ends */
    int down;                        /* flap: the proxy is closed now */
} pxtimer;

static void said(const rl_pxsched *s, const char *what)
{
    if (s->on_change)
        s->on_change(s->user, what);
}

/* The toxic a fault is, in the scenario language's words. */
static void spec_of(const hk_fault *f, char *out, size_t n)
{
    switch (f->kind) {
    case HK_FAULT_SLOW: snprintf(out, n, "slow(%g)", f->x); break;
    case HK_FAULT_ERRORS: snprintf(out, n, "errors(%g)", f->x); break;
    case HK_FAULT_PARTITION: snprintf(out, n, "partition"); break;
    default: snprintf(out, n, "%s", hk_fault_name(f->kind)); break;
    }
}

static void enable(pxtimer *pt, rl_proxy *p, int on)
{
    char msg[256], what[320];
    if (rl_proxy_enable(p, on, msg, sizeof msg) < 0)
        snprintf(what, sizeof what, "scenario line %d: %s", pt->f->line, msg);
    else
        snprintf(what, sizeof what, "scenario line %d: proxy %s %s", pt->f->line, p->name,
                 on ? "open again" : "closed (down: connects refused)");
    said(pt->s, what);
}

static void toxic(pxtimer *pt, rl_proxy *p)
{
    char spec[64], name[RL_TX_NAME_MAX], msg[256], what[400];
    rl_toxic t;
    snprintf(name, sizeof name, "scenario_%d", pt->f->line);
    if (pt->end) {
        if (rl_proxy_remove(p, name) == 0)
            snprintf(what, sizeof what, "scenario line %d: toxic %s removed from %s",
                     pt->f->line, name, p->name);
        else
            snprintf(what, sizeof what, "scenario line %d: toxic %s was already gone from %s",
                     pt->f->line, name, p->name);
        said(pt->s, what);
        return;
    }
    spec_of(pt->f, spec, sizeof spec);
    if (rl_toxic_from_spec(spec, &t, msg, sizeof msg) == 0) {
        snprintf(t.name, sizeof t.name, "%s", name);
        if (rl_proxy_add(p, &t, msg, sizeof msg) == 0)
            snprintf(msg, sizeof msg, "toxic %s (%s) on %s", name, spec, p->name);
    }
    snprintf(what, sizeof what, "scenario line %d: %s", pt->f->line, msg);
    said(pt->s, what);
}

static void fire(uv_timer_t *t)
{
    pxtimer *pt = t->data;
    int i = rl_pxset_find(pt->s->set, pt->s->proxy);
    rl_proxy *p = i < 0 ? NULL : pt->s->set->px[i];
    if (!p)
        return;
    if (pt->f->kind == HK_FAULT_DOWN)
        enable(pt, p, pt->end);
    else if (pt->f->kind == HK_FAULT_FLAP && pt->end) {
        pxtimer *start = pt - 1; /* the start's timer stands just before its end's */
        uv_timer_stop(&start->t);
        enable(pt, p, 1);
    } else if (pt->f->kind == HK_FAULT_FLAP) {
        pt->down = !pt->down;
        enable(pt, p, !pt->down);
    } else
        toxic(pt, p);
}

int rl_pxsched_start(rl_pxsched *s, rl_pxset *set, const char *proxy, const hk_scn *scn,
                     int host)
{
    s->set = set;
    snprintf(s->proxy, sizeof s->proxy, "%s", proxy);
    s->t = calloc((size_t)scn->nfaults * 2 + 1, sizeof *s->t);
    if (!s->t)
        return -1;
    for (int i = 0; i < scn->nfaults; i++) {
        const hk_fault *f = &scn->faults[i];
        if (f->host != host)
            continue;
        for (int end = 0; end < 2; end++) {
            pxtimer *pt = &s->t[s->nt++];
            pt->s = s;
            pt->f = f;
            pt->end = end;
            uv_timer_init(set->loop, &pt->t);
            pt->t.data = pt;
            if (end && f->for_us < 0)
                continue; /* until the end: its timer is made, never started */
            uint64_t at = (uint64_t)((end ? f->at_us + f->for_us : f->at_us) / 1000);
            uint64_t repeat = !end && f->kind == HK_FAULT_FLAP ? (uint64_t)(f->period_us / 2000) : 0;
            uv_timer_start(&pt->t, fire, at, repeat);
        }
    }
    return 0;
}

static void on_closed(uv_handle_t *h)
{
    pxtimer *pt = h->data;
    rl_pxsched *s = pt->s;
    if (--s->nt == 0) {
        free(s->t);
        s->t = NULL;
    }
}

void rl_pxsched_stop(rl_pxsched *s)
{
    int n = s->nt;
    if (n == 0) {
        free(s->t);
        s->t = NULL;
    }
    for (int i = 0; i < n; i++)
        uv_close((uv_handle_t *)&s->t[i].t, on_closed);
}
