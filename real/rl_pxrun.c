/* rl_pxrun: the proxy process, from start to a signal (see rl_pxrun.h). */
#include "rl_pxrun.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include "hk_err.h"
#include "rl_addr.h"
#include "rl_ctl.h"
#include "rl_metrics.h"
#include "rl_pxapi.h"
#include "rl_pxsched.h"

typedef struct pxrun {
    const rl_pxrun_cfg *c;
    uv_loop_t *loop;
    rl_pxset set;
    rl_pxapi api;
    rl_http http;
    rl_metrics mhttp;            /* --metrics: /metrics only, on another address */
    int http_on, sigs_on, sig;
    rl_pxsched sched;
    uv_signal_t s[3];
    rl_ctl ctl;                  /* the parent's control lines (control) */
    int sched_on;
    uint64_t t0;
} pxrun;

static void on_change(void *user, const char *what)
{
    pxrun *r = user;
    hk_sayf(&r->c->say, "%7.3f s: %s", (double)(uv_now(r->loop) - r->t0) / 1e3, what);
}

static void set_metrics(const void *set, hk_buf *b)
{
    const rl_pxset *x = set;
    rl_proxy_metrics(x->px, x->n, b);
}

static int serve(pxrun *r, rl_http *h, const char *addr, rl_http_fn fn, void *user,
                 const char *what, char *msg, int n)
{
    char host[64];
    int port;
    if (rl_addr_parse(addr, host, sizeof host, &port) < 0)
        return hk_err_msg(msg, n, "%s %s: expected IP:PORT", what, addr);
    return rl_http_start(h, r->loop, host, port, fn, user, msg, n);
}

static void stop_all(pxrun *r)
{
    for (int k = 0; k < 3 && r->sigs_on; k++)
        uv_close((uv_handle_t *)&r->s[k], NULL);
    r->sigs_on = 0;
    if (r->http_on)
        rl_http_stop(&r->http);
    rl_metrics_stop(&r->mhttp);
    r->http_on = 0;
    rl_ctl_stop(&r->ctl);
    rl_pxsched_stop(&r->sched);
    rl_pxset_free(&r->set);
}

static void on_signal(uv_signal_t *s, int sig)
{
    pxrun *r = s->data;
    r->sig = sig;
    stop_all(r);
}

static int start_sched(pxrun *r, char *msg, int n)
{
    uv_update_time(r->loop);
    r->sched.on_change = on_change;
    r->sched.user = r;
    r->sched_on = 1;
    if (rl_pxsched_start(&r->sched, &r->set, r->c->name, r->c->scn, r->c->host) < 0)
        return hk_err_msg(msg, n, "out of memory");
    return 0;
}

static int proxies(pxrun *r, char *msg, int n)
{
    const rl_pxrun_cfg *c = r->c;
    int code;
    char why[400];
    if (c->config && rl_pxset_populate(&r->set, c->config, &code, why, sizeof why) < 0)
        return hk_err_msg(msg, n, "%s: %s", c->config_file, why);
    if (c->listen &&
        rl_pxset_add(&r->set, c->name, c->listen, c->upstream, 1, &code, msg, n) < 0)
        return -1;
    if (c->log && r->set.n)
        r->set.px[r->set.n - 1]->log = c->log;
    return c->scn && !c->control ? start_sched(r, msg, n) : 0;
}

/* ---- a parent's control lines (hareal live) ---------------------------- */

/* "start": the scenario's schedule from now. */
static void ctl_line(void *user, const char *line)
{
    pxrun *r = user;
    char msg[128];
    if (!strcmp(line, "start") && r->c->scn && !r->sched_on && start_sched(r, msg, sizeof msg) < 0)
        hk_sayf(&r->c->err_say, "%s", msg);
}

static void ctl_eof(void *user) { stop_all(user); }   /* the parent is gone: so are we */

static int watch_parent(pxrun *r, char *msg, int n)
{
    rl_die_with_parent();
    r->ctl.line = ctl_line;
    r->ctl.eof = ctl_eof;
    r->ctl.user = r;
    if (rl_ctl_start(&r->ctl, r->loop) < 0)
        return hk_err_msg(msg, n, "--control: standard input is not a pipe");
    return 0;
}

static int start(pxrun *r, char *msg, int n)
{
    const rl_pxrun_cfg *c = r->c;
    r->api = (rl_pxapi){&r->set, c->version, on_change, r};
    if (proxies(r, msg, n) < 0)
        return -1;
    if (serve(r, &r->http, c->api, rl_pxapi_page, &r->api, "--api", msg, n) < 0)
        return -1;
    r->http_on = 1;
    if (c->metrics && rl_metrics_start(&r->mhttp, r->loop, c->metrics, set_metrics, &r->set, msg,
                                       n) < 0)
        return -1;
    if (c->control && watch_parent(r, msg, n) < 0)
        return -1;
    static const int which[3] = {SIGINT, SIGTERM, SIGHUP};
    for (int k = 0; k < 3; k++) {
        uv_signal_init(r->loop, &r->s[k]);
        r->s[k].data = r;
        uv_signal_start(&r->s[k], on_signal, which[k]);
    }
    r->sigs_on = 1;
    return 0;
}

static void say_start(const pxrun *r)
{
    for (int i = 0; i < r->set.n; i++)
        hk_sayf(&r->c->say, "%s: %s -> %s%s", r->set.px[i]->name, r->set.px[i]->listen,
                r->set.px[i]->upstream, r->set.px[i]->enabled ? "" : " (disabled)");
    hk_sayf(&r->c->say, "control API on http://%s (GET /proxies), metrics on http://%s/metrics",
            r->c->api, r->c->metrics ? r->c->metrics : r->c->api);
}

int rl_pxrun(const rl_pxrun_cfg *c, int *sig, char *msg, int n)
{
    pxrun r;
    memset(&r, 0, sizeof r);
    r.c = c;
    r.loop = uv_default_loop();
    r.t0 = uv_now(r.loop);
    rl_pxset_init(&r.set, r.loop, c->seed);
    int rc = start(&r, msg, n);
    if (rc == 0) {
        say_start(&r);
        uv_run(r.loop, UV_RUN_DEFAULT);
    } else
        stop_all(&r);
    uv_run(r.loop, UV_RUN_DEFAULT); /* let the loop close what was stopped */
    uv_loop_close(r.loop);
    *sig = r.sig;
    return rc;
}
