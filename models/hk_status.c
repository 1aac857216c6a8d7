/* hk_status: SHOW AGENT STATUS rendering for both layouts. */
#include "hk_status.h"

#include <inttypes.h>
#include <stdio.h>

static const char *names_m[HK_EV_N + 4] = {
    "query_timeouts", "connect_timeouts", "connect_failures", "network_errors", "wrong_query",
    "wrong_replies", "unexpected_closings", "warnings", "succeeded_queries", "total_query_time",
    "connect_count", "connect_avg", "connect_max"};

/* Manticore's "%.NF" / "%.ND": an integer shown with N implied decimals. */
static void fixed(hk_buf *b, int64_t v, int dec)
{
    int64_t div = dec == 2 ? 100 : 1000;
    const char *sign = v < 0 ? "-" : "";
    uint64_t a = v < 0 ? (uint64_t)(-v) : (uint64_t)v;
    hk_buf_printf(b, "%s%" PRIu64 ".%0*" PRIu64 "\n", sign, a / (uint64_t)div, dec,
                  a % (uint64_t)div);
}

static void key(hk_buf *b, const char *pfx, const char *k) { hk_buf_printf(b, "%s_%s\t", pfx, k); }

static void period_rows_m(hk_buf *b, const char *pfx, const hk_block *w, int p, int sums_time)
{
    uint64_t snap[HK_EV_N + 4];
    for (int i = 0; i < HK_EV_N; i++)
        snap[i] = w->c[i];
    snap[HK_EV_N] = sums_time ? w->total_us : 0; /* Manticore adds every metric but this one */
    snap[HK_EV_N + 1] = w->connect_count;
    snap[HK_EV_N + 2] = w->connect_count ? w->connect_sum_us / w->connect_count : 0;
    snap[HK_EV_N + 3] = w->connect_max_us;
    for (int j = 0; j < HK_EV_N + 4; j++) {
        if (j == 0) {
            hk_buf_printf(b, "%s_%dperiods_msecsperqueryy\t", pfx, p);
            if (snap[1] > 0)
                fixed(b, (int64_t)(snap[0] / snap[1] / 10), 2);
            else
                hk_buf_printf(b, "n/a\n");
            continue;
        }
        hk_buf_printf(b, "%s_%dperiods_%s\t", pfx, p, names_m[j]);
        if (j == 2 || j == 3)
            fixed(b, (int64_t)(snap[j] / 10), 2);
        else
            hk_buf_printf(b, "%" PRIu64 "\n", snap[j]);
    }
}

static void host_rows_m(hk_buf *b, const char *pfx, const hk_status_host *h, int64_t now_us)
{
    const hk_dash *d = h->dash;
    key(b, pfx, "hostname");
    hk_buf_printf(b, "%s\n", h->name);
    key(b, pfx, "references");
    hk_buf_printf(b, "%d\n", h->refs);
    key(b, pfx, "ping");
    hk_buf_printf(b, "%s\n", h->pinged ? "yes" : "no");
    key(b, pfx, "has_perspool");
    hk_buf_printf(b, "%s\n", h->perspool ? "yes" : "no");
    key(b, pfx, "need_resolve");
    hk_buf_printf(b, "no\n");
    key(b, pfx, "lastquery");
    fixed(b, (now_us - d->last_query_us) / 10000, 2);
    key(b, pfx, "lastanswer");
    fixed(b, (now_us - d->last_answer_us) / 10000, 2);
    key(b, pfx, "lastperiodmsec");
    fixed(b, d->last_answer_us - d->last_query_us, 3);
    key(b, pfx, "pingtripmsec");
    fixed(b, d->ping_trip_us, 3);
    key(b, pfx, "errorsarow");
    hk_buf_printf(b, "%" PRId64 "\n", d->errors_a_row);
}

static const int s2_counters[8] = {
    HK_EV_QUERY_TIMEOUT, HK_EV_CONNECT_TIMEOUT, HK_EV_CONNECT_FAILURE, HK_EV_NETWORK_ERROR,
    HK_EV_WRONG_REPLY, HK_EV_UNEXPECTED_CLOSE, HK_EV_WARNING, HK_EV_SUCCESS};

