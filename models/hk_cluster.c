/* hk_cluster: distributed tables and HA settings from a parsed config. */
#include "hk_cluster.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hk_grow.h"
#include "hk_keys.h"
#include "hk_strat.h"
#include "hk_time.h"

typedef struct rd {              /* one reading of a config */
    const hk_conf *c;
    hk_dialect d;
    hk_cluster *cl;
    hk_err *err;
    hk_warns *w;
} rd;

void hk_settings_default(hk_settings *s)
{
    s->karma_s = 60;
    s->ping_us = 1000 * HK_MS;
    s->connect_timeout_us = 1000 * HK_MS;
    s->query_timeout_us = 3000 * HK_MS;
    s->retry_count = 0;
    s->retry_delay_us = 500 * HK_MS;
    s->persistent_limit = 0;
}

/* Sphinx 2.2.11 reads these with atoi(): leading digits only, "2m" is 2, "3s" is 3. */
static int s2_int(rd *x, const hk_entry *e, long long max, long long *out)
{
    const char *v = e->value;
    int i = 0;
    long long n = 0;
    while (isdigit((unsigned char)v[i])) {
        if (n > max / 10)
            return hk_err_set(x->err, x->c->file, e->vline, e->vcol, "%s: expected at most "
                              "%lld, got '%s'", e->key, max, v);
        n = n * 10 + (v[i++] - '0');
    }
    if (i == 0)
        return hk_err_set(x->err, x->c->file, e->vline, e->vcol, "%s: expected an integer "
                          "(Sphinx 2.2.11 reads numbers only), got '%s'", e->key, v);
    if (v[i])
        hk_warn_add(x->w, x->c->file, e->vline, e->vcol + i, "%s: Sphinx 2.2.11 reads '%s' as "
                    "%lld (it takes no suffixes)", e->key, v, n);
    *out = n;
    return 0;
}

/* A time value in the dialect's way: Manticore's suffixes, or 2.2.11's plain integer in unit. */
static int get_time(rd *x, const hk_section *s, const char *key, int64_t unit, int64_t *out)
{
    const hk_entry *e = hk_sec_last(s, key);
    if (!e)
        return 0;
    if (x->d == HK_DIALECT_MANTICORE)
        return hk_conf_time(x->c, e, unit, out, x->err);
    long long n;
    if (s2_int(x, e, HK_TIME_MAX_US / unit, &n) < 0)
        return -1;
    *out = n * unit;
    return 0;
}

static int get_int(rd *x, const hk_section *s, const char *key, int *out)
{
    const hk_entry *e = hk_sec_last(s, key);
    long long v;
    if (!e)
        return 0;
    if (x->d == HK_DIALECT_SPHINX2 ? s2_int(x, e, 1000000, &v) < 0
                                   : hk_conf_int(x->c, e, -1000000, 1000000, &v, x->err) < 0)
        return -1;
    *out = (int)v;
    return 0;
}

/* Unknown keys of a checked section: a warning with the nearest known key; a value holding
 * ';' is read to the end of its line, as searchd reads it. */
static void check_keys(rd *x, const hk_section *s)
{
    const char *const *keys = hk_keys_of(s->type);
    for (int i = 0; keys && i < s->n; i++) {
        const hk_entry *e = &s->e[i];
        if (!hk_word_in(e->key, keys)) {
            const char *near = hk_nearest(e->key, keys);
            hk_warn_add(x->w, x->c->file, e->line, e->col, "unknown key '%s' in %s section%s%s%s "
                        "(searchd refuses unknown keys; hakarma ignores it)", e->key, s->type,
                        near ? ": did you mean '" : "", near ? near : "", near ? "'?" : "");
        }
        const char *semi = strchr(e->value, ';');
        if (semi)
            hk_warn_add(x->w, x->c->file, e->vline, e->vcol + (int)(semi - e->value),
                        "'%s' holds ';': searchd reads the rest of the line into its value "
                        "(one directive per line)", e->key);
    }
}

