/* hk_rundir: the lock, the list and the finished mark of an output folder (see hk_rundir.h). */
#define _XOPEN_SOURCE 700 /* nftw */
#include "hk_rundir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include "hk_file.h"

#define LIST ".hakarma.files"
#define LOCK ".hakarma.lock"
#define DONE ".hakarma.done"

static void path_of(char *out, size_t n, const char *dir, const char *name)
{
    snprintf(out, n, "%s/%s", dir, name);
}

/* 1 when the list at fd already names entry. */
static int listed(int fd, const char *entry)
{
    char buf[8192];
    size_t n = strlen(entry), have = 0;
    ssize_t got;
    off_t at = 0;
    while ((got = pread(fd, buf + have, sizeof buf - 1 - have, at)) > 0) {
        at += got;
        have += (size_t)got;
        buf[have] = '\0';
        for (char *s = buf, *nl; (nl = strchr(s, '\n')); s = nl + 1)
            if ((size_t)(nl - s) == n && !memcmp(s, entry, n))
                return 1;
        char *last = strrchr(buf, '\n'); /* keep the unfinished line for the next read */
        size_t keep = last ? have - (size_t)(last + 1 - buf) : 0;
        memmove(buf, buf + have - keep, keep);
        have = keep < sizeof buf / 2 ? keep : 0;
    }
    return 0;
}

void hk_rundir_note(const char *dir, const char *entry)
{
    char p[1100];
    path_of(p, sizeof p, dir, LIST);
    int fd = open(p, O_RDWR | O_APPEND | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return; /* not a run's folder (or a link planted as its list: never written through) */
    char line[1100];
    int n = snprintf(line, sizeof line, "%s\n", entry);
    if (!listed(fd, entry) && n > 0 && (size_t)n < sizeof line && write(fd, line, (size_t)n) != n)
        n = -1; /* a list that could not grow: the next run's clean misses this entry */
    close(fd);
}

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *f)
{
    (void)st;
    (void)f;
    if (flag == FTW_DP)
        rmdir(p);
    else
        unlink(p);
    return 0;
}

/* 1 when dir (not a link) is the folder of a run of its own. */
static int another_run(const char *dir)
{
    struct stat st;
    if (lstat(dir, &st) < 0 || !S_ISDIR(st.st_mode))
        return 0;
    char p[1100];
    path_of(p, sizeof p, dir, LIST);
    if (lstat(p, &st) == 0)
        return 1;
    path_of(p, sizeof p, dir, DONE);
    return lstat(p, &st) == 0;
}

/* An entry of a list: a name at the folder's top ('/' at its end for a folder), never a path
 * that leaves it. */
static int safe_entry(const char *e)
{
    size_t n = strlen(e);
    if (!n || !strcmp(e, ".") || !strcmp(e, "..") || !strcmp(e, "./") || !strcmp(e, "../"))
        return 0;
    const char *slash = strchr(e, '/');
    return !slash || slash == e + n - 1;
}

void hk_rundir_clean(const char *dir)
{
    char p[1100], *buf = NULL;
    size_t len;
    hk_err e;
    path_of(p, sizeof p, dir, LIST);
    if (hk_file_read(p, &buf, &len, &e) < 0)
        return;
    for (char *s = buf, *nl; *s; s = nl + 1) {
        nl = strchr(s, '\n');
        if (!nl)
            break;
        *nl = '\0';
        if (!safe_entry(s))
            continue;
        char q[1100];
        path_of(q, sizeof q, dir, s);
        size_t n = strlen(q);
        if (q[n - 1] == '/') { /* a folder the run made: all of it is the run's */
            q[n - 1] = '\0';
            if (!another_run(q)) /* unless another run has made it its own since */
                nftw(q, rm_one, 16, FTW_DEPTH | FTW_PHYS);
            continue;
        }
        unlink(q);
        char part[1110];
        snprintf(part, sizeof part, "%s.part", q);
        unlink(part);
    }
    free(buf);
    unlink(p);
    path_of(p, sizeof p, dir, DONE);
    unlink(p);
}

/* Anything in dir besides hakarma's own bookkeeping files. */
static int has_other_files(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    int other = 0;
    for (struct dirent *e; !other && (e = readdir(d));)
        other = strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && strcmp(e->d_name, LOCK) &&
                strcmp(e->d_name, LIST) && strcmp(e->d_name, DONE);
    closedir(d);
    return other;
}

static int exists(const char *dir, const char *name)
{
    char p[1100];
    path_of(p, sizeof p, dir, name);
    return access(p, F_OK) == 0;
}

static void release(hk_rundir *r)
{
    if (r->lock_fd >= 0)
        close(r->lock_fd);
    r->lock_fd = -1;
}

