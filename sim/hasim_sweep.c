/* hasim_sweep: `hasim sweep SCENARIO --grid ...`, the advisor — every combination of the swept
 * settings, R replications each with common random numbers (replication r uses seed + r at every
 * point, whatever process runs it), in -j N processes or as the K-th of N shards; and
 * `hasim merge DIR... --out DIR`, which makes shards one sweep. Each point's rows go to
 * DIR/runs/POINT.csv when complete; the ranking is computed from those files only (sweep_out),
 * so one process, N processes and merged shards give the same bytes. */
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <signal.h>
#include <limits.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>
#include "hasim.h"
#include "hk_file.h"
#include "hk_rundir.h"
#include "hk_time.h"
#include "sweep_batch.h"
#include "sweep_grid.h"
#include "sweep_out.h"

#define P "hasim"

typedef struct sweep_args {
    const char *scenario, *grid, *out;
    char outbuf[1024];
    long long seed, reps, jobs, shard_k, shard_n;
    int variant, objective, quiet, no_exec, force, out_default, resume;
    sweep_engine shard_engine;   /* --shard slurm|k8s: K/N from the engine's environment */
    sweep_engine emit;           /* --emit slurm|k8s: write the submission, run only a pilot */
    long long tasks;             /* --tasks: array tasks / completions of --emit */
    const char *partition;       /* --partition of --emit slurm */
    int64_t duration_us;
} sweep_args;

static void usage(void)
{
    printf("usage: hasim sweep SCENARIO --grid 'KEY=V1,V2 KEY2=...' [--replications R]\n"
           "                  [--objective p99|p999|failures|readmit] [-j N] [--shard K/N]\n"
           "                  [--out DIR] [--duration T] [--seed N] [--variant NAME] [--resume]\n"
"                  [--force] [--quiet]\n"
           "       hasim merge DIR... --out DIR [--quiet]\n"
           "  Runs every combination of the swept settings (KEY: ha_strategy, ha_period_karma,\n"
           "  ha_ping_interval, agent_retry_count, agent_connect_timeout, agent_query_timeout,\n"
           "  agent_retry_delay, variant; ha_strategy may name the hakarma extensions p2c,\n"
           "  least-outstanding, peak-ewma, c3) R times (default 3) with common random numbers\n"
           "  (replication r uses seed + r everywhere), ranks them by the objective (default p99)\n"
           "  with 95%% confidence intervals, marks the Pareto set (p99, failures, re-admission)\n"
           "  and recommends the best searchd setting. A grid with one value per key is a plain\n"
           "  run. -j N: N processes (same output for every N). --shard K/N: only the K-th of N\n"
           "  slices of the grid, for a batch engine; `hasim merge` combines the shard folders.\n"
"  --resume: a point whose file is complete and of this sweep is not run again (a preempted\n"
"  task, a requeued array). Each point file ends with a seal: its rows' count, the sweep's\n"
"  digest (scenario text, grid, seed...) and their checksum; merge checks every row.\n"
           "files in DIR: sweep.csv (one row per run), report.txt, index.html (heatmaps and the\n"
           "  ranking), runs/POINT.csv, sweep.meta\n"
           "exit codes: 0 ok; 1 run-time failure; 2 bad command line (--grid errors name the\n"
           "  column); 3 bad input (scenario)\n");
}

static void merge_usage(void)
{
    printf("usage: hasim merge DIR... --out DIR [--force] [--quiet]\n"
           "  Combines the shard folders of one sweep (hasim sweep --shard K/N, slurm or k8s)\n"
           "  into one: the same sweep.csv, report.txt, index.html and recommendation.json as one\n"
           "  process. Nothing is trusted: each shard must have finished, each point file's seal\n"
           "  (rows, the sweep's digest, their checksum) and every row are checked; a missing,\n"
           "  extra, duplicated, truncated or corrupted point is refused naming its file.\n"
           "exit codes: 0 ok; 1 run-time failure; 2 bad command line, or --out in use or holding\n"
           "  a finished run (--force replaces it); 3 bad input (a shard, named)\n");
}

static int bad(const char *msg, const char *arg)
{
    fprintf(stderr, P " sweep: %s%s%s\n" P ": see hasim sweep --help\n", msg, arg ? ": " : "",
            arg ? arg : "");
    return EXIT_USAGE;
}

