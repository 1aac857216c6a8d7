/* Agent-line grammar: every form in the spec, edge cases, error positions. */
#include <string.h>
#include "hk_agent.h"
#include "hk_test.h"

static hk_agent_line parse(const char *v, hk_warns *w)
{
    hk_agent_line a;
    hk_err e;
    hk_pos pos = {"t.conf", 7, 13};
    if (hk_agent_parse(v, "dist", pos, &a, &e, w) < 0)
        fail_msg("unexpected error at %d:%d: %s", e.line, e.col, e.msg);
    return a;
}

static void bad(const char *v, int col, const char *needle)
{
    hk_agent_line a;
    hk_err e;
    hk_pos pos = {"t.conf", 7, 13};
    assert_int_equal(hk_agent_parse(v, "dist", pos, &a, &e, NULL), -1);
    assert_int_equal(e.line, 7);
    if (e.col != 13 + col || !strstr(e.msg, needle))
        fail_msg("'%s': got col %d '%s', want %d '%s'", v, e.col, e.msg, 13 + col, needle);
}

static void check(const hk_mirror_addr *m, const char *host, int port, const char *idx)
{
    assert_string_equal(m->host, host);
    assert_int_equal(m->port, port);
    assert_string_equal(m->indexes, idx);
}

static void basic_forms(void **st)
{
    (void)st;
    hk_warns w = {0};
    hk_agent_line a = parse("box1:9312:shard1", &w);
    assert_int_equal(a.n, 1);
    check(&a.m[0], "box1", 9312, "shard1");
    hk_agent_line_free(&a);
    a = parse("box1:9312|box5:9312:shard1", &w);
    assert_int_equal(a.n, 2);
    check(&a.m[0], "box1", 9312, "shard1");
    check(&a.m[1], "box5", 9312, "shard1");
    hk_agent_line_free(&a);
    a = parse("n1:9312:idxA|n2:9313:idxB", &w);
    check(&a.m[0], "n1", 9312, "idxA");
    check(&a.m[1], "n2", 9313, "idxB");
    hk_agent_line_free(&a);
    a = parse("127.0.0.1:9312:idx1, idx2 ,idx3", &w);
    check(&a.m[0], "127.0.0.1", 9312, "idx1,idx2,idx3");
    hk_agent_line_free(&a);
    assert_int_equal(w.n, 0);
}

static void default_port_is_not_shared(void **st)
{
    (void)st;
    hk_warns w = {0};
    hk_agent_line a = parse("n1|n2|n3:9400:shard2", &w);
    assert_int_equal(a.n, 3);
    check(&a.m[0], "n1", 9312, "shard2");   /* Manticore: 9312, not n3's port */
    check(&a.m[1], "n2", 9312, "shard2");
    check(&a.m[2], "n3", 9400, "shard2");
    assert_true(a.m[0].default_port);
    assert_int_equal(w.n, 2);
    assert_int_equal(w.w[0].col, 13);
    assert_non_null(strstr(w.w[0].msg, "not shared"));
    hk_agent_line_free(&a);
    w.n = 0;
    a = parse("127.0.0.1:idx", &w);          /* ':' + non-digit: default port, index idx */
    check(&a.m[0], "127.0.0.1", 9312, "idx");
    hk_agent_line_free(&a);
    a = parse("bla", &w);                    /* host only: table name as index */
    check(&a.m[0], "bla", 9312, "dist");
    hk_agent_line_free(&a);
}

static void empty_index_takes_next(void **st)
{
    (void)st;
    hk_agent_line a = parse("box2:9312:|box6:9312:shard2", NULL);
    check(&a.m[0], "box2", 9312, "shard2");
    check(&a.m[1], "box6", 9312, "shard2");
    hk_agent_line_free(&a);
    a = parse("a:1|b:2:x|c:3", NULL);        /* last falls back to the table name */
    check(&a.m[0], "a", 1, "x");
    check(&a.m[2], "c", 3, "dist");
    hk_agent_line_free(&a);
}

