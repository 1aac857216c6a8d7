/* hk_answer: findings, convergence and re-admission in words (see hk_answer.h). */
#include "hk_answer.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hk_csv.h"
#include "hk_file.h"
#include "hk_fmt.h"

static const char *host(const hk_ans *a, int h) { return h >= 0 ? a->scn->cl->hosts[h].name : ""; }

static const char *table(const hk_ans *a, int t) { return t >= 0 ? a->scn->cl->tables[t].name : ""; }

void hk_ans_findings(FILE *f, const hk_ans *a)
{
    const hk_findings *fd = a->fd;
    for (int i = 0; i < fd->ncav; i++)
        fprintf(f, "WARNING: %s\n", fd->cav[i]);
    if (!fd->n) {
        fprintf(f, "FINDINGS: none — checked and held: no mirror failing (>= %.0f%% of its "
                "attempts) or slow (>= %.0fx its line's others), none starved or locked, no fault "
                "leaked traffic, flooded or handed over a recovered mirror, no herding, no "
                "overload, no master out of ephemeral ports, weights settled\n",
                100 * HK_FAILING_RATE, HK_SLOW_FACTOR);
        return;
    }
    fprintf(f, "FINDINGS (%d):\n", fd->n);
    for (int i = 0; i < fd->n; i++) {
        const hk_finding *x = &fd->f[i];
        char where[300] = "";
        int o = 0;
        if (x->master >= 0 && a->nmasters > 1)
            o += snprintf(where + o, sizeof where - (size_t)o, "master %d, ", x->master);
        if (x->table >= 0 && x->line >= 0)
            o += snprintf(where + o, sizeof where - (size_t)o, "%s agent %d, ", table(a, x->table),
                          x->line + 1);
        else if (x->table >= 0)
            o += snprintf(where + o, sizeof where - (size_t)o, "%s, ", table(a, x->table));
        fprintf(f, "  %-17s %sat %.1f s: %s\n", x->kind, where, x->t_s, x->detail);
    }
    fputs("  raised by (threshold; false-alarm rate at the run's sample size):\n", f);
    for (int k = 0; hk_find_kind(k); k++)
        for (int i = 0; i < fd->n; i++)
            if (!strcmp(fd->f[i].kind, hk_find_kind(k))) {
                fprintf(f, "    %-17s %s\n", hk_find_kind(k), hk_find_kind_rule(hk_find_kind(k)));
                break;
            }
}

int hk_ans_findings_csv(const hk_ans *a, const char *dir, hk_err *err)
{
    hk_out o;
    if (hk_out_open(&o, dir, "findings.csv", err) < 0)
        return -1;
    fputs("kind,master,table,agent,mirror,t_s,detail\n", o.f);
    for (int i = 0; i < a->fd->n; i++) {
        const hk_finding *x = &a->fd->f[i];
        fprintf(o.f, "%s,%d,", x->kind, x->master);
        hk_csv_str(o.f, table(a, x->table), 1);
        fprintf(o.f, ",%d,", x->line + 1);
        hk_csv_str(o.f, host(a, x->host), 1);
        fprintf(o.f, ",%.3f,", x->t_s);
        hk_csv_str(o.f, x->detail, 1);
        fputc('\n', o.f);
    }
    return hk_out_commit(&o, err);
}

/* One finding as a JSON object (NULL out of memory). */
static json_t *finding_json(const hk_ans *a, const hk_finding *x)
{
    json_t *o = json_object();
    if (!o)
        return NULL;
    int rc = json_object_set_new(o, "kind", json_string(x->kind));
    rc |= json_object_set_new(o, "severe", json_boolean(hk_find_kind_severe(x->kind) > 0));
    rc |= json_object_set_new(o, "master", x->master >= 0 ? json_integer(x->master) : json_null());
    rc |= json_object_set_new(o, "table", x->table >= 0 ? json_string(table(a, x->table))
                                                        : json_null());
    rc |= json_object_set_new(o, "agent", x->table >= 0 && x->line >= 0
                                              ? json_integer(x->line + 1) : json_null());
    rc |= json_object_set_new(o, "mirror", x->host >= 0 ? json_string(host(a, x->host))
                                                        : json_null());
    rc |= json_object_set_new(o, "t_s", json_real(round(x->t_s * 1000) / 1000));
    rc |= json_object_set_new(o, "detail", json_string(x->detail));
    rc |= json_object_set_new(o, "rule", json_string(hk_find_kind_rule(x->kind)));
    if (rc) {
        json_decref(o);
        return NULL;
    }
    return o;
}