static void period_rows_s2(hk_buf *b, const char *pfx, const hk_block *w, int p)
{
    for (int k = 0; k < 8; k++)
        hk_buf_printf(b, "%s_%dperiods_%s\t%" PRIu64 "\n", pfx, p, names_m[s2_counters[k]],
                      w->c[s2_counters[k]]);
    uint64_t ev = hk_block_events(w);
    hk_buf_printf(b, "%s_%dperiods_msecsperqueryy\t", pfx, p);
    if (ev)
        hk_buf_printf(b, "%.2f\n", (double)w->total_us / 1000.0 / (double)ev);
    else
        hk_buf_printf(b, "n/a\n");
    hk_buf_printf(b, "%s_%dperiods_connect_count\t%" PRIu64 "\n", pfx, p, w->connect_count);
    hk_buf_printf(b, "%s_%dperiods_connect_avg\t%" PRIu64 "\n", pfx, p,
                  w->connect_count ? w->connect_sum_us / w->connect_count : 0);
    hk_buf_printf(b, "%s_%dperiods_connect_max\t%" PRIu64 "\n", pfx, p, w->connect_max_us);
}

static void host_rows_s2(hk_buf *b, const char *pfx, const hk_status_host *h, int64_t now_us)
{
    const hk_dash *d = h->dash;
    hk_buf_printf(b, "%s_hostname\t%s\n", pfx, h->name);
    hk_buf_printf(b, "%s_references\t%d\n", pfx, h->refs);
    hk_buf_printf(b, "%s_lastquery\t%.2f\n", pfx, (double)(now_us - d->last_query_us) / 1e6);
    hk_buf_printf(b, "%s_lastanswer\t%.2f\n", pfx, (double)(now_us - d->last_answer_us) / 1e6);
    hk_buf_printf(b, "%s_lastperiodmsec\t%" PRId64 "\n", pfx,
                  (d->last_answer_us - d->last_query_us) / 1000);
    hk_buf_printf(b, "%s_errorsarow\t%" PRId64 "\n", pfx, d->errors_a_row);
}

void hk_status_global(hk_buf *b, const hk_variant *var, int64_t karma_s, const hk_status_host *h,
                      int n, int64_t now_us)
{
    hk_layout lay = var->layout;
    static const int periods[3] = {1, 5, HK_DASH_PERIODS};
    hk_buf_printf(b, "Key\tValue\n");
    hk_buf_printf(b, "status_period_seconds\t%" PRId64 "\n", karma_s);
    hk_buf_printf(b, "status_stored_periods\t%d\n", HK_DASH_PERIODS);
    for (int i = 0; i < n; i++) {
        char pfx[32];
        snprintf(pfx, sizeof pfx, "ag_%d", i);
        if (lay == HK_LAYOUT_SPHINX2)
            host_rows_s2(b, pfx, &h[i], now_us);
        else
            host_rows_m(b, pfx, &h[i], now_us);
        for (int k = 0; k < 3; k++) {
            hk_block w;
            hk_dash_window(h[i].dash, now_us, periods[k], &w);
            if (lay == HK_LAYOUT_SPHINX2)
                period_rows_s2(b, pfx, &w, periods[k]);
            else
                period_rows_m(b, pfx, &w, periods[k], var->sums_window_time);
        }
    }
}

void hk_status_table(hk_buf *b, hk_layout lay, const char *const *locals, int nlocal,
                     const hk_status_line *lines, int nlines)
{
    hk_buf_printf(b, "Variable_name\tValue\n");
    for (int i = 0; i < nlocal; i++)
        hk_buf_printf(b, "dstindex_local_%d\t%s\n", i + 1, locals[i]);
    for (int i = 0; i < nlines; i++) {
        const hk_status_line *l = &lines[i];
        int ha = l->n > 1;
        hk_buf_printf(b, "dstindex_%d_is_ha\t%d\n", i + 1, ha);
        for (int j = 0; j < l->n; j++) {
            char k[64];
            if (ha)
                snprintf(k, sizeof k, "dstindex_%dmirror%d", i + 1, j + 1);
            else
                snprintf(k, sizeof k, "dstindex_%dagent", i + 1);
            const hk_status_mirror *m = &l->m[j];
            hk_buf_printf(b, "%s_id\t%s\n", k, m->id);
            if (ha && lay == HK_LAYOUT_SPHINX2)
                hk_buf_printf(b, "%s_probability_weight\t%d\n", k, (int)m->weight);
            else if (ha)
                hk_buf_printf(b, "%s_probability_weight\t%0.2f%%\n", k, m->weight);
            hk_buf_printf(b, "%s_is_blackhole\t%d\n", k, m->blackhole);
            hk_buf_printf(b, "%s_is_persistent\t%d\n", k, m->persistent);
        }
    }
}
