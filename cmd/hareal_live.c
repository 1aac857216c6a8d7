/* hareal_live: `hareal live SCENARIO` — a whole cluster from a scenario: its mirrors as
 * children with their faults for real (rl_cluster), the scenario's workload (or a trace)
 * through the wire master (rl_run), the same output folder as a replay, every child stopped
 * on exit, error or signal. --compare-sim also runs hasim on the scenario, side by side. */
#include <arpa/inet.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <stddef.h>
#include "hk_csv.h"
#include "hk_plot.h"
#include "hk_pool.h"
#include "hk_folder.h"
#include "hk_report.h"
#include "hk_scnload.h"
#include "hk_time.h"
#include "rl_addr.h"
#include "hareal.h"
#include "rl_cluster.h"
#include "rl_report.h"
#include "rl_run.h"
#include "rl_compare.h"
#include "rl_searchd.h"
#include "hk_variant.h"
#include "hk_exit.h"
#include "hk_pool.h"

typedef struct live {
    rl_cluster cl;               /* the mirrors, as children */
    hk_loaded L;
} live;

typedef struct lopts {
    rl_common c;
    const char *scenario;
    char outbuf[1024];
    int compare;
    const char *master;          /* "searchd[=PATH]", or NULL: hakarma's own */
    const char *agents;          /* "HOST=IP:PORT,...": mirrors that are real agents */
    int64_t duration_us;
    long long base_port, metrics_base;
} lopts;

#define WHO "hareal live"

#define A(f) offsetof(lopts, f)
static const hk_opt live_opts[] = {
    {.name = "duration", .arg = "T", .kind = HK_OPT_TIME, .off = A(duration_us), .min = HK_SEC,
     .help = "run length (default: the workload's)"},
    {.name = "compare-sim", .kind = HK_OPT_FLAG, .off = A(compare),
     .help = "also simulate the scenario; print both side by side (compare.csv)"},
    {.name = "base-port", .arg = "N", .kind = HK_OPT_INT, .off = A(base_port), .min = 1,
     .max = 65535,
     .help = "mirror h (in the order the config names them) listens on N+h\n"
             "(default: each takes a free port); a port in use is refused"},
    {.name = "master", .arg = "searchd[=PATH]", .kind = HK_OPT_STR, .off = A(master),
     .help = "a real searchd (Sphinx 2.2 or Manticore; PATH, or searchd from PATH) as the\n"
             "master: its config written for the scenario, the workload through its SphinxQL,\n"
             "its SHOW AGENT STATUS saved every karma period (default: hakarma's own master)"},
    {.name = "agents", .arg = "HOST=IP:PORT,...", .kind = HK_OPT_STR, .off = A(agents),
     .help = "these mirrors of the scenario are your real agents (searchd's API\n"
             "port): each runs behind an 'hareal proxy' child that carries out its\n"
             "faults on schedule (its control API printed at start); the others\n"
             "stay hareal mirrors"},
    {.name = "mirror-metrics", .arg = "N", .kind = HK_OPT_INT, .off = A(metrics_base), .min = 1,
     .max = 65535, .help = "mirror h serves /metrics on 127.0.0.1:N+h (hareal mirror's)"},
    {0}};
#undef A

static const hk_cmd live_cmd = {
    .prog = WHO,
    .usage = "SCENARIO [options]",
    .about = "Runs every mirror of the scenario as an 'hareal mirror' child on loopback, its\n"
             "workload (or --trace) through the wire master, its faults for real, on schedule.",
    .sets = {{live_opts, 0}, {rl_common_opts, offsetof(lopts, c)}},
    .min_args = 1,
    .max_args = 1,
    .args = "a scenario file",
    .tail = "files in DIR: as hareal replay's, plus faults.csv and compare.csv (--compare-sim)\n"
            "stopped by a signal, every child is stopped and every query has its rows\n"
};

