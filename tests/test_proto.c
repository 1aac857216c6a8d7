/* Agent protocol codec against the bytes captured from a real Sphinx 2.2.11
 * master (spec §8.6), round trips, and malformed input at every length. */
#include <stdio.h>
#include <string.h>
#include "hk_frame.h"
#include "hk_proto.h"
#include "hk_test.h"

static const char *CAPTURE_HEX =
    "0000011f000000e0"
    "0000000e00000001"
    "0000004000000000000003e8000000060000000000000004"
    "0000000c" "40776569676874206465736300"
    ;

static void request_matches_capture(void **st)
{
    (void)st;
    hk_bytes b;
    hk_bytes_init(&b);
    hk_search_req_build(&b, "hello world", "myshard", 1000);
    assert_int_equal(b.len, 232);              /* 236 captured minus the 4-byte hello */
    uint8_t want[64];
    size_t n = hk_test_unhex(CAPTURE_HEX, want);
    assert_memory_equal(b.p, want, n - 1);     /* header .. "@weight desc" */
    /* the tail: groupby limit 1 then 5 empty strings */
    static const uint8_t tail[24] = {0, 0, 0, 1};
    assert_memory_equal(b.p + b.len - 24, tail, 24);
    hk_search_req q;
    hk_rd r;
    assert_int_equal(hk_search_req_parse(b.p + 8, b.len - 8, &q, &r), 0);
    assert_int_equal(q.master_ver, 14);
    assert_int_equal(q.nqueries, 1);
    assert_int_equal(q.limit, 1000);
    assert_string_equal(q.query, "hello world");
    assert_string_equal(q.indexes, "myshard");
    /* a SEARCH of 0 queries, or of 257 field weights, is refused where it says so */
    uint8_t *body = b.p + 8;
    size_t blen = b.len - 8;
    body[7] = 0; /* the query count (after the master version) */
    assert_int_equal(hk_search_req_parse(body, blen, &q, &r), -1);
    assert_int_equal(r.err_off, 4);
    assert_non_null(strstr(r.what, "a query count of 1..32"));
    body[7] = 1;
    size_t at = 0;
    while (at + 11 <= blen && memcmp(body + at, "hello world", 11))
        at++;
    assert_true(at + 11 <= blen);
    uint8_t *nw = body + at + 11; /* the weight count follows the query text */
    memcpy(nw, "\0\0\1\1", 4);
    assert_int_equal(hk_search_req_parse(body, blen, &q, &r), -1);
    assert_int_equal(r.err_off, (size_t)(nw - body));
    assert_non_null(strstr(r.what, "at most 256 field weights"));
    hk_bytes_free(&b);
}

static void reply_matches_capture(void **st)
{
    (void)st;
    hk_bytes b;
    hk_bytes_init(&b);
    hk_search_reply_build(&b, HK_ST_OK, NULL, 1, 0, 0, 0);
    uint8_t want[64];
    size_t n = hk_test_unhex("0000011f00000031"                   /* header: OK, 0x11F, 49 */
                     "00000000" "00000000" "00000000" "00000000" /* status, fields, attrs, matches */
                     "00000001" "00000000" "00000000" "00000000" /* id64, retrieved, total, ms */
                     "00"                                        /* stat mask */
                     "00000000" "00000000" "00000000" "00000000", /* fetched x3, words */
                     want);
    assert_int_equal(n, 57);
    assert_int_equal(b.len, 57);
    assert_memory_equal(b.p, want, 57);
    hk_search_res res;
    hk_rd r;
    assert_int_equal(hk_search_reply_parse(HK_ST_OK, b.p + 8, b.len - 8, &res, &r), 0);
    assert_int_equal(res.matches, 0);
    /* a reply whose retrieved count is not its match count is refused there (byte 20) */
    uint8_t bad[64];
    memcpy(bad, want, 57);
    bad[8 + 23] = 1;
    assert_int_equal(hk_search_reply_parse(HK_ST_OK, bad + 8, 49, &res, &r), -1);
    assert_int_equal(r.err_off, 20);
    assert_non_null(strstr(r.what, "retrieved == match count"));
    hk_bytes_free(&b);
    hk_bytes_init(&b);
    /* a Manticore master: the `id` attribute (its SQL clients need a column), total_approx */
    hk_search_reply_build(&b, HK_ST_OK, NULL, 1, 1, 0, 3);
    assert_int_equal(b.len, 8 + 49 + 10 + 4);
    assert_memory_equal(b.p + 8 + 8, "\0\0\0\1\0\0\0\2id\0\0\0\6", 14);
    hk_bytes_free(&b);
    /* matches: documents 1..n, weight 1 (2.2.11: id and weight; Manticore: + the id value) */
    for (int m = 0; m < 2; m++) {
        hk_bytes_init(&b);
        hk_search_reply_build(&b, HK_ST_OK, NULL, 1, m, 3, 0);
        assert_int_equal(b.len, 57 + (m ? 14 : 0) + 3 * (m ? 20 : 12));
        hk_search_res res2;
        assert_int_equal(hk_search_reply_parse(HK_ST_OK, b.p + 8, b.len - 8, &res2, &r), 0);
        assert_int_equal(res2.matches, 3);
        assert_int_equal(res2.total_found, 3);
        hk_bytes_free(&b);
    }
}

