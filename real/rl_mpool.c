/* rl_mpool: a wire master's persistent sockets per host (see rl_mpool.h). */
#include "rl_mpool.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "hk_grow.h"

int rl_mpool_init(rl_mpool *mp, const hk_cluster *cl, hk_pool_rule rule, int close_on_fatal,
                  rl_ep *ep)
{
    memset(mp, 0, sizeof *mp);
    if (!(mp->p = hk_pool_hosts_new(cl, rule, close_on_fatal)))
        return -1;
    mp->nhosts = cl->nhosts;
    mp->ep = ep;
    return 0;
}

static rl_pconn *pc_of(const rl_mpool *mp, int fd)
{
    return fd >= 0 && fd < mp->npc ? mp->pc[fd] : NULL;
}

/* Close a pooled socket: out of the set and of any batch being dispatched. */
static void drop(rl_mpool *mp, int fd)
{
    rl_pconn *c = pc_of(mp, fd);
    if (c && c->w.fd == fd)
        rl_ep_close_fd(mp->ep, &c->w);
    else if (fd >= 0)
        close(fd); /* heard closed while idle: already out of the set */
    if (c)
        c->dead = 0;
}

void rl_mpool_free(rl_mpool *mp)
{
    for (int h = 0; mp->p && h < mp->nhosts; h++) {
        hk_pool *p = &mp->p[h];
        for (int i = 0; p->slot && i < p->len; i++)
            if (p->slot[i].idle && p->slot[i].conn >= 0)
                drop(mp, (int)p->slot[i].conn);
    }
    hk_pool_hosts_free(mp->p, mp->nhosts);
    for (int i = 0; i < mp->npc; i++)
        free(mp->pc[i]);
    free(mp->pc);
    memset(mp, 0, sizeof *mp);
}

int rl_mpool_has(const rl_mpool *mp, int host)
{
    return mp->p && host >= 0 && host < mp->nhosts && mp->p[host].slot != NULL;
}

/* An idle pooled socket became readable: its peer closed or reset it (or sent what nobody
 * asked for). Marked, and out of the set (level-triggered epoll would call again); the pool
 * still holds its number, and the rent that finds the mark closes it. */
static void on_idle(rl_epw *w, uint32_t ev)
{
    rl_pconn *c = w->data;
    (void)ev;
    c->dead = 1;
    rl_ep_release(c->mp->ep, w);
}

/* The check on rent: marked while idle, or a peer that closed (0) or reset (an error) seen by
 * a peek without blocking; nothing to read yet is a live connection. */
static int gone(const rl_mpool *mp, int fd)
{
    const rl_pconn *c = pc_of(mp, fd);
    if (c && c->dead)
        return 1;
    char b;
    ssize_t n = recv(fd, &b, 1, MSG_PEEK | MSG_DONTWAIT);
    return n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR);
}

int rl_mpool_rent(rl_mpool *mp, int host)
{
    int64_t c = hk_pool_rent(&mp->p[host]);
    if (c >= 0 && gone(mp, (int)c)) {
        drop(mp, (int)c);
        return HK_POOL_NEW; /* its slot is the attempt's: a new connection goes back there */
    }
    return (int)c;
}

rl_epw *rl_mpool_watcher(rl_mpool *mp, int fd)
{
    return &mp->pc[fd]->w;
}

/* The socket under w goes under the pool's watcher for its descriptor: moved in the set with
 * one epoll_ctl, once in the socket's life (later attempts on it use that watcher). */
static int adopt(rl_mpool *mp, rl_epw *w)
{
    int fd = w->fd;
    if (fd >= mp->npc && HK_GROW(mp->pc, mp->npc, fd + 1) < 0)
        return -1;
    if (!mp->pc[fd] && !(mp->pc[fd] = calloc(1, sizeof *mp->pc[fd])))
        return -1;
    rl_pconn *c = mp->pc[fd];
    if (w == &c->w)
        return 0;
    c->mp = mp;
    c->w = (rl_epw){.fd = -1, .events = 0, .cb = on_idle, .data = c};
    return rl_ep_move(mp->ep, w, &c->w) < 0 ? -1 : 0;
}

int rl_mpool_back(rl_mpool *mp, int host, rl_epw *w, int keep)
{
    hk_pool *p = &mp->p[host];
    int fd = keep && w ? w->fd : -1, rc = 0;
    if (fd >= 0 && (rc = adopt(mp, w)) < 0)
        fd = -1;
    if (fd < 0) { /* failed, or nowhere to keep it: closed */
        if (w)
            rl_ep_close_fd(mp->ep, w);
        hk_pool_return(p, HK_POOL_NEW);
    } else {
        rl_pconn *c = mp->pc[fd];
        c->w.cb = on_idle;
        c->w.data = c;
        c->dead = 0;
        if (!hk_pool_return(p, fd))
            drop(mp, fd);
        return rc;
    }
    if (!p->close_on_fatal || keep)
        return rc;
    int64_t *idle = malloc((size_t)p->limit * sizeof *idle);
    if (!idle) /* no room to name them: they stay idle (the check on rent still sees them) */
        return -1;
    int n = hk_pool_fatal(p, idle, p->limit);
    for (int i = 0; i < n && i < p->limit; i++)
        drop(mp, (int)idle[i]);
    free(idle);
    return rc;
}
