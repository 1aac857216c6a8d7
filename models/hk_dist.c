/* hk_dist: distribution syntax and sampling (GSL). */
#include "hk_dist.h"

#include <ctype.h>
#include <gsl/gsl_randist.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hk_time.h"

typedef struct spec {
    const char *name;
    hk_dist_kind kind;
    int nparams;
    const char *pn[2];
    int is_time[2];
} spec;

static const spec specs[] = {
    {.name = "constant", .kind = HK_DIST_CONSTANT, .nparams = 1, .pn = {"value", NULL},
     .is_time = {1, 0}},
    {.name = "uniform", .kind = HK_DIST_UNIFORM, .nparams = 2, .pn = {"min", "max"},
     .is_time = {1, 1}},
    {.name = "normal", .kind = HK_DIST_NORMAL, .nparams = 2, .pn = {"mean", "sd"},
     .is_time = {1, 1}},
    {.name = "lognormal", .kind = HK_DIST_LOGNORMAL, .nparams = 2, .pn = {"median", "sigma"},
     .is_time = {1, 0}},
    {.name = "exponential", .kind = HK_DIST_EXPONENTIAL, .nparams = 1, .pn = {"mean", NULL},
     .is_time = {1, 0}},
    {.name = "gamma", .kind = HK_DIST_GAMMA, .nparams = 2, .pn = {"shape", "scale"},
     .is_time = {0, 1}},
    {.name = "weibull", .kind = HK_DIST_WEIBULL, .nparams = 2, .pn = {"shape", "scale"},
     .is_time = {0, 1}},
    {.name = "pareto", .kind = HK_DIST_PARETO, .nparams = 2, .pn = {"shape", "scale"},
     .is_time = {0, 1}},
};

typedef struct pz {
    const char *s;
    int i;
    int *bad;
    char *what;
    int nwhat;
} pz;

static int err(pz *z, int at, const char *what)
{
    *z->bad = at;
    snprintf(z->what, (size_t)z->nwhat, "%s", what);
    return -1;
}

static void sp(pz *z)
{
    while (z->s[z->i] == ' ' || z->s[z->i] == '\t')
        z->i++;
}

static int dist(pz *z, hk_dist **out);

/* A token up to ',' or ')' at depth 0, trimmed, copied into buf. */
static int token(pz *z, char *buf, int n, int *start)
{
    sp(z);
    *start = z->i;
    int depth = 0, k = 0;
    for (; z->s[z->i]; z->i++) {
        char c = z->s[z->i];
        if (depth == 0 && (c == ',' || c == ')'))
            break;
        depth += c == '(';
        depth -= c == ')';
        if (k < n - 1)
            buf[k++] = c;
    }
    while (k > 0 && isspace((unsigned char)buf[k - 1]))
        k--;
    buf[k] = '\0';
    return k;
}

static int number(pz *z, const char *tok, int at, int is_time, double *v)
{
    if (is_time) {
        int64_t us;
        int bad;
        const char *what;
        if (hk_time_parse(tok, HK_MS, &us, &bad, &what) < 0)
            return err(z, at + bad, what);
        *v = (double)us;
        return 0;
    }
    int bad;
    const char *what;
    if (hk_real_parse(tok, -HK_DIST_MAX_PARAM, HK_DIST_MAX_PARAM, v, &bad, &what) < 0)
        return err(z, at + bad, what);
    return 0;
}

static int check(pz *z, hk_dist *d, int at)
{
    switch (d->kind) {
    case HK_DIST_UNIFORM:
        return d->p[1] < d->p[0] ? err(z, at, "max >= min") : 0;
    case HK_DIST_LOGNORMAL:
        return d->p[0] <= 0 || d->p[1] < 0 ? err(z, at, "median > 0 and sigma >= 0") : 0;
    case HK_DIST_EXPONENTIAL:
        return d->p[0] <= 0 ? err(z, at, "mean > 0") : 0;
    case HK_DIST_GAMMA: case HK_DIST_WEIBULL: case HK_DIST_PARETO:
        return d->p[0] <= 0 || d->p[1] <= 0 ? err(z, at, "shape > 0 and scale > 0") : 0;
    case HK_DIST_NORMAL:
        return d->p[1] < 0 ? err(z, at, "sd >= 0") : 0;
    default:
        return 0;
    }
}

