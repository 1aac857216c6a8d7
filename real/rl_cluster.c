/* rl_cluster: a scenario's mirrors as children, faults on schedule (see rl_cluster.h). */
#include "rl_cluster.h"

#include "hk_buf.h"
#include "hk_seed.h"

#include "rl_addr.h"

#include <arpa/inet.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static int proxied(const rl_cluster *lv, int host) { return lv->upstream && lv->upstream[host]; }

/* Port base + h for mirror h (what: the option that asked for it), checked free. */
static int pinned(const rl_cluster *lv, const char *what, int base, int h, hk_err *e)
{
    const char *name = lv->s->cl->hosts[h].name;
    long p = (long)base + h;
    if (p > 65535)
        return hk_err_set(e, what, 0, 0, "%d: mirror %s would need port %ld; the scenario's %d "
                          "mirrors need %d to %ld", base, name, p, lv->n, base,
                          (long)base + lv->n - 1);
    if (!rl_port_free((int)p))
        return hk_err_set(e, "", 0, 0, "port %ld (mirror %s, %s %d + %d) is in use: %s", p,
                          name, what, base, h, strerror(errno));
    return (int)p;
}

/* Mirror h's ports: base_port + h or a free one; metrics_base + h when asked. */
static int ports_for(rl_cluster *lv, int h, hk_err *e)
{
    rl_child *c = &lv->ch[h];
    c->port = lv->base_port ? pinned(lv, lv->base_what, lv->base_port, h, e) : rl_port_any();
    if (c->port < 0)
        return c->port == -1 && lv->base_port ? -1 : hk_err_set(e, "loopback", 0, 0, "no free port");
    if (lv->metrics_base &&
        (c->mport = pinned(lv, lv->metrics_what, lv->metrics_base, h, e)) < 0)
        return -1;
    if (proxied(lv, h) && (c->aport = rl_port_any()) < 0)
        return hk_err_set(e, "loopback", 0, 0, "no free port");
    long b = lv->base_port, m = lv->metrics_base;
    if (h == 0 && b && m && b < m + lv->n && m < b + lv->n)
        return hk_err_set(e, "", 0, 0, "%s %ld and %s %ld overlap for %d mirrors", lv->base_what,
                          b, lv->metrics_what, m, lv->n);
    return 0;
}

/* ---- children --------------------------------------------------------- */

static void on_child_closed(uv_handle_t *h) { (void)h; }

static void on_exit_cb(uv_process_t *p, int64_t status, int sig)
{
    rl_child *c = p->data;
    (void)status;
    (void)sig;
    c->running = 0;
    uv_close((uv_handle_t *)p, on_child_closed);
    if (c->pipe_open) {
        uv_close((uv_handle_t *)&c->in, NULL);
        c->pipe_open = 0;
    }
}

/* A proxy child's arguments (into args, from na), its strings in buf. */
static int proxy_args(rl_cluster *lv, rl_child *c, char **args, int na, char (*buf)[64])
{
    snprintf(buf[0], sizeof buf[0], "127.0.0.1:%d", c->aport);
    args[1] = "proxy";
    args[na++] = "--upstream";
    args[na++] = (char *)lv->upstream[c->host];
    args[na++] = "--api";
    args[na++] = buf[0];
    args[na++] = "--mirror";
    args[na++] = (char *)lv->s->cl->hosts[c->host].name;
    return na;
}

