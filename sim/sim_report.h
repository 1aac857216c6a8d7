/* sim_report: what a finished run means — per-mirror shares and latency
 * percentiles, overall query latency, convergence of the probabilities,
 * time to re-admit a mirror after a fault, SHOW AGENT STATUS at the end —
 * printed and written as summary.csv, convergence.csv, agent_status.txt. */
#ifndef SIM_REPORT_H
#define SIM_REPORT_H

#include <stdio.h>
#include "hk_err.h"
#include "sim.h"

typedef struct sim_conv {
    int single;                  /* one mirror: nothing to converge */
    int converged;
    double t_s;                  /* converged from this time on */
    double amplitude;            /* final-window max - min (when never) */
} sim_conv;

typedef struct sim_readmit {
    int known;                   /* 0: no pre-fault share or no fault end */
    int back;
    double before, after_s;      /* pre-fault share; seconds after the fault ended */
} sim_readmit;

typedef struct sim_figures {     /* one run, for comparisons and confidence intervals */
    double n, ok, partial, error;
    double mean, p50, p95, p99, p999;   /* ms */
    double conv_worst_s;         /* latest convergence over HA lines; -1 if one never did */
    int conv_never;
} sim_figures;

#define SIM_CONV_EPS 0.02

void sim_convergence(const sim_world *w, int master, int li, sim_conv *c);
void sim_readmission(const sim_world *w, int fault, sim_readmit *r);
void sim_figures_of(const sim_world *w, sim_figures *f);
void sim_print(FILE *out, const sim_world *w, const char *scenario);
int sim_write_files(const sim_world *w, const char *dir, hk_err *err);
/* Quantile table of overall latency (for CDF plots): q,latency_ms. */
int sim_write_cdf(const sim_world *w, const char *dir, hk_err *err);

#endif
