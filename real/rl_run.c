/* rl_run: a wire master and its drive on the loop until every query has its rows (see
 * rl_run.h). */
#include "rl_run.h"

#include <stdio.h>
#include <string.h>
#include "hk_exit.h"
#include "rl_addr.h"
#include "rl_http.h"

typedef struct run {
    rl_master *m;
    rl_http http;
    int serving;
} run;

static void on_end(rl_drive *d)
{
    run *r = d->ctx;
    rl_master_stop(r->m);
    if (r->serving)
        rl_http_stop(&r->http);
    r->serving = 0;
}

static int metrics_page(void *user, const rl_http_req *rq, hk_buf *body, const char **ctype)
{
    if (strcmp(rq->path, "/metrics"))
        return 404;
    if (!rl_http_reading(rq))
        return 405;
    rl_drive_metrics(user, body);
    *ctype = RL_PROM_CTYPE;
    return 200;
}

/* /metrics on d->metrics while the run lasts; -1 after saying why. */
static int serve_metrics(run *r, rl_drive *d, uv_loop_t *loop)
{
    char host[64], msg[300];
    int port;
    if (rl_addr_parse(d->metrics, host, sizeof host, &port) < 0) {
        fprintf(stderr, "hareal: --metrics %s: expected IP:PORT\n", d->metrics);
        return -1;
    }
    if (rl_http_start(&r->http, loop, host, port, metrics_page, d, msg, sizeof msg) < 0) {
        fprintf(stderr, "hareal: %s\n", msg);
        return -1;
    }
    r->serving = 1;
    return 0;
}

int rl_run(rl_drive *d, rl_master **mp, const rl_master_cfg *mc0, const char *dir,
                  hk_out *po, hk_out *qo)
{
    hk_err e;
    char msg[300];
    hk_out lo = {0};
    memset(po, 0, sizeof *po);
    memset(qo, 0, sizeof *qo);
    if (hk_out_open(po, dir, "periods.csv", &e) < 0 || hk_out_open(qo, dir, "queries.csv", &e) < 0 ||
        hk_out_open(&lo, dir, "latency.csv", &e) < 0) {
        hk_print_err("hareal", &e);
        hk_out_abort(po);
        hk_out_abort(qo);
        return HK_EXIT_RUN;
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
        fprintf(stderr, "hareal: %s\n", msg);
        hk_out_abort(po);
        hk_out_abort(qo);
        hk_out_abort(&lo);
        return HK_EXIT_RUN;
    }
    *mp = m;
    r.m = m;
    d->loop = loop;
    d->m = m;
    d->queries = qo->f;
    d->on_end = on_end;
    d->ctx = &r;
    int served = !d->metrics || serve_metrics(&r, d, loop) == 0;
    int started = served && rl_drive_start(d) == 0;
    if (!started)
        on_end(d);
    uv_run(loop, UV_RUN_DEFAULT);
    if (!started || d->failed || d->write_failed) { /* the run is not complete */
        if (served && !d->write_failed)
            hk_print_err("hareal", &d->err); /* a malformed trace */
        hk_out_abort(po);
        hk_out_abort(qo);
        hk_out_abort(&lo);
        return d->write_failed || !served ? HK_EXIT_RUN : HK_EXIT_INPUT;
    }
    if (rl_master_finish(m, dir, &e) < 0 || hk_out_commit(po, &e) < 0 ||
        hk_out_commit(&lo, &e) < 0 || hk_out_commit(qo, &e) < 0) {
        hk_print_err("hareal", &e);
        return HK_EXIT_RUN;
    }
    return 0;
}