static int params(pz *z, const spec *sp_, hk_dist *d)
{
    int got[2] = {0, 0}, pos = 0, at0 = z->i;
    char tok[256];
    for (;;) {
        int at;
        token(z, tok, sizeof tok, &at);
        char *eq = strchr(tok, '=');
        int k = pos;
        char *val = tok;
        if (eq) {
            *eq = '\0';
            val = eq + 1;
            while (*val == ' ')
                val++;
            for (k = 0; k < sp_->nparams && strcmp(tok, sp_->pn[k]); k++)
                ;
            if (k == sp_->nparams) {
                char w[128];
                snprintf(w, sizeof w, "a parameter of %s: %s=%s%s%s", sp_->name, sp_->pn[0],
                         sp_->nparams == 2 ? " or " : "", sp_->nparams == 2 ? sp_->pn[1] : "",
                         sp_->nparams == 2 ? "=" : "");
                return err(z, at, w);
            }
        }
        if (k >= sp_->nparams || got[k])
            return err(z, at, "no more parameters");
        if (number(z, val, at + (int)(val - tok), sp_->is_time[k], &d->p[k]) < 0)
            return -1;
        got[k] = 1;
        pos++;
        if (z->s[z->i] != ',')
            break;
        z->i++;
    }
    for (int k = 0; k < sp_->nparams; k++)
        if (!got[k]) {
            char w[96];
            snprintf(w, sizeof w, "%s= (%s takes %s%s%s)", sp_->pn[k], sp_->name, sp_->pn[0],
                     sp_->nparams == 2 ? " and " : "", sp_->nparams == 2 ? sp_->pn[1] : "");
            return err(z, z->i, w);
        }
    return check(z, d, at0);
}

static int empirical(pz *z, hk_dist *d)
{
    int at;
    token(z, d->path, sizeof d->path, &at);
    if (!d->path[0] || z->s[z->i] != ',')
        return err(z, z->i, "a CSV file name, ',' and a column");
    z->i++;
    token(z, d->column, sizeof d->column, &at);
    if (!d->column[0])
        return err(z, at, "a column name or 1-based number");
    return 0;
}

static int mix(pz *z, hk_dist *d)
{
    double total = 0;
    for (;;) {
        sp(z);
        char *end;
        double w = strtod(z->s + z->i, &end);
        if (end == z->s + z->i || !(w > 0 && w <= HK_DIST_MAX_PARAM))
            return err(z, z->i, "a positive weight before each part of mix()");
        z->i = (int)(end - z->s);
        hk_dist **parts = realloc(d->parts, (size_t)(d->nparts + 1) * sizeof *parts);
        double *cum = realloc(d->cum, (size_t)(d->nparts + 1) * sizeof *cum);
        if (parts)
            d->parts = parts;
        if (cum)
            d->cum = cum;
        if (!parts || !cum)
            return err(z, z->i, "less memory use");
        d->parts[d->nparts] = NULL;
        total += w;
        d->cum[d->nparts] = total;
        if (dist(z, &d->parts[d->nparts++]) < 0)
            return -1;
        sp(z);
        if (z->s[z->i] != ',')
            break;
        z->i++;
    }
    for (int k = 0; k < d->nparts; k++)
        d->cum[k] /= total;
    return 0;
}

/* A bare time ("5ms", "2.5" = ms) is constant(time). */
static int bare_time(pz *z, hk_dist **out)
{
    int at = z->i, k = 0;
    char tok[64];
    while (z->s[z->i] && z->s[z->i] != ',' && z->s[z->i] != ')' && k < 63)
        tok[k++] = z->s[z->i++];
    while (k > 0 && isspace((unsigned char)tok[k - 1]))
        k--;
    tok[k] = '\0';
    hk_dist *d = calloc(1, sizeof *d);
    if (!d)
        return err(z, at, "less memory use");
    *out = d;
    d->kind = HK_DIST_CONSTANT;
    return number(z, tok, at, 1, &d->p[0]);
}

static int dist(pz *z, hk_dist **out)
{
    sp(z);
    int at = z->i;
    if (isdigit((unsigned char)z->s[z->i]) || z->s[z->i] == '.')
        return bare_time(z, out);
    char name[32];
    int k = 0;
    while (isalpha((unsigned char)z->s[z->i]) && k < 31)
        name[k++] = z->s[z->i++];
    name[k] = '\0';
    sp(z);
    if (!k || z->s[z->i] != '(')
        return err(z, k ? z->i : at, k ? "'(' after the distribution name"
                   : "a time such as 5ms or a distribution: constant, uniform, normal, "
                     "lognormal, exponential, gamma, weibull, pareto, empirical or mix");
    z->i++;
    hk_dist *d = calloc(1, sizeof *d);
    if (!d)
        return err(z, at, "less memory use");
    *out = d;
    int rc;
    if (!strcmp(name, "empirical")) {
        d->kind = HK_DIST_EMPIRICAL;
        rc = empirical(z, d);
    } else if (!strcmp(name, "mix")) {
        d->kind = HK_DIST_MIX;
        rc = mix(z, d);
    } else {
        size_t s = 0;
        while (s < sizeof specs / sizeof specs[0] && strcmp(specs[s].name, name))
            s++;
        if (s == sizeof specs / sizeof specs[0])
            return err(z, at, "a distribution: constant, uniform, normal, lognormal, "
                       "exponential, gamma, weibull, pareto, empirical or mix");
        d->kind = specs[s].kind;
        rc = params(z, &specs[s], d);
    }
    if (rc < 0)
        return -1;
    sp(z);
    if (z->s[z->i] != ')')
        return err(z, z->i, "')' closing the distribution");
    z->i++;
    return 0;
}