static int spawn(rl_cluster *lv, rl_child *c, hk_err *e)
{
    char listen[64], port_arg[16];
    snprintf(listen, sizeof listen, "127.0.0.1:%d", c->port);
    snprintf(port_arg, sizeof port_arg, "%d", c->port);
    char metrics[64];
    snprintf(metrics, sizeof metrics, "127.0.0.1:%d", c->mport);
    char log[1100];
    snprintf(log, sizeof log, "%s/mirror-%d.%d.csv", lv->logdir ? lv->logdir : "", c->host,
             c->starts++);
    char seed[32]; /* each mirror its own stream, as in hasim: never the same draws */
    snprintf(seed, sizeof seed, "%llu", (unsigned long long)(hk_seed_stream(lv->seed,
             HK_SEED_MIRROR_STREAM + (uint64_t)c->host) & 0xffffffffu));
    char *args[24] = {lv->self, "mirror", "--listen", listen, "--scenario", lv->scn, "--name",
                      lv->s->cl->hosts[c->host].name, "--control", "--quiet", "--seed", seed};
    int na = 12;
    if (c->mport) {
        args[na++] = "--metrics";
        args[na++] = metrics;
    }
    if (lv->logdir) {
        args[na++] = "--log";
        args[na++] = log;
    }
    char pbuf[1][64];
    if (proxied(lv, c->host))
        na = proxy_args(lv, c, args, na, pbuf);
    uv_pipe_init(lv->loop, &c->in, 0);
    c->pipe_open = 1;
    uv_stdio_container_t io[3];
    io[0].flags = UV_CREATE_PIPE | UV_READABLE_PIPE;
    io[0].data.stream = (uv_stream_t *)&c->in;
    io[1].flags = UV_IGNORE;
    io[2].flags = UV_INHERIT_FD;
    io[2].data.fd = 2;
    uv_process_options_t po = {0};
    po.file = lv->self;
    po.args = args;
    po.exit_cb = on_exit_cb;
    po.stdio = io;
    po.stdio_count = 3;
    c->proc.data = c;
    int rc = uv_spawn(lv->loop, &c->proc, &po);
    if (rc < 0) {
        uv_close((uv_handle_t *)&c->in, NULL);
        c->pipe_open = 0;
        return hk_err_set(e, lv->self, 0, 0, "cannot be started: %s", uv_strerror(rc));
    }
    c->running = 1;
    c->stopped = 0;
    return 0;
}

/* A mirror back after its `down` fault; if it cannot be started, said (the run goes on). */
static void respawn(rl_cluster *lv, rl_child *c)
{
    hk_err e;
    char m[600];
    if (spawn(lv, c, &e) < 0)
        hk_sayf(&lv->say, "%s", hk_err_str(&e, m, sizeof m));
}

static void control(rl_child *c, const char *line)
{
    if (!c->running || !c->pipe_open)
        return;
    uv_buf_t b = uv_buf_init((char *)line, (unsigned)strlen(line));
    uv_try_write((uv_stream_t *)&c->in, &b, 1);
}

static void stop_children(rl_cluster *lv)
{
    for (int i = 0; i < lv->n; i++) {
        rl_child *c = &lv->ch[i];
        if (!c->running)
            continue;
        if (c->stopped)
            uv_process_kill(&c->proc, SIGCONT);
        uv_process_kill(&c->proc, SIGTERM);
    }
    for (int i = 0; i < lv->nft; i++)
        if (!uv_is_closing((uv_handle_t *)&lv->ft[i].t))
            uv_close((uv_handle_t *)&lv->ft[i].t, NULL);
}

/* ---- faults on schedule ----------------------------------------------- */

static rl_child *child_of(rl_cluster *lv, int host)
{
    for (int i = 0; i < lv->n; i++)
        if (lv->ch[i].host == host)
            return &lv->ch[i];
    return NULL;
}

static void fault_cb(uv_timer_t *t)
{
    rl_ftimer *ft = t->data;
    rl_cluster *lv = ft->lv;
    const hk_fault *f = ft->f;
    rl_child *c = child_of(lv, f->host);
    if (!c || lv->ending)
        return;
    char line[64];
    int start = ft->phase == 0;
    switch (f->kind) {
    case HK_FAULT_DOWN:
        if (start && c->running)
            uv_process_kill(&c->proc, SIGKILL);
        else if (!start && !c->running)
            respawn(lv, c);
        break;
    case HK_FAULT_STALL:
        if (c->running) {
            uv_process_kill(&c->proc, start ? SIGSTOP : SIGCONT);
            c->stopped = start;
        }
        break;
    case HK_FAULT_FLAP:
        if (ft->phase == 1) {
            control(c, "fault none\n");
            uv_timer_stop(t);
            return;
        }
        ft->down = !ft->down;
        control(c, ft->down ? "fault down\n" : "fault none\n");
        if (ft->phase == 0) {
            ft->phase = 2;
            uv_timer_start(t, fault_cb, (uint64_t)(f->period_us / 2000), (uint64_t)(f->period_us / 2000));
        }
        return;
    default:
        if (start)
            snprintf(line, sizeof line, "fault %s(%g)\n", f->kind == HK_FAULT_SLOW ? "slow" :
                     f->kind == HK_FAULT_ERRORS ? "errors" : "partition", f->x);
        else
            snprintf(line, sizeof line, "fault none\n");
        if ((f->kind == HK_FAULT_PARTITION || f->kind == HK_FAULT_STUCK) && start)
            snprintf(line, sizeof line, "fault %s\n", hk_fault_name(f->kind));
        control(c, line);
    }
}

