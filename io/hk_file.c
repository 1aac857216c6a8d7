/* hk_file: file reading, relative paths, atomic output files. */
#include "hk_file.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int hk_file_read(const char *path, char **buf, size_t *len, hk_err *err)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return hk_err_set(err, path, 0, 0, "cannot open: %s", strerror(errno));
    size_t cap = 1 << 16, n = 0;
    char *b = malloc(cap);
    for (size_t got; b && (got = fread(b + n, 1, cap - n - 1, f)) > 0;) {
        n += got;
        if (n + 1 == cap) {
            char *nb = realloc(b, cap * 2);
            if (!nb) {
                free(b);
                b = NULL;
                break;
            }
            b = nb;
            cap *= 2;
        }
    }
    int bad = ferror(f);
    fclose(f);
    if (!b || bad) {
        free(b);
        return hk_err_set(err, path, 0, 0, bad ? "read error" : "out of memory");
    }
    b[n] = '\0';
    *buf = b;
    *len = n;
    return 0;
}

void hk_path_rel(const char *base, const char *rel, char *out, size_t n)
{
    const char *slash = strrchr(base, '/');
    if (rel[0] == '/' || !slash)
        snprintf(out, n, "%s", rel);
    else
        snprintf(out, n, "%.*s/%s", (int)(slash - base), base, rel);
}

int hk_mkdirs(const char *path, hk_err *err)
{
    char p[1024];
    snprintf(p, sizeof p, "%s", path);
    for (char *s = p + 1; ; s++) {
        if (*s == '/' || *s == '\0') {
            char c = *s;
            *s = '\0';
            if (mkdir(p, 0777) < 0 && errno != EEXIST)
                return hk_err_set(err, p, 0, 0, "cannot create folder: %s", strerror(errno));
            *s = c;
            if (!c)
                break;
        }
    }
    return 0;
}

int hk_out_open(hk_out *o, const char *dir, const char *name, hk_err *err)
{
    snprintf(o->path, sizeof o->path, "%s/%s", dir, name);
    snprintf(o->part, sizeof o->part, "%s.part", o->path);
    o->f = fopen(o->part, "w");
    if (!o->f)
        return hk_err_set(err, o->part, 0, 0, "cannot write: %s", strerror(errno));
    return 0;
}

int hk_out_commit(hk_out *o, hk_err *err)
{
    if (!o->f)
        return 0;
    int bad = fflush(o->f) != 0 || ferror(o->f);
    bad |= fclose(o->f) != 0;
    o->f = NULL;
    if (bad || rename(o->part, o->path) < 0) {
        unlink(o->part);
        return hk_err_set(err, o->path, 0, 0, "write failed: %s", strerror(errno));
    }
    return 0;
}

void hk_out_abort(hk_out *o)
{
    if (o->f) {
        fclose(o->f);
        o->f = NULL;
        unlink(o->part);
    }
}

int hk_out_write_all(const char *dir, const char *name, const char *data, size_t len, hk_err *err)
{
    hk_out o;
    if (hk_out_open(&o, dir, name, err) < 0)
        return -1;
    if (fwrite(data, 1, len, o.f) != len) {
        hk_out_abort(&o);
        return hk_err_set(err, o.path, 0, 0, "write failed");
    }
    return hk_out_commit(&o, err);
}
