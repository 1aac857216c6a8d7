/* sweep_batch: a sweep on a batch engine an operator already has — which shard a Slurm array
 * task or a Kubernetes Indexed Job pod is (from the variables the engine sets), and the files
 * that submit one: an `sbatch --array` script with its dependent merge job, or an Indexed Job
 * manifest with its merge Job, sized from a timed pilot point. Every name written into them is
 * quoted for its reader (the shell, YAML and Kubernetes' $(VAR) expansion, hk_quote) after
 * hk_name_check refused control characters; no command goes through `sh -c` in a manifest. */
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

#define SWEEP_K8S_MARGIN_S 900   /* the Job's deadline beyond its tasks: scheduling, image pull */
#define SWEEP_ARGS_MAX 32

typedef struct sweep_emit_cfg {
    sweep_engine engine;
    const char *dir;             /* where the files go (absolute) */
    const char *hasim;           /* Slurm: the hasim binary every node runs (absolute) */
    const char *image;           /* Kubernetes: the image, hasim at /usr/local/bin/hasim */
    const char *args[SWEEP_ARGS_MAX]; /* the sweep's own arguments after the scenario, NULL-ended */
    const char *scenario;        /* the bundle's scenario, relative to the bundle (bundle/...) */
    const char *partition;       /* Slurm partition, or NULL: the cluster's default */
    const char *fs_note;         /* Slurm: what is known of --out's filesystem, in words */
    long tasks, points, reps;    /* array tasks / completions; points run; replications */
    double pilot_s;              /* one replication of one point, wall seconds */
    long pilot_mb;               /* its peak memory, MB */
} sweep_emit_cfg;

/* The time and memory a task asks for: 2x the pilot's estimate for its share of the points, at
 * least a minute and 256 MB. */
void sweep_emit_size(const sweep_emit_cfg *c, long *time_s, long *mem_mb);
/* Every name c carries checked (hk_name_check; a Slurm partition also to [A-Za-z0-9_.,-]): 0,
 * or -1 with err naming the field and the offending byte. */
int sweep_emit_check(const sweep_emit_cfg *c, hk_err *err);
/* Write the engine's files into c->dir: Slurm sweep.sbatch, merge.sbatch, submit.sh;
 * Kubernetes sweep-job.yaml, merge-job.yaml, submit-k8s.sh. */
int sweep_emit(const sweep_emit_cfg *c, hk_err *err);
/* What is known of the filesystem holding dir, in words (shared or local, its type), for a
 * Slurm sweep whose nodes must all see it at the same path. */
void sweep_fs_note(const char *dir, char *out, size_t n);

#endif
