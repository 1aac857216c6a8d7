/* rl_toxic: toxics read and written as JSON, and what they do to a request (rl_toxic.h). */
#include "rl_toxic.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hk_time.h"

static const char *kind_names[RL_TX_N] = {"stall",    "stuck",   "blackhole", "refuse",
                                          "errors",   "warnings", "latency",  "slow",
                                          "bandwidth", "reset"};

const char *rl_tx_kind_name(rl_tx_kind k) { return k < RL_TX_N ? kind_names[k] : "?"; }

static int kind_of(const char *s)
{
    for (int k = 0; k < RL_TX_N; k++)
        if (!strcmp(s, kind_names[k]))
            return k;
    return -1;
}

static void defaults(rl_toxic *t, rl_tx_kind k)
{
    memset(t, 0, sizeof *t);
    t->kind = k;
    t->toxicity = 1;
    t->on = k == RL_TX_LATENCY || k == RL_TX_BANDWIDTH ? RL_TX_ON_ANY : RL_TX_ON_SEARCH;
    t->factor = 10;
    t->rate_kbs = 100;
    snprintf(t->name, sizeof t->name, "%s_downstream", kind_names[k]);
    snprintf(t->message, sizeof t->message, "hakarma proxy: injected %s",
             k == RL_TX_WARNINGS ? "warning" : "error");
}

/* A number attribute in [lo, hi] (absent: unchanged). */
static int num(json_t *o, const char *key, double lo, double hi, double *v, char *msg, int n)
{
    json_t *x = json_object_get(o, key);
    if (!x)
        return 0;
    if (!json_is_number(x) || !isfinite(json_number_value(x)) || json_number_value(x) < lo ||
        json_number_value(x) > hi) {
        snprintf(msg, (size_t)n, "%s: expected a number in [%g, %g]", key, lo, hi);
        return -1;
    }
    *v = json_number_value(x);
    return 0;
}

static int str(json_t *o, const char *key, char *out, size_t cap, char *msg, int n)
{
    json_t *x = json_object_get(o, key);
    if (!x)
        return 0;
    if (!json_is_string(x) || json_string_length(x) == 0 || json_string_length(x) >= cap) {
        snprintf(msg, (size_t)n, "%s: expected a string of 1 to %zu bytes", key, cap - 1);
        return -1;
    }
    snprintf(out, cap, "%s", json_string_value(x));
    return 0;
}

int rl_json_only(json_t *o, const char *const *keys, const char *what, char *msg, int n)
{
    const char *k;
    json_t *v;
    json_object_foreach(o, k, v) {
        int known = 0;
        for (int i = 0; keys[i] && !known; i++)
            known = !strcmp(k, keys[i]);
        if (!known) {
            int o2 = snprintf(msg, (size_t)n, "%s: unknown key '%.60s' (expected one of", what, k);
            for (int i = 0; keys[i] && o2 > 0 && o2 < n; i++)
                o2 += snprintf(msg + o2, (size_t)(n - o2), "%s%s", i ? ", " : " ", keys[i]);
            if (o2 > 0 && o2 < n)
                snprintf(msg + o2, (size_t)(n - o2), ")");
            return -1;
        }
    }
    return 0;
}

int rl_name_ok(const char *s, size_t max)
{
    size_t n = strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.:-");
    return n > 0 && !s[n] && n < max;
}

static int attributes(json_t *a, rl_toxic *t, char *msg, int n)
{
    static const char *const keys[] = {"latency", "jitter", "factor", "rate", "message",
                                       "command", NULL};
    char cmd[16] = "";
    if (a && !json_is_object(a)) {
        snprintf(msg, (size_t)n, "attributes: expected an object");
        return -1;
    }
    if (!a)
        return 0;
    if (rl_json_only(a, keys, "attributes", msg, n) < 0)
        return -1;
    if (num(a, "latency", 0, 3600e3, &t->latency_ms, msg, n) < 0 ||
        num(a, "jitter", 0, 3600e3, &t->jitter_ms, msg, n) < 0 ||
        num(a, "factor", 1, 1e6, &t->factor, msg, n) < 0 ||
        num(a, "rate", 0.001, 1e9, &t->rate_kbs, msg, n) < 0 ||
        str(a, "message", t->message, sizeof t->message, msg, n) < 0 ||
        str(a, "command", cmd, sizeof cmd, msg, n) < 0)
        return -1;
    if (cmd[0] && strcmp(cmd, "search") && strcmp(cmd, "ping") && strcmp(cmd, "any")) {
        snprintf(msg, (size_t)n, "attributes.command: expected search, ping or any; got '%s'",
                 cmd);
        return -1;
    }
    if (cmd[0])
        t->on = cmd[0] == 's' ? RL_TX_ON_SEARCH : cmd[0] == 'p' ? RL_TX_ON_PING : RL_TX_ON_ANY;
    return 0;
}

