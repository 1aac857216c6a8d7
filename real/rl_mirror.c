/* rl_mirror: the mirror agent server (libuv). */
#include "rl_mirror.h"
#include "hk_err.h"

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "hk_csv.h"
#include "hk_frame.h"
#include "hk_proto.h"
#include "hk_time.h"

typedef struct rl_conn {
    uv_tcp_t tcp;                /* first: handle -> conn */
    rl_mirror *m;
    uv_timer_t timer;            /* reply delay */
    uv_timer_t idle;             /* no byte for idle_ms: close */
    uv_timer_t req;              /* a request begun but not whole within request_ms: close */
    uint8_t *buf;
    size_t len, cap;
    hk_frame fr;
    int persistent, busy, closing, handles, eof, served_one, req_on;
    int stuck;                   /* its search held by a stuck fault: answered when it ends,
                                    logged `stuck` if the connection closes first */
    int throttled;               /* replies past RL_MIRROR_WQ_MAX held: not read until drained */
    size_t held;                 /* bytes of replies (and their write requests) not yet called
                                  * back: what the connection holds of the mirror's memory,
                                  * whether or not the kernel took the bytes already */
    uint64_t req_since;          /* loop ms when the partial request began */
    struct rl_conn *next, **pprev;   /* the mirror's list of connections */
    struct rl_drip *drip;            /* a reply being dripped, owned */
    hk_search_req q;
    double delay_ms;
    char peer[64];
} rl_conn;

typedef struct rl_drip {
    uv_timer_t t;
    rl_conn *c;
    hk_bytes b;
    size_t off;
} rl_drip;

typedef struct rl_write {
    uv_write_t req;
    rl_conn *c;
    hk_bytes b;
    int then_close;
} rl_write;

static const char *fault_names[RL_F_N] = {"none", "down", "stuck", "slow", "errors", "partition",
                                          "close", "reset", "garbage", "badversion", "retry",
                                          "warning", "drip", "acceptclose", "stall"};

const char *rl_fault_name(rl_fault f) { return f < RL_F_N ? fault_names[f] : "?"; }

int rl_fault_parse(const char *s, rl_fault *f, double *x)
{
    *x = 0;
    for (int k = 0; k < RL_F_N; k++) {
        size_t n = strlen(fault_names[k]);
        if (strncmp(s, fault_names[k], n) || (s[n] && s[n] != '(' && s[n] != '\n'))
            continue;
        *f = (rl_fault)k;
        if (s[n] == '(') {
            char arg[64];
            const char *close = strchr(s + n, ')');
            if (!close || close - s - (long)n - 1 >= (long)sizeof arg || close[1] > '\n')
                return -1;
            snprintf(arg, sizeof arg, "%.*s", (int)(close - s - (long)n - 1), s + n + 1);
            double lo = k == RL_F_SLOW ? 1e-6 : k == RL_F_DRIP ? 1 : 0;
            double hi = k == RL_F_SLOW ? 1e6 : k == RL_F_DRIP ? 60000 : 1;
            int bad;
            const char *what;
            return k == RL_F_SLOW || k == RL_F_ERRORS || k == RL_F_DRIP
                       ? hk_real_parse(arg, lo, hi, x, &bad, &what) : -1;
        }
        if (k == RL_F_SLOW || k == RL_F_ERRORS)
            *x = k == RL_F_SLOW ? 10 : 1;
        return 0;
    }
    return -1;
}

/* ---- connection lifecycle ------------------------------------------- */

static void on_handle_closed(uv_handle_t *h)
{
    rl_conn *c = h->data;
    if (--c->handles == 0) {
        c->m->nconns--;
        if (c->pprev) {
            *c->pprev = c->next;
            if (c->next)
                c->next->pprev = c->pprev;
        }
        free(c->buf);
        free(c);
    }
}

static void drip_closed(uv_handle_t *h);

static void log_query(rl_conn *c, rl_served o);

static void conn_close(rl_conn *c, int reset)
{
    if (c->closing)
        return;
    c->closing = 1;
    if (c->stuck) { /* the master gave up on it, or the mirror stops: never answered */
        c->stuck = 0;
        log_query(c, RL_SV_STUCK);
    }
    c->m->nopen--;
    if (c->drip) { /* the drip's timer must not outlive the connection */
        c->drip->c = NULL;
        uv_close((uv_handle_t *)&c->drip->t, drip_closed);
        c->drip = NULL;
    }
    uv_timer_stop(&c->timer);
    uv_close((uv_handle_t *)&c->timer, on_handle_closed);
    uv_close((uv_handle_t *)&c->idle, on_handle_closed);
    uv_close((uv_handle_t *)&c->req, on_handle_closed);
    if (reset && uv_tcp_close_reset(&c->tcp, on_handle_closed) == 0)
        return;
    uv_close((uv_handle_t *)&c->tcp, on_handle_closed);
}

