/* hasim_check: `hasim SCENARIO --check` — run each configuration the
 * scenario's expect { } claims name (once each, with the scenario's seed and
 * duration), and say of every claim whether it holds, with the evidence.
 * Exit 0 when all hold, 1 when one does not, 3 when there is no claim. */
#include <stdlib.h>
#include <string.h>
#include "hasim.h"
#include "hk_file.h"
#include "sim_expect.h"

#define MAXRUNS (HK_VAR_N * (HK_STRAT_N + 1))

typedef struct checkrun { int variant, strategy; } checkrun;

typedef struct checker {
    const hk_scn *s;
    const hasim_args *a;
    checkrun run;                /* the one being evaluated */
    int *ok;                     /* per claim: -1 not run, 0 failed (in some run), 1 held */
    char (*ev)[700];             /* per claim: the evidence of its (first failing) run */
} checker;

/* The runs a claim needs: its own variant/strategy, else the command line's, else the
 * scenario's; "all" is every variant. */
static int claim_runs(const checker *k, const hk_claim *c, checkrun *r)
{
    const hk_scn *s = k->s;
    int strat = c->strategy >= 0 ? c->strategy : k->a->strategy >= 0 ? k->a->strategy
                                                                      : s->strategy;
    if (c->variant == HK_X_ALL) {
        for (int v = 0; v < HK_VAR_N; v++)
            r[v] = (checkrun){v, strat};
        return HK_VAR_N;
    }
    int var = c->variant >= 0 ? c->variant : k->a->variant >= 0 ? k->a->variant : s->variant;
    r[0] = (checkrun){var, strat};
    return 1;
}

static void inspect(void *ictx, const sim_world *w, const sim_result *r)
{
    checker *k = ictx;
    for (int i = 0; i < k->s->nclaims; i++) {
        checkrun runs[HK_VAR_N];
        int n = claim_runs(k, &k->s->claims[i], runs), mine = 0;
        for (int j = 0; j < n; j++)
            mine |= runs[j].variant == k->run.variant && runs[j].strategy == k->run.strategy;
        if (!mine || k->ok[i] == 0)
            continue;
        char ev[600];
        int held = sim_expect_eval(&k->s->claims[i], w, r, ev, sizeof ev);
        snprintf(k->ev[i], sizeof k->ev[i], "%s/%s: %s", hk_variant_get(k->run.variant)->name,
                 k->run.strategy >= 0 ? hk_strat_get(k->run.strategy)->name : "configured", ev);
        k->ok[i] = held;
    }
}

/* Every distinct run the claims need, in a fixed order. */
static int plan(const checker *k, checkrun *runs)
{
    int n = 0;
    for (int i = 0; i < k->s->nclaims; i++) {
        checkrun r[HK_VAR_N];
        int m = claim_runs(k, &k->s->claims[i], r);
        for (int j = 0; j < m; j++) {
            int seen = 0;
            for (int q = 0; q < n; q++)
                seen |= runs[q].variant == r[j].variant && runs[q].strategy == r[j].strategy;
            if (!seen && n < MAXRUNS)
                runs[n++] = r[j];
        }
    }
    return n;
}

static int report(const checker *k, const hasim_args *a, hk_err *e)
{
    hk_out o;
    if (hk_mkdirs(a->out, e) < 0 || hk_out_open(&o, a->out, "check.txt", e) < 0)
        return -1;
    FILE *outs[2] = {a->quiet ? NULL : stdout, o.f};
    int failed = 0;
    for (int i = 0; i < k->s->nclaims; i++)
        failed += k->ok[i] != 1;
    for (int f = 0; f < 2; f++) {
        if (!outs[f])
            continue;
        fprintf(outs[f], "%s: %d claim(s), %d hold, %d do not\n", a->scenario, k->s->nclaims,
                k->s->nclaims - failed, failed);
        for (int i = 0; i < k->s->nclaims; i++)
            fprintf(outs[f], "  %s  %s:%d: %s\n        %s\n", k->ok[i] == 1 ? "holds" : "FAILS",
                    k->s->file, k->s->claims[i].line, k->s->claims[i].text, k->ev[i]);
    }
    return hk_out_commit(&o, e) < 0 ? -1 : failed;
}

int hasim_check(const hasim_args *a)
{
    hk_loaded L;
    hk_err e;
    if (hk_scn_load(a->scenario, !a->no_exec, &L, &e) < 0) {
        hk_print_err("hasim", &e);
        return HK_EXIT_INPUT;
    }
    hk_print_warns("hasim", &L.warns);
    int rc = 0;
    checker k = {.s = L.scn, .a = a, .run = {0, -1},
                 .ok = calloc((size_t)L.scn->nclaims + 1, sizeof(int)),
                 .ev = calloc((size_t)L.scn->nclaims + 1, sizeof *k.ev)};
    if (!L.scn->nclaims) {
        fprintf(stderr, "hasim: %s makes no claim: expected an 'expect { claim = ... }' section\n",
                a->scenario);
        rc = HK_EXIT_INPUT;
    }
    checkrun runs[MAXRUNS];
    int n = rc || !k.ok || !k.ev ? 0 : plan(&k, runs);
    for (int i = 0; k.ok && i < L.scn->nclaims; i++)
        k.ok[i] = -1;
    sim_job c;
    hasim_job(&c, &L, a, n);
    c.inspect = inspect;
    c.ictx = &k;
    for (int i = 0; rc == 0 && i < n; i++) {
        hk_warns w = {0};
        hk_scn *s = hk_loaded_scn(&L, runs[i].variant, &w, &e);
        if (!s) {
            hk_print_err("hasim", &e);
            rc = HK_EXIT_INPUT;
            break;
        }
        k.s = s; /* the claims are the same in every dialect's build */
        k.run = runs[i];
        sim_opts o = {0};
        o.seed = hk_cmd_seed(a->seed, s->seed);
        o.variant = runs[i].variant;
        o.strategy = runs[i].strategy;
        o.duration_us = a->duration_us;
        o.progress = sim_job_progress;
        o.pctx = &c;
        sim_figures fig;
        rc = hasim_job_exit(&c, sim_job_run(&c, s, &o, NULL, &fig, NULL, &e), "hasim", &e);
    }
    if (rc == 0) {
        int failed = report(&k, a, &e);
        if (failed < 0)
            hk_print_err("hasim", &e);
        rc = failed ? HK_EXIT_RUN : 0;
    }
    free(k.ok);
    free(k.ev);
    hk_loaded_free(&L);
    return rc;
}
