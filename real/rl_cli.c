/* rl_cli: what the hareal commands share — options, output folders, the report. */
#include "rl_cli.h"

#include <inttypes.h>
#include <string.h>
#include <stdlib.h>
#include <unistd.h>
#include "hk_cli.h"
#include "hk_report.h"

void rl_common_init(rl_common *c, int variant, long long seed)
{
    memset(c, 0, sizeof *c);
    c->format = HK_TRACE_AUTO;
    c->variant = variant;
    c->strategy = -1;
    c->seed = seed;
    c->sel.master = -1;
}

int rl_fail_on(const rl_common *c, const char *who, const hk_ans *a, int rc)
{
    if (rc || !hk_ans_fail_on(a, c->fail_on))
        return rc;
    fprintf(stderr, "%s: a finding of a kind in --fail-on %s was raised (exit %d)\n", who,
            c->fail_on, RL_EXIT_FINDING);
    return RL_EXIT_FINDING;
}

void rl_common_usage(FILE *f)
{
    fprintf(f,
"  --trace FILE          a CSV (t_s,table,query) or a searchd query log (sphinxql or plain)\n"
"  --format F            csv, sphinxql or plain (default: detected from the first line)\n"
"  --table-map LOG=CONF  a table name of the trace stands for a table of the config\n"
"                        (repeatable)\n"
"  --out DIR             output folder; --force overwrites a finished run\n"
"  --variant V           %s (default manticore)\n"
"  --strategy S          override every line's ha_strategy: %s\n"
"  --seed N              the master's random seed (default 1)\n"
"  --plot                draw the plots; --lines, --mirrors, --master N choose what\n"
"  --no-exec             refuse a config that is a '#!' script\n"
"  --fail-on KINDS       exit 4 when the run raises a finding of these kinds (or severe)\n"
"  --quiet               print nothing but errors\n", hk_variant_names(), hk_strat_all_names());
}

static int opt_err(const char *who, const char *msg, const char *v)
{
    fprintf(stderr, "%s: %s%s%s\n", who, msg, v ? ", got " : "", v ? v : "");
    return -1;
}

static int table_map(rl_common *c, const char *who, const char *v)
{
    const char *eq = strchr(v, '=');
    if (!eq || eq == v || !eq[1] || c->ntmap == RL_TMAP_MAX || strlen(v) >= 255)
        return opt_err(who, "--table-map: expected LOGNAME=CONFIGNAME (at most 64)", v);
    char *b = c->tmap_buf[c->ntmap];
    snprintf(b, 256, "%s", v);
    b[eq - v] = '\0';
    c->tmap[c->ntmap][0] = b;
    c->tmap[c->ntmap][1] = b + (eq - v) + 1;
    c->ntmap++;
    return 0;
}

int rl_common_opt(rl_common *c, const char *who, const char *a, const char *v)
{
    static const char *flags[] = {"--force", "--plot", "--quiet", "--no-exec"};
    int *fl[] = {&c->force, &c->plot, &c->quiet, &c->no_exec};
    for (int k = 0; k < 4; k++)
        if (!strcmp(a, flags[k])) {
            *fl[k] = 1;
            return 1;
        }
    if (!strcmp(a, "--help") || !strcmp(a, "-h") || !strcmp(a, "--version")) {
        c->help = a[2] == 'v' ? 2 : 1;
        return 1;
    }
    static const char *valued[] = {"--trace", "--out", "--format", "--seed", "--variant",
                                   "--strategy", "--table-map", "--lines", "--mirrors",
                                   "--master", "--fail-on"};
    int k = 0, n = (int)(sizeof valued / sizeof valued[0]);
    while (k < n && strcmp(a, valued[k]))
        k++;
    if (k == n)
        return 0;
    if (!v)
        return opt_err(who, "option needs a value:", a);
    long long x;
    switch (k) {
    case 0: c->trace = v; break;
    case 1: c->out = v; break;
    case 2:
        if ((c->format = hk_trace_fmt_parse(v)) < -1)
            return opt_err(who, "--format: expected csv, sphinxql or plain", v);
        break;
    case 3:
        if (hk_cli_int(who, a, v, 0, 4294967295LL, &c->seed) < 0)
            return -1;
        break;
    case 4:
        if ((c->variant = hk_variant_find(v)) < 0)
            return opt_err(who, "--variant: expected manticore, manticore-fixed, sphinx2 or "
                           "documented", v);
        break;
    case 5:
        if ((c->strategy = hk_strat_find_any(v)) < 0)
            return opt_err(who, "--strategy: expected random, roundrobin, nodeads, noerrors, or "
                           "a hakarma extension (p2c, least-outstanding, peak-ewma, c3)", v);
        break;
    case 6:
        if (table_map(c, who, v) < 0)
            return -1;
        break;
    case 7: snprintf(c->sel.lines, sizeof c->sel.lines, "%s", v); break;
    case 8: snprintf(c->sel.mirrors, sizeof c->sel.mirrors, "%s", v); break;
    case 10:
        if (hk_cli_kinds(who, a, v) < 0)
            return -1;
        c->fail_on = v;
        break;
    default:
        if (hk_cli_int(who, a, v, 0, 0, &x) < 0)
            return -1;
        c->sel.master = (int)x;
    }
    return 2;
}

