/* hkplot: re-plot an output folder of hasim (or hareal) later:
 *   build/hkplot DIR     (a --strategy all folder also re-plots each run) */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "hk_csv.h"
#include "hk_plot.h"

static int plot_runs(const char *dir, char *msg, int n)
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
        if (hk_plot_run(sub, 0, NULL, msg, n) < 0) {
            rc = -1;
            break;
        }
    }
    hk_csvr_close(&r);
    return rc < 0 ? -1 : 1;
}

int main(int argc, char **argv)
{
    if (argc != 2 || argv[1][0] == '-') {
        fprintf(stderr, "usage: hkplot DIR   (an output folder of hasim or hareal)\n");
        return 2;
    }
    char msg[512];
    int multi = plot_runs(argv[1], msg, sizeof msg);
    if (multi < 0 || hk_plot_run(argv[1], multi, NULL, msg, sizeof msg) < 0) {
        fprintf(stderr, "hkplot: %s\n", msg);
        return 1;
    }
    printf("plots: %s/plots/ (open %s/index.html)\n", argv[1], argv[1]);
    return 0;
}
