/* hasim_init: `hasim init --config FILE [--status FILE|DIR...] [--log FILE] [--searchd-log FILE]
 * [--out FILE]` — a complete, commented scenario from production files: the config's
 * distributed tables (by reference), one mirror section per host measured in a saved SHOW AGENT
 * STATUS / SHOW STATUS (hk_calib), a default that says it is a guess for the rest, the workload
 * from the query log (replayed as the trace) or from the status counters, and the variant the
 * status layout implies. A series of snapshots adds the incident's faults (hasim_initseries),
 * searchd's own log the second it started (hasim_initstart). */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <stddef.h>
#include <sys/stat.h>
#include "hasim.h"
#include "hasim_init.h"
#include "hk_evvar.h"
#include "hk_calib.h"
#include "hk_file.h"
#include "hk_statjson.h"
#include "hk_time.h"
#include "hk_trace.h"

#define P "hasim init"

typedef struct init_args {
    const char *config, *status, *log, *out, *searchd_log;
    int no_exec, var;            /* var: --variant's id, -1 = the status layout's */
    long long min_msec;          /* the config's query_log_min_msec (0: every query logged) */
    const char **snaps;          /* --status and the operands after it: a series when a folder
                                    or more than one file */
    int nsnaps, series;
    int ntmap;                   /* --table-map LOG=CONFIG: the log's name for a config table */
    const char *tmap[HK_TMAP_MAX];
} init_args;

/* The run's clock for a series: its start (the log's first search, else the series' first
 * whole second) into *t0, and its length. */
static double run_of(const init_args *a, const logsum *ls, const initseries *ser, double *t0)
{
    *t0 = a->log ? (double)ls->first_us / 1e6 : floor(ser->inc.start_s);
    return a->log ? ceil((double)(ls->last_us - ls->first_us) / 1e6) + 1
                  : ceil(ser->inc.end_s - *t0);
}

/* What init read, for the scenario it writes. */
typedef struct init_in {
    const hk_status_file *st;    /* the status (a series: its healthy windows summed) */
    const hk_calib_host *c;      /* calibrated from it, per host */
    logsum *ls;                  /* the query log's */
    const initseries *ser;       /* a series, or NULL */
    double started_s;            /* searchd's start (--searchd-log); < 0 unknown */
} init_in;


static int opt_variant(void *set, const char *prog, const char *opt, const char *v)
{
    return hk_cmd_variant(prog, opt, v, &((init_args *)set)->var);
}

static int opt_table_map(void *set, const char *prog, const char *opt, const char *v)
{
    init_args *a = set;
    return hk_cmd_table_map(prog, opt, v, a->tmap, &a->ntmap, HK_TMAP_MAX);
}

#define A(f) offsetof(init_args, f)
static const hk_opt init_opts[] = {
    {.name = "config", .arg = "FILE", .kind = HK_OPT_STR, .off = A(config),
     .help = "the master's manticore.conf / sphinx.conf (its distributed tables)"},
    {.name = "status", .arg = "FILE|DIR", .kind = HK_OPT_STR, .off = A(status),
     .help = "a saved SHOW AGENT STATUS (or SHOW STATUS for Manticore's lifetime rows;\n"
             "mysql -B, -t or -E output, Manticore's JSON; 2.2.11 or Manticore layout);\n"
             "a folder, or several files after it, is a series of snapshots replayed\n"
             "as an incident (each file named with its time: status.EPOCH.tsv)"},
    {.name = "log", .arg = "FILE", .kind = HK_OPT_STR, .off = A(log),
     .help = "a searchd query log (sphinxql or plain): the workload, replayed"},
    {.name = "searchd-log", .arg = "FILE", .kind = HK_OPT_STR, .off = A(searchd_log),
     .help = "searchd's own log: which searchd it is (its start lines), and, with\n"
             "--log or a series, when it started before the run, which fixes the\n"
             "seconds at which it re-weights its mirrors"},
    HK_OPT_OUT(A(out), "FILE.scn",
        "where the scenario goes (default stdout); its paths are relative to it"),
    HK_OPT_VARIANT("NAME", opt_variant,
        "read the config as this variant's searchd does (default: the status\n"
        "layout's: sphinx2 for 2.2.11, else manticore)"),
    {.name = "table-map", .arg = "LOG=CONF", .kind = HK_OPT_FN, .fn = opt_table_map,
     .help = "the log's table LOG is the config's CONF (repeatable); a log whose tables\n"
             "the config does not serve is refused without it, as hareal replay does"},
    {.name = "no-exec", .kind = HK_OPT_FLAG, .off = A(no_exec),
     .help = "refuse a config that starts with #! instead of running it"},
    {0}};
#undef A

static const hk_cmd init_cmd = {
    .prog = P,
    .usage = "--config FILE [--status FILE|DIR [SNAPSHOT...]] [--log FILE] [--searchd-log FILE]\n"
             "       [--out FILE.scn] [options]",
    .about = "Writes a scenario that runs as is: the config's distributed tables; a mirror\n"
             "section per host measured in --status, a stated guess for hosts it lacks; the\n"
             "workload from --log or from the status counters; the variant the status layout\n"
             "implies. The scenario is loaded back before init says it is written. A series\n"
             "of snapshots (a folder, or several files) is read as an incident: per karma\n"
             "period each host's answers, failures and mean; its dead and slow windows become\n"
             "faults at the times they happened, the healthy ones the mirror sections.",
    .sets = {{init_opts, 0}},
    .max_args = HK_INCIDENT_SNAPS_MAX,
    .args = "status snapshot"
};