int hk_settings_apply(const hk_conf *c, hk_dialect d, hk_settings *set, hk_err *err,
                      hk_warns *w)
{
    rd x = {.c = c, .d = d, .err = err, .w = w};
    const hk_section *s = hk_conf_find(c, "searchd", NULL);
    if (!s)
        return 0;
    const hk_entry *bad = hk_sec_last(s, "ha_strategy");
    if (bad)
        return hk_err_set(err, c->file, bad->line, bad->col, "ha_strategy is not a searchd setting "
                          "(Manticore and Sphinx reject it as an unknown key): expected it in a "
                          "distributed table");
    int64_t karma_us = hk_karma_us(set);
    int limit = set->persistent_limit;
    if (get_time(&x, s, "ha_period_karma", HK_SEC, &karma_us) < 0 ||
        get_time(&x, s, "ha_ping_interval", HK_MS, &set->ping_us) < 0 ||
        get_time(&x, s, "agent_connect_timeout", HK_MS, &set->connect_timeout_us) < 0 ||
        get_time(&x, s, "agent_query_timeout", HK_MS, &set->query_timeout_us) < 0 ||
        get_time(&x, s, "agent_retry_delay", HK_MS, &set->retry_delay_us) < 0 ||
        get_int(&x, s, "agent_retry_count", &set->retry_count) < 0 ||
        get_int(&x, s, "persistent_connections_limit", &limit) < 0)
        return -1;
    set->persistent_limit = limit;
    set->karma_s = karma_us / HK_SEC; /* Manticore truncates to whole seconds */
    if (set->karma_s < 1) {
        const hk_entry *e = hk_sec_last(s, "ha_period_karma");
        return hk_err_set(err, c->file, e->vline, e->vcol, "ha_period_karma: expected at least 1s "
                          "(searchd would divide by zero), got '%s'", e->value);
    }
    if (set->retry_count < 0)
        set->retry_count = 0;
    return 0;
}

/* ---- hosts ------------------------------------------------------------ */

static uint64_t hash_of(const char *s)
{
    uint64_t h = 1469598103934665603ULL;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return h;
}

static int rehash(hk_cluster *cl)
{
    int cap = cl->hashcap ? cl->hashcap * 2 : 64;
    int *t = malloc((size_t)cap * sizeof *t);
    if (!t)
        return -1;
    for (int i = 0; i < cap; i++)
        t[i] = -1;
    for (int h = 0; h < cl->nhosts; h++) {
        size_t k = hash_of(cl->hosts[h].name) & (size_t)(cap - 1);
        while (t[k] >= 0)
            k = (k + 1) & (size_t)(cap - 1);
        t[k] = h;
    }
    free(cl->hash);
    cl->hash = t;
    cl->hashcap = cap;
    return 0;
}

int hk_cluster_find_host(const hk_cluster *c, const char *name)
{
    if (!c->hashcap)
        return -1;
    for (size_t k = hash_of(name) & (size_t)(c->hashcap - 1);; k = (k + 1) & (size_t)(c->hashcap - 1))
        if (c->hash[k] < 0 || !strcmp(c->hosts[c->hash[k]].name, name))
            return c->hash[k];
}

/* -1: out of memory; -2: too many hosts. */
static int find_or_add_host(hk_cluster *cl, const char *name)
{
    int h = hk_cluster_find_host(cl, name);
    if (h >= 0)
        return h;
    if (cl->nhosts >= HK_HOSTS_MAX)
        return -2;
    if ((cl->nhosts + 1) * 2 > cl->hashcap && rehash(cl) < 0)
        return -1;
    if (HK_GROW(cl->hosts, cl->hcap, cl->nhosts + 1) < 0)
        return -1;
    hk_host *p = &cl->hosts[cl->nhosts];
    memset(p, 0, sizeof *p);
    if (!(p->name = strdup(name)))
        return -1;
    size_t k = hash_of(name) & (size_t)(cl->hashcap - 1);
    while (cl->hash[k] >= 0)
        k = (k + 1) & (size_t)(cl->hashcap - 1);
    cl->hash[k] = cl->nhosts;
    return cl->nhosts++;
}

/* ---- tables ----------------------------------------------------------- */

static int resolve_strategy(rd *x, const char *v, int line, int col)
{
    int id = hk_strat_find(v);
    if (id < 0) {
        hk_warn_add(x->w, x->c->file, line, col, "ha_strategy (%s) is unknown for me, will use "
                    "random", v);
        return HK_STRAT_RANDOM;
    }
    if (strcmp(v, hk_strat_get(id)->name))
        hk_warn_add(x->w, x->c->file, line, col, "ha_strategy '%s' is read as '%s' (searchd "
                    "matches the name's prefix)", v, hk_strat_get(id)->name);
    return id;
}

