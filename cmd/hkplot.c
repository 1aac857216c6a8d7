/* hkplot: re-plot an output folder of hasim or hareal, choosing what to draw (a comparison
 * folder also re-plots each run). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <stddef.h>
#include "hk_cmd.h"
#include "hk_csv.h"
#include "hk_plot.h"

typedef struct plot_args {
    hk_plot_sel sel;
    int quiet;
} plot_args;

static int opt_sel(void *set, const char *prog, const char *opt, const char *v)
{
    hk_plot_sel *sel = &((plot_args *)set)->sel;
    long long m;
    if (!strcmp(opt, "--lines"))
        snprintf(sel->lines, sizeof sel->lines, "%s", v);
    else if (!strcmp(opt, "--mirrors"))
        snprintf(sel->mirrors, sizeof sel->mirrors, "%s", v);
    else if (hk_cmd_int(prog, opt, v, 0, 1023, &m) < 0)
        return -1;
    else
        sel->master = (int)m;
    return 0;
}

static const hk_opt plot_opts[] = {
    {.name = "lines", .arg = "LIST", .kind = HK_OPT_FN, .fn = opt_sel,
     .help = "the agent lines to draw, e.g. products/1,products/2 (default: those\n"
             "with a fault, a finding or a deviant mirror, at most 4)"},
    {.name = "mirrors", .arg = "LIST", .kind = HK_OPT_FN, .fn = opt_sel,
     .help = "the mirrors to draw, e.g. box1:9312,box2:9312 (default: all, at most\n"
             "12 a panel; the rest as 'others')"},
    {.name = "master", .arg = "N", .kind = HK_OPT_FN, .fn = opt_sel,
     .help = "the master whose view to draw (default 0)"},
    HK_OPT_QUIET(offsetof(plot_args, quiet), HK_QUIET_HELP),
    {0}};

static const hk_cmd plot_cmd = {
    .prog = "hkplot",
    .usage = "DIR [options]",
    .about = "Draws an output folder of hasim or hareal again (a comparison folder: each run's\n"
             "too), choosing what to draw.",
    .sets = {{plot_opts, 0}},
    .min_args = 1,
    .max_args = 1,
    .args = "an output folder",
    .tail = "files: DIR/plots/{convergence,shares,latency,queries}.{png,svg} (and strategies_*,\n"
            "  compare where those CSVs exist), DIR/index.html; gnuplot missing or failing, or\n"
            "  nothing to plot: exit 1\n"
};

static int plot_runs(const char *dir, const hk_plot_sel *sel, char *msg, int n)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/strategies.csv", dir);
    hk_csvr r;
    hk_err e;
    if (hk_csvr_open(&r, path, &e) < 0)
        return 0;
    char **f;
    int nf, rc = hk_csvr_next(&r, &f, &nf, &e), col = rc == 1 ? hk_csv_column(f, nf, "dir") : -1;
    while (rc == 1 && col >= 0 && (rc = hk_csvr_next(&r, &f, &nf, &e)) == 1) {
        char sub[1200];
        snprintf(sub, sizeof sub, "%s/%s", dir, f[col]);
        if (hk_plot_run(sub, 0, sel, msg, n) < 0) {
            rc = -1;
            break;
        }
    }
    hk_csvr_close(&r);
    return rc < 0 ? -1 : 1;
}

int main(int argc, char **argv)
{
    plot_args a = {.sel = {.master = -1}};
    const char *dir;
    int npos, rc = hk_cmd_parse(&plot_cmd, argc, argv, &a, &dir, &npos);
    if (rc)
        return rc < 0 ? 0 : rc;
    char msg[512];
    int multi = plot_runs(dir, &a.sel, msg, sizeof msg);
    if (multi < 0 || hk_plot_run(dir, multi, &a.sel, msg, sizeof msg) < 0) {
        fprintf(stderr, "hkplot: %s\n", msg);
        return HK_EXIT_RUN;
    }
    if (!a.quiet)
        printf("plots: %s/plots/ (open %s/index.html)\n", dir, dir);
    return 0;
}
