/* rl_cli: what the hareal commands share — output folders, the report. */
#include "rl_cli.h"

#include <inttypes.h>
#include <string.h>
#include <unistd.h>

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
    const hk_cluster *cl = m->c.cl;
    fprintf(out, "%s: variant %s, %" PRIu64 " queries sent\n", title, m->var->name, m->sent);
    fprintf(out, "%-16s %5s %-22s %7s %10s %8s %9s %9s %9s %9s\n", "table", "agent", "mirror",
            "share", "queries", "errors", "p50_ms", "p95_ms", "p99_ms", "p99.9_ms");
    for (int t = 0; t < cl->ntables; t++)
        for (int k = 0; k < cl->tables[t].nlines; k++) {
            int li = m->li_base[t] + k;
            uint64_t sum = 0;
            for (int j = 0; j < m->lines[li]->n; j++)
                sum += m->st[li][j].tq;
            for (int j = 0; j < m->lines[li]->n; j++) {
                const rl_mstat *s = &m->st[li][j];
                fprintf(out, "%-16s %5d %-22s %7.4f %10" PRIu64 " %8" PRIu64 " %9.3f %9.3f %9.3f "
                        "%9.3f\n", cl->tables[t].name, k + 1,
                        cl->hosts[cl->tables[t].lines[k].host[j]].name,
                        sum ? (double)s->tq / (double)sum : 0.0, s->tq, s->terr,
                        ms(hk_hist_quantile(&s->tot, 0.5)), ms(hk_hist_quantile(&s->tot, 0.95)),
                        ms(hk_hist_quantile(&s->tot, 0.99)), ms(hk_hist_quantile(&s->tot, 0.999)));
            }
        }
    fprintf(out, "queries: %" PRIu64 " finished (ok %" PRIu64 ", partial %" PRIu64 ", failed %"
            PRIu64 ", cancelled %" PRIu64 "), %" PRIu64 " not sent, %" PRIu64 " for unknown "
            "tables; latency ms: p50 %.3f  p95 %.3f  p99 %.3f  p99.9 %.3f  mean %.3f\n",
            m->finished, m->ok, m->partial, m->failed, m->cancelled, d->not_sent, d->unknown,
            ms(hk_hist_quantile(&m->all, 0.5)), ms(hk_hist_quantile(&m->all, 0.95)),
            ms(hk_hist_quantile(&m->all, 0.99)), ms(hk_hist_quantile(&m->all, 0.999)),
            ms(hk_hist_mean(&m->all)));
    if (d->concurrency <= 0)
        fprintf(out, "timing lag (sent - scheduled) ms: p50 %.3f  p99 %.3f  max %.3f\n",
                ms(hk_hist_quantile(&d->lag, 0.5)), ms(hk_hist_quantile(&d->lag, 0.99)),
                ms(d->lag.max));
}
