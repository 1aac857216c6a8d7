/* rl_sqldrive_prom: what a real searchd master did with the workload, as Prometheus metrics
 * (hakarma_searchd_*): queries by outcome, their latency and schedule lag, the agents its
 * messages blamed, the status snapshots saved. */
#include "rl_sqldrive.h"

#include <stdio.h>

static void blamed(const rl_sqldrive *d, hk_buf *b)
{
    char l[400], name[256];
    rl_prom_family(b, "hakarma_searchd_agent_failures_total", "counter",
                   "failures searchd's warnings and errors named, by mirror and phase");
    for (int h = 0; h < d->s->cl->nhosts; h++) {
        rl_prom_escape(d->s->cl->hosts[h].name, name, sizeof name);
        snprintf(l, sizeof l, "mirror=\"%s\",phase=\"query\"", name);
        rl_prom_count(b, "hakarma_searchd_agent_failures_total", l, d->fail_query[h]);
        snprintf(l, sizeof l, "mirror=\"%s\",phase=\"connect\"", name);
        rl_prom_count(b, "hakarma_searchd_agent_failures_total", l, d->fail_connect[h]);
    }
}

void rl_sqldrive_metrics(const rl_sqldrive *d, hk_buf *b)
{
    char l[64];
    rl_prom_family(b, "hakarma_searchd_queries_total", "counter",
                   "queries sent to the real searchd master, by outcome (partial: answered "
                   "with a warning)");
    for (int k = 0; k < RL_SQ_N; k++) {
        snprintf(l, sizeof l, "outcome=\"%s\"", rl_sq_status_name(k));
        rl_prom_count(b, "hakarma_searchd_queries_total", l, d->count[k]);
    }
    rl_prom_family(b, "hakarma_searchd_queries_in_flight", "gauge",
                   "queries sent and not yet answered");
    rl_prom_sample(b, "hakarma_searchd_queries_in_flight", NULL, (double)d->inflight);
    rl_prom_family(b, "hakarma_searchd_query_latency_seconds", "histogram",
                   "answered queries (ok or partial), from sending to searchd's answer");
    rl_prom_histogram(b, "hakarma_searchd_query_latency_seconds", NULL, &d->latency);
    rl_prom_family(b, "hakarma_searchd_schedule_lag_seconds", "histogram",
                   "an open loop's sending behind its schedule");
    rl_prom_histogram(b, "hakarma_searchd_schedule_lag_seconds", NULL, &d->lag);
    blamed(d, b);
    rl_prom_family(b, "hakarma_searchd_status_snapshots_total", "counter",
                   "SHOW AGENT STATUS snapshots saved");
    rl_prom_count(b, "hakarma_searchd_status_snapshots_total", NULL, d->snaps);
}
