/* sweep_batch: shards from a batch engine's environment, and the files that submit a sweep to
 * one (see sweep_batch.h). */
#include "sweep_batch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hk_buf.h"
#include "hk_file.h"

sweep_engine sweep_engine_find(const char *name)
{
    return !strcmp(name, "slurm") ? SE_SLURM : !strcmp(name, "k8s") ? SE_K8S : SE_NONE;
}

/* A variable of the engine's as a whole number from lo; -1 when absent or not one. */
static int env_num(const char *name, long long lo, long long *out, char *msg, size_t len)
{
    const char *v = getenv(name);
    char *end;
    long long x = v ? strtoll(v, &end, 10) : 0;
    if (!v || !*v || *end || x < lo || x > 100000) {
        snprintf(msg, len, "%s: expected a whole number from %lld (the batch engine sets it), "
                 "got %s%s%s", name, lo, v ? "'" : "nothing", v ? v : "", v ? "'" : "");
        return -1;
    }
    *out = x;
    return 0;
}

int sweep_shard_from_env(sweep_engine e, long long *k, long long *n, char *msg, size_t len)
{
    long long id, lo, hi, step = 1;
    if (e == SE_K8S) {
        if (env_num("JOB_COMPLETION_INDEX", 0, &id, msg, len) < 0 ||
            env_num("HAKARMA_SHARD_COUNT", 1, n, msg, len) < 0)
            return -1;
        *k = id + 1;
    } else {
        if (env_num("SLURM_ARRAY_TASK_ID", 0, &id, msg, len) < 0 ||
            env_num("SLURM_ARRAY_TASK_MIN", 0, &lo, msg, len) < 0 ||
            env_num("SLURM_ARRAY_TASK_MAX", lo, &hi, msg, len) < 0 ||
            (getenv("SLURM_ARRAY_TASK_STEP") &&
             env_num("SLURM_ARRAY_TASK_STEP", 1, &step, msg, len) < 0))
            return -1;
        if ((id - lo) % step) {
            snprintf(msg, len, "SLURM_ARRAY_TASK_ID %lld is not on the array's steps (%lld-%lld:"
                     "%lld)", id, lo, hi, step);
            return -1;
        }
        *k = (id - lo) / step + 1;
        *n = (hi - lo) / step + 1;
    }
    if (*k > *n) {
        snprintf(msg, len, "shard %lld of %lld: the task index lies past the array", *k, *n);
        return -1;
    }
    return 0;
}

int sweep_shell_quote(const char *s, char *b, size_t n)
{
    size_t o = 0;
    if (n < 3)
        return -1;
    b[o++] = '\'';
    for (; *s; s++) {
        const char *piece = *s == '\'' ? "'\\''" : NULL;
        size_t l = piece ? 4 : 1;
        if (o + l + 2 > n)
            return -1;
        if (piece)
            memcpy(b + o, piece, l);
        else
            b[o] = *s;
        o += l;
    }
    b[o++] = '\'';
    b[o] = '\0';
    return 0;
}

void sweep_emit_size(const sweep_emit_cfg *c, long *time_s, long *mem_mb)
{
    long per_task = (c->points + c->tasks - 1) / c->tasks;
    double t = 2.0 * (double)per_task * (double)c->reps * c->pilot_s + 30.0;
    *time_s = t < 60 ? 60 : (long)t + 1;
    *mem_mb = 2 * c->pilot_mb < 256 ? 256 : 2 * c->pilot_mb;
}

static int slurm(const sweep_emit_cfg *c, long time_s, long mem_mb, hk_err *err)
{
    char part[200] = "", d[1100];
    if (c->partition)
        snprintf(part, sizeof part, "#SBATCH --partition=%s\n", c->partition);
    if (sweep_shell_quote(c->dir, d, sizeof d) < 0)
        return hk_err_set(err, c->dir, 0, 0, "the folder's name is too long");
    hk_buf b;
    hk_buf_init(&b);
    hk_buf_printf(&b, "#!/bin/bash\n# hakarma sweep: %ld points x %ld replications in %ld array "
                  "tasks (written by hasim sweep --emit slurm)\n#SBATCH --job-name=hakarma-sweep\n"
                  "#SBATCH --array=1-%ld\n#SBATCH --ntasks=1\n#SBATCH --cpus-per-task=1\n"
                  "#SBATCH --time=%ld:%02ld:%02ld\n#SBATCH --mem=%ldM\n%s"
                  "#SBATCH --output=%s/logs/sweep-%%A_%%a.out\n"
                  "# a preempted or requeued task finishes its shard (--resume)\n"
                  "exec '%s' sweep %s --shard slurm --resume --quiet --out %s/shards/"
                  "\"$SLURM_ARRAY_TASK_ID\"\n", c->points, c->reps, c->tasks, c->tasks,
                  time_s / 3600, time_s / 60 % 60, time_s % 60, mem_mb, part, c->dir, c->hasim,
                  c->args, d);
    int rc = b.oom ? -1 : hk_out_write_all(c->dir, "sweep.sbatch", b.s, b.len, err);
    hk_buf_reset(&b);
    hk_buf_printf(&b, "#!/bin/bash\n# hakarma sweep: the merge of the %ld shards, once every "
                  "array task succeeded (submit.sh: --dependency=afterok)\n"
                  "#SBATCH --job-name=hakarma-merge\n#SBATCH --ntasks=1\n#SBATCH --time=0:30:00\n"
                  "#SBATCH --mem=1024M\n%s#SBATCH --output=%s/logs/merge-%%j.out\n"
                  "exec '%s' merge %s/shards/* --out %s/result --force\n", c->tasks, part, c->dir,
                  c->hasim, d, d);
    rc |= b.oom ? -1 : hk_out_write_all(c->dir, "merge.sbatch", b.s, b.len, err);
    hk_buf_reset(&b);
    hk_buf_printf(&b, "#!/bin/sh\n# submit the sweep's array, then its merge after it (afterok):"
                  " the result is in %s/result\nset -e\ncd %s\nmkdir -p logs\n"
                  "jid=$(sbatch --parsable sweep.sbatch)\nmid=$(sbatch --parsable "
                  "--dependency=afterok:\"${jid%%%%;*}\" \"$@\" merge.sbatch)\n"
                  "echo \"array $jid, merge $mid\"\n", c->dir, d);
    rc |= b.oom ? -1 : hk_out_write_all(c->dir, "submit.sh", b.s, b.len, err);
    hk_buf_free(&b);
    return rc ? -1 : 0;
}