static void on_alloc(uv_handle_t *h, size_t want, uv_buf_t *out);
static void on_read(uv_stream_t *s, ssize_t n, const uv_buf_t *buf);
static void process(rl_conn *c);

static void on_written(uv_write_t *req, int status)
{
    rl_write *w = (rl_write *)req;
    rl_conn *c = w->c;
    int close_it = w->then_close || status < 0;
    c->held -= w->b.len + sizeof *w;
    hk_bytes_free(&w->b);
    free(w);
    if (c->closing)
        return;
    if (close_it) {
        conn_close(c, 0);
    } else if (c->throttled && c->held <= RL_MIRROR_WQ_MAX / 2) {
        c->throttled = 0; /* the client reads its replies again: so do we its requests */
        if (!c->eof)
            uv_read_start((uv_stream_t *)&c->tcp, on_alloc, on_read);
        if (!c->busy)
            process(c);
    }
}

static void send_bytes(rl_conn *c, hk_bytes *b, int then_close)
{
    rl_write *w = calloc(1, sizeof *w);
    if (!w || b->oom || c->closing) {
        free(w);
        hk_bytes_free(b);
        conn_close(c, 0);
        return;
    }
    w->c = c;
    w->b = *b;
    w->then_close = then_close;
    uv_buf_t ub = uv_buf_init((char *)w->b.p, (unsigned)w->b.len);
    if (uv_write(&w->req, (uv_stream_t *)&c->tcp, &ub, 1, on_written) < 0) {
        hk_bytes_free(&w->b);
        free(w);
        conn_close(c, 0);
        return;
    }
    c->held += w->b.len + sizeof *w; /* until on_written frees it */
}

/* ---- serving ---------------------------------------------------------- */

static const char *const outcome_names[RL_SV_N] = {"ok", "error", "warning", "retry", "close",
                                                   "reset", "garbage", "drip", "stuck"};

const char *rl_served_name(rl_served o) { return o < RL_SV_N ? outcome_names[o] : "?"; }

/* A query's text as a field (libcsv quotes it when needed); a newline in it becomes a space,
 * so that a row is a line for grep. */
static void log_field(FILE *f, const char *s)
{
    char *one = strchr(s, '\n') ? strdup(s) : NULL;
    for (char *p = one; p && (p = strchr(p, '\n')); p++)
        *p = ' ';
    hk_csv_str(f, one ? one : s, 0);
    free(one);
}

/* Counted, then (with --log) one CSV row. */
static void log_query(rl_conn *c, rl_served o)
{
    rl_mirror_stats *st = &c->m->st;
    st->searches[o]++;
    if (c->delay_ms >= 0 && o != RL_SV_STUCK)
        rl_prom_observe(&st->delay, c->delay_ms / 1e3);
    const char *outcome = outcome_names[o];
    FILE *f = c->m->c.log;
    if (!f)
        return;
    uv_timeval64_t tv;
    uv_gettimeofday(&tv);
    char t[40], d[32];
    snprintf(t, sizeof t, "%" PRId64 ".%06d", tv.tv_sec, (int)tv.tv_usec);
    snprintf(d, sizeof d, "%.3f", c->delay_ms);
    hk_csv_str(f, t, 1);
    hk_csv_str(f, c->peer, 0);
    log_field(f, c->q.indexes);
    log_field(f, c->q.query);
    hk_csv_str(f, d, 0);
    hk_csv_str(f, outcome, 0);
    hk_csv_end(f);
    if (fflush(f) != 0 || ferror(f)) { /* a log that loses rows is worse than no mirror */
        if (!c->m->log_errno)
            c->m->log_errno = errno ? errno : EIO;
        rl_mirror_stop(c->m);
        return;
    }
    c->m->log_rows++;
}

static void drip_closed(uv_handle_t *h)
{
    rl_drip *d = h->data;
    hk_bytes_free(&d->b);
    free(d);
}

