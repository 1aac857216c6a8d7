/* hk_expect: the claims of a scenario's expect section (see hk_expect.h). */
#include "hk_expect.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hk_find.h"
#include "hk_keys.h"
#include "hk_strat.h"
#include "hk_time.h"
#include "hk_variant.h"

#define MAXTOK 16

typedef struct tok { char s[280]; int col; } tok;

typedef struct px {
    const hk_conf *c;
    const hk_entry *e;
    hk_err *err;
    tok t[MAXTOK];
    int n, i;
} px;

static int fail(px *x, int k, const char *what)
{
    int col = k < x->n ? x->t[k].col : x->e->vcol + (int)strlen(x->e->value);
    return hk_err_set(x->err, x->c->file, x->e->vline, col, "claim: expected %s", what);
}

static int split(px *x, const char *v)
{
    x->n = 0;
    for (int i = 0; v[i];) {
        while (v[i] == ' ' || v[i] == '\t')
            i++;
        if (!v[i])
            break;
        if (x->n == MAXTOK)
            return fail(x, MAXTOK - 1, "a shorter claim");
        tok *t = &x->t[x->n++];
        t->col = x->e->vcol + i;
        int k = 0;
        while (v[i] && v[i] != ' ' && v[i] != '\t') {
            if (k < (int)sizeof t->s - 1)
                t->s[k++] = v[i];
            i++;
        }
        t->s[k] = '\0';
    }
    return 0;
}

static const char *peek(const px *x) { return x->i < x->n ? x->t[x->i].s : ""; }

/* RUN: before a ':' that ends the first token. */
static int run_spec(px *x, hk_claim *c)
{
    c->variant = -1;
    c->strategy = -1;
    size_t len = strlen(x->t[0].s);
    if (!len || x->t[0].s[len - 1] != ':')
        return 0;
    x->t[0].s[len - 1] = '\0';
    char *slash = strchr(x->t[0].s, '/');
    if (slash) {
        *slash = '\0';
        if ((c->strategy = hk_strat_find_any(slash + 1)) < 0)
            return fail(x, 0, "RUN: a strategy after '/'");
    }
    if (!strcmp(x->t[0].s, "all"))
        c->variant = HK_X_ALL;
    else if (!slash && hk_strat_find_any(x->t[0].s) >= 0) /* a strategy alone: the scenario's variant */
        c->strategy = hk_strat_find_any(x->t[0].s);
    else if ((c->variant = hk_variant_find(x->t[0].s)) < 0)
        return fail(x, 0, "RUN: a variant (manticore, manticore-fixed, sphinx2, documented), a "
                    "strategy, or all, then ':'");
    x->i = 1;
    return 0;
}

static int time_tok(px *x, double *s)
{
    int64_t us;
    int bad;
    const char *what;
    if (hk_time_parse(peek(x), HK_SEC, &us, &bad, &what) < 0)
        return fail(x, x->i, "a time such as 30s or 500ms");
    *s = (double)us / 1e6;
    x->i++;
    return 0;
}

static int num_tok(px *x, double *v, int pct)
{
    char b[64];
    snprintf(b, sizeof b, "%s", peek(x));
    size_t n = strlen(b);
    if (pct && n && b[n - 1] == '%')
        b[n - 1] = '\0';
    int bad;
    const char *what;
    if (hk_real_parse(b, -1e12, 1e12, v, &bad, &what) < 0)
        return fail(x, x->i, pct ? "a percentage such as 1%" : "a number");
    x->i++;
    return 0;
}

/* OP VALUE [+- TOL], the value a time (is_time), a percent or a number. */
static int test(px *x, hk_claim *c, int is_time, int pct)
{
    static const char *ops[] = {"<", "<=", ">", ">=", "="};
    int k = 0;
    while (k < 5 && strcmp(peek(x), ops[k]))
        k++;
    if (k == 5)
        return fail(x, x->i, "a test: <, <=, >, >= or = VALUE +- TOLERANCE");
    c->op = k;
    x->i++;
    if ((is_time ? time_tok(x, &c->value) : num_tok(x, &c->value, pct)) < 0)
        return -1;
    if (!strcmp(peek(x), "+-") || !strcmp(peek(x), "±")) {
        x->i++;
        if ((is_time ? time_tok(x, &c->tol) : num_tok(x, &c->tol, pct)) < 0)
            return -1;
    } else if (c->op == HK_XOP_EQ) {
        return fail(x, x->i, "'+- TOLERANCE' after '= VALUE'");
    }
    return 0;
}

static int mirror_tok(px *x, hk_claim *c)
{
    if (!strchr(peek(x), ':'))
        return fail(x, x->i, "a mirror host:port");
    snprintf(c->mirror, sizeof c->mirror, "%s", peek(x));
    x->i++;
    return 0;
}

static int finding(px *x, hk_claim *c)
{
    if (*peek(x) && hk_find_kind_severe(peek(x)) >= 0) {
        snprintf(c->finding, sizeof c->finding, "%s", peek(x));
        x->i++;
    } else if (c->kind == HK_X_FINDING) {
        char kinds[400] = "a finding kind:";
        size_t o = strlen(kinds);
        for (int k = 0; hk_find_kind(k) && o < sizeof kinds; k++) /* the kinds' one table */
            o += (size_t)snprintf(kinds + o, sizeof kinds - o, "%s %s", k ? "," : "",
                                  hk_find_kind(k));
        return fail(x, x->i, kinds);
    }
    return *peek(x) ? mirror_tok(x, c) : 0;
}

