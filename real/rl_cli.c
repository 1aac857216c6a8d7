/* rl_cli: what the hareal commands share — output folders, the report. */
#include "rl_cli.h"

#include <inttypes.h>
#include <string.h>
#include <stdlib.h>
#include <unistd.h>
#include "hk_report.h"

void rl_common_init(rl_common *c, int variant, long long seed)
{
    memset(c, 0, sizeof *c);
    c->format = HK_TRACE_AUTO;
    c->variant = variant;
    c->strategy = -1;
    c->seed = seed;
}

static int opt_err(const char *who, const char *msg)
{
    fprintf(stderr, "%s: %s\n", who, msg);
    return -1;
}

int rl_common_opt(rl_common *c, const char *who, const char *a, const char *v)
{
    if (!strcmp(a, "--force") || !strcmp(a, "--plot")) {
        *(a[2] == 'f' ? &c->force : &c->plot) = 1;
        return 1;
    }
    static const char *valued[] = {"--trace", "--out", "--format", "--seed", "--variant",
                                   "--strategy"};
    int k = 0;
    while (k < 6 && strcmp(a, valued[k]))
        k++;
    if (k == 6)
        return 0;
    if (!v)
        return opt_err(who, "option needs a value");
    char *e;
    switch (k) {
    case 0: c->trace = v; break;
    case 1: c->out = v; break;
    case 2:
        if ((c->format = hk_trace_fmt_parse(v)) < -1)
            return opt_err(who, "--format: expected csv, sphinxql or plain");
        break;
    case 3:
        c->seed = strtoll(v, &e, 10);
        if (*e || c->seed < 0)
            return opt_err(who, "--seed: expected a non-negative integer");
        break;
    case 4:
        if ((c->variant = hk_variant_find(v)) < 0)
            return opt_err(who, "--variant: unknown variant");
        break;
    default:
        if ((c->strategy = hk_strat_find(v)) < 0)
            return opt_err(who, "--strategy: expected random, roundrobin, nodeads or noerrors");
    }
    return 2;
}

void rl_print_err(const char *who, const hk_err *e)
{
    char m[1100];
    fprintf(stderr, "%s: %s\n", who, hk_err_str(e, m, sizeof m));
}

int rl_outdir(const char *dir, int force, hk_err *err)
{
    char p[1100];
    snprintf(p, sizeof p, "%s/queries.csv", dir);
    if (!force && access(p, F_OK) == 0)
        return hk_err_set(err, dir, 0, 0, "holds a finished run (queries.csv): expected a new "
                          "folder, or --force to overwrite it");
    return hk_mkdirs(dir, err);
}

static double ms(double us) { return us / 1000.0; }

void rl_report(FILE *out, const rl_master *m, const rl_drive *d, const char *title)
{
    fprintf(out, "%s: variant %s, %" PRIu64 " queries sent\n", title, m->var->name, m->sent);
    int n;
    hk_rep_row *rows = rl_master_rows(m, &n);
    if (rows)
        hk_rep_mirror_table(out, rows, n, 48);
    free(rows);
    fprintf(out, "queries: %" PRIu64 " finished (ok %" PRIu64 ", partial %" PRIu64 ", failed %"
            PRIu64 ", cancelled %" PRIu64 "), %" PRIu64 " not sent, %" PRIu64 " for unknown "
            "tables; latency ms: p50 %.3f  p95 %.3f  p99 %.3f  p99.9 %.3f  mean %.3f\n",
            m->finished, m->ok, m->partial, m->failed, m->cancelled, d->not_sent, d->unknown,
            ms(hk_hist_quantile(&m->all, 0.5)), ms(hk_hist_quantile(&m->all, 0.95)),
            ms(hk_hist_quantile(&m->all, 0.99)), ms(hk_hist_quantile(&m->all, 0.999)),
            ms(hk_hist_mean(&m->all)));
    if (m->wrong_replies)
        fprintf(out, "wrong replies: %" PRIu64 "; the first: %s\n", m->wrong_replies,
                m->first_wrong);
    if (d->concurrency <= 0)
        fprintf(out, "timing lag (sent - scheduled) ms: p50 %.3f  p99 %.3f  max %.3f\n",
                ms(hk_hist_quantile(&d->lag, 0.5)), ms(hk_hist_quantile(&d->lag, 0.99)),
                ms(d->lag.max));
}
