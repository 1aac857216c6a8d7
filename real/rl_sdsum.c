/* rl_sdsum: the per-mirror summary of a live run whose master is a real searchd. searchd does
 * not say which mirror it chose for a query, so the mirrors say what they received (their own
 * query logs, one per start: a `down` fault restarts a mirror), and searchd's warnings and
 * errors, which name the agent, say what failed; a connect that failed never reached the
 * mirror, so it counts as an attempt of its own. Written as summary.csv in the columns of
 * hakarma's own runs, so --compare-sim reads both alike. */
#include "rl_sdsum.h"

#include <math.h>

#include "hk_report.h"

#include <stdlib.h>
#include <string.h>
#include "hk_csv.h"
#include "hk_hist.h"

typedef struct slot {            /* one mirror of one agent line */
    int table, line, host;
    const char *ix;              /* its index list */
    uint64_t received;
    hk_hist lat;                 /* the mirror's own delay for what it answered, µs */
    uint64_t att, failed, line_total;   /* from totals() */
} slot;

static int read_log(const char *path, slot *sl, int ns, int host, int only, hk_err *e)
{
    hk_csvr r;
    if (hk_csvr_open(&r, path, e) < 0)
        return 0;                /* no such start */
    char **f;
    int nf, rc = hk_csvr_next(&r, &f, &nf, e);
    int ci = rc == 1 ? hk_csv_column(f, nf, "index") : -1;
    int cd = rc == 1 ? hk_csv_column(f, nf, "delay_ms") : -1;
    int co = rc == 1 ? hk_csv_column(f, nf, "outcome") : -1;
    while (rc == 1 && ci >= 0 && cd >= 0 && co >= 0 && (rc = hk_csvr_next(&r, &f, &nf, e)) == 1) {
        if (nf <= ci || nf <= cd || nf <= co)
            continue;
        for (int i = 0; i < ns; i++) {
            if (sl[i].host != host || (!only && strcmp(sl[i].ix, f[ci])))
                continue;
            sl[i].received++;
            if (!strcmp(f[co], "ok") || !strcmp(f[co], "warning"))
                hk_hist_add_any(&sl[i].lat, atof(f[cd]) * 1000.0);
            break;
        }
    }
    hk_csvr_close(&r);
    return rc < 0 ? -1 : 1;
}

static int slots_of(const hk_cluster *cl, slot **out)
{
    int n = 0;
    for (int t = 0; t < cl->ntables; t++)
        for (int l = 0; l < cl->tables[t].nlines; l++)
            n += cl->tables[t].lines[l].a.n;
    slot *sl = calloc((size_t)n + 1, sizeof *sl);
    if (!sl)
        return -1;
    int k = 0;
    for (int t = 0; t < cl->ntables; t++)
        for (int l = 0; l < cl->tables[t].nlines; l++) {
            const hk_line_conf *lc = &cl->tables[t].lines[l];
            for (int m = 0; m < lc->a.n; m++) {
                sl[k] = (slot){.table = t, .line = l, .host = lc->host[m],
                               .ix = lc->a.m[m].indexes ? lc->a.m[m].indexes : cl->tables[t].name};
                k++;
            }
        }
    *out = sl;
    return n;
}

/* Each slot's attempts and failures, and its line's attempts. searchd's messages name the
 * host, not the line: a host's failures are charged to its first line. */
static void totals(slot *sl, int ns, const rl_sdsum_in *in)
{
    for (int i = 0; i < ns; i++) {
        int first_of_host = 1;
        for (int j = 0; j < i && first_of_host; j++)
            first_of_host = sl[j].host != sl[i].host;
        uint64_t fc = first_of_host ? in->fail_connect[sl[i].host] : 0;
        sl[i].att = sl[i].received + fc;
        sl[i].failed = fc + (first_of_host ? in->fail_query[sl[i].host] : 0);
    }
    for (int i = 0; i < ns; i++) {
        sl[i].line_total = 0;
        for (int j = 0; j < ns; j++)
            if (sl[j].table == sl[i].table && sl[j].line == sl[i].line)
                sl[i].line_total += sl[j].att;
    }
}

