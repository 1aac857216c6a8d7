/* hk_report: shared output rows and SHOW AGENT STATUS text. */
#include "hk_report.h"

#include <math.h>

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "hk_csv.h"
#include "hk_file.h"
#include "hk_status.h"

static double ms(double us) { return us / 1000.0; }

void hk_rep_periods_header(FILE *f)
{
    fputs("period,t_start_s,master,table,agent,mirror,probability,weight,queries,errors,alive,"
          "latency_mean_ms,latency_p99_ms\n", f);
}

void hk_rep_period_row(FILE *f, int period, double t_start_s, int master, const char *table,
                       int agent, const char *mirror, double prob, double weight, uint64_t q,
                       uint64_t err, int alive, const hk_hist *lat)
{
    fprintf(f, "%d,%.3f,%d,", period, t_start_s, master);
    hk_csv_str(f, table, 1);
    fprintf(f, ",%d,", agent);
    hk_csv_str(f, mirror, 1);
    fprintf(f, ",%.6f,%.4f,%" PRIu64 ",%" PRIu64 ",%d,%.3f,%.3f\n", prob, weight, q, err, alive,
            ms(hk_hist_mean(lat)), ms(hk_hist_quantile(lat, 0.99)));
}

void hk_rep_latency_header(FILE *f)
{
    fputs("period,t_start_s,queries,ok,partial,failed,latency_mean_ms,latency_p50_ms,"
          "latency_p99_ms\n", f);
}

void hk_rep_latency_row(FILE *f, int period, double t_start_s, uint64_t ok, uint64_t partial,
                        uint64_t failed, const hk_hist *h)
{
    fprintf(f, "%d,%.3f,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%.3f,%.3f,%.3f\n", period,
            t_start_s, ok + partial + failed, ok, partial, failed, ms(hk_hist_mean(h)),
            ms(hk_hist_quantile(h, 0.5)), ms(hk_hist_quantile(h, 0.99)));
}

void hk_rep_queries_header(FILE *f)
{
    fputs("id,t_sched_s,t_sent_s,table,agent,mirror,attempts,status,latency_ms\n", f);
}

void hk_rep_query_row(FILE *f, uint64_t id, double t_sched_s, double t_sent_s, const char *table,
                      int agent, const char *mirror, int attempts, const char *status,
                      double latency_ms)
{
    fprintf(f, "%" PRIu64 ",%.6f,%.6f,", id, t_sched_s, t_sent_s);
    hk_csv_str(f, table, 1);
    fprintf(f, ",%d,", agent);
    hk_csv_str(f, mirror, 1);
    fprintf(f, ",%d,%s,%.3f\n", attempts, status, latency_ms);
}

/* Share of each row within its agent line. */
static double share_of(const hk_rep_row *rows, int n, int i)
{
    int b = i, e = i;
    while (b > 0 && rows[b - 1].agent == rows[i].agent && !strcmp(rows[b - 1].table, rows[i].table))
        b--;
    while (e + 1 < n && rows[e + 1].agent == rows[i].agent && !strcmp(rows[e + 1].table, rows[i].table))
        e++;
    uint64_t sum = 0;
    for (int k = b; k <= e; k++)
        sum += rows[k].q;
    return sum ? (double)rows[i].q / (double)sum : 0.0;
}

static int row_is(const hk_rep_row *r, const hk_cluster *cl, int t, int line, int host)
{
    return (t < 0 || (t < cl->ntables && !strcmp(r->table, cl->tables[t].name))) &&
           (line < 0 || r->agent == line + 1) &&
           (host < 0 || (host < cl->nhosts && !strcmp(r->mirror, cl->hosts[host].name)));
}

void hk_rep_mark(hk_rep_row *rows, int n, const hk_scn *s, const hk_findings *fd)
{
    for (int i = 0; s && i < n; i++) {
        for (int k = 0; k < s->nfaults && !rows[i].keep; k++)
            rows[i].keep = row_is(&rows[i], s->cl, -1, -1, s->faults[k].host);
        for (int k = 0; fd && k < fd->n && !rows[i].keep; k++) {
            const hk_finding *f = &fd->f[k];
            rows[i].keep = (f->table >= 0 || f->host >= 0) &&
                           row_is(&rows[i], s->cl, f->table, f->table >= 0 ? f->line : -1,
                                  f->host);
        }
    }
}

hk_rep_row *hk_rep_rows(const hk_ledger *L, int *n)
{
    const hk_cluster *cl = L->cl;
    *n = 0;
    for (int t = 0; t < cl->ntables; t++)
        for (int k = 0; k < cl->tables[t].nlines; k++)
            *n += cl->tables[t].lines[k].a.n;
    hk_rep_row *r = calloc((size_t)*n + 1, sizeof *r);
    for (int t = 0, i = 0; r && t < cl->ntables; t++)
        for (int k = 0; k < cl->tables[t].nlines; k++) {
            const hk_line_conf *lc = &cl->tables[t].lines[k];
            for (int j = 0; j < lc->a.n; j++, i++) {
                const hk_ltot *tt = hk_ledger_at(L, L->li_base[t] + k, j);
                r[i] = (hk_rep_row){.table = cl->tables[t].name,
                                    .mirror = cl->hosts[lc->host[j]].name, .agent = k + 1,
                                    .q = tt->q, .err = tt->err, .lat = &tt->lat, .has_conn = 1,
                                    .connects = tt->connects, .pool_hits = tt->hits,
                                    .pool_misses = tt->misses, .pool_fallbacks = tt->fallbacks};
            }
        }
    return r;
}

