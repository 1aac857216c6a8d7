/* hk_scn: scenario sections on top of a cluster config (faults: hk_fault.c). */
#include "hk_scn.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hk_keys.h"
#include "hk_pool.h"
#include "hk_ports.h"
#include "hk_strat.h"
#include "hk_time.h"
#include "hk_variant.h"

typedef struct ctx {
    const hk_conf *c;
    hk_scn *s;
    hk_err *err;
    hk_warns *w;
} ctx;

static const char *const scn_sections[] = {"source", "index", "table", "indexer", "searchd",
                                           "common", "mirror", "fault", "workload", "sim",
                                           "expect", "input", NULL};

/* Every key of sec is one of keys; else an error naming the nearest. */
static int keys_known(ctx *x, const hk_section *sec, const char *const *keys, const char *list)
{
    for (int i = 0; i < sec->n; i++) {
        if (hk_word_in(sec->e[i].key, keys))
            continue;
        const char *near = hk_nearest(sec->e[i].key, keys);
        return hk_err_set(x->err, x->c->file, sec->e[i].line, sec->e[i].col, "unknown key '%s' "
                          "in %s section%s%s%s: expected %s", sec->e[i].key, sec->type,
                          near ? " (did you mean '" : "", near ? near : "", near ? "'?)" : "",
                          list);
    }
    return 0;
}

static int get_dist(ctx *x, const hk_entry *e, hk_dist **out)
{
    int bad = 0;
    char what[160];
    if (hk_dist_parse(e->value, out, &bad, what, sizeof what) < 0)
        return hk_err_set(x->err, x->c->file, e->vline, e->vcol + bad, "%s: expected %s",
                          e->key, what);
    return 0;
}

static int get_prob(ctx *x, const hk_entry *e, double *out)
{
    int bad;
    const char *what;
    if (hk_real_parse(e->value, 0, 1, out, &bad, &what) < 0)
        return hk_err_set(x->err, x->c->file, e->vline, e->vcol + bad,
                          "%s: expected a probability between 0 and 1, got '%s'", e->key,
                          e->value);
    return 0;
}

/* ---- mirrors ---------------------------------------------------------- */

static int read_behave(ctx *x, const hk_section *sec, hk_behave *b)
{
    static const char *const keys[] = {"rtt", "service", "threads", "errors", "warnings",
                                       "refuse", NULL};
    if (keys_known(x, sec, keys, "rtt, service, threads, errors, warnings or refuse") < 0)
        return -1;
    snprintf(b->name, sizeof b->name, "%s", sec->name ? sec->name : "default");
    b->line = sec->line;
    const hk_entry *e;
    if ((e = hk_sec_last(sec, "service")) == NULL)
        return hk_err_set(x->err, x->c->file, sec->line, sec->col, "mirror %s: expected a "
                          "'service = DIST' key (time to execute one query)", b->name);
    if (get_dist(x, e, &b->service) < 0)
        return -1;
    if ((e = hk_sec_last(sec, "rtt")) && get_dist(x, e, &b->rtt) < 0)
        return -1;
    if (!b->rtt) {
        int bad;
        char w[8];
        hk_dist_parse("constant(0)", &b->rtt, &bad, w, sizeof w);
    }
    long long v = 0;
    if ((e = hk_sec_last(sec, "threads")) && hk_conf_int(x->c, e, 0, 100000, &v, x->err) < 0)
        return -1;
    b->threads = (int)v;
    if (((e = hk_sec_last(sec, "errors")) && get_prob(x, e, &b->errors) < 0) ||
        ((e = hk_sec_last(sec, "warnings")) && get_prob(x, e, &b->warnings) < 0) ||
        ((e = hk_sec_last(sec, "refuse")) && get_prob(x, e, &b->refuse) < 0))
        return -1;
    return 0;
}

/* The host a mirror/fault section names: its index; -1 error; -2 a host of an agent line
 * searchd does not serve (a warning: the section is ignored). */
