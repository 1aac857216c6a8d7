/* rl_report: a wire run's end — its folder finished or emptied, and the run in words. */
#include "rl_report.h"

#include <inttypes.h>
#include <stdlib.h>
#include "hk_report.h"

static double ms(double us) { return us / 1000.0; }

void rl_report(FILE *out, const rl_master *m, const rl_drive *d, const char *title,
               const hk_ans *ans, int findings_first)
{
    if (ans && findings_first)
        hk_ans_findings(out, ans);
    fprintf(out, "%s: variant %s, %" PRIu64 " queries sent\n", title, m->var->name, m->sent);
    hk_rep_ledger_table(out, &m->led, ans ? ans->scn : NULL, ans ? ans->fd : NULL,
                        findings_first ? 1000 : 48);
    uint64_t answered = m->ok + m->partial;
    fprintf(out, "queries: %" PRIu64 " finished: answered %" PRIu64 " (ok %" PRIu64 ", partial %"
            PRIu64 "), failed %" PRIu64 ", cancelled %" PRIu64 "; %" PRIu64 " not sent, %" PRIu64
            " for tables the config does not serve%s%s%s\n", m->finished, answered, m->ok,
            m->partial, m->failed, m->cancelled, d->not_sent, d->unknown,
            d->unknown ? " (" : "", d->unknown_names, d->unknown ? ")" : "");
    hk_rep_latency_line(out, &m->all);
    if (m->wrong_replies)
        fprintf(out, "wrong replies: %" PRIu64 "; the first: %s\n", m->wrong_replies,
                m->first_wrong);
    if (d->trace && (d->trace->skipped || d->trace->garbage))
        fprintf(out, "trace: %ld entries that are no search (SHOW, SET, SELECT 1, ...) and %ld "
                "lines that are no log entry were not sent\n", d->trace->skipped,
                d->trace->garbage);
    if (d->trace && d->trace->echoes)
        fprintf(out, "trace: %ld error entries of failed statements (Manticore's ' # error=' "
                "lines) were not sent: a query that ran has its own line\n", d->trace->echoes);
    if (d->trace && d->trace->batched)
        fprintf(out, "trace: %ld searches of multi-query batches were sent as their batch's "
                "one query (the agents got one request per batch)\n", d->trace->batched);
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