static int stream(json_t *o, rl_toxic *t, char *msg, int n)
{
    char s[16] = "";
    if (str(o, "stream", s, sizeof s, msg, n) < 0)
        return -1;
    if (s[0] && strcmp(s, "downstream") && strcmp(s, "upstream")) {
        snprintf(msg, (size_t)n, "stream: expected downstream or upstream; got '%s'", s);
        return -1;
    }
    if (s[0])
        t->upstream = s[0] == 'u';
    return 0;
}

static int from_object(json_t *o, const rl_toxic *base, rl_toxic *t, char *msg, int n)
{
    static const char *const keys[] = {"name", "type", "stream", "toxicity", "attributes", NULL};
    char type[16] = "";
    if (rl_json_only(o, keys, "toxic", msg, n) < 0 || str(o, "type", type, sizeof type, msg, n) < 0)
        return -1;
    int k = type[0] ? kind_of(type) : base ? (int)base->kind : -1;
    if (k < 0 || (base && (int)base->kind != k)) {
        snprintf(msg, (size_t)n, base ? "type: a toxic keeps its type (%s)"
                                      : "type: expected one of stall, stuck, blackhole, refuse, "
                                        "errors, warnings, latency, slow, bandwidth, reset",
                 base ? kind_names[base->kind] : "");
        return -1;
    }
    if (base)
        *t = *base;
    else
        defaults(t, (rl_tx_kind)k);
    if (stream(o, t, msg, n) < 0 || str(o, "name", t->name, sizeof t->name, msg, n) < 0 ||
        num(o, "toxicity", 0, 1, &t->toxicity, msg, n) < 0 ||
        attributes(json_object_get(o, "attributes"), t, msg, n) < 0)
        return -1;
    if (!base && !json_object_get(o, "name"))
        snprintf(t->name, sizeof t->name, "%s_%s", kind_names[k],
                 t->upstream ? "upstream" : "downstream");
    if (!rl_name_ok(t->name, sizeof t->name)) {
        snprintf(msg, (size_t)n, "name: expected letters, digits and _ . : - (a toxic is "
                 "deleted by its name in a URL)");
        return -1;
    }
    return 0;
}

int rl_toxic_from_json(const char *json, const rl_toxic *base, rl_toxic *t, char *msg, int n)
{
    json_error_t e;
    json_t *o = json_loads(json, JSON_REJECT_DUPLICATES, &e);
    if (!o || !json_is_object(o)) {
        if (o)
            snprintf(msg, (size_t)n, "expected a JSON object (a toxic)");
        else
            snprintf(msg, (size_t)n, "not JSON: line %d column %d: %s", e.line, e.column, e.text);
        json_decref(o);
        return -1;
    }
    int rc = from_object(o, base, t, msg, n);
    json_decref(o);
    return rc;
}

/* The figure of a spec KIND(X): 0, or -1 when it is not a number in [lo, hi]. */
static int spec_arg(const char *arg, double lo, double hi, double *v)
{
    int bad;
    const char *what;
    return hk_real_parse(arg, lo, hi, v, &bad, &what);
}

