/* rl_cmd_live: `hareal live SCENARIO` — run a whole cluster from a scenario:
 * every mirror an `hareal mirror` child on its own loopback port, the
 * scenario's workload (or a trace) through the wire master, its faults
 * applied for real on schedule (down: kill and restart; stall: SIGSTOP and
 * SIGCONT; stuck, slow, errors, partition, flap: the child's control line), the same
 * output folder as a replay, and every child stopped on exit, error or Ctrl-C.
 * --compare-sim also runs hasim on the scenario and prints both side by side. */
#include <arpa/inet.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "hk_cli.h"
#include "hk_csv.h"
#include "hk_plot.h"
#include "hk_report.h"
#include "hk_scnload.h"
#include "hk_time.h"
#include "rl_addr.h"
#include "rl_cli.h"
#include "rl_compare.h"

int rl_replay_run(rl_drive *d, rl_master **mp, const rl_master_cfg *mc, const char *dir,
                  hk_out *periods, hk_out *queries);

typedef struct child {
    uv_process_t proc;
    uv_pipe_t in;
    int running, stopped, port, host, pipe_open;
    struct live *lv;
} child;

typedef struct ftimer {
    uv_timer_t t;
    struct live *lv;
    const hk_fault *f;
    int phase;                   /* 0 start, 1 end, 2 flap toggle */
    int down;
} ftimer;

typedef struct live {
    uv_loop_t *loop;
    hk_loaded L;
    child *ch;
    int n;
    ftimer *ft;
    int nft;
    char self[1024], scn[1024], seed_s[32];
    int ending;
    const hk_scn *s;             /* the scenario in the variant's dialect */
} live;

typedef struct lopts {
    rl_common c;
    const char *scenario;
    char outbuf[1024];
    int compare;
    int64_t duration_us;
} lopts;

#define WHO "hareal live"

static int bad(const char *m, const char *v)
{
    fprintf(stderr, WHO ": %s%s%s\n", m, v ? ": " : "", v ? v : "");
    return RL_EXIT_USAGE;
}

static void usage(FILE *f)
{
    fprintf(f, "usage: hareal live SCENARIO [options]\n"
               "  runs every mirror of the scenario as an 'hareal mirror' child on loopback,\n"
               "  its workload through the wire master, its faults for real, on schedule\n"
               "  --duration T          run length (default: the workload's)\n"
               "  --compare-sim         also simulate the scenario; print both side by side\n");
    rl_common_usage(f);
    fprintf(f, "files in DIR: as hareal replay's, plus faults.csv and compare.csv\n"
               "exit codes: 0 ok; 1 run-time failure; 2 bad command line; 3 bad input;\n"
               "  130 interrupted (Ctrl-C: every child is stopped, every query has its rows)\n");
}

static int parse(int argc, char **argv, lopts *o)
{
    memset(o, 0, sizeof *o);
    rl_common_init(&o->c, -1, -1);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        int took = rl_common_opt(&o->c, WHO, a, v);
        if (took < 0)
            return RL_EXIT_USAGE;
        if (took > 0) {
            i += took - 1;
            continue;
        }
        if (!strcmp(a, "--compare-sim")) {
            o->compare = 1;
        } else if (a[0] != '-') {
            if (o->scenario)
                return bad("one scenario at a time; a second one", a);
            o->scenario = a;
        } else if (!strcmp(a, "--duration")) {
            if (!v)
                return bad("option needs a value", a);
            if (hk_cli_time(WHO, a, v, HK_SEC, &o->duration_us) < 0)
                return RL_EXIT_USAGE;
            i++;
        } else {
            return bad("unknown option", a);
        }
    }
    if (o->c.help)
        return -1;
    if (!o->scenario)
        return bad("expected a scenario file (see --help)", NULL);
    if (!o->c.out) {
        const char *b = strrchr(o->scenario, '/');
        b = b ? b + 1 : o->scenario;
        snprintf(o->outbuf, sizeof o->outbuf, "out/live-%.*s", (int)strcspn(b, "."), b);
        o->c.out = o->outbuf;
    }
    return 0;
}

static int free_port(void)
{
    int s = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {0};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    int port = -1;
    if (s >= 0 && bind(s, (struct sockaddr *)&a, sizeof a) == 0 &&
        getsockname(s, (struct sockaddr *)&a, &len) == 0)
        port = ntohs(a.sin_port);
    if (s >= 0)
        close(s);
    return port;
}

