/* rl_pxset: the proxies of one process, by name (see rl_pxset.h). */
#include "rl_pxset.h"

#include "rl_addr.h"
#include "rl_toxic.h"

#include <stdlib.h>
#include <string.h>
#include "hk_err.h"

void rl_pxset_init(rl_pxset *s, uv_loop_t *loop, uint64_t seed)
{
    memset(s, 0, sizeof *s);
    s->loop = loop;
    s->seed = seed;
}

int rl_pxset_find(const rl_pxset *s, const char *name)
{
    for (int i = 0; i < s->n; i++)
        if (!strcmp(s->px[i]->name, name))
            return i;
    return -1;
}

/* 1 when a proxy listening at listen would forward to itself at upstream. */
static int to_itself(const char *listen, const char *up)
{
    char lh[64], uh[64];
    int lp, upp;
    if (rl_addr_parse(listen, lh, sizeof lh, &lp) < 0 || rl_addr_parse(up, uh, sizeof uh, &upp) < 0)
        return 0;
    return lp == upp && (!strcmp(lh, uh) || !strcmp(lh, "0.0.0.0"));
}

int rl_pxset_add(rl_pxset *s, const char *name, const char *listen, const char *upstream,
                 int enabled, int *code, char *msg, int n)
{
    *code = 409;
    if (rl_pxset_find(s, name) >= 0)
        return hk_err_msg(msg, n, "proxy %s already exists", name);
    if (s->n == RL_PXSET_MAX)
        return hk_err_msg(msg, n, "%d proxies already: the most one process serves",
                          RL_PXSET_MAX);
    *code = 400;
    if (!rl_name_ok(name, RL_PROXY_NAME_MAX))
        return hk_err_msg(msg, n, "name '%.80s': expected 1 to %d letters, digits, '.', '_', "
                          "':' or '-'", name, RL_PROXY_NAME_MAX - 1);
    if (to_itself(listen, upstream))
        return hk_err_msg(msg, n, "proxy %s: upstream %s is its own listen address: expected "
                          "the agent it stands in front of", name, upstream);
    rl_proxy *p = malloc(sizeof *p);
    if (!p || rl_proxy_init(p, s->loop, name, listen, upstream, s->seed + s->made, msg, n) < 0) {
        free(p);
        return -1;
    }
    *code = 500;
    if (enabled && rl_proxy_enable(p, 1, msg, n) < 0) {
        rl_proxy_free(p);
        free(p);
        return -1;
    }
    s->made++;
    s->px[s->n++] = p;
    return 0;
}

void rl_pxset_delete(rl_pxset *s, int i)
{
    rl_proxy *p = s->px[i];
    rl_proxy_free(p);
    free(p);
    memmove(&s->px[i], &s->px[i + 1], (size_t)(s->n - i - 1) * sizeof s->px[0]);
    s->n--;
}

int rl_pxset_reset(rl_pxset *s, char *msg, int n)
{
    int rc = 0;
    for (int i = 0; i < s->n; i++) {
        rl_proxy_clear(s->px[i]);
        if (rl_proxy_enable(s->px[i], 1, msg, n) < 0)
            rc = -1;
    }
    return rc;
}

json_t *rl_pxset_proxy_json(const rl_proxy *p)
{
    json_t *tx = json_array();
    for (int i = 0; i < p->ntx; i++)
        json_array_append_new(tx, rl_toxic_json(&p->tx[i]));
    return json_pack("{s:s, s:s, s:s, s:b, s:o}", "name", p->name, "listen", p->listen,
                     "upstream", p->upstream, "enabled", p->enabled, "toxics", tx);
}

static const char *field(json_t *o, const char *key)
{
    json_t *x = json_object_get(o, key);
    return json_is_string(x) ? json_string_value(x) : NULL;
}

/* An existing proxy updated from entry e: enabled, and upstream for new connections. */
static int update(rl_proxy *p, json_t *e, int *code, char *msg, int n)
{
    const char *up = field(e, "upstream");
    json_t *en = json_object_get(e, "enabled");
    *code = 400;
    if (up && strcmp(up, p->upstream)) {
        rl_proxy tmp;
        if (rl_proxy_init(&tmp, p->loop, p->name, p->listen, up, 1, msg, n) < 0)
            return -1;
        p->up_addr = tmp.up_addr;
        snprintf(p->upstream, sizeof p->upstream, "%s", up);
        rl_proxy_free(&tmp);
    }
    *code = 500;
    return en ? rl_proxy_enable(p, json_is_true(en), msg, n) : 0;
}

/* One entry of a populate array, or of POST /proxies: its keys and their types checked. */
static int entry(rl_pxset *s, json_t *e, int *code, char *msg, int n)
{
    static const char *const keys[] = {"name", "listen", "upstream", "enabled", NULL};
    *code = 400;
    if (!json_is_object(e))
        return hk_err_msg(msg, n, "expected an object with a name (string), listen and upstream "
                          "(IP:PORT strings) and enabled (true or false)");
    if (rl_json_only(e, keys, "proxy", msg, n) < 0)
        return -1;
    json_t *en = json_object_get(e, "enabled");
    const char *name = field(e, "name"), *listen = field(e, "listen"), *up = field(e, "upstream");
    static const char *const strs[] = {"name", "listen", "upstream"};
    for (int k = 0; k < 3; k++)
        if (json_object_get(e, strs[k]) && !field(e, strs[k]))
            return hk_err_msg(msg, n, "%s: expected a string", strs[k]);
    if (en && !json_is_boolean(en))
        return hk_err_msg(msg, n, "enabled: expected true or false");
    if (!name)
        return hk_err_msg(msg, n, "name: expected a string");
    int i = rl_pxset_find(s, name);
    if (i >= 0 && up && to_itself(s->px[i]->listen, up))
        return hk_err_msg(msg, n, "proxy %s: upstream %s is its own listen address: expected "
                          "the agent it stands in front of", name, up);
    if (i >= 0)
        return update(s->px[i], e, code, msg, n);
    if (!listen || !up)
        return hk_err_msg(msg, n, "proxy %s: expected listen and upstream (IP:PORT)", name);
    return rl_pxset_add(s, name, listen, up, en ? json_is_true(en) : 1, code, msg, n);
}

int rl_pxset_populate(rl_pxset *s, const char *json, int *code, char *msg, int n)
{
    json_error_t je;
    json_t *a = json_loads(json, JSON_REJECT_DUPLICATES, &je);
    *code = 400;
    if (!a)
        return hk_err_msg(msg, n, "line %d column %d: %s", je.line, je.column, je.text);
    if (!json_is_array(a)) {
        json_decref(a);
        return hk_err_msg(msg, n, "expected a JSON array of proxies");
    }
    size_t i;
    json_t *e;
    char why[256];
    json_array_foreach(a, i, e) {
        if (entry(s, e, code, why, sizeof why) < 0) {
            json_decref(a);
            return hk_err_msg(msg, n, "proxy #%zu: %s", i + 1, why);
        }
    }
    json_decref(a);
    return 0;
}

int rl_pxset_entry(rl_pxset *s, json_t *e, int *code, char *msg, int n)
{
    return entry(s, e, code, msg, n);
}

void rl_pxset_free(rl_pxset *s)
{
    while (s->n)
        rl_pxset_delete(s, s->n - 1);
}
