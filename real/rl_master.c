/* rl_master: the wire master (see rl_master.h). */
#include "rl_master.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>
#include "hk_buf.h"
#include "hk_file.h"
#include "hk_frame.h"
#include "hk_proto.h"
#include "hk_answer.h"
#include "rl_ep.h"
#include "hk_report.h"

typedef struct rl_lst {
    int mirror, attempts, ev, done, blackhole;
    int64_t t_done;
} rl_lst;

typedef struct rl_q {
    uint64_t id;
    int table, pending, failed, holds;
    int64_t t_sched, t_sent;
    char *query;                 /* owned */
    rl_lst ls[];
} rl_q;

typedef struct rl_att {
    rl_epw w;                    /* its socket, in the master's epoll set */
    rl_epw *wp;                  /* the watcher in use: w, or its pooled socket's (the pool's) */
    struct rl_att *prev, *next;  /* in m->atts while in flight */
    size_t woff;                 /* how much of out is sent */
    uv_timer_t timer;
    int handles, finished, phase, is_ping, sync_fail;
    int pooled;                  /* holds a slot of its host's pool: the socket goes back there */
    rl_master *m;
    rl_q *q;
    int k, host;
    hk_frame fr;
    int64_t t_start, connect_us, qtimeout_us;
    int64_t reported_us;         /* the query time the reply reports (c3); -1 none */
    hk_bytes out;
    uint8_t *buf;
    size_t len, cap;
    struct rl_ping *ping;
} rl_att;

typedef struct rl_ping {
    uv_timer_t t;
    rl_master *m;
    int host, busy;
} rl_ping;

typedef struct rl_retry {
    uv_timer_t t;
    rl_q *q;
    int k;
    rl_master *m;
} rl_retry;

enum { PH_CONNECT, PH_HELLO, PH_REPLY };

int64_t rl_now_us(void)
{
    uv_timeval64_t tv;
    uv_gettimeofday(&tv);
    return tv.tv_sec * 1000000 + tv.tv_usec;
}

static void attempt(rl_master *m, rl_q *q, int k, int choose);
static void on_ping_timer(uv_timer_t *t);

/* ---- query lines ------------------------------------------------------ */

static void q_release(rl_master *m, rl_q *q)
{
    if (--q->holds == 0) {
        m->inflight--;
        free(q->query);
        free(q);
    }
}

static void line_done(rl_master *m, rl_q *q, int k, int ev, int64_t now)
{
    rl_lst *ls = &q->ls[k];
    const hk_table *t = &m->c.cl->tables[q->table];
    int ok = hk_ev_ok(ev);
    ls->done = 1;
    ls->ev = ev;
    ls->t_done = now;
    q->failed += !ok;
    int last = --q->pending == 0;
    int qok = q->failed == 0 ? 1 : (q->failed == t->nlines && t->nlocal == 0) ? -1 : 0;
    if (last) {
        m->finished++;
        if (qok >= 0 && ev >= 0) { /* a failed query has no latency: it is counted beside */
            hk_hist_add(&m->all, (double)(now - q->t_sent));
            hk_hist_add(&m->per_all, (double)(now - q->t_sent));
        }
        if (ev >= 0)
            hk_tl_query(&m->tl, now, qok == 1 ? 0 : qok == 0 ? 1 : 2);
        if (ev < 0) {
            m->cancelled++;
        } else if (qok == 1) {
            m->ok++;
            m->per_ok++;
        } else if (qok == 0) {
            m->partial++;
            m->per_partial++;
        } else {
            m->failed++;
            m->per_failed++;
        }
    }
    rl_outcome o = {.id = q->id, .table = q->table, .line = k, .mirror = ls->mirror,
                    .attempts = ls->attempts,
                    .kind = ls->blackhole ? RL_OUT_BLACKHOLE : ev < 0 ? RL_OUT_CANCELLED : ev,
                    .ok = ok, .t_sched_us = q->t_sched, .t_sent_us = q->t_sent, .t_done_us = now};
    if (m->c.done)
        m->c.done(m->c.ctx, &o, last, qok);
}

const char *rl_outcome_name(int kind)
{
    return kind == RL_OUT_BLACKHOLE ? "blackhole" : hk_ev_name(kind < RL_OUT_BLACKHOLE ? kind : -1);
}

static int retryable(const rl_master *m, int ev)
{
    if (ev == HK_EV_SUCCESS || ev == HK_EV_WARNING || ev < 0)
        return 0;
    return m->var->rechoose_on_retry || ev == HK_EV_CONNECT_TIMEOUT;
}