static int parse(int argc, char **argv, lopts *o)
{
    memset(o, 0, sizeof *o);
    rl_common_init(&o->c, -1, -1);
    const char *pos[1];
    int npos, rc = hk_cmd_parse(&live_cmd, argc, argv, o, pos, &npos);
    if (rc)
        return rc;
    o->scenario = pos[0];
    if (o->master && strcmp(o->master, "searchd") && strncmp(o->master, "searchd=", 8)) {
        fprintf(stderr, "%s: --master %s: expected searchd or searchd=PATH\n", WHO, o->master);
        return HK_EXIT_USAGE;
    }
    if (!o->c.out) {
        hk_rundir_default(o->scenario, "live-", "", o->outbuf, sizeof o->outbuf);
        o->c.out = o->outbuf;
        o->c.out_default = 1;
    }
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
    d->metrics = o->c.metrics;
    d->trace = tr;
    d->arr = tr ? NULL : (hk_arrivals *)&s->wl.arr;
    d->nclients = tr ? 0 : s->wl.clients;
    d->think = s->wl.think;
    d->arr_table = s->wl.table;
    d->rng = rng;
    d->duration_us = dur;
    d->speed = 1;
    d->user_end = rl_cluster_stop;
    d->user = &lv->cl;
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
    hk_findings fd = {0};
    int rc = rl_master_analyse(m, s, rl_drive_lag_p99(d), &fd, &e);
    hk_ans a = {&fd, &m->tl, s, 1};
    hk_rep_run meta = {.program = "hareal live", .scenario = o->scenario, .variant = m->var->name,
                       .strategy = o->c.strategy >= 0 ? hk_strat_get(o->c.strategy)->name :
                                   "as configured", .masters = 1, .duration_s = (double)dur / 1e6,
                       .karma_s = s->cl->set.karma_s, .seed = seed};
    hk_folder files = {.ans = &a, .led = &m->led, .status = m->status.s,
                       .status_len = m->status.len, .run = &meta};
    if (rc == 0)
        rc = hk_folder_write(&files, o->c.out, &e);
    if (rc == 0 && !o->c.quiet)
        rl_report(stdout, m, d, WHO, &a, 0);
    hk_buf verdict, table; /* --compare-sim's, in report.txt too (so in index.html) */
    hk_buf_init(&verdict);
    hk_buf_init(&table);
    int crc = rc == 0 && o->compare ? rl_compare_sim(lv->cl.self, lv->cl.scn, o->c.out,
                                                     o->c.strategy, dur, seed, variant,
                                                     o->c.quiet ? NULL : &table, &verdict, &e)
                                    : 0;
    if (crc < 0)
        hk_print_err(WHO ": --compare-sim", &e);
    else if (table.s)
        fputs(table.s, stdout);
    hk_buf_free(&table);
    hk_out ro;
    if (rc == 0 && (rc = hk_out_open(&ro, o->c.out, "report.txt", &e)) == 0) {
        rl_report(ro.f, m, d, WHO, &a, 1);
        if (verdict.s)
            fputs(verdict.s, ro.f);
        rc = hk_out_commit(&ro, &e);
    }
    hk_buf_free(&verdict);
    int gate = rc == 0 ? rl_fail_on(&o->c, WHO, &a, 0) : 0;
    hk_findings_free(&fd);
    if (rc == 0 && (hk_out_write_all(o->c.out, "scenario.txt", lv->L.text, strlen(lv->L.text),
                                     &e) < 0 || hk_rep_faults(s, dur, o->c.out, &e) < 0))
        rc = -1;
    if (rc < 0) {
        hk_print_err(WHO, &e);
        return HK_EXIT_RUN;
    }
    return crc < 0 ? HK_EXIT_RUN : gate;
}

static int run_live(live *lv, const lopts *o, const hk_scn *s, int variant, uint64_t seed)
{
    hk_err e;
    hk_trace tr;
    memset(&tr, 0, sizeof tr);
    int64_t dur = o->duration_us > 0 ? o->duration_us : s->wl.duration_us;
    if (s->pool_rule == HK_POOL_RING_STUCK) /* it hands one socket to two attempts: no wire */
        fprintf(stderr, "%s: warning: %s: pool = ring-stuck is the simulator's only (it would "
                "hand one socket to two searches); the wire master keeps the variant's rule\n",
                WHO, s->file);
    int have = scenario_trace(s, o, &tr, &e);
    if (have < 0) {
        hk_print_err(WHO, &e);
        return HK_EXIT_INPUT;
    }
    struct sockaddr_in *addr = calloc((size_t)s->cl->nhosts + 1, sizeof *addr);
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    int rc = HK_EXIT_RUN;
    hk_rundir rd = {"", -1};
    if (hk_rundir_open(&rd, o->c.out, WHO, o->c.force || o->c.out_default, &e) < 0) {
        hk_print_err(WHO, &e);
        rc = HK_EXIT_USAGE;
    } else if (!addr || !rng || rl_cluster_start(&lv->cl, addr, &e) < 0) {
        if (addr && rng)
            hk_print_err(WHO, &e);
        rl_cluster_stop(&lv->cl);
        uv_run(lv->cl.loop, UV_RUN_DEFAULT);
    } else {
        gsl_rng_set(rng, (unsigned long)seed);
        rl_master_cfg mc = {.cl = s->cl, .variant = variant,
                            .strategy = o->c.strategy >= 0 ? o->c.strategy : s->strategy,
                            .addr = addr, .seed = seed, .scn = s};
        rl_drive d;
        setup_drive(&d, s, o, have ? &tr : NULL, rng, dur, lv);
        hk_progress prog;
        hk_progress_init(&prog, WHO, o->c.quiet);
        d.progress = &prog;
        d.say = hk_cmd_sayer(WHO, 0);
        hk_out po, qo;
        rl_master *m = NULL;
        hk_err re;
        rc = rl_run(&d, &m, &mc, o->c.out, &po, &qo, &re);
        if (rc < 0) {
            hk_print_err(WHO, &re);
            rc = rc == -2 ? HK_EXIT_INPUT : HK_EXIT_RUN;
        }
        if (rc == 0)
            rc = report(o, lv, s, m, &d, dur, seed, variant);
        if (rc == 0 && d.interrupted)
            rc = hk_cmd_stopped(d.interrupted);
        rl_master_free(m);
        rl_drive_free(&d);
    }
    if (rd.lock_fd >= 0)
        rc = rl_close_run(&rd, rc, &o->c, WHO);
    if (rng)
        gsl_rng_free(rng);
    if (have > 0)
        hk_trace_close(&tr);
    free(addr);
    return rc;
}

