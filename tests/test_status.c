/* SHOW AGENT STATUS: row counts and key names per layout (42 rows a host in
 * Sphinx 2.2.11, 49 in Manticore), values, and the dist-table form. */
#include <stdio.h>
#include <string.h>
#include "hk_status.h"
#include "hk_test.h"

#define S(x) ((int64_t)(x) * 1000000)

static int rows(const char *s)
{
    int n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

static const char *val(const char *s, const char *key, char *out)
{
    char pat[128];
    snprintf(pat, sizeof pat, "\n%s\t", key);
    const char *p = strstr(s, pat);
    if (!p)
        return NULL;
    p += strlen(pat);
    size_t n = strcspn(p, "\n");
    memcpy(out, p, n);
    out[n] = '\0';
    return out;
}

static hk_dash *fixture(void)
{
    hk_dash *d = hk_dash_array_new(1, 60);
    assert_non_null(d);
    for (int i = 0; i < 11; i++) {
        hk_dash_begin(d, S(100) - 4000);
        hk_dash_record(d, S(100), HK_EV_SUCCESS, S(100) - 4000, 0, 250);
    }
    hk_dash_record(d, S(101), HK_EV_CONNECT_FAILURE, S(101), 0, -1);
    return d;
}

static void sphinx2_layout(void **st)
{
    (void)st;
    hk_dash *d = fixture();
    hk_status_host h[2] = {{.name = "box1:9312", .refs = 2, .pinged = 1,
                            .dash = d}, {.name = "box2:9312", .refs = 1, .pinged = 1,
                                                       .dash = d}};
    hk_buf b;
    hk_buf_init(&b);
    hk_status_global(&b, hk_variant_get(HK_VAR_SPHINX2), 60, h, 2, S(102));
    assert_int_equal(rows(b.s), 3 + 2 * 42);
    char v[64];
    assert_string_equal(val(b.s, "status_period_seconds", v), "60");
    assert_string_equal(val(b.s, "status_stored_periods", v), "15");
    assert_string_equal(val(b.s, "ag_0_hostname", v), "box1:9312");
    assert_string_equal(val(b.s, "ag_0_references", v), "2");
    assert_string_equal(val(b.s, "ag_0_lastanswer", v), "1.00");
    assert_string_equal(val(b.s, "ag_0_errorsarow", v), "1");
    assert_string_equal(val(b.s, "ag_0_1periods_succeeded_queries", v), "11");
    assert_string_equal(val(b.s, "ag_0_1periods_connect_failures", v), "1");
    assert_string_equal(val(b.s, "ag_0_1periods_msecsperqueryy", v), "3.67"); /* 44 ms / 12 */
    assert_string_equal(val(b.s, "ag_0_1periods_connect_avg", v), "250");
    assert_string_equal(val(b.s, "ag_1_15periods_connect_max", v), "250");
    assert_null(val(b.s, "ag_0_1periods_wrong_query", v));
    hk_buf_free(&b);
    hk_dash_array_free(d);
}

static void manticore_layout(void **st)
{
    (void)st;
    hk_dash *d = fixture();
    d->ping_trip_us = 1234;
    hk_status_host h[1] = {{.name = "box1:9312", .refs = 2, .pinged = 1, .perspool = 1, .dash = d}};
    hk_buf b;
    hk_buf_init(&b);
    hk_status_global(&b, hk_variant_get(HK_VAR_MANTICORE), 60, h, 1, S(102));
    assert_int_equal(rows(b.s), 3 + 49);
    char v[64];
    assert_string_equal(val(b.s, "ag_0_ping", v), "yes");
    assert_string_equal(val(b.s, "ag_0_has_perspool", v), "yes");
    assert_string_equal(val(b.s, "ag_0_lastanswer", v), "1.00");
    assert_string_equal(val(b.s, "ag_0_pingtripmsec", v), "1.234");
    /* the per-period rows as Manticore's code prints them today */
    assert_string_equal(val(b.s, "ag_0_1periods_msecsperqueryy", v), "n/a");
    assert_null(val(b.s, "ag_0_1periods_query_timeouts", v));
    assert_string_equal(val(b.s, "ag_0_1periods_connect_failures", v), "0.00"); /* 1/10 */
    assert_string_equal(val(b.s, "ag_0_1periods_succeeded_queries", v), "11");
    /* measured on a real master: windows never sum query time (issue 14, item 3) */
    assert_string_equal(val(b.s, "ag_0_1periods_total_query_time", v), "0");
    assert_string_equal(val(b.s, "ag_0_15periods_total_query_time", v), "0");
    assert_string_equal(val(b.s, "ag_0_5periods_wrong_query", v), "0");
    hk_buf_free(&b);
    /* manticore-fixed sums it */
    hk_buf_init(&b);
    hk_status_global(&b, hk_variant_get(HK_VAR_MANTICORE_FIXED), 60, h, 1, S(102));
    assert_string_equal(val(b.s, "ag_0_1periods_total_query_time", v), "44000");
    hk_buf_free(&b);
    hk_dash_array_free(d);
}

static void table_form(void **st)
{
    (void)st;
    hk_status_mirror m1[2] = {{"box1:9312:shard1", 25.0, 0, 0}, {"box5:9312:shard1", 75.0, 0, 1}};
    hk_status_mirror m2[1] = {{"box2:9312:shard2", 100.0, 1, 0}};
    hk_status_line lines[2] = {{2, m1}, {1, m2}};
    const char *locals[1] = {"products_rt"};
    hk_buf b;
    hk_buf_init(&b);
    hk_status_table(&b, HK_LAYOUT_MANTICORE, locals, 1, lines, 2);
    char v[64];
    assert_string_equal(val(b.s, "dstindex_local_1", v), "products_rt");
    assert_string_equal(val(b.s, "dstindex_1_is_ha", v), "1");
    assert_string_equal(val(b.s, "dstindex_1mirror2_id", v), "box5:9312:shard1");
    assert_string_equal(val(b.s, "dstindex_1mirror1_probability_weight", v), "25.00%");
    assert_string_equal(val(b.s, "dstindex_1mirror2_is_persistent", v), "1");
    assert_string_equal(val(b.s, "dstindex_2_is_ha", v), "0");
    assert_string_equal(val(b.s, "dstindex_2agent_is_blackhole", v), "1");
    assert_null(val(b.s, "dstindex_2agent_probability_weight", v));
    hk_buf_reset(&b);
    m1[0].weight = 32767;
    hk_status_table(&b, HK_LAYOUT_SPHINX2, locals, 0, lines, 1);
    assert_string_equal(val(b.s, "dstindex_1mirror1_probability_weight", v), "32767");
    hk_buf_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sphinx2_layout), cmocka_unit_test(manticore_layout),
        cmocka_unit_test(table_form),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
