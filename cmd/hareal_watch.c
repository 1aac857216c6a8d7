/* hareal_watch: `hareal watch` — running masters followed live over SphinxQL: per mirror its
 * windows, the weights searchd never prints (reconstructed), findings as they happen, the
 * snapshots kept for hasim init, /metrics; the work is rl_watch's. */
#include <arpa/inet.h>
#include <netdb.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hareal.h"
#include "hk_evvar.h"
#include "hk_file.h"
#include "hk_rundir.h"
#include "hk_watch.h"
#include "rl_addr.h"
#include "rl_watch.h"

#define WHO "hareal watch"

typedef struct wopts {
    const char *masters[RL_WATCH_MASTERS_MAX];
    int nmasters;
    const char *config, *out, *metrics;
    int64_t duration_us, keep_us;
    long long keep_mb;
    unsigned fail_on;
    int variant, force, quiet, no_exec, windows;
} wopts;

static int opt_master(void *set, const char *prog, const char *opt, const char *v)
{
    wopts *o = set;
    char host[256];
    int port;
    if (rl_addr_parse(v, host, sizeof host, &port) < 0) {
        fprintf(stderr, "%s: %s: expected HOST:PORT (its SphinxQL listener), got '%s'\n", prog,
                opt, v);
        return -1;
    }
    if (o->nmasters == RL_WATCH_MASTERS_MAX) {
        fprintf(stderr, "%s: %s: at most %d masters\n", prog, opt, RL_WATCH_MASTERS_MAX);
        return -1;
    }
    o->masters[o->nmasters++] = v;
    return 0;
}

static int opt_variant(void *set, const char *prog, const char *opt, const char *v)
{
    return hk_cmd_variant(prog, opt, v, &((wopts *)set)->variant);
}

static int opt_fail_on(void *set, const char *prog, const char *opt, const char *v)
{
    return hk_cmd_wkinds(prog, opt, v, &((wopts *)set)->fail_on);
}

#define A(f) offsetof(wopts, f)
static const hk_opt watch_opts[] = {
    {.name = "master", .arg = "HOST:PORT", .kind = HK_OPT_FN, .fn = opt_master,
     .help = "a master's SphinxQL listener (repeatable: the masters of one cluster)"},
    {.name = "config", .arg = "FILE", .kind = HK_OPT_STR, .off = A(config),
     .help = "the masters' config: its tables and agent lines name the mirrors\n"
             "(default: each master's hosts as one line), its settings the windows"},
    HK_OPT_OUT(A(out), "DIR",
        "the watch's folder: status/ (the snapshots), events.jsonl\n"
        "(default out/watch); --force replaces a finished watch"),
    HK_OPT_FORCE(A(force), "replace the finished watch in --out"),
    {.name = "duration", .arg = "T", .kind = HK_OPT_TIME, .off = A(duration_us), .min = 1000000,
     .help = "stop after T (default: at SIGINT, SIGTERM or SIGHUP)"},
    {.name = "metrics", .arg = "IP:PORT", .kind = HK_OPT_STR, .off = A(metrics),
     .help = "serve /metrics there (Prometheus text format)"},
    {.name = "fail-on", .arg = "KINDS", .kind = HK_OPT_FN, .fn = opt_fail_on,
     .help = "end with exit 4 when a finding of these kinds is raised (or severe)"},
    HK_OPT_VARIANT("V", opt_variant,
        "the masters' implementation (default: what SHOW STATUS's version says)"),
    {.name = "keep", .arg = "T", .kind = HK_OPT_TIME, .off = A(keep_us), .min = 1000000,
     .help = "snapshots kept per master this long (default 24h)"},
    {.name = "keep-mb", .arg = "N", .kind = HK_OPT_INT, .off = A(keep_mb), .min = 1, .max = 1000000,
     .help = "... and at most N MB of them (default 512)"},
    {.name = "windows", .kind = HK_OPT_FLAG, .off = A(windows),
     .help = "write DIR/windows.csv: a row per mirror and window (about 120\n"
             "bytes each: 5 MB a day for 4 mirrors at 2 s)"},
    {.name = "no-exec", .kind = HK_OPT_FLAG, .off = A(no_exec),
     .help = "refuse a config that is a '#!' script"},
    HK_OPT_QUIET(A(quiet), "print nothing but errors (events.jsonl and /metrics still say it all)"),
    {0}};
#undef A

static const hk_cmd watch_cmd = {
    .prog = WHO,
    .usage = "--master HOST:PORT [--master ...] [options]",
    .about =
        "Follows running masters (Sphinx 2.2.11 or Manticore) over SphinxQL, reading only what\n"
        "they say: SHOW STATUS once, SHOW AGENT STATUS every karma period. Per mirror and\n"
        "window it gives the attempts, the share of its line, failures by kind, latency, dead\n"
        "or alive and the weights in force, reconstructed by the variant's own rule (searchd\n"
        "prints none); findings (failing, dead, stall, stuck, slow, starved, locked, takeover,\n"
        "flood, herding) are said as they are raised and cleared, with their evidence. Every\n"
        "snapshot is kept in DIR/status, which `hasim init --status DIR/status` reads.",
    .sets = {{watch_opts, 0}},
    .args = "operand",
    .tail = "Exit: 0 at the duration's end or a signal; 4 a --fail-on finding was raised;\n"
            "1 a port or the folder cannot be had; 3 the config is wrong.\n"
};

