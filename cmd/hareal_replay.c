/* hareal_replay: `hareal replay` — a trace through the wire master against live mirrors
 * (ours or real searchd), the run's folder written. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <stddef.h>
#include "hk_keys.h"
#include "hk_plot.h"
#include "hk_folder.h"
#include "hk_report.h"
#include "hk_scnload.h"
#include "hk_time.h"
#include "rl_addr.h"
#include "hareal.h"
#include "rl_report.h"
#include "rl_run.h"

#define MAXMAPS 256
#define WHO "hareal replay"

typedef struct ropts {
    rl_common c;
    const char *config;
    char outbuf[1024];
    long long concurrency;
    double speed;
    const char *maps[MAXMAPS];
    int nmaps;
} ropts;

static int opt_speed(void *set, const char *prog, const char *opt, const char *v)
{
    return hk_cmd_real(prog, opt, v, 1e-6, 1e6, &((ropts *)set)->speed);
}

static int opt_map(void *set, const char *prog, const char *opt, const char *v)
{
    ropts *o = set;
    if (o->nmaps < MAXMAPS && strchr(v, '=')) {
        o->maps[o->nmaps++] = v;
        return 0;
    }
    fprintf(stderr, "%s: %s: expected HOST:PORT=IP:PORT (at most %d), got '%s'\n", prog, opt,
            MAXMAPS, v);
    return -1;
}

#define A(f) offsetof(ropts, f)
static const hk_opt replay_opts[] = {
    {.name = "config", .arg = "FILE", .kind = HK_OPT_STR, .off = A(config),
     .help = "the master's config (or a scenario: its tables)"},
    {.name = "speed", .arg = "X", .kind = HK_OPT_FN, .fn = opt_speed,
     .help = "open loop at the trace's timing x X (default 1)"},
    {.name = "concurrency", .arg = "N", .kind = HK_OPT_INT, .off = A(concurrency), .min = 1,
     .max = 100000, .help = "closed loop: N queries in flight, as fast as answered"},
    {.name = "map", .arg = "HOST:PORT=IP:PORT", .kind = HK_OPT_FN, .fn = opt_map,
     .help = "where a config host really is (repeatable)"},
    {0}};
#undef A

static const hk_cmd replay_cmd = {
    .prog = WHO,
    .usage = "--config manticore.conf|SCENARIO --trace FILE [options]",
    .about = "Replays a trace or a searchd query log through hakarma's wire master against live\n"
             "mirrors (hareal mirror, or real searchd agents), as the variant's searchd would.",
    .sets = {{replay_opts, 0}, {rl_common_opts, offsetof(ropts, c)}},
    .args = "operand",
    .tail = "files in DIR: queries.csv (one row per query and agent line), report.txt,\n"
            "  findings.csv, findings.json, summary.csv, periods.csv, latency.csv, timeline.csv,\n"
            "  convergence.csv, readmission.csv, agent_status.txt, scenario.txt\n"
            "a trace none of whose queries the config serves is bad input (3); stopped by a\n"
            "signal, every query still has its rows and the folder is kept\n"
};

static int parse(int argc, char **argv, ropts *o)
{
    memset(o, 0, sizeof *o);
    rl_common_init(&o->c, -1, 1); /* -1: not given (said, then manticore) */
    o->speed = 1;
    int npos, rc = hk_cmd_parse(&replay_cmd, argc, argv, o, NULL, &npos);
    if (rc)
        return rc;
    if (!o->config || !o->c.trace)
        return hk_cmd_bad(&replay_cmd, "expected --config FILE and --trace FILE");
    if (!o->c.out) {
        hk_rundir_default(o->c.trace, "replay-", "", o->outbuf, sizeof o->outbuf);
        o->c.out = o->outbuf;
        o->c.out_default = 1;
    }
    return 0;
}

/* What the run found, the report (stdout and report.txt), the scenario, the plots. */
static int finish(const ropts *o, rl_master *m, rl_drive *d, const hk_loaded *L)
{
    hk_err e;
    hk_scn shell = {0}; /* a replay has a cluster but no scenario: no faults */
    shell.cl = L->cl;
    hk_findings fd = {0};
    if (rl_master_analyse(m, &shell, rl_drive_lag_p99(d), &fd, &e) < 0) {
        hk_print_err(WHO, &e);
        hk_findings_free(&fd);
        return HK_EXIT_RUN;
    }
    hk_ans a = {&fd, &m->tl, &shell, 1};
    hk_rep_run meta = {.program = "hareal replay", .scenario = o->config, .variant = m->var->name,
                       .strategy = o->c.strategy >= 0 ? hk_strat_get(o->c.strategy)->name :
                                   "as configured", .masters = 1,
                       .duration_s = (double)(m->end_us - m->t0_us) / 1e6,
                       .karma_s = L->cl->set.karma_s, .seed = (uint64_t)o->c.seed};
    hk_folder files = {.ans = &a, .led = &m->led, .status = m->status.s,
                       .status_len = m->status.len, .run = &meta};
    int rc = hk_folder_write(&files, o->c.out, &e);
    if (rc == 0 && !o->c.quiet)
        rl_report(stdout, m, d, o->c.trace, &a, 0);
    hk_out ro;
    if (rc == 0)
        rc = hk_out_open(&ro, o->c.out, "report.txt", &e);
    if (rc == 0) {
        rl_report(ro.f, m, d, o->c.trace, &a, 1);
        rc = hk_out_commit(&ro, &e);
    }
    if (rc == 0)
        rc = hk_out_write_all(o->c.out, "scenario.txt", L->text, strlen(L->text), &e);
    int gate = rc == 0 ? rl_fail_on(&o->c, WHO, &a, 0) : 0;
    hk_findings_free(&fd);
    if (rc < 0) {
        hk_print_err(WHO, &e);
        return HK_EXIT_RUN;
    }
    return gate;
}