int rl_toxic_from_spec(const char *spec, rl_toxic *t, char *msg, int n)
{
    static const char *alias[][2] = {{"down", "refuse"}, {"partition", "blackhole"}};
    char kind[32], arg[64] = "";
    size_t kl = strcspn(spec, "(");
    if (kl >= sizeof kind)
        kl = sizeof kind - 1;
    snprintf(kind, sizeof kind, "%.*s", (int)kl, spec);
    if (spec[kl] == '(') {
        const char *close = strchr(spec + kl, ')');
        if (!close || close[1] || close - spec - (long)kl - 1 >= (long)sizeof arg)
            goto bad;
        snprintf(arg, sizeof arg, "%.*s", (int)(close - spec - (long)kl - 1), spec + kl + 1);
    }
    for (size_t a = 0; a < sizeof alias / sizeof alias[0]; a++)
        if (!strcmp(kind, alias[a][0]))
            snprintf(kind, sizeof kind, "%s", alias[a][1]);
    int k = kind_of(kind);
    if (k < 0)
        goto bad;
    defaults(t, (rl_tx_kind)k);
    double *fig = k == RL_TX_SLOW ? &t->factor : k == RL_TX_LATENCY ? &t->latency_ms
                : k == RL_TX_BANDWIDTH ? &t->rate_kbs : &t->toxicity;
    double lo = k == RL_TX_SLOW ? 1 : k == RL_TX_BANDWIDTH ? 0.001 : 0;
    double hi = k == RL_TX_SLOW ? 1e6 : k == RL_TX_LATENCY ? 3600e3 : k == RL_TX_BANDWIDTH ? 1e9 : 1;
    if (arg[0] && spec_arg(arg, lo, hi, fig) < 0)
        goto bad;
    return 0;
bad:
    snprintf(msg, (size_t)n, "'%s': expected stall, stuck, down, partition, errors(P), "
             "warnings(P), slow(F), latency(MS), bandwidth(KBS) or reset(P)", spec);
    return -1;
}

json_t *rl_toxic_json(const rl_toxic *t)
{
    static const char *cmds[] = {"", "search", "ping", "any"};
    json_t *a = json_pack("{s:s}", "command", cmds[t->on]);
    if (t->kind == RL_TX_LATENCY) {
        json_object_set_new(a, "latency", json_real(t->latency_ms));
        json_object_set_new(a, "jitter", json_real(t->jitter_ms));
    } else if (t->kind == RL_TX_SLOW)
        json_object_set_new(a, "factor", json_real(t->factor));
    else if (t->kind == RL_TX_BANDWIDTH)
        json_object_set_new(a, "rate", json_real(t->rate_kbs));
    else if (t->kind == RL_TX_ERRORS || t->kind == RL_TX_WARNINGS)
        json_object_set_new(a, "message", json_string(t->message));
    return json_pack("{s:s, s:s, s:s, s:f, s:o}", "name", t->name, "type", kind_names[t->kind],
                     "stream", t->upstream ? "upstream" : "downstream", "toxicity", t->toxicity,
                     "attributes", a);
}

static int acts(const rl_toxic *t, int ping, gsl_rng *rng)
{
    if (!(t->on & (ping ? RL_TX_ON_PING : RL_TX_ON_SEARCH)))
        return 0;
    return t->toxicity >= 1 || gsl_rng_uniform(rng) < t->toxicity;
}

static void act(const rl_toxic *t, gsl_rng *rng, rl_tx_plan *p)
{
    switch (t->kind) {
    case RL_TX_STUCK: p->hold = 1; break;
    case RL_TX_ERRORS: p->error = 1; snprintf(p->msg, sizeof p->msg, "%s", t->message); break;
    case RL_TX_WARNINGS:
        p->warning = 1;
        snprintf(p->msg, sizeof p->msg, "%s", t->message);
        break;
    case RL_TX_RESET: p->reset = 1; break;
    case RL_TX_LATENCY:
        p->delay_ms += fmax(0, t->latency_ms + t->jitter_ms * (2 * gsl_rng_uniform(rng) - 1));
        break;
    case RL_TX_SLOW: p->factor *= t->factor; break;
    case RL_TX_BANDWIDTH:
        p->rate_kbs = p->rate_kbs > 0 ? fmin(p->rate_kbs, t->rate_kbs) : t->rate_kbs;
        break;
    default: break; /* stall, blackhole, refuse act on the connection, not a request */
    }
}

void rl_toxics_plan(const rl_toxic *ts, int n, int ping, gsl_rng *rng, rl_tx_plan *p)
{
    memset(p, 0, sizeof *p);
    p->factor = 1;
    for (int i = 0; i < n; i++)
        if (acts(&ts[i], ping, rng))
            act(&ts[i], rng, p);
}

int rl_toxics_have(const rl_toxic *ts, int n, rl_tx_kind k)
{
    for (int i = 0; i < n; i++)
        if (ts[i].kind == k)
            return 1;
    return 0;
}
