/* sweep_batch: shards from a batch engine's environment, and the files that submit a sweep to
 * one (see sweep_batch.h). */
#include "sweep_batch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/vfs.h>
#include "hk_buf.h"
#include "hk_file.h"
#include "hk_quote.h"

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

/* What a Slurm partition may be named here: letters, digits, '_', '.', '-', and ',' between
 * several. */
static int partition_ok(const char *p, hk_err *err)
{
    size_t bad = strspn(p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.,-");
    if (*p && !p[bad])
        return 0;
    return hk_err_set(err, "--partition", 0, 0, "expected a partition name of letters, digits, "
                      "'_', '.', '-' (',' between several), got byte 0x%02x at %zu",
                      (unsigned char)p[bad], bad);
}

int sweep_emit_check(const sweep_emit_cfg *c, hk_err *err)
{
    if (hk_name_check("--out", c->dir, err) < 0 || hk_name_check("the scenario", c->scenario, err) < 0 ||
        (c->engine == SE_SLURM && hk_name_check("the hasim binary", c->hasim, err) < 0) ||
        (c->engine == SE_K8S && hk_name_check("--image", c->image, err) < 0) ||
        (c->partition && partition_ok(c->partition, err) < 0))
        return -1;
    for (int k = 0; k < SWEEP_ARGS_MAX && c->args[k]; k++)
        if (hk_name_check("an argument of the sweep", c->args[k], err) < 0)
            return -1;
    return 0;
}

void sweep_emit_size(const sweep_emit_cfg *c, long *time_s, long *mem_mb)
{
    long per_task = (c->points + c->tasks - 1) / c->tasks;
    double t = 2.0 * (double)per_task * (double)c->reps * c->pilot_s + 30.0;
    *time_s = t < 60 ? 60 : (long)t + 1;
    *mem_mb = 2 * c->pilot_mb < 256 ? 256 : 2 * c->pilot_mb;
}

void sweep_fs_note(const char *dir, char *out, size_t n)
{
    static const struct { unsigned long magic; const char *name; int shared; } fs[] = {
        {0x6969, "NFS", 1}, {0xff534d42, "CIFS", 1}, {0xfe534d42, "SMB2", 1},
        {0x0bd00bd0, "Lustre", 1}, {0x47504653, "GPFS", 1}, {0x19830326, "BeeGFS", 1},
        {0x00c36400, "CephFS", 1}, {0x65735546, "FUSE (GlusterFS, CVMFS...)", 1},
        {0x01021997, "9P", 1}, {0xef53, "ext4", 0}, {0x58465342, "XFS", 0},
        {0x9123683e, "Btrfs", 0}, {0x01021994, "tmpfs", 0}, {0x794c7630, "overlayfs", 0}};
    struct statfs st;
    if (statfs(dir, &st) < 0) {
        snprintf(out, n, "its filesystem could not be examined: every node must see it at the "
                 "same path");
        return;
    }
    for (size_t k = 0; k < sizeof fs / sizeof fs[0]; k++)
        if ((unsigned long)st.f_type == fs[k].magic) {
            snprintf(out, n, fs[k].shared ? "it is on %s, a shared filesystem: every node must "
                     "mount it at this same path" : "it is on %s, a local filesystem: right for "
                     "a one-node cluster only; with several nodes, --out must be on a filesystem "
                     "every node mounts at this same path", fs[k].name);
            return;
        }
    snprintf(out, n, "its filesystem (type 0x%lx) is not one hakarma knows as shared: every node "
             "must mount it at this same path", (unsigned long)st.f_type);
}

/* The array task's command: hasim sweep BUNDLE/SCENARIO ARGS --shard slurm ... */
static void slurm_exec(hk_buf *b, const sweep_emit_cfg *c)
{
    char scn[4200];
    snprintf(scn, sizeof scn, "%s/%s", c->dir, c->scenario);
    hk_buf_put(b, "exec ", 5);
    hk_quote_sh(b, c->hasim);
    hk_buf_put(b, " sweep ", 7);
    hk_quote_sh(b, scn);
    for (int k = 0; k < SWEEP_ARGS_MAX && c->args[k]; k++) {
        hk_buf_put(b, " ", 1);
        hk_quote_sh(b, c->args[k]);
    }
    hk_buf_put(b, " --shard slurm --resume --quiet --out ", 38);
    hk_quote_sh(b, c->dir);
    hk_buf_printf(b, "/shards/\"$SLURM_ARRAY_TASK_ID\"\n");
}

static int slurm(const sweep_emit_cfg *c, long time_s, long mem_mb, hk_err *err)
{
    char part[200] = "";
    if (c->partition)
        snprintf(part, sizeof part, "#SBATCH --partition=%s\n", c->partition);
    hk_buf b;
    hk_buf_init(&b);
    hk_buf_printf(&b, "#!/bin/bash\n# hakarma sweep: %ld points x %ld replications in %ld array "
                  "tasks (written by hasim sweep --emit slurm).\n# Assumed: the folder of this "
                  "file and hasim are at the same paths on every node; %s.\n"
                  "#SBATCH --job-name=hakarma-sweep\n#SBATCH --array=1-%ld\n#SBATCH --ntasks=1\n"
                  "#SBATCH --cpus-per-task=1\n#SBATCH --time=%ld:%02ld:%02ld\n#SBATCH --mem=%ldM\n"
                  "%s#SBATCH --output=logs/sweep-%%A_%%a.out\n"
                  "# a preempted or requeued task finishes its shard (--resume)\n", c->points,
                  c->reps, c->tasks, c->fs_note ? c->fs_note : "", c->tasks, time_s / 3600,
                  time_s / 60 % 60, time_s % 60, mem_mb, part);
    slurm_exec(&b, c);
    int rc = b.oom ? -1 : hk_out_write_all(c->dir, "sweep.sbatch", b.s, b.len, err);
    hk_buf_reset(&b);
    hk_buf_printf(&b, "#!/bin/bash\n# hakarma sweep: the merge of the %ld shards, once every "
                  "array task succeeded (submit.sh: --dependency=afterok)\n"
                  "#SBATCH --job-name=hakarma-merge\n#SBATCH --ntasks=1\n#SBATCH --time=0:30:00\n"
                  "#SBATCH --mem=1024M\n%s#SBATCH --output=logs/merge-%%j.out\nexec ", c->tasks,
                  part);
    hk_quote_sh(&b, c->hasim);
    hk_buf_put(&b, " merge ", 7);
    hk_quote_sh(&b, c->dir);
    hk_buf_put(&b, "/shards/* --out ", 16);
    hk_quote_sh(&b, c->dir);
    hk_buf_put(&b, "/result --force\n", 16);
    rc |= b.oom ? -1 : hk_out_write_all(c->dir, "merge.sbatch", b.s, b.len, err);
    hk_buf_reset(&b);
    hk_buf_printf(&b, "#!/bin/sh\n# submit the sweep's array, then its merge after it (afterok):"
                  " the result is in result/ beside this file\nset -e\ncd ");
    hk_quote_sh(&b, c->dir);
    hk_buf_printf(&b, "\nmkdir -p logs\njid=$(sbatch --parsable sweep.sbatch)\n"
                  "mid=$(sbatch --parsable --dependency=afterok:\"${jid%%%%;*}\" \"$@\" "
                  "merge.sbatch)\necho \"array $jid, merge $mid\"\n");
    rc |= b.oom ? -1 : hk_out_write_all(c->dir, "submit.sh", b.s, b.len, err);
    hk_buf_free(&b);
    return rc ? -1 : 0;
}

/* A container's command as a YAML flow list: hasim ARGS..., each name quoted for YAML and for
 * Kubernetes' $(VAR) expansion; tail is appended as written (it may use $(VAR)). */
static void k8s_command(hk_buf *b, const char *const *args, int n, const char *tail)
{
    hk_buf_put(b, "        command: ['/usr/local/bin/hasim'", 40);
    for (int k = 0; k < n && args[k]; k++) {
        hk_buf_put(b, ", ", 2);
        hk_quote_yaml(b, args[k], 1);
    }
    hk_buf_printf(b, "%s]\n", tail);
}

static const char k8s_volume[] = "        volumeMounts:\n        - {name: data, mountPath: /data}\n"
                                 "      volumes:\n      - name: data\n"
                                 "        persistentVolumeClaim: {claimName: hakarma-sweep}\n";

static int k8s(const sweep_emit_cfg *c, long time_s, long mem_mb, hk_err *err)
{
    long par = c->tasks < 8 ? c->tasks : 8, waves = (c->tasks + par - 1) / par;
    char scn[4200];
    snprintf(scn, sizeof scn, "/data/%s", c->scenario);
    const char *head[SWEEP_ARGS_MAX + 2] = {"sweep", scn};
    int n = 2;
    for (int k = 0; k < SWEEP_ARGS_MAX && c->args[k]; k++)
        head[n++] = c->args[k];
    hk_buf b;
    hk_buf_init(&b);
    hk_buf_printf(&b, "# hakarma sweep: %ld points x %ld replications as an Indexed Job of %ld "
                  "completions (written by hasim sweep --emit k8s). The image holds hasim at "
                  "/usr/local/bin/hasim (.ci/Dockerfile); the volume 'hakarma-sweep' (a "
                  "ReadWriteMany claim) at /data holds bundle/ as written beside this file, and "
                  "gets shards/ and result/. Deadline: %ld waves of %ld s (twice the pilot's "
                  "estimate) + %d s for scheduling and the image pull.\n"
                  "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: hakarma-sweep\nspec:\n"
                  "  completionMode: Indexed\n  completions: %ld\n  parallelism: %ld\n"
                  "  backoffLimitPerIndex: 2\n  activeDeadlineSeconds: %ld\n  template:\n"
                  "    spec:\n      restartPolicy: Never\n      containers:\n"
                  "      - name: sweep\n        image: ", c->points, c->reps, c->tasks, waves,
                  time_s, SWEEP_K8S_MARGIN_S, c->tasks, par, waves * time_s + SWEEP_K8S_MARGIN_S);
    hk_quote_yaml(&b, c->image, 0);
    hk_buf_put(&b, "\n", 1);
    k8s_command(&b, head, n, ", '--shard', 'k8s', '--resume', '--quiet', '--out', "
                "'/data/shards/$(JOB_COMPLETION_INDEX)'");
    hk_buf_printf(&b, "        env:\n        - name: HAKARMA_SHARD_COUNT\n          value: \"%ld\"\n"
                  "        resources:\n          requests: {cpu: \"1\", memory: \"%ldMi\"}\n"
                  "          limits: {memory: \"%ldMi\"}\n%s", c->tasks, mem_mb, mem_mb,
                  k8s_volume);
    int rc = b.oom ? -1 : hk_out_write_all(c->dir, "sweep-job.yaml", b.s, b.len, err);
    hk_buf_reset(&b);
    hk_buf_printf(&b, "# hakarma sweep: the merge of its %ld shards (applied by submit-k8s.sh once "
                  "hakarma-sweep is complete)\napiVersion: batch/v1\nkind: Job\n"
                  "metadata:\n  name: hakarma-merge\nspec:\n  completions: 1\n  backoffLimit: 1\n"
                  "  activeDeadlineSeconds: %d\n  template:\n    spec:\n      restartPolicy: Never\n"
                  "      containers:\n      - name: merge\n        image: ", c->tasks,
                  1800 + SWEEP_K8S_MARGIN_S);
    hk_quote_yaml(&b, c->image, 0);
    hk_buf_put(&b, "\n", 1);
    /* no shell in the container: the shards are named one by one */
    char (*names)[40] = calloc((size_t)c->tasks, sizeof *names);
    const char **margs = calloc((size_t)c->tasks + 4, sizeof *margs);
    if (!names || !margs) {
        free(names);
        free(margs);
        hk_buf_free(&b);
        return hk_err_set(err, c->dir, 0, 0, "out of memory");
    }
    margs[0] = "merge";
    for (long k = 0; k < c->tasks; k++) {
        snprintf(names[k], sizeof names[k], "/data/shards/%ld", k);
        margs[k + 1] = names[k];
    }
    k8s_command(&b, margs, (int)c->tasks + 1, ", '--out', '/data/result', '--force'");
    free(names);
    free(margs);
    hk_buf_put(&b, k8s_volume, sizeof k8s_volume - 1);
    rc |= b.oom ? -1 : hk_out_write_all(c->dir, "merge-job.yaml", b.s, b.len, err);
    hk_buf_reset(&b);
    hk_buf_printf(&b, "#!/bin/sh\n# run the sweep's Indexed Job, wait for it, then its merge; a "
                  "Job that fails ends this script with 1 (kubectl wait --for=complete would wait "
                  "forever). First copy bundle/ to the volume as /data/bundle.\nset -e\n"
                  "cd \"$(dirname \"$0\")\"\n"
                  "wait_job() {\n  while :; do\n"
                  "    st=$(kubectl get job \"$1\" -o jsonpath='{range .status.conditions[?(@.status"
                  "==\"True\")]}{.type}{\" \"}{end}')\n"
                  "    case \" $st \" in\n      *\" Complete \"*) return 0 ;;\n"
                  "      *\" Failed \"*) echo \"job $1 failed: kubectl describe job $1\" >&2; "
                  "return 1 ;;\n    esac\n    sleep \"${HAKARMA_POLL_S:-10}\"\n  done\n}\n"
                  "kubectl apply -f sweep-job.yaml\nwait_job hakarma-sweep\n"
                  "kubectl apply -f merge-job.yaml\nwait_job hakarma-merge\n"
                  "echo \"done: the result is in the volume's /data/result\"\n");
    rc |= b.oom ? -1 : hk_out_write_all(c->dir, "submit-k8s.sh", b.s, b.len, err);
    hk_buf_free(&b);
    return rc ? -1 : 0;
}

int sweep_emit(const sweep_emit_cfg *c, hk_err *err)
{
    long time_s, mem_mb;
    if (sweep_emit_check(c, err) < 0)
        return -1;
    sweep_emit_size(c, &time_s, &mem_mb);
    return c->engine == SE_K8S ? k8s(c, time_s, mem_mb, err) : slurm(c, time_s, mem_mb, err);
}
