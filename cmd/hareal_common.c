/* hareal_common: the options hareal replay and live share, what both do at the end (the
 * --fail-on gate, the plots), and a scenario's mirror looked up (mirror and proxy). */
#include "hareal.h"

#include <stddef.h>
#include <string.h>
#include "hk_evvar.h"
#include "hk_scnload.h"
#include "hk_trace.h"
#include "rl_addr.h"
#include "rl_report.h"

void rl_common_init(rl_common *c, int variant, long long seed)
{
    memset(c, 0, sizeof *c);
    c->format = HK_TRACE_AUTO;
    c->variant = variant;
    c->strategy = -1;
    c->seed = seed;
    c->sel.master = -1;
}

int rl_variant(rl_common *c, int fallback, const char *fallback_why, const char *who)
{
    char why[HK_EVVAR_WHY];
    hk_status_file st = {0};
    hk_err e;
    int v = c->variant < 0 && c->status && hk_evvar_load_status(c->status, &st, &e) < 0
                ? -1
                : hk_evvar_decide(c->variant, c->status ? &st : NULL, c->searchd_log, fallback,
                                  fallback_why, why, sizeof why, &e);
    hk_status_file_free(&st);
    if (v < 0) {
        hk_print_err(who, &e);
        return HK_EXIT_INPUT;
    }
    c->variant = v;
    if (!c->quiet) /* which searchd it plays decides the shares: never in silence */
        fprintf(stderr, "%s: variant %s: %s\n", who, hk_variant_get((hk_variant_id)v)->name, why);
    return 0;
}

int rl_fail_on(const rl_common *c, const char *who, const hk_ans *a, int rc)
{
    if (rc || !hk_ans_fail_on(a, c->fail_on))
        return rc;
    fprintf(stderr, "%s: a finding of a kind in --fail-on %s was raised (exit %d)\n", who,
            c->fail_on, HK_EXIT_FINDING);
    return HK_EXIT_FINDING;
}

int rl_close_run(hk_rundir *rd, int rc, const rl_common *c, const char *who)
{
    char msg[512];
    int prc = 0;
    if (c->plot && (rc == 0 || rc == HK_EXIT_FINDING) &&
        hk_plot_run(c->out, 0, &c->sel, msg, sizeof msg) < 0) {
        fprintf(stderr, "%s: %s (exit %d)\n", who, msg, HK_EXIT_RUN);
        prc = HK_EXIT_RUN; /* no chart is left cut short; the CSV files are complete */
    } else if (c->plot && (rc == 0 || rc == HK_EXIT_FINDING) && !c->quiet) {
        printf("plots: %s/plots/ (open %s/index.html)\n", c->out, c->out);
    }
    rc = rl_outdir_close(rd, rc);
    if ((rc == 0 || rc == HK_EXIT_FINDING) && !c->quiet)
        printf("files: %s/\n", c->out);
    return rc == 0 ? prc : rc;
}

static int opt_format(void *set, const char *prog, const char *opt, const char *v)
{
    rl_common *c = set;
    if ((c->format = hk_trace_fmt_parse(v)) >= -1)
        return 0;
    fprintf(stderr, "%s: %s: expected csv, sphinxql or plain, got '%s'\n", prog, opt, v);
    return -1;
}

static int opt_metrics(void *set, const char *prog, const char *opt, const char *v)
{
    rl_common *c = set;
    char host[64];
    int port;
    if (rl_addr_parse(v, host, sizeof host, &port) == 0) {
        c->metrics = v;
        return 0;
    }
    fprintf(stderr, "%s: %s: expected IP:PORT, got '%s'\n", prog, opt, v);
    return -1;
}

/* --table-map, checked by the kit's one parser (hk_cmd_table_map), then split in place. */
static int opt_table_map(void *set, const char *prog, const char *opt, const char *v)
{
    rl_common *c = set;
    const char *arg[RL_TMAP_MAX];
    int n = c->ntmap;
    if (hk_cmd_table_map(prog, opt, v, arg, &n, RL_TMAP_MAX) < 0)
        return -1;
    char *b = c->tmap_buf[c->ntmap];
    snprintf(b, sizeof c->tmap_buf[0], "%s", v);
    char *eq = strchr(b, '=');
    *eq = '\0';
    c->tmap[c->ntmap][0] = b;
    c->tmap[c->ntmap][1] = eq + 1;
    c->ntmap++;
    return 0;
}

static int opt_variant(void *set, const char *prog, const char *opt, const char *v)
{
    return hk_cmd_variant(prog, opt, v, &((rl_common *)set)->variant);
}

static int opt_strategy(void *set, const char *prog, const char *opt, const char *v)
{
    return hk_cmd_strategy(prog, opt, v, &((rl_common *)set)->strategy);
}