static void warning_and_error_replies(void **st)
{
    (void)st;
    hk_bytes b;
    hk_bytes_init(&b);
    hk_search_reply_build(&b, HK_ST_WARNING, "slow disk", 1, 0, 5, 2);
    hk_hdr h;
    hk_hdr_read(b.p, &h);
    assert_int_equal(h.code, HK_ST_WARNING);
    assert_int_equal(h.len, b.len - 8);
    hk_search_res res;
    hk_rd r;
    assert_int_equal(hk_search_reply_parse(h.code, b.p + 8, h.len, &res, &r), 0);
    assert_string_equal(res.msg, "slow disk");
    assert_int_equal(res.total_found, 5);
    hk_bytes_free(&b);
    hk_bytes_init(&b);
    hk_search_reply_build(&b, HK_ST_ERROR, "unknown local index 'x'", 1, 0, 0, 0);
    hk_hdr_read(b.p, &h);
    assert_int_equal(hk_search_reply_parse(h.code, b.p + 8, h.len, &res, &r), 0);
    assert_int_equal(res.status, HK_ST_ERROR);
    assert_string_equal(res.msg, "unknown local index 'x'");
    hk_bytes_free(&b);
}

static void truncations_are_rejected(void **st)
{
    (void)st;
    hk_bytes q, a;
    hk_bytes_init(&q);
    hk_bytes_init(&a);
    hk_search_req_build(&q, "some text", "idx1,idx2", 20);
    hk_search_reply_build(&a, HK_ST_OK, NULL, 1, 0, 0, 0);
    /* the parse needs the body up to the index list; anything shorter fails in bounds */
    size_t need = 8 + 4 * 8 + 4 + 12 + 4 + 9 + 4 + 4 + 9;
    for (size_t n = 0; n < need - 8; n++) {
        hk_search_req x;
        hk_rd r;
        assert_int_equal(hk_search_req_parse(q.p + 8, n, &x, &r), -1);
        assert_true(r.err_off <= n);
        assert_non_null(r.what);
    }
    for (size_t n = 0; n < a.len - 8; n++) {
        hk_search_res res;
        hk_rd r;
        assert_int_equal(hk_search_reply_parse(HK_ST_OK, a.p + 8, n, &res, &r), -1);
        assert_true(r.err_off <= n);
    }
    hk_bytes_free(&q);
    hk_bytes_free(&a);
}

static void hostile_lengths(void **st)
{
    (void)st;
    /* a query count of 2^32-1 and a string length past the end */
    uint8_t body[16] = {0, 0, 0, 14, 0xff, 0xff, 0xff, 0xff};
    hk_search_req x;
    hk_rd r;
    assert_int_equal(hk_search_req_parse(body, sizeof body, &x, &r), -1);
    assert_int_equal(r.err_off, 4);
    uint8_t rep[12] = {0, 0, 0, 1, 0x7f, 0xff, 0xff, 0xff, 'a', 'b'};
    hk_search_res res;
    assert_int_equal(hk_search_reply_parse(HK_ST_OK, rep, sizeof rep, &res, &r), -1);
    assert_int_equal(hk_search_reply_parse(HK_ST_ERROR, rep + 4, 8, &res, &r), -1);
    assert_int_equal(hk_search_reply_parse(7, rep, sizeof rep, &res, &r), -1);
}

static void ping_and_persist(void **st)
{
    (void)st;
    hk_bytes b;
    hk_bytes_init(&b);
    hk_ping_build(&b, 3058233050u);
    uint8_t want[12];
    hk_test_unhex("0009010000000004b648eeda", want); /* 3058233050 */
    assert_memory_equal(b.p, want, 12);
    hk_bytes_free(&b);
    hk_bytes_init(&b);
    hk_persist_build(&b);
    hk_test_unhex("000400000000000400000001", want);
    assert_memory_equal(b.p, want, 12);
    hk_bytes_free(&b);
}

/* The framing limit is exact: a body of max_len bytes is read, one more closes. */
static void frame_limit_exact(void **st)
{
    (void)st;
    for (uint32_t extra = 0; extra < 2; extra++) {
        hk_frame f;
        hk_frame_init(&f, 100);
        uint8_t buf[8 + 101] = {0, 0, 0, 1};           /* hello, then a header */
        size_t used;
        hk_hdr h;
        assert_int_equal(hk_frame_step(&f, 1, buf, 4, &h, &used), HK_FR_HELLO);
        uint8_t *p = buf + 4;
        p[0] = 0; p[1] = 0;                             /* command SEARCH */
        p[2] = 1; p[3] = 0x1f;                          /* version */
        uint32_t len = 100 + extra;
        p[4] = (uint8_t)(len >> 24); p[5] = (uint8_t)(len >> 16);
        p[6] = (uint8_t)(len >> 8); p[7] = (uint8_t)len;
        int r = hk_frame_step(&f, 1, p, 8 + len, &h, &used);
        assert_int_equal(r, extra ? HK_FR_TOO_BIG : HK_FR_UNIT);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(request_matches_capture), cmocka_unit_test(reply_matches_capture),
        cmocka_unit_test(warning_and_error_replies), cmocka_unit_test(truncations_are_rejected),
        cmocka_unit_test(hostile_lengths), cmocka_unit_test(ping_and_persist),
        cmocka_unit_test(frame_limit_exact),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
