/* hk_proto: the SphinxAPI agent protocol subset a master and a mirror speak
 * (big-endian, see ../shared/spec/ha-research.md §6): the 4-byte hello,
 * 8-byte command/reply headers, PING, PERSIST, the SEARCH request a Sphinx
 * 2.2.11 master sends (master version 14) and the reply it accepts; also the
 * Manticore master's variant (version 35, one more reply field). Pure
 * encoders and decoders over caller buffers: no sockets here. Decoders never
 * read past the buffer and report the byte offset of what they rejected. */
#ifndef HK_PROTO_H
#define HK_PROTO_H

#include <stddef.h>
#include <stdint.h>

#define HK_PROTO_HELLO 1u
#define HK_PROTO_MAX_PACKET (8u << 20)   /* searchd's default max_packet_size */

enum { HK_CMD_SEARCH = 0, HK_CMD_PERSIST = 4, HK_CMD_PING = 9 };
enum { HK_ST_OK = 0, HK_ST_ERROR = 1, HK_ST_RETRY = 2, HK_ST_WARNING = 3 };
#define HK_VER_SEARCH 0x11F       /* 2.2.11 master */
#define HK_VER_SEARCH_MANTICORE 0x128
#define HK_VER_PING 0x100
#define HK_MASTER_VER 14          /* 2.2.11's VER_MASTER */

typedef struct hk_bytes {
    uint8_t *p;
    size_t len, cap;
    int oom;
} hk_bytes;

void hk_bytes_init(hk_bytes *b);
void hk_bytes_free(hk_bytes *b);
void hk_put_u8(hk_bytes *b, uint8_t v);
void hk_put_u16(hk_bytes *b, uint16_t v);
void hk_put_u32(hk_bytes *b, uint32_t v);
void hk_put_u64(hk_bytes *b, uint64_t v);
void hk_put_str(hk_bytes *b, const char *s);
void hk_put_raw(hk_bytes *b, const void *p, size_t n);

/* A bounded big-endian reader; the first failure sticks (err, off, what). */
typedef struct hk_rd {
    const uint8_t *p;
    size_t n, off;
    int err;
    size_t err_off;
    const char *what;
} hk_rd;

void hk_rd_init(hk_rd *r, const void *p, size_t n);
uint8_t hk_rd_u8(hk_rd *r, const char *what);
uint32_t hk_rd_u32(hk_rd *r, const char *what);
uint64_t hk_rd_u64(hk_rd *r, const char *what);
/* A length-prefixed string: copied (NUL-terminated, truncated) into out if out != NULL. */
uint32_t hk_rd_str(hk_rd *r, char *out, size_t n, const char *what);
void hk_rd_skip(hk_rd *r, size_t n, const char *what);
void hk_rd_fail(hk_rd *r, const char *what);

typedef struct hk_hdr {
    uint16_t code;               /* command (request) or status (reply) */
    uint16_t ver;
    uint32_t len;
} hk_hdr;

void hk_hdr_read(const uint8_t b[8], hk_hdr *h);
void hk_put_hdr(hk_bytes *b, uint16_t code, uint16_t ver, uint32_t len);

/* What a mirror needs from a master's SEARCH body. */
typedef struct hk_search_req {
    uint32_t master_ver, nqueries;
    uint32_t limit;
    char query[1024];
    char indexes[512];
} hk_search_req;

/* 0, or -1 with r->err_off / r->what. Accepts 2.2.11 (14) and Manticore (>= 35) masters. */
int hk_search_req_parse(const uint8_t *body, size_t n, hk_search_req *q, hk_rd *r);
/* The SEARCH request a 2.2.11 master sends for `query` on `indexes` (byte-exact, §8.6),
 * with its 8-byte header. */
void hk_search_req_build(hk_bytes *b, const char *query, const char *indexes, uint32_t limit);

/* Reply to a SEARCH: nq result blocks of nmatch documents (ids 1..nmatch); status OK, or
 * WARNING with text, or ERROR/RETRY with text only. manticore_master adds the `id` attribute
 * to the schema (Manticore's SQL clients need a column) and total_approx. */
void hk_search_reply_build(hk_bytes *b, uint16_t status, const char *msg, uint32_t nq,
                           int manticore_master, uint32_t nmatch, uint32_t time_ms);

/* What a master learns from a SEARCH reply body (after its header). */
typedef struct hk_search_res {
    uint32_t status;             /* first result's status */
    uint32_t matches, total, total_found, time_ms;
    char msg[256];               /* reply-level or per-result warning/error */
} hk_search_res;

/* Parse a reply of header status `status` to one query. 0 ok; -1 malformed. */
int hk_search_reply_parse(uint16_t status, const uint8_t *body, size_t n, hk_search_res *res,
                          hk_rd *r);

/* PING: request body is a cookie; the reply echoes it. */
void hk_ping_build(hk_bytes *b, uint32_t cookie);
void hk_ping_reply_build(hk_bytes *b, uint32_t cookie);
/* PERSIST(1), which gets no reply. */
void hk_persist_build(hk_bytes *b);

#endif
