/* hk_agent: the `agent = ...` line grammar, as Manticore reads it:
 *   mirror ('|' mirror)* ['[' option (',' option)* ']']
 *   mirror = host[:port][:indexlist] | /unix/path[:indexlist]
 * Spaces around '|' are trimmed, a missing port means 9312 (with a warning:
 * a later mirror's port is NOT shared), an empty index list takes the next
 * mirror's, the last mirror's falls back to the distributed table's name.
 * Options: conn=pconn|persistent, ha_strategy=NAME, blackhole=N,
 * retry_count=N; anything else is an error. */
#ifndef HK_AGENT_H
#define HK_AGENT_H

#include "hk_err.h"

#define HK_DEFAULT_PORT 9312
#define HK_HOST_MAX 256
#define HK_INDEXES_MAX 512

typedef struct hk_mirror_addr {
    char host[HK_HOST_MAX];      /* host name, IPv4 or unix socket path */
    int port;                    /* 0 for a unix socket */
    int is_unix;
    int default_port;            /* port was not written: 9312 assumed */
    char indexes[HK_INDEXES_MAX];/* "shard1" or "idx1,idx2" (normalised: no spaces) */
    int col;                     /* 1-based column of the mirror in the line */
} hk_mirror_addr;

typedef struct hk_agent_line {
    int n;                       /* mirrors */
    hk_mirror_addr *m;           /* owned */
    int persistent;              /* conn=pconn or agent_persistent */
    int blackhole;               /* blackhole=N or agent_blackhole */
    int retry_count;             /* [retry_count=N]; -1 when not given */
    char strategy[32];           /* [ha_strategy=...] verbatim, "" when not given */
    int strategy_col;
} hk_agent_line;

/* Where the value sits in its file, for error positions. */
typedef struct hk_pos { const char *file; int line, col; } hk_pos;

/* Parse one agent value. table = the distributed table's name (index fallback). */
int hk_agent_parse(const char *value, const char *table, hk_pos pos, hk_agent_line *out,
                   hk_err *err, hk_warns *warns);
void hk_agent_line_free(hk_agent_line *a);
/* "host:port" (or the socket path) into buf. */
const char *hk_mirror_name(const hk_mirror_addr *m, char *buf, int n);

#endif
