/* hareal_livesd: `hareal live SCENARIO --master searchd[=PATH]` — the scenario's mirrors as
 * children (rl_cluster), a real searchd as their master on a config written for the scenario
 * (rl_searchd), the workload through its SphinxQL (rl_sqldrive), the faults on schedule;
 * then what searchd did in words, summary.csv from the mirrors' logs, and with --compare-sim
 * hasim's prediction beside it. searchd is stopped by its PID on every way out. */
#include <arpa/inet.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "hareal.h"
#include "hk_exit.h"
#include "hk_file.h"
#include "hk_report.h"
#include "hk_strat.h"
#include "hk_variant.h"
#include "rl_addr.h"
#include "rl_compare.h"
#include "rl_metrics.h"
#include "rl_master.h"
#include "rl_report.h"
#include "rl_sdsum.h"
#include "rl_searchd.h"
#include "rl_sqldrive.h"

#define WHO "hareal live"

typedef struct sdrun {
    const rl_livesd *o;
    const hk_scn *s;
    rl_cluster *cl;
    rl_searchd sd;
    rl_sqldrive d;
    int *port;                   /* per host */
    char mirrors[1100];
    rl_metrics metrics;          /* --metrics */
} sdrun;

static void on_end(void *user)
{
    sdrun *r = user;
    rl_cluster_stop(r->cl);
    rl_searchd_stop(&r->sd);
    rl_metrics_stop(&r->metrics);
}

static void drive_metrics(const void *d, hk_buf *b) { rl_sqldrive_metrics(d, b); }

/* /metrics on --metrics while the run lasts: 0, or -1 after saying why. */
static int serve_metrics(sdrun *r)
{
    char msg[300];
    if (rl_metrics_start(&r->metrics, r->cl->loop, r->o->metrics, drive_metrics, &r->d, msg,
                         sizeof msg) < 0) {
        fprintf(stderr, "%s: %s\n", WHO, msg);
        return -1;
    }
    return 0;
}

/* The SphinxQL port: --base-port's next after the mirrors, or a free one. */
static int ql_port(const rl_livesd *o, int nhosts)
{
    if (!o->base_port)
        return rl_port_any();
    long p = (long)o->base_port + nhosts;
    if (p <= 65535 && rl_port_free((int)p))
        return (int)p;
    fprintf(stderr, "%s: port %ld (searchd's SphinxQL, --base-port %d + %d mirrors) is in use "
            "or past 65535\n", WHO, p, o->base_port, nhosts);
    return -1;
}

static void say(FILE *f, const sdrun *r)
{
    const rl_sqldrive *d = &r->d;
    const uint64_t *c = d->count;
    uint64_t all = c[RL_SQ_OK] + c[RL_SQ_PARTIAL] + c[RL_SQ_FAILED] + c[RL_SQ_NO_ANSWER];
    fprintf(f, "%s: master %s (pid %d), variant compared: %s\n", WHO, r->sd.banner, r->sd.pid,
            hk_variant_get((hk_variant_id)r->o->variant)->name);
    fprintf(f, "queries: %" PRIu64 " sent: ok %" PRIu64 ", partial %" PRIu64 ", failed %" PRIu64
            ", no answer %" PRIu64 "; %" PRIu64 " not sent, %" PRIu64 " for tables the config "
            "does not have\n", all, c[RL_SQ_OK], c[RL_SQ_PARTIAL], c[RL_SQ_FAILED],
            c[RL_SQ_NO_ANSWER], c[RL_SQ_NOT_SENT], c[RL_SQ_UNKNOWN_TABLE]);
    if (d->first_error[0])
        fprintf(f, "searchd's first error: %s\n", d->first_error);
    int any = 0;
    for (int h = 0; h < r->s->cl->nhosts; h++)
        if (d->fail_query[h] || d->fail_connect[h])
            fprintf(f, "%s %s: %" PRIu64 " query failures, %" PRIu64 " failed connects\n",
                    any++ ? "              " : "searchd blamed", r->s->cl->hosts[h].name,
                    d->fail_query[h], d->fail_connect[h]);
    if (!any)
        fputs("searchd blamed no agent in any warning or error\n", f);
    fprintf(f, "SHOW AGENT STATUS: %" PRIu64 " snapshots, one per karma period and the last at "
            "the end, in %s/status/ (hasim init --status reads them)\n", d->snaps, r->o->out);
}