int hk_dist_parse(const char *s, hk_dist **out, int *bad, char *what, int nwhat)
{
    *out = NULL;
    pz z = {.s = s, .bad = bad, .what = what, .nwhat = nwhat};
    hk_dist *d = NULL;
    int rc = dist(&z, &d);
    sp(&z);
    if (rc == 0 && s[z.i])
        rc = err(&z, z.i, "end of the distribution");
    if (rc < 0) {
        hk_dist_free(d);
        return -1;
    }
    *out = d;
    return 0;
}

void hk_dist_free(hk_dist *d)
{
    if (!d)
        return;
    for (int k = 0; k < d->nparts; k++)
        hk_dist_free(d->parts[k]);
    free(d->parts);
    free(d->cum);
    free(d->samples);
    free(d);
}

static double draw(const hk_dist *d, gsl_rng *r);

double hk_dist_sample_any(const hk_dist *d, gsl_rng *r)
{
    double x = draw(d, r);
    return x >= 0 ? (x <= HK_DIST_MAX_US ? x : HK_DIST_MAX_US) : 0.0; /* NaN too */
}

void hk_dist_ahead_init(hk_dist_ahead *a, const hk_dist *d, gsl_rng *r)
{
    a->d = d;
    a->r = r;
    a->i = a->n = 0;
}

void hk_dist_ahead_fill(hk_dist_ahead *a)
{
    for (int k = 0; k < HK_DIST_AHEAD; k++)
        a->v[k] = hk_dist_sample(a->d, a->r);
    a->i = 0;
    a->n = HK_DIST_AHEAD;
}

static double draw(const hk_dist *d, gsl_rng *r)
{
    switch (d->kind) {
    case HK_DIST_CONSTANT: return d->p[0];
    case HK_DIST_UNIFORM: return gsl_ran_flat(r, d->p[0], d->p[1]);
    case HK_DIST_NORMAL:
        for (int k = 0; k < 64; k++) {
            double x = d->p[0] + gsl_ran_gaussian_ziggurat(r, d->p[1]);
            if (x >= 0)
                return x;
        }
        return 0.0;
    case HK_DIST_LOGNORMAL: return gsl_ran_lognormal(r, log(d->p[0]), d->p[1]);
    case HK_DIST_EXPONENTIAL: return gsl_ran_exponential(r, d->p[0]);
    case HK_DIST_GAMMA: return gsl_ran_gamma(r, d->p[0], d->p[1]);
    case HK_DIST_WEIBULL: return gsl_ran_weibull(r, d->p[1], d->p[0]);
    case HK_DIST_PARETO: return gsl_ran_pareto(r, d->p[0], d->p[1]);
    case HK_DIST_EMPIRICAL:
        return d->nsamples ? d->samples[gsl_rng_uniform_int(r, (unsigned long)d->nsamples)] : 0;
    case HK_DIST_MIX: {
        double u = gsl_rng_uniform(r);
        int k = 0;
        while (k < d->nparts - 1 && u >= d->cum[k])
            k++;
        return draw(d->parts[k], r);
    }
    }
    return 0.0;
}

double hk_dist_mean(const hk_dist *d)
{
    switch (d->kind) {
    case HK_DIST_CONSTANT: return d->p[0];
    case HK_DIST_UNIFORM: return (d->p[0] + d->p[1]) / 2;
    case HK_DIST_NORMAL: return d->p[0]; /* before truncation */
    case HK_DIST_LOGNORMAL: return d->p[0] * exp(d->p[1] * d->p[1] / 2);
    case HK_DIST_EXPONENTIAL: return d->p[0];
    case HK_DIST_GAMMA: return d->p[0] * d->p[1];
    case HK_DIST_WEIBULL: return d->p[1] * tgamma(1 + 1 / d->p[0]);
    case HK_DIST_PARETO: return d->p[0] > 1 ? d->p[0] * d->p[1] / (d->p[0] - 1) : INFINITY;
    case HK_DIST_EMPIRICAL: {
        double s = 0;
        for (long k = 0; k < d->nsamples; k++)
            s += d->samples[k];
        return d->nsamples ? s / (double)d->nsamples : 0;
    }
    case HK_DIST_MIX: {
        double s = 0, prev = 0;
        for (int k = 0; k < d->nparts; k++) {
            s += (d->cum[k] - prev) * hk_dist_mean(d->parts[k]);
            prev = d->cum[k];
        }
        return s;
    }
    }
    return 0.0;
}

hk_dist *hk_dist_next_empirical(hk_dist *d)
{
    if (!d)
        return NULL;
    if (d->kind == HK_DIST_EMPIRICAL && !d->samples)
        return d;
    for (int k = 0; k < d->nparts; k++) {
        hk_dist *e = hk_dist_next_empirical(d->parts[k]);
        if (e)
            return e;
    }
    return NULL;
}

void hk_dist_set_samples(hk_dist *d, double *samples, long n)
{
    free(d->samples);
    d->samples = samples;
    d->nsamples = n;
}
