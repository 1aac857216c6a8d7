/* hk_calib: mirror behaviour from production counters (see hk_calib.h). */
#include "hk_calib.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Add host entry e (a window row or a lifetime row of one agent entry) into c. */
static void add(hk_sthost *acc, const hk_sthost *e)
{
    for (int k = 0; k < HK_EV_N; k++)
        acc->c[k] += e->c[k];
    acc->total_ms += e->total_ms;
    acc->have_total |= e->have_total;
    acc->have_qt |= e->have_qt;
    acc->msecs = e->msecs; /* one window row per host: not summed */
    acc->ev1 += e->ev1;
    acc->ev5 += e->ev5;
    acc->have1 |= e->have1;
    acc->have5 |= e->have5;
    acc->have_msecs |= e->have_msecs;
    acc->connect_avg_ms = (acc->connect_avg_ms * acc->connect_count +
                           e->connect_avg_ms * e->connect_count) /
                          (acc->connect_count + e->connect_count > 0
                               ? acc->connect_count + e->connect_count : 1);
    acc->connect_count += e->connect_count;
}

/* The config host a SHOW STATUS row "TABLE:LINE:MIRROR" names; -1 if none. */
static int host_of_entry(const hk_cluster *cl, const char *name)
{
    char table[256];
    int line, mirror;
    const char *c2 = strrchr(name, ':');
    if (!c2)
        return -1;
    const char *c1 = c2 - 1;
    while (c1 > name && *c1 != ':')
        c1--;
    if (c1 <= name || sscanf(c1 + 1, "%d:%d", &line, &mirror) != 2)
        return -1;
    snprintf(table, sizeof table, "%.*s", (int)(c1 - name), name);
    const hk_table *t = hk_cluster_find_table(cl, table);
    if (!t || line < 1 || line > t->nlines || mirror < 1 || mirror > t->lines[line - 1].a.n)
        return -1;
    return t->lines[line - 1].host[mirror - 1];
}

/* The time the widest window really covers. "P periods" sum P blocks, or P+1 in the first half
 * of the newest (capped at 15), the newest one partly: the 1- and 5-period windows hold the same
 * partial block and differ by exactly 4 whole periods, so (events(5) - events(1)) / 4 periods
 * is the rate, whatever the phase; the span of the widest follows. */
static double span_of(const hk_sthost *s, double ev, double window_s, double k_s)
{
    if (!s->have1 || !s->have5 || s->ev5 <= s->ev1)
        return window_s;
    double rate = (s->ev5 - s->ev1) / (4 * k_s);
    return ev / rate;
}

/* A rate as a probability: the events less the estimated pings can round to just below the
 * failures they hold (1.0000000000000011 was found by fuzz_status). */
static double unit(double p) { return p < 0 ? 0 : p > 1 ? 1 : p; }

/* The pings among ev events of a span of span_s: a ping goes out after ping_s without an
 * answer; with queries (events less pings) at a Poisson rate, exp(-rate x ping_s) of the
 * intervals are idle, and pings are events too: p = span/ping x exp(-(ev - p)/span x ping),
 * solved by iteration, never above the events. */
static double pings_in(double span_s, double ev, double ping_s)
{
    if (!(span_s > 0) || !(ev > 0))
        return 0;
    double p = span_s / ping_s;
    for (int it = 0; it < 50; it++) {
        double q = ev - p > 0 ? ev - p : 0;
        p = span_s / ping_s * exp(-q / span_s * ping_s);
        p = p < ev ? p : ev;
    }
    return p;
}