/* Nothing was sent: say why, and fail. */
static int nothing_sent(const ropts *o, const rl_drive *d, const hk_cluster *cl)
{
    if (!d->unknown) {
        fprintf(stderr, WHO ": %s holds no query: expected at least one search\n", o->c.trace);
        return HK_EXIT_INPUT;
    }
    char names[256] = "";
    for (int t = 0; t < cl->ntables && strlen(names) + strlen(cl->tables[t].name) + 3 < sizeof names;
         t++)
        snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", t ? ", " : "",
                 cl->tables[t].name);
    fprintf(stderr, WHO ": none of the trace's %llu queries names a table the config serves "
            "(the trace's: %s; the config's: %s): expected --table-map LOGNAME=CONFIGNAME\n",
            (unsigned long long)d->unknown, d->unknown_names, names);
    return HK_EXIT_INPUT;
}

int rl_cmd_replay(int argc, char **argv)
{
    ropts o;
    int rc = parse(argc, argv, &o);
    if (rc)
        return rc < 0 ? 0 : rc;
    hk_loaded L = {0};
    hk_err e;
    hk_trace tr;
    memset(&tr, 0, sizeof tr);
    struct sockaddr_in *addr = NULL;
    char msg[600];
    if ((rc = rl_variant(&o.c, HK_VAR_MANTICORE, "the default: nothing given says which searchd "
                         "runs this config (--variant, or --status or --searchd-log of the real "
                         "master)", WHO)) != 0)
        goto done;
    rc = HK_EXIT_INPUT;
    if (hk_tables_load(o.config, !o.c.no_exec, o.c.variant, &L, &e) < 0 ||
        hk_trace_open(&tr, o.c.trace, (hk_trace_fmt)o.c.format, NULL, &e) < 0) {
        hk_print_err(WHO, &e);
        goto done;
    }
    if (!hk_trace_has_tables(&tr)) {
        fprintf(stderr, WHO ": %s: expected a 'table' column (and t_s, query)\n", o.c.trace);
        goto done;
    }
    hk_print_warns(WHO, &L.warns);
    const hk_cluster *cl = L.cl;
    if (hk_trace_note(tr.fmt) && !o.c.quiet)
        fprintf(stderr, WHO ": note: %s\n", hk_trace_note(tr.fmt));
    addr = calloc((size_t)cl->nhosts + 1, sizeof *addr);
    if (!addr || rl_addr_resolve(cl, o.maps, o.nmaps, addr, msg, sizeof msg) < 0) {
        fprintf(stderr, WHO ": %s\n", addr ? msg : "out of memory");
        goto done;
    }
    hk_rundir rd;
    if (hk_rundir_open(&rd, o.c.out, WHO, o.c.force || o.c.out_default, &e) < 0) {
        hk_print_err(WHO, &e);
        rc = HK_EXIT_USAGE;
        goto done;
    }
    rl_master_cfg mc = {.cl = cl, .variant = o.c.variant, .strategy = o.c.strategy,
                        .addr = addr, .seed = (uint64_t)o.c.seed};
    rl_drive d;
    memset(&d, 0, sizeof d);
    d.cl = cl;
    d.trace = &tr;
    d.metrics = o.c.metrics;
    d.speed = o.speed;
    d.concurrency = (int)o.concurrency;
    d.ntmap = o.c.ntmap;
    hk_progress prog;
    hk_progress_init(&prog, WHO, o.c.quiet);
    d.progress = &prog;
    d.say = hk_cmd_sayer(WHO, 0);
    memcpy(d.tmap, o.c.tmap, sizeof d.tmap);
    hk_out po, qo;
    rl_master *m = NULL;
    hk_err re;
    rc = rl_run(&d, &m, &mc, o.c.out, &po, &qo, &re);
    if (rc < 0) {
        hk_print_err(WHO, &re);
        rc = rc == -2 ? HK_EXIT_INPUT : HK_EXIT_RUN;
    }
    if (rc == 0 && m->sent == 0)
        rc = nothing_sent(&o, &d, cl);
    else if (rc == 0)
        rc = finish(&o, m, &d, &L);
    if (rc == 0 && d.interrupted)
        rc = hk_cmd_stopped(d.interrupted);
    rl_master_free(m);
    rl_drive_free(&d);
    rc = rl_close_run(&rd, rc, &o.c, WHO);
done:
    hk_trace_close(&tr);
    free(addr);
    hk_loaded_free(&L);
    return rc;
}

