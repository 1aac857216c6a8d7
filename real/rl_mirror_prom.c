/* rl_mirror_prom: a mirror's counters as Prometheus metrics (hakarma_mirror_*). */
#include "rl_mirror.h"

#include <stdio.h>

void rl_mirror_metrics(const rl_mirror *m, hk_buf *b)
{
    const rl_mirror_stats *st = &m->st;
    char l[64];
    rl_prom_family(b, "hakarma_mirror_searches_total", "counter",
                   "SEARCH requests by what the mirror did with them (ok, or the fault's outcome)");
    for (int o = 0; o < RL_SV_N; o++) {
        snprintf(l, sizeof l, "outcome=\"%s\"", rl_served_name((rl_served)o));
        rl_prom_count(b, "hakarma_mirror_searches_total", l, st->searches[o]);
    }
    rl_prom_family(b, "hakarma_mirror_pings_total", "counter", "PING requests answered");
    rl_prom_count(b, "hakarma_mirror_pings_total", NULL, st->pings);
    rl_prom_family(b, "hakarma_mirror_refused_requests_total", "counter",
                   "requests answered with an ERROR and a close (unknown command, bad version, "
                   "malformed SEARCH)");
    rl_prom_count(b, "hakarma_mirror_refused_requests_total", NULL, st->refused);
    rl_prom_family(b, "hakarma_mirror_reply_delay_seconds", "histogram",
                   "queueing and service time before each SEARCH reply");
    rl_prom_histogram(b, "hakarma_mirror_reply_delay_seconds", NULL, &st->delay);
    rl_prom_family(b, "hakarma_mirror_connections", "gauge", "connections open now");
    rl_prom_count(b, "hakarma_mirror_connections", NULL, (uint64_t)(m->nopen > 0 ? m->nopen : 0));
    rl_prom_family(b, "hakarma_mirror_connections_accepted_total", "counter",
                   "connections accepted");
    rl_prom_count(b, "hakarma_mirror_connections_accepted_total", NULL, m->accepted);
    rl_prom_family(b, "hakarma_mirror_connections_persistent_total", "counter",
                   "connections a master made persistent (PERSIST), each kept for many searches");
    rl_prom_count(b, "hakarma_mirror_connections_persistent_total", NULL, m->persisted);
    rl_prom_family(b, "hakarma_mirror_workers", "gauge",
                   "workers the queueing model serves with (0: no queue)");
    rl_prom_count(b, "hakarma_mirror_workers", NULL, (uint64_t)m->c.threads);
    rl_prom_family(b, "hakarma_mirror_fault_active", "gauge",
                   "1 for the fault the mirror is in now, 0 for the others");
    for (int f = 0; f < RL_F_N; f++) {
        snprintf(l, sizeof l, "kind=\"%s\"", rl_fault_name((rl_fault)f));
        rl_prom_count(b, "hakarma_mirror_fault_active", l, (uint64_t)(m->fault == (rl_fault)f));
    }
}