static int report(sdrun *r, int64_t dur)
{
    const rl_livesd *o = r->o;
    hk_err e;
    hk_out ro;
    int *starts = calloc((size_t)r->s->cl->nhosts + 1, sizeof *starts);
    if (!starts || hk_out_open(&ro, o->out, "report.txt", &e) < 0) {
        if (starts)
            hk_print_err(WHO, &e);
        free(starts);
        return HK_EXIT_RUN;
    }
    for (int h = 0; h < r->s->cl->nhosts; h++)
        starts[h] = r->cl->ch[h].starts;
    say(ro.f, r);
    if (!o->quiet)
        say(stdout, r);
    rl_sdsum_in in = {.s = r->s, .dir = o->out, .logdir = r->mirrors, .starts = starts,
                      .fail_query = r->d.fail_query, .fail_connect = r->d.fail_connect,
                      .say = {ro.f, o->quiet ? NULL : stdout}};
    hk_rep_run meta = {.program = "hareal live --master searchd", .scenario = o->scenario,
                       .variant = hk_variant_get((hk_variant_id)o->variant)->name,
                       .strategy = o->strategy >= 0 ? hk_strat_get(o->strategy)->name :
                                   "as configured", .masters = 1, .duration_s = (double)dur / 1e6,
                       .karma_s = r->s->cl->set.karma_s, .seed = o->seed};
    int rc = rl_sdsum_write(&in, &e), crc = 0;
    free(starts);
    hk_buf verdict, table; /* --compare-sim's, in report.txt too (so in index.html) */
    hk_buf_init(&verdict);
    hk_buf_init(&table);
    hk_err ce;
    if (rc == 0 && o->compare &&
        (crc = rl_compare_sim(o->self, o->scn_path, o->out, o->strategy, dur, o->seed,
                              o->variant, o->quiet ? NULL : &table, &verdict, &ce)) < 0)
        hk_print_err(WHO ": --compare-sim", &ce);
    else if (table.s)
        fputs(table.s, stdout);
    hk_buf_free(&table);
    if (rc == 0 && verdict.s)
        fputs(verdict.s, ro.f);
    hk_buf_free(&verdict);
    if (rc == 0)
        rc = hk_out_commit(&ro, &e);
    else
        hk_out_abort(&ro);
    if (rc == 0 && (hk_out_write_all(o->out, "scenario.txt", o->text, strlen(o->text), &e) < 0 ||
                    hk_rep_faults(r->s, dur, o->out, &e) < 0 || hk_rep_run_csv(&meta, o->out, &e) < 0))
        rc = -1;
    if (rc < 0) {
        hk_print_err(WHO, &e);
        return HK_EXIT_RUN;
    }
    return crc < 0 ? HK_EXIT_RUN : 0;
}

