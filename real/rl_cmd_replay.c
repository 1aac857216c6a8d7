/* rl_cmd_replay: `hareal replay` — replay a trace through the wire master
 * against live mirrors (ours or real searchd) and write the run's folder. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "hk_plot.h"
#include "hk_scnload.h"
#include "hk_time.h"
#include "rl_addr.h"
#include "rl_cli.h"

#define MAXMAPS 256

typedef struct ropts {
    rl_common c;
    const char *config;
    char outbuf[1024];
    int concurrency;
    double speed;
    const char *maps[MAXMAPS];
    int nmaps;
} ropts;

static int bad(const char *m)
{
    fprintf(stderr, "hareal replay: %s\n", m);
    return RL_EXIT_USAGE;
}

static int parse(int argc, char **argv, ropts *o)
{
    memset(o, 0, sizeof *o);
    rl_common_init(&o->c, HK_VAR_MANTICORE, 1);
    o->speed = 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        int took = rl_common_opt(&o->c, "hareal replay", a, v);
        if (took < 0)
            return RL_EXIT_USAGE;
        if (took > 0) {
            i += took - 1;
            continue;
        }
        if (!v)
            return bad("option needs a value (or unknown option)");
        i++;
        char *e = NULL;
        if (!strcmp(a, "--config")) o->config = v;
        else if (!strcmp(a, "--speed")) o->speed = strtod(v, &e);
        else if (!strcmp(a, "--concurrency")) o->concurrency = (int)strtol(v, &e, 10);
        else if (!strcmp(a, "--map")) {
            if (o->nmaps == MAXMAPS || !strchr(v, '='))
                return bad("--map: expected HOST:PORT=IP:PORT");
            o->maps[o->nmaps++] = v;
        } else
            return bad("unknown option");
        if (e && *e)
            return bad("expected a number");
    }
    if (!o->config || !o->c.trace)
        return bad("expected --config FILE and --trace FILE");
    if (!(o->speed > 0) || o->concurrency < 0)
        return bad("--speed must be > 0 and --concurrency >= 0");
    if (!o->c.out) {
        const char *b = strrchr(o->c.trace, '/');
        b = b ? b + 1 : o->c.trace;
        snprintf(o->outbuf, sizeof o->outbuf, "out/replay-%.*s", (int)strcspn(b, "."), b);
        o->c.out = o->outbuf;
    }
    return 0;
}

/* A config, or a scenario (whose sim { config = } is followed). */
static int load_cluster(const char *path, hk_dialect d, hk_conf **c, hk_conf **tables,
                        hk_cluster **cl, char **text, hk_err *e, hk_warns *w)
{
    size_t len;
    if (hk_file_read(path, text, &len, e) < 0 || hk_conf_parse(*text, len, path, c, e) < 0)
        return -1;
    const hk_entry *ce = hk_scn_config_entry(*c);
    if (ce) {
        char p[1024], *t2;
        size_t l2;
        hk_path_rel(path, ce->value, p, sizeof p);
        if (hk_file_read(p, &t2, &l2, e) < 0)
            return -1;
        int rc = hk_conf_parse(t2, l2, p, tables, e);
        free(t2);
        if (rc < 0)
            return -1;
    }
    if (hk_cluster_from_conf(*tables ? *tables : *c, *c, d, cl, e, w) < 0)
        return -1;
    if ((*cl)->ntables == 0 && (*cl)->nrefused) { /* say why, where */
        *e = (*cl)->refused[0].why;
        char m[HK_ERR_MSG];
        snprintf(m, sizeof m, "no distributed table is served; table '%s': %s",
                 (*cl)->refused[0].name, (*cl)->refused[0].why.msg);
        snprintf(e->msg, sizeof e->msg, "%s", m);
        return -1;
    }
    if ((*cl)->ntables == 0)
        return hk_err_set(e, path, 1, 1, "expected a table with 'type = distributed' and agents");
    return 0;
}

typedef struct run {
    rl_drive d;
    rl_master *m;
    const char *dir;
    hk_err err;
    int rc;
} run;

static void on_end(rl_drive *d)
{
    run *r = d->ctx;
    rl_master_stop(r->m);
}

