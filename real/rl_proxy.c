/* rl_proxy: the proxy's data path — a master connection, its upstream twin, and each request
 * through the toxics (see rl_proxy.h). The sockets are raw, in the proxy's own epoll set
 * (rl_ep), as the wire master's: through uv_tcp a request cost 23 system calls here, most of
 * them libuv's bookkeeping (bench/README.md). */
#define _GNU_SOURCE /* accept4 (Linux), as libuv uses it */
#include "rl_proxy.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/tcp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>
#include "hk_csv.h"
#include "hk_frame.h"
#include "hk_err.h"
#include "rl_addr.h"

enum { ST_IDLE, ST_HELD, ST_WAIT, ST_DELAY, ST_DRIP, ST_GONE };

typedef struct rl_pconn {
    rl_epw dn, up;               /* the master's connection, ours to the agent (fd -1: closed) */
    hk_bytes dout, uout;         /* to the master, to the agent: what the socket did not take */
    uv_timer_t timer;            /* a reply's delay, a drip's pace; its close frees the conn */
    rl_proxy *p;
    hk_bytes din, uin;           /* read from the master, from the agent; not yet passed on */
    hk_frame fdn, fup;
    int closing, up_eof, shut, state, ping, held;
    int reset_after;             /* reset the master's connection once dout is out */
    int corked;                  /* a pump is running: writes wait for its end, then go as one */
    int planned;                 /* plan drawn for the request at the head of din, kept */
    int pending;                 /* a search went upstream, its row not yet logged */
    rl_tx_plan plan;
    uint64_t sent_ns;            /* when the request went upstream */
    hk_bytes reply;              /* a reply held back (delay, drip) */
    size_t drip_off;
    struct rl_pconn *next, **pprev;
} pconn;

static const char *act_names[RL_PX_N] = {"passed", "error", "warning", "held",
                                         "delayed", "reset", "dropped"};

const char *rl_px_act_name(rl_px_act a) { return a < RL_PX_N ? act_names[a] : "?"; }

static void pump_dn(pconn *c);
static void pump_up(pconn *c);

/* A search's row in the log (--log): what hareal mirror writes, so a live run reads both
 * alike — t_s,peer,index,query,delay_ms,outcome (the proxy does not decode the index list or
 * the query: empty). */
static void log_search(rl_proxy *p, const char *outcome, double delay_ms)
{
    if (!p->log)
        return;
    uv_timeval64_t tv;
    uv_gettimeofday(&tv);
    char t[40], d[32];
    snprintf(t, sizeof t, "%lld.%06d", (long long)tv.tv_sec, (int)tv.tv_usec);
    snprintf(d, sizeof d, "%.3f", delay_ms);
    hk_csv_str(p->log, t, 1);
    hk_csv_str(p->log, p->name, 0);
    hk_csv_str(p->log, "", 0);
    hk_csv_str(p->log, "", 0);
    hk_csv_str(p->log, d, 0);
    hk_csv_str(p->log, outcome, 0);
    hk_csv_end(p->log);
    fflush(p->log);
}

/* The searches still in din when the connection goes (a stall held them): each logged. */
static void log_unread(pconn *c)
{
    hk_frame f = c->fdn;
    size_t off = 0, used;
    hk_hdr h;
    int k;
    while (c->p->log && off < c->din.len &&
           (k = hk_frame_step(&f, 1, c->din.p + off, c->din.len - off, &h, &used)) != HK_FR_NEED &&
           k != HK_FR_TOO_BIG) {
        if (k == HK_FR_UNIT && h.code == HK_CMD_SEARCH)
            log_search(c->p, "stall", -1);
        off += used;
    }
}

/* ---- lifecycle ------------------------------------------------------ */

static void consume(hk_bytes *b, size_t n)
{
    memmove(b->p, b->p + n, b->len - n);
    b->len -= n;
}

static void on_closed(uv_handle_t *h)
{
    pconn *c = h->data;
    hk_bytes_free(&c->din);
    hk_bytes_free(&c->uin);
    hk_bytes_free(&c->dout);
    hk_bytes_free(&c->uout);
    hk_bytes_free(&c->reply);
    free(c);
}

