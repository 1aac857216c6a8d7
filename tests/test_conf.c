/* Config syntax: sections, inheritance, comments, continuation, one-line
 * sections, and the position of every syntax error. */
#include <string.h>
#include "hk_conf.h"
#include "hk_test.h"

static hk_conf *ok(const char *text)
{
    hk_conf *c = NULL;
    hk_err e;
    int rc = hk_conf_parse(text, strlen(text), "t.conf", &c, &e);
    if (rc < 0)
        fail_msg("unexpected error %d:%d %s", e.line, e.col, e.msg);
    return c;
}

static void bad(const char *text, int line, int col, const char *needle)
{
    hk_conf *c = NULL;
    hk_err e;
    assert_int_equal(hk_conf_parse(text, strlen(text), "t.conf", &c, &e), -1);
    assert_null(c);
    assert_string_equal(e.file, "t.conf");
    if (e.line != line || e.col != col || !strstr(e.msg, needle))
        fail_msg("got %d:%d '%s', want %d:%d '%s'", e.line, e.col, e.msg, line, col, needle);
}

static void sections_and_keys(void **st)
{
    (void)st;
    hk_conf *c = ok("# comment\nsearchd\n{\n  listen = 9312   # trailing\n"
                    "  ha_period_karma = 2m\n}\n"
                    "index d {\n type = distributed\n agent = a:1:x\n agent = b:2:y\n}\n");
    assert_int_equal(c->n, 2);
    const hk_section *s = hk_conf_find(c, "searchd", NULL);
    assert_non_null(s);
    assert_string_equal(hk_sec_last(s, "listen")->value, "9312");
    assert_int_equal(hk_sec_last(s, "ha_period_karma")->vline, 5);
    assert_int_equal(hk_sec_last(s, "ha_period_karma")->vcol, 21);
    const hk_section *d = hk_conf_find(c, "table", "d");
    assert_int_equal(hk_sec_count(d, "agent"), 2);
    assert_string_equal(hk_sec_get(d, "agent", 1)->value, "b:2:y");
    hk_conf_free(c);
}

static void inheritance(void **st)
{
    (void)st;
    hk_conf *c = ok("index base { type = distributed\n agent = a:1:x\n agent = b:1:x\n"
                    " ha_strategy = nodeads\n}\n"
                    "index kid : base { agent = c:1:z\n}\n"
                    "table kid2:base {\n}\n");
    const hk_section *k = hk_conf_find(c, "index", "kid");
    assert_int_equal(hk_sec_count(k, "agent"), 1);          /* child replaces */
    assert_string_equal(hk_sec_last(k, "ha_strategy")->value, "nodeads");
    assert_string_equal(hk_sec_last(k, "type")->value, "distributed");
    const hk_section *k2 = hk_conf_find(c, "table", "kid2");
    assert_int_equal(hk_sec_count(k2, "agent"), 2);
    hk_conf_free(c);
}

static void continuation_and_escapes(void **st)
{
    (void)st;
    hk_conf *c = ok("index d {\n  agent = a:1:x|\\\n          b:1:x\n  sql = a \\# b # c\n}\n");
    const hk_section *d = hk_conf_find(c, "index", "d");
    assert_string_equal(hk_sec_last(d, "agent")->value, "a:1:x|b:1:x"); /* next line's indent dropped */
    assert_string_equal(hk_sec_last(d, "sql")->value, "a # b");
    hk_conf_free(c);
}

static void one_line_sections(void **st)
{
    (void)st;
    hk_conf *c = ok("searchd  { ha_period_karma = 60s  ha_ping_interval = 1000 }\n"
                    "mirror box1:9312 { service = lognormal(median=10ms, sigma=0.4) threads = 4 }"
                    "   # note\nsim { seed = 1 }\n");
    const hk_section *s = hk_conf_find(c, "searchd", NULL);
    assert_string_equal(hk_sec_last(s, "ha_period_karma")->value, "60s");
    assert_string_equal(hk_sec_last(s, "ha_ping_interval")->value, "1000");
    const hk_section *m = hk_conf_find(c, "mirror", "box1:9312");
    assert_non_null(m);
    assert_string_equal(hk_sec_last(m, "service")->value, "lognormal(median=10ms, sigma=0.4)");
    assert_string_equal(hk_sec_last(m, "threads")->value, "4");
    assert_non_null(hk_conf_find(c, "sim", NULL));
    hk_conf_free(c);
}

static void errors_have_positions(void **st)
{
    (void)st;
    bad("searchd {\n  listen 9312\n}\n", 2, 10, "expected '='");
    bad("index d {\n  type = distributed\n", 3, 1, "expected '}' to close section 'index'");
    bad("index d\n  type = x\n", 2, 3, "expected '{'");
    bad("= 3\n", 1, 1, "expected a section");
    bad("index d {\n  9x = 1\n}\n", 2, 3, "expected a key name");
    bad("index kid : nope {\n}\n", 1, 1, "parent doesn't exist");
    /* searchd copies a parent when it reads the child: it must come first (no cycles possible) */
    bad("index a : b {\n}\nindex b : a {\n}\n", 1, 1, "defined before it");
    bad("index a : a {\n}\n", 1, 1, "parent doesn't exist");
    bad("index a: {\n}\n", 1, 10, "expected a parent name after ':'");
    /* two sections of one name: searchd refuses them (index and table are one family) */
    bad("index a {\n}\ntable a {\n}\n", 3, 1, "already exists at line 1, column 1");
    bad("searchd {\n}\nsearchd {\n}\n", 3, 1, "(type='searchd') already exists");
    bad("source s {\n}\nsource x : s {\n}\nsource x {\n}\n", 5, 1, "already exists");
    bad("index a : {\n}\n", 1, 11, "expected a parent name");
    bad("searchd {\n}\nindex\n", 4, 1, "expected a name or '{'");
    hk_conf *c = NULL;
    hk_err e;
    assert_int_equal(hk_conf_parse("index d {\0}", 11, "nul.conf", &c, &e), -1);
    assert_int_equal(e.line, 0);
    assert_int_equal(e.col, 9);
}

static void empty_and_comment_only(void **st)
{
    (void)st;
    hk_conf *c = ok("");
    assert_int_equal(c->n, 0);
    hk_conf_free(c);
    c = ok("# only\n\n   # comments\n");
    assert_int_equal(c->n, 0);
    hk_conf_free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sections_and_keys),     cmocka_unit_test(inheritance),
        cmocka_unit_test(continuation_and_escapes), cmocka_unit_test(one_line_sections),
        cmocka_unit_test(errors_have_positions), cmocka_unit_test(empty_and_comment_only),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
