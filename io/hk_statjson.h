/* hk_statjson: Manticore's HTTP JSON answer to SHOW AGENT STATUS or SHOW STATUS, as saved from
 * /sql?mode=raw ([{"columns": [...], "data": [{"Key": "...", "Value": "..."}, ...]}]) or /sql
 * ({"data": [...]}), turned into the Key<TAB>Value lines hk_statread reads: line N of them is
 * data row N. Parsed with jansson. */
#ifndef HK_STATJSON_H
#define HK_STATJSON_H

#include <stddef.h>
#include "hk_err.h"

/* 1 when text looks like JSON (its first non-blank byte is '[' or '{'), else 0. */
int hk_statjson_is(const char *text, size_t len);
/* *tsv (caller frees) and its length; 0, or -1 with err (file:line:column of a JSON syntax
 * error, or the data row that is not a Key/Value pair). */
int hk_statjson(const char *text, size_t len, const char *file, char **tsv, size_t *n,
                hk_err *err);

#endif