/* fd's close to send an RST (no linger), as a dead agent's connection ends. */
static void reset_on_close(int fd)
{
    struct linger lg = {1, 0};
    setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof lg);
}

/* Close a socket; reset: with an RST. */
static void close_sock(rl_ep *ep, rl_epw *w, int reset)
{
    if (w->fd >= 0 && reset)
        reset_on_close(w->fd);
    rl_ep_close_fd(ep, w);
}

/* Both sockets closed at once; the memory goes when the loop has closed the timer, so a
 * caller up the stack may still look at c->closing. */
static void conn_close(pconn *c, int reset)
{
    if (c->closing)
        return;
    if (c->pending)
        log_search(c->p, "cancelled", -1);
    if (c->state != ST_HELD)
        log_unread(c);
    c->pending = 0;
    c->closing = 1;
    c->state = ST_GONE;
    c->p->nconns--;
    if (c->pprev) {
        *c->pprev = c->next;
        if (c->next)
            c->next->pprev = c->pprev;
        c->pprev = NULL;
    }
    close_sock(c->p->ep, &c->up, 0);
    close_sock(c->p->ep, &c->dn, reset);
    uv_close((uv_handle_t *)&c->timer, on_closed);
}

/* A socket watched for reading, and for writing while something waits to go out. */
static int watch(pconn *c, rl_epw *w)
{
    const hk_bytes *out = w == &c->dn ? &c->dout : &c->uout;
    if (w->fd < 0 || rl_ep_watch(c->p->ep, w, EPOLLIN | (out->len ? EPOLLOUT : 0)) == 0)
        return 0;
    conn_close(c, 1);
    return -1;
}

/* err on w is the agent's connect failing: on its socket, before it said anything. */
static int up_connect_failed(const pconn *c, const rl_epw *w, int err)
{
    return w == &c->up && !c->fup.got_hello && !c->uin.len &&
           (err == ECONNREFUSED || err == ETIMEDOUT || err == EHOSTUNREACH ||
            err == ENETUNREACH);
}

static void io_failed(pconn *c, rl_epw *w, int err)
{
    if (up_connect_failed(c, w, err))
        c->p->st.upstream_failed++;
    conn_close(c, 1); /* the master sees what a dead agent gives: a reset */
}

/* What waits in w's buffer, written as far as the socket takes it; then what was to follow
 * the master's last bytes (a reset, or the close after the agent's). */
static void flush(pconn *c, rl_epw *w)
{
    hk_bytes *out = w == &c->dn ? &c->dout : &c->uout;
    size_t off = 0;
    while (off < out->len && w->fd >= 0) {
        ssize_t n = send(w->fd, out->p + off, out->len - off, MSG_NOSIGNAL);
        if (n > 0)
            off += (size_t)n;
        else if (n < 0 && errno == EINTR)
            continue;
        else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            break;
        else {
            io_failed(c, w, errno);
            return;
        }
    }
    if (off)
        consume(out, off);
    if (watch(c, w) < 0 || w != &c->dn || c->dout.len)
        return;
    if (c->reset_after)
        conn_close(c, 1);
    else if (c->shut)
        conn_close(c, 0);
}

/* n bytes to the master (to = &c->dn) or the agent (&c->up); then_reset: reset after. */
static void send_to(pconn *c, rl_epw *to, const void *b, size_t n, int then_reset)
{
    hk_bytes *out = to == &c->dn ? &c->dout : &c->uout;
    if (c->closing || to->fd < 0) /* the agent's side closed: what it would get goes nowhere */
        return;
    hk_put_raw(out, b, n);
    if (out->oom) {
        conn_close(c, 1);
        return;
    }
    c->reset_after |= then_reset;
    if (!c->corked && out->len == n) /* nothing was waiting: out at once */
        flush(c, to);
}

