/* rl_drive: the query source of hareal replay and hareal live. */
#include "rl_drive.h"

#include <inttypes.h>
#include <string.h>
#include "hk_csv.h"

static void rel(FILE *f, int64_t t, int64_t t0)
{
    fprintf(f, "%.6f", t > 0 ? (double)(t - t0) / 1e6 : 0.0);
}

static void row(rl_drive *d, uint64_t id, int64_t sched, int64_t sent, const char *table,
                int agent, const char *mirror, int attempts, const char *status, double lat_ms)
{
    FILE *f = d->queries;
    fprintf(f, "%" PRIu64 ",", id);
    rel(f, sched, d->t0_us);
    fputc(',', f);
    rel(f, sent, d->t0_us);
    fputc(',', f);
    hk_csv_str(f, table, 1);
    fprintf(f, ",%d,", agent);
    hk_csv_str(f, mirror, 1);
    fprintf(f, ",%d,%s,%.3f\n", attempts, status, lat_ms);
}

static void check_end(rl_drive *d)
{
    if (!d->finished && d->eof && d->m->inflight == 0) {
        d->finished = 1;
        uv_timer_stop(&d->timer);
        uv_close((uv_handle_t *)&d->timer, NULL);
        uv_close((uv_handle_t *)&d->sigint, NULL);
        uv_close((uv_handle_t *)&d->sigterm, NULL);
        uv_close((uv_handle_t *)&d->check, NULL);
        uv_close((uv_handle_t *)&d->idle, NULL);
        if (d->on_end)
            d->on_end(d);
        if (d->user_end)
            d->user_end(d->user);
    }
}

void rl_drive_on_done(void *ctx, const rl_outcome *o, int last, int qok)
{
    rl_drive *d = ctx;
    const hk_table *t = &d->cl->tables[o->table];
    const hk_line_conf *lc = &t->lines[o->line];
    (void)qok;
    row(d, o->id, o->t_sched_us, o->t_sent_us, t->name, o->line + 1,
        d->cl->hosts[lc->host[o->mirror]].name, o->attempts, o->status,
        (double)(o->t_done_us - o->t_sent_us) / 1000.0);
    if (last && o->t_sent_us >= o->t_sched_us)
        hk_hist_add(&d->lag, (double)(o->t_sent_us - o->t_sched_us));
}

/* ---- sources ---------------------------------------------------------- */

static int read_next(rl_drive *d)
{
    if (d->trace) {
        int rc = hk_trace_next(d->trace, &d->next, &d->err);
        if (rc < 0)
            d->failed = 1;
        return rc == 1;
    }
    int64_t now = rl_now_us() - d->t0_us;
    int ignored;
    int64_t t = hk_arrivals_next(d->arr, d->have_next ? d->next.t_us : now, d->rng, &ignored);
    if (t < 0 || t >= d->duration_us)
        return 0;
    memset(&d->next, 0, sizeof d->next);
    d->next.t_us = t;
    int tb = d->arr_table >= 0 ? d->arr_table : (int)(d->ids % (uint64_t)d->cl->ntables);
    snprintf(d->next.table, sizeof d->next.table, "%s", d->cl->tables[tb].name);
    snprintf(d->qtext, sizeof d->qtext, "hakarma query %" PRIu64, d->ids);
    d->next.query = d->qtext;
    d->next.qcap = sizeof d->qtext;
    return 1;
}

/* When the pending record is due, in µs since the epoch. */
static int64_t due(rl_drive *d)
{
    if (!d->trace)
        return d->t0_us + d->next.t_us;
    if (!d->t0_trace)
        d->t0_trace = d->next.t_us ? d->next.t_us : 1;
    return d->t0_us + (int64_t)((double)(d->next.t_us - d->t0_trace) / d->speed);
}

