/* hk_statrd: a master's successive snapshots read by the keys of the last one read whole
 * say exactly what hk_statread says of each (counters, windows, errors and their lines),
 * from a text or row by row; snapshots whose keys changed (a host more, rows in another
 * order, a row missing or repeated, a value with a newline) are read whole, never misread. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hk_buf.h"
#include "hk_statread.h"
#include "hk_test.h"

/* A 2.2.11 status of n hosts, its counters from seed (rows in 2.2.11's order). */
static void status(hk_buf *b, int n, int seed)
{
    static const char *const names[] = {
        "query_timeouts", "connect_timeouts", "connect_failures", "network_errors",
        "wrong_replies", "unexpected_closings", "warnings", "succeeded_queries",
        "msecsperqueryy", "connect_count", "connect_avg", "connect_max"};
    static const int periods[] = {1, 5, 15};
    hk_buf_reset(b);
    hk_buf_printf(b, "status_period_seconds\t2\nstatus_stored_periods\t15\n");
    for (int i = 0; i < n; i++) {
        hk_buf_printf(b, "ag_%d_hostname\t10.0.0.%d:9312\nag_%d_references\t1\n"
                      "ag_%d_errorsarow\t%d\n", i, i + 1, i, i, (seed + i) % 3);
        for (int w = 0; w < 3; w++)
            for (int k = 0; k < 12; k++) {
                int v = (seed * 31 + i * 7 + k * 3 + w) % 50 * periods[w];
                if (k == 8)
                    hk_buf_printf(b, "ag_%d_%dperiods_%s\t%d.%02d\n", i, periods[w], names[k],
                                  v / 10, v % 100);
                else
                    hk_buf_printf(b, "ag_%d_%dperiods_%s\t%d\n", i, periods[w], names[k], v);
            }
    }
}

static void same_as_statread(const hk_status_file *a, const hk_status_file *b)
{
    assert_int_equal(a->layout, b->layout);
    assert_int_equal(a->periods, b->periods);
    assert_int_equal(a->period_s, b->period_s);
    assert_int_equal(a->nhosts, b->nhosts);
    for (int i = 0; i < a->nhosts; i++)
        assert_memory_equal(&a->h[i], &b->h[i], sizeof a->h[i]);
}

/* text read by r (rows: row by row) and by hk_statread: the same answer, or the same error. */
static int both(hk_statrd *r, const hk_buf *text, int rows, hk_err *e)
{
    hk_status_file a, b;
    hk_err ea = {0}, eb = {0};
    int ra = hk_statread(text->s, text->len, "s", &a, &ea), rb;
    if (rows) {
        hk_statrd_begin(r, "s");
        for (const char *s = text->s, *nl; s < text->s + text->len; s = nl + 1) {
            nl = memchr(s, '\n', (size_t)(text->s + text->len - s));
            hk_statrd_line(r, s, (size_t)(nl - s));
        }
        rb = hk_statrd_end(r, text->s, text->len, &b, &eb);
    } else {
        rb = hk_statrd_read(r, text->s, text->len, "s", &b, &eb);
    }
    assert_int_equal(ra, rb);
    if (ra == 0) {
        same_as_statread(&a, &b);
        hk_status_file_free(&a);
        hk_status_file_free(&b);
    } else {
        assert_string_equal(ea.msg, eb.msg);
        assert_int_equal(ea.line, eb.line);
        *e = ea;
    }
    return ra;
}

static void snapshots(void **st)
{
    (void)st;
    hk_buf t;
    hk_buf_init(&t);
    hk_err e;
    for (int rows = 0; rows < 2; rows++) {
        hk_statrd *r = hk_statrd_new();
        assert_non_null(r);
        for (int s = 0; s < 6; s++) {       /* the same keys, other values */
            status(&t, 5, s);
            assert_int_equal(both(r, &t, rows, &e), 0);
        }
        status(&t, 6, 9);                   /* a host more */
        assert_int_equal(both(r, &t, rows, &e), 0);
        status(&t, 4, 9);                   /* a host less */
        assert_int_equal(both(r, &t, rows, &e), 0);
        status(&t, 4, 10);                  /* a row missing */
        char *x = strstr(t.s, "ag_2_5periods_warnings"), *nl = strchr(x, '\n') + 1;
        memmove(x, nl, (size_t)(t.s + t.len - nl) + 1);
        t.len -= (size_t)(nl - x);
        assert_int_equal(both(r, &t, rows, &e), 0);
        status(&t, 4, 11);                  /* and back */
        assert_int_equal(both(r, &t, rows, &e), 0);
        hk_statrd_free(r);
    }
    hk_buf_free(&t);
}

