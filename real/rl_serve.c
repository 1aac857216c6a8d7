/* rl_serve: one mirror on the default loop until told to stop (see rl_serve.h). */
#include "rl_serve.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include "rl_metrics.h"

typedef struct sigs { uv_signal_t s[3]; rl_mirror *m; } sigs;

static void mirror_metrics(const void *m, hk_buf *b) { rl_mirror_metrics(m, b); }

static void stop_http(void *user) { rl_metrics_stop(user); }

/* /metrics on addr, stopped with the mirror. */
static int serve_metrics(rl_mirror *m, rl_metrics *h, const char *addr, char *msg, int n)
{
    if (rl_metrics_start(h, m->loop, addr, mirror_metrics, m, msg, n) < 0)
        return -1;
    m->on_stop = stop_http;
    m->on_stop_user = h;
    return 0;
}

static void on_signal(uv_signal_t *s, int sig)
{
    sigs *g = s->data;
    (void)sig;
    rl_mirror_stop(g->m);
    for (int k = 0; k < 3; k++)
        uv_close((uv_handle_t *)&g->s[k], NULL);
}

/* SIGINT, SIGTERM, SIGHUP stop the mirror; the handles do not keep the loop alive by
 * themselves (a mirror whose control stdin closed, its parent gone, ends). */
static void watch_signals(uv_loop_t *loop, sigs *g)
{
    static const int which[3] = {SIGINT, SIGTERM, SIGHUP};
    for (int k = 0; k < 3; k++) {
        uv_signal_init(loop, &g->s[k]);
        g->s[k].data = g;
        uv_signal_start(&g->s[k], on_signal, which[k]);
        uv_unref((uv_handle_t *)&g->s[k]);
    }
}

int rl_serve(const rl_mirror_cfg *c, const rl_serve_cfg *s, char *msg, int n)
{
    uv_loop_t *loop = uv_default_loop();
    rl_mirror m;
    rl_metrics http = {0};
    memset(&m, 0, sizeof m);
    int rc = rl_mirror_start(&m, loop, c, msg, n);
    if (rc == 0 && s->metrics && (rc = serve_metrics(&m, &http, s->metrics, msg, n)) < 0)
        rl_mirror_stop(&m);
    if (rc == 0) {
        rl_mirror_set_fault(&m, s->fault, s->x);
        if (s->control) { /* dies with its parent, even stopped (SIGSTOP: the stall fault) */
            rl_die_with_parent();
            rl_mirror_control_stdin(&m);
        }
        sigs g = {.m = &m};
        watch_signals(loop, &g);
        hk_sayf(&s->say, "listening on %s:%d%s%s%s", c->host, c->port,
                s->metrics ? ", metrics on http://" : "", s->metrics ? s->metrics : "",
                s->metrics ? "/metrics" : "");
        uv_run(loop, UV_RUN_DEFAULT);
    }
    uv_run(loop, UV_RUN_DEFAULT); /* finish closing whatever a failed start left */
    if (rc == 0 && m.log_errno) {
        snprintf(msg, (size_t)n, "the log could not be written after %llu rows: %s; the mirror "
                 "stopped rather than lose them", (unsigned long long)m.log_rows,
                 strerror(m.log_errno));
        rc = -1;
    }
    rl_mirror_free(&m);
    uv_loop_close(loop);
    return rc < 0 ? -1 : 0;
}