/* The pumps' writes, each side's as one send (the master's hello and request together). */
static void uncork(pconn *c)
{
    c->corked = 0;
    if (!c->closing && c->uout.len && !(c->up.events & EPOLLOUT))
        flush(c, &c->up);
    if (!c->closing && !(c->dn.events & EPOLLOUT))
        flush(c, &c->dn);
}

static int stalled(const rl_proxy *p) { return rl_toxics_have(p->tx, p->ntx, RL_TX_STALL); }
static int blackholed(const rl_proxy *p)
{
    return rl_toxics_have(p->tx, p->ntx, RL_TX_BLACKHOLE);
}

/* ---- replies (agent -> master) -------------------------------------- */

static void send_reply(pconn *c);

/* A reply held back by a timer went out: the connection goes on with what waited. */
static void resumed(pconn *c)
{
    c->state = ST_IDLE;
    pump_up(c);
}

static void on_drip(uv_timer_t *t)
{
    pconn *c = t->data;
    size_t chunk = (size_t)(c->plan.rate_kbs * 1024 / 100); /* every 10 ms */
    if (chunk < 1)
        chunk = 1;
    if (chunk > c->reply.len - c->drip_off)
        chunk = c->reply.len - c->drip_off;
    send_to(c, &c->dn, c->reply.p + c->drip_off, chunk, 0);
    c->drip_off += chunk;
    if (c->drip_off < c->reply.len)
        return;
    uv_timer_stop(&c->timer);
    resumed(c);
}

/* The held reply out, as the plan says; the state says when the next request may go. */
static void send_reply(pconn *c)
{
    if (c->closing)
        return;
    if (c->plan.reset) {
        c->p->st.req[c->ping][RL_PX_RESET]++;
        send_to(c, &c->dn, c->reply.p, c->reply.len / 2, 1);
        c->state = ST_GONE;
        return;
    }
    if (c->plan.rate_kbs > 0) {
        c->state = ST_DRIP;
        c->drip_off = 0;
        uv_timer_start(&c->timer, on_drip, 0, 10);
        return;
    }
    send_to(c, &c->dn, c->reply.p, c->reply.len, 0);
    c->state = ST_IDLE;
}

static void on_delayed(uv_timer_t *t)
{
    pconn *c = t->data;
    send_reply(c);
    if (c->state == ST_IDLE)
        resumed(c);
}

/* An OK reply to a search as a WARNING one: status 3, the message first. */
static void to_warning(pconn *c)
{
    hk_hdr h;
    hk_hdr_read(c->reply.p, &h);
    if (h.code != HK_ST_OK || c->ping)
        return;
    hk_bytes w;
    hk_bytes_init(&w);
    hk_put_hdr(&w, HK_ST_WARNING, h.ver, h.len + 4 + (uint32_t)strlen(c->plan.msg));
    hk_put_str(&w, c->plan.msg);
    hk_put_raw(&w, c->reply.p + 8, c->reply.len - 8);
    hk_bytes_free(&c->reply);
    c->reply = w;
    c->p->st.req[0][RL_PX_WARNING]++;
}

/* The agent's reply to the request in flight: the toxics' plan carried out. */
static void deliver(pconn *c, const uint8_t *unit, size_t n)
{
    double up_ms = (double)(uv_hrtime() - c->sent_ns) / 1e6;
    rl_prom_observe(&c->p->st.upstream[c->ping], up_ms / 1e3);
    if (c->pending)
        log_search(c->p, c->plan.reset ? "reset" : c->plan.warning ? "warning" : "ok",
                   up_ms + c->plan.delay_ms + (c->plan.factor - 1) * up_ms);
    c->pending = 0;
    c->reply.len = 0;
    hk_put_raw(&c->reply, unit, n);
    if (c->plan.warning)
        to_warning(c);
    double delay = c->plan.delay_ms + (c->plan.factor - 1) * up_ms;
    if (delay >= 0.001) {
        c->p->st.req[c->ping][RL_PX_DELAYED]++;
        c->state = ST_DELAY;
        uv_timer_start(&c->timer, on_delayed, (uint64_t)(delay + 0.5), 0);
        return;
    }
    if (!c->plan.warning && !c->plan.reset && c->plan.rate_kbs <= 0)
        c->p->st.req[c->ping][RL_PX_PASSED]++;
    send_reply(c);
}