static int assertion(px *x, hk_claim *c)
{
    const char *w = peek(x);
    x->i++;
    if (!strcmp(w, "finding")) {
        c->kind = HK_X_FINDING;
        return finding(x, c);
    }
    if (!strcmp(w, "no") && !strcmp(peek(x), "finding")) {
        x->i++;
        c->kind = HK_X_NO_FINDING;
        return finding(x, c);
    }
    if (!strcmp(w, "share")) {
        c->kind = HK_X_SHARE;
        c->to_s = -1;
        if (mirror_tok(x, c) < 0)
            return -1;
        if (!strcmp(peek(x), "from") && (x->i++, time_tok(x, &c->from_s) < 0))
            return -1;
        if (!strcmp(peek(x), "to") && (x->i++, time_tok(x, &c->to_s) < 0))
            return -1;
        return test(x, c, 0, 0);
    }
    if (!strcmp(w, "connects")) {
        c->kind = HK_X_CONNECTS;
        return mirror_tok(x, c) < 0 ? -1 : test(x, c, 0, 0);
    }
    if (!strcmp(w, "readmit")) {
        c->kind = HK_X_READMIT;
        if (mirror_tok(x, c) < 0)
            return -1;
        if (!strcmp(peek(x), "never")) {
            c->op = HK_XOP_NEVER;
            x->i++;
            return 0;
        }
        return test(x, c, 1, 0);
    }
    if (!strcmp(w, "failed") || !strcmp(w, "p50") || !strcmp(w, "p99") || !strcmp(w, "p999") ||
        !strcmp(w, "mean")) {
        c->kind = w[0] == 'f' ? HK_X_FAILED : HK_X_P99;
        c->q = !strcmp(w, "p50") ? 0.5 : !strcmp(w, "p99") ? 0.99 : !strcmp(w, "mean") ? -1 : 0.999;
        return test(x, c, c->kind == HK_X_P99, c->kind == HK_X_FAILED);
    }
    if (!strcmp(w, "converged")) {
        c->kind = HK_X_CONVERGED;
        if (!strcmp(peek(x), "static") || !strcmp(peek(x), "never")) {
            c->op = peek(x)[0] == 's' ? HK_XOP_STATIC : HK_XOP_NEVER;
            x->i++;
            return 0;
        }
        return test(x, c, 1, 0);
    }
    x->i--;
    return fail(x, x->i, "an assertion: finding, no finding, share, readmit, failed, p50, p99, "
                "p999, mean, converged or connects");
}

static int one(px *x, hk_claim *c)
{
    memset(c, 0, sizeof *c);
    c->line = x->e->vline;
    c->col = x->e->vcol;
    snprintf(c->text, sizeof c->text, "%s", x->e->value);
    x->i = 0;
    if (split(x, x->e->value) < 0)
        return -1;
    if (!x->n)
        return fail(x, 0, "[RUN:] ASSERTION, e.g. 'sphinx2: readmit box2:9312 < 5s'");
    if (run_spec(x, c) < 0 || assertion(x, c) < 0)
        return -1;
    return x->i < x->n ? fail(x, x->i, "the end of the claim") : 0;
}

int hk_expect_parse(const hk_conf *c, hk_claim **out, int *n, hk_err *err)
{
    *out = NULL;
    *n = 0;
    const hk_section *sec = hk_conf_find(c, "expect", NULL);
    if (!sec)
        return 0;
    hk_claim *cl = calloc((size_t)sec->n + 1, sizeof *cl);
    if (!cl)
        return hk_err_set(err, c->file, sec->line, sec->col, "out of memory");
    px x = {.c = c, .err = err, .t = {{"", 0}}};
    for (int i = 0; i < sec->n; i++) {
        x.e = &sec->e[i];
        if (strcmp(x.e->key, "claim")) {
            free(cl);
            return hk_err_set(err, c->file, x.e->line, x.e->col, "unknown key '%s' in expect "
                              "section: expected claim = [RUN:] ASSERTION", x.e->key);
        }
        if (one(&x, &cl[*n]) < 0) {
            free(cl);
            return -1;
        }
        (*n)++;
    }
    *out = cl;
    return 0;
}

const char *hk_expect_op_text(const hk_claim *c, char *buf, int n)
{
    static const char *ops[] = {"<", "<=", ">", ">=", "="};
    if (c->op == HK_XOP_NEVER || c->op == HK_XOP_STATIC)
        snprintf(buf, (size_t)n, "%s", c->op == HK_XOP_NEVER ? "never" : "static");
    else if (c->op == HK_XOP_EQ)
        snprintf(buf, (size_t)n, "= %g +- %g", c->value, c->tol);
    else
        snprintf(buf, (size_t)n, "%s %g", ops[c->op], c->value);
    return buf;
}

int hk_expect_holds(const hk_claim *c, double got)
{
    if (isnan(got))
        return 0;
    switch (c->op) {
    case HK_XOP_LT: return got < c->value;
    case HK_XOP_LE: return got <= c->value;
    case HK_XOP_GT: return got > c->value;
    case HK_XOP_GE: return got >= c->value;
    case HK_XOP_EQ: return fabs(got - c->value) <= c->tol;
    default: return 0;
    }
}
