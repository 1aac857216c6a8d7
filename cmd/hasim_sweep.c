/* hasim_sweep: `hasim sweep SCENARIO --grid ...`, the advisor's front end — the grid bound to
 * the scenario, its runs (sim/sweep_run: every point, R replications, -j N processes or the
 * K-th of N shards), the ranking computed from the point files only (sweep_out), so one
 * process, N processes and merged shards give the same bytes; --emit writes a batch
 * engine's submission instead. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>
#include "hasim.h"
#include "hk_bundle.h"
#include "hk_file.h"
#include "hk_rundir.h"
#include "hk_scnload.h"
#include "hk_time.h"
#include "sweep_batch.h"
#include "sweep_grid.h"
#include "sweep_out.h"
#include "sweep_run.h"

#define P "hasim"
#define W P " sweep"

typedef struct sweep_args {
    const char *scenario, *grid, *out;
    char outbuf[1024];
    long long seed, reps, jobs, shard_k, shard_n;
    int variant, objective, quiet, no_exec, force, out_default, resume, allow_changed;
    sweep_engine shard_engine;   /* --shard slurm|k8s: K/N from the engine's environment */
    sweep_engine emit;           /* --emit slurm|k8s: write the submission, run only a pilot */
    long long tasks;             /* --tasks: array tasks / completions of --emit */
    const char *partition;       /* --partition of --emit slurm */
    const char *image;           /* --image of --emit k8s */
    int64_t duration_us;
} sweep_args;

static int opt_shard(void *set, const char *prog, const char *opt, const char *v)
{
    sweep_args *a = set;
    if ((a->shard_engine = sweep_engine_find(v)) != SE_NONE)
        return 0;
    char k[32], n[32];
    const char *slash = strchr(v, '/');
    if (!slash || slash - v >= 31 || strlen(slash + 1) >= 31) {
        fprintf(stderr, "%s: %s: expected K/N, slurm or k8s, got '%s'\n", prog, opt, v);
        return -1;
    }
    snprintf(k, sizeof k, "%.*s", (int)(slash - v), v);
    snprintf(n, sizeof n, "%s", slash + 1);
    if (hk_cmd_int(prog, "--shard N", n, 1, 100000, &a->shard_n) < 0 ||
        hk_cmd_int(prog, "--shard K", k, 1, a->shard_n, &a->shard_k) < 0)
        return -1;
    return 0;
}

static int opt_emit(void *set, const char *prog, const char *opt, const char *v)
{
    sweep_args *a = set;
    if ((a->emit = sweep_engine_find(v)) != SE_NONE)
        return 0;
    fprintf(stderr, "%s: %s: expected slurm or k8s, got '%s'\n", prog, opt, v);
    return -1;
}

static int opt_objective(void *set, const char *prog, const char *opt, const char *v)
{
    sweep_args *a = set;
    if ((a->objective = sweep_obj_find(v)) >= 0)
        return 0;
    fprintf(stderr, "%s: %s: expected p99, p999, failures or readmit, got '%s'\n", prog, opt, v);
    return -1;
}

static int opt_variant(void *set, const char *prog, const char *opt, const char *v)
{
    return hk_cmd_variant(prog, opt, v, &((sweep_args *)set)->variant);
}

