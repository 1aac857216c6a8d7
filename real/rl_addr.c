/* rl_addr: host resolution for the wire master. */
#include "rl_addr.h"
#include "hk_err.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int rl_addr_parse(const char *s, char *host, int nhost, int *port)
{
    const char *c = strrchr(s, ':');
    if (!c || c == s || (int)(c - s) >= nhost)
        return -1;
    char *e;
    long p = strtol(c + 1, &e, 10);
    if (*e || p < 1 || p > 65535)
        return -1;
    memcpy(host, s, (size_t)(c - s));
    host[c - s] = '\0';
    *port = (int)p;
    return 0;
}

static int lookup(const char *host, int port, struct sockaddr_in *out)
{
    memset(out, 0, sizeof *out);
    out->sin_family = AF_INET;
    out->sin_port = htons((uint16_t)port);
    if (inet_pton(AF_INET, host, &out->sin_addr) == 1)
        return 0;
    struct addrinfo hints = {0}, *res = NULL;
    hints.ai_family = AF_INET;
    hints.ai_socktype = SOCK_STREAM;
    if (getaddrinfo(host, NULL, &hints, &res) != 0 || !res)
        return -1;
    out->sin_addr = ((struct sockaddr_in *)res->ai_addr)->sin_addr;
    freeaddrinfo(res);
    return 0;
}

int rl_addr_resolve(const hk_cluster *cl, const char *const *maps, int nmaps,
                    struct sockaddr_in *out, char *msg, int n)
{
    for (int h = 0; h < cl->nhosts; h++) {
        const char *name = cl->hosts[h].name, *to = NULL;
        size_t len = strlen(name);
        for (int k = 0; k < nmaps; k++)
            if (!strncmp(maps[k], name, len) && maps[k][len] == '=')
                to = maps[k] + len + 1;
        char host[300];
        int port;
        if (name[0] == '/')
            return hk_err_msg(msg, n, "mirror %s: unix sockets are not supported in real "
                            "mode: expected host:port (or --map %s=IP:PORT)", name, name);
        if (rl_addr_parse(to ? to : name, host, sizeof host, &port) < 0)
            return hk_err_msg(msg, n, "mirror %s: expected host:port", to ? to : name);
        if (lookup(host, port, &out[h]) < 0)
            return hk_err_msg(msg, n, "mirror %s: cannot resolve '%s' (use --map %s=IP:PORT)",
                            name, host, name);
    }
    return 0;
}

static struct sockaddr_in loopback(int port)
{
    struct sockaddr_in a = {0};
    a.sin_family = AF_INET;
    a.sin_port = htons((uint16_t)port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    return a;
}

int rl_port_any(void)
{
    int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in a = loopback(0);
    socklen_t len = sizeof a;
    int port = -1;
    if (s >= 0 && bind(s, (struct sockaddr *)&a, sizeof a) == 0 &&
        getsockname(s, (struct sockaddr *)&a, &len) == 0)
        port = ntohs(a.sin_port);
    if (s >= 0)
        close(s);
    return port;
}

int rl_port_free(int port)
{
    int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in a = loopback(port);
    int one = 1;
    int ok = s >= 0 && setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) == 0 &&
             bind(s, (struct sockaddr *)&a, sizeof a) == 0;
    int err = errno;
    if (s >= 0)
        close(s);
    errno = err;
    return ok;
}

int rl_port_up(int port)
{
    int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in a = loopback(port);
    int ok = s >= 0 && connect(s, (struct sockaddr *)&a, sizeof a) == 0;
    if (s >= 0)
        close(s);
    return ok;
}
