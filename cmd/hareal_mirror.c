/* hareal_mirror: `hareal mirror` — one mirror agent (the searchd side of the agent protocol,
 * as Sphinx 2.2.11 and Manticore masters expect it), served by rl_serve until a signal,
 * 'quit' on its control stdin or EOF there. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "hareal.h"
#include "hk_file.h"
#include "hk_scnload.h"
#include "hk_time.h"
#include "rl_addr.h"
#include "rl_serve.h"

#define WHO "hareal mirror"

typedef struct mopts {
    const char *listen, *service, *scenario, *name, *log, *fault, *metrics;
    int control, quiet;
    long long threads, max_conns, seed, max_request, matches;
    double errors, warnings;
    int64_t idle_us, request_us;
} mopts;

static int opt_errors(void *set, const char *prog, const char *opt, const char *v)
{
    mopts *o = set;
    return hk_cmd_real(prog, opt, v, 0, 1, !strcmp(opt, "--errors") ? &o->errors : &o->warnings);
}

/* The fault names, as rl_mirror knows them, for --help and errors. */
static const char *fault_list(void)
{
    return "none, down, stall, stuck, slow(F), errors(P), partition, close, reset, garbage,\n"
           "badversion, retry, warning, drip(MS), acceptclose";
}

static int opt_fault(void *set, const char *prog, const char *opt, const char *v)
{
    rl_fault f;
    double x;
    ((mopts *)set)->fault = v;
    if (rl_fault_parse(v, &f, &x) == 0)
        return 0;
    if (!strcmp(v, "hang"))
        fprintf(stderr, "%s: %s: 'hang' names two faults: expected stall (the process is "
                "stopped: nothing answered, pings included) or stuck (queries never answered, "
                "pings answered)\n", prog, opt);
    else
        fprintf(stderr, "%s: %s: expected one of %s; got '%s'\n", prog, opt, fault_list(), v);
    return -1;
}

#define A(f) offsetof(mopts, f)
static const hk_opt mirror_opts[] = {
    {.name = "listen", .arg = "IP:PORT", .kind = HK_OPT_STR, .off = A(listen),
     .help = "where to listen (required)"},
    {.name = "metrics", .arg = "IP:PORT", .kind = HK_OPT_STR, .off = A(metrics),
     .help = "serve /metrics there (Prometheus text format: searches by\n"
             "outcome, reply delays, connections, the fault on)"},
    {.name = "service", .arg = "DIST", .kind = HK_OPT_STR, .off = A(service),
     .help = "time to execute one query (default constant(0)); e.g. 5ms,\n"
             "lognormal(median=5ms, sigma=0.3)"},
    {.name = "threads", .arg = "N", .kind = HK_OPT_INT, .off = A(threads), .max = 100000,
     .help = "workers, a FCFS queue behind them (default 0: no queue)"},
    {.name = "errors", .arg = "P", .kind = HK_OPT_FN, .fn = opt_errors,
     .help = "probability of an ERROR reply (default 0)"},
    {.name = "warnings", .arg = "P", .kind = HK_OPT_FN, .fn = opt_errors,
     .help = "probability of a WARNING reply (default 0)"},
    {.name = "fault", .arg = "KIND", .kind = HK_OPT_FN, .fn = opt_fault,
     .help = "a fault from the start; stall stops this process (SIGSTOP: nothing\n"
             "answered, pings included; SIGCONT resumes), stuck answers hello and\n"
             "pings but never a query", .names = fault_list},
    {.name = "scenario", .arg = "FILE", .kind = HK_OPT_STR, .off = A(scenario),
     .help = "with --name HOST:PORT: behave as that mirror of the scenario"},
    {.name = "name", .arg = "HOST:PORT", .kind = HK_OPT_STR, .off = A(name),
     .help = "the scenario's mirror to be"},
    {.name = "control", .kind = HK_OPT_FLAG, .off = A(control),
     .help = "read 'fault KIND' and 'quit' lines on stdin; die with the parent"},
    {.name = "log", .arg = "FILE.csv", .kind = HK_OPT_STR, .off = A(log),
     .help = "one row per query served (t_s,peer,index,query,delay_ms,outcome)"},
    HK_OPT_SEED(A(seed), "random seed (default 1)"),
    {.name = "matches", .arg = "N", .kind = HK_OPT_INT, .off = A(matches), .max = 1000,
     .help = "documents per result (default 0), ids 1..N, weight 1, with a schema\n"
             "a master's SQL clients accept"},
    {.name = "max-conns", .arg = "N", .kind = HK_OPT_INT, .off = A(max_conns), .min = 1,
     .max = 1000000,
     .help = "connections at once (default 1000; when full, the oldest idle or\n"
             "slowest-arriving one is evicted for a new one)"},
    {.name = "idle-timeout", .arg = "T", .kind = HK_OPT_TIME, .off = A(idle_us), .min = HK_SEC,
     .help = "close a connection idle that long (default 60s)"},
    {.name = "request-timeout", .arg = "T", .kind = HK_OPT_TIME, .off = A(request_us),
     .min = HK_SEC, .help = "a request must arrive whole within T of its first byte (default 5s)"},
    {.name = "max-request", .arg = "BYTES", .kind = HK_OPT_INT, .off = A(max_request), .min = 64,
     .max = 64LL << 20, .help = "largest request accepted (default 1048576)"},
    HK_OPT_QUIET(A(quiet), HK_QUIET_HELP),
    {0}};
