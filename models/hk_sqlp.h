/* hk_sqlp: the answers of a SphinxQL (MySQL 4.1 protocol) server as a pure state machine over
 * a caller's bytes — packets split from a stream (3-byte length, sequence byte, payload), and
 * one statement's answer read packet by packet: OK (its warning count), ERR (its text), or a
 * result set (column count, definitions to an EOF, rows to an EOF with the warning count, or
 * an ERR), its rows kept as tab-separated text when asked (what `mysql -B -N` prints). What is
 * malformed says which byte of the answer and what was expected. Used by hareal's SphinxQL
 * client (rl_sql) and fuzzed on its own. */
#ifndef HK_SQLP_H
#define HK_SQLP_H

#include <stddef.h>
#include <stdint.h>
#include "hk_buf.h"

#define HK_SQLP_MAX (64u << 20)  /* a packet, or the kept rows, larger than this: malformed */

enum { HK_SQLP_MORE, HK_SQLP_OK, HK_SQLP_ERR, HK_SQLP_BAD };

typedef struct hk_sqlp {
    int phase;                   /* first packet, column definitions, rows */
    int keep;                    /* keep rows in tsv */
    uint64_t ncols, rows;
    int warnings;
    size_t off;                  /* bytes of this answer read so far (headers included) */
    hk_buf tsv;
    char msg[512];               /* ERR: searchd's text; BAD: what was wrong, where */
    void (*row)(void *ctx, const char *line, size_t len); /* each kept row as it comes (its tsv
                                    line, no newline), or NULL; kept across answers */
    void *row_ctx;
} hk_sqlp;

/* The next packet in buf[0..len): 1 (its payload at buf + 4, *n bytes; *used = n + 4), 0 when
 * more bytes are needed, -1 when it announces more than HK_SQLP_MAX. */
int hk_sqlp_split(const uint8_t *buf, size_t len, size_t *n, size_t *used);
/* Start reading one statement's answer (tsv emptied, its memory kept). */
void hk_sqlp_begin(hk_sqlp *p, int keep);
/* One packet's payload: MORE, or the answer ended OK, ERR (msg) or BAD (msg). */
int hk_sqlp_packet(hk_sqlp *p, const uint8_t *b, size_t n);
/* An ERR packet's text (after its code and SQL state) into out. */
void hk_sqlp_err_text(const uint8_t *b, size_t n, char *out, size_t cap);
void hk_sqlp_free(hk_sqlp *p);

#endif
