/* hk_scn: scenario sections on top of a cluster config. */
#include "hk_scn.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hk_strat.h"
#include "hk_time.h"
#include "hk_variant.h"

typedef struct ctx {
    const hk_conf *c;
    hk_scn *s;
    hk_err *err;
} ctx;

static int keys_known(ctx *x, const hk_section *sec, const char *const *keys, const char *list)
{
    for (int i = 0; i < sec->n; i++) {
        int ok = 0;
        for (int k = 0; keys[k]; k++)
            ok |= !strcmp(sec->e[i].key, keys[k]);
        if (!ok)
            return hk_err_set(x->err, x->c->file, sec->e[i].line, sec->e[i].col,
                              "unknown key '%s' in %s section: expected %s", sec->e[i].key,
                              sec->type, list);
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

static int read_behave(ctx *x, const hk_section *sec, hk_behave *b)
{
    static const char *keys[] = {"rtt", "service", "threads", "errors", "warnings", NULL};
    if (keys_known(x, sec, keys, "rtt, service, threads, errors or warnings") < 0)
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
    if ((e = hk_sec_last(sec, "errors")) && get_prob(x, e, &b->errors) < 0)
        return -1;
    if ((e = hk_sec_last(sec, "warnings")) && get_prob(x, e, &b->warnings) < 0)
        return -1;
    return 0;
}

static int host_of(ctx *x, const hk_section *sec)
{
    int h = sec->name ? hk_cluster_find_host(x->s->cl, sec->name) : -1;
    if (h < 0)
        hk_err_set(x->err, x->c->file, sec->line, sec->col, "%s '%s': expected host:port of a "
                   "mirror in an agent line%s%s", sec->type, sec->name ? sec->name : "",
                   x->s->cl->nhosts ? ", e.g. " : "",
                   x->s->cl->nhosts ? x->s->cl->hosts[0].name : "");
    return h;
}

static int read_mirrors(ctx *x)
{
    hk_scn *s = x->s;
    int def = -1;
    for (int i = 0; i < x->c->n; i++) {
        const hk_section *sec = &x->c->s[i];
        if (strcmp(sec->type, "mirror"))
            continue;
        int h = sec->name && strcmp(sec->name, "default") ? host_of(x, sec) : -2;
        if (h == -1)
            return -1;
        hk_behave *b = &s->behave[s->nbehave++];
        if (read_behave(x, sec, b) < 0)
            return -1;
        if (h == -2)
            def = s->nbehave - 1;
        else if (s->host_behave[h] >= 0)
            return hk_err_set(x->err, x->c->file, sec->line, sec->col, "mirror %s described "
                              "twice: expected one section per mirror", sec->name);
        else
            s->host_behave[h] = s->nbehave - 1;
    }
    for (int h = 0; h < s->cl->nhosts; h++) {
        if (s->host_behave[h] < 0 && def < 0)
            return hk_err_set(x->err, x->c->file, 1, 1, "mirror %s has no behaviour: expected "
                              "a 'mirror %s { service = ... }' or 'mirror default { ... }' "
                              "section", s->cl->hosts[h].name, s->cl->hosts[h].name);
        if (s->host_behave[h] < 0)
            s->host_behave[h] = def;
    }
    return 0;
}

static int fault_kind(ctx *x, const hk_entry *e, hk_fault *f)
{
    static const struct { const char *n; hk_fault_kind k; int arg; } kinds[] = {
        {"down", HK_FAULT_DOWN, 0}, {"hang", HK_FAULT_HANG, 0}, {"slow", HK_FAULT_SLOW, 1},
        {"errors", HK_FAULT_ERRORS, 1}, {"partition", HK_FAULT_PARTITION, 0},
        {"flap", HK_FAULT_FLAP, 2}};
    const char *v = e->value;
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        size_t n = strlen(kinds[k].n);
        if (strncmp(v, kinds[k].n, n) || (v[n] && v[n] != '('))
            continue;
        f->kind = kinds[k].k;
        if (!kinds[k].arg)
            return v[n] ? hk_err_set(x->err, x->c->file, e->vline, e->vcol + (int)n,
                                     "kind %s: expected no argument", kinds[k].n) : 0;
        char arg[64] = "";
        const char *close = strchr(v, ')');
        if (v[n] != '(' || !close || close[1] || close - v - (long)n - 1 >= 63)
            return hk_err_set(x->err, x->c->file, e->vline, e->vcol + (int)n, "kind %s: "
                              "expected %s(%s)", kinds[k].n, kinds[k].n,
                              kinds[k].arg == 2 ? "PERIOD" : kinds[k].k == HK_FAULT_SLOW
                              ? "FACTOR" : "P");
        memcpy(arg, v + n + 1, (size_t)(close - v - (long)n - 1));
        if (kinds[k].arg == 2) {
            int bad;
            const char *w;
            if (hk_time_parse(arg, HK_SEC, &f->period_us, &bad, &w) < 0 || f->period_us <= 0)
                return hk_err_set(x->err, x->c->file, e->vline, e->vcol + (int)n + 1,
                                  "flap: expected a positive period, got '%s'", arg);
            return 0;
        }
        int bad;
        const char *w;
        int slow = f->kind == HK_FAULT_SLOW;
        int okv = hk_real_parse(arg, slow ? 1e-6 : 0, slow ? 1e6 : 1, &f->x, &bad, &w) == 0;
        return okv ? 0 : hk_err_set(x->err, x->c->file, e->vline, e->vcol + (int)n + 1 + bad,
                                    "%s: expected %s, got '%s'", kinds[k].n,
                                    slow ? "a factor from 0.000001 to 1000000"
                                    : "a probability between 0 and 1", arg);
    }
    return hk_err_set(x->err, x->c->file, e->vline, e->vcol, "kind: expected down, hang, "
                      "slow(FACTOR), errors(P), partition or flap(PERIOD), got '%s'", v);
}

static int read_fault(ctx *x, const hk_section *sec, hk_fault *f)
{
    static const char *keys[] = {"at", "for", "kind", NULL};
    if (keys_known(x, sec, keys, "at, for or kind") < 0 || (f->host = host_of(x, sec)) < 0)
        return -1;
    f->line = sec->line;
    f->for_us = -1;
    const hk_entry *at = hk_sec_last(sec, "at"), *fo = hk_sec_last(sec, "for"),
                   *ki = hk_sec_last(sec, "kind");
    if (!at || !ki)
        return hk_err_set(x->err, x->c->file, sec->line, sec->col, "fault %s: expected 'at = "
                          "TIME' and 'kind = ...'", sec->name);
    if (hk_conf_time(x->c, at, HK_SEC, &f->at_us, x->err) < 0 ||
        (fo && hk_conf_time(x->c, fo, HK_SEC, &f->for_us, x->err) < 0))
        return -1;
    return fault_kind(x, ki, f);
}

static int read_faults(ctx *x)
{
    for (int i = 0; i < x->c->n; i++)
        if (!strcmp(x->c->s[i].type, "fault") &&
            read_fault(x, &x->c->s[i], &x->s->faults[x->s->nfaults++]) < 0)
            return -1;
    return 0;
}

static int read_workload(ctx *x)
{
    hk_workload *w = &x->s->wl;
    w->masters = 1;
    w->table = x->s->cl->ntables > 0 ? 0 : -1;
    w->duration_us = 60 * HK_SEC;
    const hk_section *sec = hk_conf_find(x->c, "workload", NULL);
    if (!sec)
        return hk_err_set(x->err, x->c->file, 1, 1, "expected a 'workload { arrivals = "
                          "poisson(100/s) duration = 10m }' section");
    static const char *keys[] = {"arrivals", "duration", "masters", "table", NULL};
    if (keys_known(x, sec, keys, "arrivals, duration, masters or table") < 0)
        return -1;
    const hk_entry *e = hk_sec_last(sec, "arrivals");
    if (!e)
        return hk_err_set(x->err, x->c->file, sec->line, sec->col, "workload: expected "
                          "'arrivals = poisson(200/s)' (or constant, onoff, diurnal, trace)");
    int bad;
    char what[200];
    if (hk_arrivals_parse(e->value, &w->arr, &bad, what, sizeof what) < 0)
        return hk_err_set(x->err, x->c->file, e->vline, e->vcol + bad, "arrivals: expected %s",
                          what);
    if ((e = hk_sec_last(sec, "duration")) && hk_conf_time(x->c, e, HK_SEC, &w->duration_us,
                                                          x->err) < 0)
        return -1;
    long long m = 1;
    if ((e = hk_sec_last(sec, "masters")) && hk_conf_int(x->c, e, 1, 1024, &m, x->err) < 0)
        return -1;
    w->masters = (int)m;
    if ((e = hk_sec_last(sec, "table"))) {
        const hk_table *t = hk_cluster_find_table(x->s->cl, e->value);
        if (!t && strcmp(e->value, "all"))
            return hk_err_set(x->err, x->c->file, e->vline, e->vcol, "table: expected a "
                              "distributed table of this scenario or 'all', got '%s'", e->value);
        w->table = t ? (int)(t - x->s->cl->tables) : -1;
    }
    if (x->s->cl->ntables == 0)
        return hk_err_set(x->err, x->c->file, 1, 1, "expected at least one table with "
                          "'type = distributed' and agents");
    return 0;
}

static int read_sim(ctx *x)
{
    hk_scn *s = x->s;
    s->seed = 1;
    s->replications = 1;
    s->variant = HK_VAR_MANTICORE;
    s->strategy = -1;
    const hk_section *sec = hk_conf_find(x->c, "sim", NULL);
    if (!sec)
        return 0;
    static const char *keys[] = {"seed", "replications", "variant", "strategy", "config", NULL};
    if (keys_known(x, sec, keys, "seed, replications, variant, strategy or config") < 0)
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
    if ((e = hk_sec_last(sec, "strategy")) && (s->strategy = hk_strat_find(e->value)) < 0)
        return hk_err_set(x->err, x->c->file, e->vline, e->vcol, "strategy: expected random, "
                          "roundrobin, nodeads or noerrors, got '%s'", e->value);
    return 0;
}

const hk_entry *hk_scn_config_entry(const hk_conf *scn)
{
    const hk_section *sec = hk_conf_find(scn, "sim", NULL);
    return sec ? hk_sec_last(sec, "config") : NULL;
}

static int count_sections(const hk_conf *c, const char *type)
{
    int n = 0;
    for (int i = 0; i < c->n; i++)
        n += !strcmp(c->s[i].type, type);
    return n;
}

int hk_scn_build(const hk_conf *scn, const hk_conf *tables, hk_scn **out, hk_err *err,
                 hk_warns *warns)
{
    hk_scn *s = calloc(1, sizeof *s);
    if (!s)
        return hk_err_set(err, scn->file, 0, 0, "out of memory");
    ctx x = {scn, s, err};
    s->file = strdup(scn->file);
    if (hk_cluster_from_conf(tables ? tables : scn, &s->cl, err, warns) < 0)
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
    /* the scenario's own searchd {} keys override those of a named config */
    if ((tables && tables != scn && hk_settings_apply(scn, &s->cl->set, err) < 0) ||
        read_sim(&x) < 0 ||
        read_workload(&x) < 0 || read_mirrors(&x) < 0 || read_faults(&x) < 0)
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
    free(s->behave);
    free(s->faults);
    free(s->host_behave);
    hk_cluster_free(s->cl);
    free(s->file);
    free(s);
}

hk_fault_kind hk_scn_fault_at(const hk_scn *s, int host, int64_t t, double *x)
{
    for (int i = 0; i < s->nfaults; i++) {
        const hk_fault *f = &s->faults[i];
        if (f->host != host || t < f->at_us || (f->for_us >= 0 && t >= f->at_us + f->for_us))
            continue;
        if (f->kind == HK_FAULT_FLAP) {
            if ((t - f->at_us) % f->period_us >= f->period_us / 2)
                continue;
            return HK_FAULT_DOWN;
        }
        *x = f->x;
        return f->kind;
    }
    return HK_FAULT_NONE;
}

const char *hk_fault_name(hk_fault_kind k)
{
    static const char *n[] = {"none", "down", "hang", "slow", "errors", "partition", "flap"};
    return n[k];
}

int64_t hk_scn_fault_cut(const hk_scn *s, int host, int64_t from, int64_t to, hk_fault_kind *kind)
{
    int64_t best = -1;
    for (int i = 0; i < s->nfaults; i++) {
        const hk_fault *f = &s->faults[i];
        if (f->host != host || (f->kind != HK_FAULT_DOWN && f->kind != HK_FAULT_HANG &&
                                f->kind != HK_FAULT_FLAP))
            continue;
        int64_t t = f->at_us;
        if (f->kind == HK_FAULT_FLAP && t <= from) { /* the next down half-period after from */
            int64_t k = (from - f->at_us) / f->period_us + 1;
            t = f->at_us + k * f->period_us;
        }
        if (t <= from || t > to || (f->for_us >= 0 && t >= f->at_us + f->for_us))
            continue;
        if (best < 0 || t < best) {
            best = t;
            *kind = f->kind == HK_FAULT_HANG ? HK_FAULT_HANG : HK_FAULT_DOWN;
        }
    }
    return best;
}