static int run(sdrun *r, int64_t dur, gsl_rng *rng, hk_out *qo)
{
    const rl_livesd *o = r->o;
    struct sockaddr_in *addr = calloc((size_t)r->s->cl->nhosts + 1, sizeof *addr);
    r->port = calloc((size_t)r->s->cl->nhosts + 1, sizeof *r->port);
    hk_err e;
    snprintf(r->mirrors, sizeof r->mirrors, "%s/mirrors", o->out);
    snprintf(r->sd.dir, sizeof r->sd.dir, "%s/searchd", o->out);
    r->cl->logdir = r->mirrors;
    r->cl->defer_faults = 1;
    if (addr && r->port && hk_mkdirs(r->mirrors, &e) < 0) {
        hk_print_err(WHO, &e);
        free(addr);
        return HK_EXIT_RUN;
    }
    r->sd.say = hk_cmd_sayer(WHO, 0);
    if (!addr || !r->port || (r->sd.ql_port = ql_port(o, r->s->cl->nhosts)) < 0) {
        free(addr);
        return HK_EXIT_RUN;
    }
    if (rl_cluster_start(r->cl, addr, &e) < 0 ||
        rl_searchd_start(&r->sd, r->s, o->strategy, addr, &e) < 0) {
        hk_print_err(WHO, &e);
        free(addr);
        return HK_EXIT_RUN;
    }
    for (int h = 0; h < r->s->cl->nhosts; h++)
        r->port[h] = ntohs(addr[h].sin_port);
    free(addr);
    if (!o->quiet)
        fprintf(stderr, "%s: searchd (%s) is the master, SphinxQL on 127.0.0.1:%d, config "
                "%s/searchd.conf\n", WHO, r->sd.banner, r->sd.ql_port, r->sd.dir);
    rl_sqldrive *d = &r->d;
    d->loop = r->cl->loop;
    d->s = r->s;
    d->ql.sin_family = AF_INET;
    d->ql.sin_port = htons((uint16_t)r->sd.ql_port);
    d->ql.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    d->host_port = r->port;
    d->rng = rng;
    d->trace = o->trace;
    d->duration_us = dur;
    d->dir = o->out;
    d->queries = qo->f;
    d->on_end = on_end;
    d->user = r;
    fputs("id,t_sched_s,t_sent_s,table,status,latency_ms,message\n", qo->f);
    if ((o->metrics && serve_metrics(r) < 0) || rl_cluster_faults(r->cl) < 0 ||
        rl_sqldrive_start(d) < 0) {
        on_end(r);
        return HK_EXIT_RUN;
    }
    uv_run(r->cl->loop, UV_RUN_DEFAULT);
    if (rl_searchd_verdict(&r->sd, r->sd.stop_sent, &e) < 0) {
        hk_print_err(WHO, &e);
        return HK_EXIT_RUN;
    }
    if (d->failed) {             /* a malformed trace: the run is not the trace's */
        hk_print_err(WHO, &d->err);
        return HK_EXIT_INPUT;
    }
    if (hk_out_commit(qo, &e) < 0) {
        hk_print_err(WHO, &e);
        return HK_EXIT_RUN;
    }
    int rc = report(r, dur);
    return rc == 0 && d->interrupted ? hk_cmd_stopped(d->interrupted) : rc;
}

int rl_live_searchd(rl_cluster *cl, const hk_scn *s, const rl_livesd *o)
{
    sdrun r;
    memset(&r, 0, sizeof r);
    r.o = o;
    r.s = s;
    r.cl = cl;
    r.sd = *o->sd;
    r.sd.loop = cl->loop;
    int64_t dur = o->duration_us > 0 ? o->duration_us : s->wl.duration_us;
    hk_err e;
    hk_rundir rd = {"", -1};
    if (hk_rundir_open(&rd, o->out, WHO, o->force, &e) < 0) {
        hk_print_err(WHO, &e);
        return HK_EXIT_USAGE;
    }
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    hk_out qo = {0};
    int rc = HK_EXIT_RUN;
    if (rng && hk_out_open(&qo, o->out, "queries.csv", &e) == 0) {
        gsl_rng_set(rng, (unsigned long)o->seed);
        rc = run(&r, dur, rng, &qo);
    } else {
        hk_print_err(WHO, &e);
    }
    if (qo.f)
        hk_out_abort(&qo);
    rl_cluster_stop(cl);
    rl_searchd_stop(&r.sd);
    uv_run(cl->loop, UV_RUN_DEFAULT);  /* reap the children and searchd */
    rl_sqldrive_free(&r.d);
    free(r.port);
    if (rng)
        gsl_rng_free(rng);
    return rl_outdir_close(&rd, rc);
}