static int parse(int argc, char **argv, init_args *a)
{
    memset(a, 0, sizeof *a);
    a->var = -1;
    a->snaps = calloc((size_t)argc + 1, sizeof *a->snaps);
    if (!a->snaps)
        return HK_EXIT_RUN;
    int npos, rc = hk_cmd_parse(&init_cmd, argc, argv, a, a->snaps + 1, &npos);
    if (rc)
        return rc;
    if (!a->config)
        return hk_cmd_bad(&init_cmd, "expected --config FILE");
    if (npos && !a->status)
        return hk_cmd_bad(&init_cmd, "snapshots after --status FILE, got '%s' without it",
                          a->snaps[1]);
    struct stat sb;
    a->snaps[0] = a->status;
    a->nsnaps = npos + 1;
    a->series = a->status && (npos || (stat(a->status, &sb) == 0 && S_ISDIR(sb.st_mode)));
    return 0;
}


static int write_scenario(FILE *o, const init_args *a, const hk_cluster *cl, const init_in *in);

/* The scenario to stdout, or to --out (complete or absent); an exit code. */
static int write_out(const init_args *a, const hk_cluster *cl, const init_in *in)
{
    if (!a->out)
        return write_scenario(stdout, a, cl, in) < 0 ? HK_EXIT_RUN : 0;
    hk_err e;
    char dir[1024];
    const char *slash = strrchr(a->out, '/');
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - a->out) : 1, slash ? a->out : ".");
    hk_out o;
    int rc = hk_out_open(&o, dir, slash ? slash + 1 : a->out, &e) < 0 ? HK_EXIT_RUN : 0;
    if (!rc && (write_scenario(o.f, a, cl, in) < 0 || fflush(o.f) != 0)) {
        hk_out_abort(&o);
        rc = HK_EXIT_RUN;
    }
    hk_loaded L; /* nothing init writes fails to load: its part is read back before the rename */
    if (!rc && hk_scn_load(o.part, !a->no_exec, &L, &e) < 0) {
        hk_err_prefix(&e, "the scenario init wrote does not load (a bug of hasim init; the file "
                      "was not written): ");
        hk_out_abort(&o);
        rc = HK_EXIT_RUN;
    } else if (!rc) {
        hk_loaded_free(&L);
    }
    if (!rc && hk_out_commit(&o, &e) < 0)
        rc = HK_EXIT_RUN;
    if (rc)
        hk_print_err(P, &e);
    else
        printf("wrote %s: run it with build/hasim %s\n", a->out, a->out);
    return rc;
}

/* Say on stderr which hosts' status windows are not full (the scenario says it too). */
static void warn_short(const hk_cluster *cl, const hk_calib_host *c)
{
    for (int h = 0; c && h < cl->nhosts; h++)
        if (c[h].found && c[h].contradicts)
            fprintf(stderr, P ": warning: %s: its 5-period window holds fewer events (%.0f) than "
                    "its 1-period one (%.0f): no master prints that; the status was edited or "
                    "pieced together, and its rate is not to be trusted\n", cl->hosts[h].name,
                    c[h].ev5, c[h].ev1);
    for (int h = 0; c && h < cl->nhosts; h++)
        if (c[h].found && c[h].window_short)
            fprintf(stderr, P ": warning: %s: the status window is not full (its widest window "
                    "holds no more than the 5 newest periods): the model's figures come from "
                    "that short span\n", cl->hosts[h].name);
}


/* The status and the config belong together: no host in common is refused (a status of another
 * cluster would give a model of guesses); the rest is named on stderr. 0, or an exit code. */
static int hosts_in_common(const char *what, const hk_status_file *st, const hk_cluster *cl,
                           const hk_calib_host *c)
{
    int found = 0, missing = 0, extra = 0;
    char miss[300] = "", ext[300] = "";
    for (int h = 0; h < cl->nhosts; h++) {
        found += c[h].found;
        if (!c[h].found && cl->hosts[h].in_ha && missing++ < 4)
            snprintf(miss + strlen(miss), sizeof miss - strlen(miss), "%s%s", missing > 1 ? ", "
                     : "", cl->hosts[h].name);
    }
    for (int i = 0; st && i < st->nhosts; i++)
        if (!st->h[i].by_agent && hk_cluster_find_host(cl, st->h[i].name) < 0 && extra++ < 4)
            snprintf(ext + strlen(ext), sizeof ext - strlen(ext), "%s%s", extra > 1 ? ", " : "",
                     st->h[i].name);
    if (!found && st && st->nhosts) {
        fprintf(stderr, P ": %s: none of its %d hosts (%s%s) is an agent of the config: a status "
                "of another cluster? expected the SHOW AGENT STATUS of the master this config "
                "describes (exit %d)\n", what, st->nhosts, ext[0] ? ext : st->h[0].name,
                st->nhosts > 4 ? ", ..." : "", HK_EXIT_INPUT);
        return HK_EXIT_INPUT;
    }
    if (missing)
        fprintf(stderr, P ": warning: %s: %d mirror(s) of the config have no status (%s%s): their "
                "figures are the scenario's defaults\n", what, missing, miss,
                missing > 4 ? ", ..." : "");
    if (extra)
        fprintf(stderr, P ": warning: %s: %d host(s) of the status are no agent of the config "
                "(%s%s): left out\n", what, extra, ext, extra > 4 ? ", ..." : "");
    return 0;
}