void rl_print_err(const char *who, const hk_err *e)
{
    char m[1100];
    fprintf(stderr, "%s: %s\n", who, hk_err_str(e, m, sizeof m));
}

void rl_print_warns(const char *who, const hk_warns *w)
{
    char m[1100];
    for (int i = 0; i < w->n; i++)
        fprintf(stderr, "%s: warning: %s\n", who, hk_err_str(&w->w[i], m, sizeof m));
    if (w->dropped)
        fprintf(stderr, "%s: %d more warnings\n", who, w->dropped);
}

int rl_outdir(hk_rundir *rd, const char *dir, const char *who, int force, hk_err *err)
{
    return hk_rundir_open(rd, dir, who, force, err);
}

int rl_outdir_close(hk_rundir *rd, int rc)
{
    hk_err e;
    if (rc == 0 || rc == RL_EXIT_FINDING || rc == RL_EXIT_INTERRUPTED) {
        if (hk_rundir_done(rd, &e) == 0)
            return rc;
        rl_print_err("hareal", &e);
        rc = RL_EXIT_RUN;
    }
    hk_rundir_abort(rd);
    return rc;
}

static double ms(double us) { return us / 1000.0; }

void rl_report(FILE *out, const rl_master *m, const rl_drive *d, const char *title,
               const hk_ans *ans, int findings_first)
{
    if (ans && findings_first)
        hk_ans_findings(out, ans);
    fprintf(out, "%s: variant %s, %" PRIu64 " queries sent\n", title, m->var->name, m->sent);
    int n;
    hk_rep_row *rows = rl_master_rows(m, &n);
    if (rows)
        hk_rep_mirror_table(out, rows, n, findings_first ? 1000 : 48);
    free(rows);
    uint64_t answered = m->ok + m->partial;
    fprintf(out, "queries: %" PRIu64 " finished: answered %" PRIu64 " (ok %" PRIu64 ", partial %"
            PRIu64 "), failed %" PRIu64 ", cancelled %" PRIu64 "; %" PRIu64 " not sent, %" PRIu64
            " for tables the config does not serve%s%s%s\n", m->finished, answered, m->ok,
            m->partial, m->failed, m->cancelled, d->not_sent, d->unknown,
            d->unknown ? " (" : "", d->unknown_names, d->unknown ? ")" : "");
    fprintf(out, "latency of answered queries, ms: p50 %.3f  p95 %.3f  p99 %.3f  p99.9 %.3f  "
            "mean %.3f\n", ms(hk_hist_quantile(&m->all, 0.5)), ms(hk_hist_quantile(&m->all, 0.95)),
            ms(hk_hist_quantile(&m->all, 0.99)), ms(hk_hist_quantile(&m->all, 0.999)),
            ms(hk_hist_mean(&m->all)));
    if (m->wrong_replies)
        fprintf(out, "wrong replies: %" PRIu64 "; the first: %s\n", m->wrong_replies,
                m->first_wrong);
    if (d->trace && (d->trace->skipped || d->trace->garbage))
        fprintf(out, "trace: %ld entries that are no search (SHOW, SET, SELECT 1, ...) and %ld "
                "lines that are no log entry were not sent\n", d->trace->skipped,
                d->trace->garbage);
    if (d->concurrency <= 0 && !d->nclients)
        fprintf(out, "timing lag (sent - scheduled) ms: p50 %.3f  p99 %.3f  max %.3f\n",
                ms(hk_hist_quantile(&d->lag, 0.5)), ms(hk_hist_quantile(&d->lag, 0.99)),
                ms(d->lag.max));
    if (ans) {
        hk_ans_conv(out, ans);
        hk_ans_readmit(out, ans);
        if (!findings_first)
            hk_ans_findings(out, ans);
    }
}
