/* rl_pxapi: the proxies' control API, toxiproxy's routes over rl_http (see rl_pxapi.h). */
#include "rl_pxapi.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <http_parser.h>
#include "hk_err.h"

#define JSON_CTYPE "application/json"

typedef struct route {
    char name[RL_PROXY_NAME_MAX], toxic[RL_TX_NAME_MAX];
    int toxics;                      /* /proxies/NAME/toxics[/TOXIC] */
} route;

static int put_json(hk_buf *body, const char **ctype, json_t *j, int code)
{
    char *s = json_dumps(j, JSON_COMPACT);
    json_decref(j);
    if (s) {
        hk_buf_printf(body, "%s\n", s);
        free(s);
    }
    *ctype = JSON_CTYPE;
    return code;
}

static int fail(hk_buf *body, const char **ctype, int code, const char *msg)
{
    return put_json(body, ctype, json_pack("{s:s, s:i}", "error", msg, "status", code), code);
}

static void said(const rl_pxapi *a, const char *fmt, ...) HK_PRINTF(2, 3);
static void said(const rl_pxapi *a, const char *fmt, ...)
{
    char what[256];
    va_list ap;
    if (!a->on_change)
        return;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    a->on_change(a->user, what);
}

/* /proxies/NAME[/toxics[/TOXIC]] into r: 0, or -1 when it is no such path. */
static int parse_route(const char *path, route *r)
{
    memset(r, 0, sizeof *r);
    const char *p = path + strlen("/proxies/");
    size_t k = strcspn(p, "/");
    if (k == 0 || k >= sizeof r->name)
        return -1;
    memcpy(r->name, p, k);
    p += k;
    if (!*p)
        return 0;
    if (strncmp(p, "/toxics", 7) || (p[7] && p[7] != '/'))
        return -1;
    r->toxics = 1;
    p += 7;
    if (!*p || !p[1])
        return 0;
    k = strlen(p + 1);
    if (k >= sizeof r->toxic || strchr(p + 1, '/'))
        return -1;
    memcpy(r->toxic, p + 1, k + 1);
    return 0;
}

static int all_proxies(const rl_pxset *s, hk_buf *body, const char **ctype)
{
    json_t *o = json_object();
    for (int i = 0; i < s->n; i++)
        json_object_set_new(o, s->px[i]->name, rl_pxset_proxy_json(s->px[i]));
    return put_json(body, ctype, o, 200);
}

static int new_proxy(rl_pxapi *a, const rl_http_req *rq, hk_buf *body, const char **ctype)
{
    json_error_t je;
    json_t *e = json_loads(rq->body, JSON_REJECT_DUPLICATES, &je);
    char msg[256];
    int code;
    const char *name = json_is_string(json_object_get(e, "name"))
                       ? json_string_value(json_object_get(e, "name")) : NULL;
    if (!e) {
        snprintf(msg, sizeof msg, "not JSON: line %d column %d: %s", je.line, je.column, je.text);
        return fail(body, ctype, 400, msg);
    }
    if (name && rl_pxset_find(a->set, name) >= 0) {
        json_decref(e);
        snprintf(msg, sizeof msg, "proxy %s already exists", name);
        return fail(body, ctype, 409, msg);
    }
    if (rl_pxset_entry(a->set, e, &code, msg, sizeof msg) < 0) {
        json_decref(e);
        return fail(body, ctype, code, msg);
    }
    json_decref(e);
    int i = a->set->n - 1;
    said(a, "proxy %s made (%s)", a->set->px[i]->name, a->set->px[i]->upstream);
    return put_json(body, ctype, rl_pxset_proxy_json(a->set->px[i]), 201);
}

static int populate(rl_pxapi *a, const rl_http_req *rq, hk_buf *body, const char **ctype)
{
    char msg[320];
    int code;
    if (rl_pxset_populate(a->set, rq->body, &code, msg, sizeof msg) < 0)
        return fail(body, ctype, code, msg);
    said(a, "populate: %d proxies now", a->set->n);
    json_t *arr = json_array();
    for (int i = 0; i < a->set->n; i++)
        json_array_append_new(arr, rl_pxset_proxy_json(a->set->px[i]));
    return put_json(body, ctype, json_pack("{s:o}", "proxies", arr), 201);
}

static int one_proxy(rl_pxapi *a, const rl_http_req *rq, rl_proxy *p, hk_buf *body,
                     const char **ctype)
{
    char msg[256];
    int code;
    if (rq->method == HTTP_DELETE) {
        said(a, "proxy %s deleted", p->name);
        rl_pxset_delete(a->set, rl_pxset_find(a->set, p->name));
        return 204;
    }
    if (rq->method == HTTP_POST) {
        json_error_t je;
        json_t *e = json_loads(rq->body, JSON_REJECT_DUPLICATES, &je);
        if (!json_is_object(e)) {
            json_decref(e);
            return fail(body, ctype, 400, "expected a JSON object (enabled, upstream)");
        }
        json_object_set_new(e, "name", json_string(p->name));
        int rc = rl_pxset_entry(a->set, e, &code, msg, sizeof msg);
        json_decref(e);
        if (rc < 0)
            return fail(body, ctype, code, msg);
        said(a, "proxy %s %s", p->name, p->enabled ? "enabled" : "disabled");
    }
    return put_json(body, ctype, rl_pxset_proxy_json(p), 200);
}

