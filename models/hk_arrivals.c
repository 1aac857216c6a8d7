/* hk_arrivals: arrival-process syntax and generation. */
#include "hk_arrivals.h"

#include <ctype.h>
#include <gsl/gsl_randist.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hk_time.h"

#define HK_PI 3.14159265358979323846

static int err(int *bad, int at, char *what, int n, const char *msg)
{
    *bad = at;
    snprintf(what, (size_t)n, "%s", msg);
    return -1;
}

/* "200/s" -> per microsecond, within [HK_ARR_RATE_MIN, HK_ARR_RATE_MAX] per second */
static int rate(const char *t, double *out)
{
    char *end;
    double v = strtod(t, &end);
    if (end == t || !isfinite(v) || v <= 0 || !isdigit((unsigned char)t[0]))
        return -1;
    while (*end == ' ')
        end++;
    if (*end++ != '/')
        return -1;
    static const struct { const char *u; double us; } units[] = {
        {"ms", 1e3}, {"s", 1e6}, {"m", 6e7}, {"h", 3.6e9}};
    for (size_t k = 0; k < 4; k++)
        if (!strcmp(end, units[k].u)) {
            *out = v / units[k].us;
            double per_s = *out * 1e6;
            return per_s >= HK_ARR_RATE_MIN && per_s <= HK_ARR_RATE_MAX ? 0 : -1;
        }
    return -1;
}

typedef struct kv { char k[32]; char v[256]; int at; } kv;

/* Split "name(a, b=c, ...)" into up to 4 args. Returns count or -1. */
static int split(const char *s, char *name, kv *args, int *bad, char *what, int nw)
{
    int i = 0, k = 0;
    while (s[i] == ' ')
        i++;
    while (isalpha((unsigned char)s[i]) && k < 31)
        name[k++] = s[i++];
    name[k] = '\0';
    if (s[i] != '(')
        return err(bad, i, what, nw, "an arrival process: poisson(R/s), constant(R/s), "
                   "onoff(rate=, on=, off=), diurnal(mean=, amplitude=, period=) or trace(FILE)");
    i++;
    int n = 0;
    while (s[i] && s[i] != ')') {
        if (n == 4)
            return err(bad, i, what, nw, "at most 4 arguments");
        while (s[i] == ' ')
            i++;
        kv *a = &args[n++];
        a->at = i;
        int j = 0;
        while (s[i] && s[i] != ',' && s[i] != ')' && j < 255)
            a->v[j++] = s[i++];
        while (j > 0 && a->v[j - 1] == ' ')
            j--;
        a->v[j] = '\0';
        a->k[0] = '\0';
        char *eq = strchr(a->v, '=');
        if (eq) {
            *eq = '\0';
            snprintf(a->k, sizeof a->k, "%.31s", a->v);
            char *p = a->k + strlen(a->k);
            while (p > a->k && p[-1] == ' ')
                *--p = '\0';
            memmove(a->v, eq + 1 + strspn(eq + 1, " "), strlen(eq + 1 + strspn(eq + 1, " ")) + 1);
        }
        if (s[i] == ',')
            i++;
    }
    if (s[i] != ')')
        return err(bad, i, what, nw, "')' closing the arrival process");
    i++;
    while (s[i] == ' ')
        i++;
    if (s[i])
        return err(bad, i, what, nw, "end of the arrival process");
    return n;
}

static const kv *arg(const kv *a, int n, const char *key, int pos)
{
    for (int k = 0; k < n; k++)
        if (!strcmp(a[k].k, key))
            return &a[k];
    return pos < n && !a[pos].k[0] ? &a[pos] : NULL;
}

static int need_time(const kv *a, int64_t *out, int *bad, char *what, int nw)
{
    int b;
    const char *w;
    if (hk_time_parse(a->v, HK_SEC, out, &b, &w) < 0 || *out <= 0 || *out > HK_ARR_SPAN_MAX_US)
        return err(bad, a->at, what, nw, "a positive time up to 10 years (bare numbers are "
                   "seconds)");
    return 0;
}

