/* hasim: the simulator's commands (one file each, on the command kit hk_cmd), sharing
 * the options of a plain run; the work itself is sim/'s (sim_job: one run).
 *   hasim SCENARIO ...        hasim_run.c: one run, or every strategy/variant side by side
 *   hasim init ...            hasim_init.c: a scenario from production files
 *   hasim sweep SCENARIO ...  hasim_sweep.c: the advisor
 *   hasim merge DIR...        hasim_merge.c: shards of a sweep into one */
#ifndef HASIM_H
#define HASIM_H

#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include "hk_cmd.h"
#include "hk_plot.h"
#include "hk_scnload.h"
#include "sim.h"
#include "sim_job.h"
#include "sim_report.h"

typedef struct hasim_args {
    const char *scenario, *out;
    char outbuf[1024];
    long long seed;              /* -1 = scenario's */
    int strategy, variant;       /* one of each: -1 = the scenario's (or a comparison) */
    int nstrat, strats[HK_STRAT_N]; /* --strategy's list (0: none given) */
    int nvar, vars[HK_VAR_N];    /* --variant's list */
    int compare;                 /* more than one strategy or variant: one folder a run */
    int64_t duration_us;
    int queries, plot, quiet, no_exec, check, force;
    int allow_changed;           /* run although an input init pinned has changed */
    int out_default;             /* --out not given: out/<scenario>, replaced by the next run */
    const char *fail_on;         /* --fail-on's kinds (comma list), or NULL */
    volatile sig_atomic_t *stop; /* the signal that asked the command to stop (0: none) */
    hk_plot_sel sel;             /* what the plots draw */
    int ntmap;                   /* --table-map LOG=CONF, added to the scenario's table_map */
    const char *tmap[HK_TMAP_MAX];
} hasim_args;

/* A job for a's runs: its progress line, its --table-map, its --fail-on. */
void hasim_job(sim_job *j, hk_loaded *L, const hasim_args *a, int total);
/* A job's progress line (sim_job.progress): prog's, unless quiet. */
void hasim_job_progress(sim_job *j, double frac, const char *what);
/* The exit code of what a run came to (SIM_JOB_*), what stopped it said as prog's (e NULL:
 * said already). */
int hasim_job_exit(const sim_job *j, int rc, const char *prog, const hk_err *e);

/* Each command ends early and cleanly when *stop becomes a signal number (main's handler sets
 * it): its folder emptied, exit 128 + that number. */
int hasim_run(int argc, char **argv, volatile sig_atomic_t *stop);
/* hasim_check.c: SCENARIO --check — run what its expect { } claims need, say which hold. */
int hasim_check(const hasim_args *a);
int hasim_init(int argc, char **argv);
int hasim_sweep(int argc, char **argv, volatile sig_atomic_t *stop);
int hasim_merge(int argc, char **argv);

#endif
