/* hk_file: file reading, relative paths, atomic output files. */
#define _XOPEN_SOURCE 700 /* S_ISVTX */
#include "hk_file.h"
#include "hk_hash.h"
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
    struct stat before, after;   /* a file rewritten while read (a rotation) is not read */
    int changed = fstat(fileno(f), &before) < 0;
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
    changed |= fstat(fileno(f), &after) < 0 || after.st_size != before.st_size ||
               after.st_mtim.tv_sec != before.st_mtim.tv_sec ||
               after.st_mtim.tv_nsec != before.st_mtim.tv_nsec;
    fclose(f);
    if (!b || bad || changed) {
        free(b);
        return hk_err_set(err, path, 0, 0, bad ? "read error" : changed ? "it changed while "
                          "it was read (rotated or rewritten?)" : "out of memory");
    }
    b[n] = '\0';
    *buf = b;
    *len = n;
    return 0;
}

int hk_file_digest(const char *path, unsigned long long *digest, long long *size, hk_err *err)
{
    if (hk_file_regular(path, err) < 0)
        return -1;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return hk_err_set(err, path, 0, 0, "cannot open: %s", strerror(errno));
    uint64_t h = HK_HASH_INIT;
    long long n = 0;
    char b[65536];
    ssize_t got;
    while ((got = read(fd, b, sizeof b)) > 0) {
        h = hk_hash(h, b, (size_t)got);
        n += got;
    }
    close(fd);
    if (got < 0)
        return hk_err_set(err, path, 0, 0, "read error: %s", strerror(errno));
    *digest = h;
    *size = n;
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

static int mkdirs(const char *path, int note, hk_err *err);

int hk_mkdirs(const char *path, hk_err *err) { return mkdirs(path, 1, err); }

int hk_mkdirs_unlisted(const char *path, hk_err *err) { return mkdirs(path, 0, err); }

static int mkdirs(const char *path, int note, hk_err *err)
{
    char p[1024];
    snprintf(p, sizeof p, "%s", path);
    for (char *s = p + 1; ; s++) {
        if (*s == '/' || *s == '\0') {
            char c = *s;
            *s = '\0';
            int made = mkdir(p, 0777) == 0;
            if (!made && errno != EEXIST)
                return hk_err_set(err, p, 0, 0, "cannot create folder: %s", strerror(errno));
            if (made && note) { /* a folder a run made is the run's: noted in its parent */
                char *slash = strrchr(p, '/'), entry[1030];
                snprintf(entry, sizeof entry, "%s/", slash ? slash + 1 : p);
                if (slash) {
                    *slash = '\0';
                    hk_rundir_note(p, entry);
                    *slash = '/';
                } else {
                    hk_rundir_note(".", entry);
                }
            }
            *s = c;
            if (!c)
                break;
        }
    }
    return 0;
}

int hk_dir_open(const char *dir, hk_err *err)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return hk_err_set(err, dir, 0, 0, "cannot write in the folder: %s",
                          errno == ELOOP || errno == ENOTDIR ? "it is a link or not a folder "
                          "(hakarma never writes through a link)" : strerror(errno));
    struct stat st;
    /* the user's own folder, or a sticky one (/tmp): where no one else can swap our entries */
    if (fstat(fd, &st) < 0 || !S_ISDIR(st.st_mode) ||
        (st.st_uid != geteuid() && !(st.st_mode & S_ISVTX))) {
        close(fd);
        return hk_err_set(err, dir, 0, 0, "cannot write in the folder: expected a folder of "
                          "user %ld (or a sticky one, as /tmp), it belongs to user %ld",
                          (long)geteuid(), (long)st.st_uid);
    }
    return fd;
}

int hk_create_at(int dfd, const char *name)
{
    for (int tries = 0; tries < 2; tries++) {
        int fd = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (fd >= 0 || errno != EEXIST)
            return fd;
        if (unlinkat(dfd, name, 0) < 0 && errno != ENOENT)
            return -1; /* a folder stands there, or it is not ours to remove */
    }
    errno = EEXIST;
    return -1;
}

FILE *hk_create_path(const char *path, hk_err *err)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0644);
    struct stat st;
    if (fd >= 0 && (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))) {
        close(fd);
        hk_err_set(err, path, 0, 0, "cannot write: expected a regular file");
        return NULL;
    }
    if (fd < 0 || ftruncate(fd, 0) < 0 || fcntl(fd, F_SETFL, 0) < 0) {
        hk_err_set(err, path, 0, 0, "cannot write: %s", errno == ELOOP ? "it is a link "
                   "(hakarma never writes through a link)" : strerror(errno));
        if (fd >= 0)
            close(fd);
        return NULL;
    }
    FILE *f = fdopen(fd, "w");
    if (!f) {
        close(fd);
        hk_err_set(err, path, 0, 0, "cannot write: %s", strerror(errno));
    }
    return f;
}