/* Take the folder's lock, or say who holds it. */
static int lock(hk_rundir *r, const char *prog, hk_err *err)
{
    int dfd = hk_dir_open(r->dir, err);
    if (dfd < 0)
        return -1;
    r->lock_fd = openat(dfd, LOCK, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
    int en = errno;
    close(dfd);
    struct stat st;
    if (r->lock_fd >= 0 && (fstat(r->lock_fd, &st) < 0 || !S_ISREG(st.st_mode))) {
        close(r->lock_fd);
        r->lock_fd = -1;
        en = EINVAL;
    }
    if (r->lock_fd < 0)
        return hk_err_set(err, r->dir, 0, 0, "cannot lock the output folder: %s", en == ELOOP ?
                          LOCK " is a link (hakarma never writes through a link)" : en == EINVAL ?
                          LOCK " is not a regular file" : strerror(en));
    if (flock(r->lock_fd, LOCK_EX | LOCK_NB) < 0) {
        char who[128] = "";
        ssize_t n = pread(r->lock_fd, who, sizeof who - 1, 0);
        who[n > 0 ? n : 0] = '\0';
        who[strcspn(who, "\n")] = '\0';
        close(r->lock_fd);
        r->lock_fd = -1;
        return hk_err_set(err, r->dir, 0, 0, "is in use by another run (pid %s): one run owns "
                          "an output folder; name another with --out", who[0] ? who : "?");
    }
    char me[128];
    int n = snprintf(me, sizeof me, "%ld %s\n", (long)getpid(), prog);
    if (ftruncate(r->lock_fd, 0) < 0 || pwrite(r->lock_fd, me, (size_t)n, 0) != n)
        return hk_err_set(err, r->dir, 0, 0, "cannot write the output folder's lock: %s",
                          strerror(errno));
    return 0;
}

int hk_rundir_open(hk_rundir *r, const char *dir, const char *prog, int flags, hk_err *err)
{
    int force = flags & (HK_RUNDIR_FORCE | HK_RUNDIR_KEEP);
    snprintf(r->dir, sizeof r->dir, "%s", dir);
    r->lock_fd = -1;
    if (hk_mkdirs_unlisted(dir, err) < 0 || lock(r, prog, err) < 0)
        return -1; /* a run's folder is its own, never an entry of the folder above it */
    int listed = exists(dir, LIST);
    if (!force && exists(dir, DONE)) {
        release(r);
        return hk_err_set(err, dir, 0, 0, "holds a finished run: expected a new folder, or "
                          "--force to replace it (every file of that run is removed)");
    }
    if (!force && !listed && has_other_files(dir)) {
        release(r);
        return hk_err_set(err, dir, 0, 0, "is not empty and holds no hakarma run: expected a "
                          "new folder, or --force to write beside its files");
    }
    char p[1100];
    if (flags & HK_RUNDIR_KEEP) { /* resumed: its list goes on, it is not finished any more */
        path_of(p, sizeof p, dir, DONE);
        unlink(p);
    } else {
        hk_rundir_clean(dir); /* the run before, finished or not: none of its files survive */
    }
    path_of(p, sizeof p, dir, LIST);
    int fd = open(p, O_WRONLY | O_CREAT | O_NOFOLLOW | (flags & HK_RUNDIR_KEEP ? O_APPEND :
                  O_TRUNC) | O_CLOEXEC, 0644);
    if (fd < 0) {
        release(r);
        return hk_err_set(err, p, 0, 0, "cannot write: %s", strerror(errno));
    }
    close(fd);
    return 0;
}

void hk_rundir_release(hk_rundir *r)
{
    if (r->lock_fd >= 0 && ftruncate(r->lock_fd, 0) < 0) {
        /* the pid stays in a folder that is not finished anyway: nothing to undo */
    }
    release(r);
}

void hk_rundir_default(const char *input, const char *prefix, const char *suffix, char *out,
                       size_t n)
{
    const char *b = strrchr(input, '/');
    b = b ? b + 1 : input;
    b += strspn(b, ".");
    int len = (int)strcspn(b, ".");
    snprintf(out, n, "out/%s%.*s%s", prefix, len ? len : 8, len ? b : "scenario", suffix);
}

int hk_rundir_finished(const char *dir) { return exists(dir, DONE); }

int hk_rundir_done(hk_rundir *r, hk_err *err)
{
    int rc = hk_out_write_all(r->dir, DONE, "finished\n", 9, err);
    if (rc == 0 && ftruncate(r->lock_fd, 0) < 0) /* a finished folder names no process */
        rc = hk_err_set(err, r->dir, 0, 0, "cannot clear the output folder's lock: %s",
                        strerror(errno));
    if (rc < 0) { /* not finished after all: nothing of it may look complete */
        hk_rundir_abort(r);
        return -1;
    }
    release(r);
    return rc;
}

void hk_rundir_abort(hk_rundir *r)
{
    if (r->lock_fd >= 0)
        hk_rundir_clean(r->dir);
    release(r);
}
