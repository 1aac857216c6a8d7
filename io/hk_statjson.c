/* hk_statjson: a JSON SHOW ... STATUS answer as Key<TAB>Value lines (see hk_statjson.h). */
#include "hk_statjson.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include "hk_buf.h"

int hk_statjson_is(const char *text, size_t len)
{
    size_t i = 0;
    while (i < len && strchr(" \t\r\n", text[i]))
        i++;
    return i < len && (text[i] == '[' || text[i] == '{');
}

/* The result set's rows: [{"data": [...]}, ...] (the first set) or {"data": [...]}. */
static json_t *rows_of(json_t *root)
{
    json_t *set = json_is_array(root) ? json_array_get(root, 0) : root;
    json_t *d = json_is_object(set) ? json_object_get(set, "data") : NULL;
    return json_is_array(d) ? d : NULL;
}

/* A row's name and value: "Key" (SHOW AGENT STATUS), "Counter" (SHOW STATUS) or
 * "Variable_name", and "Value"; numbers are taken as their text. */
static int pair(json_t *row, const char **k, char *v, size_t n)
{
    static const char *const names[] = {"Key", "Counter", "Variable_name"};
    json_t *jk = NULL, *jv = json_object_get(row, "Value");
    for (int i = 0; i < 3 && !jk; i++)
        jk = json_object_get(row, names[i]);
    if (!json_is_string(jk) || !jv)
        return -1;
    *k = json_string_value(jk);
    if (json_is_string(jv))
        snprintf(v, n, "%s", json_string_value(jv));
    else if (json_is_integer(jv))
        snprintf(v, n, "%lld", (long long)json_integer_value(jv));
    else if (json_is_real(jv))
        snprintf(v, n, "%.17g", json_real_value(jv));
    else
        return -1;
    return strpbrk(*k, "\t\n") || strpbrk(v, "\t\n") ? -1 : 0;
}

int hk_statjson(const char *text, size_t len, const char *file, char **tsv, size_t *n,
                hk_err *err)
{
    json_error_t je;
    json_t *root = json_loadb(text, len, 0, &je);
    if (!root)
        return hk_err_set(err, file, je.line > 0 ? je.line : 1, je.column > 0 ? je.column : 1,
                          "expected JSON (%s)", je.text);
    json_t *rows = rows_of(root);
    hk_buf b;
    hk_buf_init(&b);
    int rc = rows ? 0 : hk_err_set(err, file, 1, 1, "expected a SHOW ... STATUS answer: "
                                   "[{\"columns\": ..., \"data\": [{\"Key\": ..., \"Value\": "
                                   "...}]}] (/sql?mode=raw)");
    for (size_t i = 0; rc == 0 && i < json_array_size(rows); i++) {
        const char *k;
        char v[512];
        if (pair(json_array_get(rows, i), &k, v, sizeof v) < 0)
            rc = hk_err_set(err, file, 0, 0, "data[%zu]: expected {\"Key\": \"...\", \"Value\": "
                            "\"...\"} (strings or numbers, no tab or newline)", i);
        else
            hk_buf_printf(&b, "%s\t%s\n", k, v);
    }
    json_decref(root);
    if (rc == 0 && b.oom)
        rc = hk_err_set(err, file, 0, 0, "out of memory");
    if (rc < 0) {
        hk_buf_free(&b);
        return -1;
    }
    *tsv = b.s ? b.s : calloc(1, 1);
    *n = b.len;
    return *tsv ? 0 : hk_err_set(err, file, 0, 0, "out of memory");
}
