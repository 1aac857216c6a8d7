/* rl_cmd_replay: `hareal replay` — replay a trace through the wire master
 * against live mirrors (ours or real searchd) and write the run's folder. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "hk_cli.h"
#include "hk_keys.h"
#include "hk_plot.h"
#include "hk_report.h"
#include "hk_scnload.h"
#include "hk_time.h"
#include "rl_addr.h"
#include "rl_cli.h"

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

static void usage(FILE *f)
{
    fprintf(f, "usage: hareal replay --config manticore.conf|SCENARIO --trace FILE [options]\n"
               "  --config FILE         the master's config (or a scenario: its tables)\n"
               "  --speed X             open loop at the trace's timing x X (default 1)\n"
               "  --concurrency N       closed loop: N queries in flight, as fast as answered\n"
               "  --map HOST:PORT=IP:PORT  where a config host really is (repeatable)\n");
    rl_common_usage(f);
    fprintf(f, "files in DIR: queries.csv (one row per query and agent line), report.txt,\n"
               "  findings.csv, summary.csv, periods.csv, latency.csv, timeline.csv,\n"
               "  convergence.csv, readmission.csv, agent_status.txt, scenario.txt\n"
               "exit codes: 0 ok; 1 run-time failure; 2 bad command line or a finished folder\n"
               "  (--force); 3 bad input (config, trace) or a trace none of whose queries the\n"
               "  config serves; 130 interrupted (Ctrl-C: every query still has its rows)\n");
}

static int bad(const char *m, const char *v)
{
    fprintf(stderr, WHO ": %s%s%s\n", m, v ? ": " : "", v ? v : "");
    return RL_EXIT_USAGE;
}

static int parse(int argc, char **argv, ropts *o)
{
    memset(o, 0, sizeof *o);
    rl_common_init(&o->c, HK_VAR_MANTICORE, 1);
    o->speed = 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        int took = rl_common_opt(&o->c, WHO, a, v);
        if (took < 0)
            return RL_EXIT_USAGE;
        if (took > 0) {
            i += took - 1;
            continue;
        }
        if (a[0] != '-' || (strcmp(a, "--config") && strcmp(a, "--speed") &&
                            strcmp(a, "--concurrency") && strcmp(a, "--map")))
            return bad("unknown option", a);
        if (!v)
            return bad("option needs a value", a);
        i++;
        if (!strcmp(a, "--config"))
            o->config = v;
        else if (!strcmp(a, "--speed")) {
            if (hk_cli_real(WHO, a, v, 1e-6, 1e6, &o->speed) < 0)
                return RL_EXIT_USAGE;
        } else if (!strcmp(a, "--concurrency")) {
            if (hk_cli_int(WHO, a, v, 1, 100000, &o->concurrency) < 0)
                return RL_EXIT_USAGE;
        } else {
            if (o->nmaps == MAXMAPS || !strchr(v, '='))
                return bad("--map: expected HOST:PORT=IP:PORT", v);
            o->maps[o->nmaps++] = v;
        }
    }
    if (o->c.help)
        return -1;
    if (!o->config || !o->c.trace)
        return bad("expected --config FILE and --trace FILE (see --help)", NULL);
    if (!o->c.out) {
        const char *b = strrchr(o->c.trace, '/');
        b = b ? b + 1 : o->c.trace;
        snprintf(o->outbuf, sizeof o->outbuf, "out/replay-%.*s", (int)strcspn(b, "."), b);
        o->c.out = o->outbuf;
    }
    return 0;
}

typedef struct loaded {
    hk_conf *c, *tables;
    hk_cluster *cl;
    char *text;
    hk_warns w;
} loaded;

static int no_table_served(const hk_cluster *cl, const char *path, hk_err *e)
{
    if (!cl->nrefused)
        return hk_err_set(e, path, 1, 1, "expected a table with 'type = distributed' and agents");
    char pre[200];
    snprintf(pre, sizeof pre, "no distributed table is served; table '%.120s': ",
             cl->refused[0].name);
    *e = cl->refused[0].why; /* say why, where */
    hk_err_prefix(e, pre);
    return -1;
}