/* A slow drip: one byte of the reply every few milliseconds. */
static void drip_tick(uv_timer_t *t)
{
    rl_drip *d = t->data;
    rl_conn *c = d->c;
    if (d->off >= d->b.len) { /* all sent: closing the connection closes the drip */
        conn_close(c, 0);
        return;
    }
    hk_bytes one;
    hk_bytes_init(&one);
    hk_put_u8(&one, d->b.p[d->off++]);
    send_bytes(c, &one, 0);
}

static void start_drip(rl_conn *c, hk_bytes *b)
{
    rl_drip *d = calloc(1, sizeof *d);
    if (!d) {
        hk_bytes_free(b);
        conn_close(c, 0);
        return;
    }
    d->c = c;
    d->b = *b;
    c->drip = d;
    uv_timer_init(c->m->loop, &d->t);
    d->t.data = d;
    uint64_t every = c->m->fault_x > 0 ? (uint64_t)c->m->fault_x : 100;
    uv_timer_start(&d->t, drip_tick, every, every);
}

static void reply_search(uv_timer_t *t)
{
    rl_conn *c = t->data;
    rl_mirror *m = c->m;
    hk_bytes b;
    hk_bytes_init(&b);
    double u = gsl_rng_uniform(m->rng);
    int manticore = c->q.master_ver >= 20;
    rl_fault f = m->fault;
    rl_served outcome = RL_SV_OK;
    m->served++;
    c->busy = 0;
    if (f == RL_F_ERRORS ? u < m->fault_x : u < m->c.errors) {
        hk_search_reply_build(&b, HK_ST_ERROR, "hakarma mirror: injected error", 1, manticore, 0, 0);
        outcome = RL_SV_ERROR;
    } else if (f == RL_F_RETRY) {
        hk_search_reply_build(&b, HK_ST_RETRY, "hakarma mirror: injected retry", 1, manticore, 0, 0);
        outcome = RL_SV_RETRY;
    } else if (f == RL_F_WARNING || u < m->c.errors + m->c.warnings) {
        hk_search_reply_build(&b, HK_ST_WARNING, "hakarma mirror: injected warning", c->q.nqueries,
                              manticore, m->c.matches, (uint32_t)c->delay_ms);
        outcome = RL_SV_WARNING;
    } else {
        hk_search_reply_build(&b, HK_ST_OK, NULL, c->q.nqueries, manticore, m->c.matches,
                              (uint32_t)c->delay_ms);
    }
    if (f == RL_F_CLOSE) {  /* close mid-reply */
        b.len = b.len > 12 ? b.len / 2 : 4;
        log_query(c, RL_SV_CLOSE);
        send_bytes(c, &b, 1);
        return;
    }
    if (f == RL_F_RESET) {
        hk_bytes_free(&b);
        log_query(c, RL_SV_RESET);
        conn_close(c, 1);
        return;
    }
    if (f == RL_F_GARBAGE) {
        b.len = 0;
        for (int k = 0; k < 16; k++)
            hk_put_u8(&b, (uint8_t)gsl_rng_uniform_int(m->rng, 256));
        b.p[4] = 0x7f; /* length field far beyond max_packet_size */
        log_query(c, RL_SV_GARBAGE);
        send_bytes(c, &b, 1);
        return;
    }
    if (f == RL_F_DRIP) {
        log_query(c, RL_SV_DRIP);
        start_drip(c, &b);
        return;
    }
    log_query(c, outcome);
    send_bytes(c, &b, !c->persistent || c->eof);
    if (c->persistent && !c->eof)
        process(c);
}

/* Delay (ms) of a request needing svc_ms behind the mirror's workers, as the simulator models it. */
static double schedule(rl_mirror *m, double svc_ms)
{
    int64_t now = (int64_t)(uv_hrtime() / 1000), svc = (int64_t)(svc_ms * 1000.0);
    int64_t start = hk_fcfs_start(&m->workers, now, svc);
    return (double)(start + svc - now) / 1000.0;
}

/* c's search served now: its service time (a slow fault's factor applied) behind the
 * workers, then its reply. */
static void serve_search(rl_conn *c)
{
    rl_mirror *m = c->m;
    double svc = m->c.service ? hk_dist_sample(m->c.service, m->rng) / 1000.0 : 0;
    if (m->fault == RL_F_SLOW)
        svc *= m->fault_x;
    c->delay_ms = schedule(m, svc);
    c->busy = 1;
    uv_timer_start(&c->timer, reply_search, (uint64_t)(c->delay_ms + 0.5), 0);
}

