/* hk_cluster: the distributed tables of a parsed config, read as the searchd
 * being imitated reads them (the dialect: Manticore or Sphinx 2.2.11), with
 * the searchd-level HA settings and their real defaults, and the set of
 * unique mirror hosts (statistics are kept per host, shared by every line
 * using it). Where searchd warns and goes on, so does hakarma (a warning with
 * file:line:col); where it refuses a table, the table is kept aside in
 * `refused` with the reason, and only a run that needs it fails. Unknown keys
 * of searchd and table sections are warnings with the nearest known key.
 * Loading is linear in the config's size (hosts are hashed). */
#ifndef HK_CLUSTER_H
#define HK_CLUSTER_H

#include <stdint.h>
#include "hk_agent.h"
#include "hk_conf.h"
#include "hk_time.h"

#define HK_HOSTS_MAX 1000000     /* distinct mirror hosts in one config */

typedef enum hk_dialect { HK_DIALECT_MANTICORE, HK_DIALECT_SPHINX2 } hk_dialect;

typedef struct hk_settings {
    int64_t karma_s;             /* ha_period_karma, seconds (default 60) */
    int64_t ping_us;             /* ha_ping_interval (default 1000 ms, 0 = off) */
    int64_t connect_timeout_us;  /* agent_connect_timeout (default 1000 ms) */
    int64_t query_timeout_us;    /* agent_query_timeout (default 3000 ms) */
    int retry_count;             /* agent_retry_count (default 0) */
    int64_t retry_delay_us;      /* agent_retry_delay (default 500 ms) */
    int persistent_limit;        /* persistent_connections_limit (default 0: no pools) */
} hk_settings;

/* ha_period_karma in µs: the one conversion (the blocks are whole seconds). */
static inline int64_t hk_karma_us(const hk_settings *s) { return s->karma_s * HK_SEC; }

typedef struct hk_line_conf {
    hk_agent_line a;             /* mirrors and options */
    int *host;                   /* per mirror: index into hk_cluster.hosts */
    int strategy;                /* hk_strat id resolved for this line */
    int line, col;               /* position of the agent value */
} hk_line_conf;

typedef struct hk_table {
    char *name;
    int nlines, cap;
    hk_line_conf *lines;
    int nlocal;
    char **local;
    int strategy;                /* table-level ha_strategy (hk_strat id) */
    int64_t connect_timeout_us, query_timeout_us;
    int retry_count;             /* table agent_retry_count/mirror_retry_count, -1 = global */
    int line, col;
} hk_table;

typedef struct hk_refused {      /* a distributed table the dialect's searchd does not serve */
    char *name;
    hk_err why;                  /* searchd's reason, at its position */
} hk_refused;

typedef struct hk_host {
    char *name;                  /* "host:port" or socket path (owned) */
    int refs;                    /* agent entries (mirrors) referring to it */
    int in_ha;                   /* appears in a line with >= 2 mirrors (pinged) */
    int in_ha_nonbh;             /* ... in a non-blackhole such line (Manticore pings these) */
    int line, col;               /* where it first appears */
} hk_host;

typedef struct hk_cluster {
    hk_dialect dialect;
    hk_settings set;
    int ntables, tcap;
    hk_table *tables;
    int nrefused, rcap;
    hk_refused *refused;
    int nskipped, scap;
    char **skipped;              /* agent values searchd skips (or of refused tables) */
    int nhosts, hcap;
    hk_host *hosts;
    int *hash, hashcap;          /* open addressing over hosts (-1 = empty) */
} hk_cluster;

void hk_settings_default(hk_settings *s);
/* Apply the searchd {} keys present in c over *s (keys absent leave *s as it is). */
int hk_settings_apply(const hk_conf *c, hk_dialect d, hk_settings *s, hk_err *err,
                      hk_warns *warns);
/* Build from conf (its searchd {} keys, then those of over when not NULL: a scenario's own
 * settings override a named config's, before the tables inherit them). Tables that are not
 * `type = distributed` are ignored. */
int hk_cluster_from_conf(const hk_conf *c, const hk_conf *over, hk_dialect d, hk_cluster **out,
                         hk_err *err, hk_warns *warns);
void hk_cluster_free(hk_cluster *c);
int hk_cluster_find_host(const hk_cluster *c, const char *name);
const hk_table *hk_cluster_find_table(const hk_cluster *c, const char *name);
const hk_refused *hk_cluster_find_refused(const hk_cluster *c, const char *name);
/* Attempts budget of one query on one line. Manticore: 1 + R with R = [retry_count=N], else
 * (table's or global agent_retry_count) x mirrors. Sphinx 2.2.11 (sphinx2 != 0): 1 + the global
 * agent_retry_count clamped to 8, on the same mirror. */
int hk_line_attempts(const hk_cluster *c, const hk_table *t, const hk_line_conf *l, int sphinx2);

#endif