/* One agent line's times as the mixture of its mirrors (fitted once for all of them). */
typedef struct linemix {
    int t, j;                    /* the line */
    int ok;                      /* mix holds a fit */
    hk_fitmix mix;
    int host[HK_FITMIX_MAX];     /* component c is host host[c] */
} linemix;

/* The lines fitted so far (at most one per host). */
typedef struct linemixes {
    int n;
    linemix *l;
} linemixes;

/* What the query log says of one mirror: its agent line's fitted shape, its ERROR evidence. */
typedef struct evidence {
    int fitted;                  /* f holds its line's shape */
    hk_fit f;
    const linemix *lm;           /* its line as the mixture of its mirrors, or NULL */
    int comp;                    /* ... of which it is component comp */
    char line[160];              /* "table d2, agent line 1" */
    long named, searches;        /* error=/warning= naming it; its table's searches */
    long line_named;             /* ... naming any mirror of its line */
    double share;                /* its share of its line's answered attempts */
    int share_measured;          /* from the status (which counts no ERROR reply), else equal */
    int nburst;                  /* its ERROR replies came in these stretches ... */
    initburst burst[8];
    double rest_p;               /* ... and at this rate outside them (< 0: a whole-run rate) */
} evidence;

/* The shape with mean mean_ms: the fitted one, else lognormal sigma 0.3; into b. */
static void shape(char *b, size_t n, double mean_ms, const evidence *ev, int measured)
{
    const hk_fitmix *m = ev->lm ? &ev->lm->mix : NULL;
    double own = m ? m->sigma[ev->comp] : 0;
    if (measured && m && m->kind == HK_FIT_GAMMA)
        snprintf(b, n, "gamma(shape=%.6g, scale=%.6gms)", m->shape[ev->comp],
                 mean_ms / m->shape[ev->comp]);
    else if (measured && m)
        snprintf(b, n, "lognormal(median=%.3fms, sigma=%.4f)", mean_ms / exp(own * own / 2), own);
    else if (ev->fitted && ev->f.kind == HK_FIT_GAMMA)
        snprintf(b, n, "gamma(shape=%.6g, scale=%.6gms)", ev->f.shape, mean_ms / ev->f.shape);
    else {
        double sg = ev->fitted ? ev->f.sigma : 0.3;
        snprintf(b, n, "lognormal(median=%.3fms, sigma=%.4f)", mean_ms / exp(sg * sg / 2), sg);
    }
}

static void shape_note(FILE *o, const evidence *ev, int measured)
{
    const hk_fitmix *m = ev->lm ? &ev->lm->mix : NULL;
    if (measured && m) {
        int c = ev->comp, poor = m->ks[c] > HK_FITMIX_POOR || m->ks_mix > HK_FITMIX_POOR;
        fprintf(o, "its own spread: the %ld agents=() times of %s fitted as the mixture of its "
                "%d mirrors (%s, EM, started at the status's shares and means), where it has mean "
                "%.3f ms and share %.3f (the status: %.3f ms, %.3f); KS distance %.3f of its part "
                "of the times, %.3f of the whole line (%s; the other shape %.3f)%s",
                m->n, ev->line, m->k, m->kind == HK_FIT_GAMMA ? "gamma" : "lognormal",
                m->mean[c], m->w[c], m->given_mean[c], m->given_w[c], m->ks[c], m->ks_mix,
                poor ? "a POOR fit" : "a good fit", m->ks_other,
                poor ? ": its tail is uncertain" : "");
    }
    else if (ev->fitted)
        fprintf(o, "the shape fitted to %ld agents=() times of %s (%s; KS distance %.3f, the "
                "other shape %.3f)", ev->f.n, ev->line,
                ev->f.kind == HK_FIT_GAMMA ? "gamma" : "lognormal", hk_fit_ks(&ev->f),
                ev->f.kind == HK_FIT_GAMMA ? ev->f.ks_lognormal : ev->f.ks_gamma);
    else
        fprintf(o, "the shape is a guess (the log has no agents=() times for it)");
}

#define IDLE_MIN 10              /* timed searches under which a host's window is idle */

/* Why a measured host has no query time: an idle master, or Manticore's status. */
static void no_time(FILE *o, const hk_calib_host *c, int manticore)
{
    if (c && c->attempts < IDLE_MIN)
        fprintf(o, "    service = lognormal(median=10ms, sigma=0.5)   # a guess: the master sent "
                "it %.0f timed search(es) in the status's window (an idle master: save the status "
                "after it has served a load)\n", c->attempts);
    else if (manticore)
        fprintf(o, "    service = lognormal(median=10ms, sigma=0.5)   # a guess: the status has "
                "no query time for it (Manticore's SHOW AGENT STATUS never sums it; save SHOW "
                "STATUS too, its ag_TABLE_LINE_MIRROR_ rows have it)\n");
    else
        fprintf(o, "    service = lognormal(median=10ms, sigma=0.5)   # a guess: the status has "
                "no query time for it\n");
}

