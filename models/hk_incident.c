/* hk_incident: a series of status snapshots as an incident's timeline (see hk_incident.h). */
#include "hk_incident.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "hk_grow.h"
#include "hk_strat.h"

const char *hk_inc_state_name(hk_inc_state s)
{
    static const char *n[] = {"absent", "ok", "dead", "slow", "going", "back"};
    return n[s];
}

/* The span of the 1-period window at t: the newest block so far, and the whole one before it
 * in the newest block's first half (as searchd sums its windows; blocks from the epoch). */
double hk_incident_span(double t, double k)
{
    double secs = floor(t), p = floor(secs / k) * k;
    return t - p + (secs - p < floor(k / 2) ? k : 0);
}

static double failures(const double *c)
{
    return c[HK_EV_QUERY_TIMEOUT] + c[HK_EV_CONNECT_TIMEOUT] + c[HK_EV_CONNECT_FAILURE] +
           c[HK_EV_NETWORK_ERROR] + c[HK_EV_WRONG_QUERY] + c[HK_EV_WRONG_REPLY] +
           c[HK_EV_UNEXPECTED_CLOSE];
}

void hk_incident_cell(const hk_sthost *s, const hk_settings *set, double span, hk_inc_cell *x)
{
    const double *c = s->c1;
    x->ok = c[HK_EV_SUCCESS] + c[HK_EV_WARNING]; /* a reply with a warning is an answer */
    x->failed = failures(c);
    x->refused = c[HK_EV_CONNECT_FAILURE];
    x->ctimeout = c[HK_EV_CONNECT_TIMEOUT];
    x->qtimeout = c[HK_EV_QUERY_TIMEOUT];
    x->other = x->failed - x->refused - x->ctimeout - x->qtimeout;
    x->broken = c[HK_EV_NETWORK_ERROR] + c[HK_EV_UNEXPECTED_CLOSE];
    x->errorsarow = s->have_errorsarow ? s->errorsarow : 0;
    x->span_s = span;
    x->mean_ms = -1;
    double ev = 0;
    for (int k = 0; k < HK_EV_N; k++)
        ev += c[k];
    double t = s->msecs1 * ev - x->qtimeout * (double)set->query_timeout_us / 1e3 -
               x->ctimeout * (double)set->connect_timeout_us / 1e3;
    if (s->have_msecs1 && x->ok >= 1 && t > 0)
        x->mean_ms = t / x->ok;
    int dead = x->failed > 0 && (x->ok < 1 || x->errorsarow >= HK_INCIDENT_DEAD_ROW);
    x->state = dead ? HK_INC_DEAD : HK_INC_OK;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median_of(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n ? (n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2) : -1;
}

/* Window i's mean of host h over its median, or -1 when it has none to tell. */
static double slowdown(const hk_incident *inc, int i, int h)
{
    const hk_inc_cell *x = &inc->cell[(size_t)i * inc->nhosts + h];
    return (x->state == HK_INC_OK || x->state == HK_INC_SLOW) && x->mean_ms > 0 && inc->median_ms[h] > 0
               ? x->mean_ms / inc->median_ms[h] : -1;
}

/* A window is slow for h when h's mean is HK_INCIDENT_SLOW times its median beyond what the
 * other hosts show in the same window (the median of their slowdowns, when above 1): when
 * every mirror slows down together it is the master, its machine or the load, not a mirror. */
static void mark_slow(hk_incident *inc, int h, double *v)
{
    for (int i = 0; i < inc->nsnap; i++) {
        hk_inc_cell *x = &inc->cell[(size_t)i * inc->nhosts + h];
        double mine = slowdown(inc, i, h);
        if (x->ok < 5 || mine < HK_INCIDENT_SLOW)
            continue;
        int n = 0;
        for (int k = 0; k < inc->nhosts; k++)
            if (k != h && slowdown(inc, i, k) > 0)
                v[n++] = slowdown(inc, i, k);
        double others = n ? median_of(v, n) : 1;
        if (mine >= HK_INCIDENT_SLOW * (others > 1 ? others : 1))
            x->state = HK_INC_SLOW;
    }
}

/* Window i's attempts per second of host h over its median rate (rate: its median over healthy
 * windows); -1 when it has none to tell. */
static double rate_ratio(const hk_incident *inc, int i, int h, const double *rate)
{
    const hk_inc_cell *x = &inc->cell[(size_t)i * inc->nhosts + h];
    return rate[h] > 0 && x->span_s > 0 && x->state != HK_INC_ABSENT
               ? (x->ok + x->failed) / x->span_s / rate[h] : -1;
}

/* Stuck windows: query timeouts while the host's attempts collapsed against its own median rate
 * and the other hosts (the median of their ratios) did not: the strategy steered away from a
 * mirror that hangs searches, its pings still answering. A window right after a stuck one
 * whose attempts stay collapsed is stuck too, timeouts or not (those of the searches it holds
 * are counted a query timeout after they went out, often in the window after). */
static void mark_stuck(hk_incident *inc, const double *rate, double *v)
{
    for (int h = 0; h < inc->nhosts; h++)
        for (int i = 0; i < inc->nsnap; i++) {
            hk_inc_cell *x = &inc->cell[(size_t)i * inc->nhosts + h];
            const hk_inc_cell *p = i > 0 ? x - inc->nhosts : NULL;
            int after = p && p->state == HK_INC_DEAD && p->qtimeout >= 1 && p->refused < 1 &&
                        p->ctimeout < 1;
            double mine = rate_ratio(inc, i, h, rate);
            if (x->state == HK_INC_DEAD || (x->qtimeout < 1 && !after) || mine < 0 ||
                mine >= HK_INCIDENT_COLLAPSE)
                continue;
            int n = 0;
            for (int k = 0; k < inc->nhosts; k++)
                if (k != h && rate_ratio(inc, i, k, rate) >= 0)
                    v[n++] = rate_ratio(inc, i, k, rate);
            if (n && median_of(v, n) >= 3 * mine)
                x->state = HK_INC_DEAD;
        }
}

/* Each host's median rate of attempts over its windows without query timeouts (0: none). */
static void median_rates(const hk_incident *inc, double *rate, double *v)
{
    for (int h = 0; h < inc->nhosts; h++) {
        int n = 0;
        for (int i = 0; i < inc->nsnap; i++) {
            const hk_inc_cell *x = &inc->cell[(size_t)i * inc->nhosts + h];
            if (x->state == HK_INC_OK && x->qtimeout < 1 && x->span_s > 0)
                v[n++] = (x->ok + x->failed) / x->span_s;
        }
        rate[h] = n >= 3 ? median_of(v, n) : 0;
    }
}

/* Each host's median mean over its answering windows, then which windows are slow. */
static int medians(hk_incident *inc)
{
    int nv = inc->nsnap > inc->nhosts ? inc->nsnap : inc->nhosts;
    double *v = malloc((size_t)nv * sizeof *v);
    int *enough = calloc((size_t)inc->nhosts + 1, sizeof *enough);
    if (!v || !enough) {
        free(v);
        free(enough);
        return -1;
    }
    for (int h = 0; h < inc->nhosts; h++) {
        int n = 0;
        for (int i = 0; i < inc->nsnap; i++) {
            const hk_inc_cell *x = &inc->cell[(size_t)i * inc->nhosts + h];
            if (x->state == HK_INC_OK && x->mean_ms > 0)
                v[n++] = x->mean_ms;
        }
        inc->median_ms[h] = median_of(v, n);
        enough[h] = n >= 3;
    }
    for (int h = 0; h < inc->nhosts; h++)
        if (enough[h])
            mark_slow(inc, h, v);
    double *rate = calloc((size_t)inc->nhosts + 1, sizeof *rate);
    if (rate) {
        median_rates(inc, rate, v);
        mark_stuck(inc, rate, v);
    }
    free(rate);
    free(v);
    free(enough);
    return rate ? 0 : -1;
}

static const hk_inc_cell *at(const hk_incident *inc, int i, int h)
{
    return &inc->cell[(size_t)i * inc->nhosts + h];
}

/* The host's answer rate in window i, or -1 when i is outside or not answering. */
static double rate_in(const hk_incident *inc, int i, int h)
{
    if (i < 0 || i >= inc->nsnap)
        return -1;
    const hk_inc_cell *x = at(inc, i, h);
    int on = x->state == HK_INC_OK || x->state == HK_INC_BACK || x->state == HK_INC_GOING;
    return on && x->ok >= 1 && x->span_s > 0 ? x->ok / x->span_s : -1;
}

/* Where in window i (taken at t[i]) a change happened: the answers before it (ok_before) at
 * the rate of the neighbouring window r; clamped to the window and after the snapshot before. */
static double place(const double *t, int i, double span, double answers, double r, int before)
{
    double lo = t[i] - span, hi = t[i];
    if (i > 0 && t[i - 1] > lo)
        lo = t[i - 1];
    if (lo > hi)
        lo = hi;
    if (r <= 0)
        return (lo + hi) / 2;
    double x = before ? t[i] - span + answers / r : t[i] - answers / r;
    return x < lo ? lo : x > hi ? hi : x;
}

/* A dead run's kind by its failures: refused connects, and connections broken under the
 * searches in flight (a killed process resets them: at several hundred searches a second
 * they outnumber the refusals that follow, as the strategy stops sending there), say down;
 * connect timeouts a stall; query timeouts a stuck mirror. */
static hk_fault_kind kind_of(const hk_incident *inc, int h, int first, int last)
{
    double r = 0, ct = 0, qt = 0;
    for (int i = first; i <= last; i++) {
        const hk_inc_cell *x = at(inc, i, h);
        double broke = x->broken;
        r += x->refused + broke;
        ct += x->ctimeout;
        qt += x->qtimeout + x->other - broke;
    }
    return r >= ct && r >= qt ? HK_FAULT_DOWN : ct >= qt ? HK_FAULT_STALL : HK_FAULT_STUCK;
}

/* A stuck run: its timeouts were counted a query timeout after their searches went out, so
 * it began that long before the middle of its first window; it ended in the first window of
 * held searches answered, when there is one (held: how many such windows follow it). */
static void stuck_times(const hk_incident *inc, const double *t, hk_inc_fault *f, int held)
{
    const hk_inc_cell *a = at(inc, f->first, f->host);
    double from = t[f->first] - a->span_s / 2 - inc->qtimeout_s;
    f->from_s = fmax(from, inc->start_s);
    if (held && !f->open)
        f->to_s = t[f->last + 1] - at(inc, f->last + 1, f->host)->span_s / 2;
    if (f->to_s < f->from_s)
        f->to_s = f->from_s;
}

/* After a dead run ending at last: the slow windows of held searches answered late — those
 * starting within a query timeout of its end (a search it held waits that long at most), and
 * beyond, those of a mean HK_INCIDENT_HELD times the host's median or more — made part of it;
 * how many. */
static int held_after(hk_incident *inc, const double *t, int h, int last)
{
    int k = last + 1;
    while (k < inc->nsnap && at(inc, k, h)->state == HK_INC_SLOW &&
           (t[k] - at(inc, k, h)->span_s < t[last] + inc->qtimeout_s ||
            (inc->median_ms[h] > 0 &&
             at(inc, k, h)->mean_ms >= HK_INCIDENT_HELD * inc->median_ms[h]))) {
        inc->cell[(size_t)k * inc->nhosts + h].state = HK_INC_BACK;
        k++;
    }
    return k - last - 1;
}

/* How much of window i a slowdown by factor F filled: its mean between the host's median
 * (none) and F times it (all). */
static double slow_part(const hk_incident *inc, int i, int h, double F)
{
    double med = inc->median_ms[h], x = F > 1 ? (at(inc, i, h)->mean_ms - med) / ((F - 1) * med) : 1;
    return x < 0 ? 0 : x > 1 ? 1 : x;
}

/* A slow run: its factor from the windows it fills (the inner ones when there are three or
 * more: the edge windows hold it in part), its start and end inside the edge windows where
 * their means put them. */
static void slow_fault(hk_incident *inc, const double *t, hk_inc_fault *f)
{
    int h = f->host, lo = f->first, hi = f->last;
    if (hi - lo >= 2) {
        lo++;
        hi--;
    }
    double ok = 0, ms = 0;
    for (int i = lo; i <= hi; i++) {
        ok += at(inc, i, h)->ok;
        ms += at(inc, i, h)->ok * at(inc, i, h)->mean_ms;
    }
    f->kind = HK_FAULT_SLOW;
    f->factor = ms / ok / inc->median_ms[h];
    const hk_inc_cell *a = at(inc, f->first, h), *b = at(inc, f->last, h);
    f->from_s = t[f->first] - slow_part(inc, f->first, h, f->factor) * a->span_s;
    f->to_s = t[f->last] - b->span_s + slow_part(inc, f->last, h, f->factor) * b->span_s;
    if (f->first == f->last || f->to_s <= f->from_s) { /* one window: all of it */
        f->from_s = t[f->first] - a->span_s;
        f->to_s = t[f->last];
    }
}

/* When a dead run that ended inside the snapshots ended: placed in the window after it. */
static double dead_end(const hk_incident *inc, const double *t, const hk_inc_fault *f)
{
    int h = f->host, last = f->last;
    const hk_inc_cell *b = at(inc, last + 1, h), *d = at(inc, last, h); /* ended in b */
    double r = rate_in(inc, last + 2, h), rf = d->span_s > 0 ? d->failed / d->span_s : 0;
    double to = place(t, last + 1, b->span_s, b->ok, r > 0 ? r : rate_in(inc, last + 1, h), 0);
    /* The answers at the rate beside give a late bound: a host back at a master's low weight
     * (2.2.11's 10% for a mirror without timed queries, until it re-weights) answers slower
     * than after. The failures it still had, at the dead windows' rate (mostly pings), give an
     * early one: the end is put between them. */
    if (rf > 0 && b->failed > 0)
        to = (to + place(t, last + 1, b->span_s, b->failed, rf, 1)) / 2;
    /* That is when it answered again; it came back a ping's wait before (measured: the end
     * placed 0.14-0.36 s after a real restart with 500 ms pings, 0.03-0.13 s before the first
     * answer, over 6 runs of tests/cli_incident.sh). */
    to -= inc->ping_wait_s[h];
    return to < f->from_s ? f->from_s : to;
}

/* Windows first..last of host h as one fault (held: the windows of held searches after a
 * stuck run, held_after). */
static int add_fault(hk_incident *inc, const double *t, int h, int first, int last, int held)
{
    if (HK_GROW(inc->faults, inc->capfaults, inc->nfaults + 1) < 0)
        return -1;
    hk_inc_fault *f = &inc->faults[inc->nfaults++];
    memset(f, 0, sizeof *f);
    const hk_inc_cell *a = at(inc, first, h);
    f->host = h;
    f->first = first;
    f->last = last;
    f->open = last == inc->nsnap - 1;
    if (a->state == HK_INC_SLOW) {
        slow_fault(inc, t, f);
        return 0;
    }
    f->kind = kind_of(inc, h, first, last);
    for (int i = first; i <= last; i++) {
        f->failed += at(inc, i, h)->failed;
        f->errorsarow = fmax(f->errorsarow, at(inc, i, h)->errorsarow);
    }
    f->from_s = place(t, first, a->span_s, a->ok, rate_in(inc, first - 1, h), 1);
    f->to_s = f->open ? inc->end_s : dead_end(inc, t, f);
    if (f->kind == HK_FAULT_STUCK)
        stuck_times(inc, t, f, held);
    return 0;
}

/* Runs of dead (or slow) windows per host become faults. */
static int faults(hk_incident *inc, const double *t)
{
    for (int h = 0; h < inc->nhosts; h++)
        for (int i = 0; i < inc->nsnap; i++) {
            hk_inc_state s = at(inc, i, h)->state;
            if (s != HK_INC_DEAD && s != HK_INC_SLOW)
                continue;
            int j = i;
            while (j + 1 < inc->nsnap && at(inc, j + 1, h)->state == s)
                j++;
            int held = s == HK_INC_DEAD && kind_of(inc, h, i, j) == HK_FAULT_STUCK
                           ? held_after(inc, t, h, j) : 0;
            if (add_fault(inc, t, h, i, j, held) < 0)
                return -1;
            j += held;
            if (s == HK_INC_DEAD && j + 1 < inc->nsnap && at(inc, j + 1, h)->state == HK_INC_OK)
                inc->cell[(size_t)(j + 1) * inc->nhosts + h].state = HK_INC_BACK;
            if (s == HK_INC_DEAD && i > 0 && at(inc, i - 1, h)->state == HK_INC_OK &&
                at(inc, i - 1, h)->failed > 0)
                inc->cell[(size_t)(i - 1) * inc->nhosts + h].state = HK_INC_GOING;
            i = j;
        }
    return 0;
}

/* The healthy windows summed per host, scaled to the whole series, as one status. */
static int base_status(hk_incident *inc, const hk_snap *s, const hk_cluster *cl)
{
    hk_status_file *b = &inc->base;
    b->h = calloc((size_t)inc->nhosts + 1, sizeof *b->h);
    if (!b->h)
        return -1;
    b->layout = s[0].st->layout;
    b->period_s = (int64_t)inc->period_s;
    double total = 0;
    for (int i = 0; i < inc->nsnap; i++)
        total += at(inc, i, 0)->span_s;
    b->periods = (int)fmax(1, round(total / inc->period_s));
    for (int h = 0; h < inc->nhosts; h++) {
        hk_sthost *o = &b->h[b->nhosts];
        double span = 0;
        for (int i = 0; i < inc->nsnap; i++) {
            const hk_inc_cell *x = at(inc, i, h);
            if (x->state != HK_INC_OK)
                continue;
            const hk_sthost *e = NULL;
            for (int k = 0; k < s[i].st->nhosts && !e; k++)
                if (!strcmp(s[i].st->h[k].name, cl->hosts[h].name))
                    e = &s[i].st->h[k];
            double ev = 0;
            for (int k = 0; e && k < HK_EV_N; k++) {
                o->c[k] += e->c1[k];
                ev += e->c1[k];
            }
            o->total_ms += e && e->have_msecs1 ? e->msecs1 * ev : 0;
            o->have_total |= e && e->have_msecs1;
            span += x->span_s;
        }
        if (span <= 0)
            continue;
        inc->healthy[h] = 1;
        double scale = b->periods * inc->period_s / span;
        for (int k = 0; k < HK_EV_N; k++)
            o->c[k] *= scale;
        o->total_ms *= scale;
        snprintf(o->name, sizeof o->name, "%s", cl->hosts[h].name);
        b->nhosts++;
    }
    return 0;
}

static int check(const hk_snap *s, int n, hk_err *e)
{
    if (n < 2 || n > HK_INCIDENT_SNAPS_MAX)
        return hk_err_set(e, n ? s[0].name : "", 0, 0, "a series needs 2 to %d snapshots, got %d",
                          HK_INCIDENT_SNAPS_MAX, n);
    for (int i = 0; i < n; i++) {
        const hk_status_file *st = s[i].st;
        if (st->nhosts && st->h[0].by_agent)
            return hk_err_set(e, s[i].name, 0, 0, "SHOW STATUS lifetime rows have no windows: "
                              "a series needs SHOW AGENT STATUS snapshots");
        if (i && s[i].t_s <= s[i - 1].t_s)
            return hk_err_set(e, s[i].name, 0, 0, "taken at %.3f, not after %s (%.3f): two "
                              "snapshots of one moment", s[i].t_s, s[i - 1].name, s[i - 1].t_s);
        if (i && (st->layout != s[0].st->layout || st->period_s != s[0].st->period_s))
            return hk_err_set(e, s[i].name, 0, 0, "its layout or status_period_seconds (%lld) "
                              "differs from %s's (%lld): snapshots of another master",
                              (long long)st->period_s, s[0].name, (long long)s[0].st->period_s);
    }
    return 0;
}

/* The other span the window at t may have, when t is within HK_INCIDENT_SKEW of its block's
 * half point (where the previous block leaves the window); 0 when there is none. */
static double other_span(double t, double k)
{
    double p = floor(floor(t) / k) * k, half = p + floor(k / 2);
    if (floor(k / 2) < 1 || fabs(t - half) >= HK_INCIDENT_SKEW)
        return 0;
    return hk_incident_span(t, k) > t - p + k / 2 ? t - p : t - p + k;
}

/* Every outcome the snapshot counts over its window, all hosts (the load's rate times it). */
static double events_at(const hk_incident *inc, int i)
{
    double e = 0;
    for (int h = 0; h < inc->nhosts; h++)
        e += at(inc, i, h)->ok + at(inc, i, h)->failed;
    return e;
}

/* A window near its half point: the span whose rate is nearer the neighbours' (unambiguous
 * windows' events per second). */
static double resolve_span(const hk_incident *inc, const double *t, int i, double span)
{
    double alt = other_span(t[i], inc->period_s), r = 0, e = events_at(inc, i);
    int n = 0;
    for (int j = i - 1; j <= i + 1; j += 2)
        if (j >= 0 && j < inc->nsnap && !other_span(t[j], inc->period_s) && events_at(inc, j) > 0) {
            r += events_at(inc, j) / at(inc, j, 0)->span_s;
            n++;
        }
    if (!alt || !n || e <= 0)
        return span;
    r /= n;
    return fabs(log(e / (span * r))) <= fabs(log(e / (alt * r))) ? span : alt;
}

static int cells(hk_incident *inc, const hk_snap *s, const hk_cluster *cl, double *t)
{
    for (int i = 0; i < inc->nsnap; i++) {
        t[i] = s[i].t_s;
        double span = hk_incident_span(s[i].t_s, inc->period_s);
        for (int k = 0; k < s[i].st->nhosts; k++) {
            int h = hk_cluster_find_host(cl, s[i].st->h[k].name);
            if (h >= 0)
                hk_incident_cell(&s[i].st->h[k], &cl->set, span, &inc->cell[(size_t)i * inc->nhosts + h]);
        }
        for (int h = 0; h < inc->nhosts; h++)
            inc->cell[(size_t)i * inc->nhosts + h].span_s = span;
    }
    for (int i = 0; i < inc->nsnap; i++) {
        double span = resolve_span(inc, t, i, at(inc, i, 0)->span_s);
        for (int h = 0; h < inc->nhosts; h++)
            inc->cell[(size_t)i * inc->nhosts + h].span_s = span;
    }
    inc->start_s = t[0] - at(inc, 0, 0)->span_s;
    inc->end_s = t[inc->nsnap - 1];
    return 0;
}

/* Hosts that a nodeads or noerrors line leaves alone while they fail: back, they wait for the
 * next ping (every ha_ping_interval, at a phase no snapshot shows) before they answer. */
static void ping_waits(hk_incident *inc, const hk_cluster *cl)
{
    for (int k = 0; k < cl->ntables; k++)
        for (int j = 0; j < cl->tables[k].nlines; j++) {
            const hk_line_conf *l = &cl->tables[k].lines[j];
            if (l->strategy != HK_STRAT_NODEADS && l->strategy != HK_STRAT_NOERRORS)
                continue;
            for (int m = 0; l->a.n >= 2 && m < l->a.n; m++)
                inc->ping_wait_s[l->host[m]] = (double)cl->set.ping_us / 2e6;
        }
}

int hk_incident_build(const hk_snap *s, int n, const hk_cluster *cl, hk_incident *out,
                      hk_err *e)
{
    memset(out, 0, sizeof *out);
    if (check(s, n, e) < 0)
        return -1;
    out->nsnap = n;
    out->nhosts = cl->nhosts;
    out->period_s = (double)(s[0].st->period_s ? s[0].st->period_s : cl->set.karma_s);
    out->qtimeout_s = (double)cl->set.query_timeout_us / 1e6;
    out->cell = calloc((size_t)n * (size_t)cl->nhosts + 1, sizeof *out->cell);
    out->median_ms = calloc((size_t)cl->nhosts + 1, sizeof *out->median_ms);
    out->healthy = calloc((size_t)cl->nhosts + 1, sizeof *out->healthy);
    out->ping_wait_s = calloc((size_t)cl->nhosts + 1, sizeof *out->ping_wait_s);
    double *t = malloc((size_t)n * sizeof *t);
    int rc = !out->cell || !out->median_ms || !out->healthy || !out->ping_wait_s || !t ? -1 : 0;
    if (!rc)
        ping_waits(out, cl);
    if (!rc)
        rc = cells(out, s, cl, t);
    if (!rc)
        rc = medians(out);
    if (!rc)
        rc = faults(out, t);
    if (!rc)
        rc = base_status(out, s, cl);
    free(t);
    if (rc) {
        hk_incident_free(out);
        return hk_err_set(e, s[0].name, 0, 0, "out of memory");
    }
    return 0;
}

const hk_inc_fault *hk_incident_fault_at(const hk_incident *inc, int h, double t, double margin_s)
{
    for (int i = 0; i < inc->nfaults; i++) {
        const hk_inc_fault *f = &inc->faults[i];
        if ((h < 0 || f->host == h) && t >= f->from_s - margin_s && t <= f->to_s + margin_s)
            return f;
    }
    return NULL;
}

void hk_incident_free(hk_incident *inc)
{
    free(inc->cell);
    free(inc->median_ms);
    free(inc->healthy);
    free(inc->ping_wait_s);
    free(inc->faults);
    hk_status_file_free(&inc->base);
    memset(inc, 0, sizeof *inc);
}