#define A(f) offsetof(sweep_args, f)
static const hk_opt sweep_opts[] = {
    {.name = "grid", .arg = "'KEY=V1,V2 ...'", .kind = HK_OPT_STR, .off = A(grid),
     .help = "the settings to sweep, space-separated; KEY: ha_strategy, ha_period_karma,\n"
             "ha_ping_interval, agent_retry_count, agent_connect_timeout,\n"
             "agent_query_timeout, agent_retry_delay, variant; TABLE.KEY for one table;\n"
             "ha_strategy may name the extensions p2c, least-outstanding, peak-ewma, c3"},
    {.name = "replications", .arg = "R", .kind = HK_OPT_INT, .off = A(reps), .min = 1, .max = 1000,
     .help = "runs per point (default 3), replication r with seed + r everywhere"},
    {.name = "objective", .arg = "NAME", .kind = HK_OPT_FN, .fn = opt_objective,
     .help = "rank by p99 (default), p999, failures or readmit"},
    {.name = "j", .arg = "N", .kind = HK_OPT_INT, .off = A(jobs), .min = 1, .max = 256,
     .help = "N processes (the same output for every N)"},
    {.name = "shard", .arg = "K/N", .kind = HK_OPT_FN, .fn = opt_shard,
     .help = "only the K-th of N slices of the grid (slurm or k8s: K and N from the\n"
             "batch engine's environment); hasim merge combines the shard folders"},
    {.name = "resume", .kind = HK_OPT_FLAG, .off = A(resume),
     .help = "a point whose file is complete and of this sweep is not run again"},
    {.name = "emit", .arg = "ENGINE", .kind = HK_OPT_FN, .fn = opt_emit,
     .help = "write the slurm or k8s submission into --out, sized by a one-run pilot"},
    {.name = "tasks", .arg = "N", .kind = HK_OPT_INT, .off = A(tasks), .min = 1, .max = 100000,
     .help = "--emit: array tasks / completions (default min(points, 16))"},
    {.name = "partition", .arg = "NAME", .kind = HK_OPT_STR, .off = A(partition),
     .help = "--emit slurm: the partition"},
    {.name = "image", .arg = "REF", .kind = HK_OPT_STR, .off = A(image),
     .help = "--emit k8s: the image holding hasim (default hakarma:" HK_VERSION ", built\n"
             "from .ci/Dockerfile)"},
    HK_OPT_OUT(A(out), "DIR",
        "output folder (default out/<scenario>-sweep); a finished one needs --force"),
    HK_OPT_FORCE(A(force), "replace the finished sweep in --out"),
    {.name = "duration", .arg = "T", .kind = HK_OPT_TIME, .off = A(duration_us), .min = HK_SEC,
     .help = "run length (default: the workload's)"},
    HK_OPT_SEED(A(seed), "first seed (default the scenario's)"),
    HK_OPT_VARIANT("NAME", opt_variant,
        "the implementation (default the "
        "scenario's)"),
    {.name = "allow-changed", .kind = HK_OPT_FLAG, .off = A(allow_changed),
     .help = "run although a config or trace the scenario pins (input sections,\n"
             "written by hasim init) has changed since"},
    {.name = "no-exec", .kind = HK_OPT_FLAG, .off = A(no_exec),
     .help = "refuse a config that is a '#!' script"},
    HK_OPT_QUIET(A(quiet), HK_QUIET_HELP),
    {0}};
#undef A

static const hk_cmd sweep_cmd = {
    .prog = P " sweep",
    .usage = "SCENARIO --grid 'KEY=V1,V2 KEY2=...' [options]",
    .about = "Runs every combination of the swept settings R times with common random numbers,\n"
             "ranks them by the objective with 95% confidence intervals, marks the Pareto set\n"
             "(p99, failures, re-admission) and recommends the best searchd setting, or says to\n"
             "keep the current one. A grid with one value per key is a plain run.",
    .sets = {{sweep_opts, 0}},
    .min_args = 1,
    .max_args = 1,
    .args = "a scenario file",
    .tail = "Each point file ends with a seal: its rows' count, the sweep's digest (scenario\n"
            "text, grid, seed...) and their checksum; merge checks every row.\n"
            "files in DIR: sweep.csv (one row per run), report.txt, recommendation.json,\n"
            "  index.html (heatmaps and the ranking), runs/POINT.csv, sweep.meta\n"
};

