/* sim_job: one run of a scenario into its folder (see sim_job.h). */
#include "sim_job.h"

#include <string.h>
#include "hk_file.h"
#include "hk_report.h"
#include "sim_out.h"

typedef struct streams { hk_out periods, latency, queries; } streams;

static int open_streams(const char *dir, int queries, streams *st, sim_opts *o, hk_err *e)
{
    if (hk_out_open(&st->periods, dir, "periods.csv", e) < 0 ||
        hk_out_open(&st->latency, dir, "latency.csv", e) < 0 ||
        (queries && hk_out_open(&st->queries, dir, "queries.csv", e) < 0))
        return -1;
    o->periods = st->periods.f;
    o->latency = st->latency.f;
    o->queries = st->queries.f;
    sim_out_headers(o);
    return 0;
}

static void abort_streams(streams *st)
{
    hk_out_abort(&st->periods);
    hk_out_abort(&st->latency);
    hk_out_abort(&st->queries);
}

static int commit_streams(streams *st, hk_err *e)
{
    int rc = hk_out_commit(&st->periods, e);
    rc |= hk_out_commit(&st->latency, e);
    rc |= hk_out_commit(&st->queries, e);
    return rc ? -1 : 0;
}

static int write_report(const sim_world *w, const sim_result *r, const char *scenario,
                        const char *dir, hk_err *e)
{
    hk_out o;
    if (hk_out_open(&o, dir, "report.txt", e) < 0)
        return -1;
    sim_print(o.f, w, r, scenario, 1);
    return hk_out_commit(&o, e);
}

void sim_job_progress(void *ctx, double frac)
{
    sim_job *j = ctx;
    char what[48];
    snprintf(what, sizeof what, "run %d of %d", j->done + 1, j->total);
    if (j->progress)
        j->progress(j, ((double)j->done + frac) / j->total, what);
}

/* The job's LOG=CONF pairs onto the scenario's own table_map: 0, or SIM_JOB_TMAP (e). */
static int add_tmap(const sim_job *j, hk_scn *s, hk_err *e)
{
    for (int i = 0; i < j->ntmap; i++) {
        const char *eq = strchr(j->tmap[i], '=');
        char log[128], conf[128];
        snprintf(log, sizeof log, "%.*s", (int)(eq - j->tmap[i]), j->tmap[i]);
        snprintf(conf, sizeof conf, "%s", eq + 1);
        int k = 0;
        while (k < s->wl.ntmap && strcmp(s->wl.tmap[k][0], log))
            k++;
        if (!hk_cluster_find_table(s->cl, conf)) {
            hk_err_set(e, "", 0, 0, "%s: the config has no distributed table '%s'", j->tmap[i],
                       conf);
            return SIM_JOB_TMAP;
        }
        if (k == HK_TMAP_MAX) {
            hk_err_set(e, "", 0, 0, "at most %d names, the scenario's included", HK_TMAP_MAX);
            return SIM_JOB_TMAP;
        }
        snprintf(s->wl.tmap[k][0], sizeof s->wl.tmap[k][0], "%s", log);
        snprintf(s->wl.tmap[k][1], sizeof s->wl.tmap[k][1], "%s", conf);
        s->wl.ntmap += k == s->wl.ntmap;
    }
    return 0;
}

/* A run that did not finish (rc from sim_run or the analysis): why (e), its files removed. */
static int unfinished(sim_job *j, int rc, const char *dir, streams *st, hk_err *e)
{
    abort_streams(st);
    if (rc == SIM_STOPPED)
        return SIM_JOB_STOPPED;
    if (rc == SIM_WRITE_FAILED) { /* a full disk: said at once, the run's files go */
        hk_err_set(e, dir ? dir : "output", 0, 0, "a file of the run could not be written (disk "
                   "full?): the run stopped at its first failed write and its files were "
                   "removed");
        return SIM_JOB_FAILED;
    }
    if (rc == -1 && j->L->trace && j->L->trace->failed) {
        *e = j->L->trace->err;
        return SIM_JOB_INPUT;
    }
    hk_err_set(e, "", 0, 0, "out of memory");
    return SIM_JOB_FAILED;
}

/* What the run found and its files, once it finished. */
static int finished(sim_job *j, sim_world *w, sim_result *r, const char *dir, streams *st,
                    sim_figures *fig, FILE *report, hk_err *e)
{
    sim_figures_of(w, r, fig);
    j->failed_on |= hk_ans_fail_on(&r->ans, j->fail_on);
    if (j->inspect)
        j->inspect(j->ictx, w, r);
    if (report)
        sim_print(report, w, r, j->scenario, 0);
    if (dir && (sim_write_files(w, r, dir, e) < 0 ||
                hk_rep_faults(w->s, w->end_us - w->t0, dir, e) < 0 ||
                write_report(w, r, j->scenario, dir, e) < 0 || commit_streams(st, e) < 0)) {
        abort_streams(st);
        return SIM_JOB_FAILED;
    }
    return SIM_JOB_DONE;
}

int sim_job_run(sim_job *j, hk_scn *s, sim_opts *o, const char *dir, sim_figures *fig,
                FILE *report, hk_err *e)
{
    streams st;
    memset(&st, 0, sizeof st);
    int rc = add_tmap(j, s, e);
    if (rc)
        return rc;
    if (hk_loaded_rewind(j->L, s, o->duration_us ? o->duration_us : s->wl.duration_us, e) < 0)
        return SIM_JOB_INPUT;
    if (dir && (hk_mkdirs(dir, e) < 0 || open_streams(dir, j->queries, &st, o, e) < 0)) {
        abort_streams(&st);
        return SIM_JOB_FAILED;
    }
    o->stop = j->stop;
    sim_world *w = sim_new(s, o);
    rc = w ? sim_run(w) : -2;
    sim_result r;
    memset(&r, 0, sizeof r);
    if (rc == 0 && sim_analyse(w, &r) < 0)
        rc = -2;
    j->done++;
    if (j->progress)
        j->progress(j, -1, NULL);
    rc = rc ? unfinished(j, rc, dir, &st, e) : finished(j, w, &r, dir, &st, fig, report, e);
    sim_result_free(&r);
    sim_free(w);
    return rc;
}
