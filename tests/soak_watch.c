/* soak_watch: the watch engine (rl_watch) fed a day of snapshots — 86,400, one a second of a
 * 2.2.11 master's time — by a fake master on a thread of this process (SphinxQL over
 * loopback: greeting, login, SHOW STATUS, then SHOW AGENT STATUS as often as asked; the
 * watch is given a period of 0.1 ms, so it asks as fast as the answers come). Four mirrors;
 * every 2,000 snapshots one of them holds its searches (query timeouts, no answer) for 20
 * snapshots: a 'stuck' finding raised and cleared each time, all day, and the saved
 * snapshots rotate (64 KB kept). Holds: the process's resident
 * memory at the end within 1 MB of what it was after a tenth of the day (not under the
 * sanitizers, whose quarantine holds freed memory: they look for leaks instead), every
 * snapshot judged, findings raised and cleared in step with the faults, the status folder
 * bounded, and the watch ended by SIGTERM like any signal. Usage: soak_watch [SNAPSHOTS]. */
#include <arpa/inet.h>
#include <dirent.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "hk_buf.h"
#include "rl_watch.h"

typedef struct fake {
    int lfd;
    long want, served;           /* SHOW AGENT STATUS answers to give, given */
    long rss_tenth, rss_end;     /* resident KB after a tenth of them, at the end */
    long faults;                 /* faults begun */
} fake;

static long rss_kb(void)
{
    long pages = 0, res = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (f && fscanf(f, "%ld %ld", &pages, &res) != 2)
        res = 0;
    if (f)
        fclose(f);
    return res * (sysconf(_SC_PAGESIZE) / 1024);
}

static int send_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t k = send(fd, p, n, MSG_NOSIGNAL);
        if (k <= 0)
            return -1;
        p += k;
        n -= (size_t)k;
    }
    return 0;
}

static void packet(hk_buf *b, int *seq, const char *p, size_t n)
{
    unsigned char h[4] = {(unsigned char)n, (unsigned char)(n >> 8), (unsigned char)(n >> 16),
                          (unsigned char)(*seq)++};
    hk_buf_put(b, (const char *)h, 4);
    hk_buf_put(b, p, n);
}

/* The rows of text ("k\tv\n" each) as a two-column result set. */
static void result(hk_buf *out, const char *text)
{
    static const char eof[5] = {(char)0xfe, 0, 0, 2, 0}, count[1] = {2}, def[1] = {0};
    int seq = 1;
    hk_buf_reset(out);
    packet(out, &seq, count, 1);
    packet(out, &seq, def, 1);
    packet(out, &seq, def, 1);
    packet(out, &seq, eof, 5);
    for (const char *s = text, *nl; *s; s = nl + 1) {
        nl = strchr(s, '\n');
        const char *tab = memchr(s, '\t', (size_t)(nl - s));
        char row[300];
        size_t k = (size_t)(tab - s), v = (size_t)(nl - tab - 1);
        row[0] = (char)k;
        memcpy(row + 1, s, k);
        row[1 + k] = (char)v;
        memcpy(row + 2 + k, tab + 1, v);
        packet(out, &seq, row, k + v + 2);
    }
    packet(out, &seq, eof, 5);
}

/* Snapshot i of the day: four hosts, 100 answers a second each; host (i / 2000) % 4 times out
 * for snapshots 1000-1019 of every 2,000. */
static void status(hk_buf *b, long i, fake *f)
{
    int bad = i % 2000 >= 1000 && i % 2000 < 1020 ? (int)(i / 2000 % 4) : -1;
    if (i % 2000 == 1000)
        f->faults++;
    hk_buf_reset(b);
    hk_buf_printf(b, "status_period_seconds\t1\nstatus_stored_periods\t15\n");
    for (int h = 0; h < 4; h++) {
        int ok = h == bad ? 0 : 100, qt = h == bad ? 5 : 0;
        hk_buf_printf(b, "ag_%d_hostname\t127.0.0.1:%d\nag_%d_references\t1\n", h, 9312 + h, h);
        hk_buf_printf(b, "ag_%d_errorsarow\t%d\n", h, h == bad ? 5 : 0);
        static const int per[] = {1, 5, 15};
        for (int w = 0; w < 3; w++) {
            hk_buf_printf(b, "ag_%d_%dperiods_query_timeouts\t%d\n", h, per[w], qt);
            hk_buf_printf(b, "ag_%d_%dperiods_succeeded_queries\t%d\n", h, per[w], ok * per[w]);
            hk_buf_printf(b, "ag_%d_%dperiods_msecsperqueryy\t%s\n", h, per[w],
                          ok ? "2.50" : "n/a");
            hk_buf_printf(b, "ag_%d_%dperiods_connect_count\t%d\n", h, per[w], (ok + qt) * per[w]);
        }
    }
}

