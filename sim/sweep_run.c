/* sweep_run: a sweep's points in worker processes (see sweep_run.h). */
#include "sweep_run.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include "hk_file.h"

/* The options of replication seed at point p: the point's settings applied to the scenario. */
void sweep_run_opts(sweep_run *w, long p, unsigned long long seed, int variant, sim_opts *op)
{
    memset(op, 0, sizeof *op);
    op->seed = seed;
    op->variant = variant;
    op->duration_us = w->duration_us;
    sweep_apply(w->g, p, w->s, &w->sv, op);
}

/* What stopped a run (e), said (a table map's error names its LOG=CONF pair). */
static void say_err(const sweep_run *w, const hk_err *e)
{
    char b[1200];
    hk_sayf(&w->say, "%s", hk_err_str(e, b, sizeof b));
}

/* Every replication of point p, its rows into out/runs/p.csv, sealed (sweep_rows_seal); a point
 * already complete is not run again with --resume. */
static int run_point(sweep_run *w, long p, unsigned long long seed0, int variant)
{
    hk_err e;
    char dir[1100], name[32];
    snprintf(dir, sizeof dir, "%s/runs", w->out);
    snprintf(name, sizeof name, "%ld.csv", p);
    if (w->resume && sweep_point_done(w->out, p, w->m)) {
        w->skipped++;
        return 0;
    }
    hk_buf rows;
    hk_buf_init(&rows);
    for (int r = 0; r < w->reps; r++) {
        sim_opts op;
        sweep_run_opts(w, p, seed0 + (unsigned long long)r, variant, &op);
        sim_figures fig;
        memset(&fig, 0, sizeof fig);
        int rc = sim_job_run(&w->job, w->s, &op, NULL, &fig, NULL, &e);
        if (rc) {
            if (rc != SIM_JOB_STOPPED)
                say_err(w, &e);
            hk_buf_free(&rows);
            return rc;
        }
        sweep_row_put(&rows, p, r, op.seed, w->g, &fig);
    }
    sweep_rows_seal(&rows, p, (int)w->reps, w->m);
    int rc = rows.oom ? hk_err_set(&e, dir, 0, 0, "out of memory")
                      : hk_out_write_all(dir, name, rows.s, rows.len, &e);
    hk_buf_free(&rows);
    if (rc < 0) {
        say_err(w, &e);
        return SIM_JOB_FAILED;
    }
    return SIM_JOB_DONE;
}

/* Worker k of j: the shard's points i with i % j == k. */
static int work(sweep_run *w, int k, unsigned long long seed0, int variant)
{
    for (long i = 0; w->shard_k - 1 + i * w->shard_n < w->g->nrun; i++) {
        int rc = i % w->jobs == k ? run_point(w, w->shard_k - 1 + i * w->shard_n, seed0, variant)
                                  : 0;
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
static int wait_workers(sweep_run *w, pid_t *pid)
{
    int rc = 0, told = 0;
    for (int k = 0; k < w->jobs; k++) {
        int st;
        pid_t got;
        while (pid[k] > 0 && (got = waitpid(pid[k], &st, 0)) < 0 && errno == EINTR)
            if (*w->job.stop && !told++)
                for (int j = 0; j < w->jobs; j++)
                    if (pid[j] > 0)
                        kill(pid[j], SIGTERM);
        if (pid[k] > 0 && got == pid[k] && (!WIFEXITED(st) || WEXITSTATUS(st)))
            rc = rc ? rc : WIFEXITED(st) ? WEXITSTATUS(st) : SIM_JOB_FAILED;
    }
    return *w->job.stop ? SIM_JOB_STOPPED : rc;
}

int sweep_run_all(sweep_run *w, unsigned long long seed0, int variant)
{
    if (w->jobs == 1)
        return work(w, 0, seed0, variant);
    fflush(NULL);
    pid_t *pid = calloc((size_t)w->jobs, sizeof *pid), me = getpid();
    if (!pid) {
        hk_sayf(&w->say, "out of memory");
        return SIM_JOB_FAILED;
    }
    int rc = 0;
    for (int k = 0; k < w->jobs; k++) {
        if ((pid[k] = fork()) == 0) {
            worker_init(me);
            _exit(work(w, k, seed0, variant)); /* a SIM_JOB_* code, read by wait_workers */
        }
        if (pid[k] < 0 && !rc) {
            hk_sayf(&w->say, "worker %d of %d could not be started: %s", k + 1, w->jobs,
                    strerror(errno));
            rc = SIM_JOB_FAILED;
        }
    }
    int wrc = wait_workers(w, pid);
    free(pid);
    return rc ? rc : wrc;
}