static double share(const slot *x)
{
    return x->line_total ? (double)x->att / (double)x->line_total : 0.0;
}

static void write_rows(FILE *f, const hk_cluster *cl, const slot *sl, int ns)
{
    fputs("table,agent,mirror,attempts,share,failed,latency_mean_ms,latency_p50_ms,"
          "latency_p95_ms,latency_p99_ms,latency_p999_ms\n", f);
    for (int i = 0; i < ns; i++) {
        const hk_hist *h = &sl[i].lat;
        char v[9][40];
        snprintf(v[0], sizeof v[0], "%d", sl[i].line + 1);
        snprintf(v[1], sizeof v[1], "%llu", (unsigned long long)sl[i].att);
        snprintf(v[2], sizeof v[2], "%.6f", share(&sl[i]));
        snprintf(v[3], sizeof v[3], "%llu", (unsigned long long)sl[i].failed);
        hk_rep_ms(h->n ? hk_hist_mean(h) / 1e3 : NAN, v[4], sizeof v[4]); /* none: n/a */
        static const double q[4] = {0.5, 0.95, 0.99, 0.999};
        for (int k = 0; k < 4; k++)
            hk_rep_ms(h->n ? hk_hist_quantile(h, q[k]) / 1e3 : NAN, v[5 + k], sizeof v[5 + k]);
        hk_csv_str(f, cl->tables[sl[i].table].name, 1);
        hk_csv_str(f, v[0], 0);
        hk_csv_str(f, cl->hosts[sl[i].host].name, 0);
        for (int k = 1; k < 9; k++)
            hk_csv_str(f, v[k], 0);
        hk_csv_end(f);
    }
}

/* Each line's mirrors in words: share (attempts), failures, p50 of what it answered. */
static void say(FILE *f, const hk_cluster *cl, const slot *sl, int ns)
{
    for (int i = 0; i < ns; i++) {
        if (i == 0 || sl[i].table != sl[i - 1].table || sl[i].line != sl[i - 1].line)
            fprintf(f, "%s line %d (what the mirrors received, with the connects that failed):\n",
                    cl->tables[sl[i].table].name, sl[i].line + 1);
        fprintf(f, "  %-28s %6.1f %%  %8llu attempts  %6llu failed  p50 %.3f ms\n",
                cl->hosts[sl[i].host].name, 100.0 * share(&sl[i]), (unsigned long long)sl[i].att,
                (unsigned long long)sl[i].failed,
                sl[i].lat.n ? hk_hist_quantile(&sl[i].lat, 0.5) / 1e3 : 0.0);
    }
}

int rl_sdsum_write(const rl_sdsum_in *in, hk_err *e)
{
    const hk_cluster *cl = in->s->cl;
    slot *sl = NULL;
    int ns = slots_of(cl, &sl), rc = ns < 0 ? -1 : 0;
    for (int h = 0; rc == 0 && h < cl->nhosts; h++)
        for (int k = 0; rc == 0 && k < in->starts[h]; k++) {
            char p[1200];
            snprintf(p, sizeof p, "%s/mirror-%d.%d.csv", in->logdir, h, k);
            rc = read_log(p, sl, ns, h, cl->hosts[h].refs == 1, e) < 0 ? -1 : 0;
        }
    if (rc == 0)
        totals(sl, ns, in);
    hk_out o;
    if (rc == 0 && (rc = hk_out_open(&o, in->dir, "summary.csv", e)) == 0) {
        write_rows(o.f, cl, sl, ns);
        rc = hk_out_commit(&o, e);
    }
    for (int k = 0; rc == 0 && k < 2; k++)
        if (in->say[k])
            say(in->say[k], cl, sl, ns);
    for (int i = 0; i < ns; i++)
        hk_hist_free(&sl[i].lat);
    free(sl);
    return rc;
}