static void on_retry_closed(uv_handle_t *h) { free(h->data); }

static void on_retry(uv_timer_t *t)
{
    rl_retry *r = t->data;
    if (r->m->stopping)
        line_done(r->m, r->q, r->k, -1, rl_now_us());
    else
        attempt(r->m, r->q, r->k, r->m->var->rechoose_on_retry);
    q_release(r->m, r->q);
    uv_close((uv_handle_t *)&r->t, on_retry_closed);
}

/* ---- one attempt on the wire ------------------------------------------ */

static void att_closed(uv_handle_t *h)
{
    rl_att *a = h->data;
    if (--a->handles == 0) {
        hk_bytes_free(&a->out);
        free(a->buf);
        free(a);
    }
}

static void record(rl_master *m, rl_att *a, int ev, int64_t now)
{
    hk_dash_record(&m->dash[a->host], now, (hk_ev)ev, a->t_start, a->is_ping, a->connect_us);
    if (a->is_ping) {
        if (ev == HK_EV_SUCCESS)
            m->dash[a->host].ping_trip_us = now - a->t_start;
        return;
    }
    int li = m->li_base[a->q->table] + a->k, j = a->q->ls[a->k].mirror;
    hk_lper *s = &m->st[li][j];
    int ok = hk_ev_ok(ev);
    if (a->reported_us >= 0) /* the agent's own query time: its service time, for c3 */
        hk_line_feedback(m->lines[li], j, (double)a->reported_us, -1);
    hk_line_end(m->lines[li], j, now, ok, now - a->t_start);
    hk_tl_outcome(&m->tl, m->series[li] + j, now, ev, now - a->t_start);
    if (ok) {
        hk_hist_add(&s->per, (double)(now - a->t_start));
    } else {
        s->err++;
    }
}

/* The attempt's outcome: record, then retry or finish the line; close handles. */
static void att_finish(rl_att *a, int ev)
{
    if (a->finished)
        return;
    a->finished = 1;
    rl_master *m = a->m;
    if (a->prev)
        a->prev->next = a->next;
    else
        m->atts = a->next;
    if (a->next)
        a->next->prev = a->prev;
    int64_t now = rl_now_us();
    uv_timer_stop(&a->timer);
    if (ev >= 0 && !(a->q && a->q->ls[a->k].blackhole))
        record(m, a, ev, now);
    if (a->is_ping) {
        a->ping->busy = 0;
        if (!m->stopping)
            uv_timer_start(&a->ping->t, on_ping_timer, (uint64_t)(m->c.cl->set.ping_us / 1000), 0);
    } else if (a->q && !a->q->ls[a->k].blackhole) {
        rl_q *q = a->q;
        const hk_table *t = &m->c.cl->tables[q->table];
        int budget = hk_line_attempts(m->c.cl, t, &t->lines[a->k], !m->var->rechoose_on_retry);
        if (retryable(m, ev) && !m->stopping && q->ls[a->k].attempts < budget) {
            rl_retry *r = calloc(1, sizeof *r);
            if (r) {
                r->q = q;
                r->k = a->k;
                r->m = m;
                q->holds++;
                uv_timer_init(m->loop, &r->t);
                r->t.data = r;
                uv_timer_start(&r->t, on_retry, (uint64_t)(m->c.cl->set.retry_delay_us / 1000), 0);
            }
        } else {
            line_done(m, q, a->k, m->stopping && ev < 0 ? -1 : ev, now);
        }
        if (q)
            q_release(m, q);
    } else if (a->q) {
        q_release(m, a->q);
    }
    a->q = NULL;
    if (a->pooled) { /* a reply leaves the connection usable; anything else closes it */
        int keep = ev >= 0 && (hk_ev_ok(ev) || ev == HK_EV_REMOTE_ERROR) && !m->stopping;
        rl_mpool_back(&m->mp, a->host, a->wp, keep);
        a->wp = &a->w;
    }
    rl_ep_close_fd(m->ep, a->wp);
    uv_close((uv_handle_t *)&a->timer, att_closed);
}

static void on_att_timer(uv_timer_t *t)
{
    rl_att *a = t->data;
    int connected = a->phase == PH_REPLY || (a->phase == PH_HELLO && !a->m->var->hello_in_connect);
    att_finish(a, a->sync_fail ? HK_EV_CONNECT_FAILURE
                  : connected ? HK_EV_QUERY_TIMEOUT : HK_EV_CONNECT_TIMEOUT);
}

