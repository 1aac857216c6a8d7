/* hk_conf: lexer and parser for the sphinx.conf syntax (see hk_conf.h). */
#include "hk_conf.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include "hk_grow.h"
#include "hk_keys.h"
#include "hk_time.h"

typedef struct lex {
    const char *p, *end;
    int line, col;
    const char *file;
    hk_err *err;
} lex;

static int peek(const lex *l) { return l->p < l->end ? (unsigned char)*l->p : -1; }
static int peek2(const lex *l) { return l->p + 1 < l->end ? (unsigned char)l->p[1] : -1; }

static void adv(lex *l)
{
    if (l->p >= l->end)
        return;
    if (*l->p == '\n') {
        l->line++;
        l->col = 1;
    } else {
        l->col++;
    }
    l->p++;
}

static int fail(lex *l, const char *fmt, const char *arg)
{
    return hk_err_set(l->err, l->file, l->line, l->col, fmt, arg ? arg : "");
}

/* Skip spaces, tabs, comments and (if nl) newlines and continuations. */
static void skip_ws(lex *l, int nl)
{
    for (;;) {
        int c = peek(l);
        if (c == ' ' || c == '\t' || c == '\r' || (nl && c == '\n')) {
            adv(l);
        } else if (c == '\\' && (peek2(l) == '\n' || peek2(l) == '\r')) {
            adv(l);
            while (peek(l) == '\r')
                adv(l);
            adv(l);
        } else if (c == '#' && nl) {
            while (peek(l) != -1 && peek(l) != '\n')
                adv(l);
        } else {
            return;
        }
    }
}

static int is_word(int c) { return c != -1 && (isalnum(c) || c == '_'); }

static char *take_word(lex *l)
{
    const char *s = l->p;
    while (is_word(peek(l)))
        adv(l);
    return strndup(s, (size_t)(l->p - s));
}

static char *take_name(lex *l)
{
    const char *s = l->p;
    for (int c = peek(l); c != -1 && !isspace(c) && c != '{' && c != '#'; c = peek(l))
        adv(l);
    return strndup(s, (size_t)(l->p - s));
}

static hk_section *add_section(hk_conf *c)
{
    if (HK_GROW(c->s, c->cap, c->n + 1) < 0)
        return NULL;
    hk_section *s = &c->s[c->n++];
    memset(s, 0, sizeof *s);
    return s;
}

static hk_entry *add_entry(hk_section *s)
{
    if (HK_GROW(s->e, s->cap, s->n + 1) < 0)
        return NULL;
    hk_entry *e = &s->e[s->n++];
    memset(e, 0, sizeof *e);
    return e;
}

/* In a one-line section: does `ident ws* =` start at p (so a new key begins)? */
static int key_starts(const lex *l, const char *p)
{
    if (p >= l->end || !(isalpha((unsigned char)*p) || *p == '_'))
        return 0;
    while (p < l->end && (isalnum((unsigned char)*p) || *p == '_'))
        p++;
    while (p < l->end && (*p == ' ' || *p == '\t'))
        p++;
    return p < l->end && *p == '=';
}

typedef struct vbuf { char *s; size_t n, cap; } vbuf;

static int vput(vbuf *v, char ch)
{
    if (v->n + 2 > v->cap) {
        size_t cap = v->cap ? v->cap * 2 : 64;
        char *s = realloc(v->s, cap);
        if (!s)
            return -1;
        v->s = s;
        v->cap = cap;
    }
    v->s[v->n++] = ch;
    v->s[v->n] = '\0';
    return 0;
}

/* Read a value up to end of line (or, inline, to the next key or '}'). */
static char *take_value(lex *l, int inline_mode)
{
    vbuf v = {0};
    int depth = 0;
    vput(&v, '\0');
    v.n = 0;
    for (;;) {
        int c = peek(l);
        if (c == -1 || c == '\n')
            break;
        if (c == '\\' && (peek2(l) == '\n' || peek2(l) == '\r')) {
            skip_ws(l, 0);
            continue;
        }
        if (c == '\\' && peek2(l) == '#') {
            adv(l);
            adv(l);
            vput(&v, '#');
            continue;
        }
        if (c == '#')
            break;
        if (inline_mode && depth == 0) {
            if (c == '}')
                break;
            if ((c == ' ' || c == '\t') && key_starts(l, l->p + 1))
                break;
        }
        if (c == '(')
            depth++;
        if (c == ')' && depth > 0)
            depth--;
        if (vput(&v, (char)c) < 0)
            break;
        adv(l);
    }
    while (v.n > 0 && isspace((unsigned char)v.s[v.n - 1]))
        v.s[--v.n] = '\0';
    return v.s;
}

static int parse_entry(lex *l, hk_section *s, int inline_mode)
{
    hk_entry *e = add_entry(s);
    if (!e)
        return fail(l, "out of memory%s", NULL);
    e->line = l->line;
    e->col = l->col;
    e->key = take_word(l);
    skip_ws(l, 0);
    if (peek(l) != '=')
        return fail(l, "expected '=' after key '%s'", e->key);
    adv(l);
    skip_ws(l, 0);
    e->vline = l->line;
    e->vcol = l->col;
    e->value = take_value(l, inline_mode);
    return e->key && e->value ? 0 : fail(l, "out of memory%s", NULL);
}