/* Changed keys on the known path: read whole, and what a whole read says. */
static void keys_changed(void **st)
{
    (void)st;
    hk_buf t, u;
    hk_buf_init(&t);
    hk_buf_init(&u);
    hk_err e;
    for (int rows = 0; rows < 2; rows++) {
        hk_statrd *r = hk_statrd_new();
        status(&t, 3, 1);
        assert_int_equal(both(r, &t, rows, &e), 0);
        /* a row repeated (two snapshots pasted): refused, naming both lines */
        status(&t, 3, 2);
        hk_buf_reset(&u);
        hk_buf_put(&u, t.s, t.len);
        hk_buf_printf(&u, "ag_1_1periods_query_timeouts\t4\n");
        assert_int_equal(both(r, &u, rows, &e), -1);
        assert_non_null(strstr(e.msg, "given twice"));
        /* two rows swapped: the same counters */
        status(&t, 3, 3);
        char *a = strstr(t.s, "ag_0_1periods_query_timeouts"), *b = strstr(a, "\n") + 1;
        char *c = strstr(b, "\n") + 1, tmp[256];
        size_t la = (size_t)(b - a), lb = (size_t)(c - b);
        memcpy(tmp, a, la);
        memmove(a, b, lb);
        memcpy(a + lb, tmp, la);
        assert_int_equal(both(r, &t, rows, &e), 0);
        /* a bad value where the keys are known: the same error, the same line */
        status(&t, 3, 4);
        assert_int_equal(both(r, &t, rows, &e), 0);
        char *v = strstr(t.s, "ag_2_15periods_connect_count\t") + 29;
        *v = 'x';
        assert_int_equal(both(r, &t, rows, &e), -1);
        assert_non_null(strstr(e.msg, "ag_2_15periods_connect_count"));
        /* a value with a tab or trailing blanks: trimmed as a whole read trims it */
        status(&t, 3, 5);
        hk_buf_reset(&u);
        for (const char *s = t.s, *nl; s < t.s + t.len; s = nl + 1) {
            nl = strchr(s, '\n');
            hk_buf_put(&u, s, (size_t)(nl - s));
            hk_buf_put(&u, strstr(s, "errorsarow") && strstr(s, "errorsarow") < nl ? " \r\n"
                       : "\n", strstr(s, "errorsarow") && strstr(s, "errorsarow") < nl ? 3 : 1);
        }
        assert_int_equal(both(r, &u, rows, &e), 0);
        hk_statrd_free(r);
    }
    hk_buf_free(&t);
    hk_buf_free(&u);
}

/* Line k of text (no newline) at *at, *len bytes. */
static void line_of(const hk_buf *t, int k, const char **at, size_t *len)
{
    const char *s = t->s;
    for (int i = 0; i < k; i++)
        s = strchr(s, '\n') + 1;
    *at = s;
    *len = (size_t)(strchr(s, '\n') - s);
}

/* text with line k's bytes [from, to) replaced by rep, into out. */
static void edit(const hk_buf *t, int k, size_t from, size_t to, const char *rep, hk_buf *out)
{
    const char *at;
    size_t len;
    line_of(t, k, &at, &len);
    hk_buf_reset(out);
    hk_buf_put(out, t->s, (size_t)(at - t->s) + from);
    hk_buf_put(out, rep, strlen(rep));
    hk_buf_put(out, at + to, (size_t)(t->s + t->len - at - to));
}

/* Every row's fast reading (a count at once, a row that only notes its host, keys compared
 * by words of 8, 4 and 1 bytes) says what a whole read says: 3,000 random edits of a known
 * snapshot's values and keys (first, middle and last byte), each read against the list. */