/* Room for the next read in a->buf (at least 16 KB); -1: no memory. */
static int room(rl_att *a)
{
    if (a->cap - a->len >= 16384)
        return 0;
    size_t cap = a->cap ? a->cap * 2 : 32768;
    uint8_t *p = realloc(a->buf, cap);
    if (!p)
        return -1;
    a->buf = p;
    a->cap = cap;
    return 0;
}

/* Count a malformed reply; keep the first one's peer, byte offset and what was expected. */
static int wrong(rl_att *a, size_t off, const char *fmt, const char *what)
{
    rl_master *m = a->m;
    if (m->wrong_replies++ == 0) {
        char exp[200];
        snprintf(exp, sizeof exp, fmt, what);
        snprintf(m->first_wrong, sizeof m->first_wrong, "%.80s: byte %zu of the reply: expected %.180s",
                 m->c.cl->hosts[a->host].name, off, exp);
    }
    return HK_EV_WRONG_REPLY;
}

static int reply_outcome(rl_att *a, const hk_hdr *h, const uint8_t *body)
{
    if (a->is_ping)
        return h->code == HK_ST_OK && h->len >= 4 ? HK_EV_SUCCESS
                                                  : wrong(a, 12, "%s", "an OK reply to PING");
    hk_search_res res;
    hk_rd r;
    if (hk_search_reply_parse(h->code, body, h->len, &res, &r) < 0)
        return wrong(a, 12 + r.err_off, "%s", r.what);
    a->reported_us = (int64_t)res.time_ms * 1000;
    if (h->code == HK_ST_ERROR || h->code == HK_ST_RETRY || res.status == HK_ST_ERROR)
        return HK_EV_REMOTE_ERROR;
    return h->code == HK_ST_WARNING || res.status == HK_ST_WARNING ? HK_EV_WARNING : HK_EV_SUCCESS;
}

static void consume(rl_att *a)
{
    hk_hdr h;
    size_t used;
    int r = hk_frame_step(&a->fr, 0, a->buf, a->len, &h, &used);
    if (r == HK_FR_BAD_HELLO) {
        att_finish(a, wrong(a, 0, "%s", "the server hello 1"));
        return;
    }
    if (r == HK_FR_HELLO) {
        memmove(a->buf, a->buf + used, a->len -= used);
        a->phase = PH_REPLY;
        if (a->m->var->hello_in_connect) {
            a->connect_us = rl_now_us() - a->t_start;
            uv_timer_start(&a->timer, on_att_timer, (uint64_t)(a->qtimeout_us / 1000), 0);
        }
        r = hk_frame_step(&a->fr, 0, a->buf, a->len, &h, &used);
    }
    if (r == HK_FR_TOO_BIG)
        att_finish(a, wrong(a, 8, "%s", "a reply length up to max_packet_size (8 MB)"));
    else if (r == HK_FR_UNIT)
        att_finish(a, reply_outcome(a, &h, a->buf + 8));
}

/* The connection is up (the first bytes went out, or the socket became writable). */
static void connected(rl_att *a)
{
    a->phase = PH_HELLO;
    if (a->q) /* a search's connection (pings are not counted: the mirrors' logs hold searches) */
        hk_ledger_at(&a->m->led, a->m->li_base[a->q->table] + a->k,
                     a->q->ls[a->k].mirror)->connects++;
    if (!a->m->var->hello_in_connect) { /* Manticore pipelines: the query timeout starts now */
        a->connect_us = rl_now_us() - a->t_start;
        uv_timer_start(&a->timer, on_att_timer, (uint64_t)(a->qtimeout_us / 1000), 0);
    }
}

/* What a failed send or read means in the phase it happened. */
static int io_event(const rl_att *a, int err)
{
    if (a->phase == PH_CONNECT)
        return HK_EV_CONNECT_FAILURE;
    /* the peer going away during the handshake (closed or reset) is an unexpected closing;
     * after it, a reset is a network error and a close one in Manticore only */
    return a->phase == PH_HELLO ? HK_EV_UNEXPECTED_CLOSE
           : err == ECONNRESET ? HK_EV_NETWORK_ERROR
           : a->m->var->rechoose_on_retry ? HK_EV_UNEXPECTED_CLOSE : HK_EV_NETWORK_ERROR;
}