static int shard_opt(sweep_args *a, const char *v)
{
    if ((a->shard_engine = sweep_engine_find(v)) != SE_NONE)
        return 0;
    char k[32], n[32];
    const char *slash = strchr(v, '/');
    if (!slash || slash - v >= 31 || strlen(slash + 1) >= 31)
        return bad("--shard: expected K/N, slurm or k8s, got", v);
    snprintf(k, sizeof k, "%.*s", (int)(slash - v), v);
    snprintf(n, sizeof n, "%s", slash + 1);
    if (hk_cli_int(P " sweep", "--shard N", n, 1, 100000, &a->shard_n) < 0 ||
        hk_cli_int(P " sweep", "--shard K", k, 1, a->shard_n, &a->shard_k) < 0)
        return EXIT_USAGE;
    return 0;
}

static int value_opt(sweep_args *a, const char *s, const char *v)
{
    if (!strcmp(s, "--grid"))
        a->grid = v;
    else if (!strcmp(s, "--out"))
        a->out = v;
    else if (!strcmp(s, "--replications"))
        return hk_cli_int(P " sweep", s, v, 1, 1000, &a->reps) < 0 ? EXIT_USAGE : 0;
    else if (!strcmp(s, "-j"))
        return hk_cli_int(P " sweep", s, v, 1, 256, &a->jobs) < 0 ? EXIT_USAGE : 0;
    else if (!strcmp(s, "--seed"))
        return hk_cli_int(P " sweep", s, v, 0, 4294967295LL, &a->seed) < 0 ? EXIT_USAGE : 0;
    else if (!strcmp(s, "--duration"))
        return hk_cli_time(P " sweep", s, v, HK_SEC, &a->duration_us) < 0 ? EXIT_USAGE : 0;
    else if (!strcmp(s, "--shard"))
        return shard_opt(a, v);
    else if (!strcmp(s, "--emit")) {
        if ((a->emit = sweep_engine_find(v)) == SE_NONE)
            return bad("--emit: expected slurm or k8s, got", v);
    } else if (!strcmp(s, "--tasks"))
        return hk_cli_int(P " sweep", s, v, 1, 100000, &a->tasks) < 0 ? EXIT_USAGE : 0;
    else if (!strcmp(s, "--partition"))
        a->partition = v;
    else if (!strcmp(s, "--objective")) {
        if ((a->objective = sweep_obj_find(v)) < 0)
            return bad("--objective: expected p99, p999, failures or readmit, got", v);
    } else if (!strcmp(s, "--variant")) {
        if ((a->variant = hk_variant_find(v)) < 0)
            return bad("--variant: expected manticore, manticore-fixed, sphinx2 or documented, got",
                       v);
    } else {
        return bad("unknown option", s);
    }
    return 0;
}

static int parse(int argc, char **argv, sweep_args *a)
{
    memset(a, 0, sizeof *a);
    a->seed = -1;
    a->reps = 3;
    a->jobs = 1;
    a->shard_k = a->shard_n = 1;
    a->variant = -1;
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i];
        if (!strcmp(s, "--help"))
            return usage(), -1;
        if (!strcmp(s, "--version"))
            return hk_cli_version(P), -1;
        if (!strcmp(s, "--quiet"))
            a->quiet = 1;
        else if (!strcmp(s, "--no-exec"))
            a->no_exec = 1;
        else if (!strcmp(s, "--force"))
            a->force = 1;
        else if (!strcmp(s, "--resume"))
            a->resume = 1;
        else if (s[0] == '-' && s[1]) {
            if (i + 1 >= argc)
                return bad("option needs a value", s);
            int rc = value_opt(a, s, argv[++i]);
            if (rc)
                return rc;
        } else if (!a->scenario) {
            a->scenario = s;
        } else {
            return bad("one scenario only, got another", s);
        }
    }
    if (!a->scenario)
        return bad("expected a scenario", NULL);
    if (!a->grid)
        return bad("expected --grid 'KEY=V1,V2 ...'", NULL);
    char msg[300];
    if (a->shard_engine != SE_NONE &&
        sweep_shard_from_env(a->shard_engine, &a->shard_k, &a->shard_n, msg, sizeof msg) < 0)
        return bad("--shard", msg);
    if (a->emit != SE_NONE && !a->out)
        return bad("--emit: expected --out DIR (the scripts, and later the shards and the result, "
                   "go there)", NULL);
    return 0;
}