static int parse(int argc, char **argv, sweep_args *a)
{
    memset(a, 0, sizeof *a);
    a->seed = -1;
    a->reps = 3;
    a->jobs = 1;
    a->shard_k = a->shard_n = 1;
    a->variant = -1;
    a->image = "hakarma:" HK_VERSION;
    const char *pos[1];
    int npos, rc = hk_cmd_parse(&sweep_cmd, argc, argv, a, pos, &npos);
    if (rc)
        return rc;
    a->scenario = pos[0];
    if (!a->grid)
        return hk_cmd_bad(&sweep_cmd, "expected --grid 'KEY=V1,V2 ...'");
    char msg[300];
    if (a->shard_engine != SE_NONE &&
        sweep_shard_from_env(a->shard_engine, &a->shard_k, &a->shard_n, msg, sizeof msg) < 0)
        return hk_cmd_bad(&sweep_cmd, "--shard: %s", msg);
    if (a->emit != SE_NONE && !a->out)
        return hk_cmd_bad(&sweep_cmd, "--emit: expected --out DIR (the scripts, and later the "
                          "shards and the result, go there)");
    hk_err e;
    sweep_emit_cfg c = {.engine = a->emit, .dir = a->out, .hasim = "hasim", .image = a->image,
                        .scenario = HK_BUNDLE_SCENARIO, .partition = a->partition};
    if (a->emit != SE_NONE && sweep_emit_check(&c, &e) < 0) { /* before any folder is made */
        hk_print_err(W, &e);
        return HK_EXIT_USAGE;
    }
    return 0;
}

typedef struct sweeper {
    sweep_run r;                 /* the runs (sim/sweep_run) */
    const sweep_args *a;
} sweeper;

static int finish(sweeper *w, const sweep_meta *m)
{
    hk_err e;
    if (w->r.shard_n > 1) {
        if (!w->a->quiet)
            printf("shard %ld/%ld of %ld settings done in %s/; hasim merge DIR... --out DIR "
                   "combines the shards\n", w->r.shard_k, w->r.shard_n, w->r.g->nrun, w->r.out);
        return 0;
    }
    const char *dirs[1] = {w->r.out};
    if (sweep_finish(dirs, 1, w->r.out, m, w->r.g, w->a->quiet ? NULL : stdout, &e) < 0) {
        hk_print_err(W, &e);
        return HK_EXIT_RUN;
    }
    if (!w->a->quiet)
        printf("files: %s/\n", w->r.out);
    return 0;
}

static int plain(sweeper *w, unsigned long long seed, int variant)
{
    sim_opts op;
    sweep_run_opts(&w->r, 0, seed, variant, &op);
    sim_figures fig;
    hk_err e;
    int rc = sim_job_run(&w->r.job, w->r.s, &op, w->r.out, &fig, w->a->quiet ? NULL : stdout, &e);
    rc = hasim_job_exit(&w->r.job, rc, W, &e);
    if (!rc && !w->a->quiet)
        printf("a grid with one value per key is a plain run; files: %s/\n", w->r.out);
    return rc;
}

/* The scenario in the sweep's variant, the grid bound to it, its settings saved; 0 or an exit
 * code. */
static int prepare(sweeper *w, sweep_grid *g, hk_loaded *L, int *variant,
                   unsigned long long *seed)
{
    const sweep_args *a = w->a;
    hk_err e;
    *variant = a->variant >= 0 ? a->variant : L->scn->variant;
    if (!(w->r.s = hk_loaded_scn(L, *variant, NULL, &e))) {
        hk_print_err(W, &e);
        return HK_EXIT_INPUT;
    }
    char msg[400];
    if (sweep_grid_bind(g, w->r.s, *variant, msg, sizeof msg) < 0)
        return hk_cmd_bad(&sweep_cmd, "--grid: %s", msg);
    *seed = hk_cmd_seed(a->seed, w->r.s->seed);
    return sweep_save(w->r.s, &w->r.sv) < 0 ? HK_EXIT_RUN : 0;
}

/* The sweep's own arguments for a batch task after its scenario, into c->args (the numbers'
 * text in buf, 5 slots of 40 bytes). */
