/* sweep_batch: a sweep on a batch engine an operator already has — which shard a Slurm array
 * task or a Kubernetes Indexed Job pod is (from the variables the engine sets), and the files
 * that submit one: an `sbatch --array` script with its dependent merge job, or an Indexed Job
 * manifest with its merge Job, sized from a timed pilot point. */
#ifndef SWEEP_BATCH_H
#define SWEEP_BATCH_H

#include <stddef.h>
#include "hk_err.h"

typedef enum sweep_engine { SE_NONE, SE_SLURM, SE_K8S } sweep_engine;

/* "slurm" or "k8s"; SE_NONE for anything else. */
sweep_engine sweep_engine_find(const char *name);
/* The shard this task is, 1-based K of N: Slurm's SLURM_ARRAY_TASK_ID (MIN, MAX, STEP, COUNT),
 * Kubernetes' JOB_COMPLETION_INDEX with HAKARMA_SHARD_COUNT (the manifest sets it to the Job's
 * completions). -1 with msg saying which variable is missing or wrong. */
int sweep_shard_from_env(sweep_engine e, long long *k, long long *n, char *msg, size_t len);

typedef struct sweep_emit_cfg {
    sweep_engine engine;
    const char *dir;             /* where the files go (absolute) */
    const char *hasim;           /* the hasim binary (absolute) */
    const char *args;            /* the sweep's own arguments, shell-quoted (scenario, grid, ...) */
    const char *partition;       /* Slurm partition, or NULL: the cluster's default */
    long tasks, points, reps;    /* array tasks / completions; points run; replications */
    double pilot_s;              /* one replication of one point, wall seconds */
    long pilot_mb;               /* its peak memory, MB */
} sweep_emit_cfg;

/* The time and memory a task asks for: 2x the pilot's estimate for its share of the points, at
 * least a minute and 256 MB. */
void sweep_emit_size(const sweep_emit_cfg *c, long *time_s, long *mem_mb);
/* Write the engine's files into c->dir: Slurm sweep.sbatch, merge.sbatch, submit.sh;
 * Kubernetes sweep-job.yaml, merge-job.yaml, submit-k8s.sh. */
int sweep_emit(const sweep_emit_cfg *c, hk_err *err);
/* s single-quoted for a POSIX shell into b (n bytes); -1 if it does not fit. */
int sweep_shell_quote(const char *s, char *b, size_t n);

#endif