/* Send what is left of the hello and request; then wait for the reply. While the connect is
 * in progress a send says EAGAIN: wait for writability (a refused connect then fails it). */
static void att_send(rl_att *a)
{
    while (a->woff < a->out.len) {
        ssize_t n = send(a->wp->fd, a->out.p + a->woff, a->out.len - a->woff, MSG_NOSIGNAL);
        if (n > 0) {
            if (a->phase == PH_CONNECT)
                connected(a);
            a->woff += (size_t)n;
        } else if (n < 0 && errno == EINTR) {
            continue;
        } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            if (rl_ep_watch(a->m->ep, a->wp, EPOLLOUT | (a->phase == PH_CONNECT ? 0 : EPOLLIN)) < 0)
                att_finish(a, HK_EV_NETWORK_ERROR);
            return;
        } else {
            att_finish(a, io_event(a, errno));
            return;
        }
    }
    if (rl_ep_watch(a->m->ep, a->wp, EPOLLIN) < 0)
        att_finish(a, HK_EV_NETWORK_ERROR);
}

/* One read (as libuv does: another only when the buffer filled). */
static void att_read(rl_att *a)
{
    if (room(a) < 0) {
        att_finish(a, HK_EV_NETWORK_ERROR);
        return;
    }
    ssize_t n = read(a->wp->fd, a->buf + a->len, a->cap - a->len);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
        return;
    if (n <= 0) {
        att_finish(a, io_event(a, n == 0 ? 0 : errno));
        return;
    }
    a->len += (size_t)n;
    consume(a);
}

static void on_io(rl_epw *w, uint32_t ev)
{
    rl_att *a = w->data;
    if (a->finished)
        return;
    if ((ev & EPOLLOUT) && a->woff < a->out.len) {
        att_send(a);
        if (a->finished || !(ev & (EPOLLIN | EPOLLERR | EPOLLHUP)) || a->phase == PH_CONNECT)
            return;
    }
    if (ev & (EPOLLIN | EPOLLERR | EPOLLHUP))
        att_read(a);
}

/* The attempt's request is in a->out: send it (from the loop when the connect failed). */
static void att_go(rl_att *a)
{
    if (!a->sync_fail && !a->finished)
        att_send(a);
}

/* An attempt in flight on host, its own watcher in use (no socket yet), its timer armed. */
static rl_att *att_alloc(rl_master *m, int host, int64_t timeout_us)
{
    rl_att *a = calloc(1, sizeof *a);
    if (!a)
        return NULL;
    a->m = m;
    a->host = host;
    a->handles = 1;
    a->next = m->atts;
    if (m->atts)
        m->atts->prev = a;
    m->atts = a;
    hk_frame_init(&a->fr, HK_PROTO_MAX_PACKET);
    uv_timer_init(m->loop, &a->timer);
    a->timer.data = a;
    a->w.fd = -1;
    a->w.data = a;
    a->w.cb = on_io;
    a->wp = &a->w;
    a->t_start = rl_now_us();
    a->reported_us = -1;
    a->connect_us = -1;
    uv_timer_start(&a->timer, on_att_timer, (uint64_t)(timeout_us / 1000), 0);
    return a;
}

/* An attempt on a pooled connection: no connect, no hello; the query timeout runs at once. */
static rl_att *att_on(rl_master *m, int host, int fd, int64_t qtimeout_us)
{
    rl_att *a = att_alloc(m, host, qtimeout_us);
    if (!a)
        return NULL;
    a->fr.got_hello = 1;
    a->wp = rl_mpool_watcher(&m->mp, fd); /* in the set since its first search, under the pool */
    a->wp->data = a;
    a->wp->cb = on_io;
    a->connect_us = 0;
    a->phase = PH_REPLY;
    a->pooled = 1;
    return a;
}

static rl_att *att_new(rl_master *m, int host, int64_t ctimeout_us)
{
    rl_att *a = att_alloc(m, host, ctimeout_us);
    if (!a)
        return NULL;
    hk_put_u32(&a->out, HK_PROTO_HELLO);
    const struct sockaddr_in *to = &m->c.addr[host];
    a->w.fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (a->w.fd < 0 || (connect(a->w.fd, (const struct sockaddr *)to, sizeof *to) < 0 &&
                        errno != EINPROGRESS)) {
        a->sync_fail = 1;        /* reported from the loop, not inline */
        uv_timer_start(&a->timer, on_att_timer, 0, 0);
    }
    return a;
}

