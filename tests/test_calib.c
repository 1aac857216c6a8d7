/* Reading a saved status back and calibrating mirrors from it: the round trip through hakarma's
 * own SHOW AGENT STATUS (2.2.11 layout: the means come back to the microsecond, pings estimated
 * from idleness), the mysql table output, Manticore's layout (detected; its windows hold no query
 * time, so no mean), Manticore's SHOW STATUS lifetime rows mapped to hosts through the config's
 * lines, and errors at their line. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hk_calib.h"
#include "hk_conf.h"
#include "hk_status.h"
#include "hk_test.h"

#define S(x) ((int64_t)(x) * 1000000)

static hk_cluster *cluster(const char *text, hk_dialect d) { return hk_test_cluster(text, d); }

static const char conf[] = "searchd { ha_period_karma = 10  ha_ping_interval = 1000 }\n"
                           "index d { type = distributed\n agent = a:9312|b:9312:s\n}\n";

/* Two hosts over 150 s (15 periods of 10 s): a answers 20 queries/s in 8 ms, b is idle and only
 * pinged (one success per second). */
static hk_dash *fill(void)
{
    hk_dash *d = hk_dash_array_new(2, 10);
    assert_non_null(d);
    for (int64_t t = S(1000); t < S(1150); t += 50000)
        hk_dash_record(&d[0], t, HK_EV_SUCCESS, t - 8000, 0, 100);
    for (int64_t t = S(1000); t < S(1150); t += S(1))
        hk_dash_record(&d[1], t, HK_EV_SUCCESS, t - 300, 1, -1);
    return d;
}

static void round_trip_sphinx2(void **st)
{
    (void)st;
    hk_dash *d = fill();
    hk_status_host h[2] = {{.name = "a:9312", .refs = 1, .pinged = 1,
                            .dash = &d[0]}, {.name = "b:9312", .refs = 1, .pinged = 1,
                                                        .dash = &d[1]}};
    hk_buf b;
    hk_buf_init(&b);
    hk_status_global(&b, hk_variant_get(HK_VAR_SPHINX2), 10, h, 2, S(1150));
    hk_status_file sf;
    hk_err e;
    assert_int_equal(hk_statread(b.s, b.len, "st.txt", &sf, &e), 0);
    assert_int_equal(sf.layout, HK_LAYOUT_SPHINX2);
    assert_int_equal(sf.periods, 15);
    assert_int_equal(sf.nhosts, 2);
    hk_cluster *cl = cluster(conf, HK_DIALECT_SPHINX2);
    hk_calib_host *c;
    assert_int_equal(hk_calib(&sf, cl, &c), 0);
    int a = hk_cluster_find_host(cl, "a:9312"), bb = hk_cluster_find_host(cl, "b:9312");
    assert_true(c[a].found && c[bb].found);
    /* the window: 15 blocks, the last one just begun: 140 s of 20 queries/s */
    assert_near(c[a].mean_ms, 8.0, 0.01);       /* 2800 queries, no ping subtracted: busy */
    assert_near(c[a].attempts, 2800, 1);
    assert_near(c[a].rtt_ms, 0.1, 1e-9);
    assert_near(c[bb].pings_est, 140, 1);        /* idle: every event a ping */
    assert_near(c[bb].attempts, 0, 1);
    free(c);
    hk_cluster_free(cl);
    hk_status_file_free(&sf);
    hk_buf_free(&b);
    hk_dash_array_free(d);
}