/* The document: schema, every kind checked with its count, the findings. */
static json_t *findings_doc(const hk_ans *a)
{
    json_t *doc = json_object(), *list = json_array(), *counts = json_object();
    int rc = !doc || !list || !counts;
    for (int i = 0; !rc && i < a->fd->n; i++)
        rc = json_array_append_new(list, finding_json(a, &a->fd->f[i]));
    for (int k = 0; !rc && hk_find_kind(k); k++) {
        int c = 0;
        for (int i = 0; i < a->fd->n; i++)
            c += !strcmp(a->fd->f[i].kind, hk_find_kind(k));
        rc = json_object_set_new(counts, hk_find_kind(k), json_integer(c));
    }
    if (!rc) {
        rc = json_object_set_new(doc, "schema", json_string(HK_FINDINGS_SCHEMA));
        rc |= json_object_set_new(doc, "n", json_integer(a->fd->n));
        rc |= json_object_set(doc, "checked", counts);
        json_t *cav = json_array();
        for (int i = 0; cav && i < a->fd->ncav; i++)
            rc |= json_array_append_new(cav, json_string(a->fd->cav[i]));
        rc |= cav ? json_object_set_new(doc, "caveats", cav) : -1;
        rc |= json_object_set(doc, "findings", list);
    }
    json_decref(list);
    json_decref(counts);
    if (rc) {
        json_decref(doc);
        return NULL;
    }
    return doc;
}

int hk_ans_findings_json(const hk_ans *a, const char *dir, hk_err *err)
{
    json_t *doc = findings_doc(a);
    char *text = doc ? json_dumps(doc, JSON_INDENT(1) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10))
                     : NULL;
    json_decref(doc);
    if (!text)
        return hk_err_set(err, dir, 0, 0, "findings.json: out of memory");
    size_t n = strlen(text);
    text[n] = '\n'; /* json_dumps leaves room for its NUL: the file ends with a newline */
    int rc = hk_out_write_all(dir, "findings.json", text, n + 1, err);
    free(text);
    return rc;
}

/* kind is a word of the comma list, or the list says "severe" and kind is. */
static int kind_listed(const char *kind, const char *list)
{
    for (const char *p = list; ; ) {
        size_t l = strcspn(p, ",");
        if ((l == strlen(kind) && !strncmp(p, kind, l)) ||
            (l == 6 && !strncmp(p, "severe", 6) && hk_find_kind_severe(kind) > 0))
            return 1;
        if (!p[l])
            return 0;
        p += l + 1;
    }
}

int hk_ans_fail_on(const hk_ans *a, const char *kinds)
{
    for (int i = 0; kinds && i < a->fd->n; i++)
        if (kind_listed(a->fd->f[i].kind, kinds))
            return 1;
    return 0;
}

void hk_ans_conv(FILE *f, const hk_ans *a)
{
    int shown = 0, never = 0, total = 0, stat = 0;
    double worst = 0;
    for (int i = 0; i < a->fd->nconv; i++) {
        const hk_conv *c = &a->fd->conv[i];
        if (c->single)
            continue;
        total++;
        never += !c->converged;
        stat += c->is_static;
        if (c->converged && c->t_s > worst)
            worst = c->t_s;
        if (shown++ >= 8)
            continue;
        const hk_tl_series *s = &a->tl->ser[c->first];
        fprintf(f, "convergence: ");
        if (a->nmasters > 1)
            fprintf(f, "master %d, ", s->master);
        fprintf(f, "%s agent %d: ", table(a, s->table), s->line + 1);
        if (c->is_static)
            fprintf(f, "static (the probabilities never moved)\n");
        else if (c->converged)
            fprintf(f, "probabilities within %.2f of their final values from %.0f s\n",
                    HK_CONV_EPS, c->t_s);
        else
            fprintf(f, "never (they swing by %.3f over the last quarter)\n", c->amplitude);
    }
    if (total > 8)
        fprintf(f, "convergence: %d HA lines in all, %d static, %d never converged, the latest "
                "converged at %.0f s\n", total, stat, never, worst);
}

/* The re-admission of fault fi as master 0 sees it on the first line holding its host. */
static const hk_readmit *first_re(const hk_ans *a, int fi)
{
    for (int i = 0; i < a->fd->nre; i++)
        if (a->fd->re[i].fault == fi && a->tl->ser[a->fd->re[i].series].master == 0)
            return &a->fd->re[i];
    return NULL;
}