static void edits_alike(void **st)
{
    (void)st;
    static const char *const vals[] = {"0", "7", "12", "999999999999999", "1000000000000000",
                                       "1.5", "1.", ".5", "n/a", "", " 3", "3 ", "3\r", "-1",
                                       "x", "1e3", "0x10", "\t", "10.0.0.9:9312", "0007"};
    hk_buf base, t, big;
    hk_buf_init(&base);
    hk_buf_init(&t);
    hk_buf_init(&big);
    for (int i = 0; i < 600; i++)
        hk_buf_put(&big, "9", 1);
    hk_err e;
    unsigned seed = 7;
    for (int rows = 0; rows < 2; rows++) {
        hk_statrd *r = hk_statrd_new();
        assert_non_null(r);
        for (int n = 0; n < 1500; n++) {
            status(&base, 3, n % 5);
            hk_buf_printf(&base, "up\t1\nuptime\t2\nabcdefgh\t3\nabcdefghijklm\t4\n");
            assert_int_equal(both(r, &base, rows, &e), 0); /* the list: these keys */
            seed = seed * 1103515245u + 12345u;
            int nl = 0;
            for (const char *c = base.s; *c; c++)
                nl += *c == '\n';
            int k = (int)(seed >> 8) % nl, what = (int)(seed >> 20) % 5;
            const char *at;
            size_t len;
            line_of(&base, k, &at, &len);
            size_t tab = (size_t)(strchr(at, '\t') - at);
            char key[2] = {(char)('a' + (seed >> 3) % 26), 0};
            if (what <= 1)       /* a value replaced */
                edit(&base, k, tab + 1, len, what ? big.s : vals[(seed >> 12) % 20], &t);
            else                 /* a key's first, middle or last byte */
                edit(&base, k, what == 2 ? 0 : what == 3 ? tab / 2 : tab - 1,
                     (what == 2 ? 0 : what == 3 ? tab / 2 : tab - 1) + 1, key, &t);
            both(r, &t, rows, &e);
        }
        status(&base, 3, 1);     /* rows: a value holding a newline is read whole */
        assert_int_equal(both(r, &base, rows, &e), 0);
        edit(&base, 3, 16, 17, "1\n5", &t); /* ag_0_references\t1 -> 1<NL>5 */
        hk_status_file a, b;
        hk_err ea = {0}, eb = {0};
        int ra = hk_statread(t.s, t.len, "s", &a, &ea), rb;
        hk_statrd_begin(r, "s");
        for (int k = 0; k < 2 + 3 * 39; k++) {
            const char *at;
            size_t len;
            line_of(&base, k, &at, &len);
            hk_statrd_line(r, k == 3 ? "ag_0_references\t1\n5" : at, k == 3 ? 19 : len);
        }
        rb = hk_statrd_end(r, t.s, t.len, &b, &eb);
        assert_int_equal(ra, rb);
        assert_string_equal(ea.msg, eb.msg);
        if (ra == 0) {
            same_as_statread(&a, &b);
            hk_status_file_free(&a);
            hk_status_file_free(&b);
        }
        hk_statrd_free(r);
    }
    hk_buf_free(&base);
    hk_buf_free(&t);
    hk_buf_free(&big);
}

/* Row by row: a snapshot that breaks off (never ended) is let go; the next one is read. */
static void broken_off(void **st)
{
    (void)st;
    hk_buf t;
    hk_buf_init(&t);
    hk_err e;
    hk_statrd *r = hk_statrd_new();
    status(&t, 4, 1);
    assert_int_equal(both(r, &t, 1, &e), 0);
    hk_statrd_begin(r, "s");
    hk_statrd_line(r, "ag_0_hostname\t10.0.0.1:9312", 26);
    status(&t, 4, 2);
    assert_int_equal(both(r, &t, 1, &e), 0);
    hk_statrd_begin(r, "s");                /* and one freed half-read */
    hk_statrd_line(r, "ag_0_hostname\t10.0.0.1:9312", 26);
    hk_statrd_free(r);
    hk_buf_free(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(snapshots), cmocka_unit_test(keys_changed),
                                       cmocka_unit_test(edits_alike), cmocka_unit_test(broken_off)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
