/* fuzz_status: a saved SHOW AGENT STATUS / SHOW STATUS read back (hk_statread), then calibrated
 * against a small fixed cluster (hk_calib), as hasim init does; what calibration computes from
 * any status it accepts must be a model that runs: every figure finite, probabilities in
 * [0, 1], counts and windows not negative (abort otherwise: the fuzzer saves the input). */
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
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
