/* rl_cmd_mirror: `hareal mirror` — run one mirror agent until SIGINT/SIGTERM
 * (or "quit" on its control stdin). */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>
#include "hk_cli.h"
#include "hk_scnload.h"
#include "hk_time.h"
#include "rl_addr.h"
#include "rl_cli.h"
#include "rl_mirror.h"

typedef struct mopts {
    const char *listen, *service, *scenario, *name, *log, *fault;
    int threads, control, max_conns, quiet;
    double errors, warnings;
    int64_t idle_us, request_us;
    long long seed, max_request, matches;
} mopts;

#define WHO "hareal mirror"

static int bad(const char *m, const char *v)
{
    fprintf(stderr, WHO ": %s%s%s\n", m, v ? ": " : "", v ? v : "");
    return RL_EXIT_USAGE;
}

static void usage(FILE *f)
{
    fprintf(f,
"usage: hareal mirror --listen IP:PORT [options]\n"
"  speaks the searchd side of the agent protocol (Sphinx 2.2.11 and Manticore masters)\n"
"  --service DIST        time to execute one query (default constant(0)); e.g. 5ms,\n"
"                        lognormal(median=5ms, sigma=0.3)\n"
"  --threads N           workers, a FCFS queue behind them (0-100000, default 0: no queue)\n"
"  --errors P            probability of an ERROR reply (default 0)\n"
"  --warnings P          probability of a WARNING reply (default 0)\n"
"  --fault KIND          none, down, stall, stuck, slow(F), errors(P), partition, close,\n"
"                        reset, garbage, badversion, retry, warning, drip(MS), acceptclose;\n"
"                        stall stops this process (SIGSTOP: nothing answered, pings\n"
"                        included; SIGCONT resumes), stuck answers hello and pings but\n"
"                        never a query\n"
"  --scenario FILE --name HOST:PORT   behave as that mirror of the scenario\n"
"  --control             read 'fault KIND' and 'quit' lines on stdin\n"
"  --log FILE.csv        one row per query served (t_s,peer,index,query,delay_ms,outcome)\n"
"  --seed N              random seed (default 1)\n"
"  --matches N           documents per result (0-1000, default 0), ids 1..N, weight 1; every\n"
"                        result carries a schema a master's SQL clients accept\n"
"  --max-conns N         connections at once (default 1000; when full, the oldest idle\n"
"                        or slowest-arriving one is evicted for a new one)\n"
"  --idle-timeout T      close a connection idle that long (default 60s)\n"
"  --request-timeout T   a request must arrive whole within T of its first byte\n"
"                        (default 5s: slow senders cannot hold the mirror)\n"
"  --max-request BYTES   largest request accepted (64..67108864, default 1048576)\n"
"  --quiet, --help, --version\n"
"exit codes: 0 stopped (SIGINT, SIGTERM, 'quit'); 1 cannot listen or run; 2 bad command line;\n"
"  3 bad scenario\n");
}

static int value(mopts *o, const char *a, const char *v)
{
    long long n;
    static const char *strs[] = {"--listen", "--service", "--scenario", "--name", "--log",
                                 "--fault"};
    const char **dst[] = {&o->listen, &o->service, &o->scenario, &o->name, &o->log, &o->fault};
    for (int k = 0; k < 6; k++)
        if (!strcmp(a, strs[k])) {
            *dst[k] = v;
            return 0;
        }
    if (!strcmp(a, "--threads") || !strcmp(a, "--max-conns")) {
        int threads = a[2] == 't';
        if (hk_cli_int(WHO, a, v, threads ? 0 : 1, threads ? 100000 : 1000000, &n) < 0)
            return -1;
        *(threads ? &o->threads : &o->max_conns) = (int)n;
    } else if (!strcmp(a, "--errors") || !strcmp(a, "--warnings")) {
        if (hk_cli_real(WHO, a, v, 0, 1, a[2] == 'e' ? &o->errors : &o->warnings) < 0)
            return -1;
    } else if (!strcmp(a, "--seed")) {
        if (hk_cli_int(WHO, a, v, 0, 4294967295LL, &o->seed) < 0)
            return -1;
    } else if (!strcmp(a, "--matches")) {
        if (hk_cli_int(WHO, a, v, 0, 1000, &o->matches) < 0)
            return -1;
    } else if (!strcmp(a, "--max-request")) {
        if (hk_cli_int(WHO, a, v, 64, 64LL << 20, &o->max_request) < 0)
            return -1;
    } else if (!strcmp(a, "--idle-timeout") || !strcmp(a, "--request-timeout")) {
        if (hk_cli_time(WHO, a, v, HK_SEC, a[2] == 'i' ? &o->idle_us : &o->request_us) < 0)
            return -1;
    } else {
        return bad("unknown option", a), -1;
    }
    return 0;
}

