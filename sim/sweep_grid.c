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
    const char *dot = strrchr(key, '.');
    a->table[0] = '\0';
    a->tix = -1;
    if (dot) { /* table.key: that table only */
        snprintf(a->table, sizeof a->table, "%.*s", (int)(dot - key), key);
        memmove(key, dot + 1, strlen(dot + 1) + 1);
    }
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
    if (a->table[0] && k != SK_STRATEGY && k != SK_RETRY && k != SK_CONNECT && k != SK_QUERY)
        return fail(msg, n, col, "%s is a searchd-wide setting: only ha_strategy, "
                    "agent_retry_count, agent_connect_timeout and agent_query_timeout are set "
                    "per table (TABLE.KEY=...)", names[k]);
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
        for (int i = 0; i < a->n; i++)
            if (a->v[i] == a->v[a->n])
                return fail(msg, n, col + (p - word), "a value given twice ('%s'): each point "
                            "would run twice", a->text[a->n]);
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
            if (g->ax[i].key == a->key && !strcmp(g->ax[i].table, a->table))
                return fail(msg, n, p - text + 1, "%s: set twice", names[a->key]);
        g->naxes++;
        g->npoints *= a->n;
        if (g->npoints > SWEEP_POINTS_MAX)
            return fail(msg, n, p - text + 1, "%s", "a grid of at most 100000 points");
        p += len;
    }
    if (!g->naxes)
        return fail(msg, n, 1, "%s", "at least one KEY=VALUE,VALUE...");
    g->nrun = g->npoints;
    g->current = -1;
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
    if (p >= g->npoints) {
        snprintf(buf, n, "%s", g->base);
        return;
    }
    for (int a = 0; a < g->naxes && used < n; a++)
        used += (size_t)snprintf(buf + used, n - used, "%s%s%s%s=%s", a ? " " : "",
                                 g->ax[a].table, g->ax[a].table[0] ? "." : "",
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
    size_t nl = 0;
    for (int t = 0; t < cl->ntables; t++)
        nl += (size_t)cl->tables[t].nlines;
    sv->strat = calloc(nl + 1, sizeof *sv->strat);
    if (!sv->conn || !sv->query || !sv->retry || !sv->strat)
        return -1;
    for (int t = 0, i = 0; t < cl->ntables; t++)
        for (int k = 0; k < cl->tables[t].nlines; k++)
            sv->strat[i++] = cl->tables[t].lines[k].strategy;
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
    free(sv->strat);
}

/* One axis's value v on table t (every table's when the axis is global: set_global). */
static void apply_table(hk_cluster *cl, sweep_key key, int t, int64_t v)
{
    hk_table *tb = &cl->tables[t];
    switch (key) {
    case SK_STRATEGY:
        for (int k = 0; k < tb->nlines; k++)
            tb->lines[k].strategy = (int)v;
        break;
    case SK_RETRY: tb->retry_count = (int)v; break;
    case SK_CONNECT: tb->connect_timeout_us = v; break;
    case SK_QUERY: tb->query_timeout_us = v; break;
    default: break;
    }
}

static void apply_global(hk_cluster *cl, sweep_key key, int64_t v, sim_opts *o)
{
    switch (key) {
    case SK_VARIANT: o->variant = (int)v; break;
    case SK_KARMA: cl->set.karma_s = v / HK_SEC; break;
    case SK_PING: cl->set.ping_us = v; break;
    case SK_RETRY_DELAY: cl->set.retry_delay_us = v; break;
    case SK_RETRY: /* the table-level setting would win over the global one: set both */
        cl->set.retry_count = (int)v;
        for (int t = 0; t < cl->ntables; t++)
            cl->tables[t].retry_count = -1;
        break;
    case SK_CONNECT: cl->set.connect_timeout_us = v; break;
    case SK_QUERY: cl->set.query_timeout_us = v; break;
    default: break;
    }
    if (key == SK_STRATEGY || key == SK_CONNECT || key == SK_QUERY)
        for (int t = 0; t < cl->ntables; t++)
            apply_table(cl, key, t, v);
}