static void boxed_and_manticore(void **st)
{
    (void)st;
    const char *t = "+-----------------------------------+---------+\n"
                    "| Key                               | Value   |\n"
                    "+-----------------------------------+---------+\n"
                    "| status_period_seconds             | 10      |\n"
                    "| ag_0_hostname                     | a:9312  |\n"
                    "| ag_0_ping                         | yes     |\n"
                    "| ag_0_15periods_msecsperqueryy     | n/a     |\n"
                    "| ag_0_15periods_connect_failures   | 1.23    |\n"
                    "| ag_0_1periods_network_errors      | 3.00    |\n"
                    "| ag_0_5periods_network_errors      | 9.00    |\n"
                    "| ag_0_15periods_succeeded_queries  | 5000    |\n"
                    "| ag_0_15periods_total_query_time   | 0       |\n"
                    "+-----------------------------------+---------+\n";
    hk_status_file sf;
    hk_err e;
    assert_int_equal(hk_statread(t, strlen(t), "st.txt", &sf, &e), 0);
    assert_int_equal(sf.layout, HK_LAYOUT_MANTICORE);
    assert_string_equal(sf.h[0].name, "a:9312");
    assert_near(sf.h[0].c[HK_EV_CONNECT_FAILURE], 1230, 1e-6); /* count/10 at 2 decimals */
    assert_near(sf.h[0].ev1, 3000, 1e-6); /* the 1- and 5-period windows, scaled alike */
    assert_near(sf.h[0].ev5, 9000, 1e-6);
    hk_cluster *cl = cluster(conf, HK_DIALECT_MANTICORE);
    hk_calib_host *c;
    assert_int_equal(hk_calib(&sf, cl, &c), 0);
    assert_true(c[hk_cluster_find_host(cl, "a:9312")].mean_ms < 0); /* windows never sum time */
    free(c);
    hk_status_file_free(&sf);
    /* SHOW STATUS: lifetime rows per agent entry, table_line_mirror */
    const char *ss = "Counter\tValue\nag_d_1_1_query_timeouts\t0\nag_d_1_1_succeeded_queries\t400\n"
                     "ag_d_1_1_total_query_time\t4520.000\nag_d_1_2_succeeded_queries\t100\n"
                     "ag_d_1_2_total_query_time\t3000.000\nag_d_1_2_connect_count\t100\n"
                     "ag_d_1_2_connect_avg\t0.250\n";
    assert_int_equal(hk_statread(ss, strlen(ss), "ss.txt", &sf, &e), 0);
    assert_int_equal(hk_calib(&sf, cl, &c), 0);
    assert_near(c[hk_cluster_find_host(cl, "a:9312")].mean_ms, 11.3, 1e-9);
    assert_near(c[hk_cluster_find_host(cl, "b:9312")].mean_ms, 30.0, 1e-9);
    assert_near(c[hk_cluster_find_host(cl, "b:9312")].rtt_ms, 0.25, 1e-9);
    free(c);
    hk_status_file_free(&sf);
    /* timed-out attempts: their time (agent_query_timeout each, 3 s by default) out of the mean,
     * their count out of the divisor, their rate kept */
    const char *to = "ag_d_1_1_query_timeouts\t10\nag_d_1_1_succeeded_queries\t90\n"
                     "ag_d_1_1_total_query_time\t30900.000\n";
    assert_int_equal(hk_statread(to, strlen(to), "to.txt", &sf, &e), 0);
    assert_int_equal(hk_calib(&sf, cl, &c), 0);
    assert_near(c[hk_cluster_find_host(cl, "a:9312")].mean_ms, 10.0, 1e-9); /* (30900-30000)/90 */
    assert_near(c[hk_cluster_find_host(cl, "a:9312")].p_timeout, 0.1, 1e-9);
    free(c);
    hk_status_file_free(&sf);
    /* connect timeouts likewise: agent_connect_timeout each (1 s by default) */
    const char *ct = "ag_d_1_1_connect_timeouts\t10\nag_d_1_1_succeeded_queries\t90\n"
                     "ag_d_1_1_total_query_time\t10900.000\n";
    assert_int_equal(hk_statread(ct, strlen(ct), "ct.txt", &sf, &e), 0);
    assert_int_equal(hk_calib(&sf, cl, &c), 0);
    assert_near(c[hk_cluster_find_host(cl, "a:9312")].mean_ms, 10.0, 1e-9); /* (10900-10000)/90 */
    assert_near(c[hk_cluster_find_host(cl, "a:9312")].p_timeout, 0.1, 1e-9);
    free(c);
    hk_status_file_free(&sf);
    /* a master younger than 5 periods: its 15-period window is its 5-period one, and says so */
    for (int full = 0; full < 2; full++) {
        char w[300];
        snprintf(w, sizeof w, "Key\tValue\nag_0_hostname\ta:9312\n"
                 "ag_0_15periods_succeeded_queries\t%d\nag_0_5periods_succeeded_queries\t500\n"
                 "ag_0_1periods_succeeded_queries\t100\n", full ? 1500 : 500);
        assert_int_equal(hk_statread(w, strlen(w), "w.txt", &sf, &e), 0);
        assert_int_equal(hk_calib(&sf, cl, &c), 0);
        assert_int_equal(c[hk_cluster_find_host(cl, "a:9312")].window_short, !full);
        assert_int_equal(c[hk_cluster_find_host(cl, "a:9312")].contradicts, 0);
        free(c);
        hk_status_file_free(&sf);
    }
    /* an idle host's pings only (2.2.11, 2 s periods, 200 ms pings): 127 events in 15
     * periods, 40 in 5, none in the newest. The ping estimate takes all but 7e-13 of them,
     * and that residue once gave a mean of 1.75e13 ms that init wrote and then refused. */
    {
        hk_cluster *cl2 = cluster("searchd { ha_period_karma = 2  ha_ping_interval = 200 }\n"
                                  "index d { type = distributed\n agent = a:9312:s|b:9312:s\n}\n",
                                  HK_DIALECT_SPHINX2);
        const char *pings = "Key\tValue\nstatus_period_seconds\t2\nag_0_hostname\tb:9312\n"
                            "ag_0_15periods_succeeded_queries\t127\n"
                            "ag_0_15periods_msecsperqueryy\t0.1\n"
                            "ag_0_5periods_succeeded_queries\t40\n"
                            "ag_0_5periods_msecsperqueryy\t0.1\n"
                            "ag_0_1periods_succeeded_queries\t0\n"
                            "ag_0_1periods_msecsperqueryy\t0\n";
        assert_int_equal(hk_statread(pings, strlen(pings), "p.txt", &sf, &e), 0);
        assert_int_equal(hk_calib(&sf, cl2, &c), 0);
        const hk_calib_host *b = &c[hk_cluster_find_host(cl2, "b:9312")];
        assert_true(b->found);
        assert_true(b->pings_est > 126);
        assert_true(b->mean_ms < 0);
        free(c);
        hk_status_file_free(&sf);
        hk_cluster_free(cl2);
    }
    /* counters no master prints: fewer events in 5 periods than in 1 */
    const char *odd = "Key\tValue\nag_0_hostname\ta:9312\nag_0_15periods_succeeded_queries\t900\n"
                      "ag_0_5periods_succeeded_queries\t50\nag_0_1periods_succeeded_queries\t100\n";
    assert_int_equal(hk_statread(odd, strlen(odd), "odd.txt", &sf, &e), 0);
    assert_int_equal(hk_calib(&sf, cl, &c), 0);
    assert_int_equal(c[hk_cluster_find_host(cl, "a:9312")].contradicts, 1);
    free(c);
    hk_status_file_free(&sf);
    /* a status saved with CRLF line ends (a Windows client): the values lose their CR */
    const char *crlf = "Key\tValue\r\nag_0_hostname\ta:9312\r\nag_0_ping\tyes\r\n"
                       "ag_0_15periods_succeeded_queries\t5000\r\n";
    assert_int_equal(hk_statread(crlf, strlen(crlf), "crlf.txt", &sf, &e), 0);
    assert_string_equal(sf.h[0].name, "a:9312");
    assert_int_equal(hk_calib(&sf, cl, &c), 0);
    assert_true(c[hk_cluster_find_host(cl, "a:9312")].found);
    free(c);
    hk_status_file_free(&sf);
    hk_cluster_free(cl);
}

