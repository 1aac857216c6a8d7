/* hareal_proxy: `hareal proxy` — a protocol-aware fault proxy in front of real agents
 * (searchd 2.2.11 or Manticore), faults set by a scenario's schedule or live over a
 * toxiproxy-shaped control API; served by rl_pxrun until a signal. */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "hareal.h"
#include "hk_file.h"
#include "hk_scnload.h"
#include "rl_pxrun.h"

#define WHO "hareal proxy"

typedef struct popts {
    const char *listen, *upstream, *name, *config, *api, *metrics, *scenario, *mirror, *log;
    long long seed;
    int quiet, control;
} popts;

#define A(f) offsetof(popts, f)
static const hk_opt proxy_opts[] = {
    {.name = "listen", .arg = "IP:PORT", .kind = HK_OPT_STR, .off = A(listen),
     .help = "where the master connects (its agent line names this)"},
    {.name = "upstream", .arg = "IP:PORT", .kind = HK_OPT_STR, .off = A(upstream),
     .help = "the real agent behind (searchd's API port)"},
    {.name = "name", .arg = "NAME", .kind = HK_OPT_STR, .off = A(name),
     .help = "the proxy's name in the API and metrics (default: --mirror, else\n" "the upstream)"},
    {.name = "config", .arg = "FILE.json", .kind = HK_OPT_STR, .off = A(config),
     .help = "several proxies, as toxiproxy's config: a JSON array of\n"
             "{\"name\", \"listen\", \"upstream\", \"enabled\"}"},
    {.name = "api", .arg = "IP:PORT", .kind = HK_OPT_STR, .off = A(api),
     .help = "the control API and /metrics (default 127.0.0.1:8474, toxiproxy's)"},
    {.name = "metrics", .arg = "IP:PORT", .kind = HK_OPT_STR, .off = A(metrics),
     .help = "/metrics on another address too (Prometheus text format)"},
    {.name = "scenario", .arg = "FILE", .kind = HK_OPT_STR, .off = A(scenario),
     .help = "with --mirror: that mirror's `fault` blocks on schedule, timed from\n"
             "the proxy's start"},
    {.name = "mirror", .arg = "HOST:PORT", .kind = HK_OPT_STR, .off = A(mirror),
     .help = "the scenario's mirror this proxy stands for"},
    HK_OPT_SEED(A(seed), "random seed of the toxics' draws (default 1)"),
    {.name = "log", .arg = "FILE", .kind = HK_OPT_STR, .off = A(log),
     .help = "one CSV row per search through the proxy (hareal mirror's --log\n"
             "columns; outcome ok, warning, error, stuck, stall, reset, cancelled)"},
    {.name = "control", .kind = HK_OPT_FLAG, .off = A(control),
     .help = "driven by a parent on stdin (hareal live): --scenario's schedule\n"
             "starts at a line 'start'; EOF, or the parent's death, ends it"},
    HK_OPT_QUIET(A(quiet), HK_QUIET_HELP),
    {0}};
#undef A

static const hk_cmd proxy_cmd = {
    .prog = WHO,
    .usage = "--listen IP:PORT --upstream IP:PORT [options]\n--config FILE.json [options]",
    .about =
        "Sits between masters and a real agent, speaks the agent protocol both ways and\n"
        "passes everything through unchanged until a fault (a toxic) is set: by a scenario's\n"
        "schedule or over the control API, in toxiproxy's shape, e.g.\n"
        "  curl -d '{\"type\":\"stuck\"}' http://127.0.0.1:8474/proxies/NAME/toxics\n"
        "  curl -X DELETE http://127.0.0.1:8474/proxies/NAME/toxics/stuck_downstream\n"
        "Toxic types: stall, stuck (pings answered, searches never), blackhole, refuse,\n"
        "errors (an ERROR reply), warnings, latency (attributes latency, jitter in ms),\n"
        "slow (attributes factor), bandwidth (attributes rate, KB/s), reset; each with a\n"
        "toxicity (its probability per request) and attributes.command: search, ping, any.",
    .sets = {{proxy_opts, 0}},
    .args = "operand",
    .tail = "It runs until SIGINT, SIGTERM or SIGHUP (exit 0); 1: a port cannot be had;\n"
            "3: a config or scenario is wrong (file:line:column and what was expected).\n"
};

static int parse(int argc, char **argv, popts *o)
{
    memset(o, 0, sizeof *o);
    o->seed = 1;
    o->api = "127.0.0.1:8474";
    int npos, rc = hk_cmd_parse(&proxy_cmd, argc, argv, o, NULL, &npos);
    if (rc)
        return rc;
    if (!!o->listen != !!o->upstream)
        return hk_cmd_bad(&proxy_cmd, "--listen and --upstream go together");
    if (!o->listen && !o->config)
        return hk_cmd_bad(&proxy_cmd, "expected --listen and --upstream, or --config");
    if (!!o->scenario != !!o->mirror)
        return hk_cmd_bad(&proxy_cmd, "--scenario and --mirror go together");
    if (o->log && !o->listen)
        return hk_cmd_bad(&proxy_cmd, "--log goes with --listen (one proxy)");
    if (o->scenario && !o->listen && !o->name)
        return hk_cmd_bad(&proxy_cmd, "--scenario: name the config's proxy it acts on (--name)");
    if (!o->name)
        o->name = o->mirror ? o->mirror : o->upstream;
    return 0;
}

int rl_cmd_proxy(int argc, char **argv)
{
    popts o;
    int rc = parse(argc, argv, &o);
    if (rc)
        return rc < 0 ? 0 : rc;
    rl_pxrun_cfg c = {.name = o.name, .listen = o.listen, .upstream = o.upstream,
                      .config = NULL, .config_file = o.config, .api = o.api,
                      .metrics = o.metrics, .scn = NULL, .host = -1, .seed = (uint64_t)o.seed,
                      .say = hk_cmd_sayer(WHO, o.quiet), .err_say = hk_cmd_sayer(WHO, 0),
                      .version = HK_VERSION, .log = NULL,
                      .control = o.control};
    hk_loaded L = {0};
    char *text = NULL, msg[512];
    size_t len;
    hk_err e;
    if (o.config && hk_file_read(o.config, &text, &len, &e) < 0) {
        hk_print_err(WHO, &e);
        return HK_EXIT_INPUT;
    }
    c.config = text;
    if (o.scenario && (rc = rl_scn_mirror(WHO, o.scenario, o.mirror, 0, &L, &c.host)) != 0) {
        free(text);
        hk_loaded_free(&L);
        return rc;
    }
    c.scn = L.scn;
    hk_err le;
    if (o.log && !(c.log = hk_create_path(o.log, &le))) {
        hk_print_err(WHO, &le);
        free(text);
        hk_loaded_free(&L);
        return HK_EXIT_RUN;
    }
    if (c.log)
        fputs("t_s,peer,index,query,delay_ms,outcome\n", c.log);
    int sig = 0;
    if (rl_pxrun(&c, &sig, msg, sizeof msg) < 0) {
        fprintf(stderr, WHO ": %s\n", msg);
        rc = o.config && strncmp(msg, o.config, strlen(o.config)) == 0 ? HK_EXIT_INPUT
                                                                      : HK_EXIT_RUN;
    }
    if (c.log)
        fclose(c.log);
    free(text);
    hk_loaded_free(&L);
    return rc;
}
