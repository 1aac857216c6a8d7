/* hk_sqlp against answers captured from a real Sphinx 2.2.11 searchd's SphinxQL listener (a
 * result set with rows, an ERR, a bare OK, SHOW STATUS), and malformed answers: each says
 * which byte and what was expected. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hk_sqlp.h"
#include "hk_test.h"

/* SELECT * FROM shard1 WHERE MATCH('hakarma') over two rows (id, gid) */
static const char *SELECT_HEX =
    "01000001021a000002036465660000000269640269640c2100140000000800000000001c00000303646566"
    "00000003676964036769640c21000b00000003000000000005000004fe000000000400000501310131040000"
    "060132013205000007fe00000000";
static const char *ERROR_HEX =
    "38000001ff2804233432303030756e6b6e6f776e206c6f63616c20696e64657820276e6f737563682720696e"
    "20736561726368207265717565737400";
static const char *OK_HEX = "0700000100000000000000";     /* SHOW WARNINGS, none */
static const char *STATUS_HEX =
    "0100000102240000020364656600000007436f756e74657207436f756e7465720c2100ff000000fe00000000"
    "0020000003036465660000000556616c75650556616c75650c2100ff000000fe000000000005000004fe0000"
    "00000900000506757074696d65013505000006fe00000000";

/* Feed a stream of packets: the answer's end code (MORE when the bytes ran out). */
static int feed(hk_sqlp *p, const uint8_t *b, size_t len, int keep)
{
    hk_sqlp_begin(p, keep);
    size_t off = 0, n, used;
    int rc = HK_SQLP_MORE;
    while (rc == HK_SQLP_MORE && hk_sqlp_split(b + off, len - off, &n, &used) == 1) {
        rc = hk_sqlp_packet(p, b + off + 4, n);
        off += used;
    }
    return rc;
}

static int feed_hex(hk_sqlp *p, const char *hex, int keep)
{
    uint8_t b[256];
    return feed(p, b, hk_test_unhex(hex, b), keep);
}

static void result_set(void **st)
{
    (void)st;
    hk_sqlp p = {0};
    assert_int_equal(feed_hex(&p, SELECT_HEX, 1), HK_SQLP_OK);
    assert_int_equal(p.ncols, 2);
    assert_int_equal(p.rows, 2);
    assert_int_equal(p.warnings, 0);
    assert_string_equal(p.tsv.s, "1\t1\n2\t2\n");
    assert_int_equal(feed_hex(&p, STATUS_HEX, 1), HK_SQLP_OK);
    assert_string_equal(p.tsv.s, "uptime\t5\n");
    assert_int_equal(feed_hex(&p, SELECT_HEX, 0), HK_SQLP_OK);   /* counted, not kept */
    assert_int_equal(p.rows, 2);
    assert_int_equal(p.tsv.len, 0);
    hk_sqlp_free(&p);
}

/* The row hook: each kept row's line as it is decoded, before the answer ends. */
static void collect(void *ctx, const char *line, size_t len)
{
    hk_buf *b = ctx;
    hk_buf_put(b, line, len);
    hk_buf_put(b, "|", 1);
}

static void rows_as_they_come(void **st)
{
    (void)st;
    hk_buf seen;
    hk_buf_init(&seen);
    hk_sqlp p = {.row = collect, .row_ctx = &seen};
    assert_int_equal(feed_hex(&p, SELECT_HEX, 1), HK_SQLP_OK);
    assert_string_equal(seen.s, "1\t1|2\t2|");
    hk_buf_reset(&seen);
    assert_int_equal(feed_hex(&p, SELECT_HEX, 0), HK_SQLP_OK);   /* not kept: not handed */
    assert_int_equal(seen.len, 0);
    hk_sqlp_free(&p);
    hk_buf_free(&seen);
}

static void err_and_ok(void **st)
{
    (void)st;
    hk_sqlp p = {0};
    assert_int_equal(feed_hex(&p, ERROR_HEX, 0), HK_SQLP_ERR);
    assert_string_equal(p.msg, "unknown local index 'nosuch' in search request");
    assert_int_equal(feed_hex(&p, OK_HEX, 0), HK_SQLP_OK);
    assert_int_equal(p.rows, 0);
    /* an OK's warning count, and an EOF's */
    static const uint8_t okw[] = {7, 0, 0, 1, 0, 0, 0, 2, 0, 3, 0};
    assert_int_equal(feed(&p, okw, sizeof okw, 0), HK_SQLP_OK);
    assert_int_equal(p.warnings, 3);
    uint8_t b[256];
    size_t n = hk_test_unhex(SELECT_HEX, b);
    b[n - 4] = 2;                                /* the last EOF: 2 warnings */
    assert_int_equal(feed(&p, b, n, 0), HK_SQLP_OK);
    assert_int_equal(p.warnings, 2);
    hk_sqlp_free(&p);
}

static void split_anywhere(void **st)
{
    (void)st;
    uint8_t b[256];
    size_t len = hk_test_unhex(SELECT_HEX, b), n, used;
    for (size_t cut = 0; cut < len; cut++) {     /* a packet is whole or not there */
        size_t off = 0;
        while (hk_sqlp_split(b + off, cut - off, &n, &used) == 1)
            off += used;
        assert_true(off <= cut);
        assert_int_equal(hk_sqlp_split(b + off, len - off, &n, &used), off < len);
    }
    static const uint8_t huge[4] = {0xff, 0xff, 0xff, 0};   /* 16 MB - 1: fine, needs more */
    assert_int_equal(hk_sqlp_split(huge, 4, &n, &used), 0);
}

static void malformed(void **st)
{
    (void)st;
    hk_sqlp p = {0};
    uint8_t b[256];
    size_t len = hk_test_unhex(SELECT_HEX, b);
    /* the first row's second column claims 9 bytes: past its packet */
    size_t row = 76 + 4;                          /* header of packet 5, then "\x01" "1" */
    assert_int_equal(b[row], 1);
    b[row + 2] = 9;
    assert_int_equal(feed(&p, b, len, 1), HK_SQLP_BAD);
    assert_non_null(strstr(p.msg, "byte 82 of the answer: expected a column of the row"));
    /* a row with a byte too many */
    static const uint8_t extra[] = {1, 0, 0, 1, 1,  1, 0, 0, 2, 0xfe,  3, 0, 0, 3, 1, 'x', 'y'};
    assert_int_equal(feed(&p, extra, sizeof extra, 1), HK_SQLP_BAD);
    assert_non_null(strstr(p.msg, "the row's end"));
    /* an OK cut short; a column count that is 0xff */
    static const uint8_t shortok[] = {2, 0, 0, 1, 0, 0};
    assert_int_equal(feed(&p, shortok, sizeof shortok, 0), HK_SQLP_BAD);
    static const uint8_t ffcount[] = {1, 0, 0, 1, 0xfe};
    assert_int_equal(feed(&p, ffcount, sizeof ffcount, 0), HK_SQLP_BAD);
    assert_non_null(strstr(p.msg, "byte 4 of the answer: expected OK, ERR or a column count"));
    hk_sqlp_free(&p);
}

int main(void)
{
    const struct CMUnitTest t[] = {
        cmocka_unit_test(result_set), cmocka_unit_test(rows_as_they_come),
        cmocka_unit_test(err_and_ok),
        cmocka_unit_test(split_anywhere), cmocka_unit_test(malformed)};
    return cmocka_run_group_tests(t, NULL, NULL);
}
