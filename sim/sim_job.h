/* sim_job: one run of a loaded scenario, the step every hasim command repeats — the trace
 * rewound, the streams opened in the output folder, the simulation and its analysis, the
 * files committed only when all are complete (or none left), the run's figures, its report,
 * and what the command wants to see of it (inspect). Prints nothing: what went wrong comes
 * back as a SIM_JOB_* code and an hk_err, progress through the front end's callback. */
#ifndef SIM_JOB_H
#define SIM_JOB_H

#include <signal.h>
#include <stdio.h>
#include "hk_progress.h"
#include "hk_scnload.h"
#include "sim.h"
#include "sim_report.h"

/* What a run came to. */
enum {
    SIM_JOB_DONE = 0,
    SIM_JOB_TMAP,                /* a LOG=CONF pair the config cannot take (e says which) */
    SIM_JOB_INPUT,               /* the trace is malformed (e at its file:line:col) */
    SIM_JOB_FAILED,              /* a file not written, or out of memory (e) */
    SIM_JOB_STOPPED              /* a signal: *stop holds it; the run's files removed */
};

typedef struct sim_job {
    hk_loaded *L;
    const char *scenario;        /* its name in reports */
    int queries;                 /* write queries.csv too */
    const char *fail_on;         /* finding kinds that make failed_on (a comma list), or NULL */
    volatile sig_atomic_t *stop; /* becomes a signal number when the run must stop */
    int ntmap;                   /* LOG=CONF pairs added to the scenario's table_map */
    const char *const *tmap;
    hk_progress prog_line;       /* the front end's, for its progress callback (not read here) */
    int done, total;             /* runs finished, runs the command will make */
    void (*progress)(struct sim_job *j, double frac, const char *what); /* the whole job's
                                    share done (frac < 0: a run ended), or NULL */
    void (*inspect)(void *ictx, const sim_world *w, const sim_result *r); /* each run, or NULL */
    void *ictx;
    int failed_on;               /* a run raised a finding of a fail_on kind */
} sim_job;

/* One simulation of s with o: files into dir (when not NULL), its figures into fig, its report
 * to report (when not NULL), then j->inspect. SIM_JOB_DONE, or what stopped it (e says why but
 * for SIM_JOB_STOPPED). */
int sim_job_run(sim_job *j, hk_scn *s, sim_opts *o, const char *dir, sim_figures *fig,
                FILE *report, hk_err *e);
/* A sim_opts progress callback (ctx: the job) for the job's progress line. */
void sim_job_progress(void *ctx, double frac);

#endif
