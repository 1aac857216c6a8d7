/* rl_wsave: the watch's snapshots rotate by size and age, each file complete under its name;
 * the oldest's file is rewritten as the newest (the same inode), and a link or a second
 * name planted in its place is never written through. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "hk_file.h"
#include "hk_test.h"
#include "rl_wsave.h"

static char dir[] = "/tmp/test_rl_wsave.XXXXXX";

static void text_of(int i, char *b, size_t cap)
{
    snprintf(b, cap, "status_period_seconds\t1\nag_0_hostname\th:%d\n%0*d\n", 9300 + i, 60, i);
}

static void name_of(int i, char *b, size_t cap) { snprintf(b, cap, "status.%d.tsv", 1000 + i); }

/* dir/name holds exactly snapshot i's text. */
static void holds(const char *name, int i)
{
    char path[200], want[200], *got = NULL;
    size_t len = 0;
    hk_err e;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    text_of(i, want, sizeof want);
    assert_int_equal(hk_file_read(path, &got, &len, &e), 0);
    assert_int_equal(len, strlen(want));
    assert_memory_equal(got, want, len);
    free(got);
}

static ino_t inode(const char *name)
{
    char path[200];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return lstat(path, &st) == 0 ? st.st_ino : 0;
}

static int files(void)
{
    char cmd[300];
    snprintf(cmd, sizeof cmd, "exit $(ls -A %s | wc -l)", dir);
    return WEXITSTATUS(system(cmd));
}

static void clean(void)
{
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -f %s/status.*", dir);
    assert_int_equal(system(cmd), 0);
}

static void put(rl_wsave *s, int i, double t)
{
    char name[48], text[200];
    hk_err e;
    name_of(i, name, sizeof name);
    text_of(i, text, sizeof text);
    assert_int_equal(rl_wsave_put(s, name, text, strlen(text), t, &e), 0);
}

static void rotates_in_place(void **st)
{
    (void)st;
    rl_wsave s;
    hk_err e;
    char text[200], name[48], old[48];
    text_of(0, text, sizeof text);
    size_t one = strlen(text);
    assert_int_equal(rl_wsave_open(&s, dir, (int64_t)(3 * one), 0, &e), 0);
    for (int i = 0; i < 10; i++) {
        name_of(i - 3, old, sizeof old);
        ino_t was = i >= 3 ? inode(old) : 0;
        put(&s, i, 100 + i);
        name_of(i, name, sizeof name);
        holds(name, i);
        assert_int_equal(files(), i < 3 ? i + 1 : 3);
        assert_int_equal(inode(old), i >= 3 ? 0 : inode(old));
        if (i >= 3)              /* the oldest's file became the newest */
            assert_true(inode(name) == was);
        for (int k = i - 2 > 0 ? i - 2 : 0; k <= i; k++) {
            name_of(k, old, sizeof old);
            holds(old, k);
        }
    }
    rl_wsave_close(&s);
    clean();

    assert_int_equal(rl_wsave_open(&s, dir, 0, 2.5, &e), 0); /* by age: 2.5 s */
    for (int i = 0; i < 6; i++)
        put(&s, i, 100 + i);
    assert_int_equal(files(), 3); /* 103, 104, 105: 100-102 more than 2.5 s older */
    holds("status.1005.tsv", 5);
    holds("status.1003.tsv", 3);
    rl_wsave_close(&s);
    clean();
}

/* The oldest replaced by a link, or given a second name: neither written through. */
static void planted(void **st)
{
    (void)st;
    rl_wsave s;
    hk_err e;
    char victim[100], path[200], text[200], *got = NULL;
    size_t len;
    snprintf(victim, sizeof victim, "%s.victim", dir);
    for (int hard = 0; hard < 2; hard++) {
        FILE *f = fopen(victim, "w");
        assert_non_null(f);
        fputs("keep me\n", f);
        fclose(f);
        text_of(0, text, sizeof text);
        assert_int_equal(rl_wsave_open(&s, dir, (int64_t)(2 * strlen(text)), 0, &e), 0);
        put(&s, 0, 100);
        put(&s, 1, 101);
        snprintf(path, sizeof path, "%s/status.1000.tsv", dir);
        assert_int_equal(unlink(path), 0);
        assert_int_equal(hard ? link(victim, path) : symlink(victim, path), 0);
        put(&s, 2, 102);         /* pushes 1000 out: its file is the planted one */
        holds("status.1002.tsv", 2);
        holds("status.1001.tsv", 1);
        assert_int_equal(inode("status.1000.tsv"), 0);
        assert_int_equal(hk_file_read(victim, &got, &len, &e), 0);
        assert_string_equal(got, "keep me\n");
        free(got);
        assert_int_equal(files(), 2);
        rl_wsave_close(&s);
        clean();
    }
    unlink(victim);
}

int main(void)
{
    if (!mkdtemp(dir))
        return 1;
    const struct CMUnitTest tests[] = {cmocka_unit_test(rotates_in_place),
                                       cmocka_unit_test(planted)};
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    rmdir(dir);
    return rc;
}
