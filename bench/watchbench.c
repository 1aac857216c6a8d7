/* watchbench: what following a master costs `hareal watch` per snapshot (not a test): a
 * 2.2.11 SHOW AGENT STATUS of M mirrors (M/4 agent lines of 4; hakarma's own status, from
 * dashboards with traffic), read (hk_statread) and judged (hk_watch_feed) once a karma period,
 * timed in CPU seconds over many snapshots; then the share of one core 50 masters of M mirrors
 * at one snapshot a second would take. The SphinxQL decoding of the rows (rl_sql) and the file
 * written per snapshot are not in it. Usage: watchbench [MIRRORS [SNAPSHOTS]]. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "hk_conf.h"
#include "hk_status.h"
#include "hk_watch.h"

static double cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static hk_cluster *cluster(int m)
{
    hk_buf b;
    hk_buf_init(&b);
    hk_buf_printf(&b, "searchd { ha_period_karma = 1 }\nindex d { type = distributed\n");
    for (int i = 0; i < m; i += 4)
        hk_buf_printf(&b, "agent = 10.0.%d.%d:9312|10.0.%d.%d:9312|10.0.%d.%d:9312|10.0.%d.%d:9312:s\n",
                      i / 250, i % 250, (i + 1) / 250, (i + 1) % 250, (i + 2) / 250,
                      (i + 2) % 250, (i + 3) / 250, (i + 3) % 250);
    hk_buf_printf(&b, "ha_strategy = noerrors\n}\n");
    hk_conf *c = NULL;
    hk_cluster *cl = NULL;
    hk_err e;
    if (hk_conf_parse(b.s, b.len, "bench.conf", &c, &e) < 0 ||
        hk_cluster_from_conf(c, NULL, HK_DIALECT_SPHINX2, &cl, &e, NULL) < 0)
        fprintf(stderr, "watchbench: %s\n", e.msg);
    hk_conf_free(c);
    hk_buf_free(&b);
    return cl;
}

int main(int argc, char **argv)
{
    int m = argc > 1 ? atoi(argv[1]) : 1000, n = argc > 2 ? atoi(argv[2]) : 200;
    if (m < 4 || m > 100000 || n < 1) {
        fprintf(stderr, "usage: watchbench [MIRRORS 4-100000 [SNAPSHOTS]]\n");
        return 2;
    }
    m -= m % 4;
    hk_cluster *cl = cluster(m);
    hk_dash *d = hk_dash_array_new(m, 1);
    hk_status_host *h = calloc((size_t)m, sizeof *h);
    hk_watch *w = hk_watch_new(1);
    hk_err e;
    if (!cl || !d || !h || !w ||
        hk_watch_master(w, 0, "bench", cl, hk_variant_get(HK_VAR_SPHINX2), 1, &e) < 0)
        return 1;
    for (int i = 0; i < m; i++)
        h[i] = (hk_status_host){.name = cl->hosts[i].name, .refs = 1, .pinged = 1, .dash = &d[i]};
    hk_wevents ev = {0};
    double spent = 0, reading = 0, bytes = 0;
    int64_t t = 1700000000LL * 1000000;
    for (int s = 0; s < n; s++) {
        for (int i = 0; i < m; i++)
            for (int q = 0; q < 5; q++)
                hk_dash_record(&d[i], t + q * 1000 + 3000 + (i % 7) * 100, HK_EV_SUCCESS,
                               t + q * 1000, 0, 100);
        t += 1000000;
        hk_buf b;
        hk_buf_init(&b);
        hk_status_global(&b, hk_variant_get(HK_VAR_SPHINX2), 1, h, m, t + 100000);
        bytes += (double)b.len;
        double c0 = cpu_s();
        hk_status_file st;
        ev.n = 0;
        if (hk_statread(b.s, b.len, "bench", &st, &e) < 0)
            return 1;
        reading += cpu_s() - c0;
        if (hk_watch_feed(w, 0, (double)(t + 100000) / 1e6, &st, &ev, &e) < 0)
            return 1;
        hk_status_file_free(&st);
        spent += cpu_s() - c0;
        hk_buf_free(&b);
    }
    double per = spent / n;
    printf("watchbench: %d mirrors, %d snapshots of %.0f KB: %.2f ms of CPU a snapshot (%.2f "
           "read, %.2f judged); 50 such masters at 1 snapshot/s: %.1f%% of one core\n", m, n,
           bytes / n / 1024, per * 1e3, reading / n * 1e3, (spent - reading) / n * 1e3,
           50 * per * 100);
    hk_wevents_free(&ev);
    hk_watch_free(w);
    free(h);
    hk_dash_array_free(d);
    hk_cluster_free(cl);
    return 0;
}
