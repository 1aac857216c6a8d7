/* rl_cmd_live: `hareal live SCENARIO` — run a whole cluster from a scenario:
 * every mirror an `hareal mirror` child on its own loopback port, the
 * scenario's workload (or a trace) through the wire master, its faults
 * applied for real on schedule (down: kill and restart; hang: SIGSTOP and
 * SIGCONT; slow, errors, partition, flap: the child's control line), the same
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
#include "hk_csv.h"
#include "hk_plot.h"
#include "hk_report.h"
#include "hk_scnload.h"
#include "hk_time.h"
#include "rl_addr.h"
#include "rl_cli.h"

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
} live;

typedef struct lopts {
    rl_common c;
    const char *scenario;
    char outbuf[1024];
    int compare;
    int64_t duration_us;
} lopts;

static int bad(const char *m)
{
    fprintf(stderr, "hareal live: %s\n", m);
    return RL_EXIT_USAGE;
}

static int parse(int argc, char **argv, lopts *o)
{
    memset(o, 0, sizeof *o);
    rl_common_init(&o->c, -1, -1);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        int took = rl_common_opt(&o->c, "hareal live", a, v);
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
                return bad("one scenario at a time");
            o->scenario = a;
        } else if (!strcmp(a, "--duration") && v) {
            int b;
            const char *w;
            if (hk_time_parse(v, HK_SEC, &o->duration_us, &b, &w) < 0 || o->duration_us <= 0)
                return bad("--duration: expected a positive time such as 30s");
            i++;
        } else {
            return bad("unknown option (or missing value)");
        }
    }
    if (!o->scenario)
        return bad("expected a scenario file");
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
                    lv->L.scn->cl->hosts[c->host].name, "--control", "--quiet", "--seed",
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
    case HK_FAULT_HANG:
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
        if (f->kind == HK_FAULT_PARTITION && start)
            snprintf(line, sizeof line, "fault partition\n");
        control(c, line);
    }
}

static int schedule_faults(live *lv)
{
    const hk_scn *s = lv->L.scn;
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
    const hk_cluster *cl = lv->L.scn->cl;
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

int rl_compare_sim(const char *self, const char *scenario, const char *dir, const lopts *o,
                   int64_t dur_us, uint64_t seed, int variant);

int rl_cmd_live(int argc, char **argv, const char *self)
{
    lopts o;
    int rc = parse(argc, argv, &o);
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
    if (hk_scn_load(o.scenario, 1, &lv.L, &e) < 0) {
        rl_print_err("hareal live", &e);
        return RL_EXIT_INPUT;
    }
    const hk_scn *s = lv.L.scn;
    uint64_t seed = o.c.seed >= 0 ? (uint64_t)o.c.seed : s->seed;
    snprintf(lv.seed_s, sizeof lv.seed_s, "%llu", (unsigned long long)seed);
    int variant = o.c.variant >= 0 ? o.c.variant : s->variant;
    int64_t dur = o.duration_us > 0 ? o.duration_us : s->wl.duration_us;
    hk_trace tr;
    int have_trace = 0;
    struct sockaddr_in *addr = calloc((size_t)s->cl->nhosts + 1, sizeof *addr);
    rc = RL_EXIT_RUN;
    if (o.c.trace) {
        if (hk_trace_open(&tr, o.c.trace, (hk_trace_fmt)o.c.format, NULL, &e) < 0) {
            rl_print_err("hareal live", &e);
            rc = RL_EXIT_INPUT;
            goto out;
        }
        have_trace = 1;
    }
    if (rl_outdir(o.c.out, o.c.force, &e) < 0) {
        rl_print_err("hareal live", &e);
        rc = RL_EXIT_USAGE;
        goto out;
    }
    if (!addr || start_cluster(&lv, addr) < 0 || schedule_faults(&lv) < 0) {
        on_all_done(&lv);
        uv_run(lv.loop, UV_RUN_DEFAULT);
        goto out;
    }
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, (unsigned long)seed);
    rl_master_cfg mc = {s->cl, variant, o.c.strategy >= 0 ? o.c.strategy : s->strategy, addr, seed,
                        NULL, NULL, NULL, NULL};
    rl_drive d = {0};
    d.cl = s->cl;
    d.trace = have_trace ? &tr : NULL;
    d.arr = have_trace ? NULL : (hk_arrivals *)&s->wl.arr;
    d.arr_table = s->wl.table;
    d.rng = rng;
    d.duration_us = dur;
    d.speed = 1;
    d.user_end = on_all_done;
    d.user = &lv;
    hk_out po, qo;
    rl_master *m = NULL;
    rc = rl_replay_run(&d, &m, &mc, o.c.out, &po, &qo);
    gsl_rng_free(rng);
    if (rc == 0) {
        rl_report(stdout, m, &d, "hareal live");
        hk_out ro;
        if (hk_out_open(&ro, o.c.out, "report.txt", &e) == 0) {
            rl_report(ro.f, m, &d, "hareal live");
            hk_out_commit(&ro, &e);
        }
        hk_out_write_all(o.c.out, "scenario.txt", lv.L.text, strlen(lv.L.text), &e);
        hk_rep_faults(s, dur, o.c.out, &e);
        if (o.compare && rl_compare_sim(lv.self, lv.scn, o.c.out, &o, dur, seed, variant) < 0)
            rc = RL_EXIT_RUN;
        char msg[512];
        if (o.c.plot && hk_plot_run(o.c.out, 0, NULL, msg, sizeof msg) < 0)
            fprintf(stderr, "hareal live: %s\n", msg);
        printf("files: %s/\n", o.c.out);
    }
    rl_master_free(m);
out:
    if (lv.ch) {
        on_all_done(&lv);
        uv_run(lv.loop, UV_RUN_DEFAULT);
    }
    if (have_trace)
        hk_trace_close(&tr);
    free(lv.ch);
    free(lv.ft);
    free(addr);
    hk_loaded_free(&lv.L);
    return rc;
}

/* ---- --compare-sim ------------------------------------------------------ */

