/* hk_fault: `fault HOST { at = T  for = D  kind = K }` sections and the
 * timeline they make: which fault is in force on a host at a moment, and the
 * next moment a host is cut (killed, stalled or stuck) with a query in flight. */
#include <stdio.h>
#include <string.h>
#include "hk_keys.h"
#include "hk_scn.h"
#include "hk_time.h"

static const struct { const char *n; hk_fault_kind k; int arg; } kinds[] = {
    {"down", HK_FAULT_DOWN, 0}, {"stall", HK_FAULT_STALL, 0}, {"stuck", HK_FAULT_STUCK, 0},
    {"slow", HK_FAULT_SLOW, 1}, {"errors", HK_FAULT_ERRORS, 1},
    {"partition", HK_FAULT_PARTITION, 0}, {"flap", HK_FAULT_FLAP, 2}};

#define HK_FAULT_KINDS "down, stall, stuck, slow(FACTOR), errors(P), partition or flap(PERIOD)"


static int kind_arg(const hk_conf *c, const hk_entry *e, hk_fault *f, size_t k, hk_err *err)
{
    const char *v = e->value;
    size_t n = strlen(kinds[k].n);
    char arg[64] = "";
    const char *close = strchr(v, ')');
    if (v[n] != '(' || !close || close[1] || close - v - (long)n - 1 >= 63)
        return hk_err_set(err, c->file, e->vline, e->vcol + (int)n, "kind %s: expected %s(%s)",
                          kinds[k].n, kinds[k].n, kinds[k].arg == 2 ? "PERIOD"
                          : kinds[k].k == HK_FAULT_SLOW ? "FACTOR" : "P");
    memcpy(arg, v + n + 1, (size_t)(close - v - (long)n - 1));
    int bad;
    const char *w;
    if (kinds[k].arg == 2) {
        if (hk_time_parse(arg, HK_SEC, &f->period_us, &bad, &w) < 0 ||
            f->period_us < HK_FLAP_MIN_US)
            return hk_err_set(err, c->file, e->vline, e->vcol + (int)n + 1,
                              "flap: expected a period of at least %d ms (down for its first "
                              "half), got '%s'", (int)(HK_FLAP_MIN_US / 1000), arg);
        return 0;
    }
    int slow = f->kind == HK_FAULT_SLOW;
    if (hk_real_parse(arg, slow ? 1e-6 : 0, slow ? 1e6 : 1, &f->x, &bad, &w) == 0)
        return 0;
    return hk_err_set(err, c->file, e->vline, e->vcol + (int)n + 1 + bad, "%s: expected %s, "
                      "got '%s'", kinds[k].n, slow ? "a factor from 0.000001 to 1000000"
                      : "a probability between 0 and 1", arg);
}

static int kind(const hk_conf *c, const hk_entry *e, hk_fault *f, hk_err *err)
{
    const char *v = e->value;
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        size_t n = strlen(kinds[k].n);
        if (strncmp(v, kinds[k].n, n) || (v[n] && v[n] != '('))
            continue;
        f->kind = kinds[k].k;
        if (!kinds[k].arg)
            return v[n] ? hk_err_set(err, c->file, e->vline, e->vcol + (int)n,
                                     "kind %s: expected no argument", kinds[k].n) : 0;
        return kind_arg(c, e, f, k, err);
    }
    if (!strcmp(v, "hang")) /* the word meant one thing to hasim and another to the mirror */
        return hk_err_set(err, c->file, e->vline, e->vcol, "kind: 'hang' names two faults; "
                          "expected stall (the process is stopped: nothing answered, pings "
                          "included) or stuck (queries never answered, pings answered)");
    return hk_err_set(err, c->file, e->vline, e->vcol, "kind: expected " HK_FAULT_KINDS
                      ", got '%s'", v);
}

int hk_fault_read(const hk_conf *c, const hk_section *sec, int host, hk_fault *f, hk_err *err)
{
    static const char *const keys[] = {"at", "for", "kind", NULL};
    for (int i = 0; i < sec->n; i++)
        if (!hk_word_in(sec->e[i].key, keys)) {
            const char *near = hk_nearest(sec->e[i].key, keys);
            return hk_err_set(err, c->file, sec->e[i].line, sec->e[i].col, "unknown key '%s' in "
                              "fault section%s%s%s: expected at, for or kind", sec->e[i].key,
                              near ? " (did you mean '" : "", near ? near : "",
                              near ? "'?)" : "");
        }
    f->host = host;
    f->line = sec->line;
    f->col = sec->col;
    f->for_us = -1;
    const hk_entry *at = hk_sec_last(sec, "at"), *fo = hk_sec_last(sec, "for"),
                   *ki = hk_sec_last(sec, "kind");
    if (!at || !ki)
        return hk_err_set(err, c->file, sec->line, sec->col, "fault %s: expected 'at = TIME' and "
                          "'kind = ...'", sec->name ? sec->name : "");
    if (hk_conf_time(c, at, HK_SEC, &f->at_us, err) < 0 ||
        (fo && hk_conf_time(c, fo, HK_SEC, &f->for_us, err) < 0))
        return -1;
    return kind(c, ki, f, err);
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

int64_t hk_scn_fault_end(const hk_scn *s, int host, int64_t t, hk_fault_kind k)
{
    for (int i = 0; i < s->nfaults; i++) {
        const hk_fault *f = &s->faults[i];
        if (f->host == host && f->kind == k && t >= f->at_us &&
            (f->for_us < 0 || t < f->at_us + f->for_us))
            return f->for_us < 0 ? -1 : f->at_us + f->for_us;
    }
    return -1;
}

int hk_fault_is_outage(hk_fault_kind k)
{
    return k == HK_FAULT_DOWN || k == HK_FAULT_STALL || k == HK_FAULT_STUCK ||
           k == HK_FAULT_PARTITION || k == HK_FAULT_FLAP;
}

const char *hk_fault_name(hk_fault_kind k)
{
    static const char *n[] = {"none", "down",      "stall", "slow",
                              "errors", "partition", "flap", "stuck"};
    return n[k];
}

int64_t hk_scn_fault_cut(const hk_scn *s, int host, int64_t from, int64_t to, hk_fault_kind *kind)
{
    int64_t best = -1;
    for (int i = 0; i < s->nfaults; i++) {
        const hk_fault *f = &s->faults[i];
        if (f->host != host || (f->kind != HK_FAULT_DOWN && f->kind != HK_FAULT_STALL &&
                                f->kind != HK_FAULT_STUCK && f->kind != HK_FAULT_FLAP))
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
            *kind = f->kind == HK_FAULT_DOWN || f->kind == HK_FAULT_FLAP ? HK_FAULT_DOWN : HK_FAULT_STALL;
        }
    }
    return best;
}

int hk_scn_down_in(const hk_scn *s, int host, int64_t from, int64_t to)
{
    for (int i = 0; i < s->nfaults; i++) {
        const hk_fault *f = &s->faults[i];
        if (f->host != host || (f->kind != HK_FAULT_DOWN && f->kind != HK_FAULT_FLAP))
            continue;
        int64_t t = f->at_us; /* the first down moment after from */
        if (f->kind == HK_FAULT_FLAP && t <= from)
            t = f->at_us + ((from - f->at_us) / f->period_us + 1) * f->period_us;
        if (t > from && t <= to && (f->for_us < 0 || t < f->at_us + f->for_us))
            return 1;
    }
    return 0;
}
