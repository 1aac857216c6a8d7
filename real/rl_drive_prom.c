/* rl_drive_prom: what a wire master did, counted per mirror as its lines finish, and written
 * as Prometheus metrics (hakarma_master_*). */
#include "rl_drive.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int rl_drive_stats_init(rl_drive_stats *st, int nhosts)
{
    memset(st, 0, sizeof *st);
    st->lines = calloc((size_t)nhosts + 1, sizeof *st->lines);
    st->latency = calloc((size_t)nhosts + 1, sizeof *st->latency);
    st->nhosts = nhosts;
    return st->lines && st->latency ? 0 : -1;
}

void rl_drive_stats_free(rl_drive_stats *st)
{
    free(st->lines);
    free(st->latency);
    memset(st, 0, sizeof *st);
}

void rl_drive_count(rl_drive_stats *st, const rl_outcome *o, int host, int last, int qok,
                    int open_loop)
{
    if (!st->lines || host < 0 || host >= st->nhosts)
        return;
    int k = o->kind;
    st->lines[host][k]++;
    if (k == HK_EV_SUCCESS || k == HK_EV_WARNING)
        rl_prom_observe(&st->latency[host], (double)(o->t_done_us - o->t_sent_us) / 1e6);
    if (!last)
        return;
    st->answered += qok == 1;
    st->partial += qok == 0;
    st->failed += qok < 0;
    if (open_loop && o->t_sent_us >= o->t_sched_us)
        rl_prom_observe(&st->lag, (double)(o->t_sent_us - o->t_sched_us) / 1e6);
}

static void per_mirror(const rl_drive *d, hk_buf *b)
{
    const rl_drive_stats *st = &d->st;
    char l[400], name[256];
    rl_prom_family(b, "hakarma_master_lines_total", "counter",
                   "finished query lines by the mirror that took them and their outcome "
                   "(searchd's counter names)");
    for (int h = 0; h < st->nhosts; h++) {
        rl_prom_escape(d->cl->hosts[h].name, name, sizeof name);
        for (int k = 0; k < RL_OUT_N; k++) {
            snprintf(l, sizeof l, "mirror=\"%s\",outcome=\"%s\"", name, rl_outcome_name(k));
            rl_prom_count(b, "hakarma_master_lines_total", l, st->lines[h][k]);
        }
    }
    rl_prom_family(b, "hakarma_master_line_latency_seconds", "histogram",
                   "answered lines (ok or warning), from sending to the reply, per mirror");
    for (int h = 0; h < st->nhosts; h++) {
        rl_prom_escape(d->cl->hosts[h].name, name, sizeof name);
        snprintf(l, sizeof l, "mirror=\"%s\"", name);
        rl_prom_histogram(b, "hakarma_master_line_latency_seconds", l, &st->latency[h]);
    }
}

void rl_drive_metrics(const rl_drive *d, hk_buf *b)
{
    const rl_drive_stats *st = &d->st;
    per_mirror(d, b);
    rl_prom_family(b, "hakarma_master_queries_total", "counter",
                   "queries by what became of them (answered by every line, partial, failed; "
                   "not_sent: stopped by a signal; unknown_table: the config lacks it)");
    rl_prom_count(b, "hakarma_master_queries_total", "outcome=\"answered\"", st->answered);
    rl_prom_count(b, "hakarma_master_queries_total", "outcome=\"partial\"", st->partial);
    rl_prom_count(b, "hakarma_master_queries_total", "outcome=\"failed\"", st->failed);
    rl_prom_count(b, "hakarma_master_queries_total", "outcome=\"not_sent\"", d->not_sent);
    rl_prom_count(b, "hakarma_master_queries_total", "outcome=\"unknown_table\"", d->unknown);
    rl_prom_family(b, "hakarma_master_schedule_lag_seconds", "histogram",
                   "an open loop's sending behind the trace's or arrivals' schedule");
    rl_prom_histogram(b, "hakarma_master_schedule_lag_seconds", NULL, &st->lag);
    rl_prom_family(b, "hakarma_master_sending", "gauge", "1 while it still sends, 0 after");
    rl_prom_count(b, "hakarma_master_sending", NULL, (uint64_t)!d->finished);
}