/* The agent closed: once what it sent before is through, the master sees the close too. */
static void finish(pconn *c)
{
    if (!c->up_eof || c->shut || c->closing || c->state == ST_DELAY || c->state == ST_DRIP ||
        stalled(c->p) || blackholed(c->p))
        return;
    if (c->uin.len) /* a partial unit: passed on as it is */
        send_to(c, &c->dn, c->uin.p, c->uin.len, 0);
    c->uin.len = 0;
    c->shut = 1;
    if (!c->closing && !c->dout.len)
        conn_close(c, 0);
}

static void pump_up(pconn *c)
{
    while (!c->closing && c->state != ST_DELAY && c->state != ST_DRIP && !stalled(c->p)) {
        if (blackholed(c->p)) {
            c->uin.len = 0;
            return;
        }
        hk_hdr h;
        size_t used;
        int k = hk_frame_step(&c->fup, 0, c->uin.p, c->uin.len, &h, &used);
        if (k == HK_FR_NEED)
            break;
        if (k == HK_FR_TOO_BIG) {
            conn_close(c, 1);
            return;
        }
        if (k == HK_FR_UNIT && c->state == ST_WAIT)
            deliver(c, c->uin.p, used);
        else /* a hello (good or not: the master judges it), or a reply nobody waits for */
            send_to(c, &c->dn, c->uin.p, k == HK_FR_BAD_HELLO ? 4 : used, 0);
        c->fup.got_hello = 1;
        consume(&c->uin, k == HK_FR_BAD_HELLO ? 4 : used);
    }
    finish(c);
    pump_dn(c); /* a reply went out: the next request, if one waits */
}

/* ---- requests (master -> agent) ------------------------------------- */

/* An ERROR reply to the search at the head of din, answered here. */
static void answer_error(pconn *c, const hk_hdr *h)
{
    hk_bytes b;
    hk_bytes_init(&b);
    hk_put_hdr(&b, HK_ST_ERROR, h->ver, 4 + (uint32_t)strlen(c->plan.msg));
    hk_put_str(&b, c->plan.msg);
    send_to(c, &c->dn, b.p, b.len, 0);
    hk_bytes_free(&b);
    c->p->st.req[c->ping][RL_PX_ERROR]++;
}

/* One whole request at the head of din: 1 when the pump may go on to the next. */
static int request(pconn *c, const hk_hdr *h, size_t used)
{
    if (h->code != HK_CMD_SEARCH && h->code != HK_CMD_PING) {
        c->p->st.persist += h->code == HK_CMD_PERSIST;
        send_to(c, &c->up, c->din.p, used, 0); /* PERSIST and the rest: as they are */
        consume(&c->din, used);
        return 1;
    }
    c->ping = h->code == HK_CMD_PING;
    if (!c->planned)
        rl_toxics_plan(c->p->tx, c->p->ntx, c->ping, c->p->rng, &c->plan);
    c->planned = 0;
    if (c->plan.error && !c->fup.got_hello) {
        /* the agent's hello reaches the master before any reply, ours included: the request
         * waits for it, its plan kept (pump_up calls again once the hello is through) */
        c->planned = 1;
        return 0;
    }
    if (c->held) /* held once: held while a stuck toxic is on, without a new draw */
        c->plan.hold = rl_toxics_have(c->p->tx, c->p->ntx, RL_TX_STUCK);
    if (c->plan.hold) {
        c->p->st.req[c->ping][RL_PX_HELD] += !c->held;
        if (!c->held && !c->ping)
            log_search(c->p, "stuck", -1);
        c->held = 1;
        c->state = ST_HELD;
        return 0;
    }
    c->held = 0;
    if (c->plan.error) {
        if (!c->ping)
            log_search(c->p, "error", 0);
        answer_error(c, h);
        consume(&c->din, used);
        return 1;
    }
    send_to(c, &c->up, c->din.p, used, 0);
    consume(&c->din, used);
    c->sent_ns = uv_hrtime();
    c->pending = !c->ping;
    c->state = ST_WAIT;
    return 0;
}

