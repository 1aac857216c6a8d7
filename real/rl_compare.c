/* rl_compare: `hareal live --compare-sim` — run hasim on the same scenario,
 * seed and duration, and print the real and simulated per-mirror shares and
 * latency percentiles side by side (compare.csv). */
#include "rl_compare.h"

#include "hk_report.h"


#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "hk_csv.h"
#include "hk_file.h"
#include "hk_strat.h"
#include "hk_variant.h"

/* What loopback adds to a real attempt beyond the simulated one (connect, a syscall or two,
 * the loop's wake-up), ms: above it, a real latency is not the scenario's. */
#define RL_LOOPBACK_MS 0.5
/* A share within this of the simulated one agrees (a 30 s run samples a share to a point or
 * two; the incident test holds windows to the same 5 points). */
#define RL_AGREE 0.05

/* key: table,agent,mirror as three CSV fields (libcsv's quoting where one needs it) */
typedef struct srow { char key[600]; double share, p50, p99, failed; } srow;

static void make_key(char *key, size_t n, char **f, const int *c)
{
    hk_buf b;
    hk_buf_init(&b);
    for (int k = 0; k < 3; k++) {
        if (k)
            hk_buf_put(&b, ",", 1);
        hk_csv_put(&b, f[c[k]]);
    }
    snprintf(key, n, "%.*s", b.oom ? 0 : (int)b.len, b.s ? b.s : "");
    hk_buf_free(&b);
}

static int read_summary(const char *path, srow *rows, int max)
{
    hk_csvr r;
    hk_err e;
    if (hk_csvr_open(&r, path, &e) < 0)
        return -1;
    char **f;
    int nf, n = 0, rc = hk_csvr_next(&r, &f, &nf, &e);
    int c[7] = {hk_csv_column(f, nf, "table"), hk_csv_column(f, nf, "agent"),
                hk_csv_column(f, nf, "mirror"), hk_csv_column(f, nf, "share"),
                hk_csv_column(f, nf, "latency_p50_ms"), hk_csv_column(f, nf, "latency_p99_ms"),
                hk_csv_column(f, nf, "failed")};
    while (rc == 1 && n < max && (rc = hk_csvr_next(&r, &f, &nf, &e)) == 1 && nf >= 11) {
        make_key(rows[n].key, sizeof rows[n].key, f, c);
        rows[n].share = atof(f[c[3]]);
        rows[n].p50 = strcmp(f[c[4]], "n/a") ? atof(f[c[4]]) : NAN; /* never answered */
        rows[n].p99 = strcmp(f[c[5]], "n/a") ? atof(f[c[5]]) : NAN;
        rows[n].failed = c[6] >= 0 ? atof(f[c[6]]) : 0;
        n++;
    }
    hk_csvr_close(&r);
    return rc < 0 ? -1 : n;
}

