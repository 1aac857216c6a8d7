/* sweep_grid: parsing, numbering and applying the points of a sweep (see sweep_grid.h). */
#include "sweep_grid.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hk_keys.h"
#include "hk_strat.h"
#include "hk_time.h"
#include "hk_variant.h"

static const char *const names[SK_N + 1] = {
    "ha_strategy", "variant", "ha_period_karma", "ha_ping_interval", "agent_retry_count",
    "agent_connect_timeout", "agent_query_timeout", "agent_retry_delay", NULL};

const char *sweep_key_name(sweep_key k) { return k < SK_N ? names[k] : "?"; }

static int fail(char *msg, size_t n, long col, const char *fmt, const char *arg)
{
    char what[4400];
    snprintf(what, sizeof what, fmt, arg);
    snprintf(msg, n, "column %ld: %s", col, what);
    return -1;
}

/* One value of axis a at column col. */
static int value(sweep_axis *a, const char *v, long col, char *msg, size_t n)
{
    int bad;
    const char *what;
    long long k;
    int64_t *out = &a->v[a->n];
    switch (a->key) {
    case SK_STRATEGY:
        if ((*out = hk_strat_find_any(v)) < 0)
            return fail(msg, n, col, "ha_strategy: expected random, roundrobin, nodeads, noerrors, "
                        "p2c, least-outstanding, peak-ewma or c3, got '%s'", v);
        return 0;
    case SK_VARIANT:
        if ((*out = hk_variant_find(v)) < 0)
            return fail(msg, n, col, "variant: expected manticore, manticore-fixed, sphinx2 or "
                        "documented, got '%s'", v);
        return 0;
    case SK_RETRY:
        if (hk_int_parse(v, 0, 1000, &k, &bad, &what) < 0)
            return fail(msg, n, col + bad, "agent_retry_count: expected a count 0..1000, got '%s'", v);
        *out = k;
        return 0;
    default: {
        int64_t unit = a->key == SK_KARMA ? HK_SEC : HK_MS;
        if (hk_time_parse(v, unit, out, &bad, &what) < 0 || *out < 0 ||
            (a->key == SK_KARMA && *out < HK_SEC))
            return fail(msg, n, col + bad, a->key == SK_KARMA
                        ? "ha_period_karma: expected a time of at least 1s, got '%s'"
                        : "expected a time (bare numbers are ms), got '%s'", v);
        if (a->key == SK_KARMA)
            *out = *out / HK_SEC * HK_SEC;
        return 0;
    }
    }
}

/* "key=v1,v2" starting at text[col - 1]. */
static int axis(const char *word, long col, sweep_axis *a, char *msg, size_t n)
{
    const char *eq = strchr(word, '=');
    if (!eq || eq == word)
        return fail(msg, n, col, "expected KEY=VALUE,VALUE..., got '%s'", word);
    char key[64];
    snprintf(key, sizeof key, "%.*s", (int)(eq - word), word);
    int k = 0;
    while (names[k] && strcmp(names[k], key))
        k++;
    if (!names[k]) {
        const char *near = hk_nearest(key, names);
        char what[400];
        snprintf(what, sizeof what, "unknown setting '%%s'%s%s%s: expected %s", near ? " (did you "
                 "mean " : "", near ? near : "", near ? "?)" : "", "ha_strategy, variant, "
                 "ha_period_karma, ha_ping_interval, agent_retry_count, agent_connect_timeout, "
                 "agent_query_timeout or agent_retry_delay");
        return fail(msg, n, col, what, key);
    }
    a->key = (sweep_key)k;
    a->n = 0;
    const char *p = eq + 1;
    for (;;) {
        const char *c = strchr(p, ',');
        size_t len = c ? (size_t)(c - p) : strlen(p);
        if (!len || len >= sizeof a->text[0])
            return fail(msg, n, col + (p - word), "%s: expected a value", names[k]);
        if (a->n == SWEEP_VALUES_MAX)
            return fail(msg, n, col + (p - word), "%s: at most 64 values", names[k]);
        snprintf(a->text[a->n], sizeof a->text[0], "%.*s", (int)len, p);
        if (value(a, a->text[a->n], col + (p - word), msg, n) < 0)
            return -1;
        a->n++;
        if (!c)
            return 0;
        p = c + 1;
    }
}

int sweep_grid_parse(const char *text, sweep_grid *g, char *msg, size_t n)
{
    memset(g, 0, sizeof *g);
    g->npoints = 1;
    const char *p = text;
    while (*p) {
        while (*p == ' ' || *p == '\t')
            p++;
        if (!*p)
            break;
        size_t len = strcspn(p, " \t");
        char word[4096];
        if (len >= sizeof word)
            return fail(msg, n, p - text + 1, "%s", "a grid word under 4096 characters");
        snprintf(word, sizeof word, "%.*s", (int)len, p);
        if (g->naxes == SWEEP_KEYS_MAX)
            return fail(msg, n, p - text + 1, "%s", "at most 8 settings");
        sweep_axis *a = &g->ax[g->naxes];
        if (axis(word, p - text + 1, a, msg, n) < 0)
            return -1;
        for (int i = 0; i < g->naxes; i++)
            if (g->ax[i].key == a->key)
                return fail(msg, n, p - text + 1, "%s: set twice", names[a->key]);
        g->naxes++;
        g->npoints *= a->n;
        if (g->npoints > SWEEP_POINTS_MAX)
            return fail(msg, n, p - text + 1, "%s", "a grid of at most 100000 points");
        p += len;
    }
    if (!g->naxes)
        return fail(msg, n, 1, "%s", "at least one KEY=VALUE,VALUE...");
    return 0;
}