static void start_search(rl_conn *c, const uint8_t *body, uint32_t len)
{
    rl_mirror *m = c->m;
    hk_rd r;
    if (hk_search_req_parse(body, len, &c->q, &r) < 0) {
        char msg[160];
        snprintf(msg, sizeof msg, "invalid SEARCH request at byte %zu: expected %s", r.err_off,
                 r.what);
        hk_bytes b;
        hk_bytes_init(&b);
        hk_search_reply_build(&b, HK_ST_ERROR, msg, 1, 0, 0, 0);
        m->st.refused++;
        send_bytes(c, &b, 1);
        return;
    }
    if (m->fault == RL_F_STUCK) {  /* hello and pings answered, this query held */
        c->busy = 1;
        c->stuck = 1;
        c->delay_ms = -1;
        return;
    }
    serve_search(c);
}

static void command(rl_conn *c, const hk_hdr *h, const uint8_t *body)
{
    hk_rd r;
    hk_rd_init(&r, body, h->len);
    if (h->code == HK_CMD_PERSIST) {
        int was = c->persistent;
        c->persistent = hk_rd_u32(&r, "persist flag") != 0;
        c->m->persisted += c->persistent && !was;
        return;
    }
    char why[160] = "hakarma mirror: unknown command";
    if (h->code == HK_CMD_PING && h->len != 4) {
        snprintf(why, sizeof why, "hakarma mirror: PING: expected a 4-byte cookie, got %u "
                 "bytes", (unsigned)h->len);
    } else if (h->code == HK_CMD_PING) {
        uint32_t cookie = hk_rd_u32(&r, "cookie");
        hk_bytes b;
        hk_bytes_init(&b);
        hk_ping_reply_build(&b, cookie);
        c->m->st.pings++;
        send_bytes(c, &b, !c->persistent || c->eof);
        return;
    } else if (h->code == HK_CMD_SEARCH && (h->ver >> 8 != HK_VER_SEARCH >> 8 ||
                                            h->ver > HK_VER_SEARCH_MANTICORE)) {
        snprintf(why, sizeof why, "%s (client is v.%d.%d, daemon is v.%d.%d)",
                 h->ver >> 8 != HK_VER_SEARCH >> 8 ? "major command version mismatch"
                 : "client version is higher than daemon version", h->ver >> 8, h->ver & 0xff,
                 HK_VER_SEARCH_MANTICORE >> 8, HK_VER_SEARCH_MANTICORE & 0xff);
    } else if (h->code == HK_CMD_SEARCH) {
        start_search(c, body, h->len);
        return;
    }
    hk_bytes b; /* searchd's answer to a request it will not serve: an ERROR reply, then close */
    hk_bytes_init(&b);
    c->m->st.refused++;
    hk_search_reply_build(&b, HK_ST_ERROR, why, 1, 0, 0, 0);
    send_bytes(c, &b, 1);
}

static void on_request_timeout(uv_timer_t *t) { conn_close(t->data, 0); }

/* A request has begun (bytes are waiting) but is not whole: it must be within request_ms. */
static void request_clock(rl_conn *c, int partial)
{
    if (partial && !c->req_on) {
        c->req_on = 1;
        c->req_since = uv_now(c->m->loop);
        uv_timer_start(&c->req, on_request_timeout, (uint64_t)c->m->c.request_ms, 0);
    } else if (!partial && c->req_on) {
        c->req_on = 0;
        uv_timer_stop(&c->req);
    }
}

static void process(rl_conn *c)
{
    if (c->m->fault == RL_F_PARTITION) { /* a black hole: nothing comes back */
        c->len = 0;
        return;
    }
    while (!c->closing && !c->busy && !(c->served_one && !c->persistent)) {
        if (c->held > RL_MIRROR_WQ_MAX) { /* a client that does not read its replies */
            if (!c->throttled && !c->eof)
                uv_read_stop((uv_stream_t *)&c->tcp);
            c->throttled = 1;
            return;
        }
        hk_hdr h;
        size_t used;
        int r = hk_frame_step(&c->fr, 1, c->buf, c->len, &h, &used);
        if (r == HK_FR_NEED) {
            request_clock(c, c->len > 0);
            break;
        }
        if (r == HK_FR_TOO_BIG) {
            conn_close(c, 0);
            return;
        }
        if (r == HK_FR_UNIT) {
            request_clock(c, 0);
            c->served_one |= h.code != HK_CMD_PERSIST;
            command(c, &h, c->buf + 8);
        }
        if (!c->closing)
            memmove(c->buf, c->buf + used, c->len -= used);
    }
    /* the master half-closed and nothing is left to answer: done */
    if (c->eof && !c->busy && !c->closing)
        conn_close(c, 0);
}