/* Each mirror a child plays needs a behaviour; a real agent (--agents) has its own, unless
 * --compare-sim is to simulate it: 0, or HK_EXIT_INPUT (said). */
static int behaviours(const hk_scn *s, const char *const *up, int compare)
{
    hk_err e;
    for (int h = 0; h < s->cl->nhosts; h++) {
        int real = up && up[h];
        if ((real && !compare) || hk_scn_behaviour_of(s, h, &e) == 0)
            continue;
        if (real)
            hk_err_prefix(&e, "--compare-sim simulates your agents too: ");
        hk_print_err(WHO, &e);
        return HK_EXIT_INPUT;
    }
    return 0;
}

/* --agents HOST=IP:PORT,...: up[h] the address of host h's real agent (pointing into buf,
 * which the caller frees), NULL for the rest. 0, or HK_EXIT_USAGE after saying why. */
static int agents_map(const char *spec, const hk_cluster *cl, const char **up, char **buf)
{
    char *s = *buf = strdup(spec);
    for (char *tok = s ? strtok(s, ",") : NULL; tok; tok = strtok(NULL, ",")) {
        char *eq = strrchr(tok, '='), host[64];
        int port, h = -1;
        struct sockaddr_in a;
        if (eq)
            *eq = 0;
        if (!eq || (h = hk_cluster_find_host(cl, tok)) < 0 ||
            rl_addr_parse(eq + 1, host, sizeof host, &port) < 0 || uv_ip4_addr(host, port, &a) < 0) {
            fprintf(stderr, "%s: --agents '%s%s%s': expected HOST=IPv4:PORT, HOST a mirror "
                    "the scenario names%s\n", WHO, tok, eq ? "=" : "", eq ? eq + 1 : "",
                    eq && h < 0 ? " (it names no such mirror)" : "");
            return HK_EXIT_USAGE;
        }
        up[h] = eq + 1;
    }
    return s ? 0 : HK_EXIT_RUN;
}

/* The searchd-mastered run, with the scenario's trace (or --trace) opened for it. */
static int live_searchd(live *lv, const lopts *o, const hk_scn *s, rl_livesd *ls)
{
    hk_err e;
    hk_trace tr;
    memset(&tr, 0, sizeof tr);
    int have = scenario_trace(s, o, &tr, &e);
    if (have < 0) {
        hk_print_err(WHO, &e);
        return HK_EXIT_INPUT;
    }
    ls->trace = have ? &tr : NULL;
    int rc = rl_live_searchd(&lv->cl, s, ls);
    if (have)
        hk_trace_close(&tr);
    return rc;
}

/* --master searchd[=PATH]: which searchd it is, the options it cannot take refused, and the
 * variant compared with it by default its own (sphinx2 for 2.2, manticore). */