static int host_of(ctx *x, const hk_section *sec)
{
    const hk_cluster *cl = x->s->cl;
    const char *name = sec->name ? sec->name : "";
    int h = hk_cluster_find_host(cl, name);
    if (h >= 0)
        return h;
    for (int i = 0; *name && i < cl->nskipped; i++)
        if (strstr(cl->skipped[i], name)) {
            hk_warn_add(x->w, x->c->file, sec->line, sec->col, "%s %s: its agent line is not "
                        "served (see the warning above): section ignored", sec->type, name);
            return -2;
        }
    const char *near = NULL;
    if (cl->nhosts > 0 && cl->nhosts <= 4096) {
        const char **names = calloc((size_t)cl->nhosts + 1, sizeof *names);
        for (int k = 0; names && k < cl->nhosts; k++)
            names[k] = cl->hosts[k].name;
        near = names ? hk_nearest(name, names) : NULL;
        free(names);
    }
    hk_err_set(x->err, x->c->file, sec->line, sec->col, "%s '%s': expected host:port of a "
               "mirror in an agent line%s%s%s", sec->type, name,
               near ? " (did you mean '" : cl->nhosts ? ", e.g. " : "",
               near ? near : cl->nhosts ? cl->hosts[0].name : "", near ? "'?)" : "");
    return -1;
}

static int read_mirrors(ctx *x)
{
    hk_scn *s = x->s;
    int def = -1;
    for (int i = 0; i < x->c->n; i++) {
        const hk_section *sec = &x->c->s[i];
        if (strcmp(sec->type, "mirror"))
            continue;
        int h = sec->name && strcmp(sec->name, "default") ? host_of(x, sec) : -3;
        if (h == -1)
            return -1;
        hk_behave *b = &s->behave[s->nbehave++];
        if (read_behave(x, sec, b) < 0)
            return -1;
        if (h == -3)
            def = s->nbehave - 1;
        else if (h >= 0)
            s->host_behave[h] = s->nbehave - 1;
    }
    for (int h = 0; h < s->cl->nhosts; h++)
        if (s->host_behave[h] < 0)
            s->host_behave[h] = def;
    return 0;
}

int hk_scn_behaviour_of(const hk_scn *s, int h, hk_err *err)
{
    const hk_host *x = &s->cl->hosts[h];
    if (s->host_behave[h] >= 0)
        return 0;
    return hk_err_set(err, s->file, x->line, x->col,
                      "mirror %s has no behaviour: expected a 'mirror %s { service = ... }' or "
                      "'mirror default { ... }' section (hasim init writes them from a SHOW "
                      "AGENT STATUS)", x->name, x->name);
}

int hk_scn_check_behaviour(const hk_scn *s, hk_err *err)
{
    for (int h = 0; h < s->cl->nhosts; h++)
        if (hk_scn_behaviour_of(s, h, err) < 0)
            return -1;
    return 0;
}

static int read_faults(ctx *x)
{
    for (int i = 0; i < x->c->n; i++) {
        const hk_section *sec = &x->c->s[i];
        if (strcmp(sec->type, "fault"))
            continue;
        int h = host_of(x, sec);
        if (h == -1)
            return -1;
        if (h < 0)
            continue;
        hk_fault *f = &x->s->faults[x->s->nfaults];
        if (hk_fault_read(x->c, sec, h, f, x->err) < 0)
            return -1;
        if (f->at_us >= x->s->wl.duration_us)
            return hk_err_set(x->err, x->c->file, sec->line, sec->col, "fault %s at %.3f s: "
                              "expected a start within the run (duration %.3f s)", sec->name,
                              (double)f->at_us / 1e6, (double)x->s->wl.duration_us / 1e6);
        x->s->nfaults++;
    }
    return 0;
}

/* ---- workload --------------------------------------------------------- */