static void service(FILE *o, const hk_calib_host *c, const hk_cluster *cl, const evidence *ev)
{
    const hk_settings *set = &cl->set;
    char sh[160];
    if (c && c->found && c->mean_ms >= 0) {
        shape(sh, sizeof sh, c->mean_ms, ev, 1);
        if (c->p_timeout > 0)
            fprintf(o, "    service = mix(%.6f %s, %.6f constant(%lldms))   # mean %.3f ms measured; "
                    "%.4f%% timed out (kept as replies slower than agent_query_timeout); ",
                    1 - c->p_timeout, sh, c->p_timeout,
                    (long long)(2 * set->query_timeout_us / 1000), c->mean_ms, 100 * c->p_timeout);
        else
            fprintf(o, "    service = %s   # mean %.3f ms measured; ", sh, c->mean_ms);
    } else if (ev->fitted) {
        shape(sh, sizeof sh, ev->f.mean, ev, 0);
        fprintf(o, "    service = %s   # mean %.3f ms from the log, the same for every mirror of "
                "its line (the log does not say which mirror answered); ", sh, ev->f.mean);
    } else {
        no_time(o, c, cl->dialect == HK_DIALECT_MANTICORE);
        return;
    }
    shape_note(o, ev, c && c->found && c->mean_ms >= 0);
    fputc('\n', o);
}

static void errors(FILE *o, const evidence *ev)
{
    if (!ev->named)
        return;
    /* its attempts: the ERROR replies named, and its share of the queries the line answered */
    double answered = (double)(ev->searches - ev->line_named);
    double p = ev->named / (ev->named + (answered > 0 ? answered : 0) * ev->share);
    if (ev->nburst) {
        double in = 0;
        for (int i = 0; i < ev->nburst; i++)
            in += ev->burst[i].errors;
        if (ev->rest_p > 0)
            fprintf(o, "    errors = %.6f   # the query log: outside its %d ERROR burst(s) "
                    "(faults below, %.0f of the %ld named), the rest of its attempts\n",
                    ev->rest_p, ev->nburst, in, ev->named);
        else
            fprintf(o, "    # errors: none outside its %d ERROR burst(s) (faults below: all %ld "
                    "the query log named)\n", ev->nburst, ev->named);
        return;
    }
    fprintf(o, "    errors = %.6f   # the query log: %ld of the %ld searches of %s named it in "
            "error= or warning= (ERROR replies; SHOW AGENT STATUS records none) beside its %s "
            "share %.3f of the %.0f the line answered\n", p, ev->named, ev->searches, ev->line,
            ev->share_measured ? "measured" : "assumed equal", ev->share, answered);
}

static void mirror_section(FILE *o, const hk_cluster *cl, int h, const hk_calib_host *c,
                           const evidence *ev)
{
    if (c && c->found)
        fprintf(o, "mirror %s {   # %s: %.0f timed attempts", cl->hosts[h].name, c->source,
                c->attempts);
    else
        fprintf(o, "mirror %s {   # not in the status: from the query log", cl->hosts[h].name);
    if (c && c->found && c->pings_est >= 0.5)
        fprintf(o, " (%.0f events less ~%.0f pings)", c->attempts + c->pings_est, c->pings_est);
    fprintf(o, "\n");
    if (c && c->found && c->window_short)
        fprintf(o, "    # WARNING: the status window is not full: its widest window holds no more "
                "than its 5 newest periods (the master ran, or had traffic, for under 5 karma "
                "periods), so these figures come from that short span\n");
    service(o, c && c->found ? c : NULL, cl, ev);
    errors(o, ev);
    if (c && c->found && c->rtt_ms > 0)
        fprintf(o, "    rtt = constant(%.3fms)   # connect_avg\n", c->rtt_ms);
    if (c && c->found && c->p_refuse > 0)
        fprintf(o, "    refuse = %.6f   # connect_failures\n", c->p_refuse);
    if (c && c->found && c->p_warning > 0)
        fprintf(o, "    warnings = %.6f\n", c->p_warning);
    fprintf(o, "    # threads: not in the status (it does not show concurrency): no queue\n}\n");
}

/* The first agent line holding host h: table *t, line *j; 0, or -1 none. */
static int line_of(const hk_cluster *cl, int h, int *t, int *j)
{
    for (*t = 0; *t < cl->ntables; (*t)++)
        for (*j = 0; *j < cl->tables[*t].nlines; (*j)++)
            for (int m = 0; m < cl->tables[*t].lines[*j].a.n; m++)
                if (cl->tables[*t].lines[*j].host[m] == h)
                    return 0;
    return -1;
}

/* How many agent lines name host h (its status counts its attempts for all of them). */
static double lines_with(const hk_cluster *cl, int h)
{
    int n = 0;
    for (int t = 0; t < cl->ntables; t++)
        for (int j = 0; j < cl->tables[t].nlines; j++)
            for (int k = 0; k < cl->tables[t].lines[j].a.n; k++)
                n += cl->tables[t].lines[j].host[k] == h;
    return n > 0 ? n : 1;
}

/* Line (t, j) of the log as the mixture of its mirrors with measured attempts and means
 * (fitted the first time a mirror of it asks; a mirror without either: no mixture). A mirror
 * of several lines starts at its attempts shared evenly between them. */