static void send_one(rl_drive *d, int64_t sched)
{
    uint64_t id = d->ids++;
    const hk_table *t = hk_cluster_find_table(d->cl, d->next.table);
    if (!t) {
        d->unknown++;
        row(d, id, sched, 0, d->next.table, 0, "", 0, "unknown_table", 0);
    } else if (d->interrupted) {
        d->not_sent++;
        row(d, id, sched, 0, t->name, 0, "", 0, "not_sent", 0);
    } else if (rl_master_submit(d->m, id, (int)(t - d->cl->tables), d->next.query, sched) < 0) {
        row(d, id, sched, 0, t->name, 0, "", 0, "not_sent", 0);
    }
    d->have_next = read_next(d);
    if (!d->have_next)
        d->eof = 1;
}

static void on_idle(uv_idle_t *h);

static void pump(uv_timer_t *t)
{
    rl_drive *d = t->data;
    for (;;) {
        if (!d->have_next) {
            d->eof = 1;
            break;
        }
        if (d->interrupted) { /* every remaining trace query still gets its row */
            send_one(d, d->trace ? due(d) : d->t0_us + d->next.t_us);
            continue;
        }
        if (d->concurrency > 0) {
            if (d->m->inflight >= (uint64_t)d->concurrency)
                return;
            send_one(d, rl_now_us());
            continue;
        }
        int64_t when = due(d), now = rl_now_us();
        if (when - now >= 2000) { /* sleep in the loop, waking a millisecond early */
            uv_idle_stop(&d->idle);
            uv_timer_start(&d->timer, pump, (uint64_t)((when - now) / 1000 - 1), 0);
            return;
        }
        if (when > now) { /* libuv timers are ms: spin the loop, I/O included, until due */
            uv_idle_start(&d->idle, on_idle);
            return;
        }
        send_one(d, when);
    }
    uv_idle_stop(&d->idle);
    check_end(d);
}

static void on_idle(uv_idle_t *h)
{
    rl_drive *d = h->data;
    pump(&d->timer);
}

static void on_signal(uv_signal_t *s, int sig)
{
    rl_drive *d = s->data;
    (void)sig;
    fprintf(stderr, "hareal: interrupted: stopping, every query still gets a row\n");
    rl_drive_stop(d, 1);
}

void rl_drive_stop(rl_drive *d, int interrupted)
{
    if (d->finished)
        return;
    if (interrupted) {
        d->interrupted = 1;
        rl_master_abort(d->m);
    }
    if (!d->trace)
        d->have_next = 0; /* generated arrivals: nothing more is due */
    uv_timer_start(&d->timer, pump, 0, 0);
}

/* Closed loop: a finished query makes room for the next one. */
static void on_check(uv_check_t *c)
{
    rl_drive *d = c->data;
    if (d->finished)
        return;
    if (d->eof)
        check_end(d);
    else if (d->concurrency > 0 && d->m->inflight < (uint64_t)d->concurrency)
        pump(&d->timer);
}

int rl_drive_start(rl_drive *d)
{
    hk_hist_reset(&d->lag);
    d->t0_us = d->m->t0_us;
    uv_timer_init(d->loop, &d->timer);
    d->timer.data = d;
    uv_signal_init(d->loop, &d->sigint);
    uv_signal_init(d->loop, &d->sigterm);
    d->sigint.data = d->sigterm.data = d;
    uv_signal_start(&d->sigint, on_signal, SIGINT);
    uv_signal_start(&d->sigterm, on_signal, SIGTERM);
    uv_idle_init(d->loop, &d->idle);
    d->idle.data = d;
    uv_check_init(d->loop, &d->check);
    d->check.data = d;
    uv_check_start(&d->check, on_check);
    fputs("id,t_sched_s,t_sent_s,table,agent,mirror,attempts,status,latency_ms\n", d->queries);
    d->have_next = read_next(d);
    if (d->failed)
        return -1;
    uv_timer_start(&d->timer, pump, 0, 0);
    return 0;
}