static int read_table(ctx *x, const hk_section *sec)
{
    hk_workload *w = &x->s->wl;
    const hk_entry *e = hk_sec_last(sec, "table");
    if (!e)
        return 0;
    w->table_set = 1;
    const hk_table *t = hk_cluster_find_table(x->s->cl, e->value);
    const hk_refused *r = t ? NULL : hk_cluster_find_refused(x->s->cl, e->value);
    if (r) {
        char pre[200];
        snprintf(pre, sizeof pre, "table '%.120s' (the workload's) is not served: ", r->name);
        *x->err = r->why;
        hk_err_prefix(x->err, pre);
        return -1;
    }
    if (!t && strcmp(e->value, "all"))
        return hk_err_set(x->err, x->c->file, e->vline, e->vcol, "table: expected a "
                          "distributed table of this scenario or 'all', got '%s'", e->value);
    w->table = t ? (int)(t - x->s->cl->tables) : -1;
    return 0;
}

/* table_map = LOGNAME=CONFIGNAME, ...: a trace's table names onto the config's. */
static int read_tmap(ctx *x, const hk_section *sec)
{
    const hk_entry *e = hk_sec_last(sec, "table_map");
    hk_workload *w = &x->s->wl;
    for (const char *p = e ? e->value : ""; *p;) {
        p += strspn(p, " \t,");
        size_t k = strcspn(p, " \t,");
        if (!k)
            break;
        const char *eq = memchr(p, '=', k);
        int col = e->vcol + (int)(p - e->value);
        if (!eq || eq == p || eq + 1 == p + k || (size_t)(eq - p) >= 128 ||
            (size_t)(p + k - eq - 1) >= 128 || w->ntmap == HK_TMAP_MAX)
            return hk_err_set(x->err, x->c->file, e->vline, col, "table_map: expected up to %d "
                              "pairs LOGNAME=TABLE (names under 128 characters)", HK_TMAP_MAX);
        snprintf(w->tmap[w->ntmap][0], 128, "%.*s", (int)(eq - p), p);
        snprintf(w->tmap[w->ntmap][1], 128, "%.*s", (int)(p + k - eq - 1), eq + 1);
        if (!hk_cluster_find_table(x->s->cl, w->tmap[w->ntmap][1]))
            return hk_err_set(x->err, x->c->file, e->vline, col + (int)(eq - p) + 1, "table_map: "
                              "expected a distributed table of the config, got '%s'",
                              w->tmap[w->ntmap][1]);
        w->ntmap++;
        p += k;
    }
    return 0;
}

static int read_load(ctx *x, const hk_section *sec)
{
    hk_workload *w = &x->s->wl;
    const hk_entry *e = hk_sec_last(sec, "arrivals"), *c = hk_sec_last(sec, "clients");
    if (e && c)
        return hk_err_set(x->err, x->c->file, c->line, c->col, "workload: expected either "
                          "'arrivals' (open loop) or 'clients' (closed loop), not both");
    if (!e && !c)
        return hk_err_set(x->err, x->c->file, sec->line, sec->col, "workload: expected "
                          "'arrivals = poisson(200/s)' (or constant, onoff, diurnal, trace), or "
                          "'clients = N' with 'think = DIST'");
    if (c) {
        long long n;
        if (hk_conf_int(x->c, c, 1, HK_CLIENTS_MAX, &n, x->err) < 0)
            return -1;
        w->clients = (int)n;
        const hk_entry *t = hk_sec_last(sec, "think");
        return get_dist(x, t ? t : &(hk_entry){.key = "think", .value = "0", .line = c->line,
                                               .col = c->col, .vline = c->vline, .vcol = c->vcol},
                        &w->think);
    }
    if (hk_sec_last(sec, "think")) {
        const hk_entry *t = hk_sec_last(sec, "think");
        return hk_err_set(x->err, x->c->file, t->line, t->col, "think: expected only with "
                          "'clients = N' (closed loop)");
    }
    int bad;
    char what[200];
    if (hk_arrivals_parse(e->value, &w->arr, &bad, what, sizeof what) < 0)
        return hk_err_set(x->err, x->c->file, e->vline, e->vcol + bad, "arrivals: expected %s",
                          what);
    return 0;
}

