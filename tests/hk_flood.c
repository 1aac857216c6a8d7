/* hk_flood: test helper for the mirror's robustness test.
 *   hk_flood IP PORT N SEED   N connections, each writing 0..4 KB of random bytes, then closing
 *   hk_flood IP PORT ping     one PING; exit 0 if the cookie comes back
 *   hk_flood IP PORT big      a SEARCH header announcing 64 MB; exit 0 if the mirror closes
 *   hk_flood IP PORT slowloris N SECS   N connections trickling a byte a second for SECS, while
 *                             a PING every half second must be answered; exit 0 if all were
 *   hk_flood IP PORT halfclose   a SEARCH, then a write shutdown; exit 0 if the reply comes
 *   hk_flood IP PORT pipeline MB SECS   PERSIST, then MB megabytes of PINGs never reading a
 *                             reply (a send that waits 2 s ends the flood), then the connection
 *                             held SECS; prints the bytes sent */
#include <arpa/inet.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>
#include <time.h>
#include "hk_proto.h"

static int dial(const char *ip, int port)
{
    int s = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {0};
    a.sin_family = AF_INET;
    a.sin_port = htons((uint16_t)port);
    inet_pton(AF_INET, ip, &a.sin_addr);
    struct timeval tv = {2, 0};
    setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    if (connect(s, (struct sockaddr *)&a, sizeof a) < 0) {
        close(s);
        return -1;
    }
    return s;
}

static int readn(int s, uint8_t *b, int n)
{
    int got = 0;
    while (got < n) {
        ssize_t k = read(s, b + got, (size_t)(n - got));
        if (k <= 0)
            return got;
        got += (int)k;
    }
    return got;
}

static int ping(const char *ip, int port)
{
    int s = dial(ip, port);
    uint8_t req[16] = {0, 0, 0, 1, 0, 9, 1, 0, 0, 0, 0, 4, 0xca, 0xfe, 0xba, 0xbe}, rep[16];
    if (s < 0 || write(s, req, 16) != 16 || readn(s, rep, 16) != 16) {
        if (s >= 0)
            close(s);
        return 1;
    }
    close(s);
    return memcmp(rep + 12, req + 12, 4) != 0;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* N slow senders hold connections; a master's PING must still be answered. */
static int slowloris(const char *ip, int port, int n, double secs)
{
    int *fd = calloc((size_t)n, sizeof *fd);
    static const uint8_t req[16] = {0, 0, 0, 1, 0, 9, 1, 0, 0, 0, 0, 4, 1, 2, 3, 4};
    int opened = 0, pings = 0, lost = 0;
    for (int i = 0; fd && i < n; i++)
        if ((fd[i] = dial(ip, port)) >= 0)
            opened++;
    double t0 = now(), next_byte = t0, next_ping = t0 + 0.25;
    for (int byte = 0; now() - t0 < secs;) {
        if (now() >= next_byte) { /* one more byte of a request that never ends */
            for (int i = 0; i < n; i++)
                if (fd[i] >= 0 && write(fd[i], &req[byte % 16], 1) != 1) {
                    close(fd[i]);
                    fd[i] = dial(ip, port); /* closed on us: come back, as an attacker would */
                }
            byte++;
            next_byte += 1.0;
        }
        if (now() >= next_ping) {
            pings++;
            lost += ping(ip, port);
            next_ping += 0.5;
        }
        nanosleep(&(struct timespec){0, 20000000}, NULL);
    }
    for (int i = 0; fd && i < n; i++)
        if (fd[i] >= 0)
            close(fd[i]);
    free(fd);
    printf("%d slow connections, %d pings, %d unanswered\n", opened, pings, lost);
    return lost != 0 || pings == 0;
}

/* A SEARCH, then shutdown(SHUT_WR): the reply must still come. */
static int halfclose(const char *ip, int port)
{
    int s = dial(ip, port);
    hk_bytes b;
    hk_bytes_init(&b);
    hk_put_u32(&b, HK_PROTO_HELLO);
    hk_search_req_build(&b, "hello", "idx", 20);
    uint8_t rep[12];
    int ok = s >= 0 && write(s, b.p, b.len) == (ssize_t)b.len && shutdown(s, SHUT_WR) == 0 &&
             readn(s, rep, 12) == 12 && rep[4] == 0 && rep[5] == 0; /* hello, then status OK */
    hk_bytes_free(&b);
    if (s >= 0)
        close(s);
    return !ok;
}

/* A client that pipelines PINGs on a persistent connection and never reads the replies. */
static int pipeline(const char *ip, int port, int mb, double hold)
{
    int s = dial(ip, port);
    if (s < 0)
        return 1;
    struct timeval tv = {2, 0};
    setsockopt(s, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    static const uint8_t hello[16] = {0, 0, 0, 1, 0, 4, 0, 1, 0, 0, 0, 4, 0, 0, 0, 1};
    if (write(s, hello, 16) != 16)
        return 1;
    uint8_t pings[12 * 1024];
    for (int i = 0; i < 1024; i++)
        memcpy(pings + 12 * i, (const uint8_t[12]){0, 9, 1, 0, 0, 0, 0, 4, 1, 2, 3, 4}, 12);
    long long sent = 0, want = (long long)mb << 20;
    while (sent < want) {
        ssize_t k = write(s, pings, sizeof pings);
        if (k <= 0)
            break; /* the mirror reads no more: TCP's window is full */
        sent += k;
    }
    printf("sent %lld bytes\n", sent);
    fflush(stdout);
    double t0 = now();
    while (now() - t0 < hold)
        nanosleep(&(struct timespec){0, 50000000}, NULL);
    close(s);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 4)
        return 2;
    signal(SIGPIPE, SIG_IGN); /* a closed connection is an error value here */
    const char *ip = argv[1];
    int port = atoi(argv[2]);
    if (!strcmp(argv[3], "slowloris") && argc >= 6)
        return slowloris(ip, port, atoi(argv[4]), atof(argv[5]));
    if (!strcmp(argv[3], "pipeline") && argc >= 6)
        return pipeline(ip, port, atoi(argv[4]), atof(argv[5]));
    if (!strcmp(argv[3], "halfclose"))
        return halfclose(ip, port);
    if (!strcmp(argv[3], "ping"))
        return ping(ip, port);
    if (!strcmp(argv[3], "big")) {
        int s = dial(ip, port);
        uint8_t req[12] = {0, 0, 0, 1, 0, 0, 1, 0x1f, 0x04, 0, 0, 0}, b[64];
        if (s < 0 || write(s, req, 12) != 12)
            return 1;
        int n = readn(s, b, 64); /* the hello, then the close */
        close(s);
        return n != 4;
    }
    int n = atoi(argv[3]);
    srand((unsigned)(argc > 4 ? atoi(argv[4]) : 1));
    uint8_t buf[4096];
    int fails = 0;
    for (int i = 0; i < n; i++) {
        int s = dial(ip, port);
        if (s < 0) {
            fails++;
            continue;
        }
        int len = rand() % (int)sizeof buf;
        for (int k = 0; k < len; k++)
            buf[k] = (uint8_t)rand();
        if (write(s, buf, (size_t)len) < 0)
            fails++;
        close(s);
    }
    printf("%d connections, %d failed\n", n, fails);
    return fails > n / 100;
}