/* One client: its questions answered until it goes or the day is done. */
static void serve(fake *f, int fd)
{
    static const char greeting[] = "\x0a" "2.2.11-id64-release\0\1\0\0\0abcdefgh\0";
    static const char ok[7] = {0, 0, 0, 2, 0, 0, 0};
    hk_buf out, text;
    hk_buf_init(&out);
    hk_buf_init(&text);
    int seq = 0;
    packet(&out, &seq, greeting, sizeof greeting - 1);
    send_all(fd, out.s, out.len);
    unsigned char h[4];
    char q[256];
    for (int n = 0;; n++) {
        if (recv(fd, h, 4, MSG_WAITALL) != 4)
            break;
        size_t len = (size_t)h[0] | (size_t)h[1] << 8;
        if (len >= sizeof q || recv(fd, q, len, MSG_WAITALL) != (ssize_t)len)
            break;
        q[len] = 0;
        hk_buf_reset(&out);
        seq = 1;
        if (n == 0) {                       /* the login */
            seq = 2;
            packet(&out, &seq, ok, 7);
        } else if (strstr(q + 1, "AGENT")) {
            status(&text, f->served, f);
            result(&out, text.s);
            if (++f->served == f->want / 10)
                f->rss_tenth = rss_kb();
        } else {
            result(&out, "uptime\t5\n");
        }
        if (send_all(fd, out.s, out.len) < 0)
            break;
        if (f->served >= f->want) {
            f->rss_end = rss_kb();
            kill(getpid(), SIGTERM);        /* the day is done: stop as an operator would */
            break;
        }
    }
    hk_buf_free(&out);
    hk_buf_free(&text);
}

static void *master(void *arg)
{
    fake *f = arg;
    while (f->served < f->want) {
        int fd = accept(f->lfd, NULL, NULL);
        if (fd < 0)
            break;
        serve(f, fd);
        close(fd);
    }
    return NULL;
}

static void say(void *user, const char *line)
{
    long *lines = user;
    (*lines)++;
    (void)line;
}

static int files_in(const char *dir)
{
    DIR *d = opendir(dir);
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d)) != NULL;)
        n += e->d_name[0] != '.';
    if (d)
        closedir(d);
    return n;
}

/* Lines of path holding what; the first into first (cap bytes). */
static long count_lines(const char *path, const char *what, char *first, size_t cap)
{
    FILE *f = fopen(path, "r");
    long n = 0;
    char line[4096];
    while (f && fgets(line, sizeof line, f))
        if (strstr(line, what) && n++ == 0)
            snprintf(first, cap, "%s", line);
    if (f)
        fclose(f);
    return n;
}

int main(int argc, char **argv)
{
    int sanitized = getenv("HK_SANITIZED") != NULL;
    fake f = {.want = argc > 1 ? atol(argv[1]) : sanitized ? 20000 : 86400};
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t al = sizeof a;
    f.lfd = socket(AF_INET, SOCK_STREAM, 0);
    if (f.lfd < 0 || bind(f.lfd, (struct sockaddr *)&a, sizeof a) < 0 || listen(f.lfd, 4) < 0 ||
        getsockname(f.lfd, (struct sockaddr *)&a, &al) < 0) {
        perror("soak_watch: listen");
        return 1;
    }
    char dir[] = "/tmp/soak_watch.XXXXXX", name[64], sub[80], ev[80];
    if (!mkdtemp(dir))
        return 1;
    snprintf(name, sizeof name, "127.0.0.1:%d", ntohs(a.sin_port));
    const char *names[1] = {name};
    long said = 0;
    rl_watch_cfg c = {.nmasters = 1, .names = names, .addrs = &a, .variant = HK_VAR_SPHINX2,
                      .period_s = 1e-4, .dir = dir, .keep_bytes = 64 << 10, .say = say,
                      .user = &said};
    pthread_t t;
    pthread_create(&t, NULL, master, &f);
    rl_watch_result r;
    hk_err e;
    int rc = rl_watch_run(&c, &r, &e);
    shutdown(f.lfd, SHUT_RDWR);
    close(f.lfd);
    pthread_join(t, NULL);
    snprintf(sub, sizeof sub, "%s/status", dir);
    snprintf(ev, sizeof ev, "%s/events.jsonl", dir);
    char first[4096] = "", last[4096] = "";
    long raised = count_lines(ev, "\"raised\"", first, sizeof first);
    long cleared = count_lines(ev, "\"cleared\"", last, sizeof last);
    long stuck = count_lines(ev, "\"kind\":\"stuck\"", last, sizeof last);
    int kept = files_in(sub), fails = 0;
    printf("soak_watch: %ld snapshots served, %llu judged; %ld faults, %ld findings raised, %ld "
           "cleared; %d snapshots kept; resident %ld KB after a tenth, %ld KB at the end\n",
           f.served, (unsigned long long)r.snapshots, f.faults, raised, cleared, kept,
           f.rss_tenth, f.rss_end);
#define CHECK(cond, ...)                                                                          \
    do {                                                                                          \
        if (!(cond)) {                                                                            \
            printf("soak_watch: FAILED: " __VA_ARGS__);                                           \
            printf("\n");                                                                         \
            fails++;                                                                              \
        }                                                                                         \
    } while (0)
    CHECK(rc == 0, "rl_watch_run: %s", e.msg);
    CHECK(r.signal == SIGTERM, "ended by signal %d, not SIGTERM", r.signal);
    CHECK(f.served == f.want && r.snapshots + 2 >= (uint64_t)f.want,
          "%ld of %ld snapshots served, %llu judged", f.served, f.want,
          (unsigned long long)r.snapshots);
    CHECK(raised == f.faults && cleared == raised && stuck == raised + cleared,
          "%ld findings raised and %ld cleared for %ld faults, %ld of them 'stuck' (each "
          "fault a mirror whose searches hang); the first: %s", raised, cleared, f.faults, stuck,
          first);
    CHECK(kept >= 1 && kept <= 64, "%d snapshots kept for 64 KB", kept);
    if (!sanitized)
        CHECK(f.rss_end - f.rss_tenth <= 1024, "resident memory grew %ld KB over the day",
              f.rss_end - f.rss_tenth);
    char cmd[200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fails++;
    return fails ? 1 : 0;
}
