/* hk_agent: one `agent = ...` line, read as the searchd being imitated reads
 * it. Manticore (hk_agent_parse):
 *   mirror ('|' mirror)* ['[' option (',' option)* ']']
 *   mirror = host[:port][:indexlist] | /unix/path[:indexlist]
 * spaces around '|' trimmed, a missing port means 9312 (with a warning: a
 * later mirror's port is NOT shared), an empty index list takes the next
 * mirror's, the last mirror's falls back to the distributed table's name;
 * options conn=pconn|persistent, ha_strategy=NAME, blackhole=N,
 * retry_count=N (names matched by prefix, as searchd does); anything else is
 * an error that makes Manticore refuse the whole table.
 * Sphinx 2.2.11 (hk_agent_parse_sphinx2, hk_agent_s2.c): its own state
 * machine — port mandatory, no spaces around '|', options anywhere, unknown
 * options warned — and a bad line is skipped with searchd's own message.
 * At most HK_LINE_MIRRORS_MAX mirrors on one line. */
#ifndef HK_AGENT_H
#define HK_AGENT_H

#include "hk_err.h"

#define HK_DEFAULT_PORT 9312
#define HK_HOST_MAX 256
#define HK_LINE_MIRRORS_MAX 100000

typedef struct hk_mirror_addr {
    char *host;                  /* host name, IPv4 or unix socket path (owned) */
    int port;                    /* 0 for a unix socket */
    int is_unix;
    int default_port;            /* port was not written: 9312 assumed */
    char *indexes;               /* "shard1" or "idx1,idx2", no spaces (owned) */
    int col;                     /* 1-based column of the mirror in the line */
} hk_mirror_addr;

typedef struct hk_agent_line {
    int n, cap;                  /* mirrors */
    hk_mirror_addr *m;           /* owned */
    int persistent;              /* conn=pconn or agent_persistent */
    int blackhole;               /* blackhole=N or agent_blackhole */
    int retry_count;             /* [retry_count=N]; -1 when not given */
    char strategy[32];           /* [ha_strategy=...] verbatim, "" when not given */
    int strategy_col;
} hk_agent_line;

/* Where the value sits in its file, for error positions. */
typedef struct hk_pos { const char *file; int line, col; } hk_pos;

/* Parse one agent value (Manticore). table = the distributed table's name (index fallback).
 * -1 with err set: Manticore refuses this line (and with it the table). */
int hk_agent_parse(const char *value, const char *table, hk_pos pos, hk_agent_line *out,
                   hk_err *err, hk_warns *warns);
/* Sphinx 2.2.11: 0 = parsed; 1 = searchd skips the line: err holds its message ("colon
 * expected near '...'"); -1 = out of memory. Unknown options are warnings. */
int hk_agent_parse_sphinx2(const char *value, hk_pos pos, hk_agent_line *out, hk_err *err,
                           hk_warns *warns);
void hk_agent_line_free(hk_agent_line *a);
/* "host:port" (or the socket path) into buf. */
const char *hk_mirror_name(const hk_mirror_addr *m, char *buf, int n);

/* Shared by both grammars. */
hk_mirror_addr *hk_agent_add(hk_agent_line *a);   /* a zeroed new mirror, NULL: no memory */
int hk_agent_too_many(const hk_agent_line *a);     /* 1 when the line is at the limit */

#endif