static int no_tables(ctx *x)
{
    const hk_cluster *cl = x->s->cl;
    if (cl->nrefused) { /* every table refused: the first reason, where it is */
        char pre[200];
        snprintf(pre, sizeof pre, "no distributed table is served; table '%.120s': ",
                 cl->refused[0].name);
        *x->err = cl->refused[0].why;
        hk_err_prefix(x->err, pre);
        return -1;
    }
    return hk_err_set(x->err, x->c->file, 1, 1, "expected at least one table with "
                      "'type = distributed' and agents");
}

static int read_workload(ctx *x)
{
    hk_workload *w = &x->s->wl;
    w->masters = 1;
    w->table = x->s->cl->ntables > 0 ? 0 : -1;
    w->duration_us = 60 * HK_SEC;
    if (x->s->cl->ntables == 0)
        return no_tables(x);
    const hk_section *sec = hk_conf_find(x->c, "workload", NULL);
    if (!sec)
        return hk_err_set(x->err, x->c->file, 1, 1, "expected a 'workload { arrivals = "
                          "poisson(100/s) duration = 10m }' section");
    static const char *const keys[] = {"arrivals", "clients", "think", "duration", "masters",
                                       "table", "table_map", NULL};
    if (keys_known(x, sec, keys, "arrivals, clients, think, duration, masters, table or "
                   "table_map") < 0 || read_load(x, sec) < 0)
        return -1;
    const hk_entry *e;
    if ((e = hk_sec_last(sec, "duration")) &&
        hk_conf_time(x->c, e, HK_SEC, &w->duration_us, x->err) < 0)
        return -1;
    if (e && w->duration_us <= 0)
        return hk_err_set(x->err, x->c->file, e->vline, e->vcol,
                          "duration: expected a positive time");
    long long m = 1;
    if ((e = hk_sec_last(sec, "masters")) && hk_conf_int(x->c, e, 1, 1024, &m, x->err) < 0)
        return -1;
    w->masters = (int)m;
    return read_table(x, sec) < 0 || read_tmap(x, sec) < 0 ? -1 : 0;
}

/* ---- sim -------------------------------------------------------------- */

/* A time of the sim section: epoch seconds or ISO 8601 (UTC), or 'trace' where allowed. */
static int read_epoch(ctx *x, const hk_entry *e, int trace_ok, int64_t *us)
{
    int bad;
    const char *what;
    long long v;
    if (trace_ok && !strcmp(e->value, "trace")) {
        *us = HK_START_TRACE;
        return 0;
    }
    if (hk_int_parse(e->value, 0, 7258118400LL, &v, &bad, &what) == 0) { /* epoch seconds */
        *us = v * HK_SEC;
        return 0;
    }
    if (hk_iso_parse(e->value, us, &bad, &what) == 0)
        return 0;
    return hk_err_set(x->err, x->c->file, e->vline, e->vcol + bad, "%s: expected %s, epoch "
                      "seconds%s, got '%s'", e->key, what, trace_ok ? ", or 'trace'" : "",
                      e->value);
}