int sweep_point_value(const sweep_grid *g, long p, int a)
{
    for (int i = g->naxes - 1; i > a; i--)
        p /= g->ax[i].n;
    return (int)(p % g->ax[a].n);
}

void sweep_point_label(const sweep_grid *g, long p, char *buf, size_t n)
{
    size_t used = 0;
    buf[0] = 0;
    for (int a = 0; a < g->naxes && used < n; a++)
        used += (size_t)snprintf(buf + used, n - used, "%s%s=%s", a ? " " : "",
                                 names[g->ax[a].key], g->ax[a].text[sweep_point_value(g, p, a)]);
}

int sweep_save(const hk_scn *s, sweep_saved *sv)
{
    const hk_cluster *cl = s->cl;
    sv->set = cl->set;
    sv->ntables = cl->ntables;
    sv->conn = calloc((size_t)cl->ntables + 1, sizeof *sv->conn);
    sv->query = calloc((size_t)cl->ntables + 1, sizeof *sv->query);
    sv->retry = calloc((size_t)cl->ntables + 1, sizeof *sv->retry);
    if (!sv->conn || !sv->query || !sv->retry)
        return -1;
    for (int t = 0; t < cl->ntables; t++) {
        sv->conn[t] = cl->tables[t].connect_timeout_us;
        sv->query[t] = cl->tables[t].query_timeout_us;
        sv->retry[t] = cl->tables[t].retry_count;
    }
    return 0;
}

void sweep_saved_free(sweep_saved *sv)
{
    free(sv->conn);
    free(sv->query);
    free(sv->retry);
}

void sweep_apply(const sweep_grid *g, long p, hk_scn *s, const sweep_saved *sv, sim_opts *o)
{
    hk_cluster *cl = s->cl;
    cl->set = sv->set;
    for (int t = 0; t < cl->ntables; t++) {
        cl->tables[t].connect_timeout_us = sv->conn[t];
        cl->tables[t].query_timeout_us = sv->query[t];
        cl->tables[t].retry_count = sv->retry[t];
    }
    o->strategy = -1;
    for (int a = 0; a < g->naxes; a++) {
        int64_t v = g->ax[a].v[sweep_point_value(g, p, a)];
        switch (g->ax[a].key) {
        case SK_STRATEGY: o->strategy = (int)v; break;
        case SK_VARIANT: o->variant = (int)v; break;
        case SK_KARMA: cl->set.karma_s = v / HK_SEC; break;
        case SK_PING: cl->set.ping_us = v; break;
        case SK_RETRY_DELAY: cl->set.retry_delay_us = v; break;
        case SK_RETRY: /* the table-level setting would win over the global one: set both */
            cl->set.retry_count = (int)v;
            for (int t = 0; t < cl->ntables; t++)
                cl->tables[t].retry_count = -1;
            break;
        case SK_CONNECT:
        case SK_QUERY:
            for (int t = 0; t < cl->ntables; t++)
                *(g->ax[a].key == SK_CONNECT ? &cl->tables[t].connect_timeout_us
                                             : &cl->tables[t].query_timeout_us) = v;
            *(g->ax[a].key == SK_CONNECT ? &cl->set.connect_timeout_us
                                         : &cl->set.query_timeout_us) = v;
            break;
        default: break;
        }
    }
}

/* The scenario's own value of key (strategy: every table's configured one, if they agree). */
static int64_t own(const hk_scn *s, sweep_key k, int variant)
{
    const hk_cluster *cl = s->cl;
    switch (k) {
    case SK_STRATEGY: {
        int64_t st = s->strategy >= 0 ? s->strategy : -2;
        for (int t = 0; st == -2 && t < cl->ntables; t++)
            for (int l = 0; l < cl->tables[t].nlines; l++)
                if (st == -2 || st == cl->tables[t].lines[l].strategy)
                    st = cl->tables[t].lines[l].strategy;
        return st;
    }
    case SK_VARIANT: return variant;
    case SK_KARMA: return cl->set.karma_s * HK_SEC;
    case SK_PING: return cl->set.ping_us;
    case SK_RETRY: return cl->set.retry_count;
    case SK_CONNECT: return cl->ntables ? cl->tables[0].connect_timeout_us : cl->set.connect_timeout_us;
    case SK_QUERY: return cl->ntables ? cl->tables[0].query_timeout_us : cl->set.query_timeout_us;
    case SK_RETRY_DELAY: return cl->set.retry_delay_us;
    default: return -1;
    }
}

long sweep_current(const sweep_grid *g, const hk_scn *s, int variant)
{
    long p = 0;
    for (int a = 0; a < g->naxes; a++) {
        int64_t mine = own(s, g->ax[a].key, variant);
        int k = 0;
        while (k < g->ax[a].n && g->ax[a].v[k] != mine)
            k++;
        if (k == g->ax[a].n)
            return -1;
        p = p * g->ax[a].n + k;
    }
    return p;
}