typedef struct sweeper {
    const sweep_args *a;
    const sweep_grid *g;
    hk_scn *s;
    sweep_saved sv;
    runctx c;
    hasim_args ha;
    const char *out;
    const sweep_meta *m;         /* what each point file is sealed with */
    long skipped;                /* points already complete (--resume) */
} sweeper;

/* The options of replication seed at point p: the point's settings applied to the scenario. */
static void point_opts(sweeper *w, long p, unsigned long long seed, int variant, sim_opts *op)
{
    memset(op, 0, sizeof *op);
    op->seed = seed;
    op->variant = variant;
    op->duration_us = w->a->duration_us;
    sweep_apply(w->g, p, w->s, &w->sv, op);
}

/* Every replication of point p, its rows into out/runs/p.csv, sealed (sweep_rows_seal); a point
 * already complete is not run again with --resume. */
static int run_point(sweeper *w, long p, unsigned long long seed0, int variant)
{
    hk_err e;
    char dir[1100], name[32];
    snprintf(dir, sizeof dir, "%s/runs", w->out);
    snprintf(name, sizeof name, "%ld.csv", p);
    if (w->a->resume && sweep_point_done(w->out, p, w->m)) {
        w->skipped++;
        return 0;
    }
    hk_buf rows;
    hk_buf_init(&rows);
    for (int r = 0; r < w->a->reps; r++) {
        sim_opts op;
        point_opts(w, p, seed0 + (unsigned long long)r, variant, &op);
        sim_figures fig;
        memset(&fig, 0, sizeof fig);
        int rc = hasim_one(&w->c, w->s, &op, NULL, &fig, NULL);
        if (rc) {
            hk_buf_free(&rows);
            return rc;
        }
        sweep_row_put(&rows, p, r, op.seed, w->g, &fig);
    }
    sweep_rows_seal(&rows, p, (int)w->a->reps, w->m);
    int rc = rows.oom ? hk_err_set(&e, dir, 0, 0, "out of memory")
                      : hk_out_write_all(dir, name, rows.s, rows.len, &e);
    hk_buf_free(&rows);
    return rc < 0 ? (hasim_print_err(&e), EXIT_RUN) : 0;
}

/* Worker k of j: the shard's points i with i % j == k. */
static int work(sweeper *w, int k, unsigned long long seed0, int variant)
{
    long i = 0;
    for (long p = w->a->shard_k - 1; p < w->g->nrun; p += w->a->shard_n, i++) {
        if (i % w->a->jobs != k)
            continue;
        int rc = run_point(w, p, seed0, variant);
        if (rc)
            return rc;
    }
    return 0;
}

/* A worker dies with the sweep: a batch engine that signals only the sweep's pid (scancel, a
 * pod's deletion), or kills it outright, ends the workers too (SIGTERM: each removes its
 * unfinished point file and exits). */
static void worker_init(pid_t parent)
{
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() != parent) /* the sweep died before the call */
        raise(SIGTERM);
}

/* Wait for the workers; when the sweep is asked to stop, pass the signal on to them first. */
static int wait_workers(sweeper *w, pid_t *pid)
{
    int rc = 0, told = 0;
    for (int k = 0; k < w->a->jobs; k++) {
        int st;
        pid_t got;
        while (pid[k] > 0 && (got = waitpid(pid[k], &st, 0)) < 0 && errno == EINTR)
            if (*w->ha.stop && !told++)
                for (int j = 0; j < w->a->jobs; j++)
                    if (pid[j] > 0)
                        kill(pid[j], SIGTERM);
        if (pid[k] > 0 && got == pid[k] && (!WIFEXITED(st) || WEXITSTATUS(st)))
            rc = rc ? rc : WIFEXITED(st) ? WEXITSTATUS(st) : EXIT_RUN;
    }
    return *w->ha.stop ? 128 + (int)*w->ha.stop : rc;
}

