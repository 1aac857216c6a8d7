/* watchbench: what following a master costs `hareal watch` per snapshot (not a test): a
 * 2.2.11 SHOW AGENT STATUS of M mirrors (M/4 agent lines of 4; hakarma's own status, from
 * dashboards with traffic) as the master sends it (one SphinxQL packet a row) through a
 * socket (written by a thread of its own), read 64 KB at a time into the parser's buffer and
 * split into packets as rl_sql reads them, decoded (hk_sqlp) and read as the rows come (hk_statrd, the master's
 * order of keys kept from the first snapshot), judged (hk_watch_feed) and saved
 * (rl_wsave_put, into a temporary folder, 16 MB kept) once a karma period, timed in the
 * reading thread's CPU seconds (the kernel's included) over many snapshots; then the share of
 * one core 50 masters of M mirrors at one snapshot a second would take (the mean, and the
 * median snapshot's: this VM's neighbours make single snapshots slow). Usage: watchbench
 * [MIRRORS [SNAPSHOTS]]. */
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include "hk_conf.h"
#include "hk_sqlp.h"
#include "hk_statread.h"
#include "hk_status.h"
#include "hk_watch.h"
#include "rl_wsave.h"

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void packet(hk_buf *out, int *seq, const char *b, size_t n)
{
    unsigned char h[4] = {(unsigned char)n, (unsigned char)(n >> 8), 0, (unsigned char)(*seq)++};
    hk_buf_put(out, (const char *)h, 4);
    hk_buf_put(out, b, n);
}

/* The status text as searchd's packets: a column count, two column definitions, an EOF, a
 * row packet per line (two length-prefixed columns; every length here is under 251), an
 * EOF. */
static void packets(const hk_buf *text, hk_buf *out)
{
    static const char count[1] = {2}, def[1] = {0}, eof[5] = {(char)0xfe, 0, 0, 2, 0};
    unsigned char h[4];
    int seq = 1;
    hk_buf_reset(out);
    packet(out, &seq, count, 1);
    packet(out, &seq, def, 1);
    packet(out, &seq, def, 1);
    packet(out, &seq, eof, 5);
    for (const char *s = text->s, *e; s < text->s + text->len; s = e + 1) {
        e = memchr(s, '\n', (size_t)(text->s + text->len - s));
        const char *tab = memchr(s, '\t', (size_t)(e - s));
        size_t kl = (size_t)(tab - s), vl = (size_t)(e - tab - 1), n = kl + vl + 2;
        h[0] = (unsigned char)n;
        h[1] = (unsigned char)(n >> 8);
        h[2] = 0;
        h[3] = (unsigned char)seq++;
        hk_buf_put(out, (const char *)h, 4);
        unsigned char l = (unsigned char)kl;
        hk_buf_put(out, (const char *)&l, 1);
        hk_buf_put(out, s, kl);
        l = (unsigned char)vl;
        hk_buf_put(out, (const char *)&l, 1);
        hk_buf_put(out, tab + 1, vl);
    }
    packet(out, &seq, eof, 5);
}

/* The master's side: each snapshot's packets written to the socket when main posts. */
typedef struct writer {
    int fd;
    sem_t go;
    const hk_buf *wire;
    int stop;
} writer;

static void *write_all(void *arg)
{
    writer *w = arg;
    for (;;) {
        sem_wait(&w->go);
        if (w->stop)
            return NULL;
        for (size_t off = 0; off < w->wire->len;) {
            ssize_t k = write(w->fd, w->wire->s + off, w->wire->len - off);
            if (k <= 0)
                return NULL;
            off += (size_t)k;
        }
    }
}

/* One answer read from fd as rl_sql reads it: 64 KB reads into in's end, packets split off
 * and decoded, the parsed part dropped after each read. 0 or -1. */
static int decode(hk_sqlp *q, int fd, hk_buf *in)
{
    hk_sqlp_begin(q, 1);
    hk_buf_reset(in);
    for (;;) {
        char *room = hk_buf_room(in, 65536);
        ssize_t k = room ? read(fd, room, 65536) : -1;
        if (k <= 0)
            return -1;
        hk_buf_commit(in, (size_t)k);
        const uint8_t *p = (const uint8_t *)in->s;
        size_t off = 0, n, used;
        int rc = HK_SQLP_MORE;
        while (rc == HK_SQLP_MORE && hk_sqlp_split(p + off, in->len - off, &n, &used) == 1) {
            rc = hk_sqlp_packet(q, p + off + 4, n);
            off += used;
        }
        if (rc != HK_SQLP_MORE)
            return rc == HK_SQLP_OK ? 0 : -1;
        memmove(in->s, in->s + off, in->len - off);
        in->len -= off;
    }
}