static void on_alloc(uv_handle_t *h, size_t want, uv_buf_t *out)
{
    rl_conn *c = h->data;
    (void)want;
    size_t need = c->len + 65536;
    if (need > c->cap) {
        uint8_t *p = realloc(c->buf, need);
        if (!p) {
            *out = uv_buf_init(NULL, 0);
            return;
        }
        c->buf = p;
        c->cap = need;
    }
    *out = uv_buf_init((char *)c->buf + c->len, (unsigned)(c->cap - c->len));
}

static void on_idle(uv_timer_t *t) { conn_close(t->data, 0); }

static void on_read(uv_stream_t *s, ssize_t n, const uv_buf_t *buf)
{
    rl_conn *c = s->data;
    (void)buf;
    if (n == UV_EOF) { /* half-closed: what was asked is still answered */
        c->eof = 1;
        uv_read_stop(s);
        if (!c->busy)
            process(c);
        return;
    }
    if (n < 0) {
        conn_close(c, 0);
        return;
    }
    c->len += (size_t)n;
    if (c->len > (size_t)c->m->c.max_request + 16) {
        conn_close(c, 0);
        return;
    }
    uv_timer_again(&c->idle);
    if (!c->busy)
        process(c);
}

/* Full: make room by closing the connection least likely to be a working master — the one
 * whose request has been arriving the longest, else the longest idle. NULL: all are busy. */
static rl_conn *victim(rl_mirror *m)
{
    rl_conn *best = NULL;
    for (rl_conn *c = m->conns; c; c = c->next) {
        if (c->busy || c->closing)
            continue;
        if (!best || (c->req_on && (!best->req_on || c->req_since < best->req_since)) ||
            (!c->req_on && !best->req_on && uv_timer_get_due_in(&c->idle) <
                                             uv_timer_get_due_in(&best->idle)))
            best = c;
    }
    return best;
}

static void on_conn(uv_stream_t *srv, int status)
{
    rl_mirror *m = srv->data;
    if (status < 0)
        return;
    if (m->nopen >= m->c.max_conns) { /* a new master must get in: evict a laggard */
        rl_conn *v = victim(m);
        if (v)
            conn_close(v, 0);
    }
    rl_conn *c = calloc(1, sizeof *c);
    if (!c)
        return;
    c->m = m;
    hk_frame_init(&c->fr, m->c.max_request);
    uv_tcp_init(m->loop, &c->tcp);
    uv_timer_init(m->loop, &c->timer);
    uv_timer_init(m->loop, &c->idle);
    uv_timer_init(m->loop, &c->req);
    c->tcp.data = c->timer.data = c->idle.data = c->req.data = c;
    c->handles = 4;
    m->nconns++;
    m->nopen++;
    c->next = m->conns;
    if (m->conns)
        m->conns->pprev = &c->next;
    c->pprev = &m->conns;
    m->conns = c;
    if (uv_accept(srv, (uv_stream_t *)&c->tcp) < 0 || m->nopen > m->c.max_conns) {
        conn_close(c, 0);
        return;
    }
    m->accepted++;
    struct sockaddr_storage ss;
    int len = sizeof ss;
    if (uv_tcp_getpeername(&c->tcp, (struct sockaddr *)&ss, &len) == 0 && ss.ss_family == AF_INET) {
        struct sockaddr_in *sin = (struct sockaddr_in *)&ss;
        char ip[32];
        uv_ip4_name(sin, ip, sizeof ip);
        snprintf(c->peer, sizeof c->peer, "%s:%d", ip, ntohs(sin->sin_port));
    }
    uv_timer_start(&c->idle, on_idle, (uint64_t)m->c.idle_ms, (uint64_t)m->c.idle_ms);
    uv_read_start((uv_stream_t *)&c->tcp, on_alloc, on_read);
    if (m->fault == RL_F_ACCEPTCLOSE) { /* accept, then close at once */
        conn_close(c, 0);
        return;
    }
    if (m->fault == RL_F_PARTITION)
        return; /* never send the hello: the master's connect phase times out */
    hk_bytes b;
    hk_bytes_init(&b);
    hk_put_u32(&b, m->fault == RL_F_BADVERSION ? 2 : HK_PROTO_HELLO);
    send_bytes(c, &b, 0);
}

