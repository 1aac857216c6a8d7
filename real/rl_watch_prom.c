/* rl_watch_prom: what the watched masters show, as Prometheus metrics (hakarma_watch_*): per
 * master whether it answers and its snapshots; per master, table, agent line and mirror its
 * last window's attempts, share, outcomes by kind, mean latency, alive, the reconstructed
 * weight, and the findings on (a series for each, 1 while on; a kind's total always). */
#include "rl_watch.h"

#include <math.h>
#include <stdio.h>
#include "rl_prom.h"

typedef struct fam {
    const char *name, *type, *help;
} fam;

static const fam per_mirror[] = {
    {"hakarma_watch_mirror_attempts", "gauge",
     "attempts on the mirror in the master's last 1-period window"},
    {"hakarma_watch_mirror_share_ratio", "gauge",
     "the mirror's share of its agent line's attempts in the last window"},
    {"hakarma_watch_mirror_weight_ratio", "gauge",
     "the probability the master's rule gives the mirror, reconstructed from its windows "
     "(searchd prints none)"},
    {"hakarma_watch_mirror_latency_seconds", "gauge",
     "the mirror's mean answer time in the last window (NaN: no answer)"},
    {"hakarma_watch_mirror_alive", "gauge", "1 unless the mirror is dead, stalled or stuck"},
    {"hakarma_watch_mirror_outcomes", "gauge",
     "the mirror's outcomes in the last window by kind (error_reply: ERROR replies, which "
     "2.2.11 records nowhere but in its connects)"}};

static void mirror_samples(hk_buf *b, const char *lab, const hk_wmirror *M, int f)
{
    char l[1100];
    switch (f) {
    case 0: rl_prom_sample(b, per_mirror[f].name, lab, M->attempts); break;
    case 1: rl_prom_sample(b, per_mirror[f].name, lab, M->share >= 0 ? M->share : 0); break;
    case 2: rl_prom_sample(b, per_mirror[f].name, lab, M->prob); break;
    case 3: rl_prom_sample(b, per_mirror[f].name, lab, M->mean_ms > 0 ? M->mean_ms / 1e3 : NAN); break;
    case 4: rl_prom_sample(b, per_mirror[f].name, lab, M->alive); break;
    default:
        for (int k = 0; k < HK_EV_N; k++) {
            snprintf(l, sizeof l, "%.1000s,kind=\"%s\"", lab, hk_ev_name(k));
            rl_prom_sample(b, per_mirror[f].name, l, M->by[k]);
        }
        snprintf(l, sizeof l, "%.1000s,kind=\"error_reply\"", lab);
        rl_prom_sample(b, per_mirror[f].name, l, M->errors);
    }
}

/* The labels of mirror i of line L of master mi, into l. */
static void labels(const rl_watch *w, int mi, const hk_wline *L, int i, char *l, size_t n)
{
    const hk_wmaster *m = &w->w->m[mi];
    char ma[300], t[300], mir[300];
    rl_prom_escape(rl_watch_master_name(w, mi), ma, sizeof ma);
    rl_prom_escape(m->cl->tables[L->table].name, t, sizeof t);
    rl_prom_escape(m->cl->hosts[L->m[i].host].name, mir, sizeof mir);
    snprintf(l, n, "master=\"%.250s\",table=\"%.250s\",agent=\"%d\",mirror=\"%.250s\"", ma, t,
             L->line + 1, mir);
}

static void mirrors(const rl_watch *w, hk_buf *b)
{
    char l[1000], lk[1100];
    for (size_t f = 0; f < sizeof per_mirror / sizeof per_mirror[0]; f++) {
        rl_prom_family(b, per_mirror[f].name, per_mirror[f].type, per_mirror[f].help);
        for (int mi = 0; mi < w->cfg->nmasters; mi++)
            for (int li = 0; w->w->m[mi].cl && li < w->w->m[mi].nlines; li++)
                for (int i = 0; i < w->w->m[mi].lines[li].n; i++) {
                    labels(w, mi, &w->w->m[mi].lines[li], i, l, sizeof l);
                    mirror_samples(b, l, &w->w->m[mi].lines[li].m[i], (int)f);
                }
    }
    rl_prom_family(b, "hakarma_watch_finding_active", "gauge",
                   "1 for each finding on now, by kind (herding: on the first master's series)");
    for (int mi = 0; mi < w->cfg->nmasters; mi++)
        for (int li = 0; w->w->m[mi].cl && li < w->w->m[mi].nlines; li++)
            for (int i = 0; i < w->w->m[mi].lines[li].n; i++) {
                const hk_wmirror *M = &w->w->m[mi].lines[li].m[i];
                for (int k = 0; M->active && k < HK_W_N; k++)
                    if (M->active & (1u << k)) {
                        labels(w, mi, &w->w->m[mi].lines[li], i, l, sizeof l);
                        snprintf(lk, sizeof lk, "%.1000s,kind=\"%s\"", l, hk_wkind_name(k));
                        rl_prom_sample(b, "hakarma_watch_finding_active", lk, 1);
                    }
            }
}

/* A family of one sample per master. */
static void per_master(const rl_watch *w, hk_buf *b, const char *name, const char *type,
                       const char *help, int snaps)
{
    char l[400], ma[300];
    rl_prom_family(b, name, type, help);
    for (int mi = 0; mi < w->cfg->nmasters; mi++) {
        rl_prom_escape(rl_watch_master_name(w, mi), ma, sizeof ma);
        snprintf(l, sizeof l, "master=\"%s\"", ma);
        if (snaps)
            rl_prom_count(b, name, l, rl_watch_master_snaps(w, mi));
        else
            rl_prom_sample(b, name, l, rl_watch_master_up(w, mi));
    }
}

void rl_watch_metrics(const rl_watch *w, hk_buf *b)
{
    char l[64];
    per_master(w, b, "hakarma_watch_master_up", "gauge",
               "1 while the master answers SHOW AGENT STATUS", 0);
    per_master(w, b, "hakarma_watch_snapshots_total", "counter",
               "SHOW AGENT STATUS snapshots read and saved", 1);
    mirrors(w, b);
    rl_prom_family(b, "hakarma_watch_findings", "gauge", "findings on now, by kind");
    for (int k = 0; k < HK_W_N; k++) {
        snprintf(l, sizeof l, "kind=\"%s\"", hk_wkind_name(k));
        rl_prom_sample(b, "hakarma_watch_findings", l, hk_watch_active(w->w, k));
    }
}