/* The table is not served: keep it aside with searchd's reason (a copy of *why). */
static int refuse(rd *x, hk_table *t, const hk_err *why)
{
    if (HK_GROW(x->cl->refused, x->cl->rcap, x->cl->nrefused + 1) < 0)
        return hk_err_set(x->err, x->c->file, t->line, t->col, "out of memory");
    hk_refused *r = x->cl->refused;
    r[x->cl->nrefused].name = t->name;
    r[x->cl->nrefused].why = *why;
    x->cl->nrefused++;
    t->name = NULL;
    hk_warn_add(x->w, why->file, why->line, why->col, "table '%s' is not served (%s refuses "
                "it): %s", r[x->cl->nrefused - 1].name, x->d == HK_DIALECT_SPHINX2 ?
                "Sphinx 2.2.11" : "Manticore", why->msg);
    return 1;
}

static int link_hosts(rd *x, hk_line_conf *l)
{
    l->host = calloc((size_t)l->a.n + 1, sizeof *l->host);
    if (!l->host)
        return hk_err_set(x->err, x->c->file, l->line, l->col, "out of memory");
    for (int i = 0; i < l->a.n; i++) {
        char name[HK_HOST_MAX + 16];
        int h = find_or_add_host(x->cl, hk_mirror_name(&l->a.m[i], name, sizeof name));
        if (h < 0)
            return hk_err_set(x->err, x->c->file, l->line, l->a.m[i].col, h == -2 ? "at most "
                              "%d distinct mirror hosts in one config" : "out of memory",
                              HK_HOSTS_MAX);
        l->host[i] = h;
        if (!x->cl->hosts[h].refs) {
            x->cl->hosts[h].line = l->line;
            x->cl->hosts[h].col = l->a.m[i].col;
        }
        x->cl->hosts[h].refs++;
        x->cl->hosts[h].in_ha |= l->a.n > 1;
        x->cl->hosts[h].in_ha_nonbh |= l->a.n > 1 && !l->a.blackhole;
    }
    return 0;
}

static hk_line_conf *new_line(hk_table *t)
{
    if (HK_GROW(t->lines, t->cap, t->nlines + 1) < 0)
        return NULL;
    hk_line_conf *l = &t->lines[t->nlines];
    memset(l, 0, sizeof *l);
    return l;
}

/* An agent value searchd does not serve, kept so that a scenario's mirror section naming one
 * of its hosts is a warning, not an error. */
static int keep_skipped(rd *x, const char *value)
{
    if (HK_GROW(x->cl->skipped, x->cl->scap, x->cl->nskipped + 1) < 0 ||
        !(x->cl->skipped[x->cl->nskipped] = strdup(value)))
        return hk_err_set(x->err, x->c->file, 0, 0, "out of memory");
    x->cl->nskipped++;
    return 0;
}

/* 0 added, 1 line skipped (2.2.11) or table refused (Manticore; *refused set), -1 error. */
static int add_line(rd *x, hk_table *t, const hk_entry *e, int kind, int *refused)
{
    hk_line_conf *l = new_line(t);
    if (!l)
        return hk_err_set(x->err, x->c->file, e->line, e->col, "out of memory");
    hk_pos pos = {x->c->file, e->vline, e->vcol};
    hk_err why;
    if (x->d == HK_DIALECT_SPHINX2) {
        int rc = hk_agent_parse_sphinx2(e->value, pos, &l->a, &why, x->w);
        if (rc < 0)
            return hk_err_set(x->err, x->c->file, e->line, e->col, "out of memory");
        if (rc > 0) {
            hk_warn_add(x->w, why.file, why.line, why.col, "index '%s': agent '%s': %s", t->name,
                        e->value, why.msg);
            return keep_skipped(x, e->value) < 0 ? -1 : 1;
        }
    } else if (hk_agent_parse(e->value, t->name, pos, &l->a, &why, x->w) < 0) {
        *refused = 1;
        return refuse(x, t, &why);
    }
    t->nlines++;
    l->line = e->vline;
    l->col = e->vcol;
    int pool = x->cl->set.persistent_limit > 0;
    if ((kind == 1 || l->a.persistent) && !pool)
        hk_warn_add(x->w, x->c->file, e->line, e->col, "table '%s': persistent agent used, but no "
                    "persistent_connections_limit defined: searchd falls back to a connection "
                    "per query", t->name);
    l->a.persistent = (l->a.persistent || kind == 1) && pool;
    l->a.blackhole |= kind == 2;
    l->strategy = l->a.strategy[0] ? resolve_strategy(x, l->a.strategy, e->vline,
                                                      l->a.strategy_col) : t->strategy;
    return 0;
}

/* agent_retry_count / mirror_retry_count of a table: Manticore ignores values <= 0 (warning)
 * and lets mirror_retry_count win; Sphinx 2.2.11 has no per-table retry count. */
