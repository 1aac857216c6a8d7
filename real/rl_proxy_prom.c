/* rl_proxy_prom: the proxies' counters as Prometheus metrics (hakarma_proxy_*). */
#include "rl_proxy.h"

#include <stddef.h>
#include <stdio.h>

static void label(const rl_proxy *p, const char *more, char *out, size_t n)
{
    char name[2 * RL_PROXY_NAME_MAX];
    rl_prom_escape(p->name, name, sizeof name);
    snprintf(out, n, "proxy=\"%s\"%s%s", name, more ? "," : "", more ? more : "");
}

static void requests(rl_proxy *const *ps, int n, hk_buf *b)
{
    static const char *fam[2] = {"hakarma_proxy_searches_total", "hakarma_proxy_pings_total"};
    static const char *help[2] = {"SEARCH requests by what the proxy did with them",
                                  "PING requests by what the proxy did with them"};
    char l[256], act[48];
    for (int k = 0; k < 2; k++) {
        rl_prom_family(b, fam[k], "counter", help[k]);
        for (int i = 0; i < n; i++)
            for (int a = 0; a < RL_PX_N; a++) {
                snprintf(act, sizeof act, "action=\"%s\"", rl_px_act_name((rl_px_act)a));
                label(ps[i], act, l, sizeof l);
                rl_prom_count(b, fam[k], l, ps[i]->st.req[k][a]);
            }
    }
}

static void counter(rl_proxy *const *ps, int n, hk_buf *b, const char *name, const char *help,
                    size_t off)
{
    char l[160];
    rl_prom_family(b, name, "counter", help);
    for (int i = 0; i < n; i++) {
        label(ps[i], NULL, l, sizeof l);
        rl_prom_count(b, name, l, *(const uint64_t *)((const char *)&ps[i]->st + off));
    }
}

static void gauges(rl_proxy *const *ps, int n, hk_buf *b)
{
    char l[256], kind[48];
    rl_prom_family(b, "hakarma_proxy_connections", "gauge", "master connections open now");
    for (int i = 0; i < n; i++) {
        label(ps[i], NULL, l, sizeof l);
        rl_prom_count(b, "hakarma_proxy_connections", l, (uint64_t)ps[i]->nconns);
    }
    rl_prom_family(b, "hakarma_proxy_enabled", "gauge", "1 while the proxy listens");
    for (int i = 0; i < n; i++) {
        label(ps[i], NULL, l, sizeof l);
        rl_prom_count(b, "hakarma_proxy_enabled", l, (uint64_t)ps[i]->enabled);
    }
    rl_prom_family(b, "hakarma_proxy_toxics_active", "gauge", "toxics on the proxy, by type");
    for (int i = 0; i < n; i++)
        for (int k = 0; k < RL_TX_N; k++) {
            int on = 0;
            for (int t = 0; t < ps[i]->ntx; t++)
                on += ps[i]->tx[t].kind == (rl_tx_kind)k;
            snprintf(kind, sizeof kind, "type=\"%s\"", rl_tx_kind_name((rl_tx_kind)k));
            label(ps[i], kind, l, sizeof l);
            rl_prom_count(b, "hakarma_proxy_toxics_active", l, (uint64_t)on);
        }
}

static void upstream(rl_proxy *const *ps, int n, hk_buf *b)
{
    static const char *cmd[2] = {"command=\"search\"", "command=\"ping\""};
    char l[256];
    rl_prom_family(b, "hakarma_proxy_upstream_seconds", "histogram",
                   "the agent's time per request, from sending it to its whole reply, toxics aside");
    for (int i = 0; i < n; i++)
        for (int k = 0; k < 2; k++) {
            label(ps[i], cmd[k], l, sizeof l);
            rl_prom_histogram(b, "hakarma_proxy_upstream_seconds", l, &ps[i]->st.upstream[k]);
        }
}

void rl_proxy_metrics(rl_proxy *const *ps, int n, hk_buf *b)
{
    requests(ps, n, b);
    counter(ps, n, b, "hakarma_proxy_connections_accepted_total", "master connections accepted",
            offsetof(rl_proxy_stats, accepted));
    counter(ps, n, b, "hakarma_proxy_connections_refused_total",
            "master connections reset at once (a refuse toxic below toxicity 1, or too many open)",
            offsetof(rl_proxy_stats, refused));
    counter(ps, n, b, "hakarma_proxy_upstream_connect_failures_total",
            "connections to the agent that failed (the master's was reset)",
            offsetof(rl_proxy_stats, upstream_failed));
    counter(ps, n, b, "hakarma_proxy_listen_failures_total",
            "times the port could not be listened on again (another process took it)",
            offsetof(rl_proxy_stats, listen_failed));
    counter(ps, n, b, "hakarma_proxy_persist_total", "PERSIST commands passed on",
            offsetof(rl_proxy_stats, persist));
    gauges(ps, n, b);
    upstream(ps, n, b);
}