static int opt_fail_on(void *set, const char *prog, const char *opt, const char *v)
{
    ((rl_common *)set)->fail_on = v;
    return hk_cmd_kinds(prog, opt, v);
}

static int opt_sel(void *set, const char *prog, const char *opt, const char *v)
{
    hk_plot_sel *sel = &((rl_common *)set)->sel;
    long long n;
    if (!strcmp(opt, "--lines"))
        snprintf(sel->lines, sizeof sel->lines, "%s", v);
    else if (!strcmp(opt, "--mirrors"))
        snprintf(sel->mirrors, sizeof sel->mirrors, "%s", v);
    else if (hk_cmd_int(prog, opt, v, 0, 0, &n) < 0)
        return -1;
    else
        sel->master = (int)n;
    return 0;
}

#define A(f) offsetof(rl_common, f)
const hk_opt rl_common_opts[] = {
    {.name = "trace", .arg = "FILE", .kind = HK_OPT_STR, .off = A(trace),
     .help = "a CSV (t_s,table,query) or a searchd query log (sphinxql or plain)"},
    {.name = "format", .arg = "F", .kind = HK_OPT_FN, .fn = opt_format,
     .help = "csv, sphinxql or plain (default: detected from the first line)"},
    {.name = "table-map", .arg = "LOG=CONF", .kind = HK_OPT_FN, .fn = opt_table_map,
     .help = "a table name of the trace stands for a table of the config (repeatable)"},
    HK_OPT_OUT(A(out), "DIR",
        "output folder (default out/live-<scenario> or out/replay-<trace>,\n"
        "replaced by the next run); a finished DIR given here needs --force"),
    HK_OPT_FORCE(A(force), "replace the finished run in --out"),
    HK_OPT_VARIANT("V", opt_variant,
        "the master's implementation (default: "
        "what --status or --searchd-log says, else manticore)"),
    {.name = "status", .arg = "FILE", .kind = HK_OPT_STR, .off = A(status),
     .help =
         "a saved SHOW STATUS or SHOW AGENT STATUS of the real master:\nits version or layout says "
         "the variant"},
    {.name = "searchd-log", .arg = "FILE", .kind = HK_OPT_STR, .off = A(searchd_log),
     .help = "the real master's searchd.log: its start lines say the variant"},
    HK_OPT_STRATEGY("S", opt_strategy, "override every line's ha_strategy"),
    HK_OPT_SEED(A(seed), "the master's random seed"),
    {.name = "plot", .kind = HK_OPT_FLAG, .off = A(plot),
     .help = "draw the plots and DIR/index.html"},
    {.name = "lines", .arg = "LIST", .kind = HK_OPT_FN, .fn = opt_sel,
     .help = "plots: the agent lines to draw"},
    {.name = "mirrors", .arg = "LIST", .kind = HK_OPT_FN, .fn = opt_sel,
     .help = "plots: the mirrors to draw"},
    {.name = "master", .arg = "N", .kind = HK_OPT_FN, .fn = opt_sel,
     .help = "plots: the master to draw (0: the one)"},
    {.name = "no-exec", .kind = HK_OPT_FLAG, .off = A(no_exec),
     .help = "refuse a config that is a '#!' script"},
    {.name = "fail-on", .arg = "KINDS", .kind = HK_OPT_FN, .fn = opt_fail_on,
     .help = "exit 4 when the run raises a finding of these kinds (or severe)"},
    {.name = "metrics", .arg = "IP:PORT", .kind = HK_OPT_FN, .fn = opt_metrics,
     .help = "serve /metrics there while it runs (Prometheus text format:\n"
             "lines by mirror and outcome, latency, schedule lag)"},
    HK_OPT_QUIET(A(quiet), HK_QUIET_HELP),
    {0}};
#undef A

int rl_scn_mirror(const char *who, const char *path, const char *name, int behave,
                  hk_loaded *L, int *host)
{
    hk_err e;
    if (hk_scn_load_live(path, 1, L, &e) < 0) {
        hk_print_err(who, &e);
        return HK_EXIT_INPUT;
    }
    if ((*host = hk_cluster_find_host(L->scn->cl, name)) < 0) {
        fprintf(stderr, "%s: %s is not a mirror of %s\n", who, name, path);
        return HK_EXIT_INPUT;
    }
    if (behave && hk_scn_behaviour_of(L->scn, *host, &e) < 0) {
        hk_print_err(who, &e);
        return HK_EXIT_INPUT;
    }
    return 0;
}

int rl_outdir_close(hk_rundir *rd, int rc)
{
    hk_err e;
    if (rc == 0 || rc == HK_EXIT_FINDING || rc > HK_EXIT_SIGNAL) {
        if (hk_rundir_done(rd, &e) == 0)
            return rc;
        hk_print_err("hareal", &e);
        rc = HK_EXIT_RUN;
    }
    hk_rundir_abort(rd);
    return rc;
}
