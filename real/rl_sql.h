/* rl_sql: one SphinxQL connection (the MySQL 4.1 client protocol searchd speaks on a
 * `:mysql41` listener) on libuv — the greeting, a login without a password, then COM_QUERY one
 * statement at a time, each answered by OK, ERR or a result set whose rows it can keep as
 * tab-separated text (what `mysql -B -N` prints, which hk_statread reads). */
#ifndef RL_SQL_H
#define RL_SQL_H

#include <netinet/in.h>
#include <stddef.h>
#include <uv.h>
#include "hk_buf.h"
#include "hk_sqlp.h"

typedef enum rl_sql_status {
    RL_SQL_OK,                   /* OK or a whole result set */
    RL_SQL_ERR,                  /* searchd's ERR packet: msg is its text */
    RL_SQL_IO                    /* no answer: connect, read or protocol failure (msg says) */
} rl_sql_status;

typedef struct rl_sql_res {
    rl_sql_status status;
    int warnings;                /* the final EOF's warning count */
    unsigned long long rows;
    const char *msg;             /* ERR text or what went wrong, "" otherwise */
    const char *tsv;             /* kept rows, "a\tb\n" each (keep_rows), else "" */
} rl_sql_res;

typedef struct rl_sql rl_sql;
typedef void (*rl_sql_cb)(rl_sql *c, void *ctx, const rl_sql_res *r);

/* A connection to a (loopback) SphinxQL listener; it logs in while the first query waits.
 * NULL: no memory. */
rl_sql *rl_sql_new(uv_loop_t *loop, const struct sockaddr_in *to);
/* Send one statement (one at a time: -1 while another is in flight or the connection is
 * broken). cb is called once, from the loop. */
int rl_sql_query(rl_sql *c, const char *sql, int keep_rows, rl_sql_cb cb, void *ctx);
/* Each kept row of the following answers handed to fn as it is decoded (its tsv line without
 * the newline), before the answer's cb; fn NULL: none. */
void rl_sql_rows_to(rl_sql *c, void (*fn)(void *ctx, const char *line, size_t len), void *ctx);
/* 1 while it can take a query. */
int rl_sql_usable(const rl_sql *c);
/* Close it; a query in flight gets its cb (RL_SQL_IO, "closed"); freed once libuv is done. */
void rl_sql_close(rl_sql *c);

#endif