static int add_toxic(rl_pxapi *a, const rl_http_req *rq, rl_proxy *p, hk_buf *body,
                     const char **ctype)
{
    rl_toxic t;
    char msg[256];
    if (rl_toxic_from_json(rq->body, NULL, &t, msg, sizeof msg) < 0)
        return fail(body, ctype, 400, msg);
    if (rl_proxy_add(p, &t, msg, sizeof msg) < 0)
        return fail(body, ctype, 409, msg);
    said(a, "toxic %s added to %s", t.name, p->name);
    return put_json(body, ctype, rl_toxic_json(&t), 200);
}

static int toxics(rl_pxapi *a, const rl_http_req *rq, rl_proxy *p, const route *r,
                  hk_buf *body, const char **ctype)
{
    char msg[256];
    if (!r->toxic[0]) {
        if (rq->method == HTTP_POST)
            return add_toxic(a, rq, p, body, ctype);
        if (!rl_http_reading(rq))
            return fail(body, ctype, 405, "GET or POST");
        json_t *arr = json_array();
        for (int i = 0; i < p->ntx; i++)
            json_array_append_new(arr, rl_toxic_json(&p->tx[i]));
        return put_json(body, ctype, arr, 200);
    }
    int i = rl_proxy_find(p, r->toxic);
    if (i < 0) {
        snprintf(msg, sizeof msg, "no toxic %s on proxy %s", r->toxic, p->name);
        return fail(body, ctype, 404, msg);
    }
    if (rq->method == HTTP_DELETE) {
        said(a, "toxic %s removed from %s", r->toxic, p->name);
        rl_proxy_remove(p, r->toxic);
        return 204;
    }
    if (rq->method == HTTP_POST) {
        rl_toxic t;
        if (rl_toxic_from_json(rq->body, &p->tx[i], &t, msg, sizeof msg) < 0)
            return fail(body, ctype, 400, msg);
        if (strcmp(t.name, p->tx[i].name) && rl_proxy_find(p, t.name) >= 0)
            return fail(body, ctype, 409, "a toxic of that name exists");
        rl_proxy_set(p, i, &t);
        said(a, "toxic %s updated on %s", t.name, p->name);
    }
    return put_json(body, ctype, rl_toxic_json(&p->tx[i]), 200);
}

static int proxy_route(rl_pxapi *a, const rl_http_req *rq, hk_buf *body, const char **ctype)
{
    route r;
    char msg[200];
    if (parse_route(rq->path, &r) < 0)
        return fail(body, ctype, 404, "no such path");
    int i = rl_pxset_find(a->set, r.name);
    if (i < 0) {
        snprintf(msg, sizeof msg, "no proxy %s", r.name);
        return fail(body, ctype, 404, msg);
    }
    if (r.toxics)
        return toxics(a, rq, a->set->px[i], &r, body, ctype);
    return one_proxy(a, rq, a->set->px[i], body, ctype);
}

int rl_pxapi_page(void *user, const rl_http_req *rq, hk_buf *body, const char **ctype)
{
    rl_pxapi *a = user;
    int get = rl_http_reading(rq), post = rq->method == HTTP_POST;
    char msg[200];
    if (!strcmp(rq->path, "/metrics") && get) {
        rl_proxy_metrics(a->set->px, a->set->n, body);
        *ctype = RL_PROM_CTYPE;
        return 200;
    }
    if (!strcmp(rq->path, "/version") && get)
        return put_json(body, ctype, json_pack("{s:s}", "version", a->version), 200);
    if (!strcmp(rq->path, "/proxies") && (get || post))
        return get ? all_proxies(a->set, body, ctype) : new_proxy(a, rq, body, ctype);
    if (!strcmp(rq->path, "/populate") && post)
        return populate(a, rq, body, ctype);
    if (!strcmp(rq->path, "/reset") && post) {
        if (rl_pxset_reset(a->set, msg, sizeof msg) < 0)
            return fail(body, ctype, 500, msg);
        said(a, "reset: every toxic removed, every proxy enabled");
        return 204;
    }
    if (!strncmp(rq->path, "/proxies/", 9))
        return proxy_route(a, rq, body, ctype);
    static const char *known[] = {"/metrics", "/version", "/proxies", "/populate", "/reset"};
    for (size_t k = 0; k < sizeof known / sizeof known[0]; k++)
        if (!strcmp(rq->path, known[k]))
            return fail(body, ctype, 405, "method not allowed here");
    snprintf(msg, sizeof msg, "no such path: %.100s (try /proxies)", rq->path);
    return fail(body, ctype, 404, msg);
}