static void task_args(const sweep_args *a, int variant, sweep_emit_cfg *c, char (*buf)[40])
{
    int n = 0;
    c->args[n++] = "--grid";
    c->args[n++] = a->grid;
    snprintf(buf[0], 40, "%lld", a->reps);
    c->args[n++] = "--replications";
    c->args[n++] = buf[0];
    c->args[n++] = "--objective";
    c->args[n++] = sweep_obj_name((sweep_obj)a->objective);
    c->args[n++] = "--variant";
    c->args[n++] = hk_variant_get(variant)->name;
    if (a->no_exec)
        c->args[n++] = "--no-exec";
    if (a->seed >= 0) {
        snprintf(buf[1], 40, "%lld", a->seed);
        c->args[n++] = "--seed";
        c->args[n++] = buf[1];
    }
    if (a->duration_us > 0) {
        snprintf(buf[2], 40, "%lldus", (long long)a->duration_us);
        c->args[n++] = "--duration";
        c->args[n++] = buf[2];
    }
    c->args[n] = NULL;
}

/* One replication of the first point, timed: what a batch task asks the engine for. */
static int pilot(sweeper *w, unsigned long long seed, int variant, double *secs, long *mb)
{
    sim_opts op;
    sweep_run_opts(&w->r, 0, seed, variant, &op);
    sim_figures fig;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    hk_err e;
    int rc = sim_job_run(&w->r.job, w->r.s, &op, NULL, &fig, NULL, &e);
    rc = hasim_job_exit(&w->r.job, rc, W, &e);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    *secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    *mb = ru.ru_maxrss / 1024 + 1;
    return rc;
}

/* --emit: the files that run this sweep on the engine, sized by a pilot, and the bundle they
 * run (the scenario and every file it names); nothing else runs. */
static int emit(sweeper *w, sweep_grid *g, hk_loaded *L)
{
    const sweep_args *a = w->a;
    int variant;
    unsigned long long seed;
    int rc = prepare(w, g, L, &variant, &seed);
    char dir[4096], self[4096], logs[4200], nums[5][40], fs[300] = "";
    ssize_t sl = readlink("/proc/self/exe", self, sizeof self - 1);
    if (rc == 0 && (!realpath(a->out, dir) || sl <= 0)) {
        fprintf(stderr, W ": --emit: cannot resolve the paths\n");
        rc = HK_EXIT_RUN;
    }
    if (rc) {
        sweep_saved_free(&w->r.sv);
        return rc;
    }
    self[sl] = '\0';
    if (a->emit == SE_SLURM)
        sweep_fs_note(dir, fs, sizeof fs);
    sweep_emit_cfg c = {.engine = a->emit, .dir = dir, .hasim = self, .image = a->image,
                        .scenario = HK_BUNDLE_SCENARIO, .partition = a->partition,
                        .fs_note = fs, .points = g->nrun, .reps = (long)a->reps};
    task_args(a, variant, &c, nums);
    c.tasks = a->tasks ? (long)a->tasks : g->nrun < 16 ? g->nrun : 16;
    c.tasks = c.tasks > g->nrun ? g->nrun : c.tasks;
    hk_err e;
    if (sweep_emit_check(&c, &e) < 0) { /* before the pilot: a bad name costs nothing */
        hk_print_err(W, &e);
        sweep_saved_free(&w->r.sv);
        return HK_EXIT_USAGE;
    }
    rc = pilot(w, seed, variant, &c.pilot_s, &c.pilot_mb);
    snprintf(logs, sizeof logs, "%s/logs", dir);
    if (rc == 0 && (hk_mkdirs(logs, &e) < 0 || hk_bundle_write(L, dir, &e) < 0 ||
                    sweep_emit(&c, &e) < 0)) {
        hk_print_err(W, &e);
        rc = HK_EXIT_RUN;
    }
    long t, m;
    sweep_emit_size(&c, &t, &m);
    if (rc == 0 && !a->quiet)
        printf("pilot: point 0 ran one replication in %.2f s, %ld MB at most; each of %ld tasks "
               "runs up to %ld points x %lld replications: it asks for %ld:%02ld:%02ld and %ld MB "
               "(twice the estimate, at least a minute and 256 MB)\n", c.pilot_s, c.pilot_mb,
               c.tasks, (g->nrun + c.tasks - 1) / c.tasks, a->reps, t / 3600, t / 60 % 60,
               t % 60, m);
    if (rc == 0 && !a->quiet && a->emit == SE_SLURM)
        printf("--out: %s\nrun: sh submit.sh (sbatch --array, then the merge with "
               "--dependency=afterok); the result: result/\n", fs);
    else if (rc == 0 && !a->quiet)
        printf("bundle/ holds the scenario and every file it names: copy it to the volume "
               "'hakarma-sweep' as /data/bundle, then: sh submit-k8s.sh (image %s); the "
               "result: /data/result\n", a->image);
    if (rc == 0 && !a->quiet)
        printf("files: %s/\n", dir);
    sweep_saved_free(&w->r.sv);
    return rc;
}