static int run_all(sweeper *w, unsigned long long seed0, int variant)
{
    if (w->a->jobs == 1)
        return work(w, 0, seed0, variant);
    fflush(NULL);
    pid_t *pid = calloc((size_t)w->a->jobs, sizeof *pid), me = getpid();
    if (!pid)
        return EXIT_RUN;
    int rc = 0;
    for (int k = 0; k < w->a->jobs; k++) {
        if ((pid[k] = fork()) == 0) {
            worker_init(me);
            _exit(work(w, k, seed0, variant));
        }
        if (pid[k] < 0)
            rc = EXIT_RUN;
    }
    int wrc = wait_workers(w, pid);
    free(pid);
    return rc ? rc : wrc;
}

static int finish(sweeper *w, const sweep_meta *m)
{
    hk_err e;
    if (w->a->shard_n > 1) {
        if (!w->a->quiet)
            printf("shard %lld/%lld of %ld settings done in %s/; hasim merge DIR... --out DIR "
                   "combines the shards\n", w->a->shard_k, w->a->shard_n, w->g->nrun, w->out);
        return 0;
    }
    const char *dirs[1] = {w->out};
    if (sweep_finish(dirs, 1, w->out, m, w->g, w->a->quiet, &e) < 0)
        return hasim_print_err(&e), EXIT_RUN;
    if (!w->a->quiet)
        printf("files: %s/\n", w->out);
    return 0;
}

static int plain(sweeper *w, unsigned long long seed, int variant)
{
    sim_opts op;
    point_opts(w, 0, seed, variant, &op);
    sim_figures fig;
    int rc = hasim_one(&w->c, w->s, &op, w->out, &fig, w->a->quiet ? NULL : stdout);
    if (!rc && !w->a->quiet)
        printf("a grid with one value per key is a plain run; files: %s/\n", w->out);
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
    if (!(w->s = hk_loaded_scn(L, *variant, NULL, &e)))
        return hasim_print_err(&e), EXIT_INPUT;
    char msg[400];
    if (sweep_grid_bind(g, w->s, *variant, msg, sizeof msg) < 0)
        return bad("--grid", msg);
    *seed = a->seed >= 0 ? (unsigned long long)a->seed : w->s->seed;
    return sweep_save(w->s, &w->sv) < 0 ? EXIT_RUN : 0;
}

/* The sweep's own arguments for a batch task, shell-quoted (the scenario as scn). */
static int task_args(const sweep_args *a, const char *scn, int variant, char *b, size_t n)
{
    char q1[2100], q2[8300];
    if (sweep_shell_quote(scn, q1, sizeof q1) < 0 || sweep_shell_quote(a->grid, q2, sizeof q2) < 0)
        return -1;
    int o = snprintf(b, n, "%s --grid %s --replications %lld --objective %s --variant %s%s", q1,
                     q2, a->reps, sweep_obj_name((sweep_obj)a->objective),
                     hk_variant_get(variant)->name, a->no_exec ? " --no-exec" : "");
    if (o > 0 && a->seed >= 0)
        o += snprintf(b + o, n - (size_t)o, " --seed %lld", a->seed);
    if (o > 0 && a->duration_us > 0)
        o += snprintf(b + o, n - (size_t)o, " --duration %lldus", (long long)a->duration_us);
    return o > 0 && (size_t)o < n ? 0 : -1;
}

/* One replication of the first point, timed: what a batch task asks the engine for. */
static int pilot(sweeper *w, unsigned long long seed, int variant, double *secs, long *mb)
{
    sim_opts op;
    point_opts(w, 0, seed, variant, &op);
    sim_figures fig;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int rc = hasim_one(&w->c, w->s, &op, NULL, &fig, NULL);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    *secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    *mb = ru.ru_maxrss / 1024 + 1;
    return rc;
}