static int table_retries(rd *x, const hk_section *s, hk_table *t)
{
    static const char *keys[2] = {"agent_retry_count", "mirror_retry_count"};
    t->retry_count = -1;
    for (int k = 0; k < 2; k++) {
        const hk_entry *e = hk_sec_last(s, keys[k]);
        long long v;
        if (!e)
            continue;
        if (x->d == HK_DIALECT_SPHINX2) {
            hk_warn_add(x->w, x->c->file, e->line, e->col, "%s is not a Sphinx 2.2.11 index "
                        "setting: ignored (retries come from searchd's agent_retry_count)",
                        keys[k]);
            continue;
        }
        if (hk_conf_int(x->c, e, -1000000, 1000000, &v, x->err) < 0)
            return -1;
        if (v <= 0)
            hk_warn_add(x->w, x->c->file, e->vline, e->vcol, "table '%s': %s must be positive, "
                        "ignored", t->name, keys[k]);
        else
            t->retry_count = (int)v;
    }
    return 0;
}

static int table_timeouts(rd *x, const hk_section *s, hk_table *t)
{
    static const char *keys[2] = {"agent_connect_timeout", "agent_query_timeout"};
    int64_t *dst[2] = {&t->connect_timeout_us, &t->query_timeout_us};
    *dst[0] = x->cl->set.connect_timeout_us;
    *dst[1] = x->cl->set.query_timeout_us;
    for (int k = 0; k < 2; k++) {
        const hk_entry *e = hk_sec_last(s, keys[k]);
        int64_t v = *dst[k];
        if (!e) /* not set in the table: the global value stands, whatever it is */
            continue;
        if (get_time(x, s, keys[k], HK_MS, &v) < 0)
            return -1;
        if (v <= 0)
            hk_warn_add(x->w, x->c->file, e->vline, e->vcol, "table '%s': %s must be positive, "
                        "ignored", t->name, keys[k]);
        else
            *dst[k] = v;
    }
    return 0;
}

/* local = a, b: each must be a table of the config (Manticore refuses the distributed table
 * otherwise; Sphinx 2.2.11 skips that local). 1 = refused. */
static int table_locals(rd *x, const hk_section *s, hk_table *t)
{
    const hk_section *o = hk_sec_owner(s, "local");
    int n = 0;
    for (int j = 0; o && j < o->n; j++)
        n += !strcmp(o->e[j].key, "local") ? (int)strlen(o->e[j].value) / 2 + 1 : 0;
    t->local = calloc((size_t)n + 1, sizeof *t->local);
    if (!t->local)
        return hk_err_set(x->err, x->c->file, s->line, s->col, "out of memory");
    for (int j = 0; o && j < o->n; j++) {
        const hk_entry *e = &o->e[j];
        if (strcmp(e->key, "local"))
            continue;
        for (const char *p = e->value; *p;) {
            size_t k = strcspn(p, " \t,");
            if (k) {
                char *name = strndup(p, k);
                if (!name)
                    return hk_err_set(x->err, x->c->file, e->line, e->col, "out of memory");
                if (hk_conf_find(x->c, "index", name)) {
                    t->local[t->nlocal++] = name;
                } else {
                    hk_err why;
                    hk_err_set(&why, x->c->file, e->vline, e->vcol + (int)(p - e->value),
                               "no such local table '%s'", name);
                    free(name);
                    if (x->d == HK_DIALECT_MANTICORE)
                        return refuse(x, t, &why);
                    hk_warn_add(x->w, why.file, why.line, why.col, "index '%s': %s, SKIPPED",
                                t->name, why.msg);
                }
            }
            p += k + strspn(p + k, " \t,");
        }
    }
    return 0;
}

static hk_table *new_table(hk_cluster *cl)
{
    if (HK_GROW(cl->tables, cl->tcap, cl->ntables + 1) < 0)
        return NULL;
    hk_table *t = &cl->tables[cl->ntables];
    memset(t, 0, sizeof *t);
    return t;
}

