/* hasim_merge: `hasim merge DIR... --out DIR` — the shard folders of one sweep (hasim sweep
 * --shard K/N, slurm or k8s) made one: the same sweep.csv, report.txt, index.html and
 * recommendation.json as one process. Nothing is trusted: each shard must have finished,
 * each point file's seal and every row are checked (sweep_out). */
#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "hasim.h"
#include "hk_rundir.h"
#include "sweep_grid.h"
#include "sweep_out.h"

#define W "hasim merge"
#define MAXDIRS 1024

typedef struct merge_args {
    const char *out;
    int quiet, force;
} merge_args;

#define A(f) offsetof(merge_args, f)
static const hk_opt merge_opts[] = {
    HK_OPT_OUT(A(out), "DIR", "where the merged sweep goes"),
    HK_OPT_FORCE(A(force), "replace a finished run in --out"),
    HK_OPT_QUIET(A(quiet), HK_QUIET_HELP),
    {0}};
#undef A

static const hk_cmd merge_cmd = {
    .prog = W,
    .usage = "DIR... --out DIR [options]",
    .about = "Combines the shard folders of one sweep into one. A shard that did not finish, a\n"
             "missing, extra, duplicated, truncated or corrupted point is refused, named.",
    .sets = {{merge_opts, 0}},
    .min_args = 1,
    .max_args = MAXDIRS,
    .args = "the shard folders (DIR...)"
};

/* The shards' common sweep.meta into m; 0 or an exit code (said). */
static int same_sweep(const char **dirs, int nd, sweep_meta *m)
{
    sweep_meta m2;
    hk_err e;
    for (int d = 0; d < nd; d++)
        if (!hk_rundir_finished(dirs[d])) {
            fprintf(stderr, W ": %s: the sweep there did not finish (it was stopped or failed): "
                    "run that shard again\n", dirs[d]);
            return HK_EXIT_INPUT;
        }
    for (int d = 0; d < nd; d++) {
        if (sweep_meta_read(dirs[d], d ? &m2 : m, &e) < 0) {
            hk_print_err(W, &e);
            return HK_EXIT_INPUT;
        }
        char why[1200];
        if (d && (sweep_meta_diff(m, &m2, why, sizeof why) < 0 || memcmp(m, &m2, sizeof m2))) {
            fprintf(stderr, W ": %s and %s are not shards of one sweep: %s\n", dirs[0], dirs[d],
                    sweep_meta_diff(m, &m2, why, sizeof why) < 0 ? why : "their bound grids "
                    "differ");
            return HK_EXIT_INPUT;
        }
    }
    return 0;
}

/* p's real path into out, its part that does not exist yet (a new --out) kept as written. */
static int real_of(const char *p, char *out)
{
    char head[PATH_MAX], tail[PATH_MAX] = "", t[PATH_MAX];
    snprintf(head, sizeof head, "%s", p);
    while (!realpath(head, out)) {
        if (!strcmp(head, ".") || !strcmp(head, "/"))
            return -1;
        char *slash = strrchr(head, '/');
        if (snprintf(t, sizeof t, "/%s%s", slash ? slash + 1 : head, tail) >= (int)sizeof t)
            return -1;
        memcpy(tail, t, sizeof tail);
        if (!slash)
            snprintf(head, sizeof head, ".");
        else if (slash == head)
            snprintf(head, sizeof head, "/");
        else
            *slash = '\0';
    }
    size_t n = strlen(out);
    snprintf(out + n, PATH_MAX - n, "%s", tail);
    return 0;
}

/* 1 when a and b are one folder, or one holds the other (compared by their real paths). */
static int overlaps(const char *a, const char *b)
{
    char ra[PATH_MAX], rb[PATH_MAX];
    if (real_of(a, ra) < 0 || !realpath(b, rb))
        return 0;
    size_t na = strlen(ra), nb = strlen(rb), n = na < nb ? na : nb;
    return !strncmp(ra, rb, n) && (ra[n] == '/' || ra[n] == '\0') && (rb[n] == '/' || !rb[n]);
}

int hasim_merge(int argc, char **argv)
{
    merge_args a = {0};
    const char *dirs[MAXDIRS];
    int nd, rc = hk_cmd_parse(&merge_cmd, argc, argv, &a, dirs, &nd);
    if (rc)
        return rc < 0 ? 0 : rc;
    if (!a.out)
        return hk_cmd_bad(&merge_cmd, "expected --out DIR");
    for (int d = 0; d < nd; d++)
        if (overlaps(a.out, dirs[d])) {
            fprintf(stderr, W ": --out %s is the shard %s, or holds it or lies in it: expected "
                    "an output apart from every input (exit %d)\n", a.out, dirs[d],
                    HK_EXIT_INPUT);
            return HK_EXIT_INPUT;
        }
    sweep_meta m;
    if ((rc = same_sweep(dirs, nd, &m)) != 0)
        return rc;
    sweep_grid g;
    char msg[400];
    if (sweep_grid_parse(m.grid, &g, msg, sizeof msg) < 0) {
        fprintf(stderr, W ": %s/sweep.meta: grid: %s\n", dirs[0], msg);
        return HK_EXIT_INPUT;
    }
    sweep_grid_from_meta(&g, &m); /* the bound figures: no scenario needed to rank shards */
    hk_rundir rd;
    hk_err e;
    if (hk_rundir_open(&rd, a.out, W, a.force, &e) < 0) {
        hk_print_err(W, &e);
        return HK_EXIT_USAGE;
    }
    int frc = sweep_meta_write(a.out, &m, &e);
    if (frc == 0)
        frc = sweep_finish(dirs, nd, a.out, &m, &g, a.quiet ? NULL : stdout, &e);
    if (frc < 0 || hk_rundir_done(&rd, &e) < 0) {
        hk_rundir_abort(&rd); /* a failed merge leaves no sweep.meta behind */
        hk_print_err(W, &e);
        return frc == SWEEP_EPOINTS ? HK_EXIT_INPUT : HK_EXIT_RUN;
    }
    if (!a.quiet)
        printf("files: %s/\n", a.out);
    return 0;
}