static void spaces_and_sockets(void **st)
{
    (void)st;
    bad("h:1 | h:2 :idx", 9, "':' and an index list after the port");
    hk_agent_line a = parse(" h:1 | h:2:idx", NULL);
    assert_int_equal(a.n, 2);
    check(&a.m[1], "h", 2, "idx");
    hk_agent_line_free(&a);
    a = parse("/var/run/searchd.sock:shard1|box2:9312:shard1", NULL);
    assert_true(a.m[0].is_unix);
    check(&a.m[0], "/var/run/searchd.sock", 0, "shard1");
    char buf[300];
    assert_string_equal(hk_mirror_name(&a.m[0], buf, sizeof buf), "/var/run/searchd.sock");
    assert_string_equal(hk_mirror_name(&a.m[1], buf, sizeof buf), "box2:9312");
    hk_agent_line_free(&a);
    a = parse("a:1:x||b:1:x|", NULL);        /* empty pieces ignored */
    assert_int_equal(a.n, 2);
    hk_agent_line_free(&a);
}

static void options(void **st)
{
    (void)st;
    hk_agent_line a = parse("a:1|b:1:s [ha_strategy=nodeads, conn=pconn, blackhole=1, "
                            "retry_count=2]", NULL);
    assert_string_equal(a.strategy, "nodeads");
    assert_true(a.persistent);
    assert_true(a.blackhole);
    assert_int_equal(a.retry_count, 2);
    hk_agent_line_free(&a);
    a = parse("a:1:s[CONN=persistent]", NULL);
    assert_true(a.persistent);
    assert_int_equal(a.retry_count, -1);
    hk_agent_line_free(&a);
}

static void errors(void **st)
{
    (void)st;
    bad("[conn=pconn]a:1:x", 0, "hosts or sockets before '['");
    bad("a:1:x [conn=pconn", 17, "']'");
    bad("a:1:x [conn=pconn] b:2:x", 18, "end of line after ']'");
    bad("a:1:x ]", 6, "'[' before ']'");
    bad("a:1:x [blah=1]", 7, "an option conn, ha_strategy");
    bad("a:1:x [conn=tcp]", 7, "conn=pconn");
    bad("a:1:x [retry_count=x]", 7, "non-negative integer");
    bad("a:1:x [conn]", 7, "name=value");
    bad("a:70000:x", 2, "port number 1..65535");
    bad("a:0:x", 2, "port number");
    bad("localhost:1000abc", 14, "':' and an index list after the port");
    bad("localhost:1000 idx", 14, "':' and an index list");
    bad("a:1:x$y", 5, "an index list");
    bad("a:1:x,,y", 6, "an index name");
    bad("a:1:x,", 6, "an index name after ','");
    bad("", 0, "one or more hosts");
    bad(" | ", 0, "one or more hosts");
    bad("a b:1:x", 1, "':' after the host");
    bad("@:1:x", 0, "a host name");
}

/* Sphinx 2.2.11's grammar: ports 1..65535, anything else skips the line with its message. */
static void sphinx2_ports(void **st)
{
    (void)st;
    static const struct { const char *v; int rc; } t[] = {
        {"a:65535:x", 0}, {"a:65536:x", 1}, {"a:0:x", 1}, {"a:1:x", 0}};
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        hk_agent_line a;
        hk_err e;
        memset(&a, 0, sizeof a);
        hk_pos pos = {"t.conf", 1, 1};
        assert_int_equal(hk_agent_parse_sphinx2(t[i].v, pos, &a, &e, NULL), t[i].rc);
        if (t[i].rc)
            assert_non_null(strstr(e.msg, "invalid port number"));
        hk_agent_line_free(&a);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(basic_forms),     cmocka_unit_test(default_port_is_not_shared),
        cmocka_unit_test(empty_index_takes_next), cmocka_unit_test(spaces_and_sockets),
        cmocka_unit_test(options),         cmocka_unit_test(errors),
        cmocka_unit_test(sphinx2_ports),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