/* The first attempt on host h after one of the live scenario's faults on it ended. */
static void note_readmit(rl_master *m, int h, int64_t now)
{
    const hk_scn *s = m->c.scn;
    int64_t rel = now - m->t0_us;
    for (int fi = 0; s && fi < s->nfaults; fi++) {
        const hk_fault *f = &s->faults[fi];
        if (f->host == h && m->first_after[fi] < 0 && f->for_us >= 0 &&
            rel >= f->at_us + f->for_us)
            m->first_after[fi] = rel;
    }
}

static void attempt(rl_master *m, rl_q *q, int k, int choose)
{
    const hk_table *t = &m->c.cl->tables[q->table];
    const hk_line_conf *lc = &t->lines[k];
    rl_lst *ls = &q->ls[k];
    int li = m->li_base[q->table] + k;
    int64_t now = rl_now_us();
    if (choose)
        ls->mirror = hk_line_choose(m->lines[li], now, m->rng);
    ls->attempts++;
    int h = lc->host[ls->mirror];
    hk_dash_begin(&m->dash[h], now);
    hk_line_begin(m->lines[li], ls->mirror, now);
    hk_tl_attempt(&m->tl, m->series[li] + ls->mirror, now);
    note_readmit(m, h, now);
    m->st[li][ls->mirror].q++;
    hk_ltot *st = hk_ledger_at(&m->led, li, ls->mirror);
    int pooled = 0, fd = -1;
    if (lc->a.persistent && rl_mpool_has(&m->mp, h)) {
        fd = rl_mpool_rent(&m->mp, h);
        pooled = fd != HK_POOL_NONE;
        st->fallbacks += fd == HK_POOL_NONE;
        st->misses += fd == HK_POOL_NEW;
        st->hits += fd >= 0;
    }
    rl_att *a = fd >= 0 ? att_on(m, h, fd, t->query_timeout_us)
                        : att_new(m, h, t->connect_timeout_us);
    if (!a) {
        if (pooled) /* the socket rented, or the slot: back, closed */
            rl_mpool_back(&m->mp, h, fd >= 0 ? rl_mpool_watcher(&m->mp, fd) : NULL, 0);
        line_done(m, q, k, HK_EV_NETWORK_ERROR, now);
        return;
    }
    a->pooled = pooled;
    a->q = q;
    a->k = k;
    a->qtimeout_us = t->query_timeout_us;
    q->holds++;
    if (pooled && fd < 0) /* a new connection for the pool: PERSIST first, no reply to it */
        hk_persist_build(&a->out);
    hk_search_req_build(&a->out, q->query, lc->a.m[ls->mirror].indexes, 20);
    att_go(a);
}

int rl_master_submit(rl_master *m, uint64_t id, int table, const char *query, int64_t t_sched)
{
    const hk_table *t = &m->c.cl->tables[table];
    rl_q *q = calloc(1, sizeof *q + (size_t)t->nlines * sizeof(rl_lst));
    if (!q || !(q->query = strdup(query))) {
        free(q);
        return -1;
    }
    q->id = id;
    q->table = table;
    q->t_sched = t_sched;
    q->t_sent = rl_now_us();
    q->pending = t->nlines;
    q->holds = 1;
    m->inflight++;
    m->sent++;
    for (int k = 0; k < t->nlines; k++) {
        q->ls[k].blackhole = t->lines[k].a.blackhole;
        attempt(m, q, k, 1);
    }
    for (int k = 0; k < t->nlines; k++) /* sent, never waited for */
        if (q->ls[k].blackhole)
            line_done(m, q, k, HK_EV_SUCCESS, q->t_sent);
    q_release(m, q);
    return 0;
}

/* ---- pings ------------------------------------------------------------ */

static void on_ping_timer(uv_timer_t *t)
{
    rl_ping *p = t->data;
    rl_master *m = p->m;
    int64_t iv = m->c.cl->set.ping_us, now = rl_now_us();
    if (m->stopping || p->busy)
        return;
    int64_t idle = now - m->dash[p->host].last_answer_us;
    if (idle < iv) {
        uv_timer_start(&p->t, on_ping_timer, (uint64_t)((iv - idle) / 1000) + 1, 0);
        return;
    }
    rl_att *a = att_new(m, p->host, iv);
    if (!a)
        return;
    a->is_ping = 1;
    a->ping = p;
    a->qtimeout_us = iv;
    p->busy = 1;
    hk_ping_build(&a->out, (uint32_t)now);
    att_go(a);
}