void hk_rep_ledger_table(FILE *f, const hk_ledger *L, const hk_scn *s, const hk_findings *fd,
                         int max)
{
    int n;
    hk_rep_row *rows = hk_rep_rows(L, &n);
    if (!rows)
        return;
    if (s && fd)
        hk_rep_mark(rows, n, s, fd);
    hk_rep_mirror_table(f, rows, n, max);
    free(rows);
}

void hk_rep_latency_line(FILE *f, const hk_hist *h)
{
    fprintf(f, "latency of answered queries, ms: p50 %.3f  p95 %.3f  p99 %.3f  p99.9 %.3f  "
            "mean %.3f\n", ms(hk_hist_quantile(h, 0.5)), ms(hk_hist_quantile(h, 0.95)),
            ms(hk_hist_quantile(h, 0.99)), ms(hk_hist_quantile(h, 0.999)), ms(hk_hist_mean(h)));
}

void hk_rep_mirror_table(FILE *f, const hk_rep_row *rows, int n, int max)
{
    fprintf(f, "%-16s %5s %-22s %7s %10s %8s %9s %9s %9s %9s\n", "table", "agent", "mirror",
            "share", "attempts", "failed", "p50_ms", "p95_ms", "p99_ms", "p99.9_ms");
    int kept = 0, shown = 0;
    for (int i = 0; max > 0 && i < n; i++)
        kept += rows[i].keep;
    int others = max > 0 && n > max ? (max > kept ? max - kept : 0) : n;
    for (int i = 0; i < n; i++) {
        const hk_rep_row *r = &rows[i];
        if (!r->keep && others-- <= 0)
            continue;
        shown++;
        fprintf(f, "%-16s %5d %-22s %7.4f %10" PRIu64 " %8" PRIu64 " %9.3f %9.3f %9.3f %9.3f\n",
                r->table, r->agent, r->mirror, share_of(rows, n, i), r->q, r->err,
                ms(hk_hist_quantile(r->lat, 0.5)), ms(hk_hist_quantile(r->lat, 0.95)),
                ms(hk_hist_quantile(r->lat, 0.99)), ms(hk_hist_quantile(r->lat, 0.999)));
    }
    if (shown < n)
        fprintf(f, "... %d more mirror rows folded (no fault or finding is about them): every "
                "row is in summary.csv\n", n - shown);
}

const char *hk_rep_ms(double v, char *buf, size_t n)
{
    if (isnan(v))
        snprintf(buf, n, "n/a");
    else
        snprintf(buf, n, "%.3f", v);
    return buf;
}

void hk_rep_summary_csv(FILE *f, const hk_rep_row *rows, int n)
{
    fputs("table,agent,mirror,attempts,share,failed,latency_mean_ms,latency_p50_ms,"
          "latency_p95_ms,latency_p99_ms,latency_p999_ms,connects,pool_hits,pool_misses,"
          "pool_fallbacks\n", f);
    for (int i = 0; i < n; i++) {
        const hk_rep_row *r = &rows[i];
        hk_csv_str(f, r->table, 1);
        fprintf(f, ",%d,", r->agent);
        hk_csv_str(f, r->mirror, 1);
        fprintf(f, ",%" PRIu64 ",%.6f,%" PRIu64, r->q, share_of(rows, n, i), r->err);
        int none = !r->lat || !r->lat->n; /* a mirror that never answered: n/a, never 0 ms */
        double v[5] = {hk_hist_mean(r->lat), hk_hist_quantile(r->lat, 0.5),
                       hk_hist_quantile(r->lat, 0.95), hk_hist_quantile(r->lat, 0.99),
                       hk_hist_quantile(r->lat, 0.999)};
        char b[40];
        for (int k = 0; k < 5; k++)
            fprintf(f, ",%s", hk_rep_ms(none ? NAN : ms(v[k]), b, sizeof b));
        if (r->has_conn)
            fprintf(f, ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64, r->connects, r->pool_hits,
                    r->pool_misses, r->pool_fallbacks);
        else
            fputs(",,,,", f);
        fputc('\n', f);
    }
}

