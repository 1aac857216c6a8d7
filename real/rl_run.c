/* rl_run: a wire master and its drive on the loop until every query has its rows (see
 * rl_run.h). */
#include "rl_run.h"

#include <stdio.h>
#include <string.h>
#include "rl_metrics.h"

typedef struct run {
    rl_master *m;
    rl_metrics metrics;
} run;

static void on_end(rl_drive *d)
{
    run *r = d->ctx;
    rl_master_stop(r->m);
    rl_metrics_stop(&r->metrics);
}

static void drive_metrics(const void *d, hk_buf *b) { rl_drive_metrics(d, b); }

/* /metrics on d->metrics while the run lasts; -1 with e. */
static int serve_metrics(run *r, rl_drive *d, uv_loop_t *loop, hk_err *e)
{
    char msg[300];
    if (rl_metrics_start(&r->metrics, loop, d->metrics, drive_metrics, d, msg, sizeof msg) < 0)
        return hk_err_set(e, d->metrics, 0, 0, "%s", msg);
    return 0;
}

int rl_run(rl_drive *d, rl_master **mp, const rl_master_cfg *mc0, const char *dir,
           hk_out *po, hk_out *qo, hk_err *e)
{
    char msg[300];
    hk_out lo = {0};
    memset(po, 0, sizeof *po);
    memset(qo, 0, sizeof *qo);
    if (hk_out_open(po, dir, "periods.csv", e) < 0 || hk_out_open(qo, dir, "queries.csv", e) < 0 ||
        hk_out_open(&lo, dir, "latency.csv", e) < 0) {
        hk_out_abort(po);
        hk_out_abort(qo);
        return -1;
    }
    uv_loop_t *loop = uv_default_loop();
    rl_master_cfg mc = *mc0;
    mc.periods = po->f;
    mc.latency = lo.f;
    mc.done = rl_drive_on_done;
    mc.ctx = d;
    run r = {0};
    rl_master *m = rl_master_new(loop, &mc, msg, sizeof msg);
    if (!m) {
        hk_out_abort(po);
        hk_out_abort(qo);
        hk_out_abort(&lo);
        return hk_err_set(e, dir, 0, 0, "%s", msg);
    }
    *mp = m;
    r.m = m;
    d->loop = loop;
    d->m = m;
    d->queries = qo->f;
    d->on_end = on_end;
    d->ctx = &r;
    int served = !d->metrics || serve_metrics(&r, d, loop, e) == 0;
    int started = served && rl_drive_start(d) == 0;
    if (!started)
        on_end(d);
    uv_run(loop, UV_RUN_DEFAULT);
    if (!started || d->failed || d->write_failed) { /* the run is not complete */
        if (served)
            *e = d->err; /* a malformed trace, or the write that failed */
        hk_out_abort(po);
        hk_out_abort(qo);
        hk_out_abort(&lo);
        return d->write_failed || !served ? -1 : -2;
    }
    if (rl_master_finish(m, e) < 0 || hk_out_commit(po, e) < 0 ||
        hk_out_commit(&lo, e) < 0 || hk_out_commit(qo, e) < 0)
        return -1;
    return 0;
}