static const linemix *line_mix(const hk_cluster *cl, int t, int j, const hk_calib_host *c,
                               const logsum *ls, linemixes *cache)
{
    for (int i = 0; i < cache->n; i++)
        if (cache->l[i].t == t && cache->l[i].j == j)
            return cache->l[i].ok ? &cache->l[i] : NULL;
    linemix *lm = &cache->l[cache->n++];
    const hk_line_conf *lc = &cl->tables[t].lines[j];
    *lm = (linemix){.t = t, .j = j};
    for (int k = 0; k < lc->a.n && lm->mix.k < HK_FITMIX_MAX; k++) {
        const hk_calib_host *x = &c[lc->host[k]];
        if (!x->found || !(x->attempts > 0))
            continue;
        if (!(x->mean_ms > 0))
            return NULL;
        lm->host[lm->mix.k] = lc->host[k];
        lm->mix.w[lm->mix.k] = x->attempts / lines_with(cl, lc->host[k]);
        lm->mix.mean[lm->mix.k++] = x->mean_ms;
    }
    lm->ok = lm->mix.k > 0 && initlog_fitmix(ls, cl, t, j, &lm->mix) == 0;
    return lm->ok ? lm : NULL;
}

/* Everything the log tells of host h (nothing without a log). */
static void evidence_of(const hk_cluster *cl, int h, const hk_calib_host *c, logsum *ls,
                        linemixes *cache, evidence *ev)
{
    memset(ev, 0, sizeof *ev);
    int t, j;
    if (!ls || line_of(cl, h, &t, &j) < 0)
        return;
    const hk_line_conf *lc = &cl->tables[t].lines[j];
    snprintf(ev->line, sizeof ev->line, "table %s, agent line %d", cl->tables[t].name, j + 1);
    ev->fitted = initlog_fit(ls, cl, t, j, &ev->f) == 0;
    int k = initlog_table(ls, cl, t);
    ev->searches = k >= 0 ? ls->searches[k] : 0;
    ev->named = ev->searches ? initlog_named(ls, cl->hosts[h].name) : 0;
    for (int m = 0; ev->searches && m < lc->a.n; m++)
        ev->line_named += initlog_named(ls, cl->hosts[lc->host[m]].name);
    double mine = -1, all = 0;
    for (int m = 0; c && m < lc->a.n; m++) {
        const hk_calib_host *x = &c[lc->host[m]];
        all += x->found ? x->attempts : 0;
        mine = lc->host[m] == h && x->found ? x->attempts : mine;
    }
    ev->share_measured = mine > 0 && all > 0;
    ev->share = ev->share_measured ? mine / all : 1.0 / lc->a.n;
    ev->rest_p = -1;
    if (ev->named && k >= 0)
        ev->nburst = initburst_find(ls, k, cl->hosts[h].name, ev->share, (double)cl->set.karma_s,
                                    ev->burst, 8, &ev->rest_p);
    ev->lm = ev->fitted && c && cache ? line_mix(cl, t, j, c, ls, cache) : NULL;
    for (int m = 0; ev->lm && m < ev->lm->mix.k; m++)
        if (ev->lm->host[m] == h)
            ev->comp = m;
    if (ev->lm && ev->lm->host[ev->comp] != h)
        ev->lm = NULL; /* it answered nothing: not part of the mixture */
}


/* The busiest table by the status: timed attempts of its first line, per second. */
static double status_rate(const hk_cluster *cl, const hk_calib_host *c, int *table)
{
    double best = -1;
    for (int t = 0; t < cl->ntables; t++) {
        const hk_line_conf *l = &cl->tables[t].lines[0];
        double sum = 0, w = 0;
        for (int j = 0; cl->tables[t].nlines && j < l->a.n; j++) {
            sum += c[l->host[j]].attempts;
            w = c[l->host[j]].window_s > w ? c[l->host[j]].window_s : w;
        }
        if (w > 0 && sum / w > best) {
            best = sum / w;
            *table = t;
        }
    }
    return best;
}

/* path as the scenario at out (NULL: stdout, read from here) names it: an absolute path as
 * given, else relative to out's folder, which is where the scenario loader resolves it. */
static void path_for(const char *path, const char *out, char *buf, size_t n)
{
    char from[PATH_MAX], to[PATH_MAX], dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", out ? out : "x");
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = '\0';
    else
        snprintf(dir, sizeof dir, ".");
    if (path[0] == '/' || !out || !realpath(dir, from) || !realpath(path, to)) {
        snprintf(buf, n, "%s", path);
        return;
    }
    size_t k = 0, cut = 0; /* the common folders, then '..' for each of out's own */
    while (from[k] && from[k] == to[k]) {
        if (from[k] == '/')
            cut = k;
        k++;
    }
    if (!from[k] && (to[k] == '/' || !to[k]))
        cut = k;
    size_t o = 0;
    buf[0] = '\0';
    for (const char *f = from + cut; *f && o < n; f++)
        if (*f == '/')
            o += (size_t)snprintf(buf + o, n - o, "../");
    if (o < n)
        snprintf(buf + o, n - o, "%s", to + cut + (to[cut] == '/'));
}