void sweep_apply(const sweep_grid *g, long p, hk_scn *s, const sweep_saved *sv, sim_opts *o)
{
    hk_cluster *cl = s->cl;
    cl->set = sv->set;
    for (int t = 0, i = 0; t < cl->ntables; t++) {
        cl->tables[t].connect_timeout_us = sv->conn[t];
        cl->tables[t].query_timeout_us = sv->query[t];
        cl->tables[t].retry_count = sv->retry[t];
        for (int k = 0; k < cl->tables[t].nlines; k++)
            cl->tables[t].lines[k].strategy = sv->strat[i++];
    }
    o->strategy = -1; /* strategies are set on the lines: a table's own axis can win */
    if (p >= g->npoints)
        return; /* the baseline: the scenario as configured */
    for (int pass = 0; pass < 2; pass++) /* global axes first, then the tables' own */
        for (int a = 0; a < g->naxes; a++) {
            const sweep_axis *x = &g->ax[a];
            int64_t v = x->v[sweep_point_value(g, p, a)];
            if (pass == 0 && x->tix < 0)
                apply_global(cl, x->key, v, o);
            else if (pass == 1 && x->tix >= 0)
                apply_table(cl, x->key, x->tix, v);
        }
}

/* The strategy of every line of table t (-1 all tables), -3 if they differ. */
static int64_t own_strategy(const hk_scn *s, int t)
{
    const hk_cluster *cl = s->cl;
    int64_t st = s->strategy >= 0 ? s->strategy : -2;
    for (int i = t < 0 ? 0 : t; st != -3 && s->strategy < 0 && i < (t < 0 ? cl->ntables : t + 1);
         i++)
        for (int l = 0; l < cl->tables[i].nlines; l++) {
            int64_t v = cl->tables[i].lines[l].strategy;
            st = st == -2 || st == v ? v : -3;
        }
    return st;
}

/* The scenario's own value of axis x (a table's, or the global setting). */
static int64_t own(const hk_scn *s, const sweep_axis *x, int variant)
{
    const hk_cluster *cl = s->cl;
    const hk_table *tb = x->tix >= 0 ? &cl->tables[x->tix] : cl->ntables ? &cl->tables[0] : NULL;
    switch (x->key) {
    case SK_STRATEGY: return own_strategy(s, x->tix);
    case SK_VARIANT: return variant;
    case SK_KARMA: return hk_karma_us(&cl->set);
    case SK_PING: return cl->set.ping_us;
    case SK_RETRY: return tb && tb->retry_count >= 0 ? tb->retry_count : cl->set.retry_count;
    case SK_CONNECT: return tb ? tb->connect_timeout_us : cl->set.connect_timeout_us;
    case SK_QUERY: return tb ? tb->query_timeout_us : cl->set.query_timeout_us;
    case SK_RETRY_DELAY: return cl->set.retry_delay_us;
    default: return -1;
    }
}

long sweep_current(const sweep_grid *g, const hk_scn *s, int variant)
{
    long p = 0;
    for (int a = 0; a < g->naxes; a++) {
        int64_t mine = own(s, &g->ax[a], variant);
        int k = 0;
        while (k < g->ax[a].n && g->ax[a].v[k] != mine)
            k++;
        if (k == g->ax[a].n)
            return -1;
        p = p * g->ax[a].n + k;
    }
    return p;
}

/* v of key as a config (or the grid) says it: bare seconds for ha_period_karma, bare
 * milliseconds for the other times (both dialects read those), names for the rest. */
static void value_text(sweep_key key, int64_t v, char *buf, size_t n)
{
    switch (key) {
    case SK_STRATEGY: snprintf(buf, n, "%s", v >= 0 ? hk_strat_get((int)v)->name : "(mixed)"); break;
    case SK_VARIANT: snprintf(buf, n, "%s", hk_variant_get((int)v)->name); break;
    case SK_KARMA: snprintf(buf, n, "%lld", (long long)(v / HK_SEC)); break;
    case SK_RETRY: snprintf(buf, n, "%lld", (long long)v); break;
    default:
        if (v % 1000)
            snprintf(buf, n, "%.3f", (double)v / 1000);
        else
            snprintf(buf, n, "%lld", (long long)(v / 1000));
    }
}