/* Manticore prints no query_timeouts row: a window's connects past its printed outcomes are
 * its query timeouts (rows of the live-demo run under Manticore e790cb571, box3 stalled) */
static void manticore_hidden_timeouts(void **st)
{
    (void)st;
    const char *t = "ag_0_hostname\t127.0.0.1:58639\nag_0_ping\tyes\nag_0_errorsarow\t45\n"
                    "ag_0_1periods_succeeded_queries\t291\nag_0_1periods_connect_count\t336\n"
                    "ag_1_hostname\t127.0.0.1:36761\nag_1_errorsarow\t0\n"
                    "ag_1_1periods_succeeded_queries\t297\nag_1_1periods_connect_count\t298\n"
                    "ag_2_hostname\t127.0.0.1:37735\nag_2_errorsarow\t4\n"
                    "ag_2_1periods_connect_failures\t0.01\n"
                    "ag_2_1periods_succeeded_queries\t2\nag_2_1periods_connect_count\t12\n";
    hk_status_file sf;
    hk_err e;
    assert_int_equal(hk_statread(t, strlen(t), "st.tsv", &sf, &e), 0);
    assert_int_equal(sf.layout, HK_LAYOUT_MANTICORE);
    assert_near(sf.h[0].c1[HK_EV_QUERY_TIMEOUT], 45, 1e-9);
    assert_near(sf.h[1].c1[HK_EV_QUERY_TIMEOUT], 0, 1e-9); /* one connect a block early */
    assert_near(sf.h[2].c1[HK_EV_CONNECT_FAILURE], 10, 1e-9);
    assert_near(sf.h[2].c1[HK_EV_QUERY_TIMEOUT], 0, 1e-9); /* 12 = 2 + 10: none hidden */
    hk_status_file_free(&sf);
    /* 2.2.11 prints its query timeouts: nothing is added there */
    const char *s2 = "ag_0_hostname\t127.0.0.1:58639\nag_0_1periods_query_timeouts\t0\n"
                     "ag_0_1periods_succeeded_queries\t291\nag_0_1periods_connect_count\t336\n";
    assert_int_equal(hk_statread(s2, strlen(s2), "s2.tsv", &sf, &e), 0);
    assert_int_equal(sf.layout, HK_LAYOUT_SPHINX2);
    assert_near(sf.h[0].c1[HK_EV_QUERY_TIMEOUT], 0, 1e-9);
    hk_status_file_free(&sf);
}