static int port_up(int port)
{
    int s = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {0};
    a.sin_family = AF_INET;
    a.sin_port = htons((uint16_t)port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int ok = s >= 0 && connect(s, (struct sockaddr *)&a, sizeof a) == 0;
    if (s >= 0)
        close(s);
    return ok;
}

/* ---- children --------------------------------------------------------- */

static void on_child_closed(uv_handle_t *h) { (void)h; }

static void on_exit_cb(uv_process_t *p, int64_t status, int sig)
{
    child *c = p->data;
    (void)status;
    (void)sig;
    c->running = 0;
    uv_close((uv_handle_t *)p, on_child_closed);
    if (c->pipe_open) {
        uv_close((uv_handle_t *)&c->in, NULL);
        c->pipe_open = 0;
    }
}

static int spawn(live *lv, child *c)
{
    char listen[64], port_arg[16];
    snprintf(listen, sizeof listen, "127.0.0.1:%d", c->port);
    snprintf(port_arg, sizeof port_arg, "%d", c->port);
    char *args[] = {lv->self, "mirror", "--listen", listen, "--scenario", lv->scn, "--name",
                    lv->s->cl->hosts[c->host].name, "--control", "--quiet", "--seed",
                    lv->seed_s, NULL};
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
        fprintf(stderr, "hareal live: cannot start %s: %s\n", lv->self, uv_strerror(rc));
        return -1;
    }
    c->running = 1;
    c->stopped = 0;
    return 0;
}

static void control(child *c, const char *line)
{
    if (!c->running || !c->pipe_open)
        return;
    uv_buf_t b = uv_buf_init((char *)line, (unsigned)strlen(line));
    uv_try_write((uv_stream_t *)&c->in, &b, 1);
}