static void base_label(sweep_grid *g, const hk_scn *s, int variant)
{
    size_t o = (size_t)snprintf(g->base, sizeof g->base, "as configured (");
    for (int a = 0; a < g->naxes && o < sizeof g->base; a++) {
        char v[64];
        value_text(g->ax[a].key, own(s, &g->ax[a], variant), v, sizeof v);
        o += (size_t)snprintf(g->base + o, sizeof g->base - o, "%s%s%s%s=%s", a ? " " : "",
                              g->ax[a].table, g->ax[a].table[0] ? "." : "",
                              names[g->ax[a].key], v);
    }
    if (o < sizeof g->base)
        snprintf(g->base + o, sizeof g->base - o, ")");
}

/* Which tables' own strategies a global ha_strategy axis overrides: "goods (noerrors), ...". */
static void overrides(sweep_grid *g, const hk_scn *s)
{
    size_t o = 0;
    g->overrode[0] = '\0';
    for (int a = 0; a < g->naxes; a++)
        if (g->ax[a].key == SK_STRATEGY && g->ax[a].tix < 0)
            for (int t = 0; t < s->cl->ntables && o < sizeof g->overrode; t++) {
                int per_table = 0;
                for (int b = 0; b < g->naxes; b++)
                    per_table |= g->ax[b].key == SK_STRATEGY && g->ax[b].tix == t;
                int64_t st = own_strategy(s, t);
                if (!per_table && s->cl->tables[t].nlines)
                    o += (size_t)snprintf(g->overrode + o, sizeof g->overrode - o, "%s%s (%s)",
                                          o ? ", " : "", s->cl->tables[t].name,
                                          st >= 0 ? hk_strat_get((int)st)->name : "mixed");
            }
}

int sweep_grid_bind(sweep_grid *g, const hk_scn *s, int variant, char *msg, size_t n)
{
    for (int a = 0; a < g->naxes; a++) {
        sweep_axis *x = &g->ax[a];
        if (!x->table[0])
            continue;
        const hk_table *t = hk_cluster_find_table(s->cl, x->table);
        if (!t) {
            const char *list[65];
            int k = 0;
            for (; k < s->cl->ntables && k < 64; k++)
                list[k] = s->cl->tables[k].name;
            list[k] = NULL;
            const char *near = hk_nearest(x->table, list);
            snprintf(msg, n, "%s.%s: the scenario has no distributed table '%s'%s%s%s", x->table,
                     names[x->key], x->table, near ? " (did you mean " : "", near ? near : "",
                     near ? "?)" : "");
            return -1;
        }
        x->tix = (int)(t - s->cl->tables);
    }
    g->current = sweep_current(g, s, variant);
    g->nrun = g->npoints + (g->current < 0);
    if (g->current < 0)
        g->current = g->npoints;
    base_label(g, s, variant);
    overrides(g, s);
    return 0;
}

void sweep_point_config(const sweep_grid *g, long p, char *buf, size_t n)
{
    size_t o = 0;
    buf[0] = '\0';
    if (p >= g->npoints)
        return;
    for (int pass = 0; pass < 3; pass++) /* searchd's keys, every table's, one table's */
        for (int a = 0; a < g->naxes && o < n; a++) {
            const sweep_axis *x = &g->ax[a];
            int table_key = x->key == SK_STRATEGY || x->key == SK_CONNECT || x->key == SK_QUERY;
            if (x->key == SK_VARIANT || pass != (x->table[0] ? 2 : table_key ? 1 : 0))
                continue;
            char v[64];
            value_text(x->key, x->v[sweep_point_value(g, p, a)], v, sizeof v);
            o += (size_t)snprintf(buf + o, n - o, "%s%s%s%s%s = %s", o ? "; " : "",
                                  pass == 0 ? "searchd: " : pass == 1 ? "every distributed "
                                  "table: " : "table ", pass == 2 ? x->table : "",
                                  pass == 2 ? ": " : "", names[x->key], v);
        }
}
