/* hk_flood: test helper for the mirror's robustness test.
 *   hk_flood IP PORT N SEED   N connections, each writing 0..4 KB of random bytes, then closing
 *   hk_flood IP PORT ping     one PING; exit 0 if the cookie comes back
 *   hk_flood IP PORT big      a SEARCH header announcing 64 MB; exit 0 if the mirror closes */
#include <arpa/inet.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

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

int main(int argc, char **argv)
{
    if (argc < 4)
        return 2;
    const char *ip = argv[1];
    int port = atoi(argv[2]);
    if (!strcmp(argv[3], "ping")) {
        int s = dial(ip, port);
        uint8_t req[16] = {0, 0, 0, 1, 0, 9, 1, 0, 0, 0, 0, 4, 0xca, 0xfe, 0xba, 0xbe}, rep[16];
        if (s < 0 || write(s, req, 16) != 16 || readn(s, rep, 16) != 16)
            return 1;
        close(s);
        return memcmp(rep + 12, req + 12, 4) != 0;
    }
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