static int schedule_faults(rl_cluster *lv)
{
    const hk_scn *s = lv->s;
    lv->ft = calloc((size_t)s->nfaults * 3 + 1, sizeof *lv->ft);
    if (!lv->ft)
        return -1;
    for (int i = 0; i < s->nfaults; i++) {
        const hk_fault *f = &s->faults[i];
        if (proxied(lv, f->host)) /* its proxy's own schedule carries it out */
            continue;
        for (int ph = 0; ph < 2; ph++) {
            if (ph == 1 && f->for_us < 0)
                continue;
            rl_ftimer *ft = &lv->ft[lv->nft++];
            ft->lv = lv;
            ft->f = f;
            ft->phase = ph;
            uv_timer_init(lv->loop, &ft->t);
            ft->t.data = ft;
            int64_t at = ph == 0 ? f->at_us : f->at_us + f->for_us;
            uv_timer_start(&ft->t, fault_cb, (uint64_t)(at / 1000), 0);
        }
    }
    return 0;
}

void rl_cluster_stop(void *user)
{
    rl_cluster *lv = user;
    lv->ending = 1;
    stop_children(lv);
}

/* ---- the cluster ------------------------------------------------------ */

/* "N mirrors up: HOST=127.0.0.1:PORT ..." (the first 8), to lv->say. */
static void say_up(const rl_cluster *lv)
{
    const hk_cluster *cl = lv->s->cl;
    hk_buf b;
    hk_buf_init(&b);
    hk_buf_printf(&b, "%d mirrors up:", lv->n);
    for (int h = 0; h < lv->n && h < 8; h++) {
        hk_buf_printf(&b, " %s=127.0.0.1:%d", cl->hosts[h].name, lv->ch[h].port);
        if (proxied(lv, h))
            hk_buf_printf(&b, " (proxy to %s, API http://127.0.0.1:%d)", lv->upstream[h],
                          lv->ch[h].aport);
        if (lv->ch[h].mport)
            hk_buf_printf(&b, " (metrics :%d)", lv->ch[h].mport);
    }
    hk_buf_printf(&b, "%s", lv->n > 8 ? " ..." : "");
    hk_sayf(&lv->say, "%s", b.s ? b.s : "");
    hk_buf_free(&b);
}

int rl_cluster_start(rl_cluster *lv, struct sockaddr_in *addr, hk_err *e)
{
    const hk_cluster *cl = lv->s->cl;
    lv->n = cl->nhosts;
    lv->ch = calloc((size_t)lv->n + 1, sizeof *lv->ch);
    if (!lv->ch)
        return hk_err_set(e, "hareal", 0, 0, "out of memory");
    for (int h = 0; h < lv->n; h++) /* every port known before any child starts */
        if (ports_for(lv, h, e) < 0)
            return -1;
    for (int h = 0; h < lv->n; h++) {
        rl_child *c = &lv->ch[h];
        c->host = h;
        c->lv = lv;
        if (spawn(lv, c, e) < 0)
            return -1;
        memset(&addr[h], 0, sizeof addr[h]);
        addr[h].sin_family = AF_INET;
        addr[h].sin_port = htons((uint16_t)c->port);
        addr[h].sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    }
    for (int h = 0; h < lv->n; h++) {
        int tries = 0;
        while (!rl_port_up(lv->ch[h].port) && tries++ < 500)
            nanosleep(&(struct timespec){0, 10000000}, NULL);
        if (tries >= 500)
            return hk_err_set(e, cl->hosts[h].name, 0, 0, "the mirror did not start on port %d",
                              lv->ch[h].port);
    }
    say_up(lv);
    if (!lv->defer_faults && rl_cluster_faults(lv) < 0)
        return hk_err_set(e, "hareal", 0, 0, "out of memory");
    return 0;
}

int rl_cluster_faults(rl_cluster *lv)
{
    uv_update_time(lv->loop);
    for (int i = 0; i < lv->n; i++)
        if (proxied(lv, lv->ch[i].host))
            control(&lv->ch[i], "start\n");
    return schedule_faults(lv);
}

