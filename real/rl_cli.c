/* rl_cli: what the hareal commands share — output folders, the report. */
#include "rl_cli.h"

#include <inttypes.h>
#include <string.h>
#include <stdlib.h>
#include <unistd.h>
#include "hk_report.h"

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
        hk_rep_mirror_table(out, rows, n);
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