/* The sweep's meta: what every point and shard of it must share, sealed with the digest of the
 * scenario's text, of every file it names and of hakarma's version; 0 or an exit code. */
static int sweep_meta_of(const sweep_args *a, const sweep_grid *g, const hk_loaded *L,
                         int variant, unsigned long long seed, sweep_meta *m)
{
    memset(m, 0, sizeof *m);
    snprintf(m->scenario, sizeof m->scenario, "%s", a->scenario);
    snprintf(m->grid, sizeof m->grid, "%s", a->grid);
    snprintf(m->version, sizeof m->version, "%s", HK_VERSION);
    m->replications = (int)a->reps;
    m->seed = seed;
    m->variant = variant;
    m->duration_us = a->duration_us;
    m->objective = (sweep_obj)a->objective;
    sweep_meta_bind(m, g);
    hk_named named[HK_NAMED_MAX];
    int n = hk_loaded_files(L, named, HK_NAMED_MAX);
    for (int k = 0; k < n && k < (int)(sizeof m->files / sizeof m->files[0]); k++) {
        hk_err e;
        struct sweep_file *f = &m->files[m->nfiles++];
        memcpy(f->name, named[k].name, sizeof f->name); /* both 512 bytes, NUL-ended */
        if (hk_file_digest(named[k].path, &f->digest, &f->size, &e) < 0) {
            hk_print_err(W, &e);
            return HK_EXIT_INPUT;
        }
    }
    sweep_meta_digest(m, L->text);
    return 0;
}

/* --resume into a folder that holds another sweep's points: refused (3) before anything there
 * is touched, naming what differs. */
static int resume_check(const char *out, const sweep_meta *m)
{
    sweep_meta old;
    hk_err e;
    char p[1100], why[1200];
    snprintf(p, sizeof p, "%s/sweep.meta", out);
    if (access(p, F_OK) < 0)
        return 0; /* nothing of a sweep there yet */
    if (sweep_meta_read(out, &old, &e) < 0) {
        hk_print_err(W, &e);
        return HK_EXIT_INPUT;
    }
    if (sweep_meta_diff(&old, m, why, sizeof why) == 0 && old.nrun == m->nrun)
        return 0;
    fprintf(stderr, W ": --resume: %s holds another sweep's points: %s; expected the same "
            "sweep, or a new --out (exit %d)\n", p, why[0] ? why : "the grid's points differ",
            HK_EXIT_INPUT);
    return HK_EXIT_INPUT;
}

/* The points whose files are complete and of this sweep. */
static long points_done(const sweeper *w, const sweep_meta *m)
{
    long n = 0;
    for (long p = w->r.shard_k - 1; p < w->r.g->nrun; p += w->r.shard_n)
        n += sweep_point_done(w->r.out, p, m);
    return n;
}

static int sweep(sweeper *w, sweep_meta *m, unsigned long long seed, int variant)
{
    hk_err e;
    int rc;
    w->r.m = m;
    char runs[1100];
    if (w->r.g->nrun == 1)
        rc = plain(w, seed, variant);
    else if (snprintf(runs, sizeof runs, "%s/runs", w->r.out) < 0 || hk_mkdirs(runs, &e) < 0 ||
             sweep_meta_write(w->r.out, m, &e) < 0) {
        hk_print_err(W, &e);
        rc = HK_EXIT_RUN;
    } else if (!(rc = hasim_job_exit(&w->r.job, sweep_run_all(&w->r, seed, variant), W, NULL)))
        rc = finish(w, m);
    return rc;
}