int rl_replay_run(rl_drive *d, rl_master **mp, const rl_master_cfg *mc, const char *dir,
                  hk_out *periods, hk_out *queries);

int rl_cmd_replay(int argc, char **argv)
{
    ropts o;
    int rc = parse(argc, argv, &o);
    if (rc)
        return rc;
    hk_conf *c = NULL, *tables = NULL;
    hk_cluster *cl = NULL;
    char *text = NULL;
    hk_err e;
    hk_warns w = {0};
    hk_trace tr;
    struct sockaddr_in *addr = NULL;
    char msg[600];
    rc = RL_EXIT_INPUT;
    if (load_cluster(o.config, hk_dialect_of(o.c.variant), &c, &tables, &cl, &text, &e, &w) < 0 ||
        hk_trace_open(&tr, o.c.trace, (hk_trace_fmt)o.c.format, NULL, &e) < 0) {
        rl_print_err("hareal replay", &e);
        goto done;
    }
    for (int i = 0; i < w.n; i++)
        fprintf(stderr, "hareal replay: warning: %s\n", hk_err_str(&w.w[i], msg, sizeof msg));
    if (hk_trace_note(tr.fmt))
        fprintf(stderr, "hareal replay: note: %s\n", hk_trace_note(tr.fmt));
    addr = calloc((size_t)cl->nhosts + 1, sizeof *addr);
    if (!addr || rl_addr_resolve(cl, o.maps, o.nmaps, addr, msg, sizeof msg) < 0) {
        fprintf(stderr, "hareal replay: %s\n", msg);
        goto closetr;
    }
    rc = RL_EXIT_RUN;
    if (rl_outdir(o.c.out, o.c.force, &e) < 0) {
        rl_print_err("hareal replay", &e);
        rc = RL_EXIT_USAGE;
        goto closetr;
    }
    rl_master_cfg mc = {cl, o.c.variant, o.c.strategy, addr, (uint64_t)o.c.seed, NULL, NULL, NULL, NULL};
    rl_drive d = {0};
    d.cl = cl;
    d.trace = &tr;
    d.speed = o.speed;
    d.concurrency = o.concurrency;
    hk_out po, qo;
    rl_master *m = NULL;
    rc = rl_replay_run(&d, &m, &mc, o.c.out, &po, &qo);
    if (rc == 0) {
        rl_report(stdout, m, &d, o.c.trace);
        hk_out ro;
        if (hk_out_open(&ro, o.c.out, "report.txt", &e) == 0) {
            rl_report(ro.f, m, &d, o.c.trace);
            hk_out_commit(&ro, &e);
        }
        hk_out_write_all(o.c.out, "scenario.txt", text, strlen(text), &e);
        if (o.c.plot && hk_plot_run(o.c.out, 0, NULL, msg, sizeof msg) < 0)
            fprintf(stderr, "hareal replay: %s\n", msg);
        printf("files: %s/\n", o.c.out);
    }
    rl_master_free(m);
closetr:
    hk_trace_close(&tr);
done:
    free(addr);
    hk_cluster_free(cl);
    hk_conf_free(c);
    hk_conf_free(tables);
    free(text);
    return rc;
}

/* Run the loop with a master and a drive until every query has its row;
 * used by replay and live. Files are committed only when complete. */
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
    if (rl_drive_start(d) < 0) {
        rl_print_err("hareal", &d->err);
        rl_master_stop(m);
        uv_run(loop, UV_RUN_DEFAULT);
        hk_out_abort(po);
        hk_out_abort(qo);
        hk_out_abort(&lo);
        return RL_EXIT_INPUT;
    }
    uv_run(loop, UV_RUN_DEFAULT);
    if (d->failed) { /* a malformed trace line: what was sent has rows; the run is not complete */
        rl_print_err("hareal", &d->err);
        hk_out_abort(po);
        hk_out_abort(qo);
        hk_out_abort(&lo);
        return RL_EXIT_INPUT;
    }
    if (rl_master_finish(m, dir, &e) < 0 || hk_out_commit(po, &e) < 0 ||
        hk_out_commit(&lo, &e) < 0 || hk_out_commit(qo, &e) < 0) {
        rl_print_err("hareal", &e);
        return RL_EXIT_RUN;
    }
    return 0;
}
