/* hkplot: re-plot an output folder of hasim or hareal, choosing what to draw:
 *   build/hkplot DIR [--lines T/A,...] [--mirrors H:P,...] [--master N] [--quiet]
 * (a --strategy/--variant all folder also re-plots each run). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "hk_cli.h"
#include "hk_csv.h"
#include "hk_plot.h"

static void usage(FILE *f)
{
    fprintf(f,
"usage: hkplot DIR [options]       draw an output folder of hasim or hareal again\n"
"  --lines LIST      the agent lines to draw, e.g. products/1,products/2 (default: those with\n"
"                    a fault, a finding or a deviant mirror, at most 4)\n"
"  --mirrors LIST    the mirrors to draw, e.g. box1:9312,box2:9312 (default: all, at most 12\n"
"                    a panel; the rest as 'others')\n"
"  --master N        the master whose view to draw (default 0)\n"
"  --quiet, --help, --version\n"
"files: DIR/plots/{convergence,shares,latency,queries}.{png,svg} (and strategies_*, compare\n"
"  where those CSVs exist), DIR/index.html\n"
"exit codes: 0 ok; 1 gnuplot missing or failing, or nothing to plot; 2 bad command line\n");
}

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
    hk_plot_sel sel = {"", "", -1};
    const char *dir = NULL;
    int quiet = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        long long m;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        }
        if (!strcmp(a, "--version")) {
            hk_cli_version("hkplot");
            return 0;
        }
        if (!strcmp(a, "--quiet")) {
            quiet = 1;
        } else if (a[0] != '-') {
            if (dir)
                return fprintf(stderr, "hkplot: one folder at a time; a second one: %s\n", a), 2;
            dir = a;
        } else if (!v || (strcmp(a, "--lines") && strcmp(a, "--mirrors") && strcmp(a, "--master"))) {
            fprintf(stderr, "hkplot: %s: %s (see hkplot --help)\n", v ? "unknown option"
                    : "option needs a value (or is unknown)", a);
            return 2;
        } else {
            i++;
            if (!strcmp(a, "--lines"))
                snprintf(sel.lines, sizeof sel.lines, "%s", v);
            else if (!strcmp(a, "--mirrors"))
                snprintf(sel.mirrors, sizeof sel.mirrors, "%s", v);
            else if (hk_cli_int("hkplot", a, v, 0, 1023, &m) < 0)
                return 2;
            else
                sel.master = (int)m;
        }
    }
    if (!dir) {
        fprintf(stderr, "hkplot: expected an output folder (see hkplot --help)\n");
        return 2;
    }
    char msg[512];
    int multi = plot_runs(dir, &sel, msg, sizeof msg);
    if (multi < 0 || hk_plot_run(dir, multi, &sel, msg, sizeof msg) < 0) {
        fprintf(stderr, "hkplot: %s\n", msg);
        return 1;
    }
    if (!quiet)
        printf("plots: %s/plots/ (open %s/index.html)\n", dir, dir);
    return 0;
}