static void table_free(hk_table *t)
{
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

static const char *agent_keys[] = {"agent", "agent_persistent", "agent_blackhole"};

static int read_agents(rd *x, const hk_section *s, hk_table *t)
{
    int refused = 0;
    for (int k = 0; k < 3 && !refused; k++) {
        const hk_section *o = hk_sec_owner(s, agent_keys[k]);
        for (int j = 0; o && j < o->n && !refused; j++)
            if (!strcmp(o->e[j].key, agent_keys[k]) && add_line(x, t, &o->e[j], k, &refused) < 0)
                return -1;
    }
    return refused;
}

/* A refused table's agent values are not served either. */
static int keep_table_skipped(rd *x, const hk_section *s)
{
    for (int k = 0; k < 3; k++) {
        const hk_section *o = hk_sec_owner(s, agent_keys[k]);
        for (int j = 0; o && j < o->n; j++)
            if (!strcmp(o->e[j].key, agent_keys[k]) && keep_skipped(x, o->e[j].value) < 0)
                return -1;
    }
    return 0;
}

static int read_table(rd *x, const hk_section *s)
{
    hk_table *t = new_table(x->cl);
    if (!t || !(t->name = strdup(s->name ? s->name : "")))
        return hk_err_set(x->err, x->c->file, s->line, s->col, "out of memory");
    t->line = s->line;
    t->col = s->col;
    const hk_entry *e = hk_sec_last(s, "ha_strategy");
    t->strategy = e ? resolve_strategy(x, e->value, e->vline, e->vcol) : HK_STRAT_RANDOM;
    int rc = table_timeouts(x, s, t);
    if (rc == 0)
        rc = table_retries(x, s, t);
    if (rc == 0)
        rc = table_locals(x, s, t);
    if (rc == 0)
        rc = read_agents(x, s, t);
    if (rc == 0 && t->nlines == 0 && t->nlocal == 0) {
        hk_err why;
        hk_err_set(&why, x->c->file, s->line, s->col, "no valid local or remote tables in the "
                   "distributed table '%s': expected at least one agent or local table", t->name);
        rc = refuse(x, t, &why);
    }
    if (rc == 0 && e) {
        int ha = 0;
        for (int k = 0; k < t->nlines; k++)
            ha |= t->lines[k].a.n > 1;
        if (!ha)
            hk_warn_add(x->w, x->c->file, e->line, e->col, "table '%s': ha_strategy defined, "
                        "but no ha agents in the table", t->name);
    }
    if (rc > 0 && keep_table_skipped(x, s) < 0)
        rc = -1;
    for (int k = 0; rc == 0 && k < t->nlines; k++)
        rc = link_hosts(x, &t->lines[k]);
    if (rc != 0) { /* refused (1) or an error (-1): the table is not kept */
        table_free(t);
        return rc < 0 ? -1 : 0;
    }
    x->cl->ntables++;
    return 0;
}

int hk_cluster_from_conf(const hk_conf *c, const hk_conf *over, hk_dialect d, hk_cluster **out,
                         hk_err *err, hk_warns *w)
{
    *out = NULL;
    hk_cluster *cl = calloc(1, sizeof *cl);
    if (!cl)
        return hk_err_set(err, c->file, 0, 0, "out of memory");
    cl->dialect = d;
    rd x = {.c = c, .d = d, .cl = cl, .err = err, .w = w};
    hk_settings_default(&cl->set);
    if (hk_settings_apply(c, d, &cl->set, err, w) < 0 ||
        (over && over != c && hk_settings_apply(over, d, &cl->set, err, w) < 0))
        goto fail;
    for (int i = 0; i < c->n; i++) {
        const hk_section *s = &c->s[i];
        check_keys(&x, s);
        const hk_entry *ty = hk_conf_is_table(s) ? hk_sec_last(s, "type") : NULL;
        if (ty && !strcmp(ty->value, "distributed") && read_table(&x, s) < 0)
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
    for (int i = 0; i < cl->ntables; i++)
        table_free(&cl->tables[i]);
    for (int i = 0; i < cl->nrefused; i++)
        free(cl->refused[i].name);
    for (int h = 0; h < cl->nhosts; h++)
        free(cl->hosts[h].name);
    for (int i = 0; i < cl->nskipped; i++)
        free(cl->skipped[i]);
    free(cl->skipped);
    free(cl->refused);
    free(cl->tables);
    free(cl->hosts);
    free(cl->hash);
    free(cl);
}

const hk_table *hk_cluster_find_table(const hk_cluster *c, const char *name)
{
    for (int i = 0; i < c->ntables; i++)
        if (!strcmp(c->tables[i].name, name))
            return &c->tables[i];
    return NULL;
}

const hk_refused *hk_cluster_find_refused(const hk_cluster *c, const char *name)
{
    for (int i = 0; i < c->nrefused; i++)
        if (!strcmp(c->refused[i].name, name))
            return &c->refused[i];
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
