/* rl_compare: `hareal live --compare-sim` — run hasim on the same scenario,
 * seed and duration, and print the real and simulated per-mirror shares and
 * latency percentiles side by side (compare.csv). */
#include "rl_compare.h"

#include "hk_ev.h"
#include "hk_report.h"


#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "hk_csv.h"
#include "hk_file.h"
#include "hk_grow.h"
#include "hk_strat.h"
#include "hk_variant.h"

/* What loopback adds to a real attempt beyond the simulated one (connect, a syscall or two,
 * the loop's wake-up), ms: above it, a real latency is not the scenario's. */
#define RL_LOOPBACK_MS 0.5
/* A share within this of the simulated one agrees (a 30 s run samples a share to a point or
 * two; the incident test holds windows to the same 5 points). */
#define RL_AGREE 0.05

/* The verdict's bounds: a difference is beyond sampling noise past RL_Z standard errors (0.1%
 * two-sided), and beyond the model's measured fidelity past its tolerance (shares: within 2
 * points of a real Sphinx 2.2.11 master; failures: 1 point). */
#define RL_Z 3.29
#define RL_SHARE_TOL 0.02
#define RL_FAILED_TOL 0.01
#define RL_QUANTILE_MIN 20       /* answers below which a mirror's p50/p99 is not judged */

/* key: table,agent,mirror as three CSV fields (libcsv's quoting where one needs it) */
typedef struct srow {
    char key[600], line[600];    /* line: table,agent */
    double share, p50, p99, failed, attempts;
    double *lat;                 /* real only: its answered latencies, ms, sorted */
    long nlat;
    int cap;
} srow;