static void derive(const hk_cluster *cl, int h, const hk_sthost *s, double window_s, double k_s,
                   int periods, hk_calib_host *o)
{
    const hk_settings *set = &cl->set;
    double ev = 0;
    for (int k = 0; k < HK_EV_N; k++)
        ev += s->c[k];
    o->window_short = window_s > 5 * k_s && s->have5 && ev > 0 && ev - s->ev5 < 0.5;
    o->contradicts = s->have1 && s->have5 && s->ev5 < s->ev1;
    o->ev1 = s->ev1;
    o->ev5 = s->ev5;
    if (window_s > 0)
        window_s = span_of(s, ev, window_s, k_s);
    double ping_s = (double)set->ping_us / 1e6;
    o->pings_est = 0;
    if (!s->by_agent && cl->hosts[h].in_ha && ping_s > 0 && window_s > 0) {
        double succ = s->c[HK_EV_SUCCESS], p;
        double nominal = s->have1 && s->have5 && !o->window_short ? (double)periods * k_s : 0;
        if (nominal > 5 * k_s && s->ev5 > s->ev1 && ev >= s->ev5) {
            /* the three windows cut it in three spans of their own rates (a load that stopped
             * leaves pings only in the newest), each solved apart; the oldest is as long as
             * its events at the middle's rate, when that is shorter than its nominal length
             * (a master younger than its widest window) */
            double mid = (s->ev5 - s->ev1) / (4 * k_s), old = fmin(nominal - 5 * k_s,
                                                                 (ev - s->ev5) / mid);
            p = pings_in(k_s, s->ev1, ping_s) + pings_in(4 * k_s, s->ev5 - s->ev1, ping_s) +
                pings_in(old, ev - s->ev5, ping_s);
        }
        else
            p = pings_in(window_s, ev, ping_s);
        o->pings_est = p < succ ? p : succ;
    }
    double total_ms = s->total_ms;
    int have_total = s->have_total;
    if (!have_total && s->have_msecs && cl->dialect == HK_DIALECT_SPHINX2) {
        total_ms = s->msecs * ev; /* 2.2.11 prints the mean over events, pings included */
        have_total = 1;
    }
    double timed = ev - o->pings_est, qt = s->c[HK_EV_QUERY_TIMEOUT],
           ct = s->c[HK_EV_CONNECT_TIMEOUT], answered = timed - qt - ct;
    o->attempts = timed > 0 ? timed : 0;
    o->window_s = window_s;
    o->p_timeout = timed > 0 ? unit((qt + ct) / timed) : 0;
    /* one outcome an attempt: timed >= qt + ct + refusals, as the pings estimate never exceeds
     * the successes, so p_timeout + p_refuse <= 1 holds without a cap (test_calib checks it) */
    o->p_refuse = timed > 0 ? unit(s->c[HK_EV_CONNECT_FAILURE] / timed) : 0;
    o->p_warning = timed > 0 ? unit(s->c[HK_EV_WARNING] / timed) : 0;
    o->mean_ms = -1;
    if (have_total && answered >= HK_CALIB_MIN_ANSWERED) {
        double t = total_ms - qt * (double)set->query_timeout_us / 1e3 -
                   ct * (double)set->connect_timeout_us / 1e3;
        double m = t > 0 ? t / answered : -1; /* no time left: unknown, not 0 ms */
        o->mean_ms = m <= HK_STATREAD_MS_MAX ? m : -1;
    }
    o->rtt_ms = s->connect_count > 0 ? s->connect_avg_ms : -1;
}

int hk_calib(const hk_status_file *st, const hk_cluster *cl, hk_calib_host **out)
{
    *out = NULL;
    hk_calib_host *o = calloc((size_t)cl->nhosts + 1, sizeof *o);
    hk_sthost *acc = calloc((size_t)cl->nhosts + 1, sizeof *acc);
    if (!o || !acc) {
        free(o);
        free(acc);
        return -1;
    }
    double k_s = (double)(st->period_s ? st->period_s : cl->set.karma_s);
    double window_s = (double)st->periods * k_s;
    for (int i = 0; i < st->nhosts; i++) {
        const hk_sthost *e = &st->h[i];
        int h = e->by_agent ? host_of_entry(cl, e->name) : hk_cluster_find_host(cl, e->name);
        if (h < 0)
            continue;
        acc[h].by_agent |= e->by_agent;
        add(&acc[h], e);
        o[h].found = 1;
    }
    for (int h = 0; h < cl->nhosts; h++) {
        if (!o[h].found)
            continue;
        derive(cl, h, &acc[h], acc[h].by_agent ? 0 : window_s, k_s, st->periods, &o[h]);
        if (acc[h].by_agent)
            snprintf(o[h].source, sizeof o[h].source, "SHOW STATUS agent rows (lifetime)");
        else
            snprintf(o[h].source, sizeof o[h].source, "SHOW AGENT STATUS, %d periods of %lld s",
                     st->periods, (long long)(st->period_s ? st->period_s : cl->set.karma_s));
    }
    free(acc);
    *out = o;
    return 0;
}