/* A config, or a scenario (whose sim { config = } is followed), read in the dialect. */
static int load_cluster(const char *path, int exec, hk_dialect d, loaded *L, hk_err *e)
{
    size_t len;
    int ran;
    static const char *const scn_types[] = {"source", "index", "table", "indexer", "searchd",
                                            "common", "mirror", "fault", "workload", "sim",
                                            "expect", NULL};
    if (hk_config_read(path, exec, &L->text, &len, &ran, e) < 0 ||
        hk_conf_parse(L->text, len, path, &L->c, e) < 0 ||
        hk_conf_check_types(L->c, scn_types, e) < 0)
        return -1;
    const hk_entry *ce = hk_scn_config_entry(L->c);
    if (ce) {
        char p[1024], *t2;
        size_t l2;
        hk_path_rel(path, ce->value, p, sizeof p);
        if (hk_config_read(p, exec, &t2, &l2, &ran, e) < 0)
            return -1;
        int rc = hk_conf_parse(t2, l2, p, &L->tables, e);
        free(t2);
        if (rc < 0 || hk_conf_check_types(L->tables, hk_conf_sections, e) < 0)
            return -1;
    }
    if (hk_cluster_from_conf(L->tables ? L->tables : L->c, L->c, d, &L->cl, e, &L->w) < 0)
        return -1;
    return L->cl->ntables ? 0 : no_table_served(L->cl, path, e);
}

static void unload(loaded *L)
{
    hk_cluster_free(L->cl);
    hk_conf_free(L->c);
    hk_conf_free(L->tables);
    free(L->text);
}

typedef struct run { rl_master *m; } run;

static void on_end(rl_drive *d) { rl_master_stop(((run *)d->ctx)->m); }

int rl_replay_run(rl_drive *d, rl_master **mp, const rl_master_cfg *mc, const char *dir,
                  hk_out *periods, hk_out *queries);

/* What the run found, the report (stdout and report.txt), the scenario, the plots. */
static int finish(const ropts *o, rl_master *m, rl_drive *d, const loaded *L)
{
    hk_err e;
    hk_scn shell = {0}; /* a replay has a cluster but no scenario: no faults */
    shell.cl = L->cl;
    hk_findings fd;
    if (rl_master_analyse(m, &shell, rl_drive_lag_p99(d), &fd, o->c.out, &e) < 0) {
        rl_print_err(WHO, &e);
        hk_findings_free(&fd);
        return RL_EXIT_RUN;
    }
    hk_ans a = {&fd, &m->tl, &shell, 1};
    if (!o->c.quiet)
        rl_report(stdout, m, d, o->c.trace, &a, 0);
    hk_out ro;
    int rc = hk_out_open(&ro, o->c.out, "report.txt", &e);
    if (rc == 0) {
        rl_report(ro.f, m, d, o->c.trace, &a, 1);
        rc = hk_out_commit(&ro, &e);
    }
    if (rc == 0)
        rc = hk_out_write_all(o->c.out, "scenario.txt", L->text, strlen(L->text), &e);
    hk_rep_run meta = {"hareal replay", o->config, m->var->name, o->c.strategy >= 0 ?
                      hk_strat_get(o->c.strategy)->name : "as configured", 1,
                      (double)(m->end_us - m->t0_us) / 1e6, L->cl->set.karma_s,
                      (uint64_t)o->c.seed};
    if (rc == 0)
        rc = hk_rep_run_csv(&meta, o->c.out, &e);
    int gate = rc == 0 ? rl_fail_on(&o->c, WHO, &a, 0) : 0;
    hk_findings_free(&fd);
    if (rc < 0) {
        rl_print_err(WHO, &e);
        return RL_EXIT_RUN;
    }
    char msg[512];
    if (o->c.plot && hk_plot_run(o->c.out, 0, &o->c.sel, msg, sizeof msg) < 0)
        fprintf(stderr, WHO ": %s\n", msg);
    if (!o->c.quiet)
        printf("files: %s/\n", o->c.out);
    return gate;
}

/* Nothing was sent: say why, and fail. */
static int nothing_sent(const ropts *o, const rl_drive *d, const hk_cluster *cl)
{
    if (!d->unknown) {
        fprintf(stderr, WHO ": %s holds no query: expected at least one search\n", o->c.trace);
        return RL_EXIT_INPUT;
    }
    char names[256] = "";
    for (int t = 0; t < cl->ntables && strlen(names) + strlen(cl->tables[t].name) + 3 < sizeof names;
         t++)
        snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", t ? ", " : "",
                 cl->tables[t].name);
    fprintf(stderr, WHO ": none of the trace's %llu queries names a table the config serves "
            "(the trace's: %s; the config's: %s): expected --table-map LOGNAME=CONFIGNAME\n",
            (unsigned long long)d->unknown, d->unknown_names, names);
    return RL_EXIT_INPUT;
}