/* ---- periods ---------------------------------------------------------- */

static void sample(uv_timer_t *t)
{
    rl_master *m = t->data;
    int64_t now = rl_now_us();
    for (int i = 0; i < m->nli; i++) {
        const hk_line *l = m->lines[i];
        hk_line_probs(m->lines[i], now, m->probs);
        double wsum = 0;
        for (int j = 0; j < l->n; j++)
            wsum += l->w[j];
        for (int j = 0; j < l->n; j++) {
            m->st[i][j].psum += m->probs[j];
            m->st[i][j].pn++;
            hk_tl_sample(&m->tl, m->series[i] + j, now, m->probs[j],
                         wsum > 0 ? l->w[j] / wsum : 0);
        }
    }
}

static void close_period(rl_master *m, int64_t now)
{
    const hk_cluster *cl = m->c.cl;
    if (m->c.periods)
        for (int t = 0; t < cl->ntables; t++)
            for (int k = 0; k < cl->tables[t].nlines; k++) {
                int li = m->li_base[t] + k;
                if (m->st[li][0].pn == 0)
                    sample(&m->sample_timer);
                for (int j = 0; j < m->lines[li]->n; j++) {
                    hk_lper *s = &m->st[li][j];
                    int h = cl->tables[t].lines[k].host[j];
                    hk_rep_period_row(m->c.periods, m->period,
                                      (double)(m->period_start_us - m->t0_us) / 1e6, 0,
                                      cl->tables[t].name, k + 1, cl->hosts[h].name,
                                      s->psum / s->pn, m->lines[li]->w[j] * m->var->display_scale,
                                      s->q, s->err, !hk_dash_dead(&m->dash[h]), &s->per);
                }
            }
    for (int i = 0; i < m->nli; i++)
        for (int j = 0; j < m->lines[i]->n; j++) {
            hk_lper *s = &m->st[i][j];
            hk_ledger_fold(hk_ledger_at(&m->led, i, j), s);
            s->psum = 0;
            s->pn = 0;
        }
    if (m->c.periods)
        fflush(m->c.periods);
    if (m->c.latency) {
        hk_rep_latency_row(m->c.latency, m->period, (double)(m->period_start_us - m->t0_us) / 1e6,
                           m->per_ok, m->per_partial, m->per_failed, &m->per_all);
        fflush(m->c.latency);
    }
    hk_hist_reset(&m->per_all);
    m->per_ok = m->per_partial = m->per_failed = 0;
    m->period++;
    m->period_start_us = now;
}

static uint64_t ms_to_next_block(const rl_master *m, int64_t now)
{
    int64_t k = hk_karma_us(&m->c.cl->set);
    return (uint64_t)((k - now % k) / 1000) + 1;
}

static void on_period(uv_timer_t *t)
{
    rl_master *m = t->data;
    int64_t now = rl_now_us(), k = hk_karma_us(&m->c.cl->set);
    if (now / k > m->period_start_us / k) /* libuv's cached clock may fire a little early */
        close_period(m, now - now % k);
    uv_update_time(m->loop);
    uv_timer_start(&m->period_timer, on_period, ms_to_next_block(m, rl_now_us()), 0);
}

/* ---- lifecycle -------------------------------------------------------- */

/* The timeline's series: this one master's lines and mirrors; the fault bookkeeping. */
static int init_timeline(rl_master *m, int nser)
{
    const hk_cluster *cl = m->c.cl;
    hk_tl_series *ser = calloc((size_t)nser + 1, sizeof *ser);
    int nf = m->c.scn ? m->c.scn->nfaults : 0;
    m->first_after = malloc((size_t)(nf + 1) * sizeof *m->first_after);
    if (!ser || !m->first_after) {
        free(ser);
        return -1;
    }
    for (int i = 0; i < nf; i++)
        m->first_after[i] = -1;
    for (int t = 0, s = 0; t < cl->ntables; t++)
        for (int k = 0; k < cl->tables[t].nlines; k++)
            for (int j = 0; j < cl->tables[t].lines[k].a.n; j++, s++)
                ser[s] = (hk_tl_series){.table = t, .line = k, .mirror = j,
                                        .host = cl->tables[t].lines[k].host[j],
                                        .nmirrors = cl->tables[t].lines[k].a.n};
    int rc = hk_tl_init(&m->tl, ser, nser, m->t0_us, 1000000, 0);
    if (rc == 0 && m->c.scn)
        hk_tl_set_faults(&m->tl, m->c.scn);
    free(ser);
    return rc;
}

