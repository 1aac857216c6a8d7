/* hk_cluster: distributed tables and HA settings from a parsed config. */
#include "hk_cluster.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hk_strat.h"
#include "hk_time.h"

void hk_settings_default(hk_settings *s)
{
    s->karma_s = 60;
    s->ping_us = 1000 * HK_MS;
    s->connect_timeout_us = 1000 * HK_MS;
    s->query_timeout_us = 3000 * HK_MS;
    s->retry_count = 0;
    s->retry_delay_us = 500 * HK_MS;
}

int hk_conf_time(const hk_conf *c, const hk_entry *e, int64_t unit_us, int64_t *out, hk_err *err)
{
    int bad = 0;
    const char *what = "";
    if (hk_time_parse(e->value, unit_us, out, &bad, &what) < 0)
        return hk_err_set(err, c->file, e->vline, e->vcol + bad, "%s: expected %s, got '%s'",
                          e->key, what, e->value);
    return 0;
}

int hk_conf_int(const hk_conf *c, const hk_entry *e, long long min, long long max, long long *out,
                hk_err *err)
{
    int bad = 0;
    const char *what = "";
    if (hk_int_parse(e->value, min, max, out, &bad, &what) < 0)
        return hk_err_set(err, c->file, e->vline, e->vcol + bad, "%s: expected %s (%lld..%lld), "
                          "got '%s'", e->key, what, min, max, e->value);
    return 0;
}

static int get_time(const hk_conf *c, const hk_section *s, const char *key, int64_t unit,
                    int64_t *out, hk_err *err)
{
    const hk_entry *e = hk_sec_last(s, key);
    return e ? hk_conf_time(c, e, unit, out, err) : 0;
}

static int get_int(const hk_conf *c, const hk_section *s, const char *key, int *out, hk_err *err)
{
    const hk_entry *e = hk_sec_last(s, key);
    long long v;
    if (!e)
        return 0;
    if (hk_conf_int(c, e, 0, 1000000, &v, err) < 0)
        return -1;
    *out = (int)v;
    return 0;
}

int hk_settings_apply(const hk_conf *c, hk_settings *set, hk_err *err)
{
    const hk_section *s = hk_conf_find(c, "searchd", NULL);
    if (!s)
        return 0;
    const hk_entry *bad = hk_sec_last(s, "ha_strategy");
    if (bad)
        return hk_err_set(err, c->file, bad->line, bad->col, "ha_strategy is not a searchd setting "
                          "(Manticore and Sphinx reject it as an unknown key): expected it in a "
                          "distributed table");
    int64_t karma_us = set->karma_s * HK_SEC;
    if (get_time(c, s, "ha_period_karma", HK_SEC, &karma_us, err) < 0 ||
        get_time(c, s, "ha_ping_interval", HK_MS, &set->ping_us, err) < 0 ||
        get_time(c, s, "agent_connect_timeout", HK_MS, &set->connect_timeout_us, err) < 0 ||
        get_time(c, s, "agent_query_timeout", HK_MS, &set->query_timeout_us, err) < 0 ||
        get_time(c, s, "agent_retry_delay", HK_MS, &set->retry_delay_us, err) < 0 ||
        get_int(c, s, "agent_retry_count", &set->retry_count, err) < 0)
        return -1;
    set->karma_s = karma_us / HK_SEC; /* Manticore truncates to whole seconds */
    if (set->karma_s < 1) {
        const hk_entry *e = hk_sec_last(s, "ha_period_karma");
        return hk_err_set(err, c->file, e->vline, e->vcol, "ha_period_karma: expected at least 1s "
                          "(searchd would divide by zero), got '%s'", e->value);
    }
    return 0;
}

static int find_or_add_host(hk_cluster *cl, const char *name)
{
    int h = hk_cluster_find_host(cl, name);
    if (h >= 0)
        return h;
    hk_host *p = realloc(cl->hosts, (size_t)(cl->nhosts + 1) * sizeof *p);
    if (!p)
        return -1;
    cl->hosts = p;
    memset(&p[cl->nhosts], 0, sizeof *p);
    snprintf(p[cl->nhosts].name, sizeof p->name, "%s", name);
    return cl->nhosts++;
}

static int resolve_strategy(const hk_conf *c, const char *v, int line, int col, hk_warns *w)
{
    int id = hk_strat_find(v);
    if (id < 0) {
        hk_warn_add(w, c->file, line, col, "ha_strategy (%s) is unknown for me, will use random", v);
        id = HK_STRAT_RANDOM;
    }
    return id;
}

static int add_line(hk_cluster *cl, const hk_conf *c, hk_table *t, const hk_entry *e,
                    int kind, hk_err *err, hk_warns *w)
{
    hk_line_conf *p = realloc(t->lines, (size_t)(t->nlines + 1) * sizeof *p);
    if (!p)
        return hk_err_set(err, c->file, e->line, e->col, "out of memory");
    t->lines = p;
    hk_line_conf *l = &p[t->nlines];
    memset(l, 0, sizeof *l);
    hk_pos pos = {c->file, e->vline, e->vcol};
    if (hk_agent_parse(e->value, t->name, pos, &l->a, err, w) < 0)
        return -1;
    t->nlines++;
    l->line = e->vline;
    l->col = e->vcol;
    l->a.persistent |= kind == 1;
    l->a.blackhole |= kind == 2;
    l->strategy = l->a.strategy[0]
        ? resolve_strategy(c, l->a.strategy, e->vline, l->a.strategy_col, w) : t->strategy;
    l->host = calloc((size_t)l->a.n, sizeof *l->host);
    if (!l->host)
        return hk_err_set(err, c->file, e->line, e->col, "out of memory");
    for (int i = 0; i < l->a.n; i++) {
        char name[HK_HOST_MAX + 8];
        int h = find_or_add_host(cl, hk_mirror_name(&l->a.m[i], name, sizeof name));
        if (h < 0)
            return hk_err_set(err, c->file, e->line, e->col, "out of memory");
        l->host[i] = h;
        cl->hosts[h].refs++;
        cl->hosts[h].in_ha |= l->a.n > 1;
        cl->hosts[h].in_ha_nonbh |= l->a.n > 1 && !l->a.blackhole;
    }
    return 0;
}