int rl_compare_sim(const char *self, const char *scenario, const char *dir, int strategy,
                   int quiet, int64_t dur_us, uint64_t seed, int variant)
{
    char hasim[1100], simdir[1100], dur[32], seed_s[32];
    snprintf(hasim, sizeof hasim, "%s", self);
    char *slash = strrchr(hasim, '/');
    snprintf(slash ? slash + 1 : hasim, sizeof hasim - (size_t)(slash ? slash + 1 - hasim : 0),
             "hasim");
    snprintf(simdir, sizeof simdir, "%s/sim", dir);
    snprintf(dur, sizeof dur, "%.3fs", (double)dur_us / 1e6);
    snprintf(seed_s, sizeof seed_s, "%llu", (unsigned long long)seed);
    char *args[] = {hasim, (char *)scenario, "--out", simdir, "--duration", dur, "--seed",
                    seed_s, "--variant", (char *)hk_variant_get((hk_variant_id)variant)->name,
                    "--quiet", NULL, NULL, NULL};
    if (strategy >= 0) {
        args[11] = "--strategy";
        args[12] = (char *)hk_strat_get(strategy)->name;
    }
    pid_t pid = fork();
    if (pid == 0) {
        execv(hasim, args);
        _exit(127);
    }
    int st = 0;
    if (pid < 0 || waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        fprintf(stderr, "hareal live: --compare-sim: %s failed\n", hasim);
        return -1;
    }
    srow *real = calloc(1024, sizeof *real), *sim = real ? real + 512 : NULL;
    if (!real)
        return -1;
    char p[1200];
    snprintf(p, sizeof p, "%s/summary.csv", dir);
    int nr = read_summary(p, real, 512);
    snprintf(p, sizeof p, "%s/summary.csv", simdir);
    int ns = read_summary(p, sim, 512);
    hk_out co;
    hk_err e;
    if (nr < 0 || ns < 0 || hk_out_open(&co, dir, "compare.csv", &e) < 0) {
        fprintf(stderr, "hareal live: --compare-sim: cannot read the summaries or write compare.csv\n");
        free(real);
        return -1;
    }
    fputs("table,agent,mirror,share_real,share_sim,p50_real_ms,p50_sim_ms,p99_real_ms,p99_sim_ms,"
          "failed_real,failed_sim\n", co.f);
    FILE *out = quiet ? NULL : stdout;
    if (out)
        fprintf(out, "real vs simulated (%s):\n%-40s %10s %10s %10s %10s %10s %10s %8s %8s\n",
                simdir, "table,agent,mirror", "share", "sim", "p50_ms", "sim", "p99_ms", "sim",
                "failed", "sim");
    char slow[600] = "", worst_key[600] = "";
    double worst = 0;
    int nslow = 0;
    for (int i = 0; i < nr; i++) {
        const srow *x = NULL;
        for (int j = 0; j < ns; j++)
            if (!strcmp(sim[j].key, real[i].key))
                x = &sim[j];
        double ss = x ? x->share : 0, s50 = x ? x->p50 : 0, s99 = x ? x->p99 : 0;
        double sf = x ? x->failed : 0;
        if (fabs(real[i].share - ss) > worst) {
            worst = fabs(real[i].share - ss);
            snprintf(worst_key, sizeof worst_key, "%s", real[i].key);
        }
        if (x && real[i].p50 > s50 + RL_LOOPBACK_MS && real[i].p50 > 1.5 * s50 &&
            strlen(slow) < sizeof slow - 120)
            snprintf(slow + strlen(slow), sizeof slow - strlen(slow), "%s%s p50 %.2f ms real vs "
                     "%.2f simulated", nslow++ ? "; " : "", real[i].key, real[i].p50, s50);
        if (out)
            fprintf(out, "%-40s %10.4f %10.4f %10.3f %10.3f %10.3f %10.3f %8.0f %8.0f\n",
                    real[i].key, real[i].share, ss, real[i].p50, s50, real[i].p99, s99,
                    real[i].failed, sf);
        char l[4][40];
        fprintf(co.f, "%s,%.6f,%.6f,%s,%s,%s,%s,%.0f,%.0f\n", real[i].key, real[i].share, ss,
                hk_rep_ms(real[i].p50, l[0], 40), hk_rep_ms(s50, l[1], 40),
                hk_rep_ms(real[i].p99, l[2], 40), hk_rep_ms(s99, l[3], 40), real[i].failed, sf);
    }
    if (out && nr)
        fprintf(out, "%s: the largest share difference is %.1f points (%s)%s\n",
                worst <= RL_AGREE ? "agreement" : "DISAGREEMENT", 100 * worst, worst_key,
                worst <= RL_AGREE ? ", within the 5 points a live run is held to" :
                ": more than the 5 points a live run is held to; read both runs' report.txt");
    if (out && nslow)
        fprintf(out, "WARNING: real latencies exceed the simulated ones by more than loopback "
                "overhead (%.1f ms) on %d mirror(s): %s. This machine was busy or its timers are "
                "coarse: compare the shares, not the latencies\n", RL_LOOPBACK_MS, nslow, slow);
    free(real);
    return hk_out_commit(&co, &e);
}
