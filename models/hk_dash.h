/* hk_dash: one mirror host's statistics dashboard: a ring of 15 karma blocks
 * (each ha_period_karma seconds, aligned to the clock: block = floor(t/K)),
 * the consecutive-failure counter and the last query/answer times. Time is
 * always passed in (microseconds); the dashboard never reads a clock. */
#ifndef HK_DASH_H
#define HK_DASH_H

#include <stddef.h>
#include <stdint.h>
#include "hk_ev.h"

#define HK_DASH_PERIODS 15
#define HK_DEAD_THRESHOLD 3      /* errors in a row above this = dead */
#define HK_DASH_ALIGN 64         /* a cache line */



typedef struct hk_block {        /* two cache lines: an answer (a success or a warning) writes
                                    the second only, if the block starts on one */
    int64_t period;              /* block number, -1 = empty slot */
    uint64_t c[HK_EV_N];         /* outcome counters (pings included) */
    uint64_t total_us;           /* time of non-ping attempts */
    uint64_t connect_count, connect_sum_us, connect_max_us;
    uint64_t pings;              /* hakarma extra: pings among the counters */
    uint64_t spare;              /* zero: the block is 128 bytes */
} hk_block;

/* What a change touched, so a subscriber can ignore what its cache does not read. */
enum {
    HK_DASH_CH_ROW = 1,          /* the errors-in-a-row counter changed */
    HK_DASH_CH_COUNTS = 2,       /* outcome counters changed other than by one success */
    HK_DASH_CH_SUCCESS = 4,      /* one success was counted */
    HK_DASH_CH_ALL = 7
};

/* Someone (a strategy's cache) told of every change to a dashboard — but of a lone success
 * (HK_DASH_CH_SUCCESS alone, the most common change) only while some subscriber of that
 * dashboard may act on one: a strategy whose mirror is in the best class ignores it, and at a
 * thousand agent lines the call itself is a cache miss per answer. */
typedef struct hk_dash_sub {
    struct hk_dash_sub *next, **pprev;
    void (*fn)(struct hk_dash_sub *self, unsigned what);
    struct hk_dash *d;           /* the dashboard it is on (set by hk_dash_subscribe) */
    int wants_success;           /* it may act on a lone success (set with hk_dash_sub_wants) */
} hk_dash_sub;

typedef struct hk_dash {        /* two 64-byte lines: what every attempt and answer touch,
                                    then the cold rest. The blocks lie apart, in the array's
                                    (hk_dash_array_new): every header together, then each slot
                                    of the ring for every dashboard together, so a large
                                    cluster's attempts and answers touch headers and current
                                    blocks packed a few hundred KB deep, not 2 KB apart */
    int64_t cur_lo_us, cur_hi_us;
    hk_block *cb;                /* the block being written, for times in [cur_lo, cur_hi) */
    int64_t errors_a_row;
    int64_t last_query_us, last_answer_us;
    hk_dash_sub *subs;           /* intrusive list; the subscribers own the nodes */
    int success_subs;            /* subscribers that want a lone success */
    /* the cold line */
    _Alignas(HK_DASH_ALIGN) hk_block *ring; /* slot i is ring[i * stride] (the array's) */
    size_t stride;
    int64_t karma_s;
    int64_t ping_trip_us;
} hk_dash;

_Static_assert(sizeof(hk_block) == 2 * HK_DASH_ALIGN, "a block is two cache lines");
_Static_assert(offsetof(hk_block, c) + HK_EV_WARNING * sizeof(uint64_t) == HK_DASH_ALIGN,
               "an answer's fields start the block's second line");
_Static_assert(offsetof(hk_dash, ring) == HK_DASH_ALIGN, "the hot header is one cache line");
_Static_assert(sizeof(hk_dash) == 2 * HK_DASH_ALIGN, "dashboards in an array stay aligned");

/* n dashboards (karma blocks of karma_s seconds) and their rings, in one allocation aligned on
 * a cache line; NULL when out of memory. A copy of a dashboard shares its ring. */
hk_dash *hk_dash_array_new(int n, int64_t karma_s);
void hk_dash_array_free(hk_dash *d);
int64_t hk_dash_block_of(const hk_dash *d, int64_t now_us);
/* An attempt starts (sets lastquery). */
void hk_dash_begin(hk_dash *d, int64_t now_us);
/* Record an outcome at now_us for an attempt started at start_us. connect_us < 0
 * means no connect was timed. Pings add no time. HK_EV_REMOTE_ERROR records nothing. */
void hk_dash_record(hk_dash *d, int64_t now_us, hk_ev ev, int64_t start_us, int is_ping,
                    int64_t connect_us);
/* Sum of the valid blocks among the last P periods (+1 while the current block
 * is in its first half; capped at 15) — Manticore's GetCollectedMetrics. */
void hk_dash_window(const hk_dash *d, int64_t now_us, int periods, hk_block *out);
/* The same window, outcome counters only (what a health class needs). */
void hk_dash_window_counts(const hk_dash *d, int64_t now_us, uint64_t c[HK_EV_N]);
/* One exact block (zeroed if not stored). */
void hk_dash_block(const hk_dash *d, int64_t period, hk_block *out);
uint64_t hk_block_events(const hk_block *b);
void hk_dash_subscribe(hk_dash *d, hk_dash_sub *s);
void hk_dash_unsubscribe(hk_dash_sub *s);
/* Whether s may act on a lone success (set before subscribing, or any time after). */
void hk_dash_sub_wants(hk_dash_sub *s, int success);
/* Tell subscribers the dashboard changed (hk_dash_record does it; call it after
 * setting fields by hand). */
void hk_dash_changed(hk_dash *d);
/* The same, saying what changed (HK_DASH_CH_*). */
void hk_dash_changed_what(hk_dash *d, unsigned what);
int hk_dash_dead(const hk_dash *d);

#endif