static void make_key(char *key, size_t n, char **f, const int *c, int parts)
{
    hk_buf b;
    hk_buf_init(&b);
    for (int k = 0; k < parts; k++) {
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
    int c[8] = {hk_csv_column(f, nf, "table"), hk_csv_column(f, nf, "agent"),
                hk_csv_column(f, nf, "mirror"), hk_csv_column(f, nf, "share"),
                hk_csv_column(f, nf, "latency_p50_ms"), hk_csv_column(f, nf, "latency_p99_ms"),
                hk_csv_column(f, nf, "failed"), hk_csv_column(f, nf, "attempts")};
    while (rc == 1 && n < max && (rc = hk_csvr_next(&r, &f, &nf, &e)) == 1 && nf >= 11) {
        make_key(rows[n].key, sizeof rows[n].key, f, c, 3);
        make_key(rows[n].line, sizeof rows[n].line, f, c, 2);
        rows[n].attempts = c[7] >= 0 ? atof(f[c[7]]) : 0;
        rows[n].share = atof(f[c[3]]);
        rows[n].p50 = strcmp(f[c[4]], "n/a") ? atof(f[c[4]]) : NAN; /* never answered */
        rows[n].p99 = strcmp(f[c[5]], "n/a") ? atof(f[c[5]]) : NAN;
        rows[n].failed = c[6] >= 0 ? atof(f[c[6]]) : 0;
        n++;
    }
    hk_csvr_close(&r);
    return rc < 0 ? -1 : n;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The real run's answered latencies per mirror, from its queries.csv (one row per attempt);
 * none where it has no mirror column (a real searchd master's: its quantiles are not judged). */
static int read_latencies(const char *dir, srow *rows, int n)
{
    char p[1200], key[600];
    hk_csvr r;
    hk_err e;
    snprintf(p, sizeof p, "%s/queries.csv", dir);
    if (hk_csvr_open(&r, p, &e) < 0)
        return 0; /* no per-attempt rows yet: the quantiles are not judged */
    char **f;
    int nf, rc = hk_csvr_next(&r, &f, &nf, &e);
    int c[5] = {hk_csv_column(f, nf, "table"), hk_csv_column(f, nf, "agent"),
                hk_csv_column(f, nf, "mirror"), hk_csv_column(f, nf, "status"),
                hk_csv_column(f, nf, "latency_ms")};
    int have = c[0] >= 0 && c[1] >= 0 && c[2] >= 0 && c[3] >= 0 && c[4] >= 0;
    while (rc == 1 && have && (rc = hk_csvr_next(&r, &f, &nf, &e)) == 1) {
        if (nf <= c[0] || nf <= c[1] || nf <= c[2] || nf <= c[3] || nf <= c[4] ||
            strcmp(f[c[3]], hk_ev_name(HK_EV_SUCCESS)))
            continue;
        make_key(key, sizeof key, f, c, 3);
        for (int i = 0; i < n; i++) {
            srow *x = &rows[i];
            if (strcmp(x->key, key))
                continue;
            if (HK_GROW(x->lat, x->cap, x->nlat + 1) < 0) {
                hk_csvr_close(&r);
                return -1;
            }
            x->lat[x->nlat++] = atof(f[c[4]]);
            break;
        }
    }
    hk_csvr_close(&r);
    for (int i = 0; i < n; i++)
        if (rows[i].nlat)
            qsort(rows[i].lat, (size_t)rows[i].nlat, sizeof *rows[i].lat, by_value);
    return rc < 0 ? -1 : 0;
}

/* The attempts of the line of row i (its table and agent) in rows. */
static double line_attempts(const srow *rows, int n, int i)
{
    double t = 0;
    for (int j = 0; j < n; j++)
        t += strcmp(rows[j].line, rows[i].line) ? 0 : rows[j].attempts;
    return t;
}

/* Two proportions within tol + RL_Z standard errors of their difference. */
static double prop_bound(double a, double na, double b, double nb, double tol)
{
    double p = (a + b) / 2;
    return na > 0 && nb > 0 ? tol + RL_Z * sqrt(p * (1 - p) * (1 / na + 1 / nb)) : INFINITY;
}

/* The distribution-free interval of the q-quantile of sorted x (n values): the order
 * statistics RL_Z binomial standard deviations either side of rank n q. */
static void quantile_ci(const double *x, long n, double q, double *lo, double *hi)
{
    double sd = RL_Z * sqrt((double)n * q * (1 - q)), r = (double)n * q;
    long a = (long)floor(r - sd), b = (long)ceil(r + sd);
    *lo = x[a < 0 ? 0 : a >= n ? n - 1 : a];
    *hi = x[b < 0 ? 0 : b >= n ? n - 1 : b];
}

/* One judged figure: agrees (1), differs (0), or not judged (-1: too few answers, or none). */
typedef struct judged { int ok; double lo, hi; } judged;

static judged judge_quantile(const srow *r, double q, double sim)
{
    judged j = {.ok = -1, .lo = NAN, .hi = NAN};
    if (r->nlat < RL_QUANTILE_MIN || isnan(sim))
        return j;
    quantile_ci(r->lat, r->nlat, q, &j.lo, &j.hi);
    double slack = RL_LOOPBACK_MS + (j.hi - j.lo) / 2; /* the simulation samples as much */
    j.ok = sim >= j.lo - slack && sim <= j.hi + slack;
    return j;
}

static const char *yes_no(int ok) { return ok < 0 ? "n/a" : ok ? "yes" : "no"; }

/* What differs, in words, appended to w (the first few mirrors of each figure named). */
static void differ_words(hk_buf *w, const char *what, const char *list, int n)
{
    if (n)
        hk_buf_printf(w, "  %s differs on %d mirror(s): %s\n", what, n, list);
}

int rl_compare_sim(const char *self, const char *scenario, const char *dir, int strategy,
                   int64_t dur_us, uint64_t seed, int variant, hk_buf *table, hk_buf *verdict,
                   hk_err *err)
{
    char hasim[1100], simdir[1100], dur[32], seed_s[32];
    snprintf(hasim, sizeof hasim, "%s", self);
    char *slash = strrchr(hasim, '/');
    snprintf(slash ? slash + 1 : hasim, sizeof hasim - (size_t)(slash ? slash + 1 - hasim : 0),
             "hasim");
    snprintf(simdir, sizeof simdir, "%s/sim", dir);
    snprintf(dur, sizeof dur, "%.3fs", (double)dur_us / 1e6);
    snprintf(seed_s, sizeof seed_s, "%llu", (unsigned long long)seed);
    /* DIR/sim belongs to this run: a finished one there is the last run's, replaced */
    char *args[] = {hasim, (char *)scenario, "--out", simdir, "--force", "--duration", dur,
                    "--seed", seed_s, "--variant",
                    (char *)hk_variant_get((hk_variant_id)variant)->name, "--quiet", NULL, NULL,
                    NULL};
    if (strategy >= 0) {
        args[12] = "--strategy";
        args[13] = (char *)hk_strat_get(strategy)->name;
    }
    pid_t pid = fork();
    if (pid == 0) {
        execv(hasim, args);
        _exit(127);
    }
    int st = 0;
    if (pid < 0 || waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
        return hk_err_set(err, hasim, 0, 0, "the simulation of %s failed (its run is %s)",
                          scenario, simdir);
    srow *real = calloc(1024, sizeof *real), *sim = real ? real + 512 : NULL;
    if (!real)
        return hk_err_set(err, dir, 0, 0, "out of memory");
    char p[1200];
    snprintf(p, sizeof p, "%s/summary.csv", dir);
    int nr = read_summary(p, real, 512);
    snprintf(p, sizeof p, "%s/summary.csv", simdir);
    int ns = read_summary(p, sim, 512);
    hk_out co;
    if (nr < 0 || ns < 0) {
        free(real);
        return hk_err_set(err, p, 0, 0, "expected the runs' summary.csv files, readable");
    }
    if (hk_out_open(&co, dir, "compare.csv", err) < 0) {
        free(real);
        return -1;
    }
    if (read_latencies(dir, real, nr) < 0) {
        hk_out_abort(&co);
        free(real);
        snprintf(p, sizeof p, "%s/queries.csv", dir);
        return hk_err_set(err, p, 0, 0, "expected the real run's queries, readable");
    }
    fputs("table,agent,mirror,share_real,share_sim,p50_real_ms,p50_sim_ms,p99_real_ms,p99_sim_ms,"
          "failed_real,failed_sim,attempts_real,attempts_sim,share_bound,share_agrees,"
          "failed_pct_real,failed_pct_sim,failed_bound_pct,failed_agrees,p50_real_lo_ms,"
          "p50_real_hi_ms,p50_agrees,p99_real_lo_ms,p99_real_hi_ms,p99_agrees\n", co.f);
    char dl[4][600] = {"", "", "", ""};
    int nd[4] = {0, 0, 0, 0}, judged_q = 0;
    hk_buf *out = table;
    if (out)
        hk_buf_printf(out, "real vs simulated (%s):\n%-40s %10s %10s %10s %10s %10s %10s %8s %8s\n",
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
            hk_buf_printf(out, "%-40s %10.4f %10.4f %10.3f %10.3f %10.3f %10.3f %8.0f %8.0f\n",
                    real[i].key, real[i].share, ss, real[i].p50, s50, real[i].p99, s99,
                    real[i].failed, sf);
        char l[4][40];
        double sa = x ? x->attempts : 0, ra = real[i].attempts;
        double sb = prop_bound(real[i].share, line_attempts(real, nr, i), ss,
                               x ? line_attempts(sim, ns, (int)(x - sim)) : 0, RL_SHARE_TOL);
        double fr = ra > 0 ? real[i].failed / ra : NAN, fs = sa > 0 ? sf / sa : NAN;
        double fb = prop_bound(fr, ra, fs, sa, RL_FAILED_TOL);
        int share_ok = fabs(real[i].share - ss) <= sb;
        int failed_ok = isnan(fr) || isnan(fs) ? -1 : fabs(fr - fs) <= fb;
        judged q50 = judge_quantile(&real[i], 0.5, s50), q99 = judge_quantile(&real[i], 0.99, s99);
        judged_q += q50.ok >= 0;
        int oks[4] = {share_ok, failed_ok, q50.ok, q99.ok};
        char why[4][200];
        snprintf(why[0], sizeof why[0], "real %.1f%%, simulated %.1f%%, bound %.1f points",
                 100 * real[i].share, 100 * ss, 100 * sb);
        snprintf(why[1], sizeof why[1], "real %.2f%%, simulated %.2f%%, bound %.2f points",
                 100 * fr, 100 * fs, 100 * fb);
        snprintf(why[2], sizeof why[2], "simulated %.2f ms outside the real %.2f..%.2f ms", s50,
                 q50.lo, q50.hi);
        snprintf(why[3], sizeof why[3], "simulated %.2f ms outside the real %.2f..%.2f ms", s99,
                 q99.lo, q99.hi);
        for (int k = 0; k < 4; k++) {
            size_t o = strlen(dl[k]);
            if (oks[k] == 0 && nd[k]++ < 4)
                snprintf(dl[k] + o, sizeof dl[k] - o, "%s%s (%s)", o ? "; " : "", real[i].key,
                         why[k]);
        }
        char b[8][40];
        fprintf(co.f, "%s,%.6f,%.6f,%s,%s,%s,%s,%.0f,%.0f,%.0f,%.0f,%.6f,%s,%s,%s,%s,%s,%s,%s,"
                "%s,%s,%s,%s\n", real[i].key, real[i].share, ss, hk_rep_ms(real[i].p50, l[0], 40),
                hk_rep_ms(s50, l[1], 40), hk_rep_ms(real[i].p99, l[2], 40),
                hk_rep_ms(s99, l[3], 40), real[i].failed, sf, ra, sa, sb, yes_no(share_ok),
                hk_rep_ms(100 * fr, b[0], 40), hk_rep_ms(100 * fs, b[1], 40),
                hk_rep_ms(isfinite(fb) ? 100 * fb : NAN, b[2], 40), yes_no(failed_ok),
                hk_rep_ms(q50.lo, b[3], 40), hk_rep_ms(q50.hi, b[4], 40), yes_no(q50.ok),
                hk_rep_ms(q99.lo, b[5], 40), hk_rep_ms(q99.hi, b[6], 40), yes_no(q99.ok));
    }
    int bad = nd[0] + nd[1] + nd[2] + nd[3];
    hk_buf_printf(verdict, "%s (--compare-sim: the real run against hasim's %s): ",
                  bad ? "DISAGREEMENT" : "AGREEMENT", simdir);
    if (!bad)
        hk_buf_printf(verdict, "every mirror's share, failures, p50 and p99 agree within their "
                      "bounds (%d of %d mirrors had the %d answers a quantile is judged on)\n",
                      judged_q, nr, RL_QUANTILE_MIN);
    else {
        static const char *const name[4] = {"the shares", "the failure rates", "p50", "p99"};
        for (int k = 0, said = 0; k < 4; k++)
            if (nd[k])
                hk_buf_printf(verdict, "%s%s", said++ ? " and " : "", name[k]);
        hk_buf_printf(verdict, " differ beyond their bounds\n");
    }
    differ_words(verdict, "the share", dl[0], nd[0]);
    differ_words(verdict, "the failure rate", dl[1], nd[1]);
    differ_words(verdict, "p50", dl[2], nd[2]);
    differ_words(verdict, "p99", dl[3], nd[3]);
    hk_buf_printf(verdict, "  bounds: a share within %.0f points + %.2f standard errors of the two "
                  "runs' attempts; a failure rate within %.0f point + %.2f standard errors; p50 and "
                  "p99 within the real run's distribution-free interval (order statistics %.2f "
                  "binomial sd either side) widened by its half-width and %.1f ms of loopback; a "
                  "false alarm from sampling alone: about 0.1%% per figure\n",
                  100 * RL_SHARE_TOL, RL_Z, 100 * RL_FAILED_TOL, RL_Z, RL_Z, RL_LOOPBACK_MS);
    if (out && nr)
        hk_buf_printf(out, "%s: the largest share difference is %.1f points (%s)%s\n",
                worst <= RL_AGREE ? "agreement" : "DISAGREEMENT", 100 * worst, worst_key,
                worst <= RL_AGREE ? ", within the 5 points a live run is held to" :
                ": more than the 5 points a live run is held to; read both runs' report.txt");
    if (out && nslow)
        hk_buf_printf(out, "WARNING: real latencies exceed the simulated ones by more than loopback "
                "overhead (%.1f ms) on %d mirror(s): %s. This machine was busy or its timers are "
                "coarse: compare the shares, not the latencies\n", RL_LOOPBACK_MS, nslow, slow);
    if (out)
        hk_buf_printf(out, "%s", verdict->s ? verdict->s : "");
    for (int i = 0; i < nr; i++)
        free(real[i].lat);
    free(real);
    return hk_out_commit(&co, err);
}