int hk_out_open(hk_out *o, const char *dir, const char *name, hk_err *err)
{
    o->f = NULL;
    o->dfd = -1;
    snprintf(o->path, sizeof o->path, "%s/%s", dir, name);
    snprintf(o->part, sizeof o->part, "%s.part", o->path);
    int n = snprintf(o->name, sizeof o->name, "%s", name);
    if (n <= 0 || (size_t)n >= sizeof o->name - 5 || strchr(name, '/'))
        return hk_err_set(err, o->path, 0, 0, "expected a file name without '/'");
    if ((o->dfd = hk_dir_open(dir, err)) < 0)
        return -1;
    hk_rundir_note(dir, name); /* listed before it exists: a killed run's part is found too */
    char part[270];
    snprintf(part, sizeof part, "%s.part", o->name);
    int fd = hk_create_at(o->dfd, part);
    if (fd < 0 || !(o->f = fdopen(fd, "w"))) {
        int en = errno;
        if (fd >= 0)
            close(fd);
        close(o->dfd);
        o->dfd = -1;
        return hk_err_set(err, o->part, 0, 0, "cannot write: %s", strerror(en));
    }
    return 0;
}

int hk_out_commit(hk_out *o, hk_err *err)
{
    if (!o->f)
        return 0;
    char part[270];
    snprintf(part, sizeof part, "%s.part", o->name);
    int bad = fflush(o->f) != 0 || ferror(o->f);
    bad |= fclose(o->f) != 0;
    o->f = NULL;
    int en = errno;
    if (bad || renameat(o->dfd, part, o->dfd, o->name) < 0) {
        en = bad ? en : errno;
        unlinkat(o->dfd, part, 0);
        close(o->dfd);
        o->dfd = -1;
        return hk_err_set(err, o->path, 0, 0, "write failed: %s", strerror(en));
    }
    close(o->dfd);
    o->dfd = -1;
    return 0;
}

void hk_out_abort(hk_out *o)
{
    if (o->f) {
        char part[270];
        snprintf(part, sizeof part, "%s.part", o->name);
        fclose(o->f);
        o->f = NULL;
        unlinkat(o->dfd, part, 0);
        close(o->dfd); /* held while f is open, and only then */
        o->dfd = -1;
    }
}

/* The whole of data written at fd's start and the file cut there: 0 or -1 (errno). */
static int rewrite(int fd, const char *data, size_t len)
{
    for (size_t off = 0; off < len;) {
        ssize_t w = pwrite(fd, data + off, len - off, (off_t)off);
        if (w <= 0)
            return -1;
        off += (size_t)w;
    }
    return ftruncate(fd, (off_t)len);
}

/* old renamed to name.part in dfd and opened for writing: an fd, or -1 when that is not a
 * regular file of one name (a link, a folder, another's: never written through), removed. */
static int reuse_open(int dfd, const char *old, const char *part)
{
    if (renameat(dfd, old, dfd, part) < 0)
        return -1;
    int fd = openat(dfd, part, O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_nlink == 1 &&
        st.st_uid == geteuid())
        return fd;
    if (fd >= 0)
        close(fd);
    unlinkat(dfd, part, 0);
    return -1;
}

int hk_out_reuse(const char *dir, const char *old, const char *name, const char *data,
                 size_t len, hk_err *err)
{
    char part[300];
    int n = snprintf(part, sizeof part, "%s.part", name);
    if (n <= 0 || (size_t)n >= sizeof part - 1 || strchr(name, '/') || strchr(old, '/'))
        return hk_out_write_all(dir, name, data, len, err);
    int dfd = hk_dir_open(dir, err);
    if (dfd < 0)
        return -1;
    int fd = reuse_open(dfd, old, part);
    if (fd < 0) {                /* old is gone either way: the new file made anew */
        unlinkat(dfd, old, 0);
        close(dfd);
        return hk_out_write_all(dir, name, data, len, err);
    }
    hk_rundir_note(dir, name);
    int bad = rewrite(fd, data, len) < 0;
    bad |= close(fd) < 0;
    int en = errno;
    if (bad || renameat(dfd, part, dfd, name) < 0) {
        en = bad ? en : errno;
        unlinkat(dfd, part, 0);
        close(dfd);
        return hk_err_set(err, dir, 0, 0, "%s: write failed: %s", name, strerror(en));
    }
    close(dfd);
    return 0;
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
