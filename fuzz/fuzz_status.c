/* fuzz_status: a saved SHOW AGENT STATUS / SHOW STATUS read back (hk_statread), then calibrated
 * against a small fixed cluster (hk_calib), as hasim init does; what calibration computes from
 * any status it accepts must be a model that runs: every figure finite, probabilities in
 * [0, 1], counts and windows not negative (abort otherwise: the fuzzer saves the input).
 * An input holding a 0xff byte is two snapshots of one master: the second read by the keys
 * of the first (hk_statrd, from its text and row by row) must say what hk_statread says. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "hk_calib.h"
#include "hk_conf.h"

static const char conf[] = "searchd { ha_period_karma = 10  ha_ping_interval = 1000 }\n"
                           "index d { type = distributed\n agent = a:9312|b:9312:s\n"
                           " agent = c:9312:t\n}\n";

static int prob(double p) { return isfinite(p) && p >= 0 && p <= 1; }

static void check(const hk_calib_host *c)
{
    if (!c->found)
        return;
    if (!isfinite(c->attempts) || c->attempts < 0 || !isfinite(c->window_s) || c->window_s < 0 ||
        !isfinite(c->mean_ms) || !isfinite(c->rtt_ms) || !isfinite(c->pings_est) ||
        c->pings_est < 0 || !prob(c->p_timeout) || !prob(c->p_refuse) || !prob(c->p_warning) ||
        c->p_timeout + c->p_refuse > 1 + 1e-9)
        abort();
}

/* b (rb, eb) is what a (ra, ea) is, or abort; b freed. */
static void same(int ra, const hk_status_file *a, const hk_err *ea, int rb, hk_status_file *b,
                 const hk_err *eb)
{
    if (ra != rb || (ra < 0 && (strcmp(ea->msg, eb->msg) || ea->line != eb->line)))
        abort();
    if (ra == 0 && (a->nhosts != b->nhosts || a->periods != b->periods ||
                    a->layout != b->layout || memcmp(a->h, b->h, (size_t)a->nhosts * sizeof *a->h)))
        abort();
    if (rb == 0)
        hk_status_file_free(b);
}

/* second (len bytes) read after first by a hk_statrd, from its text and row by row. */
static void by_keys(const char *first, size_t flen, const char *second, size_t len)
{
    hk_status_file a, b;
    hk_err ea = {0}, eb = {0};
    int ra = hk_statread(second, len, "f", &a, &ea);
    for (int rows = 0; rows < 2; rows++) {
        hk_statrd *r = hk_statrd_new();
        if (!r)
            abort();
        if (hk_statrd_read(r, first, flen, "f", &b, &eb) == 0)
            hk_status_file_free(&b);
        int rb;
        if (rows) {
            hk_statrd_begin(r, "f");
            for (const char *s = second, *nl; s < second + len; s = nl + 1) {
                nl = memchr(s, '\n', (size_t)(second + len - s));
                if (!nl)
                    nl = second + len;
                hk_statrd_line(r, s, (size_t)(nl - s));
            }
            rb = hk_statrd_end(r, second, len, &b, &eb);
        } else {
            rb = hk_statrd_read(r, second, len, "f", &b, &eb);
        }
        same(ra, &a, &ea, rb, &b, &eb);
        hk_statrd_free(r);
    }
    if (ra == 0)
        hk_status_file_free(&a);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *cut = memchr(data, 0xff, size);
    if (cut)
        by_keys((const char *)data, (size_t)(cut - data), (const char *)cut + 1,
                size - (size_t)(cut - data) - 1);
    hk_status_file st;
    hk_err e;
    if (hk_statread((const char *)data, size, "fuzz", &st, &e) < 0)
        return 0;
    hk_conf *c = NULL;
    hk_cluster *cl = NULL;
    if (hk_conf_parse(conf, sizeof conf - 1, "conf", &c, &e) == 0 &&
        hk_cluster_from_conf(c, NULL, st.layout == HK_LAYOUT_SPHINX2 ? HK_DIALECT_SPHINX2
                                                                     : HK_DIALECT_MANTICORE,
                             &cl, &e, NULL) == 0) {
        hk_calib_host *out = NULL;
        if (hk_calib(&st, cl, &out) == 0) {
            for (int h = 0; h < cl->nhosts; h++)
                check(&out[h]);
            free(out);
        }
        hk_cluster_free(cl);
    }
    hk_conf_free(c);
    hk_status_file_free(&st);
    return 0;
}