/* sim {}'s connection keys: the persistent pool's rule and the ports a master has. */
static int read_conn(ctx *x, const hk_section *sec)
{
    hk_scn *s = x->s;
    const hk_entry *e;
    long long v;
    if ((e = hk_sec_last(sec, "pool")) && (s->pool_rule = hk_pool_rule_find(e->value)) < 0)
        return hk_err_set(x->err, x->c->file, e->vline, e->vcol, "pool: expected stack (Sphinx "
                          "2.2.11), ring (Manticore) or ring-stuck (Manticore before 14.6.3), "
                          "got '%s'", e->value);
    if ((e = hk_sec_last(sec, "pool_close_on_fatal"))) {
        if (hk_conf_int(x->c, e, 0, 1, &v, x->err) < 0)
            return -1;
        s->pool_close_on_fatal = (int)v;
        int rule = s->pool_rule >= 0 ? s->pool_rule : (int)hk_pool_rule_of(s->variant);
        if (v && rule != HK_POOL_RING)
            return hk_err_set(x->err, x->c->file, e->vline, e->vcol, "pool_close_on_fatal: "
                              "Manticore's (PR #4748), for pool = ring; this run's pool is %s",
                              hk_pool_rule_name((hk_pool_rule)rule));
    }
    if ((e = hk_sec_last(sec, "ports"))) {
        if (hk_conf_int(x->c, e, 1, 65535, &v, x->err) < 0)
            return -1;
        s->ports = (int)v;
    }
    int64_t us;
    if ((e = hk_sec_last(sec, "time_wait"))) {
        if (hk_conf_time(x->c, e, 1000000, &us, x->err) < 0)
            return -1;
        if (us < 1000000 || us > (int64_t)HK_TIME_WAIT_MAX_S * 1000000)
            return hk_err_set(x->err, x->c->file, e->vline, e->vcol, "time_wait: expected 1s to "
                              "%ds, got '%s'", HK_TIME_WAIT_MAX_S, e->value);
        s->time_wait_s = (int)(us / 1000000);
    }
    if ((e = hk_sec_last(sec, "time_wait_share")) && get_prob(x, e, &s->time_wait_share) < 0)
        return -1;
    return 0;
}

static int read_sim(ctx *x)
{
    hk_scn *s = x->s;
    s->pool_rule = -1;
    s->ports = HK_PORTS_LINUX;
    s->time_wait_s = HK_TIME_WAIT_LINUX_S;
    s->time_wait_share = HK_TIME_WAIT_SHARE;
    s->seed = 1;
    s->replications = 1;
    s->variant = HK_VAR_MANTICORE;
    s->strategy = -1;
    s->start_us = 0;
    const hk_section *sec = hk_conf_find(x->c, "sim", NULL);
    if (!sec)
        return 0;
    static const char *const keys[] = {"seed", "replications", "variant", "strategy", "config",
                                       "start", "started", "pool", "pool_close_on_fatal", "ports",
                                       "time_wait", "time_wait_share", NULL};
    if (keys_known(x, sec, keys, "seed, replications, variant, strategy, config, start, "
                   "started, pool, pool_close_on_fatal, ports, time_wait or time_wait_share") < 0)
        return -1;
    const hk_entry *e;
    long long v;
    if ((e = hk_sec_last(sec, "seed"))) {
        if (hk_conf_int(x->c, e, 0, 4294967295LL, &v, x->err) < 0)
            return -1;
        s->seed = (uint64_t)v;
    }
    if ((e = hk_sec_last(sec, "replications"))) {
        if (hk_conf_int(x->c, e, 1, 1000, &v, x->err) < 0)
            return -1;
        s->replications = (int)v;
    }
    if ((e = hk_sec_last(sec, "variant")) && (s->variant = hk_variant_find(e->value)) < 0)
        return hk_err_set(x->err, x->c->file, e->vline, e->vcol, "variant: expected one of %s, "
                          "got '%s'", hk_variant_names(), e->value);
    if ((e = hk_sec_last(sec, "strategy")) && (s->strategy = hk_strat_find_any(e->value)) < 0)
        return hk_err_set(x->err, x->c->file, e->vline, e->vcol, "strategy: expected %s, got "
                          "'%s'", hk_strat_all_names(), e->value);
    if ((e = hk_sec_last(sec, "start")) && read_epoch(x, e, 1, &s->start_us) < 0)
        return -1;
    s->start_given = e != NULL;
    if ((e = hk_sec_last(sec, "started")) && read_epoch(x, e, 0, &s->started_us) < 0)
        return -1;
    s->started_given = e != NULL;
    return read_conn(x, sec);
}

const hk_entry *hk_scn_config_entry(const hk_conf *scn)
{
    const hk_section *sec = hk_conf_find(scn, "sim", NULL);
    return sec ? hk_sec_last(sec, "config") : NULL;
}

