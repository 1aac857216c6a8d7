/* hk_proto: SphinxAPI agent protocol encoders and decoders (see hk_proto.h). */
#include "hk_proto.h"

#include <stdlib.h>
#include <string.h>

void hk_bytes_init(hk_bytes *b) { memset(b, 0, sizeof *b); }
void hk_bytes_free(hk_bytes *b) { free(b->p); hk_bytes_init(b); }

void hk_put_raw(hk_bytes *b, const void *p, size_t n)
{
    if (b->oom)
        return;
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->len + n)
            cap *= 2;
        uint8_t *q = realloc(b->p, cap);
        if (!q) {
            b->oom = 1;
            return;
        }
        b->p = q;
        b->cap = cap;
    }
    memcpy(b->p + b->len, p, n);
    b->len += n;
}

void hk_put_u8(hk_bytes *b, uint8_t v) { hk_put_raw(b, &v, 1); }

void hk_put_u16(hk_bytes *b, uint16_t v)
{
    uint8_t x[2] = {(uint8_t)(v >> 8), (uint8_t)v};
    hk_put_raw(b, x, 2);
}

void hk_put_u32(hk_bytes *b, uint32_t v)
{
    uint8_t x[4] = {(uint8_t)(v >> 24), (uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v};
    hk_put_raw(b, x, 4);
}

void hk_put_u64(hk_bytes *b, uint64_t v)
{
    hk_put_u32(b, (uint32_t)(v >> 32));
    hk_put_u32(b, (uint32_t)v);
}

void hk_put_str(hk_bytes *b, const char *s)
{
    size_t n = strlen(s);
    hk_put_u32(b, (uint32_t)n);
    hk_put_raw(b, s, n);
}

void hk_rd_init(hk_rd *r, const void *p, size_t n)
{
    memset(r, 0, sizeof *r);
    r->p = p;
    r->n = n;
}

void hk_rd_fail(hk_rd *r, const char *what)
{
    if (!r->err) {
        r->err = 1;
        r->err_off = r->off;
        r->what = what;
    }
}

static int need(hk_rd *r, size_t k, const char *what)
{
    if (r->err)
        return 0;
    if (r->n - r->off < k) {
        hk_rd_fail(r, what);
        return 0;
    }
    return 1;
}

uint8_t hk_rd_u8(hk_rd *r, const char *what)
{
    return need(r, 1, what) ? r->p[r->off++] : 0;
}

uint32_t hk_rd_u32(hk_rd *r, const char *what)
{
    if (!need(r, 4, what))
        return 0;
    const uint8_t *p = r->p + r->off;
    r->off += 4;
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

uint64_t hk_rd_u64(hk_rd *r, const char *what)
{
    uint64_t hi = hk_rd_u32(r, what);
    return hi << 32 | hk_rd_u32(r, what);
}

void hk_rd_skip(hk_rd *r, size_t k, const char *what)
{
    if (need(r, k, what))
        r->off += k;
}

uint32_t hk_rd_str(hk_rd *r, char *out, size_t n, const char *what)
{
    size_t at = r->off;
    uint32_t len = hk_rd_u32(r, what);
    if (!need(r, len, what)) {
        r->err_off = at;
        return 0;
    }
    if (out && n) {
        size_t k = len < n - 1 ? len : n - 1;
        memcpy(out, r->p + r->off, k);
        out[k] = '\0';
    }
    r->off += len;
    return len;
}

void hk_hdr_read(const uint8_t b[8], hk_hdr *h)
{
    h->code = (uint16_t)(b[0] << 8 | b[1]);
    h->ver = (uint16_t)(b[2] << 8 | b[3]);
    h->len = (uint32_t)b[4] << 24 | (uint32_t)b[5] << 16 | (uint32_t)b[6] << 8 | b[7];
}

void hk_put_hdr(hk_bytes *b, uint16_t code, uint16_t ver, uint32_t len)
{
    hk_put_u16(b, code);
    hk_put_u16(b, ver);
    hk_put_u32(b, len);
}

/* ---- SEARCH request -------------------------------------------------- */

int hk_search_req_parse(const uint8_t *body, size_t n, hk_search_req *q, hk_rd *r)
{
    memset(q, 0, sizeof *q);
    hk_rd_init(r, body, n);
    q->master_ver = hk_rd_u32(r, "master version");
    q->nqueries = hk_rd_u32(r, "query count");
    if (!r->err && (q->nqueries < 1 || q->nqueries > 32)) {
        r->off -= 4;
        hk_rd_fail(r, "a query count of 1..32");
    }
    hk_rd_u32(r, "flags");
    hk_rd_u32(r, "offset");
    q->limit = hk_rd_u32(r, "limit");
    hk_rd_u32(r, "match mode");
    uint32_t ranker = hk_rd_u32(r, "ranker");
    if (ranker == 8 || ranker == 9)
        hk_rd_str(r, NULL, 0, "ranker expression");
    hk_rd_u32(r, "sort mode");
    hk_rd_str(r, NULL, 0, "sort-by");
    hk_rd_str(r, q->query, sizeof q->query, "query");
    uint32_t nw = hk_rd_u32(r, "weight count");
    if (!r->err && nw > 256) {
        r->off -= 4;
        hk_rd_fail(r, "at most 256 field weights");
    }
    hk_rd_skip(r, (size_t)nw * 4, "weights");
    hk_rd_str(r, q->indexes, sizeof q->indexes, "index list");
    return r->err ? -1 : 0;
}

void hk_search_req_build(hk_bytes *b, const char *query, const char *indexes, uint32_t limit)
{
    hk_bytes body;
    hk_bytes_init(&body);
    hk_put_u32(&body, HK_MASTER_VER);
    hk_put_u32(&body, 1);
    hk_put_u32(&body, 0x40);            /* flags: normalized_tf */
    hk_put_u32(&body, 0);               /* offset */
    hk_put_u32(&body, limit);
    hk_put_u32(&body, 6);               /* extended2 */
    hk_put_u32(&body, 0);               /* ranker */
    hk_put_u32(&body, 4);               /* sort extended */
    hk_put_str(&body, "@weight desc");
    hk_put_str(&body, query);
    hk_put_u32(&body, 0);               /* weights */
    hk_put_str(&body, indexes);
    hk_put_u32(&body, 1);               /* id64 */
    hk_put_u64(&body, 0);
    hk_put_u64(&body, UINT64_MAX);
    hk_put_u32(&body, 0);               /* filters */
    hk_put_u32(&body, 4);               /* group func */
    hk_put_str(&body, "");
    hk_put_u32(&body, limit);           /* max matches */
    hk_put_str(&body, "@groupby desc");
    hk_put_u32(&body, 0);               /* cutoff */
    hk_put_u32(&body, 0);               /* retry count */
    hk_put_u32(&body, 500);             /* retry delay */
    for (int k = 0; k < 7; k++)         /* distinct, geo, index weights, max query ms, */
        hk_put_u32(&body, 0);           /* field weights, comment, overrides */
    hk_put_str(&body, "*");             /* select list */
    for (int k = 0; k < 4; k++)         /* legacy sub-select, has_outer */
        hk_put_u32(&body, 0);
    hk_put_u32(&body, 0);               /* collation */
    hk_put_u32(&body, 0);               /* outer order by */
    hk_put_u32(&body, 1);               /* groupby limit */
    for (int k = 0; k < 5; k++)
        hk_put_u32(&body, 0);
    hk_put_hdr(b, HK_CMD_SEARCH, HK_VER_SEARCH, (uint32_t)body.len);
    hk_put_raw(b, body.p, body.len);
    b->oom |= body.oom;
    hk_bytes_free(&body);
}

/* ---- SEARCH reply ---------------------------------------------------- */

/* One result: a Manticore master gets the `id` attribute (bigint) its SQL clients need as a
 * column (a real agent always sends it); a 2.2.11 master adds id and weight itself. Matches
 * are documents 1..n, weight 1. */
static void result_block(hk_bytes *b, int manticore, uint32_t n, uint32_t ms)
{
    hk_put_u32(b, 0);                   /* fields */
    hk_put_u32(b, manticore ? 1 : 0);   /* attrs */
    if (manticore) {
        hk_put_str(b, "id");
        hk_put_u32(b, 6);               /* SPH_ATTR_BIGINT */
    }
    hk_put_u32(b, n);                   /* matches */
    hk_put_u32(b, 1);                   /* id64 */
    for (uint32_t i = 1; i <= n; i++) {
        hk_put_u32(b, 0);               /* document id, 64 bits, high word first */
        hk_put_u32(b, i);
        hk_put_u32(b, 1);               /* weight */
        if (manticore) {
            hk_put_u32(b, 0);           /* the id attribute */
            hk_put_u32(b, i);
        }
    }
    hk_put_u32(b, n);                   /* retrieved == matches */
    hk_put_u32(b, n);                   /* total found */
    if (manticore)
        hk_put_u32(b, 0);               /* total_approx */
    hk_put_u32(b, ms);
    hk_put_u8(b, 0);                    /* stat mask */
    hk_put_u32(b, 0);                   /* fetched docs, hits, skips */
    hk_put_u32(b, 0);
    hk_put_u32(b, 0);
    hk_put_u32(b, 0);                   /* words */
}

void hk_search_reply_build(hk_bytes *b, uint16_t status, const char *msg, uint32_t nq,
                           int manticore, uint32_t nmatch, uint32_t ms)
{
    hk_bytes body;
    hk_bytes_init(&body);
    if (status == HK_ST_ERROR || status == HK_ST_RETRY) {
        hk_put_str(&body, msg ? msg : "");
    } else {
        if (status == HK_ST_WARNING)
            hk_put_str(&body, msg ? msg : "");
        for (uint32_t k = 0; k < nq; k++) {
            hk_put_u32(&body, 0);       /* result status OK */
            result_block(&body, manticore, nmatch, ms);
        }
    }
    hk_put_hdr(b, status, HK_VER_SEARCH, (uint32_t)body.len);
    hk_put_raw(b, body.p, body.len);
    b->oom |= body.oom;
    hk_bytes_free(&body);
}

/* One attribute value of a match, by type. */
static void skip_attr(hk_rd *r, uint32_t type)
{
    switch (type) {
    case 6: case 13: hk_rd_u64(r, "64-bit attribute"); break;       /* bigint, double */
    case 7: case 9: case 1001: hk_rd_str(r, NULL, 0, "string attribute"); break;
    case 0x40000001: hk_rd_skip(r, (size_t)hk_rd_u32(r, "MVA count") * 4, "MVA values"); break;
    case 0x40000002: hk_rd_skip(r, (size_t)hk_rd_u32(r, "MVA64 count") * 4, "MVA64 values"); break;
    default: hk_rd_u32(r, "attribute"); break;
    }
}

static void skip_schema_and_matches(hk_rd *r, hk_search_res *res)
{
    uint32_t nf = hk_rd_u32(r, "field count");
    for (uint32_t k = 0; k < nf && !r->err; k++)
        hk_rd_str(r, NULL, 0, "field name");
    uint32_t na = hk_rd_u32(r, "attribute count");
    uint32_t types[256];
    if (na > 256)
        hk_rd_fail(r, "at most 256 attributes");
    for (uint32_t k = 0; k < na && !r->err; k++) {
        hk_rd_str(r, NULL, 0, "attribute name");
        types[k] = hk_rd_u32(r, "attribute type");
    }
    res->matches = hk_rd_u32(r, "match count");
    uint32_t id64 = hk_rd_u32(r, "id64 flag");
    for (uint32_t m = 0; m < res->matches && !r->err; m++) {
        hk_rd_skip(r, id64 ? 8 : 4, "document id");
        hk_rd_u32(r, "weight");
        for (uint32_t k = 0; k < na && !r->err; k++)
            skip_attr(r, types[k]);
    }
}

int hk_search_reply_parse(uint16_t status, const uint8_t *body, size_t n, hk_search_res *res,
                          hk_rd *r)
{
    memset(res, 0, sizeof *res);
    hk_rd_init(r, body, n);
    if (status == HK_ST_ERROR || status == HK_ST_RETRY) {
        res->status = status;
        hk_rd_str(r, res->msg, sizeof res->msg, "error message");
        return r->err ? -1 : 0;
    }
    if (status == HK_ST_WARNING)
        hk_rd_str(r, res->msg, sizeof res->msg, "warning message");
    else if (status != HK_ST_OK)
        hk_rd_fail(r, "a reply status 0..3");
    res->status = hk_rd_u32(r, "result status");
    if (res->status == HK_ST_ERROR) {
        hk_rd_str(r, res->msg, sizeof res->msg, "result error");
        return r->err ? -1 : 0;
    }
    if (res->status != HK_ST_OK)
        hk_rd_str(r, res->msg, sizeof res->msg, "result message");
    skip_schema_and_matches(r, res);
    res->total = hk_rd_u32(r, "retrieved count");
    if (!r->err && res->total != res->matches) {
        r->off -= 4;
        hk_rd_fail(r, "retrieved == match count");
    }
    res->total_found = hk_rd_u32(r, "total found");
    res->time_ms = hk_rd_u32(r, "query time");
    uint8_t mask = hk_rd_u8(r, "stat mask");
    if (mask & 1)
        hk_rd_skip(r, 8 + 4 + 8 + 8 + 4 + 8, "IO stats");
    if (mask & 2)
        hk_rd_skip(r, 8, "CPU stats");
    if (mask & 4)
        hk_rd_skip(r, 8, "predicted time");
    hk_rd_skip(r, 12, "fetched docs/hits/skips");
    uint32_t nw = hk_rd_u32(r, "word count");
    for (uint32_t k = 0; k < nw && !r->err; k++) {
        hk_rd_str(r, NULL, 0, "word");
        hk_rd_skip(r, 9, "word stats");
    }
    return r->err ? -1 : 0;
}

void hk_ping_build(hk_bytes *b, uint32_t cookie)
{
    hk_put_hdr(b, HK_CMD_PING, HK_VER_PING, 4);
    hk_put_u32(b, cookie);
}

void hk_ping_reply_build(hk_bytes *b, uint32_t cookie)
{
    hk_put_hdr(b, HK_ST_OK, HK_VER_PING, 4);
    hk_put_u32(b, cookie);
}

void hk_persist_build(hk_bytes *b)
{
    hk_put_hdr(b, HK_CMD_PERSIST, 0, 4);
    hk_put_u32(b, 1);
}