static int k8s(const sweep_emit_cfg *c, long time_s, long mem_mb, hk_err *err)
{
    long par = c->tasks < 8 ? c->tasks : 8;
    hk_buf b;
    hk_buf_init(&b);
    hk_buf_printf(&b, "# hakarma sweep: %ld points x %ld replications as an Indexed Job of %ld "
                  "completions (written by hasim sweep --emit k8s). The image must hold hasim at "
                  "/usr/local/bin/hasim; the scenario and the shards live on the volume "
                  "'hakarma-sweep' (a ReadWriteMany claim) at /data.\n"
                  "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: hakarma-sweep\nspec:\n"
                  "  completionMode: Indexed\n  completions: %ld\n  parallelism: %ld\n"
                  "  backoffLimitPerIndex: 2\n  activeDeadlineSeconds: %ld\n  template:\n"
                  "    spec:\n      restartPolicy: Never\n      containers:\n"
                  "      - name: sweep\n        image: hakarma:latest\n"
                  "        command: [\"sh\", \"-c\", \"exec /usr/local/bin/hasim sweep %s "
                  "--shard k8s --resume --quiet --out /data/shards/$JOB_COMPLETION_INDEX\"]\n"
                  "        env:\n        - name: HAKARMA_SHARD_COUNT\n          value: \"%ld\"\n"
                  "        resources:\n          requests: {cpu: \"1\", memory: \"%ldMi\"}\n"
                  "          limits: {memory: \"%ldMi\"}\n        volumeMounts:\n"
                  "        - {name: data, mountPath: /data}\n      volumes:\n      - name: data\n"
                  "        persistentVolumeClaim: {claimName: hakarma-sweep}\n", c->points,
                  c->reps, c->tasks, c->tasks, par, time_s * ((c->tasks + par - 1) / par),
                  c->args, c->tasks, mem_mb, mem_mb);
    int rc = b.oom ? -1 : hk_out_write_all(c->dir, "sweep-job.yaml", b.s, b.len, err);
    hk_buf_reset(&b);
    hk_buf_printf(&b, "# hakarma sweep: the merge of its %ld shards (apply once hakarma-sweep is "
                  "complete: submit-k8s.sh waits for it)\napiVersion: batch/v1\nkind: Job\n"
                  "metadata:\n  name: hakarma-merge\nspec:\n  completions: 1\n  template:\n"
                  "    spec:\n      restartPolicy: Never\n      containers:\n"
                  "      - name: merge\n        image: hakarma:latest\n"
                  "        command: [\"sh\", \"-c\", \"exec /usr/local/bin/hasim merge "
                  "/data/shards/* --out /data/result --force\"]\n        volumeMounts:\n"
                  "        - {name: data, mountPath: /data}\n      volumes:\n      - name: data\n"
                  "        persistentVolumeClaim: {claimName: hakarma-sweep}\n", c->tasks);
    rc |= b.oom ? -1 : hk_out_write_all(c->dir, "merge-job.yaml", b.s, b.len, err);
    hk_buf_reset(&b);
    hk_buf_printf(&b, "#!/bin/sh\n# run the sweep's Indexed Job, wait for it, then its merge\n"
                  "set -e\ncd \"$(dirname \"$0\")\"\nkubectl apply -f sweep-job.yaml\n"
                  "kubectl wait --for=condition=complete --timeout=-1s job/hakarma-sweep\n"
                  "kubectl apply -f merge-job.yaml\n"
                  "kubectl wait --for=condition=complete --timeout=-1s job/hakarma-merge\n");
    rc |= b.oom ? -1 : hk_out_write_all(c->dir, "submit-k8s.sh", b.s, b.len, err);
    hk_buf_free(&b);
    return rc ? -1 : 0;
}

int sweep_emit(const sweep_emit_cfg *c, hk_err *err)
{
    long time_s, mem_mb;
    sweep_emit_size(c, &time_s, &mem_mb);
    return c->engine == SE_K8S ? k8s(c, time_s, mem_mb, err) : slurm(c, time_s, mem_mb, err);
}