static void pump_dn(pconn *c)
{
    while (!c->closing && c->state == ST_IDLE && !stalled(c->p)) {
        if (blackholed(c->p)) {
            c->p->st.req[0][RL_PX_DROPPED] += c->din.len > 0;
            log_unread(c);
            c->din.len = 0;
            return;
        }
        hk_hdr h;
        size_t used;
        int k = hk_frame_step(&c->fdn, 1, c->din.p, c->din.len, &h, &used);
        if (k == HK_FR_NEED)
            return;
        if (k == HK_FR_TOO_BIG) {
            conn_close(c, 1);
            return;
        }
        if (k == HK_FR_HELLO) {
            send_to(c, &c->up, c->din.p, used, 0);
            consume(&c->din, used);
        } else if (!request(c, &h, used))
            return;
    }
}

/* ---- reading -------------------------------------------------------- */

/* The agent closed its side (or reset it): its socket goes, and what waited for it. */
static void up_gone(pconn *c)
{
    c->up_eof = 1;
    c->uout.len = 0;
    close_sock(c->p->ep, &c->up, 0);
    finish(c);
}

/* One read (another comes with the next event while more waits: level-triggered). */
static void read_side(pconn *c, rl_epw *w)
{
    uint8_t buf[65536];
    int from_up = w == &c->up;
    hk_bytes *in = from_up ? &c->uin : &c->din;
    ssize_t n = read(w->fd, buf, sizeof buf);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
        return;
    if (n < 0 && up_connect_failed(c, w, errno))
        io_failed(c, w, errno);
    else if (n <= 0 && from_up)
        up_gone(c);
    else if (n <= 0)
        conn_close(c, 0); /* the master went: so does our twin */
    else {
        hk_put_raw(in, buf, (size_t)n);
        if (in->oom || in->len > HK_PROTO_MAX_PACKET + 4096u)
            conn_close(c, 1);
        else {
            c->corked = 1;
            if (from_up)
                pump_up(c);
            else
                pump_dn(c);
            uncork(c);
        }
    }
}

static void on_io(rl_epw *w, uint32_t ev)
{
    pconn *c = w->data;
    if (!c->closing && (ev & EPOLLOUT))
        flush(c, w);
    if (!c->closing && w->fd >= 0 && (ev & (EPOLLIN | EPOLLERR | EPOLLHUP)))
        read_side(c, w);
}

static void link_conn(rl_proxy *p, pconn *c)
{
    c->next = p->conns;
    if (p->conns)
        p->conns->pprev = &c->next;
    p->conns = c;
    c->pprev = &p->conns;
    p->nconns++;
}

static pconn *conn_new(rl_proxy *p, int fd)
{
    pconn *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->p = p;
    hk_bytes_init(&c->din);
    hk_bytes_init(&c->uin);
    hk_bytes_init(&c->dout);
    hk_bytes_init(&c->uout);
    hk_bytes_init(&c->reply);
    hk_frame_init(&c->fdn, HK_PROTO_MAX_PACKET);
    hk_frame_init(&c->fup, HK_PROTO_MAX_PACKET);
    uv_timer_init(p->loop, &c->timer);
    c->timer.data = c->dn.data = c->up.data = c;
    c->dn.cb = c->up.cb = on_io;
    c->dn.fd = fd;
    c->up.fd = -1;
    link_conn(p, c);
    return c;
}

static int refused(rl_proxy *p)
{
    for (int i = 0; i < p->ntx; i++)
        if (p->tx[i].kind == RL_TX_REFUSE &&
            (p->tx[i].toxicity >= 1 || gsl_rng_uniform(p->rng) < p->tx[i].toxicity))
            return 1;
    return 0;
}

/* The agent's socket, its connect under way: the master's bytes go to it as they come (the
 * kernel holds them until it is up, or a refused connect fails them). */
