/* sweep_run: the runs of a sweep — every point of the grid (or of one shard's slice), R
 * replications each with common random numbers (replication r uses seed + r at every point,
 * whatever process runs it), in N worker processes that die with the sweep; each point's rows
 * sealed into DIR/runs/POINT.csv when complete, a complete point skipped on --resume. */
#ifndef SWEEP_RUN_H
#define SWEEP_RUN_H

#include <stdint.h>
#include "sim_job.h"
#include "sweep_grid.h"
#include "sweep_out.h"

typedef struct sweep_run {
    sim_job job;                 /* each run's: quiet, no folder of its own */
    const sweep_grid *g;
    hk_scn *s;                   /* the scenario the points change (restored from sv) */
    sweep_saved sv;
    const char *out;
    const sweep_meta *m;         /* what each point file is sealed with */
    int reps, jobs, resume;
    long shard_k, shard_n;       /* this process runs points k-1, k-1+n, ... (1-based k) */
    int64_t duration_us;
    long skipped;                /* points already complete (resume) */
    hk_say say;                  /* what went wrong, said where it happened (a worker too) */
} sweep_run;

/* The options of replication seed at point p: the point's settings applied to the scenario. */
void sweep_run_opts(sweep_run *w, long p, unsigned long long seed, int variant, sim_opts *op);
/* Every point of the shard in w->jobs processes: SIM_JOB_DONE, or the first SIM_JOB_* that
 * stopped one (said through w->say as it happened; SIM_JOB_STOPPED when the job's stop asked:
 * the workers are told and waited for). */
int sweep_run_all(sweep_run *w, unsigned long long seed0, int variant);

#endif