static void errors_at_their_line(void **st)
{
    (void)st;
    hk_status_file sf;
    hk_err e;
    const char *t = "Key\tValue\nag_0_hostname\ta:9312\nthis is not a row\n";
    assert_int_equal(hk_statread(t, strlen(t), "st.txt", &sf, &e), -1);
    assert_int_equal(e.line, 3);
    assert_non_null(strstr(e.msg, "expected KEY<TAB>VALUE"));
    const char *empty = "Variable_name\tValue\nuptime\t5\n";
    assert_int_equal(hk_statread(empty, strlen(empty), "st.txt", &sf, &e), -1);
    assert_non_null(strstr(e.msg, "expected SHOW AGENT STATUS rows"));
    /* values that are not a finite number in range, each refused at its line */
    static const char *bad[] = {"nan", "inf", "-5", "1e300", "", "0x10", "12abc"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char v[200];
        snprintf(v, sizeof v, "Key\tValue\nag_0_hostname\ta:9312\nag_0_15periods_msecsperqueryy\t"
                 "%s\n", bad[i]);
        assert_int_equal(hk_statread(v, strlen(v), "st.txt", &sf, &e), -1);
        assert_int_equal(e.line, 3);
        assert_non_null(strstr(e.msg, "expected a decimal number from 0"));
        snprintf(v, sizeof v, "Key\tValue\nag_0_hostname\ta:9312\n"
                 "ag_0_15periods_succeeded_queries\t%s\n", bad[i]);
        assert_int_equal(hk_statread(v, strlen(v), "st.txt", &sf, &e), -1);
        assert_int_equal(e.line, 3);
    }
    static const char *period[] = {"0", "-1", "nan", "99999999999", "1e300", "1.5"};
    for (size_t i = 0; i < sizeof period / sizeof period[0]; i++) {
        char v[200];
        snprintf(v, sizeof v, "status_period_seconds\t%s\nag_0_hostname\ta:9312\n", period[i]);
        assert_int_equal(hk_statread(v, strlen(v), "st.txt", &sf, &e), -1);
        assert_int_equal(e.line, 1);
    }
    const char *cut = "| ag_0_hostname | a:9312 |\n| ag_0_15periods_warnings | 5\n";
    assert_int_equal(hk_statread(cut, strlen(cut), "st.txt", &sf, &e), -1);
    assert_int_equal(e.line, 2); /* a boxed row without its closing bar */
    char *longname = malloc(3 << 20);
    assert_non_null(longname);
    int off = snprintf(longname, 64, "ag_0_hostname\t");
    memset(longname + off, 'h', (3 << 20) - off - 2);
    longname[(3 << 20) - 2] = '\n';
    longname[(3 << 20) - 1] = '\0';
    assert_int_equal(hk_statread(longname, strlen(longname), "st.txt", &sf, &e), -1);
    assert_non_null(strstr(e.msg, "expected a host:port of 1 to"));
    free(longname);
    /* the real mysql -t pads the key column to its widest key, odd widths included */
    const char *pad = "| ag_0_hostname                      | 127.0.0.1:23101 |\n"
                      "| ag_0_15periods_succeeded_queries   | 40              |\n";
    assert_int_equal(hk_statread(pad, strlen(pad), "st.txt", &sf, &e), 0);
    assert_string_equal(sf.h[0].name, "127.0.0.1:23101");
    assert_near(sf.h[0].c[HK_EV_SUCCESS], 40, 1e-9);
    hk_status_file_free(&sf);
    const char nul[] = "Key\tValue\nag_0_host\0name\ta\n";
    assert_int_equal(hk_statread(nul, sizeof nul - 1, "st.txt", &sf, &e), -1);
    assert_non_null(strstr(e.msg, "NUL"));
}