static int connect_up(pconn *c)
{
    int one = 1;
    c->up.fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (c->up.fd < 0)
        return -1;
    setsockopt(c->up.fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (connect(c->up.fd, (const struct sockaddr *)&c->p->up_addr, sizeof c->p->up_addr) < 0 &&
        errno != EINPROGRESS)
        return -1;
    return 0;
}

/* A master's connection accepted on fd (non-blocking; TCP_NODELAY from the listener). */
static void on_conn(rl_proxy *p, int fd)
{
    pconn *c = conn_new(p, fd);
    if (!c) {
        close(fd);
        return;
    }
    p->st.accepted++;
    if (p->nconns > RL_PROXY_CONNS_MAX || refused(p)) {
        p->st.refused++;
        conn_close(c, 1);
        return;
    }
    if (connect_up(c) < 0) {
        p->st.upstream_failed++;
        conn_close(c, 1);
        return;
    }
    if (watch(c, &c->dn) == 0)
        watch(c, &c->up);
}

/* Out of descriptors: the spare one makes room to take the connection, reset at once (as
 * libuv does), rather than the listener firing without end. */
static void shed(rl_proxy *p)
{
    if (p->spare_fd < 0)
        return;
    close(p->spare_fd);
    int fd = accept4(p->srv.fd, NULL, NULL, SOCK_CLOEXEC);
    if (fd >= 0) {
        reset_on_close(fd);
        close(fd);
        p->st.accepted++;
        p->st.refused++;
    }
    p->spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
}

static void on_accept(rl_epw *w, uint32_t ev)
{
    rl_proxy *p = w->data;
    (void)ev;
    for (int i = 0; i < 64 && p->srv.fd >= 0; i++) {
        int fd = accept4(p->srv.fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd >= 0)
            on_conn(p, fd);
        else if (errno == EMFILE || errno == ENFILE)
            shed(p);
        else if (errno != EINTR && errno != ECONNABORTED)
            return;
    }
}

/* ---- the proxy ------------------------------------------------------ */

int rl_proxy_init(rl_proxy *p, uv_loop_t *loop, const char *name, const char *listen,
                  const char *upstream, uint64_t seed, char *msg, int n)
{
    memset(p, 0, sizeof *p);
    p->loop = loop;
    p->srv.fd = p->spare_fd = -1;
    char host[64];
    int port;
    if (rl_addr_parse(upstream, host, sizeof host, &port) < 0 ||
        uv_ip4_addr(host, port, &p->up_addr) < 0)
        return hk_err_msg(msg, n, "upstream '%.80s': expected IPv4:PORT", upstream);
    if (rl_addr_parse(listen, host, sizeof host, &port) < 0)
        return hk_err_msg(msg, n, "listen '%.80s': expected IPv4:PORT", listen);
    snprintf(p->name, sizeof p->name, "%s", name);
    snprintf(p->listen, sizeof p->listen, "%s", listen);
    snprintf(p->upstream, sizeof p->upstream, "%s", upstream);
    p->rng = gsl_rng_alloc(gsl_rng_mt19937);
    p->ep = rl_ep_new(loop);
    if (!p->rng || !p->ep)
        return hk_err_msg(msg, n, "out of memory (or no epoll set)");
    gsl_rng_set(p->rng, seed);
    p->spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
    return 0;
}

/* The listener: non-blocking, SO_REUSEADDR (as libuv's bind), TCP_NODELAY for every
 * connection it accepts (Linux copies it to them). 0, or -1 with errno. */
static int listen_sock(const struct sockaddr_in *a)
{
    int one = 1, fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) < 0 ||
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one) < 0 ||
        bind(fd, (const struct sockaddr *)a, sizeof *a) < 0 || listen(fd, 511) < 0) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    return fd;
}