static void on_row(void *ctx, const char *line, size_t len)
{
    hk_statrd_line(ctx, line, len);
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
    hk_statrd *rd = hk_statrd_new();
    char dir[] = "/tmp/watchbench.XXXXXX";
    rl_wsave save;
    hk_sqlp q = {.row = on_row, .row_ctx = rd};
    hk_buf text, wire, in;
    hk_buf_init(&text);
    hk_buf_init(&wire);
    hk_buf_init(&in);
    int sv[2];
    writer wr = {.wire = &wire};
    pthread_t th;
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0 || sem_init(&wr.go, 0, 0) < 0)
        return 1;
    wr.fd = sv[1];
    if (pthread_create(&th, NULL, write_all, &wr) != 0)
        return 1;
    if (!mkdtemp(dir) || rl_wsave_open(&save, dir, 16 << 20, 0, &e) < 0)
        return 1;
    double *whole = calloc((size_t)n, sizeof *whole); /* each snapshot's, for the median */
    if (!whole)
        return 1;
    double cost[4] = {0}, bytes = 0; /* decoded (and read), read (the end), judged, saved */
    int64_t t = 1700000000LL * 1000000;
    for (int s = 0; s < n; s++) {
        for (int i = 0; i < m; i++)
            for (int k = 0; k < 5; k++)
                hk_dash_record(&d[i], t + k * 1000 + 3000 + (i % 7) * 100, HK_EV_SUCCESS,
                               t + k * 1000, 0, 100);
        t += 1000000;
        hk_buf_reset(&text);
        hk_status_global(&text, hk_variant_get(HK_VAR_SPHINX2), 1, h, m, t + 100000);
        packets(&text, &wire);
        bytes += (double)text.len;
        double c[5];
        c[0] = cpu_s();
        sem_post(&wr.go);
        hk_statrd_begin(rd, "bench");
        if (decode(&q, sv[0], &in) < 0)
            return 1;
        c[1] = cpu_s();
        hk_status_file st;
        ev.n = 0;
        if (hk_statrd_end(rd, q.tsv.s, q.tsv.len, &st, &e) < 0)
            return 1;
        c[2] = cpu_s();
        if (hk_watch_feed(w, 0, (double)(t + 100000) / 1e6, &st, &ev, &e) < 0)
            return 1;
        hk_status_file_free(&st);
        c[3] = cpu_s();
        char name[64];
        snprintf(name, sizeof name, "status.%.6f.tsv", (double)t / 1e6);
        if (rl_wsave_put(&save, name, q.tsv.s, q.tsv.len, (double)t / 1e6, &e) < 0)
            return 1;
        c[4] = cpu_s();
        for (int k = 0; k < 4; k++)
            cost[k] += c[k + 1] - c[k];
        whole[s] = c[4] - c[0];
    }
    double per = (cost[0] + cost[1] + cost[2] + cost[3]) / n;
    qsort(whole, (size_t)n, sizeof *whole, by_value);
    double med = whole[n / 2];
    free(whole);
    wr.stop = 1;
    sem_post(&wr.go);
    pthread_join(th, NULL);
    close(sv[0]);
    close(sv[1]);
    sem_destroy(&wr.go);
    printf("watchbench: %d mirrors, %d snapshots of %.0f KB: %.2f ms of CPU a snapshot (%.2f "
           "received, decoded and read, %.2f read's end, %.2f judged, %.2f saved); 50 such masters at 1 "
           "snapshot/s: "
           "%.1f%% of one core (the median snapshot: %.2f ms, %.1f%%)\n", m, n, bytes / n / 1024,
           per * 1e3, cost[0] / n * 1e3, cost[1] / n * 1e3, cost[2] / n * 1e3, cost[3] / n * 1e3,
           50 * per * 100, med * 1e3, 50 * med * 100);
    for (int k = 0; k < save.n; k++) {
        char path[sizeof dir + 80];
        snprintf(path, sizeof path, "%s/%s", dir, save.q[save.head + k].name);
        unlink(path);
    }
    rl_wsave_close(&save);
    rmdir(dir);
    hk_sqlp_free(&q);
    hk_statrd_free(rd);
    hk_buf_free(&text);
    hk_buf_free(&wire);
    hk_buf_free(&in);
    hk_wevents_free(&ev);
    hk_watch_free(w);
    free(h);
    hk_dash_array_free(d);
    hk_cluster_free(cl);
    return 0;
}