#undef A

static const hk_cmd mirror_cmd = {
    .prog = WHO,
    .usage = "--listen IP:PORT [options]",
    .about = "Speaks the searchd side of the agent protocol (Sphinx 2.2.11 and Manticore\n"
             "masters): a stand-in for an agent, with the service time, errors and faults asked.",
    .sets = {{mirror_opts, 0}},
    .args = "operand",
    .tail = "it runs until SIGINT, SIGTERM, SIGHUP or 'quit' (exit 0); 1: it cannot listen\n"
};

static int parse(int argc, char **argv, mopts *o)
{
    memset(o, 0, sizeof *o);
    o->max_conns = 1000;
    o->idle_us = 60 * HK_SEC;
    o->request_us = 5 * HK_SEC;
    o->seed = 1;
    o->max_request = 1 << 20;
    int npos, rc = hk_cmd_parse(&mirror_cmd, argc, argv, o, NULL, &npos);
    if (rc)
        return rc;
    if (!o->listen)
        return hk_cmd_bad(&mirror_cmd, "expected --listen IP:PORT");
    if (!!o->scenario != !!o->name)
        return hk_cmd_bad(&mirror_cmd, "--scenario and --name go together");
    return 0;
}

/* The service, threads, errors and warnings of the scenario's mirror o->name; 0 or an exit
 * code (said). */
static int as_scenario(const mopts *o, hk_loaded *L, rl_mirror_cfg *c)
{
    int h, rc = rl_scn_mirror(WHO, o->scenario, o->name, 1, L, &h);
    if (rc)
        return rc;
    const hk_behave *b = &L->scn->behave[L->scn->host_behave[h]];
    c->service = b->service;
    c->threads = b->threads;
    c->errors = b->errors;
    c->warnings = b->warnings;
    return 0;
}

static int own_service(const mopts *o, hk_dist **svc, rl_mirror_cfg *c)
{
    int bo;
    char what[200];
    if (hk_dist_parse(o->service ? o->service : "constant(0)", svc, &bo, what, sizeof what) < 0)
        return hk_cmd_bad(&mirror_cmd, "--service: at byte %d: expected %s", bo, what);
    c->service = *svc;
    return 0;
}

static void config(const mopts *o, rl_mirror_cfg *c)
{
    c->threads = (int)o->threads;
    c->errors = o->errors;
    c->warnings = o->warnings;
    c->max_conns = (int)o->max_conns;
    c->idle_ms = o->idle_us / 1000;
    c->request_ms = o->request_us / 1000;
    c->max_request = (uint32_t)o->max_request;
    c->matches = (uint32_t)o->matches;
    c->seed = (uint64_t)o->seed;
}

int rl_cmd_mirror(int argc, char **argv)
{
    mopts o;
    int rc = parse(argc, argv, &o);
    if (rc)
        return rc < 0 ? 0 : rc;
    rl_mirror_cfg c = {0};
    if (rl_addr_parse(o.listen, c.host, sizeof c.host, &c.port) < 0)
        return hk_cmd_bad(&mirror_cmd, "--listen: expected IP:PORT, got '%s'", o.listen);
    char mh[64];
    int mp;
    if (o.metrics && rl_addr_parse(o.metrics, mh, sizeof mh, &mp) < 0)
        return hk_cmd_bad(&mirror_cmd, "--metrics: expected IP:PORT, got '%s'", o.metrics);
    config(&o, &c);
    hk_dist *svc = NULL;
    hk_loaded L = {0};
    rc = o.scenario ? as_scenario(&o, &L, &c) : own_service(&o, &svc, &c);
    rl_fault f = RL_F_NONE;
    double x = 0;
    if (o.fault)
        rl_fault_parse(o.fault, &f, &x); /* checked by its option */
    hk_err e;
    if (rc == 0 && o.log && !(c.log = hk_create_path(o.log, &e))) {
        hk_print_err(WHO, &e);
        rc = HK_EXIT_RUN;
    }
    char msg[256];
    c.say = hk_cmd_sayer(WHO, 0);   /* a stall's SIGSTOP and a bad control line: always said */
    rl_serve_cfg sc = {.fault = f, .x = x, .control = o.control,
                       .say = hk_cmd_sayer(WHO, o.quiet), .metrics = o.metrics};
    if (rc == 0 && rl_serve(&c, &sc, msg, sizeof msg) < 0) {
        fprintf(stderr, WHO ": %s\n", msg);
        rc = HK_EXIT_RUN;
    }
    if (c.log && fclose(c.log) != 0 && rc == 0) {
        fprintf(stderr, WHO ": --log %s: the last rows could not be written\n", o.log);
        rc = HK_EXIT_RUN;
    }
    hk_dist_free(svc);
    hk_loaded_free(&L);
    return rc;
}