static int read_table_settings(const hk_conf *c, const hk_section *s, const hk_settings *set,
                               hk_table *t, hk_err *err, hk_warns *w)
{
    const hk_entry *e = hk_sec_last(s, "ha_strategy");
    t->strategy = e ? resolve_strategy(c, e->value, e->vline, e->vcol, w) : HK_STRAT_RANDOM;
    t->connect_timeout_us = set->connect_timeout_us;
    t->query_timeout_us = set->query_timeout_us;
    t->retry_count = -1;
    if (get_time(c, s, "agent_connect_timeout", HK_MS, &t->connect_timeout_us, err) < 0 ||
        get_time(c, s, "agent_query_timeout", HK_MS, &t->query_timeout_us, err) < 0 ||
        get_int(c, s, "agent_retry_count", &t->retry_count, err) < 0 ||
        get_int(c, s, "mirror_retry_count", &t->retry_count, err) < 0)
        return -1;
    int nl = hk_sec_count(s, "local");
    t->local = calloc((size_t)nl + 1, sizeof *t->local);
    if (!t->local)
        return hk_err_set(err, c->file, s->line, s->col, "out of memory");
    for (int i = 0; i < nl; i++)
        t->local[t->nlocal++] = strdup(hk_sec_get(s, "local", i)->value);
    return 0;
}

static int read_table(hk_cluster *cl, const hk_conf *c, const hk_section *s, hk_err *err,
                      hk_warns *w)
{
    hk_table *p = realloc(cl->tables, (size_t)(cl->ntables + 1) * sizeof *p);
    if (!p)
        return hk_err_set(err, c->file, s->line, s->col, "out of memory");
    cl->tables = p;
    hk_table *t = &p[cl->ntables++];
    memset(t, 0, sizeof *t);
    t->name = strdup(s->name ? s->name : "");
    t->line = s->line;
    t->col = s->col;
    if (read_table_settings(c, s, &cl->set, t, err, w) < 0)
        return -1;
    static const char *keys[] = {"agent", "agent_persistent", "agent_blackhole"};
    for (int k = 0; k < 3; k++)
        for (int i = 0; i < hk_sec_count(s, keys[k]); i++)
            if (add_line(cl, c, t, hk_sec_get(s, keys[k], i), k, err, w) < 0)
                return -1;
    if (t->nlines == 0 && t->nlocal == 0)
        return hk_err_set(err, c->file, s->line, s->col, "distributed table '%s': expected at "
                          "least one agent or local index", t->name);
    return 0;
}

int hk_cluster_from_conf(const hk_conf *c, hk_cluster **out, hk_err *err, hk_warns *w)
{
    hk_cluster *cl = calloc(1, sizeof *cl);
    if (!cl)
        return hk_err_set(err, c->file, 0, 0, "out of memory");
    hk_settings_default(&cl->set);
    if (hk_settings_apply(c, &cl->set, err) < 0)
        goto fail;
    for (int i = 0; i < c->n; i++) {
        const hk_section *s = &c->s[i];
        const hk_entry *ty = hk_conf_is_table(s) ? hk_sec_last(s, "type") : NULL;
        if (ty && !strcmp(ty->value, "distributed") && read_table(cl, c, s, err, w) < 0)
            goto fail;
    }
    *out = cl;
    return 0;
fail:
    hk_cluster_free(cl);
    return -1;
}

void hk_cluster_free(hk_cluster *cl)
{
    if (!cl)
        return;
    for (int i = 0; i < cl->ntables; i++) {
        hk_table *t = &cl->tables[i];
        for (int j = 0; j < t->nlines; j++) {
            hk_agent_line_free(&t->lines[j].a);
            free(t->lines[j].host);
        }
        for (int j = 0; j < t->nlocal; j++)
            free(t->local[j]);
        free(t->local);
        free(t->lines);
        free(t->name);
    }
    free(cl->tables);
    free(cl->hosts);
    free(cl);
}

int hk_cluster_find_host(const hk_cluster *c, const char *name)
{
    for (int i = 0; i < c->nhosts; i++)
        if (!strcmp(c->hosts[i].name, name))
            return i;
    return -1;
}

const hk_table *hk_cluster_find_table(const hk_cluster *c, const char *name)
{
    for (int i = 0; i < c->ntables; i++)
        if (!strcmp(c->tables[i].name, name))
            return &c->tables[i];
    return NULL;
}

int hk_line_attempts(const hk_cluster *c, const hk_table *t, const hk_line_conf *l, int sphinx2)
{
    if (sphinx2)
        return 1 + (c->set.retry_count < 8 ? c->set.retry_count : 8);
    if (l->a.retry_count >= 0)
        return 1 + l->a.retry_count;
    int per = t->retry_count >= 0 ? t->retry_count : c->set.retry_count;
    return 1 + per * l->a.n;
}
