/* rl_ep: raw non-blocking sockets watched by one epoll set of our own, itself watched by the
 * libuv loop through a single uv_poll; the wire master's and the fault proxy's (rl_proxy).
 * The wire master opens a connection per query, as searchd does; through uv_tcp each costs
 * ten system calls (libuv's writability wait, its SO_ERROR check, a failing EPOLL_CTL_ADD and
 * a MOD), here six: socket, connect, send, one EPOLL_CTL_ADD, read, close (the kernel drops a
 * closed socket from the set) — plus one epoll_wait for every batch of ready sockets. Linux
 * only, as libuv's own epoll backend. */
#ifndef RL_EP_H
#define RL_EP_H

#include <stdint.h>
#include <uv.h>

typedef struct rl_epw rl_epw;
/* events: EPOLLIN/EPOLLOUT/EPOLLERR/EPOLLHUP bits as epoll reports them. */
typedef void (*rl_ep_cb)(rl_epw *w, uint32_t events);

struct rl_epw {                  /* one watched socket, owned by its user */
    int fd;
    uint32_t events;             /* registered; 0: not in the set */
    rl_ep_cb cb;
    void *data;
};

typedef struct rl_ep rl_ep;

/* A set on loop (its uv_poll does not keep the loop alive by itself): NULL on failure. */
rl_ep *rl_ep_new(uv_loop_t *loop);
/* Watch w->fd for events (EPOLLIN, EPOLLOUT; ERR and HUP always): 0, or -errno. */
int rl_ep_watch(rl_ep *ep, rl_epw *w, uint32_t events);
/* Close w->fd (it leaves the set with it); a batch in progress skips it. */
void rl_ep_close_fd(rl_ep *ep, rl_epw *w);
/* Take w->fd out of the set without closing it (a pooled connection kept for later):
 * returns it; w->fd is -1 after. */
int rl_ep_release(rl_ep *ep, rl_epw *w);
/* Move from's socket, as registered, under the watcher to (one epoll_ctl): from is empty after,
 * to->fd and to->events what from's were. 0, or -errno (from unchanged). */
int rl_ep_move(rl_ep *ep, rl_epw *from, rl_epw *to);
/* Close the set; its memory goes once the loop has closed the poll handle. */
void rl_ep_free(rl_ep *ep);

#endif