static int probe_master(lopts *o, rl_searchd *sd)
{
    static const char *const no[] = {"--fail-on", "--plot"};
    const void *given[] = {o->c.fail_on, o->c.plot ? "" : NULL};
    for (int i = 0; i < 2; i++)
        if (given[i]) {
            fprintf(stderr, "%s: %s is not for --master searchd (its findings and plots are "
                    "hakarma's master's; compare with --compare-sim)\n", WHO, no[i]);
            return HK_EXIT_USAGE;
        }
    memset(sd, 0, sizeof *sd);
    snprintf(sd->path, sizeof sd->path, "%s", o->master[7] == '=' ? o->master + 8 : "searchd");
    hk_err e;
    if (rl_searchd_probe(sd, &e) < 0) {
        hk_print_err(WHO ": --master", &e);
        return HK_EXIT_USAGE;
    }
    hk_variant_id own = sd->kind == RL_SD_SPHINX2 ? HK_VAR_SPHINX2 : HK_VAR_MANTICORE;
    if (o->c.variant >= 0 && o->c.variant != (int)own)
        fprintf(stderr, "%s: warning: searchd is %s; it is compared with variant %s as asked\n",
                WHO, sd->banner, hk_variant_get((hk_variant_id)o->c.variant)->name);
    return 0;
}

int rl_cmd_live(int argc, char **argv, const char *self)
{
    lopts o;
    int rc = parse(argc, argv, &o);
    if (rc)
        return rc < 0 ? 0 : rc;
    live lv = {0};
    lv.cl.loop = uv_default_loop();
    hk_err e;
    rl_searchd sd;
    if (o.master && (rc = probe_master(&o, &sd)) != 0)
        return rc;
    size_t sz = sizeof lv.cl.self;
    if (uv_exepath(lv.cl.self, &sz) < 0)
        snprintf(lv.cl.self, sizeof lv.cl.self, "%s", self);
    if (!realpath(o.scenario, lv.cl.scn))
        snprintf(lv.cl.scn, sizeof lv.cl.scn, "%s", o.scenario);
    if (hk_scn_load_live(o.scenario, !o.c.no_exec, &lv.L, &e) < 0) {
        hk_print_err(WHO, &e);
        return HK_EXIT_INPUT;
    }
    char why[300];
    if (o.master)
        snprintf(why, sizeof why, "the master is %s", sd.banner);
    else
        snprintf(why, sizeof why, "the scenario's (its 'variant =', else the default)");
    if ((rc = rl_variant(&o.c, o.master ? (sd.kind == RL_SD_SPHINX2 ? HK_VAR_SPHINX2
                                                                    : HK_VAR_MANTICORE)
                                        : (int)lv.L.scn->variant, why, WHO)) != 0) {
        hk_loaded_free(&lv.L);
        return rc;
    }
    int variant = o.c.variant;
    hk_warns w = {0};
    hk_scn *s = hk_loaded_scn(&lv.L, variant, &w, &e);
    if (!s) {
        hk_print_err(WHO, &e);
        hk_loaded_free(&lv.L);
        return HK_EXIT_INPUT;
    }
    hk_print_warns(WHO, s == lv.L.scn ? &lv.L.warns : &w);
    lv.cl.s = s;
    lv.cl.base_port = (int)o.base_port;
    lv.cl.metrics_base = (int)o.metrics_base;
    lv.cl.base_what = "--base-port";
    lv.cl.metrics_what = "--mirror-metrics";
    lv.cl.say = hk_cmd_sayer(WHO, 0);
    uint64_t seed = hk_cmd_seed(o.c.seed, s->seed);
    lv.cl.seed = seed;
    const char **up = o.agents ? calloc((size_t)s->cl->nhosts + 1, sizeof *up) : NULL;
    char *upbuf = NULL;
    rc = o.agents ? (up ? agents_map(o.agents, s->cl, up, &upbuf) : HK_EXIT_RUN) : 0;
    rc = rc ? rc : behaviours(s, up, o.compare);
    lv.cl.upstream = up;
    if (rc) {
        /* said */
    } else if (o.master) {
        rl_livesd ls = {.scenario = o.scenario, .scn_path = lv.cl.scn, .self = lv.cl.self,
                        .out = o.c.out, .text = lv.L.text, .sd = &sd, .compare = o.compare,
                        .quiet = o.c.quiet, .force = o.c.force || o.c.out_default, .strategy = o.c.strategy,
                        .variant = variant, .base_port = (int)o.base_port,
                        .duration_us = o.duration_us, .seed = seed, .metrics = o.c.metrics,
                        .trace = NULL};
        rc = live_searchd(&lv, &o, s, &ls);
    } else {
        rc = run_live(&lv, &o, s, variant, seed);
    }
    if (lv.cl.ch) {
        rl_cluster_stop(&lv.cl);
        uv_run(lv.cl.loop, UV_RUN_DEFAULT);
    }
    free(lv.cl.ch);
    free(lv.cl.ft);
    free(up);
    free(upbuf);
    hk_loaded_free(&lv.L);
    return rc;
}
