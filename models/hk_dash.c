/* hk_dash: per-host ring of karma stat blocks. */
#include "hk_dash.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "hk_time.h"

static inline int64_t floordiv(int64_t a, int64_t b)
{
    return a >= 0 ? a / b : -((-a + b - 1) / b);
}

hk_dash *hk_dash_array_new(int n, int64_t karma_s)
{
    if (n < 1 || (size_t)n > SIZE_MAX / ((1 + HK_DASH_PERIODS) * sizeof(hk_block)))
        return NULL;
    size_t bytes = (size_t)n * (sizeof(hk_dash) + HK_DASH_PERIODS * sizeof(hk_block));
    hk_dash *d = aligned_alloc(HK_DASH_ALIGN, bytes); /* both sizes are whole lines */
    if (!d)
        return NULL;
    memset(d, 0, bytes);
    hk_block *ring = (hk_block *)(d + n);
    for (int i = 0; i < n; i++) {
        d[i].ring = ring + i;
        d[i].stride = (size_t)n;
        d[i].karma_s = karma_s > 0 ? karma_s : 1;
        for (int k = 0; k < HK_DASH_PERIODS; k++)
            d[i].ring[(size_t)k * (size_t)n].period = -1;
    }
    return d;
}

void hk_dash_array_free(hk_dash *d) { free(d); }

int64_t hk_dash_block_of(const hk_dash *d, int64_t now_us)
{
    return floordiv(floordiv(now_us, HK_SEC), d->karma_s);
}

static hk_block *slot(const hk_dash *d, int64_t period)
{
    size_t i = (size_t)((period % HK_DASH_PERIODS + HK_DASH_PERIODS) % HK_DASH_PERIODS);
    return &d->ring[i * d->stride];
}

/* The block now_us writes to (reset when its slot held an older period). Most records fall in
 * the block of the previous one: that case costs a comparison, not three divisions. */
static hk_block *current(hk_dash *d, int64_t now_us)
{
    if (now_us >= d->cur_lo_us && now_us < d->cur_hi_us)
        return d->cb;
    int64_t p = hk_dash_block_of(d, now_us);
    hk_block *b = slot(d, p);
    if (b->period != p) {
        memset(b, 0, sizeof *b);
        b->period = p;
    }
    d->cb = b;
    d->cur_lo_us = p * d->karma_s * HK_SEC;
    d->cur_hi_us = d->cur_lo_us + d->karma_s * HK_SEC;
    return b;
}

void hk_dash_begin(hk_dash *d, int64_t now_us) { d->last_query_us = now_us; }

void hk_dash_record(hk_dash *d, int64_t now_us, hk_ev ev, int64_t start_us, int is_ping,
                    int64_t connect_us)
{
    if (ev >= HK_EV_N)
        return;
    hk_block *b = current(d, now_us);
    b->c[ev]++;
    if (is_ping) {
        b->pings++;
    } else if (now_us > start_us) {
        b->total_us += (uint64_t)(now_us - start_us);
    }
    if (connect_us >= 0) {
        b->connect_count++;
        b->connect_sum_us += (uint64_t)connect_us;
        if ((uint64_t)connect_us > b->connect_max_us)
            b->connect_max_us = (uint64_t)connect_us;
    }
    int64_t row = ev == HK_EV_SUCCESS ? 0 : d->errors_a_row + 1;
    unsigned what = (row != d->errors_a_row ? HK_DASH_CH_ROW : 0) |
                    (ev == HK_EV_SUCCESS ? HK_DASH_CH_SUCCESS : HK_DASH_CH_COUNTS);
    d->errors_a_row = row;
    d->last_answer_us = now_us;
    hk_dash_changed_what(d, what);
}

void hk_dash_subscribe(hk_dash *d, hk_dash_sub *s)
{
    s->d = d;
    d->success_subs += s->wants_success != 0;
    s->next = d->subs;
    if (d->subs)
        d->subs->pprev = &s->next;
    s->pprev = &d->subs;
    d->subs = s;
}

void hk_dash_unsubscribe(hk_dash_sub *s)
{
    if (!s->pprev)
        return;
    s->d->success_subs -= s->wants_success != 0;
    s->d = NULL;
    *s->pprev = s->next;
    if (s->next)
        s->next->pprev = s->pprev;
    s->next = NULL;
    s->pprev = NULL;
}

void hk_dash_sub_wants(hk_dash_sub *s, int success)
{
    success = success != 0;
    if (success == s->wants_success)
        return;
    if (s->d)
        s->d->success_subs += success ? 1 : -1;
    s->wants_success = success;
}

void hk_dash_changed_what(hk_dash *d, unsigned what)
{
    if (what == HK_DASH_CH_SUCCESS && d->success_subs == 0)
        return;
    for (hk_dash_sub *s = d->subs; s; s = s->next)
        s->fn(s, what);
}

void hk_dash_changed(hk_dash *d) { hk_dash_changed_what(d, HK_DASH_CH_ALL); }

static void add(hk_block *acc, const hk_block *b)
{
    for (int i = 0; i < HK_EV_N; i++)
        acc->c[i] += b->c[i];
    acc->total_us += b->total_us;
    acc->connect_count += b->connect_count;
    acc->connect_sum_us += b->connect_sum_us;
    if (b->connect_max_us > acc->connect_max_us)
        acc->connect_max_us = b->connect_max_us;
    acc->pings += b->pings;
}

/* The blocks a window of periods takes at now_us, the newest (the current one) in *p: searchd
 * adds the block before while the current one is less than half a period old. */
static int window_blocks(const hk_dash *d, int64_t now_us, int periods, int64_t *p)
{
    int64_t secs = floordiv(now_us, HK_SEC);
    *p = floordiv(secs, d->karma_s);
    return periods + (secs - *p * d->karma_s < d->karma_s / 2);
}

void hk_dash_window(const hk_dash *d, int64_t now_us, int periods, hk_block *out)
{
    int64_t p;
    periods = window_blocks(d, now_us, periods, &p);
    if (periods > HK_DASH_PERIODS)
        periods = HK_DASH_PERIODS;
    memset(out, 0, sizeof *out);
    out->period = p;
    for (; periods > 0; periods--, p--) {
        const hk_block *b = slot(d, p);
        if (b->period == p)
            add(out, b);
    }
}

void hk_dash_window_counts(const hk_dash *d, int64_t now_us, uint64_t c[HK_EV_N])
{
    int64_t p;
    int periods = window_blocks(d, now_us, 1, &p);
    memset(c, 0, HK_EV_N * sizeof *c);
    for (; periods > 0; periods--, p--) {
        const hk_block *b = slot(d, p);
        if (b->period == p)
            for (int i = 0; i < HK_EV_N; i++)
                c[i] += b->c[i];
    }
}

void hk_dash_block(const hk_dash *d, int64_t period, hk_block *out)
{
    const hk_block *b = slot(d, period);
    if (b->period == period) {
        *out = *b;
    } else {
        memset(out, 0, sizeof *out);
        out->period = period;
    }
}

uint64_t hk_block_events(const hk_block *b)
{
    uint64_t n = 0;
    for (int i = 0; i < HK_EV_N; i++)
        n += b->c[i];
    return n;
}

int hk_dash_dead(const hk_dash *d) { return d->errors_a_row > HK_DEAD_THRESHOLD; }
