/* hk_conf: the sphinx.conf / manticore.conf syntax, parsed from a caller's
 * buffer into sections of key = value entries, every one with its position.
 *   type [name [: parent]] { key = value ... }
 * '#' comments (\# is a literal '#'), backslash line continuation (the
 * continued line's leading blanks are dropped), repeated keys, and
 * `index child : parent` inheritance (a key set in the child replaces all of
 * the parent's values of that key; the parent must come first). Two sections
 * of one type and name are an error, as in searchd (`fault` sections, a
 * scenario's, may repeat). Lookups are hashed. A section whose keys start on the
 * line of its '{' may hold several keys on that line and close with '}' there
 * (the scenario files' one-line sections). Unknown keys are kept. */
#ifndef HK_CONF_H
#define HK_CONF_H

#include <stdint.h>
#include "hk_err.h"

typedef struct hk_entry {
    char *key;
    char *value;
    int line, col;       /* position of the key */
    int vline, vcol;     /* position of the value's first character */
} hk_entry;

typedef struct hk_section {
    char *type;          /* "searchd", "index", "table", "mirror", ... */
    char *name;          /* NULL for searchd/indexer/common/... */
    char *parent_name;   /* NULL unless `name : parent` */
    const struct hk_section *parent;
    int line, col;
    int n, cap;
    hk_entry *e;
} hk_section;

typedef struct hk_conf {
    char *file;
    int n, cap;
    hk_section *s;
    int *hash, hashcap;          /* (type family, name) -> section index, -1 = empty */
} hk_conf;

/* Parse text[0..len). On success *out is a new conf (free with hk_conf_free). */
int hk_conf_parse(const char *text, size_t len, const char *file, hk_conf **out, hk_err *err);
void hk_conf_free(hk_conf *c);

/* Section lookups. `index` and `table` are one family. */
const hk_section *hk_conf_find(const hk_conf *c, const char *type, const char *name);
int hk_conf_is_table(const hk_section *s);

/* The section whose entries of key count: s itself, or the nearest parent that has the key
 * (a child's key replaces all of the parent's values); NULL if none. Iterate its entries. */
const hk_section *hk_sec_owner(const hk_section *s, const char *key);
/* Entries of key (inherited from the parent chain when the section has none). */
int hk_sec_count(const hk_section *s, const char *key);
const hk_entry *hk_sec_get(const hk_section *s, const char *key, int i);
const hk_entry *hk_sec_last(const hk_section *s, const char *key);

/* Every section of c is of a type in allowed (NULL-terminated); else an error naming the
 * nearest allowed type. */
int hk_conf_check_types(const hk_conf *c, const char *const *allowed, hk_err *err);

/* Shared helpers for config values with positions. */
int hk_conf_time(const hk_conf *c, const hk_entry *e, int64_t unit_us, int64_t *out, hk_err *err);
int hk_conf_int(const hk_conf *c, const hk_entry *e, long long min, long long max, long long *out,
                hk_err *err);

#endif