static void stop_children(live *lv)
{
    for (int i = 0; i < lv->n; i++) {
        child *c = &lv->ch[i];
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

static child *child_of(live *lv, int host)
{
    for (int i = 0; i < lv->n; i++)
        if (lv->ch[i].host == host)
            return &lv->ch[i];
    return NULL;
}

static void fault_cb(uv_timer_t *t)
{
    ftimer *ft = t->data;
    live *lv = ft->lv;
    const hk_fault *f = ft->f;
    child *c = child_of(lv, f->host);
    if (!c || lv->ending)
        return;
    char line[64];
    int start = ft->phase == 0;
    switch (f->kind) {
    case HK_FAULT_DOWN:
        if (start && c->running)
            uv_process_kill(&c->proc, SIGKILL);
        else if (!start && !c->running)
            spawn(lv, c);
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

static int schedule_faults(live *lv)
{
    const hk_scn *s = lv->s;
    lv->ft = calloc((size_t)s->nfaults * 3 + 1, sizeof *lv->ft);
    if (!lv->ft)
        return -1;
    for (int i = 0; i < s->nfaults; i++) {
        const hk_fault *f = &s->faults[i];
        for (int ph = 0; ph < 2; ph++) {
            if (ph == 1 && f->for_us < 0)
                continue;
            ftimer *ft = &lv->ft[lv->nft++];
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

static void on_all_done(void *user)
{
    live *lv = user;
    lv->ending = 1;
    stop_children(lv);
}

/* ---- the cluster ------------------------------------------------------ */

static int start_cluster(live *lv, struct sockaddr_in *addr)
{
    const hk_cluster *cl = lv->s->cl;
    lv->n = cl->nhosts;
    lv->ch = calloc((size_t)lv->n + 1, sizeof *lv->ch);
    if (!lv->ch)
        return -1;
    for (int h = 0; h < lv->n; h++) {
        child *c = &lv->ch[h];
        c->host = h;
        c->lv = lv;
        if ((c->port = free_port()) < 0 || spawn(lv, c) < 0)
            return -1;
        memset(&addr[h], 0, sizeof addr[h]);
        addr[h].sin_family = AF_INET;
        addr[h].sin_port = htons((uint16_t)c->port);
        addr[h].sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    }
    for (int h = 0; h < lv->n; h++) {
        int tries = 0;
        while (!port_up(lv->ch[h].port) && tries++ < 500)
            nanosleep(&(struct timespec){0, 10000000}, NULL);
        if (tries >= 500) {
            fprintf(stderr, "hareal live: mirror %s did not start on port %d\n",
                    cl->hosts[h].name, lv->ch[h].port);
            return -1;
        }
    }
    fprintf(stderr, "hareal live: %d mirrors up:", lv->n);
    for (int h = 0; h < lv->n && h < 8; h++)
        fprintf(stderr, " %s=127.0.0.1:%d", cl->hosts[h].name, lv->ch[h].port);
    fprintf(stderr, "%s\n", lv->n > 8 ? " ..." : "");
    return 0;
}

/* The scenario's own trace(FILE) arrivals, when no --trace was given. */
static int scenario_trace(const hk_scn *s, const lopts *o, hk_trace *tr, hk_err *e)
{
    if (o->c.trace)
        return hk_trace_open(tr, o->c.trace, (hk_trace_fmt)o->c.format, NULL, e) < 0 ? -1 : 1;
    if (s->wl.clients || s->wl.arr.kind != HK_ARR_TRACE)
        return 0;
    char p[1024];
    hk_path_rel(s->file, s->wl.arr.path, p, sizeof p);
    const char *col = strcmp(s->wl.arr.column, "t_s") ? s->wl.arr.column : NULL;
    return hk_trace_open(tr, p, HK_TRACE_AUTO, col, e) < 0 ? -1 : 1;
}

static void setup_drive(rl_drive *d, const hk_scn *s, const lopts *o, hk_trace *tr,
                        gsl_rng *rng, int64_t dur, live *lv)
{
    memset(d, 0, sizeof *d);
    d->cl = s->cl;
    d->trace = tr;
    d->arr = tr ? NULL : (hk_arrivals *)&s->wl.arr;
    d->nclients = tr ? 0 : s->wl.clients;
    d->think = s->wl.think;
    d->arr_table = s->wl.table;
    d->rng = rng;
    d->duration_us = dur;
    d->speed = 1;
    d->user_end = on_all_done;
    d->user = lv;
    for (int i = 0; i < s->wl.ntmap && i < RL_TMAP_MAX; i++) {
        d->tmap[i][0] = s->wl.tmap[i][0];
        d->tmap[i][1] = s->wl.tmap[i][1];
        d->ntmap++;
    }
    for (int i = 0; i < o->c.ntmap && d->ntmap < RL_TMAP_MAX; i++) {
        d->tmap[d->ntmap][0] = o->c.tmap[i][0];
        d->tmap[d->ntmap++][1] = o->c.tmap[i][1];
    }
}

static int report(const lopts *o, live *lv, const hk_scn *s, rl_master *m, rl_drive *d,
                  int64_t dur, uint64_t seed, int variant)
{
    hk_err e;
    hk_findings fd;
    int rc = rl_master_analyse(m, s, rl_drive_lag_p99(d), &fd, o->c.out, &e);
    hk_ans a = {&fd, &m->tl, s, 1};
    if (rc == 0 && !o->c.quiet)
        rl_report(stdout, m, d, WHO, &a, 0);
    hk_out ro;
    if (rc == 0 && (rc = hk_out_open(&ro, o->c.out, "report.txt", &e)) == 0) {
        rl_report(ro.f, m, d, WHO, &a, 1);
        rc = hk_out_commit(&ro, &e);
    }
    int gate = rc == 0 ? rl_fail_on(&o->c, WHO, &a, 0) : 0;
    hk_findings_free(&fd);
    hk_rep_run meta = {"hareal live", o->scenario, m->var->name, o->c.strategy >= 0 ?
                      hk_strat_get(o->c.strategy)->name : "as configured", 1,
                      (double)dur / 1e6, s->cl->set.karma_s, seed};
    if (rc == 0 && (hk_out_write_all(o->c.out, "scenario.txt", lv->L.text, strlen(lv->L.text),
                                     &e) < 0 || hk_rep_faults(s, dur, o->c.out, &e) < 0 ||
                    hk_rep_run_csv(&meta, o->c.out, &e) < 0))
        rc = -1;
    if (rc < 0) {
        rl_print_err(WHO, &e);
        return RL_EXIT_RUN;
    }
    if (o->compare && rl_compare_sim(lv->self, lv->scn, o->c.out, o->c.strategy, o->c.quiet, dur,
                                     seed, variant) < 0)
        return RL_EXIT_RUN;
    char msg[512];
    if (o->c.plot && hk_plot_run(o->c.out, 0, &o->c.sel, msg, sizeof msg) < 0)
        fprintf(stderr, WHO ": %s\n", msg);
    if (!o->c.quiet)
        printf("files: %s/\n", o->c.out);
    return gate;
}

static int run_live(live *lv, const lopts *o, const hk_scn *s, int variant, uint64_t seed)
{
    hk_err e;
    hk_trace tr;
    memset(&tr, 0, sizeof tr);
    int64_t dur = o->duration_us > 0 ? o->duration_us : s->wl.duration_us;
    int have = scenario_trace(s, o, &tr, &e);
    if (have < 0) {
        rl_print_err(WHO, &e);
        return RL_EXIT_INPUT;
    }
    struct sockaddr_in *addr = calloc((size_t)s->cl->nhosts + 1, sizeof *addr);
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    int rc = RL_EXIT_RUN;
    hk_rundir rd = {"", -1};
    if (rl_outdir(&rd, o->c.out, WHO, o->c.force, &e) < 0) {
        rl_print_err(WHO, &e);
        rc = RL_EXIT_USAGE;
    } else if (!addr || !rng || start_cluster(lv, addr) < 0 || schedule_faults(lv) < 0) {
        on_all_done(lv);
        uv_run(lv->loop, UV_RUN_DEFAULT);
    } else {
        gsl_rng_set(rng, (unsigned long)seed);
        rl_master_cfg mc = {s->cl, variant, o->c.strategy >= 0 ? o->c.strategy : s->strategy, addr,
                            seed, NULL, NULL, s, NULL, NULL};
        rl_drive d;
        setup_drive(&d, s, o, have ? &tr : NULL, rng, dur, lv);
        hk_progress prog;
        hk_progress_init(&prog, WHO, o->c.quiet);
        d.progress = &prog;
        hk_out po, qo;
        rl_master *m = NULL;
        rc = rl_replay_run(&d, &m, &mc, o->c.out, &po, &qo);
        if (rc == 0)
            rc = report(o, lv, s, m, &d, dur, seed, variant);
        if (rc == 0 && d.interrupted)
            rc = RL_EXIT_INTERRUPTED;
        rl_master_free(m);
        rl_drive_free(&d);
    }
    if (rd.lock_fd >= 0)
        rc = rl_outdir_close(&rd, rc);
    if (rng)
        gsl_rng_free(rng);
    if (have > 0)
        hk_trace_close(&tr);
    free(addr);
    return rc;
}

int rl_cmd_live(int argc, char **argv, const char *self)
{
    lopts o;
    int rc = parse(argc, argv, &o);
    if (rc < 0) {
        if (o.c.help == 2)
            hk_cli_version("hareal");
        else
            usage(stdout);
        return 0;
    }
    if (rc)
        return rc;
    live lv = {0};
    lv.loop = uv_default_loop();
    hk_err e;
    size_t sz = sizeof lv.self;
    if (uv_exepath(lv.self, &sz) < 0)
        snprintf(lv.self, sizeof lv.self, "%s", self);
    if (!realpath(o.scenario, lv.scn))
        snprintf(lv.scn, sizeof lv.scn, "%s", o.scenario);
    if (hk_scn_load(o.scenario, !o.c.no_exec, &lv.L, &e) < 0) {
        rl_print_err(WHO, &e);
        return RL_EXIT_INPUT;
    }
    int variant = o.c.variant >= 0 ? o.c.variant : lv.L.scn->variant;
    hk_warns w = {0};
    hk_scn *s = hk_loaded_scn(&lv.L, variant, &w, &e);
    if (!s) {
        rl_print_err(WHO, &e);
        hk_loaded_free(&lv.L);
        return RL_EXIT_INPUT;
    }
    rl_print_warns(WHO, s == lv.L.scn ? &lv.L.warns : &w);
    lv.s = s;
    uint64_t seed = o.c.seed >= 0 ? (uint64_t)o.c.seed : s->seed;
    snprintf(lv.seed_s, sizeof lv.seed_s, "%llu", (unsigned long long)seed);
    rc = run_live(&lv, &o, s, variant, seed);
    if (lv.ch) {
        on_all_done(&lv);
        uv_run(lv.loop, UV_RUN_DEFAULT);
    }
    free(lv.ch);
    free(lv.ft);
    hk_loaded_free(&lv.L);
    return rc;
}