static void workload(FILE *o, const init_args *a, const hk_cluster *cl, const init_in *in)
{
    logsum *ls = in->ls;
    const hk_calib_host *c = in->c;
    if (a->log) {
        double span = (double)(ls->last_us - ls->first_us) / 1e6;
        fprintf(o, "# the query log, replayed: %ld searches over %.1f s from %d table name(s); "
                "%ld entries that are no search and %ld lines that are no entry left out; %ld "
                "failed (error=) and %ld partial (warning=), %ld of them naming no agent\n",
                ls->n, span, ls->ntables, ls->not_search, ls->garbage, ls->failed, ls->warned,
                ls->unnamed);
        if (ls->batched)
            fprintf(o, "# %ld more searches came in multi-query batches (' xN', or one "
                    "connection's lines at one time with one agents=() list): one arrival per "
                    "batch, as the agents saw them\n", ls->batched);
        if (ls->in_fault)
            fprintf(o, "# %ld more failed or partial while the agent they name was in a fault "
                    "below: the fault reproduces them, so they are no error rate\n",
                    ls->in_fault);
        if (a->min_msec > 0)
            fprintf(o, "# WARNING: query_log_min_msec = %lld: the log holds only queries slower "
                    "than that, so this trace's rate is too low and its times too slow\n",
                    a->min_msec);
        char log[PATH_MAX];
        path_for(a->log, a->out, log, sizeof log);
        fprintf(o, "workload {\n    arrivals = trace(%s)\n    duration = %llds\n", log,
                (long long)ceil(span) + 1);
        for (int k = 0; k < ls->ntables; k++) {
            const char *to = hk_cluster_find_table(cl, ls->tables[k]) ? NULL
                             : initlog_mapped(ls, ls->tables[k]);
            if (to)
                fprintf(o, "    table_map = %s=%s   # --table-map: the log's name for the "
                        "config's table\n", ls->tables[k], to);
            else if (!hk_cluster_find_table(cl, ls->tables[k]))
                fprintf(o, "    # the log's table '%s' is not in the config: its queries count "
                        "as unknown (--table-map LOG=CONFIG maps it)\n", ls->tables[k]);
        }
        fprintf(o, "}\n");
        return;
    }
    int t = 0;
    double rate = c ? status_rate(cl, c, &t) : -1;
    if (rate > 0 && in->ser)
        fprintf(o, "workload { arrivals = poisson(%.3f/s)  duration = %.0fs  table = %s }   # "
                "the healthy windows' attempts per second on the busiest table's first agent "
                "line, over the series' span\n", rate,
                ceil(in->ser->inc.end_s - floor(in->ser->inc.start_s)), cl->tables[t].name);
    else if (rate > 0)
        fprintf(o, "workload { arrivals = poisson(%.3f/s)  duration = 10m  table = %s }   # the "
                "status's attempts per second on the busiest table's first agent line\n", rate,
                cl->tables[t].name);
    else
        fprintf(o, "workload { arrivals = poisson(100/s)  duration = 10m  table = %s }   # a "
                "guess: give --log or --status for the real load\n", cl->tables[0].name);
}

/* Each host's ERROR bursts in the log as bounded faults, at seconds from the log's start. */
static void burst_faults(FILE *o, const hk_cluster *cl, const hk_calib_host *c, logsum *ls)
{
    for (int h = 0; h < cl->nhosts; h++) {
        evidence ev;
        evidence_of(cl, h, c, ls, NULL, &ev);
        for (int i = 0; i < ev.nburst; i++) {
            const initburst *b = &ev.burst[i];
            fprintf(o, "fault %s { at = %.3fs  for = %.3fs  kind = errors(%.4f) }   # the query "
                    "log: %.0f ERROR replies named it from %.0f s to %.0f s, of about %.0f "
                    "attempts (its share %.3f of the line's searches), beyond a 1%% noise rate "
                    "(binomial, P < 1e-6)\n", cl->hosts[h].name, b->from_s, b->to_s - b->from_s,
                    b->errors / b->attempts, b->errors, b->from_s, b->to_s, b->attempts,
                    ev.share);
        }
    }
}

/* The log's tables against the config, as hareal replay judges them: none served is refused
 * (expected --table-map), some not served are named; a --table-map to no table is refused. */
static int log_tables(const init_args *a, logsum *ls, const hk_cluster *cl)
{
    ls->tmap = a->tmap;
    ls->ntmap = a->ntmap;
    char names[512] = "", unserved[512];
    for (int t = 0; t < cl->ntables && strlen(names) + strlen(cl->tables[t].name) + 3 < sizeof names;
         t++)
        snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", t ? ", " : "",
                 cl->tables[t].name);
    for (int i = 0; i < a->ntmap; i++) {
        const char *to = strchr(a->tmap[i], '=') + 1;
        if (!hk_cluster_find_table(cl, to)) {
            fprintf(stderr, P ": --table-map %s: %s serves no distributed table '%s' (it has: "
                    "%s)\n", a->tmap[i], a->config, to, names);
            return HK_EXIT_INPUT;
        }
    }
    int served = initlog_tables_served(ls, cl, unserved, sizeof unserved);
    if (!served && ls->ntables) {
        fprintf(stderr, P ": %s: none of the log's tables (%s) is one %s serves (%s): expected "
                "--table-map LOG=CONFIG, or the log of this cluster\n", a->log, unserved,
                a->config, names);
        return HK_EXIT_INPUT;
    }
    if (unserved[0])
        fprintf(stderr, P ": warning: %s: the log's table(s) %s are not in %s: their queries "
                "count as unknown (--table-map LOG=CONFIG maps one)\n", a->log, unserved,
                a->config);
    return 0;
}