/* Rates are per attempt, never per event: an idle mirror's pings are events but no attempt, so
 * its warning and refusal rates are over the attempts left once the pings are estimated; and
 * one outcome an attempt: timeouts and refusals never add up past 1, whatever the counts
 * (an invariant, since the pings estimate never exceeds the successes: checked over 20,000
 * random windows rather than enforced by a cap). */
static void rates_per_attempt(void **st)
{
    (void)st;
    hk_cluster *cl = cluster("searchd { ha_period_karma = 2  ha_ping_interval = 200 }\n"
                             "index d { type = distributed\n agent = a:9312|b:9312:s\n}\n",
                             HK_DIALECT_SPHINX2);
    int b = hk_cluster_find_host(cl, "b:9312");
    char w[600];
    hk_status_file sf;
    hk_err e;
    hk_calib_host *c;
    snprintf(w, sizeof w, "Key\tValue\nstatus_period_seconds\t2\nag_0_hostname\tb:9312\n"
             "ag_0_15periods_succeeded_queries\t100\nag_0_15periods_warnings\t10\n"
             "ag_0_15periods_connect_failures\t5\nag_0_5periods_succeeded_queries\t40\n"
             "ag_0_1periods_succeeded_queries\t8\n");
    assert_int_equal(hk_statread(w, strlen(w), "w.txt", &sf, &e), 0);
    assert_int_equal(hk_calib(&sf, cl, &c), 0);
    assert_true(c[b].pings_est > 10);                  /* mostly pings: the rates differ */
    assert_near(c[b].p_warning, 10 / c[b].attempts, 1e-9);
    assert_near(c[b].p_refuse, 5 / c[b].attempts, 1e-9);
    free(c);
    hk_status_file_free(&sf);
    unsigned long long x = 88172645463325252ull;
    for (int i = 0; i < 20000; i++) {
        int n[5];
        for (int k = 0; k < 5; k++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            n[k] = (int)(x % (k == 0 ? 400 : 60));
        }
        snprintf(w, sizeof w, "Key\tValue\nstatus_period_seconds\t2\nag_0_hostname\tb:9312\n"
                 "ag_0_15periods_succeeded_queries\t%d\nag_0_15periods_query_timeouts\t%d\n"
                 "ag_0_15periods_connect_timeouts\t%d\nag_0_15periods_connect_failures\t%d\n"
                 "ag_0_15periods_warnings\t%d\n", n[0], n[1], n[2], n[3], n[4]);
        assert_int_equal(hk_statread(w, strlen(w), "w.txt", &sf, &e), 0);
        assert_int_equal(hk_calib(&sf, cl, &c), 0);
        assert_true(c[b].p_timeout + c[b].p_refuse <= 1.0);
        assert_true(c[b].p_timeout >= 0 && c[b].p_refuse >= 0 && c[b].p_warning <= 1.0);
        free(c);
        hk_status_file_free(&sf);
    }
    hk_cluster_free(cl);
}

int main(void)
{
    const struct CMUnitTest t[] = {
        cmocka_unit_test(rates_per_attempt),
        cmocka_unit_test(round_trip_sphinx2),
        cmocka_unit_test(boxed_and_manticore),
        cmocka_unit_test(manticore_hidden_timeouts),
        cmocka_unit_test(errors_at_their_line),
    };
    return cmocka_run_group_tests(t, NULL, NULL);
}