static int listen_on(rl_proxy *p, char *msg, int n)
{
    char host[64];
    int port;
    struct sockaddr_in a;
    rl_addr_parse(p->listen, host, sizeof host, &port);
    if (uv_ip4_addr(host, port, &a) < 0)
        return hk_err_msg(msg, n, "listen %s: expected an IPv4 address", p->listen);
    p->srv.fd = listen_sock(&a);
    p->srv.cb = on_accept;
    p->srv.data = p;
    p->srv.events = 0;
    int rc = p->srv.fd < 0 ? -errno : rl_ep_watch(p->ep, &p->srv, EPOLLIN);
    if (rc < 0) {
        rl_ep_close_fd(p->ep, &p->srv);
        return hk_err_msg(msg, n, "proxy %s on %s: %s", p->name, p->listen, uv_strerror(rc));
    }
    return 0;
}

/* A refuse toxic at toxicity 1: the port closed, so the kernel refuses connects as it does a
 * dead searchd's (connect() failed); below 1 a connect is accepted, then reset. */
static int refusing(const rl_proxy *p)
{
    for (int i = 0; i < p->ntx; i++)
        if (p->tx[i].kind == RL_TX_REFUSE && p->tx[i].toxicity >= 1)
            return 1;
    return 0;
}

/* The listener as enabled and the toxics say: 0, or -1 (msg: the port and why). */
static int sync_listener(rl_proxy *p, char *msg, int n)
{
    int want = p->enabled && !refusing(p), listening = p->srv.fd >= 0;
    if (want && !listening && listen_on(p, msg, n) < 0) {
        p->st.listen_failed++;
        return -1;
    }
    if (!want && listening)
        rl_ep_close_fd(p->ep, &p->srv);
    return 0;
}

int rl_proxy_enable(rl_proxy *p, int enabled, char *msg, int n)
{
    int was = p->enabled;
    p->enabled = enabled;
    if (sync_listener(p, msg, n) < 0) {
        p->enabled = was;
        return -1;
    }
    while (!enabled && p->conns)
        conn_close(p->conns, 1);
    return 0;
}

/* The toxics changed: the listener follows them, and whatever they held goes on. A port
 * taken meanwhile by another process is counted (listen_failed), tried again at the next
 * change. */
static void resume(rl_proxy *p)
{
    char msg[160];
    sync_listener(p, msg, sizeof msg);
    for (pconn *c = p->conns, *next; c; c = next) {
        next = c->next;
        if (c->state == ST_HELD)
            c->state = ST_IDLE; /* its request is looked at again */
        pump_dn(c);
        pump_up(c);
    }
}

int rl_proxy_find(const rl_proxy *p, const char *name)
{
    for (int i = 0; i < p->ntx; i++)
        if (!strcmp(p->tx[i].name, name))
            return i;
    return -1;
}

int rl_proxy_add(rl_proxy *p, const rl_toxic *t, char *msg, int n)
{
    if (rl_proxy_find(p, t->name) >= 0)
        return hk_err_msg(msg, n, "toxic %s already exists on proxy %s", t->name, p->name);
    if (p->ntx == RL_TX_MAX)
        return hk_err_msg(msg, n, "proxy %s has %d toxics, the most it takes", p->name,
                          RL_TX_MAX);
    p->tx[p->ntx++] = *t;
    resume(p);
    return 0;
}

void rl_proxy_set(rl_proxy *p, int i, const rl_toxic *t)
{
    p->tx[i] = *t;
    resume(p);
}

int rl_proxy_remove(rl_proxy *p, const char *name)
{
    int i = rl_proxy_find(p, name);
    if (i < 0)
        return -1;
    memmove(&p->tx[i], &p->tx[i + 1], (size_t)(p->ntx - i - 1) * sizeof p->tx[0]);
    p->ntx--;
    resume(p);
    return 0;
}

void rl_proxy_clear(rl_proxy *p)
{
    p->ntx = 0;
    resume(p);
}

void rl_proxy_free(rl_proxy *p)
{
    char msg[8];
    if (p->ep)
        rl_proxy_enable(p, 0, msg, sizeof msg);
    rl_ep_free(p->ep);
    p->ep = NULL;
    if (p->spare_fd >= 0)
        close(p->spare_fd);
    p->spare_fd = -1;
    gsl_rng_free(p->rng);
    p->rng = NULL;
}