void hk_ans_readmit(FILE *f, const hk_ans *a)
{
    const hk_scn *s = a->scn;
    for (int fi = 0; fi < s->nfaults; fi++) {
        const hk_fault *ft = &s->faults[fi];
        const hk_readmit *r = first_re(a, fi);
        fprintf(f, "fault: %s %s at %.0f s", host(a, ft->host), hk_fault_name(ft->kind),
                (double)ft->at_us / 1e6);
        if (ft->for_us >= 0)
            fprintf(f, " for %.0f s", (double)ft->for_us / 1e6);
        if (!r) {
            fprintf(f, ": outside the run\n");
            continue;
        }
        if (ft->for_us < 0) {
            fprintf(f, ": it never ends, so there is no re-admission to measure\n");
            continue;
        }
        char pre[32] = "unknown";
        if (!isnan(r->pre))
            snprintf(pre, sizeof pre, "%.1f%%", 100 * r->pre);
        fprintf(f, ": share %s before", pre);
        if (r->first_s < 0)
            fprintf(f, "; no query reached it after the fault ended (re-admission: never)\n");
        else if (r->back_s < 0)
            fprintf(f, "; first query %.2f s after the fault ended, but its share never came "
                    "back within %.0f%% of that\n", r->first_s, 100 * HK_BACK_TOL);
        else if (r->peak >= HK_TAKEOVER_SHARE && a->tl->ser[r->series].nmirrors > 1)
            fprintf(f, "; first query %.2f s after the fault ended, then it took over the line: "
                    "%.0f%% of its queries at %.0f s (a takeover, not a re-admission)\n",
                    r->first_s, 100 * r->peak, r->peak_s);
        else
            fprintf(f, "; first query %.2f s after the fault ended, share back within %.0f%% "
                    "after %.0f s (peak %.0f%% at %.0f s)\n", r->first_s, 100 * HK_BACK_TOL,
                    r->back_s, 100 * r->peak, r->peak_s);
    }
}

void hk_ans_readmit_cell(const hk_ans *a, int fi, char *buf, int n)
{
    const hk_readmit *r = first_re(a, fi);
    const char *h = host(a, a->scn->faults[fi].host);
    char name[40];
    snprintf(name, sizeof name, "%.*s", (int)strcspn(h, ":"), h);
    if (!r || a->scn->faults[fi].for_us < 0)
        snprintf(buf, (size_t)n, "%s n/a", name);
    else if (r->first_s < 0)
        snprintf(buf, (size_t)n, "%s never", name);
    else if (r->back_s < 0)
        snprintf(buf, (size_t)n, "%s %.1fs/never", name, r->first_s);
    else
        snprintf(buf, (size_t)n, "%s %.1fs/%.0fs", name, r->first_s, r->back_s);
}

void hk_ans_conv_cell(const hk_ans *a, char *buf, int n)
{
    int ha = 0, stat = 0, never = 0;
    double worst = 0;
    for (int i = 0; i < a->fd->nconv; i++) {
        const hk_conv *c = &a->fd->conv[i];
        if (c->single)
            continue;
        ha++;
        stat += c->is_static;
        never += !c->converged;
        if (c->converged && !c->is_static && c->t_s > worst)
            worst = c->t_s;
    }
    if (!ha)
        snprintf(buf, (size_t)n, "n/a");
    else if (never)
        snprintf(buf, (size_t)n, "never(%d)", never);
    else if (stat == ha)
        snprintf(buf, (size_t)n, "static");
    else
        snprintf(buf, (size_t)n, "%.0f s", worst);
}

void hk_ans_kinds_cell(const hk_ans *a, char *buf, int n)
{
    int o = 0;
    buf[0] = '\0';
    for (int k = 0; hk_find_kind(k); k++) {
        int c = 0;
        for (int i = 0; i < a->fd->n; i++)
            c += !strcmp(a->fd->f[i].kind, hk_find_kind(k));
        if (c && o < n)
            o += snprintf(buf + o, (size_t)(n - o), "%s%d %s", o ? ", " : "", c, hk_find_kind(k));
    }
    if (!o)
        snprintf(buf, (size_t)n, "none");
}

int hk_ans_readmission_csv(const hk_ans *a, const char *dir, hk_err *err)
{
    hk_out o;
    if (hk_out_open(&o, dir, "readmission.csv", err) < 0)
        return -1;
    fputs("fault,master,table,agent,mirror,pre_share,first_query_s,back_s,peak_share,peak_s\n",
          o.f);
    for (int i = 0; i < a->fd->nre; i++) {
        const hk_readmit *r = &a->fd->re[i];
        const hk_tl_series *s = &a->tl->ser[r->series];
        fprintf(o.f, "%d,%d,", r->fault + 1, s->master);
        hk_csv_str(o.f, table(a, s->table), 1);
        fprintf(o.f, ",%d,", s->line + 1);
        hk_csv_str(o.f, host(a, s->host), 1);
        fprintf(o.f, ",%.4f,%.3f,%.3f,%.4f,%.3f\n", isnan(r->pre) ? -1.0 : r->pre, r->first_s,
                r->back_s, r->peak, r->peak_s);
    }
    return hk_out_commit(&o, err);
}