typedef struct srow { char key[600]; double share, p50, p99; } srow;

static int read_summary(const char *path, srow *rows, int max)
{
    hk_csvr r;
    hk_err e;
    if (hk_csvr_open(&r, path, &e) < 0)
        return -1;
    char **f;
    int nf, n = 0, rc = hk_csvr_next(&r, &f, &nf, &e);
    int c[6] = {hk_csv_column(f, nf, "table"), hk_csv_column(f, nf, "agent"),
                hk_csv_column(f, nf, "mirror"), hk_csv_column(f, nf, "share"),
                hk_csv_column(f, nf, "latency_p50_ms"), hk_csv_column(f, nf, "latency_p99_ms")};
    while (rc == 1 && n < max && (rc = hk_csvr_next(&r, &f, &nf, &e)) == 1 && nf >= 11) {
        snprintf(rows[n].key, sizeof rows[n].key, "%s,%s,%s", f[c[0]], f[c[1]], f[c[2]]);
        rows[n].share = atof(f[c[3]]);
        rows[n].p50 = atof(f[c[4]]);
        rows[n].p99 = atof(f[c[5]]);
        n++;
    }
    hk_csvr_close(&r);
    return rc < 0 ? -1 : n;
}

int rl_compare_sim(const char *self, const char *scenario, const char *dir, const lopts *o,
                   int64_t dur_us, uint64_t seed, int variant)
{
    char hasim[1100], simdir[1100], dur[32], seed_s[32];
    snprintf(hasim, sizeof hasim, "%s", self);
    char *slash = strrchr(hasim, '/');
    snprintf(slash ? slash + 1 : hasim, sizeof hasim - (size_t)(slash ? slash + 1 - hasim : 0),
             "hasim");
    snprintf(simdir, sizeof simdir, "%s/sim", dir);
    snprintf(dur, sizeof dur, "%.3fs", (double)dur_us / 1e6);
    snprintf(seed_s, sizeof seed_s, "%llu", (unsigned long long)seed);
    char *args[] = {hasim, (char *)scenario, "--out", simdir, "--duration", dur, "--seed",
                    seed_s, "--variant", (char *)hk_variant_get((hk_variant_id)variant)->name,
                    "--quiet", NULL, NULL, NULL};
    if (o->c.strategy >= 0) {
        args[11] = "--strategy";
        args[12] = (char *)hk_strat_get(o->c.strategy)->name;
    }
    pid_t pid = fork();
    if (pid == 0) {
        execv(hasim, args);
        _exit(127);
    }
    int st = 0;
    if (pid < 0 || waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        fprintf(stderr, "hareal live: --compare-sim: %s failed\n", hasim);
        return -1;
    }
    srow *real = calloc(1024, sizeof *real), *sim = real ? real + 512 : NULL;
    if (!real)
        return -1;
    char p[1200];
    snprintf(p, sizeof p, "%s/summary.csv", dir);
    int nr = read_summary(p, real, 512);
    snprintf(p, sizeof p, "%s/summary.csv", simdir);
    int ns = read_summary(p, sim, 512);
    hk_out co;
    hk_err e;
    if (nr < 0 || ns < 0 || hk_out_open(&co, dir, "compare.csv", &e) < 0) {
        fprintf(stderr, "hareal live: --compare-sim: cannot read the summaries or write compare.csv\n");
        free(real);
        return -1;
    }
    fputs("table,agent,mirror,share_real,share_sim,p50_real_ms,p50_sim_ms,p99_real_ms,p99_sim_ms\n",
          co.f);
    printf("real vs simulated (%s):\n%-40s %10s %10s %10s %10s %10s %10s\n", simdir,
           "table,agent,mirror", "share", "sim", "p50_ms", "sim", "p99_ms", "sim");
    for (int i = 0; i < nr; i++) {
        const srow *x = NULL;
        for (int j = 0; j < ns; j++)
            if (!strcmp(sim[j].key, real[i].key))
                x = &sim[j];
        double ss = x ? x->share : 0, s50 = x ? x->p50 : 0, s99 = x ? x->p99 : 0;
        printf("%-40s %10.4f %10.4f %10.3f %10.3f %10.3f %10.3f\n", real[i].key, real[i].share, ss,
               real[i].p50, s50, real[i].p99, s99);
        fprintf(co.f, "%s,%.6f,%.6f,%.3f,%.3f,%.3f,%.3f\n", real[i].key, real[i].share, ss,
                real[i].p50, s50, real[i].p99, s99);
    }
    free(real);
    return hk_out_commit(&co, &e);
}