/* --emit: the files that run this sweep on the engine, sized by a pilot; nothing else runs. */
static int emit(sweeper *w, sweep_grid *g, hk_loaded *L)
{
    const sweep_args *a = w->a;
    int variant;
    unsigned long long seed;
    int rc = prepare(w, g, L, &variant, &seed);
    char dir[4096], scn[4096], self[4096], args[12000], logs[4200];
    ssize_t sl = readlink("/proc/self/exe", self, sizeof self - 1);
    if (rc == 0 && (!realpath(a->out, dir) || !realpath(a->scenario, scn) || sl <= 0))
        rc = (fprintf(stderr, P " sweep: --emit: cannot resolve the paths\n"), EXIT_RUN);
    if (rc) {
        sweep_saved_free(&w->sv);
        return rc;
    }
    self[sl] = '\0';
    const char *base = strrchr(scn, '/') ? strrchr(scn, '/') + 1 : scn;
    char kscn[4200];
    snprintf(kscn, sizeof kscn, "/data/%s", base);
    double secs = 0;
    long mb = 0;
    hk_err e;
    if ((rc = pilot(w, seed, variant, &secs, &mb)) == 0 &&
        task_args(a, a->emit == SE_K8S ? kscn : scn, variant, args, sizeof args) < 0)
        rc = (fprintf(stderr, P " sweep: --emit: the command line is too long\n"), EXIT_USAGE);
    long tasks = a->tasks ? (long)a->tasks : g->nrun < 16 ? g->nrun : 16;
    tasks = tasks > g->nrun ? g->nrun : tasks;
    sweep_emit_cfg c = {a->emit, dir, self, args, a->partition, tasks, g->nrun, (long)a->reps,
                        secs, mb};
    snprintf(logs, sizeof logs, "%s/logs", dir);
    if (rc == 0 && (hk_mkdirs(logs, &e) < 0 || sweep_emit(&c, &e) < 0))
        rc = (hasim_print_err(&e), EXIT_RUN);
    long t, m;
    sweep_emit_size(&c, &t, &m);
    if (rc == 0 && !a->quiet)
        printf("pilot: point 0 ran one replication in %.2f s, %ld MB at most; each of %ld tasks "
               "runs up to %ld points x %lld replications: it asks for %ld:%02ld:%02ld and %ld MB "
               "(twice the estimate, at least a minute and 256 MB)\n%s\n", secs, mb, tasks,
               (g->nrun + tasks - 1) / tasks, a->reps, t / 3600, t / 60 % 60, t % 60, m,
               a->emit == SE_SLURM ? "run: sh submit.sh (sbatch --array, then the merge with "
               "--dependency=afterok); the result: result/"
               : "copy the scenario (and the files it names) to the volume's /data, then: "
               "sh submit-k8s.sh; the result: /data/result");
    if (rc == 0 && !a->quiet)
        printf("files: %s/\n", dir);
    sweep_saved_free(&w->sv);
    return rc;
}

static int sweep(sweeper *w, sweep_grid *g, hk_loaded *L)
{
    const sweep_args *a = w->a;
    hk_err e;
    int variant;
    unsigned long long seed;
    int rc = prepare(w, g, L, &variant, &seed);
    if (rc)
        return rc;
    sweep_meta m = {0};
    snprintf(m.scenario, sizeof m.scenario, "%s", a->scenario);
    snprintf(m.grid, sizeof m.grid, "%s", a->grid);
    m.replications = (int)a->reps;
    m.seed = seed;
    m.variant = variant;
    m.duration_us = a->duration_us;
    m.objective = (sweep_obj)a->objective;
    sweep_meta_bind(&m, g);
    sweep_meta_digest(&m, L->text);
    w->m = &m;
    char runs[1100];
    if (w->g->nrun == 1)
        rc = plain(w, seed, variant);
    else if (snprintf(runs, sizeof runs, "%s/runs", w->out) < 0 || hk_mkdirs(runs, &e) < 0 ||
             sweep_meta_write(w->out, &m, &e) < 0)
        rc = (hasim_print_err(&e), EXIT_RUN);
    else if (!(rc = run_all(w, seed, variant)))
        rc = finish(w, &m);
    sweep_saved_free(&w->sv);
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
        return bad("--grid", msg);
    if (!a.out) {
        const char *b = strrchr(a.scenario, '/');
        b = b ? b + 1 : a.scenario;
        size_t n = strcspn(b, ".");
        snprintf(a.outbuf, sizeof a.outbuf, "out/%.*s-sweep", (int)n, b);
        a.out = a.outbuf;
        a.out_default = 1;
    }
    hk_loaded L;
    hk_err e;
    if (hk_scn_load(a.scenario, !a.no_exec, &L, &e) < 0)
        return hasim_print_err(&e), EXIT_INPUT;
    sweeper w;
    memset(&w, 0, sizeof w);
    w.a = &a;
    w.g = &g;
    w.out = a.out;
    w.ha.scenario = a.scenario;
    w.ha.quiet = 1;
    w.ha.stop = stop;
    w.c.L = &L;
    w.c.a = &w.ha;
    hk_progress_init(&w.c.prog, P, 1);
    hk_rundir rd;
    if (hk_rundir_open(&rd, a.out, "hasim sweep", a.resume ? HK_RUNDIR_KEEP : a.force ||
                       a.out_default ? HK_RUNDIR_FORCE : 0, &e) < 0) {
        hk_loaded_free(&L);
        return hasim_print_err(&e), EXIT_USAGE;
    }
    rc = a.emit != SE_NONE ? emit(&w, &g, &L) : sweep(&w, &g, &L);
    if (rc == 0 && hk_rundir_done(&rd, &e) < 0)
        rc = (hasim_print_err(&e), EXIT_RUN);
    if (rc) /* a failed sweep leaves nothing that merges as a shard */
        hk_rundir_abort(&rd);
    if (*stop)
        fprintf(stderr, P " sweep: stopped by %s: its workers ended and %s/ was emptied (exit "
                "%d)\n", strsignal(*stop), a.out, 128 + (int)*stop);
    hk_loaded_free(&L);
    return rc;
}

