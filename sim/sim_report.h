/* sim_report: what a finished run means — the analysis (hk_find: findings,
 * convergence, re-admission) fed from the world, the per-mirror table, the
 * answered and failed queries, and the run's files: summary.csv,
 * convergence.csv, readmission.csv, findings.csv, timeline.csv, cdf.csv,
 * agent_status.txt (taken when the run ended). */
#ifndef SIM_REPORT_H
#define SIM_REPORT_H

#include <stdio.h>
#include "hk_answer.h"
#include "hk_err.h"
#include "sim.h"

typedef struct sim_result {
    hk_find_in in;
    hk_findings fd;
    hk_ans ans;
    double *util, *work_ms;      /* per host */
    const hk_hist **lat;         /* per series: its line x mirror's answers (all masters) */
    hk_port_fact *ports;         /* where a master's ports ran out */
} sim_result;

#define SIM_MAX_FAULT_CELLS 4
#define SIM_MAX_SHARES 16        /* per-mirror shares a comparison shows (the first mirrors) */

#define SIM_READMIT_NO_FAULT (-2.0)

typedef struct sim_figures {     /* one run, for comparisons and confidence intervals */
    double n, ok, partial, error;       /* queries */
    double mean, p50, p95, p99, p999;   /* ms, over answered queries */
    double failed_rate;                 /* (failed + partial) / n */
    double readmit_s[SIM_MAX_FAULT_CELLS];  /* share back after each fault, s; -1 never;
                                               SIM_READMIT_NO_FAULT: it starts after the run */
    char conv[24];                      /* "static", "never(2)", "120 s" */
    char readmit[SIM_MAX_FAULT_CELLS][48];
    char kinds[160];                    /* findings by kind */
    int nfault_cells;
    int nshares;                        /* mirrors (table x line x mirror, in order), at most
                                           SIM_MAX_SHARES: their share of their line */
    double share[SIM_MAX_SHARES];
} sim_figures;

/* The k-th mirror of sim_figures.share: "table/agent/mirror" into buf; its count in *n. */
void sim_share_label(const hk_scn *s, int k, char *buf, size_t len);
int sim_share_count(const hk_scn *s);

int sim_analyse(const sim_world *w, sim_result *r);
/* What a run's strategy really is: the override, or every line's configured one ("nodeads
 * (configured)"). */
void sim_strategy_label(const hk_scn *s, int strategy, char *buf, size_t n);
void sim_result_free(sim_result *r);
void sim_figures_of(const sim_world *w, const sim_result *r, sim_figures *f);
/* The run in words; findings first (report.txt) or last (stdout). */
void sim_print(FILE *out, const sim_world *w, const sim_result *r, const char *scenario,
               int findings_first);
int sim_write_files(const sim_world *w, const sim_result *r, const char *dir, hk_err *err);

#endif