int hk_scn_variant_of(const hk_conf *scn)
{
    const hk_section *sec = hk_conf_find(scn, "sim", NULL);
    const hk_entry *e = sec ? hk_sec_last(sec, "variant") : NULL;
    return e ? hk_variant_find(e->value) : HK_VAR_MANTICORE;
}

hk_dialect hk_dialect_of(int variant)
{
    return variant == HK_VAR_SPHINX2 ? HK_DIALECT_SPHINX2 : HK_DIALECT_MANTICORE;
}

int hk_scn_table_of(const hk_scn *s, const char *name)
{
    for (int i = 0; i < s->wl.ntmap; i++)
        if (!strcmp(s->wl.tmap[i][0], name))
            name = s->wl.tmap[i][1];
    const hk_table *t = hk_cluster_find_table(s->cl, name);
    return t ? (int)(t - s->cl->tables) : -1;
}

/* The expect section: each claim's mirror must be one of the scenario's. */
static int read_expect(ctx *x)
{
    hk_scn *s = x->s;
    if (hk_expect_parse(x->c, &s->claims, &s->nclaims, x->err) < 0)
        return -1;
    for (int i = 0; i < s->nclaims; i++) {
        const hk_claim *c = &s->claims[i];
        if (c->mirror[0] && hk_cluster_find_host(s->cl, c->mirror) < 0)
            return hk_err_set(x->err, x->c->file, c->line, c->col, "claim: expected a mirror of "
                              "this scenario, got '%s'", c->mirror);
    }
    return 0;
}

static int count_sections(const hk_conf *c, const char *type)
{
    int n = 0;
    for (int i = 0; i < c->n; i++)
        n += !strcmp(c->s[i].type, type);
    return n;
}

int hk_scn_check_sections(const hk_conf *scn, const hk_conf *tables, hk_err *err)
{
    if (hk_conf_check_types(scn, scn_sections, err) < 0)
        return -1;
    return tables && tables != scn ? hk_conf_check_types(tables, hk_conf_sections, err) : 0;
}

int hk_scn_build(const hk_conf *scn, const hk_conf *tables, hk_dialect d, hk_scn **out,
                 hk_err *err, hk_warns *warns)
{
    *out = NULL;
    if (hk_scn_check_sections(scn, tables, err) < 0)
        return -1;
    hk_scn *s = calloc(1, sizeof *s);
    if (!s)
        return hk_err_set(err, scn->file, 0, 0, "out of memory");
    ctx x = {scn, s, err, warns};
    s->file = strdup(scn->file);
    /* the scenario's own searchd {} keys override those of a named config */
    if (!s->file || hk_cluster_from_conf(tables ? tables : scn, scn, d, &s->cl, err, warns) < 0)
        goto fail;
    s->behave = calloc((size_t)count_sections(scn, "mirror") + 1, sizeof *s->behave);
    s->faults = calloc((size_t)count_sections(scn, "fault") + 1, sizeof *s->faults);
    s->host_behave = malloc(((size_t)s->cl->nhosts + 1) * sizeof *s->host_behave);
    if (!s->behave || !s->faults || !s->host_behave) {
        hk_err_set(err, scn->file, 0, 0, "out of memory");
        goto fail;
    }
    for (int h = 0; h < s->cl->nhosts; h++)
        s->host_behave[h] = -1;
    if (read_sim(&x) < 0 || read_workload(&x) < 0 || read_mirrors(&x) < 0 ||
        read_faults(&x) < 0 || read_expect(&x) < 0)
        goto fail;
    *out = s;
    return 0;
fail:
    hk_scn_free(s);
    return -1;
}

void hk_scn_free(hk_scn *s)
{
    if (!s)
        return;
    for (int i = 0; i < s->nbehave; i++) {
        hk_dist_free(s->behave[i].rtt);
        hk_dist_free(s->behave[i].service);
    }
    hk_dist_free(s->wl.think);
    free(s->claims);
    free(s->behave);
    free(s->faults);
    free(s->host_behave);
    hk_cluster_free(s->cl);
    free(s->file);
    free(s);
}
