/* hk_file: file reading, relative paths, atomic output files. */
#include "hk_file.h"
#include "hk_rundir.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int hk_file_regular(const char *path, hk_err *err)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC); /* a FIFO's open would wait */
    if (fd < 0)
        return hk_err_set(err, path, 0, 0, "cannot open: %s", strerror(errno));
    struct stat st;
    int rc = fstat(fd, &st);
    close(fd);
    if (rc < 0 || !S_ISREG(st.st_mode))
        return hk_err_set(err, path, 0, 0, "expected a regular file, got %s",
                          rc < 0 ? "one that cannot be examined" : S_ISFIFO(st.st_mode) ? "a FIFO"
                          : S_ISDIR(st.st_mode) ? "a folder" : S_ISSOCK(st.st_mode) ? "a socket"
                          : "a device");
    return 0;
}

int hk_file_read(const char *path, char **buf, size_t *len, hk_err *err)
{
    if (hk_file_regular(path, err) < 0)
        return -1;
    FILE *f = fopen(path, "rb");
    if (!f)
        return hk_err_set(err, path, 0, 0, "cannot open: %s", strerror(errno));
    size_t cap = 1 << 16, n = 0;
    char *b = malloc(cap);
    for (size_t got; b && (got = fread(b + n, 1, cap - n - 1, f)) > 0;) {
        n += got;
        if (n > HK_FILE_MAX) {
            fclose(f);
            free(b);
            return hk_err_set(err, path, 0, 0, "expected a file of at most %u MiB",
                              HK_FILE_MAX >> 20);
        }
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

ssize_t hk_read_line(FILE *f, char **buf, size_t *cap, size_t max)
{
    size_t n = 0;
    int c, nul = 0;
    while ((c = getc_unlocked(f)) != EOF) {
        if (n < max) {
            if (n + 2 > *cap) {
                size_t nc = *cap ? *cap * 2 : 256;
                if (nc > max + 2)
                    nc = max + 2;
                char *p = realloc(*buf, nc);
                if (!p)
                    return HK_LINE_EIO;
                *buf = p;
                *cap = nc;
            }
            (*buf)[n] = (char)c;
        }
        if (++n > max)
            return HK_LINE_ELONG; /* fatal to the caller: read no further */
        nul |= c == 0;
        if (c == '\n')
            break;
    }
    if (ferror(f))
        return HK_LINE_EIO;
    if (n)
        (*buf)[n] = '\0';
    return nul ? HK_LINE_ENUL : (ssize_t)n;
}

int hk_line_err(hk_err *err, const char *path, long line, ssize_t code)
{
    if (code == HK_LINE_ELONG)
        return hk_err_set(err, path, (int)line, 1, "expected a line of at most %u MiB",
                          HK_LINE_MAX >> 20);
    if (code == HK_LINE_ENUL)
        return hk_err_set(err, path, (int)line, 1, "NUL byte: expected a text line");
    return hk_err_set(err, path, (int)line, 1, "read error or out of memory");
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
            if (mkdir(p, 0777) == 0) { /* a folder a run made is the run's: noted in its parent */
                char *slash = strrchr(p, '/'), entry[1030];
                snprintf(entry, sizeof entry, "%s/", slash ? slash + 1 : p);
                if (slash) {
                    *slash = '\0';
                    hk_rundir_note(p, entry);
                    *slash = '/';
                } else {
                    hk_rundir_note(".", entry);
                }
            } else if (errno != EEXIST) {
                return hk_err_set(err, p, 0, 0, "cannot create folder: %s", strerror(errno));
            }
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
    hk_rundir_note(dir, name); /* listed before it exists: a killed run's part is found too */
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