int rl_cmd_replay(int argc, char **argv)
{
    ropts o;
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
    loaded L = {0};
    hk_err e;
    hk_trace tr;
    memset(&tr, 0, sizeof tr);
    struct sockaddr_in *addr = NULL;
    char msg[600];
    rc = RL_EXIT_INPUT;
    if (load_cluster(o.config, !o.c.no_exec, hk_dialect_of(o.c.variant), &L, &e) < 0 ||
        hk_trace_open(&tr, o.c.trace, (hk_trace_fmt)o.c.format, NULL, &e) < 0) {
        rl_print_err(WHO, &e);
        goto done;
    }
    if (!hk_trace_has_tables(&tr)) {
        fprintf(stderr, WHO ": %s: expected a 'table' column (and t_s, query)\n", o.c.trace);
        goto done;
    }
    rl_print_warns(WHO, &L.w);
    if (hk_trace_note(tr.fmt) && !o.c.quiet)
        fprintf(stderr, WHO ": note: %s\n", hk_trace_note(tr.fmt));
    addr = calloc((size_t)L.cl->nhosts + 1, sizeof *addr);
    if (!addr || rl_addr_resolve(L.cl, o.maps, o.nmaps, addr, msg, sizeof msg) < 0) {
        fprintf(stderr, WHO ": %s\n", addr ? msg : "out of memory");
        goto done;
    }
    hk_rundir rd;
    if (rl_outdir(&rd, o.c.out, WHO, o.c.force, &e) < 0) {
        rl_print_err(WHO, &e);
        rc = RL_EXIT_USAGE;
        goto done;
    }
    rl_master_cfg mc = {L.cl, o.c.variant, o.c.strategy, addr, (uint64_t)o.c.seed, NULL, NULL,
                        NULL, NULL, NULL};
    rl_drive d;
    memset(&d, 0, sizeof d);
    d.cl = L.cl;
    d.trace = &tr;
    d.speed = o.speed;
    d.concurrency = (int)o.concurrency;
    d.ntmap = o.c.ntmap;
    hk_progress prog;
    hk_progress_init(&prog, WHO, o.c.quiet);
    d.progress = &prog;
    memcpy(d.tmap, o.c.tmap, sizeof d.tmap);
    hk_out po, qo;
    rl_master *m = NULL;
    rc = rl_replay_run(&d, &m, &mc, o.c.out, &po, &qo);
    if (rc == 0 && m->sent == 0)
        rc = nothing_sent(&o, &d, L.cl);
    else if (rc == 0)
        rc = finish(&o, m, &d, &L);
    if (rc == 0 && d.interrupted)
        rc = RL_EXIT_INTERRUPTED;
    rl_master_free(m);
    rl_drive_free(&d);
    rc = rl_outdir_close(&rd, rc);
done:
    hk_trace_close(&tr);
    free(addr);
    unload(&L);
    return rc;
}

/* Run the loop with a master and a drive until every query has its rows; used by replay and
 * live. Files are committed only when complete. */
int rl_replay_run(rl_drive *d, rl_master **mp, const rl_master_cfg *mc0, const char *dir,
                  hk_out *po, hk_out *qo)
{
    hk_err e;
    char msg[300];
    hk_out lo = {0};
    memset(po, 0, sizeof *po);
    memset(qo, 0, sizeof *qo);
    if (hk_out_open(po, dir, "periods.csv", &e) < 0 || hk_out_open(qo, dir, "queries.csv", &e) < 0 ||
        hk_out_open(&lo, dir, "latency.csv", &e) < 0) {
        rl_print_err("hareal", &e);
        hk_out_abort(po);
        hk_out_abort(qo);
        return RL_EXIT_RUN;
    }
    uv_loop_t *loop = uv_default_loop();
    rl_master_cfg mc = *mc0;
    mc.periods = po->f;
    mc.latency = lo.f;
    mc.done = rl_drive_on_done;
    mc.ctx = d;
    run r = {0};
    rl_master *m = rl_master_new(loop, &mc, msg, sizeof msg);
    if (!m) {
        fprintf(stderr, "hareal: %s\n", msg);
        hk_out_abort(po);
        hk_out_abort(qo);
        hk_out_abort(&lo);
        return RL_EXIT_RUN;
    }
    *mp = m;
    r.m = m;
    d->loop = loop;
    d->m = m;
    d->queries = qo->f;
    d->on_end = on_end;
    d->ctx = &r;
    int started = rl_drive_start(d) == 0;
    if (!started)
        rl_master_stop(m);
    uv_run(loop, UV_RUN_DEFAULT);
    if (!started || d->failed || d->write_failed) { /* the run is not complete */
        if (!d->write_failed)
            rl_print_err("hareal", &d->err); /* a malformed trace */
        hk_out_abort(po);
        hk_out_abort(qo);
        hk_out_abort(&lo);
        return d->write_failed ? RL_EXIT_RUN : RL_EXIT_INPUT;
    }
    if (rl_master_finish(m, dir, &e) < 0 || hk_out_commit(po, &e) < 0 ||
        hk_out_commit(&lo, &e) < 0 || hk_out_commit(qo, &e) < 0) {
        rl_print_err("hareal", &e);
        return RL_EXIT_RUN;
    }
    return 0;
}