/* A timeline row's numbers (",t_s,attempts,...,weight_share\n" as "%.3f,%u,%u,%.4f,%.3f,%.4f,
 * %.4f" would write them) into row; returns the length. A long run writes millions. */
static size_t tl_numbers(char *row, const hk_tl *t, int s, int k, uint64_t all)
{
    const hk_tl_cell *c = hk_tl_cell_at(t, s, k);
    const hk_tl_smp *x = hk_tl_smp_at(t, s, k);
    char *p = row;
    *p++ = ',';
    p += hk_fmt_fixed(p, (double)hk_tl_start(t, k) / 1e6, 3);
    *p++ = ',';
    p += hk_fmt_u64(p, c->q);
    *p++ = ',';
    p += hk_fmt_u64(p, c->err);
    *p++ = ',';
    p += hk_fmt_fixed(p, all ? (double)c->q / (double)all : 0.0, 4);
    *p++ = ',';
    p += hk_fmt_fixed(p, c->ok ? (double)c->lat_us / c->ok / 1000.0 : 0.0, 3);
    *p++ = ',';
    p += hk_fmt_fixed(p, isnan(x->prob) ? 0.0 : x->prob, 4);
    *p++ = ',';
    p += hk_fmt_fixed(p, isnan(x->wshare) ? 0.0 : x->wshare, 4);
    *p++ = '\n';
    return (size_t)(p - row);
}

/* Each series' "master,table,agent,mirror" once (every bin's row repeats it): series j's is
 * b->s[off[j] .. off[j + 1]). Returns off (caller frees), NULL out of memory. */
static size_t *tl_prefixes(const hk_ans *a, hk_buf *b)
{
    const hk_tl *t = a->tl;
    size_t *off = malloc(((size_t)t->nser + 1) * sizeof *off);
    for (int j = 0; off && j < t->nser; j++) {
        const hk_tl_series *s = &t->ser[j];
        char num[HK_FMT_MAX];
        off[j] = b->len;
        hk_buf_put(b, num, (size_t)hk_fmt_u64(num, (uint64_t)s->master));
        hk_buf_put(b, ",", 1);
        hk_csv_put(b, table(a, s->table));
        hk_buf_put(b, ",", 1);
        hk_buf_put(b, num, (size_t)hk_fmt_u64(num, (uint64_t)s->line + 1));
        hk_buf_put(b, ",", 1);
        hk_csv_put(b, host(a, s->host));
    }
    if (off)
        off[t->nser] = b->len;
    if (off && b->oom) {
        free(off);
        return NULL;
    }
    return off;
}

int hk_ans_timeline_csv(const hk_ans *a, const char *dir, hk_err *err)
{
    const hk_tl *t = a->tl;
    hk_buf pre;
    hk_buf_init(&pre);
    size_t *off = tl_prefixes(a, &pre);
    hk_out o;
    if (!off || hk_out_open(&o, dir, "timeline.csv", err) < 0) {
        if (!off)
            hk_err_set(err, dir, 0, 0, "timeline.csv: out of memory");
        free(off);
        hk_buf_free(&pre);
        return -1;
    }
    fputs("master,table,agent,mirror,t_s,attempts,failed,share,latency_mean_ms,probability,"
          "weight_share\n", o.f);
    for (int first = 0; first < t->nser; first += t->ser[first].nmirrors)
        for (int k = 0; k < t->nbins; k++) {
            uint64_t all = 0;
            for (int j = first; j < first + t->ser[first].nmirrors; j++)
                all += hk_tl_cell_at(t, j, k)->q;
            for (int j = first; j < first + t->ser[first].nmirrors; j++) {
                char row[8 * HK_FMT_MAX];
                fwrite(pre.s + off[j], 1, off[j + 1] - off[j], o.f);
                fwrite(row, 1, tl_numbers(row, t, j, k, all), o.f);
            }
        }
    free(off);
    hk_buf_free(&pre);
    return hk_out_commit(&o, err);
}

int hk_ans_convergence_csv(const hk_ans *a, const char *dir, hk_err *e)
{
    hk_out o;
    if (hk_out_open(&o, dir, "convergence.csv", e) < 0)
        return -1;
    fputs("master,table,agent,converged,t_converged_s,amplitude\n", o.f);
    for (int i = 0; i < a->fd->nconv; i++) {
        const hk_conv *c = &a->fd->conv[i];
        const hk_tl_series *s = &a->tl->ser[c->first];
        fprintf(o.f, "%d,", s->master);
        hk_csv_str(o.f, table(a, s->table), 1);
        fprintf(o.f, ",%d,%s,%.0f,%.4f\n", s->line + 1, c->single ? "single" : c->is_static
                ? "static" : c->converged ? "yes" : "never", c->converged ? c->t_s : -1.0,
                c->amplitude);
    }
    return hk_out_commit(&o, e);
}