/* One input section: the file as the scenario names it, its size and digest now (and the
 * trace's first and last entry); -1 when it cannot be read. */
static int pin_one(FILE *o, const char *path, const char *name, const logsum *ls)
{
    unsigned long long d;
    long long size;
    hk_err e;
    if (hk_file_digest(path, &d, &size, &e) < 0) {
        hk_print_err(P, &e);
        return -1;
    }
    fprintf(o, "input %s { size = %lld  digest = fnv1a64:%016llx", name, size, d);
    if (ls) {
        char a[40], b[40];
        fprintf(o, "  first = %s  last = %s", hk_iso_format(ls->first_us, a, (int)sizeof a),
                hk_iso_format(ls->last_us, b, (int)sizeof b));
    }
    fprintf(o, " }\n");
    return 0;
}

/* The files the scenario reads, as init read them: a run refuses them changed (a rotated log
 * replays another phase) unless --allow-changed. */
static int pin_inputs(FILE *o, const init_args *a, const char *cfg, const logsum *ls)
{
    fprintf(o, "\n# The inputs as init read them: hasim refuses to run if one has changed since "
            "(a rotated log,\n# an edited config) unless --allow-changed.\n");
    if (pin_one(o, a->config, cfg, NULL) < 0)
        return -1;
    if (a->log) {
        char log[PATH_MAX];
        path_for(a->log, a->out, log, sizeof log);
        if (pin_one(o, a->log, log, ls) < 0)
            return -1;
    }
    return 0;
}

static int write_scenario(FILE *o, const init_args *a, const hk_cluster *cl, const init_in *in)
{
    const hk_calib_host *c = in->c;
    logsum *ls = in->ls;
    char cfg[PATH_MAX];
    path_for(a->config, a->out, cfg, sizeof cfg);
    fprintf(o, "# Written by `hasim init` from --config %s%s%s%s%s: a first model of this cluster.\n"
            "# Each mirror says where its numbers come from; 'a guess' marks what production did\n"
            "# not tell. Run it: build/hasim THIS.scn   (--variant all, --strategy all, or\n"
            "# build/hasim sweep THIS.scn --grid '...' to ask what-if questions).\n", a->config,
            a->status ? " --status " : "", a->status ? a->status : "", a->log ? " --log " : "",
            a->log ? a->log : "");
    char start[64] = "";
    if (a->log)
        snprintf(start, sizeof start, "  start = trace");
    else if (in->ser)
        snprintf(start, sizeof start, "  start = %.0f", floor(in->ser->inc.start_s));
    if (in->started_s >= 0)
        snprintf(start + strlen(start), sizeof start - strlen(start), "  started = %.0f",
                 floor(in->started_s));
    fprintf(o, "sim { config = %s  variant = %s  seed = 1%s }%s\n\n", cfg,
            hk_variant_get(a->var >= 0 ? a->var : HK_VAR_MANTICORE)->name, start,
            in->started_s >= 0 ? "   # started: searchd's last start in --searchd-log" : "");
    double t0 = 0, run = in->ser ? run_of(a, ls, in->ser, &t0) : 0;
    if (in->ser)
        initseries_timeline(o, in->ser, cl, t0);
    int missing = 0;
    linemixes cache = {.l = calloc((size_t)cl->nhosts + 1, sizeof(linemix))};
    if (!cache.l)
        return -1;
    for (int h = 0; h < cl->nhosts; h++) {
        evidence ev;
        evidence_of(cl, h, c, a->log ? ls : NULL, &cache, &ev);
        if ((c && c[h].found) || ev.fitted || ev.named)
            mirror_section(o, cl, h, c ? &c[h] : NULL, &ev);
        else
            missing++;
        if (ev.lm && ev.lm->mix.ks[ev.comp] > HK_FITMIX_POOR)
            fprintf(stderr, P ": warning: %s's own latency is a poor fit (KS distance %.3f of its "
                    "part of %s's times): its tail is uncertain\n", cl->hosts[h].name,
                    ev.lm->mix.ks[ev.comp], ev.line);
    }
    for (int i = 0; i < cache.n; i++)
        if (cache.l[i].ok && cache.l[i].mix.ks_mix > HK_FITMIX_POOR)
            fprintf(stderr, P ": warning: table %s, agent line %d: its mirrors' measured shares "
                    "and means fit its logged times poorly (KS distance %.3f): the shares or "
                    "means moved during the log, or a mirror's shape is neither lognormal nor "
                    "gamma\n", cl->tables[cache.l[i].t].name, cache.l[i].j + 1,
                    cache.l[i].mix.ks_mix);
    free(cache.l);
    int found = 0, idle = 0;
    for (int h = 0; c && h < cl->nhosts; h++) {
        found += c[h].found;
        idle += c[h].found && c[h].attempts < IDLE_MIN;
    }
    if (found && idle == found)
        fprintf(stderr, P ": warning: %s: an idle master: none of its %d hosts had %d timed "
                "searches in the status's window, so their latencies are guesses (save the "
                "status after it has served a load)\n", a->status, found, IDLE_MIN);
    if (missing)
        fprintf(o, "mirror default { service = lognormal(median=10ms, sigma=0.5) }   # a guess: "
                "%d host(s) %s\n", missing, c ? "not in the status" : "(no --status given)");
    fprintf(o, "\n");
    workload(o, a, cl, in);
    if (a->log)
        burst_faults(o, cl, c, ls);
    if (in->ser)
        initseries_faults(o, in->ser, cl, t0, run);
    if (pin_inputs(o, a, cfg, ls) < 0)
        return -1;
    return ferror(o) ? -1 : 0;
}