/* SHOW AGENT <table> STATUS of one table; -1 when out of memory. */
static int table_status(hk_buf *b, const hk_cluster *cl, const hk_table *tb, hk_line *const *lines,
                        const hk_variant *var)
{
    int nm = 0;
    for (int k = 0; k < tb->nlines; k++)
        nm += tb->lines[k].a.n;
    hk_status_line *sl = calloc((size_t)tb->nlines + 1, sizeof *sl);
    hk_status_mirror *sm = calloc((size_t)nm + 1, sizeof *sm);
    char **ids = calloc((size_t)nm + 1, sizeof *ids);
    int rc = sl && sm && ids ? 0 : -1;
    for (int k = 0, o = 0; rc == 0 && k < tb->nlines; k++) {
        const hk_line_conf *lc = &tb->lines[k];
        sl[k].n = lc->a.n;
        sl[k].m = &sm[o];
        for (int j = 0; rc == 0 && j < lc->a.n; j++, o++) {
            size_t len = strlen(cl->hosts[lc->host[j]].name) + strlen(lc->a.m[j].indexes) + 2;
            if (!(ids[o] = malloc(len))) {
                rc = -1;
                break;
            }
            snprintf(ids[o], len, "%s:%s", cl->hosts[lc->host[j]].name, lc->a.m[j].indexes);
            sm[o] = (hk_status_mirror){ids[o], lines[k]->w[j] * var->display_scale,
                                       lc->a.blackhole, lc->a.persistent};
        }
    }
    if (rc == 0) {
        hk_buf_printf(b, "\n-- SHOW AGENT %s STATUS\n", tb->name);
        hk_status_table(b, var->layout, (const char *const *)tb->local, tb->nlocal, sl,
                        tb->nlines);
    }
    for (int i = 0; ids && i < nm; i++)
        free(ids[i]);
    free(ids);
    free(sm);
    free(sl);
    return rc;
}

int hk_rep_status(hk_buf *b, const hk_cluster *cl, const hk_dash *dash, hk_line *const *lines,
                  const hk_variant *var, int64_t now_us, const char *title)
{
    hk_status_host *hosts = calloc((size_t)cl->nhosts + 1, sizeof *hosts);
    if (!hosts)
        return -1;
    for (int h = 0; h < cl->nhosts; h++) {
        int pinged = var->layout == HK_LAYOUT_SPHINX2 ? cl->hosts[h].in_ha : cl->hosts[h].in_ha_nonbh;
        hosts[h] = (hk_status_host){.name = cl->hosts[h].name, .refs = cl->hosts[h].refs,
                                    .pinged = cl->set.ping_us > 0 && pinged, .dash = &dash[h]};
    }
    hk_buf_printf(b, "-- SHOW AGENT STATUS (%s; %s layout)\n", title,
                  var->layout == HK_LAYOUT_SPHINX2 ? "Sphinx 2.2.11" : "Manticore");
    int nh = cl->nhosts < HK_REP_STATUS_HOSTS ? cl->nhosts : HK_REP_STATUS_HOSTS;
    hk_status_global(b, var, cl->set.karma_s, hosts, nh, now_us);
    if (nh < cl->nhosts)
        hk_buf_printf(b, "-- ... %d more hosts not shown (hakarma shows the first %d)\n",
                      cl->nhosts - nh, HK_REP_STATUS_HOSTS);
    free(hosts);
    int rc = 0, shown = 0;
    for (int t = 0, base = 0; rc == 0 && t < cl->ntables; t++) {
        if (shown < HK_REP_STATUS_HOSTS)
            rc = table_status(b, cl, &cl->tables[t], lines + base, var);
        shown += cl->tables[t].nlines;
        base += cl->tables[t].nlines;
    }
    return rc < 0 || b->oom ? -1 : 0;
}

int hk_rep_run_csv(const hk_rep_run *r, const char *dir, hk_err *e)
{
    hk_out o;
    if (hk_out_open(&o, dir, "run.csv", e) < 0)
        return -1;
    fputs("key,value\n", o.f);
    const char *k[4] = {"program", "scenario", "variant", "strategy"};
    const char *v[4] = {r->program, r->scenario, r->variant, r->strategy};
    for (int i = 0; i < 4; i++) {
        fprintf(o.f, "%s,", k[i]);
        hk_csv_str(o.f, v[i] ? v[i] : "", 1);
        fputc('\n', o.f);
    }
    fprintf(o.f, "masters,%d\nduration_s,%.3f\nkarma_s,%" PRId64 "\nseed,%" PRIu64 "\n",
            r->masters, r->duration_s, r->karma_s, r->seed);
    return hk_out_commit(&o, e);
}

int hk_rep_faults(const hk_scn *s, int64_t end_us, const char *dir, hk_err *e)
{
    hk_out o;
    if (hk_out_open(&o, dir, "faults.csv", e) < 0)
        return -1;
    fputs("start_s,end_s,mirror,kind\n", o.f);
    for (int i = 0; i < s->nfaults; i++) {
        const hk_fault *f = &s->faults[i];
        fprintf(o.f, "%.3f,%.3f,", (double)f->at_us / 1e6,
                (double)(f->for_us >= 0 ? f->at_us + f->for_us : end_us) / 1e6);
        hk_csv_str(o.f, s->cl->hosts[f->host].name, 1);
        fprintf(o.f, ",%s\n", hk_fault_name(f->kind));
    }
    return hk_out_commit(&o, e);
}