/* host:port to an IPv4 address (a name resolved once). 0, or -1 said. */
static int resolve(const char *v, struct sockaddr_in *a)
{
    char host[256];
    int port;
    rl_addr_parse(v, host, sizeof host, &port);
    struct addrinfo hints = {.ai_family = AF_INET, .ai_socktype = SOCK_STREAM}, *r = NULL;
    if (getaddrinfo(host, NULL, &hints, &r) != 0 || !r) {
        fprintf(stderr, WHO ": --master %s: the name '%s' does not resolve\n", v, host);
        return -1;
    }
    memcpy(a, r->ai_addr, sizeof *a);
    a->sin_port = htons((uint16_t)port);
    freeaddrinfo(r);
    return 0;
}

static void say(void *user, const char *line)
{
    const wopts *o = user;
    if (!o->quiet) {
        printf("%s\n", line);
        fflush(stdout);
    }
}

static int parse(int argc, char **argv, wopts *o)
{
    memset(o, 0, sizeof *o);
    o->variant = -1;
    o->out = "out/watch";
    o->keep_us = 86400LL * 1000000;
    o->keep_mb = 512;
    int npos, rc = hk_cmd_parse(&watch_cmd, argc, argv, o, NULL, &npos);
    if (rc)
        return rc;
    if (!o->nmasters)
        return hk_cmd_bad(&watch_cmd, "expected --master HOST:PORT (a master's SphinxQL listener)");
    char ip[64];
    int port;
    if (o->metrics && rl_addr_parse(o->metrics, ip, sizeof ip, &port) < 0)
        return hk_cmd_bad(&watch_cmd, "--metrics: expected IP:PORT, got '%s'", o->metrics);
    return 0;
}

static int variant_of(const hk_status_file *st, char *why, size_t n)
{
    return hk_evvar_status(st, why, n);
}

static int watch(const wopts *o, const hk_cluster *cl, const struct sockaddr_in *addrs)
{
    hk_rundir rd;
    hk_err e;
    if (hk_rundir_open(&rd, o->out, WHO, o->force ? HK_RUNDIR_FORCE : 0, &e) < 0) {
        hk_print_err(WHO, &e);
        return HK_EXIT_USAGE;
    }
    rl_watch_cfg c = {.nmasters = o->nmasters, .names = o->masters, .addrs = addrs, .cl = cl,
                      .variant = o->variant, .variant_of = variant_of,
                      .period_s = cl ? (double)cl->set.karma_s : 0, .dir = o->out,
                      .duration_us = o->duration_us, .metrics = o->metrics,
                      .keep_bytes = o->keep_mb * 1000000, .keep_s = (double)o->keep_us / 1e6,
                      .fail_on = o->fail_on, .windows = o->windows, .say = say, .user = (void *)o};
    rl_watch_result r;
    if (rl_watch_run(&c, &r, &e) < 0) {
        hk_print_err(WHO, &e);
        hk_rundir_abort(&rd);
        return HK_EXIT_RUN;
    }
    if (hk_rundir_done(&rd, &e) < 0) {
        hk_print_err(WHO, &e);
        return HK_EXIT_RUN;
    }
    if (!o->quiet)
        printf("watched %d master%s: %llu snapshots in %s/status, %llu events in %s/events.jsonl\n",
               o->nmasters, o->nmasters == 1 ? "" : "s", (unsigned long long)r.snapshots, o->out,
               (unsigned long long)r.events, o->out);
    if (r.failed_kind >= 0) {
        fprintf(stderr, WHO ": a '%s' finding was raised (--fail-on)\n",
                hk_wkind_name(r.failed_kind));
        return HK_EXIT_FINDING;
    }
    return HK_EXIT_OK;
}

int rl_cmd_watch(int argc, char **argv)
{
    wopts o;
    int rc = parse(argc, argv, &o);
    if (rc)
        return rc < 0 ? 0 : rc;
    struct sockaddr_in addrs[RL_WATCH_MASTERS_MAX];
    for (int i = 0; i < o.nmasters; i++)
        if (resolve(o.masters[i], &addrs[i]) < 0)
            return HK_EXIT_USAGE;
    hk_loaded L = {0};
    hk_err e;
    if (o.config && hk_tables_load(o.config, !o.no_exec, o.variant >= 0 ? o.variant
                                   : HK_VAR_MANTICORE, &L, &e) < 0) {
        hk_print_err(WHO, &e);
        hk_loaded_free(&L);
        return HK_EXIT_INPUT;
    }
    if (o.config)
        hk_print_warns(WHO, &L.warns);
    rc = watch(&o, o.config ? L.cl : NULL, addrs);
    hk_loaded_free(&L);
    return rc;
}