/* The variant the evidence says (--variant first; then the status: SHOW STATUS's version row,
 * its layout; then searchd's log), and why, on stderr; a->var set to it. */
static int variant_of(init_args *a, const hk_status_file *st, hk_err *e)
{
    char why[HK_EVVAR_WHY];
    a->var = hk_evvar_decide(a->var, st, a->searchd_log, HK_VAR_MANTICORE, "nothing in the "
                             "evidence says which searchd it is (the default; --variant to "
                             "choose)", why, sizeof why, e);
    if (a->var < 0)
        return -1;
    fprintf(stderr, P ": variant %s: %s\n", hk_variant_get(a->var)->name, why);
    return 0;
}

/* The config, read as the variant's searchd does (variant_of). */
static int load_cluster(init_args *a, const hk_status_file *st, hk_loaded *L, hk_err *e)
{
    if (variant_of(a, st, e) < 0)
        return -1;
    if (hk_tables_load(a->config, !a->no_exec, a->var, L, e) < 0)
        return -1;
    hk_print_warns(P, &L->warns);
    return 0;
}

/* query_log_min_msec of the config's searchd section (the tables' config, else the file's). */
static long long min_msec(const hk_loaded *L)
{
    const hk_conf *c = L->tables ? L->tables : L->conf;
    const hk_section *sec = hk_conf_find(c, "searchd", NULL);
    const hk_entry *e = sec ? hk_sec_last(sec, "query_log_min_msec") : NULL;
    long long v = 0;
    int bad;
    const char *what;
    return e && hk_int_parse(e->value, 0, 1LL << 40, &v, &bad, &what) == 0 ? v : 0;
}

/* The status: one file, or a series (its healthy windows summed stand for it). */
static int read_inputs(init_args *a, hk_status_file *st, initseries *ser, hk_loaded *L,
                       hk_err *e)
{
    char *buf = NULL;
    size_t len;
    int rc = 0;
    if (a->series)
        rc = initseries_read(a->snaps, a->nsnaps, ser, e);
    else if (a->status)
        rc = hk_file_read(a->status, &buf, &len, e) < 0 ? -1
             : hk_evvar_read_status(a->status, &buf, &len, st, e);
    free(buf);
    if (rc < 0)
        return -1;
    const hk_status_file *lay = a->series ? ser->snap[0].st : a->status ? st : NULL;
    if (load_cluster(a, lay, L, e) < 0 || !L->cl)
        return -1;
    return a->series ? initseries_build(ser, L->cl, e) : 0;
}

int hasim_init(int argc, char **argv)
{
    init_args a;
    int rc = parse(argc, argv, &a);
    if (rc) {
        free(a.snaps);
        return rc < 0 ? 0 : rc;
    }
    hk_err e;
    hk_status_file st = {0};
    hk_loaded L = {0};
    hk_calib_host *c = NULL;
    logsum ls = {0};
    initseries ser = {0};
    const hk_status_file *base = a.series ? &ser.inc.base : a.status ? &st : NULL;
    double started = -1;
    rc = HK_EXIT_INPUT;
    if (read_inputs(&a, &st, &ser, &L, &e) < 0 ||
        (a.log && initlog_read(a.log, a.series ? &ser.inc : NULL, L.cl, &ls, &e) < 0) ||
        (a.searchd_log && (a.log || a.series) && initstart_read(a.searchd_log, a.log ? (double)ls.first_us / 1e6
                                         : ser.inc.start_s, &started, &e) < 0)) {
        hk_print_err(P, &e);
    } else if (a.log && (rc = log_tables(&a, &ls, L.cl))) {
        /* said */
    } else if (base && hk_calib(base, L.cl, &c) < 0) {
        rc = HK_EXIT_RUN;
    } else if (base && (rc = hosts_in_common(a.status, a.series ? ser.snap[0].st : &st, L.cl,
                                             c))) {
        /* said */
    } else {
        if (a.series)
            initseries_sources(&ser, L.cl, c);
        else
            warn_short(L.cl, c);
        a.min_msec = min_msec(&L);
        if (a.log && a.min_msec > 0)
            fprintf(stderr, P ": note: %s logs only queries slower than query_log_min_msec = "
                    "%lld ms: the trace's rate is too low and its times too slow (the scenario "
                    "says so)\n", a.config, a.min_msec);
        init_in in = {.st = base, .c = c, .ls = &ls, .ser = a.series ? &ser : NULL,
                      .started_s = started};
        rc = write_out(&a, L.cl, &in);
        double t0 = 0, run = a.series ? run_of(&a, &ls, &ser, &t0) : 0;
        if (!rc && a.series)
            initseries_say(stdout, &ser, L.cl, t0, run);
    }
    initlog_free(&ls);
    initseries_free(&ser);
    free(c);
    free(a.snaps);
    hk_status_file_free(&st);
    hk_loaded_free(&L);
    return rc;
}