static int listen_on(rl_mirror *m, char *msg, int n)
{
    struct sockaddr_in a;
    if (uv_ip4_addr(m->c.host, m->c.port, &a) < 0)
        return hk_err_msg(msg, n, "bad listen address %s", m->c.host);
    uv_tcp_init(m->loop, &m->srv);
    m->srv.data = m;
    int rc = uv_tcp_bind(&m->srv, (struct sockaddr *)&a, 0);
    if (rc == 0)
        rc = uv_listen((uv_stream_t *)&m->srv, 512, on_conn);
    if (rc < 0) {
        snprintf(msg, (size_t)n, "cannot listen on %s:%d: %s", m->c.host, m->c.port,
                 uv_strerror(rc));
        uv_close((uv_handle_t *)&m->srv, NULL);
        return -1;
    }
    m->listening = 1;
    return 0;
}

int rl_mirror_start(rl_mirror *m, uv_loop_t *loop, const rl_mirror_cfg *c, char *msg, int n)
{
    memset(m, 0, sizeof *m);
    m->loop = loop;
    m->c = *c;
    m->rng = gsl_rng_alloc(gsl_rng_mt19937);
    if (!m->rng || hk_fcfs_init(&m->workers, c->threads) < 0)
        return hk_err_msg(msg, n, "out of memory");
    gsl_rng_set(m->rng, (unsigned long)c->seed);
    if (c->log)
        fputs("t_s,peer,index,query,delay_ms,outcome\n", c->log);
    return listen_on(m, msg, n);
}

/* A stuck fault ended: each search it held is served now, under the fault that follows, as a
 * searchd whose query threads come back (and as hasim's stuck does). */
static void release_held(rl_mirror *m)
{
    for (rl_conn *c = m->conns; c; c = c->next)
        if (c->stuck && !c->closing) {
            c->stuck = 0;
            serve_search(c);
        }
}

int rl_mirror_set_fault(rl_mirror *m, rl_fault f, double x)
{
    char msg[200];
    if (f == RL_F_DOWN && m->listening) {
        uv_close((uv_handle_t *)&m->srv, NULL);
        m->listening = 0;
    } else if (f != RL_F_DOWN && !m->listening && listen_on(m, msg, sizeof msg) < 0) {
        return -1;
    }
    if (f == RL_F_STALL) { /* a stalled process, for real: the kernel keeps accepting */
        hk_sayf(&m->c.say, "stalled (SIGSTOP): kill -CONT %ld resumes it", (long)getpid());
        raise(SIGSTOP);
        f = RL_F_NONE; /* continued: it answers again, what queued up first */
    }
    int unstuck = m->fault == RL_F_STUCK && f != RL_F_STUCK;
    m->fault = f;
    m->fault_x = x;
    if (unstuck)
        release_held(m);
    return 0;
}

/* A control line: quit, or fault KIND[(X)]. */
static void ctl_line(void *user, const char *line)
{
    rl_mirror *m = user;
    rl_fault f;
    double x;
    if (!strcmp(line, "quit"))
        rl_mirror_stop(m);
    else if (!strncmp(line, "fault ", 6) && rl_fault_parse(line + 6, &f, &x) == 0)
        rl_mirror_set_fault(m, f, x);
    else
        hk_sayf(&m->c.say, "unknown control line '%s'", line);
}

static void ctl_eof(void *user) { rl_mirror_stop(user); }

int rl_mirror_control_stdin(rl_mirror *m)
{
    m->ctl.line = ctl_line;
    m->ctl.eof = ctl_eof;
    m->ctl.user = m;
    return rl_ctl_start(&m->ctl, m->loop);
}

void rl_mirror_stop(rl_mirror *m)
{
    if (m->listening) {
        uv_close((uv_handle_t *)&m->srv, NULL);
        m->listening = 0;
    }
    rl_ctl_stop(&m->ctl);
    for (rl_conn *c = m->conns; c; c = c->next)
        conn_close(c, 0);
    if (m->on_stop) {
        void (*fn)(void *) = m->on_stop;
        m->on_stop = NULL;
        fn(m->on_stop_user);
    }
}

void rl_mirror_free(rl_mirror *m)
{
    if (m->rng)
        gsl_rng_free(m->rng);
    hk_fcfs_free(&m->workers);
    m->rng = NULL;
}