static int parse_header(lex *l, hk_section *s)
{
    s->line = l->line;
    s->col = l->col;
    s->type = take_word(l);
    for (char *p = s->type; p && *p; p++) /* searchd reads section types case-insensitively */
        *p = (char)tolower((unsigned char)*p);
    skip_ws(l, 1);
    if (peek(l) != '{') {
        if (peek(l) == -1 || peek(l) == '}')
            return fail(l, "expected a name or '{' after '%s'", s->type);
        s->name = take_name(l);
        int family = !strcmp(s->type, "index") || !strcmp(s->type, "table") ||
                     !strcmp(s->type, "source");
        char *colon = family ? strchr(s->name, ':') : NULL;
        if (colon) {
            *colon = '\0';
            s->parent_name = strdup(colon + 1);
        }
        skip_ws(l, 1);
        if (family && !s->parent_name && peek(l) == ':') {
            adv(l);
            skip_ws(l, 1);
            if (!is_word(peek(l)))
                return fail(l, "expected a parent name after ':'%s", NULL);
            s->parent_name = take_word(l);
            skip_ws(l, 1);
        }
        if (s->parent_name && !s->parent_name[0])
            return fail(l, "expected a parent name after ':'%s", NULL);
    }
    if (peek(l) != '{')
        return fail(l, "expected '{' to open section '%s'", s->type);
    adv(l);
    return 0;
}

static int parse_section(lex *l, hk_conf *c)
{
    if (!(isalpha(peek(l)) || peek(l) == '_'))
        return fail(l, "expected a section (searchd, index NAME, table NAME, ...)%s", NULL);
    hk_section *s = add_section(c);
    if (!s)
        return fail(l, "out of memory%s", NULL);
    if (parse_header(l, s) < 0)
        return -1;
    int open_line = l->line, sline = s->line, scol = s->col;
    for (;;) {
        skip_ws(l, 1);
        int c0 = peek(l);
        if (c0 == '}') {
            adv(l);
            return 0;
        }
        if (c0 == -1)
            return hk_err_set(l->err, l->file, l->line, l->col,
                              "expected '}' to close section '%s' opened at line %d, column %d",
                              s->type, sline, scol);
        if (!(isalpha(c0) || c0 == '_'))
            return fail(l, "expected a key name or '}' in section '%s'", s->type);
        if (parse_entry(l, s, l->line == open_line) < 0)
            return -1;
    }
}

/* ---- section index: family ("index" for index/table) + name -> section ---- */

static const char *family(const char *type)
{
    return !strcmp(type, "table") ? "index" : type;
}

static uint64_t sec_hash(const char *type, const char *name)
{
    uint64_t h = 1469598103934665603ULL;
    for (const char *p = family(type); *p; p++)
        h = (h ^ (unsigned char)*p) * 1099511628211ULL;
    h = (h ^ 0xff) * 1099511628211ULL;
    for (const char *p = name ? name : ""; *p; p++)
        h = (h ^ (unsigned char)*p) * 1099511628211ULL;
    return h;
}

static int same_sec(const hk_section *s, const char *type, const char *name)
{
    return !strcmp(family(s->type), family(type)) &&
           ((!name && !s->name) || (name && s->name && !strcmp(name, s->name)));
}

/* Slot of (type, name) in the index: its section or an empty slot (-1). */
static size_t slot_of(const hk_conf *c, const char *type, const char *name)
{
    size_t mask = (size_t)c->hashcap - 1, k = sec_hash(type, name) & mask;
    while (c->hash[k] >= 0 && !same_sec(&c->s[c->hash[k]], type, name))
        k = (k + 1) & mask;
    return k;
}

/* Index every section; a second section of one type and name is an error, as in searchd
 * ("fault" sections excepted: a mirror may fail several times). A parent must come before its
 * child (searchd copies it when it reads the child), which also rules out cycles. */
static int index_sections(hk_conf *c, hk_err *err)
{
    c->hashcap = 16;
    while (c->hashcap < 2 * c->n)
        c->hashcap *= 2;
    c->hash = malloc((size_t)c->hashcap * sizeof *c->hash);
    if (!c->hash)
        return hk_err_set(err, c->file, 0, 0, "out of memory");
    for (int i = 0; i < c->hashcap; i++)
        c->hash[i] = -1;
    for (int i = 0; i < c->n; i++) {
        hk_section *s = &c->s[i];
        if (s->parent_name) {
            size_t p = slot_of(c, s->type, s->parent_name);
            if (c->hash[p] < 0)
                return hk_err_set(err, c->file, s->line, s->col, "inherited section '%s': parent "
                                  "doesn't exist: expected a %s '%s' defined before it", s->name,
                                  s->type, s->parent_name);
            s->parent = &c->s[c->hash[p]];
        }
        if (!strcmp(s->type, "fault"))
            continue;
        size_t k = slot_of(c, s->type, s->name);
        if (c->hash[k] >= 0) {
            const hk_section *o = &c->s[c->hash[k]];
            return hk_err_set(err, c->file, s->line, s->col, "section '%s' (type='%s') already "
                              "exists at line %d, column %d: expected one section of a name",
                              s->name ? s->name : s->type, family(s->type), o->line, o->col);
        }
        c->hash[k] = i;
    }
    return 0;
}

