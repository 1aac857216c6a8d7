/* rl_mpool: a wire master's persistent sockets per host (see rl_mpool.h). */
#include "rl_mpool.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int rl_mpool_init(rl_mpool *mp, const hk_cluster *cl, hk_pool_rule rule, int close_on_fatal)
{
    memset(mp, 0, sizeof *mp);
    mp->p = calloc((size_t)cl->nhosts + 1, sizeof *mp->p);
    if (!mp->p)
        return -1;
    mp->nhosts = cl->nhosts;
    for (int t = 0; t < cl->ntables; t++)
        for (int k = 0; k < cl->tables[t].nlines; k++) {
            const hk_line_conf *lc = &cl->tables[t].lines[k];
            for (int j = 0; lc->a.persistent && j < lc->a.n; j++)
                if (!mp->p[lc->host[j]].slot &&
                    hk_pool_init(&mp->p[lc->host[j]], rule, cl->set.persistent_limit,
                                 close_on_fatal) < 0) {
                    rl_mpool_free(mp);
                    return -1;
                }
        }
    return 0;
}

void rl_mpool_free(rl_mpool *mp)
{
    for (int h = 0; mp->p && h < mp->nhosts; h++) {
        hk_pool *p = &mp->p[h];
        for (int i = 0; p->slot && i < p->len; i++)
            if (p->slot[i].idle && p->slot[i].conn >= 0)
                close((int)p->slot[i].conn);
        hk_pool_free(p);
    }
    free(mp->p);
    memset(mp, 0, sizeof *mp);
}

int rl_mpool_has(const rl_mpool *mp, int host)
{
    return mp->p && host >= 0 && host < mp->nhosts && mp->p[host].slot != NULL;
}

/* The ring's check on rent: a peer that closed (0) or reset (an error) is seen without
 * blocking; nothing to read yet is a live connection. */
static int gone(int fd)
{
    char c;
    ssize_t n = recv(fd, &c, 1, MSG_PEEK | MSG_DONTWAIT);
    return n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR);
}

int rl_mpool_rent(rl_mpool *mp, int host, int *stale)
{
    *stale = 0;
    hk_pool *p = &mp->p[host];
    int64_t c = hk_pool_rent(p);
    if (c >= 0 && gone((int)c)) {
        close((int)c);
        *stale = 1;
        return HK_POOL_NEW; /* its slot is the attempt's: a new connection goes back there */
    }
    return (int)c;
}

void rl_mpool_back(rl_mpool *mp, int host, int fd, int keep)
{
    hk_pool *p = &mp->p[host];
    if (!keep && fd >= 0) {
        close(fd);
        fd = -1;
    }
    if (!hk_pool_return(p, fd >= 0 ? fd : HK_POOL_NEW) && fd >= 0)
        close(fd);
    if (keep)
        return;
    if (!p->close_on_fatal)
        return;
    int64_t *idle = malloc((size_t)p->limit * sizeof *idle);
    if (!idle) /* no room to name them: they stay idle (the check on rent still sees them) */
        return;
    int n = hk_pool_fatal(p, idle, p->limit);
    for (int i = 0; i < n && i < p->limit; i++)
        close((int)idle[i]);
    free(idle);
}