static int alloc_lines(rl_master *m)
{
    const hk_cluster *cl = m->c.cl;
    if (hk_ledger_init(&m->led, cl) < 0)
        return -1;
    m->li_base = m->led.li_base; /* the ledger numbers the lines for both engines */
    m->nli = m->led.nli;
    m->lines = calloc((size_t)m->nli + 1, sizeof *m->lines);
    m->st = calloc((size_t)m->nli + 1, sizeof *m->st);
    m->series = calloc((size_t)m->nli + 1, sizeof *m->series);
    if (!m->lines || !m->st || !m->series)
        return -1;
    int maxn = 1, nser = 0;
    for (int t = 0; t < cl->ntables; t++)
        for (int k = 0; k < cl->tables[t].nlines; k++) {
            const hk_line_conf *lc = &cl->tables[t].lines[k];
            hk_dash **d = malloc((size_t)lc->a.n * sizeof *d);
            if (!d)
                return -1;
            for (int j = 0; j < lc->a.n; j++)
                d[j] = &m->dash[lc->host[j]];
            int li = m->li_base[t] + k;
            int strat = m->c.strategy >= 0 ? m->c.strategy : lc->strategy;
            m->lines[li] = hk_line_new(lc->a.n, d, strat, m->var);
            free(d);
            if (m->lines[li])
                hk_line_born(m->lines[li], rl_now_us()); /* as searchd's config load */
            m->st[li] = calloc((size_t)lc->a.n, sizeof **m->st);
            if (!m->lines[li] || !m->st[li])
                return -1;
            if (lc->a.n > maxn)
                maxn = lc->a.n;
            m->series[li] = nser;
            nser += lc->a.n;
        }
    m->probs = calloc((size_t)maxn, sizeof *m->probs);
    return m->probs ? init_timeline(m, nser) : -1;
}

static void start_timers(rl_master *m)
{
    const hk_cluster *cl = m->c.cl;
    uv_timer_init(m->loop, &m->period_timer);
    uv_timer_init(m->loop, &m->sample_timer);
    m->period_timer.data = m->sample_timer.data = m;
    uint64_t sample_ms = cl->set.karma_s * 100 < 1000 ? (uint64_t)(cl->set.karma_s * 100) : 1000;
    uv_timer_start(&m->period_timer, on_period, ms_to_next_block(m, m->t0_us), 0);
    uv_timer_start(&m->sample_timer, sample, sample_ms / 2, sample_ms);
    m->timers_on = 1;
    m->pings = calloc((size_t)cl->nhosts + 1, sizeof *m->pings);
    if (!m->pings || cl->set.ping_us <= 0)
        return;
    for (int h = 0; h < cl->nhosts; h++) {
        int pinged = m->var->layout == HK_LAYOUT_SPHINX2 ? cl->hosts[h].in_ha : cl->hosts[h].in_ha_nonbh;
        if (!pinged)
            continue;
        rl_ping *p = &m->pings[m->npings++];
        p->m = m;
        p->host = h;
        uv_timer_init(m->loop, &p->t);
        p->t.data = p;
        uv_timer_start(&p->t, on_ping_timer, (uint64_t)(cl->set.ping_us / 1000), 0);
    }
}

/* The persistent pools, by the variant's rule (a live scenario's pool = stack|ring overrides
 * it; its ring-stuck, which hands one socket to two attempts, is the simulator's alone). */
static int init_pools(rl_master *m)
{
    const hk_scn *s = m->c.scn;
    int asked = s && s->pool_rule != HK_POOL_RING_STUCK ? s->pool_rule : -1;
    return rl_mpool_init(&m->mp, m->c.cl, hk_pool_rule_pick(asked, m->c.variant),
                         s ? s->pool_close_on_fatal : 0, m->ep);
}

