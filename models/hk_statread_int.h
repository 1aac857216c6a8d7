/* hk_statread_int: what the reading of a status's lines (hk_statread.c) shares with the
 * reading of whole texts (hk_statrd.c). Not for other modules. */
#ifndef HK_STATREAD_INT_H
#define HK_STATREAD_INT_H

#include <stdint.h>
#include "hk_statread.h"

#define PERIODS_MAX 16           /* ag_N_Pperiods_ rows read: P from 1 to this */
#define DUPLICATE -2             /* a known row twice (read again, slowly, to say where) */

/* A host's known rows read so far, a bit each: a row given twice is found without hashing
 * its key (45,000 rows for 1,000 hosts; the hash table is for the other keys). */
typedef struct hmask {
    uint16_t plain;              /* bit i: plain[i] */
    uint16_t w[PERIODS_MAX + 1]; /* w[P] bit j: ag_N_Pperiods_ counters[j] (MSECS too) */
} hmask;

/* An ag_N_ key taken apart: host n, window p (0 for a plain row), name (index in plain[] or
 * in counters[], MSECS; -1 for one not known). */
typedef struct akey {
    long n;
    int p, name;
} akey;

typedef struct rd {
    hk_status_file *s;
    int *window;                 /* per host: the widest window stored so far */
    hmask *mask;                 /* per host */
    int cap;
    int slow;                    /* every key by hash (to name a repeat's first line) */
    const char *kraw;            /* the line just read: its key when the line was KEY<TAB>..., */
    size_t klen;                 /* from its first byte (else NULL), and what the key says */
    akey a;
    const char *file;
    int line;
    hk_err *err;
    char vkey[256];              /* mysql -E / \G: the "Key:" line waiting for its "Value:" */
    int vline;                   /* its line, 0 none */
    struct seen *seen;           /* every key read: a table by the key's hash */
    size_t nseen, capseen;       /* capseen: a power of two, or 0 */
} rd;

/* A key read, by its hash, and its line: a key given twice (two snapshots pasted into one
 * file) is refused, whatever its values — summed, a repeat would double the counters. */
typedef struct seen {
    uint64_t key;
    int line;
} seen;

/* One line s..end (NUL at end, written in place): 0, -1 (x->err) or DUPLICATE. */
int hk_sr_line(rd *x, char *s, char *end);
/* An agent row by its key taken apart (key for messages; v the trimmed value): 0 or -1. */
int hk_sr_agent_row(rd *x, const akey *a, const char *key, const char *v);
/* A known window row (a->p > 0, a->name >= 0, a->n below HK_STATREAD_HOSTS_MAX) whose value
 * d was read by hk_sr_plain and is at most hk_sr_max(a): as hk_sr_agent_row reads it. */
int hk_sr_agent_number(rd *x, const akey *a, double d);
double hk_sr_max(const akey *a);
/* A row of host n (below HK_STATREAD_HOSTS_MAX) that says nothing read (a plain row past the
 * first five, one not known, a window not read): the host noted, as hk_sr_agent_row notes
 * it. 0, or -1 out of memory. */
int hk_sr_host_row(rd *x, long n);
/* Room for hosts 0..n-1 made at once (a snapshot of known keys): 0, or -1 out of memory. */
int hk_sr_reserve(rd *x, long n);
/* The n bytes at v a plain decimal (at most 15 digits, one '.' not last): 1 and *out, else 0
 * (strtod's value, to the last bit, where it is 1). */
int hk_sr_plain(const char *v, size_t n, double *out);
/* The table of keys sized for the lines of buf at once (x->slow). */
void hk_sr_presize(rd *x, const char *buf, size_t len);
/* The text's end: x's tables freed, what a whole status must hold checked, Manticore's hidden
 * timeouts counted; on an error x->s freed. rc, or -1 for what the end found. */
int hk_sr_finish(rd *x, int rc);

#endif