static int parse(int argc, char **argv, mopts *o)
{
    memset(o, 0, sizeof *o);
    o->max_conns = 1000;
    o->idle_us = 60 * HK_SEC;
    o->request_us = 5 * HK_SEC;
    o->seed = 1;
    o->max_request = 1 << 20;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--control")) { o->control = 1; continue; }
        if (!strcmp(a, "--quiet")) { o->quiet = 1; continue; }
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) { usage(stdout); return -1; }
        if (!strcmp(a, "--version")) { hk_cli_version("hareal"); return -1; }
        if (a[0] != '-')
            return bad("unexpected argument", a);
        if (!v)
            return bad("option needs a value (or is unknown)", a);
        if (value(o, a, v) < 0)
            return RL_EXIT_USAGE;
        i++;
    }
    if (!o->listen)
        return bad("expected --listen IP:PORT (see --help)", NULL);
    if (!!o->scenario != !!o->name)
        return bad("--scenario and --name go together", NULL);
    return 0;
}

typedef struct sigs { uv_signal_t s[3]; rl_mirror *m; } sigs;

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

/* A mirror its parent controls dies with it, even stopped (SIGSTOP: the stall fault) and even
 * when the parent is killed outright; EOF on the control pipe ends it too. */
static void die_with_parent(void)
{
    pid_t parent = getppid();
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) /* the parent died before the call */
        raise(SIGKILL);
}

int rl_cmd_mirror(int argc, char **argv)
{
    mopts o;
    int rc = parse(argc, argv, &o);
    if (rc)
        return rc < 0 ? 0 : rc;
    rl_mirror_cfg c = {0};
    if (rl_addr_parse(o.listen, c.host, sizeof c.host, &c.port) < 0)
        return bad("--listen: expected IP:PORT", o.listen);
    c.threads = o.threads;
    c.errors = o.errors;
    c.warnings = o.warnings;
    c.max_conns = o.max_conns;
    c.idle_ms = o.idle_us / 1000;
    c.request_ms = o.request_us / 1000;
    c.max_request = (uint32_t)o.max_request;
    c.matches = (uint32_t)o.matches;
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
        rc = bad(!strcmp(o.fault, "hang")
                     ? "--fault: 'hang' names two faults: expected stall (the process is "
                       "stopped: nothing answered, pings included) or stuck (queries never "
                       "answered, pings answered)"
                     : "--fault: expected none, down, stall, stuck, slow(F), errors(P), "
                       "partition, close, reset, garbage, badversion, retry, warning, drip(MS) "
                       "or acceptclose", o.fault);
    } else if (o.log && !(log = fopen(o.log, "w"))) {
        fprintf(stderr, "hareal mirror: cannot write %s\n", o.log);
        rc = RL_EXIT_RUN;
    }
    c.log = log;
    if (rc) {
        /* refused above */
    } else if (rl_mirror_start(&m, loop, &c, msg, sizeof msg) < 0) {
        fprintf(stderr, "hareal mirror: %s\n", msg);
        rc = RL_EXIT_RUN;
    } else {
        rl_mirror_set_fault(&m, f, x);
        if (o.control) {
            die_with_parent();
            rl_mirror_control_stdin(&m);
        }
        sigs g = {.m = &m};
        watch_signals(loop, &g);
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