int hk_arrivals_parse(const char *s, hk_arrivals *a, int *bad, char *what, int nw)
{
    char name[32];
    kv args[4];
    memset(a, 0, sizeof *a);
    int n = split(s, name, args, bad, what, nw);
    if (n < 0)
        return -1;
    const kv *r = NULL;
    if (!strcmp(name, "trace")) {
        a->kind = HK_ARR_TRACE;
        if (n < 1 || !args[0].v[0])
            return err(bad, (int)strlen(name) + 1, what, nw, "a trace file name");
        snprintf(a->path, sizeof a->path, "%s", args[0].v);
        snprintf(a->column, sizeof a->column, "%.127s", n > 1 ? args[1].v : "t_s");
        return 0;
    }
    static const char *kinds[] = {"poisson", "constant", "onoff", "diurnal"};
    int k = 0;
    while (k < 4 && strcmp(kinds[k], name))
        k++;
    if (k == 4)
        return err(bad, 0, what, nw, "an arrival process: poisson, constant, onoff, diurnal "
                   "or trace");
    a->kind = (hk_arr_kind)k;
    r = arg(args, n, k == HK_ARR_DIURNAL ? "mean" : "rate", 0);
    if (!r || rate(r->v, &a->rate) < 0)
        return err(bad, r ? r->at : (int)strlen(name) + 1, what, nw,
                   "a rate such as 200/s (also /ms, /m, /h), from 0.000001/s to 1000000/s");
    a->gap_us = 1.0 / a->rate;
    if (a->kind == HK_ARR_ONOFF) {
        const kv *on = arg(args, n, "on", 1), *off = arg(args, n, "off", 2);
        if (!on || !off)
            return err(bad, (int)strlen(s) - 1, what, nw, "on= and off= durations");
        if (need_time(on, &a->on_us, bad, what, nw) < 0 ||
            need_time(off, &a->off_us, bad, what, nw) < 0)
            return -1;
    }
    if (a->kind == HK_ARR_DIURNAL) {
        const kv *am = arg(args, n, "amplitude", 1), *pe = arg(args, n, "period", 2);
        int b;
        const char *w;
        a->amplitude = 0.5;
        if (am && hk_real_parse(am->v, 0, 1, &a->amplitude, &b, &w) < 0)
            return err(bad, am->at, what, nw, "an amplitude between 0 and 1");
        a->period_us = 86400LL * 1000000;
        if (pe && need_time(pe, &a->period_us, bad, what, nw) < 0)
            return -1;
    }
    return 0;
}

/* now + gap (at least 1 µs), saturating far beyond any run's end instead of overflowing. */
/* now + gap on the integer-us clock. The fraction is carried to the next gap, so the rate is
 * kept exactly (rounding every gap up cost 0.5 us each: 4% of the arrivals at 90,000/s); at
 * most one arrival per us (a documented limit). */
static int64_t after(hk_arrivals *a, int64_t now, double gap)
{
    if (!(gap < (double)HK_TIME_MAX_US))
        return now + HK_TIME_MAX_US;
    double x = a->carry + gap;
    int64_t g = x >= 0 ? (int64_t)x : (int64_t)floor(x); /* gaps are >= 0: no libm call */
    a->carry = x - (double)g;
    if (g < 1) {
        g = 1;
        a->carry = 0;
    }
    return now + g;
}

/* An exponential gap of mean 1/rate (drawn ahead when the generator is this process's alone). */
static double exp_gap(hk_arrivals *a, gsl_rng *r)
{
    if (!a->draw_ahead)
        return gsl_ran_exponential(r, a->gap_us);
    if (a->ahead_i == a->ahead_n) {
        for (int k = 0; k < HK_ARR_AHEAD; k++)
            a->ahead[k] = gsl_ran_exponential(r, a->gap_us);
        a->ahead_i = 0;
        a->ahead_n = HK_ARR_AHEAD;
    }
    return a->ahead[a->ahead_i++];
}

int64_t hk_arrivals_next(hk_arrivals *a, int64_t now, gsl_rng *r, int *table)
{
    *table = -1;
    switch (a->kind) {
    case HK_ARR_POISSON:
        return after(a, now, exp_gap(a, r));
    case HK_ARR_CONSTANT:
        return a->started++ ? after(a, now, a->gap_us) : now;
    case HK_ARR_ONOFF: {
        int64_t t = after(a, now, exp_gap(a, r));
        int64_t cyc = a->on_us + a->off_us, ph = t % cyc;
        return ph < a->on_us ? t : t - ph + cyc; /* memoryless: restart at the next on */
    }
    case HK_ARR_DIURNAL: {
        double peak = a->rate * (1 + a->amplitude);
        for (int64_t t = now;;) {
            t = after(a, t, gsl_ran_exponential(r, 1.0 / peak));
            double lam = a->rate * (1 + a->amplitude * sin(2 * HK_PI * (double)t /
                                                           (double)a->period_us));
            if (gsl_rng_uniform(r) * peak <= lam)
                return t;
        }
    }
    case HK_ARR_TRACE: {
        int64_t t;
        int rc = a->next ? a->next(a->ctx, &t, table) : 0;
        if (rc <= 0)
            return rc < 0 ? -2 : -1;
        return t < now ? now : t;
    }
    }
    return -1;
}

double hk_arrivals_rate_per_s(const hk_arrivals *a)
{
    if (a->kind == HK_ARR_TRACE)
        return 0;
    if (a->kind == HK_ARR_ONOFF)
        return a->rate * 1e6 * (double)a->on_us / (double)(a->on_us + a->off_us);
    return a->rate * 1e6;
}