rl_master *rl_master_new(uv_loop_t *loop, const rl_master_cfg *c, char *msg, int n)
{
    rl_master *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    m->loop = loop;
    m->c = *c;
    m->var = hk_variant_get((hk_variant_id)c->variant);
    m->dash = hk_dash_array_new(c->cl->nhosts + 1, c->cl->set.karma_s);
    m->rng = gsl_rng_alloc(gsl_rng_mt19937);
    if (!m->dash || !m->rng) {
        snprintf(msg, (size_t)n, "out of memory");
        rl_master_free(m);
        return NULL;
    }
    gsl_rng_set(m->rng, (unsigned long)c->seed);
    if (!(m->ep = rl_ep_new(loop))) {
        snprintf(msg, (size_t)n, "cannot make an epoll set: %s", strerror(errno));
        rl_master_free(m);
        return NULL;
    }
    m->t0_us = m->period_start_us = rl_now_us();
    if (alloc_lines(m) < 0 || init_pools(m) < 0) {
        snprintf(msg, (size_t)n, "out of memory");
        rl_master_free(m);
        return NULL;
    }
    if (c->periods)
        hk_rep_periods_header(c->periods);
    if (c->latency)
        hk_rep_latency_header(c->latency);
    start_timers(m);
    return m;
}

void rl_master_stop(rl_master *m)
{
    if (m->stopping)
        return;
    m->stopping = 1;
    m->end_us = rl_now_us();
    for (int i = 0; i < m->npings; i++)
        uv_close((uv_handle_t *)&m->pings[i].t, NULL);
    if (m->timers_on) {
        uv_close((uv_handle_t *)&m->period_timer, NULL);
        uv_close((uv_handle_t *)&m->sample_timer, NULL);
        m->timers_on = 0;
    }
}

/* Used by a Ctrl-C: abort every attempt in flight. */
void rl_master_abort(rl_master *m)
{
    rl_master_stop(m);
    while (m->atts)              /* each finish unlinks it */
        att_finish(m->atts, -1);
}

int rl_master_finish(rl_master *m, hk_err *err)
{
    int64_t now = rl_now_us();
    if (!m->end_us)
        m->end_us = now;
    close_period(m, now);
    hk_buf_reset(&m->status);
    if (hk_rep_status(&m->status, m->c.cl, m->dash, m->lines, m->var, now,
                      "hareal master, at the end") < 0)
        return hk_err_set(err, "SHOW AGENT STATUS", 0, 0, "out of memory");
    return 0;
}

void rl_master_free(rl_master *m)
{
    if (!m)
        return;
    for (int i = 0; m->lines && i < m->nli; i++) {
        for (int j = 0; m->st && m->st[i] && m->lines[i] && j < m->lines[i]->n; j++) {
            hk_hist_free(&m->st[i][j].per);
        }
        hk_line_free(m->lines[i]);
        if (m->st)
            free(m->st[i]);
    }
    free(m->lines);
    free(m->st);
    free(m->series);
    free(m->first_after);
    hk_tl_free(&m->tl);
    hk_hist_free(&m->all);
    hk_hist_free(&m->per_all);
    hk_ledger_free(&m->led);
    hk_buf_free(&m->status);
    free(m->pings);
    free(m->probs);
    hk_dash_array_free(m->dash);
    rl_mpool_free(&m->mp);
    if (m->rng)
        gsl_rng_free(m->rng);
    if (m->ep) {                 /* the poll handle closes on the loop: let it */
        rl_ep_free(m->ep);
        uv_run(m->loop, UV_RUN_NOWAIT);
    }
    free(m);
}

int rl_master_analyse(rl_master *m, const hk_scn *scn, double lag_p99_us, hk_findings *out,
                      hk_err *err)
{
    memset(out, 0, sizeof *out); /* zeroed on entry: a caller frees it on every way out */
    hk_tl_fill(&m->tl);
    const hk_hist **lat = calloc((size_t)m->tl.nser + 1, sizeof *lat);
    if (!lat)
        return hk_err_set(err, "findings", 0, 0, "out of memory");
    for (int s = 0; s < m->tl.nser; s++) { /* one master: series = line x mirror */
        const hk_tl_series *se = &m->tl.ser[s];
        lat[s] = &hk_ledger_at(&m->led, m->li_base[se->table] + se->line, se->mirror)->lat;
    }
    hk_find_in in = {
        .tl = &m->tl, .scn = scn, .var = m->var,
        .strategy = m->c.strategy >= 0 ? hk_strat_get(m->c.strategy)->name : NULL,
        .duration_us = m->end_us - m->t0_us, .nmasters = 1,
        .first_after = scn->nfaults ? m->first_after : NULL, .util = NULL, .work_ms = NULL,
        .lat = lat, .lag_p99_us = lag_p99_us};
    int rc = hk_find_run(&in, out);
    free(lat);
    if (rc < 0)
        return hk_err_set(err, "findings", 0, 0, "out of memory");
    return 0;
}