int hk_conf_parse(const char *text, size_t len, const char *file, hk_conf **out, hk_err *err)
{
    *out = NULL;
    hk_conf *c = calloc(1, sizeof *c);
    if (!c)
        return hk_err_set(err, file, 0, 0, "out of memory");
    c->file = strdup(file ? file : "<string>");
    lex l = {.p = text, .end = text + len, .line = 1, .col = 1, .file = c->file, .err = err};
    if (memchr(text, '\0', len)) {
        hk_conf_free(c);
        return hk_err_set(err, file, 0, (int)((const char *)memchr(text, '\0', len) - text),
                          "NUL byte: expected a text file");
    }
    for (;;) {
        skip_ws(&l, 1);
        if (peek(&l) == -1)
            break;
        if (parse_section(&l, c) < 0) {
            hk_conf_free(c);
            return -1;
        }
    }
    if (index_sections(c, err) < 0) {
        hk_conf_free(c);
        return -1;
    }
    *out = c;
    return 0;
}

void hk_conf_free(hk_conf *c)
{
    if (!c)
        return;
    for (int i = 0; i < c->n; i++) {
        hk_section *s = &c->s[i];
        for (int j = 0; j < s->n; j++) {
            free(s->e[j].key);
            free(s->e[j].value);
        }
        free(s->e);
        free(s->type);
        free(s->name);
        free(s->parent_name);
    }
    free(c->s);
    free(c->hash);
    free(c->file);
    free(c);
}

int hk_conf_is_table(const hk_section *s)
{
    return !strcmp(s->type, "index") || !strcmp(s->type, "table");
}

const hk_section *hk_conf_find(const hk_conf *c, const char *type, const char *name)
{
    if (!c->hashcap)
        return NULL;
    int i = c->hash[slot_of(c, type, name)];
    return i >= 0 ? &c->s[i] : NULL;
}

const hk_section *hk_sec_owner(const hk_section *s, const char *key)
{
    for (; s; s = s->parent)
        for (int j = 0; j < s->n; j++)
            if (!strcmp(s->e[j].key, key))
                return s;
    return NULL;
}

int hk_sec_count(const hk_section *s, const char *key)
{
    const hk_section *o = hk_sec_owner(s, key);
    int n = 0;
    for (int j = 0; o && j < o->n; j++)
        n += !strcmp(o->e[j].key, key);
    return n;
}

const hk_entry *hk_sec_get(const hk_section *s, const char *key, int i)
{
    const hk_section *o = hk_sec_owner(s, key);
    for (int j = 0; o && j < o->n; j++)
        if (!strcmp(o->e[j].key, key) && i-- == 0)
            return &o->e[j];
    return NULL;
}

const hk_entry *hk_sec_last(const hk_section *s, const char *key)
{
    int n = hk_sec_count(s, key);
    return n ? hk_sec_get(s, key, n - 1) : NULL;
}

/* ---- values and types, with their positions ---------------------------- */

int hk_conf_time(const hk_conf *c, const hk_entry *e, int64_t unit_us, int64_t *out, hk_err *err)
{
    *out = 0;
    int bad = 0;
    const char *what = "";
    if (hk_time_parse(e->value, unit_us, out, &bad, &what) < 0)
        return hk_err_set(err, c->file, e->vline, e->vcol + bad, "%s: expected %s, got '%s'",
                          e->key, what, e->value);
    return 0;
}

int hk_conf_int(const hk_conf *c, const hk_entry *e, long long min, long long max, long long *out,
                hk_err *err)
{
    *out = 0;
    int bad = 0;
    const char *what = "";
    if (hk_int_parse(e->value, min, max, out, &bad, &what) < 0)
        return hk_err_set(err, c->file, e->vline, e->vcol + bad, "%s: expected %s (%lld..%lld), "
                          "got '%s'", e->key, what, min, max, e->value);
    return 0;
}

int hk_conf_check_types(const hk_conf *c, const char *const *allowed, hk_err *err)
{
    for (int i = 0; i < c->n; i++) {
        const hk_section *s = &c->s[i];
        if (hk_word_in(s->type, allowed))
            continue;
        const char *near = hk_nearest(s->type, allowed);
        char list[256] = "";
        for (const char *const *a = allowed; *a; a++)
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", a == allowed ? ""
                     : a[1] ? ", " : " or ", *a);
        return hk_err_set(err, c->file, s->line, s->col, "unknown section type '%s'%s%s%s: "
                          "expected %s", s->type, near ? " (did you mean '" : "",
                          near ? near : "", near ? "'?)" : "", list);
    }
    return 0;
}