/* ---- merge ------------------------------------------------------------------ */

int hasim_merge(int argc, char **argv)
{
    const char *out = NULL, *dirs[1024];
    int nd = 0, quiet = 0, force = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help"))
            return merge_usage(), 0;
        if (!strcmp(argv[i], "--version"))
            return hk_cli_version(P), 0;
        if (!strcmp(argv[i], "--quiet"))
            quiet = 1;
        else if (!strcmp(argv[i], "--force"))
            force = 1;
        else if (!strcmp(argv[i], "--out") && i + 1 < argc)
            out = argv[++i];
        else if (argv[i][0] == '-')
            return bad("unknown option", argv[i]);
        else if (nd < 1024)
            dirs[nd++] = argv[i];
    }
    if (!nd || !out)
        return bad("expected hasim merge DIR... --out DIR", NULL);
    sweep_meta m, m2;
    hk_err e;
    for (int d = 0; d < nd; d++)
        if (!hk_rundir_finished(dirs[d]))
            return fprintf(stderr, P " merge: %s: the sweep there did not finish (it was stopped "
                           "or failed): run that shard again\n", dirs[d]), EXIT_INPUT;
    if (sweep_meta_read(dirs[0], &m, &e) < 0)
        return hasim_print_err(&e), EXIT_INPUT;
    for (int d = 1; d < nd; d++) {
        if (sweep_meta_read(dirs[d], &m2, &e) < 0)
            return hasim_print_err(&e), EXIT_INPUT;
        if (memcmp(&m, &m2, sizeof m))
            return fprintf(stderr, P " merge: %s and %s are not shards of one sweep (scenario, "
                           "grid, replications, seed, variant, duration and objective must "
                           "match)\n", dirs[0], dirs[d]), EXIT_INPUT;
    }
    sweep_grid g;
    char msg[400];
    if (sweep_grid_parse(m.grid, &g, msg, sizeof msg) < 0)
        return fprintf(stderr, P " merge: %s/sweep.meta: grid: %s\n", dirs[0], msg),
               EXIT_INPUT;
    sweep_grid_from_meta(&g, &m); /* the bound figures: no scenario needed to rank shards */
    hk_rundir rd;
    if (hk_rundir_open(&rd, out, "hasim merge", force, &e) < 0)
        return hasim_print_err(&e), EXIT_USAGE;
    if (sweep_meta_write(out, &m, &e) < 0 || sweep_finish(dirs, nd, out, &m, &g, quiet, &e) < 0 ||
        hk_rundir_done(&rd, &e) < 0) {
        hk_rundir_abort(&rd); /* a failed merge leaves no sweep.meta behind */
        return hasim_print_err(&e), EXIT_RUN;
    }
    if (!quiet)
        printf("files: %s/\n", out);
    return 0;
}