int hasim_sweep(int argc, char **argv, volatile sig_atomic_t *stop)
{
    sweep_args a;
    int rc = parse(argc, argv, &a);
    if (rc)
        return rc < 0 ? 0 : rc;
    sweep_grid g;
    char msg[400];
    if (sweep_grid_parse(a.grid, &g, msg, sizeof msg) < 0)
        return hk_cmd_bad(&sweep_cmd, "--grid: %s", msg);
    if (!a.out) {
        hk_rundir_default(a.scenario, "", "-sweep", a.outbuf, sizeof a.outbuf);
        a.out = a.outbuf;
        a.out_default = 1;
    }
    hk_loaded L;
    hk_err e;
    if (hk_scn_load(a.scenario, !a.no_exec, &L, &e) < 0) {
        hk_print_err(W, &e);
        return HK_EXIT_INPUT;
    }
    if (!a.allow_changed && hk_loaded_check_inputs(&L, &e) < 0) {
        hk_print_err(W, &e);
        hk_loaded_free(&L);
        return HK_EXIT_INPUT;
    }
    sweeper w;
    memset(&w, 0, sizeof w);
    w.a = &a;
    w.r.g = &g;
    w.r.out = a.out;
    w.r.reps = (int)a.reps;
    w.r.jobs = (int)a.jobs;
    w.r.resume = a.resume;
    w.r.shard_k = (long)a.shard_k;
    w.r.shard_n = (long)a.shard_n;
    w.r.duration_us = a.duration_us;
    w.r.job.L = &L;
    w.r.job.progress = hasim_job_progress;
    w.r.say = hk_cmd_sayer(W, 0);
    w.r.job.scenario = a.scenario;
    w.r.job.stop = stop;
    hk_progress_init(&w.r.job.prog_line, W, 1);
    int variant;
    unsigned long long seed;
    sweep_meta m;
    rc = a.emit != SE_NONE ? 0 : prepare(&w, &g, &L, &variant, &seed);
    if (rc == 0 && a.emit == SE_NONE)
        rc = sweep_meta_of(&a, &g, &L, variant, seed, &m);
    if (rc == 0 && a.resume && a.emit == SE_NONE)
        rc = resume_check(a.out, &m);
    hk_rundir rd;
    int how = a.resume ? HK_RUNDIR_KEEP : a.force || a.out_default ? HK_RUNDIR_FORCE : 0;
    if (rc == 0 && hk_rundir_open(&rd, a.out, W, how, &e) < 0) {
        hk_print_err(W, &e);
        rc = HK_EXIT_USAGE;
    }
    if (rc) {
        if (a.emit == SE_NONE)
            sweep_saved_free(&w.r.sv);
        hk_loaded_free(&L);
        return rc;
    }
    rc = a.emit != SE_NONE ? emit(&w, &g, &L) : sweep(&w, &m, seed, variant);
    if (a.emit == SE_NONE)
        sweep_saved_free(&w.r.sv);
    if (rc == 0 && hk_rundir_done(&rd, &e) < 0) {
        hk_print_err(W, &e);
        rc = HK_EXIT_RUN;
    }
    long kept = rc && a.emit == SE_NONE && g.nrun > 1 ? points_done(&w, &m) : 0;
    if (kept) { /* a preempted task keeps its finished points: --resume runs only the rest */
        hk_rundir_release(&rd);
    } else if (rc) { /* a failed sweep leaves nothing that merges as a shard */
        hk_rundir_abort(&rd);
    }
    if (*stop && kept)
        fprintf(stderr, W ": stopped by %s: %ld finished points kept in %s/runs/, the point in "
                "progress removed; --resume runs only the rest (exit %d)\n", strsignal(*stop),
                kept, a.out, hk_cmd_stopped((int)*stop));
    else if (*stop)
        fprintf(stderr, W ": stopped by %s: its workers ended and %s/ was emptied (exit %d)\n",
                strsignal(*stop), a.out, hk_cmd_stopped((int)*stop));
    else if (kept)
        fprintf(stderr, W ": %ld finished points kept in %s/runs/; --resume runs only the rest\n",
                kept, a.out);
    hk_loaded_free(&L);
    return rc;
}
