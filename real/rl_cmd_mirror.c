/* rl_cmd_mirror: `hareal mirror` — run one mirror agent until SIGINT/SIGTERM
 * (or "quit" on its control stdin). */
#include <stdlib.h>
#include <string.h>
#include "hk_scnload.h"
#include "hk_time.h"
#include "rl_addr.h"
#include "rl_cli.h"
#include "rl_mirror.h"

typedef struct mopts {
    const char *listen, *service, *scenario, *name, *log, *fault;
    int threads, control, max_conns, quiet;
    double errors, warnings;
    int64_t idle_us;
    long long seed, max_request;
} mopts;

static int bad(const char *m)
{
    fprintf(stderr, "hareal mirror: %s\n", m);
    return RL_EXIT_USAGE;
}

static int parse(int argc, char **argv, mopts *o)
{
    memset(o, 0, sizeof *o);
    o->max_conns = 1000;
    o->idle_us = 60 * HK_SEC;
    o->seed = 1;
    o->max_request = 1 << 20;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--control")) { o->control = 1; continue; }
        if (!strcmp(a, "--quiet")) { o->quiet = 1; continue; }
        if (!v)
            return bad("option needs a value (or unknown option)");
        i++;
        char *e = NULL;
        if (!strcmp(a, "--listen")) o->listen = v;
        else if (!strcmp(a, "--service")) o->service = v;
        else if (!strcmp(a, "--scenario")) o->scenario = v;
        else if (!strcmp(a, "--name")) o->name = v;
        else if (!strcmp(a, "--log")) o->log = v;
        else if (!strcmp(a, "--fault")) o->fault = v;
        else if (!strcmp(a, "--threads")) o->threads = (int)strtol(v, &e, 10);
        else if (!strcmp(a, "--max-conns")) o->max_conns = (int)strtol(v, &e, 10);
        else if (!strcmp(a, "--errors")) o->errors = strtod(v, &e);
        else if (!strcmp(a, "--warnings")) o->warnings = strtod(v, &e);
        else if (!strcmp(a, "--seed")) o->seed = strtoll(v, &e, 10);
        else if (!strcmp(a, "--max-request")) o->max_request = strtoll(v, &e, 10);
        else if (!strcmp(a, "--idle-timeout")) {
            int b;
            const char *w;
            if (hk_time_parse(v, HK_SEC, &o->idle_us, &b, &w) < 0 || o->idle_us <= 0)
                return bad("--idle-timeout: expected a positive time");
        } else
            return bad("unknown option");
        if (e && *e)
            return bad("expected a number");
    }
    if (!o->listen)
        return bad("expected --listen IP:PORT");
    if (o->errors < 0 || o->errors > 1 || o->warnings < 0 || o->warnings > 1 || o->threads < 0 ||
        o->max_conns < 1 || o->max_request < 64)
        return bad("a value is out of range");
    if (!!o->scenario != !!o->name)
        return bad("--scenario and --name go together");
    return 0;
}

typedef struct sigs { uv_signal_t i, t; rl_mirror *m; } sigs;

static void on_signal(uv_signal_t *s, int sig)
{
    sigs *g = s->data;
    (void)sig;
    rl_mirror_stop(g->m);
    uv_close((uv_handle_t *)&g->i, NULL);
    uv_close((uv_handle_t *)&g->t, NULL);
}

int rl_cmd_mirror(int argc, char **argv)
{
    mopts o;
    int rc = parse(argc, argv, &o);
    if (rc)
        return rc;
    rl_mirror_cfg c = {0};
    if (rl_addr_parse(o.listen, c.host, sizeof c.host, &c.port) < 0)
        return bad("--listen: expected IP:PORT");
    c.threads = o.threads;
    c.errors = o.errors;
    c.warnings = o.warnings;
    c.max_conns = o.max_conns;
    c.idle_ms = o.idle_us / 1000;
    c.max_request = (uint32_t)o.max_request;
    c.seed = (uint64_t)o.seed;
    hk_dist *svc = NULL;
    hk_loaded L = {0};
    hk_err e;
    if (o.scenario) {
        if (hk_scn_load(o.scenario, 1, &L, &e) < 0) {
            rl_print_err("hareal mirror", &e);
            return RL_EXIT_INPUT;
        }
        int h = hk_cluster_find_host(L.scn->cl, o.name);
        if (h < 0) {
            fprintf(stderr, "hareal mirror: %s is not a mirror of %s\n", o.name, o.scenario);
            hk_loaded_free(&L);
            return RL_EXIT_INPUT;
        }
        const hk_behave *b = &L.scn->behave[L.scn->host_behave[h]];
        c.service = b->service;
        c.threads = b->threads;
        c.errors = b->errors;
        c.warnings = b->warnings;
    } else {
        int bo;
        char what[200];
        if (hk_dist_parse(o.service ? o.service : "constant(0)", &svc, &bo, what, sizeof what) < 0) {
            fprintf(stderr, "hareal mirror: --service: at byte %d: expected %s\n", bo, what);
            return RL_EXIT_USAGE;
        }
        c.service = svc;
    }
    rl_fault f = RL_F_NONE;
    double x = 0;
    FILE *log = NULL;
    uv_loop_t *loop = uv_default_loop();
    rl_mirror m;
    char msg[256];
    memset(&m, 0, sizeof m);
    rc = 0;
    if (o.fault && rl_fault_parse(o.fault, &f, &x) < 0) {
        rc = bad("--fault: expected none, down, hang, slow(F), errors(P), partition, close, "
                 "reset, garbage, badversion, retry, warning, drip(MS) or acceptclose");
    } else if (o.log && !(log = fopen(o.log, "w"))) {
        fprintf(stderr, "hareal mirror: cannot write %s\n", o.log);
        rc = RL_EXIT_RUN;
    } else if ((c.log = log), rl_mirror_start(&m, loop, &c, msg, sizeof msg) < 0) {
        fprintf(stderr, "hareal mirror: %s\n", msg);
        rc = RL_EXIT_RUN;
    } else {
        rl_mirror_set_fault(&m, f, x);
        if (o.control)
            rl_mirror_control_stdin(&m);
        sigs g = {.m = &m};
        uv_signal_init(loop, &g.i);
        uv_signal_init(loop, &g.t);
        g.i.data = g.t.data = &g;
        uv_signal_start(&g.i, on_signal, SIGINT);
        uv_signal_start(&g.t, on_signal, SIGTERM);
        if (!o.quiet)
            fprintf(stderr, "hareal mirror: listening on %s:%d\n", c.host, c.port);
        uv_run(loop, UV_RUN_DEFAULT);
    }
    uv_run(loop, UV_RUN_DEFAULT); /* finish closing whatever a failed start left */
    rl_mirror_free(&m);
    uv_loop_close(loop);
    if (log)
        fclose(log);
    hk_dist_free(svc);
    hk_loaded_free(&L);
    return rc;
}
