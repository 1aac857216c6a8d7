/* rl_ep: an epoll set of raw sockets inside a libuv loop (see rl_ep.h). */
#include "rl_ep.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <unistd.h>

#define RL_EP_BATCH 64

struct rl_ep {
    uv_poll_t poll;
    int epfd;
    rl_epw *batch[RL_EP_BATCH];  /* the watchers of the batch being dispatched */
    int nbatch;
};

static void on_ready(uv_poll_t *p, int status, int events)
{
    rl_ep *ep = p->data;
    struct epoll_event ev[RL_EP_BATCH];
    (void)status;
    (void)events;
    int n = epoll_wait(ep->epfd, ev, RL_EP_BATCH, 0);
    for (int i = 0; i < n; i++)
        ep->batch[i] = ev[i].data.ptr;
    ep->nbatch = n > 0 ? n : 0;
    for (int i = 0; i < ep->nbatch; i++) /* a watcher closed meanwhile is NULL here */
        if (ep->batch[i])
            ep->batch[i]->cb(ep->batch[i], ev[i].events);
    ep->nbatch = 0;
}

rl_ep *rl_ep_new(uv_loop_t *loop)
{
    rl_ep *ep = calloc(1, sizeof *ep);
    if (!ep)
        return NULL;
    ep->epfd = epoll_create1(EPOLL_CLOEXEC);
    if (ep->epfd < 0 || uv_poll_init(loop, &ep->poll, ep->epfd) < 0) {
        if (ep->epfd >= 0)
            close(ep->epfd);
        free(ep);
        return NULL;
    }
    ep->poll.data = ep;
    uv_poll_start(&ep->poll, UV_READABLE, on_ready);
    uv_unref((uv_handle_t *)&ep->poll);
    return ep;
}

int rl_ep_watch(rl_ep *ep, rl_epw *w, uint32_t events)
{
    struct epoll_event ev = {events, {.ptr = w}};
    int op = w->events ? EPOLL_CTL_MOD : EPOLL_CTL_ADD;
    if (w->events == events)
        return 0;
    if (epoll_ctl(ep->epfd, op, w->fd, &ev) < 0)
        return -errno;
    w->events = events;
    return 0;
}

void rl_ep_close_fd(rl_ep *ep, rl_epw *w)
{
    for (int i = 0; i < ep->nbatch; i++)
        if (ep->batch[i] == w)
            ep->batch[i] = NULL;
    if (w->fd >= 0)
        close(w->fd);
    w->fd = -1;
    w->events = 0;
}

int rl_ep_release(rl_ep *ep, rl_epw *w)
{
    for (int i = 0; i < ep->nbatch; i++)
        if (ep->batch[i] == w)
            ep->batch[i] = NULL;
    int fd = w->fd;
    if (fd >= 0 && w->events)
        epoll_ctl(ep->epfd, EPOLL_CTL_DEL, fd, NULL);
    w->fd = -1;
    w->events = 0;
    return fd;
}

int rl_ep_move(rl_ep *ep, rl_epw *from, rl_epw *to)
{
    if (from->events) {
        struct epoll_event ev = {from->events, {.ptr = to}};
        if (epoll_ctl(ep->epfd, EPOLL_CTL_MOD, from->fd, &ev) < 0)
            return -errno;
    }
    for (int i = 0; i < ep->nbatch; i++)
        if (ep->batch[i] == from)
            ep->batch[i] = NULL;
    to->fd = from->fd;
    to->events = from->events;
    from->fd = -1;
    from->events = 0;
    return 0;
}

static void on_closed(uv_handle_t *h)
{
    rl_ep *ep = h->data;
    close(ep->epfd);
    free(ep);
}

void rl_ep_free(rl_ep *ep)
{
    if (ep)
        uv_close((uv_handle_t *)&ep->poll, on_closed);
}
