/* hk_file: whole-file reads, paths relative to another file, and an output
 * folder whose files appear only when complete (written as NAME.part, then
 * renamed). Host-side helpers shared by sim/ and real/. */
#ifndef HK_FILE_H
#define HK_FILE_H

#include <stddef.h>
#include <stdio.h>
#include "hk_err.h"

#include <sys/types.h>

#define HK_FILE_MAX (16u << 20)  /* largest config or scenario read */
#define HK_LINE_MAX (1u << 20)   /* longest line of a trace, log or CSV file */

/* 0 if path is a regular file; else -1 with err naming what it is (a FIFO, a device, a
 * folder): found without blocking, before anything reads it. */
int hk_file_regular(const char *path, hk_err *err);
/* Read path (a regular file) into a NUL-terminated malloc'd buffer; a file over HK_FILE_MAX
 * bytes is an error, read no further than the limit. */
int hk_file_read(const char *path, char **buf, size_t *len, hk_err *err);
/* Read one line (its '\n' kept) into *buf, grown as needed up to max + 1 bytes. Returns its
 * length, 0 at the end, HK_LINE_EIO on a read error, HK_LINE_ELONG as soon as it is longer
 * than max (nothing more is read), HK_LINE_ENUL when it holds a NUL byte. */
enum { HK_LINE_EIO = -1, HK_LINE_ELONG = -2, HK_LINE_ENUL = -3 };
ssize_t hk_read_line(FILE *f, char **buf, size_t *cap, size_t max);
/* The error of a negative hk_read_line result at path:line; returns -1. */
int hk_line_err(hk_err *err, const char *path, long line, ssize_t code);
/* The digest (hk_hash, FNV-1a 64) and size of a regular file's bytes, read in blocks (a trace
 * of any size); -1 with err. */
int hk_file_digest(const char *path, unsigned long long *digest, long long *size, hk_err *err);
/* rel resolved against the directory of base (rel unchanged if absolute). */
void hk_path_rel(const char *base, const char *rel, char *out, size_t n);
/* mkdir -p; a folder it makes is noted in the list of the folder above it (hk_rundir_note). */
int hk_mkdirs(const char *path, hk_err *err);
/* The same without the note: a run's own output folder, never an entry of another run's. */
int hk_mkdirs_unlisted(const char *path, hk_err *err);

/* An output folder opened for writing in: its last component must not be a link, and it must
 * be a real directory owned by the user who runs hakarma (or a sticky one such as /tmp, where
 * no one else can remove or replace the user's entries). A descriptor (O_DIRECTORY), or -1
 * with err saying which rule failed. */
int hk_dir_open(const char *dir, hk_err *err);
/* name (no '/') created anew in the folder dfd for writing: openat with O_CREAT | O_EXCL |
 * O_NOFOLLOW, after removing what stood there (a stale file, or a planted link: the link itself
 * is removed, never what it points at). A descriptor, or -1 with errno. */
int hk_create_at(int dfd, const char *name);
/* The same for a path the user named (a --log file): a link at its last component is refused,
 * an existing regular file truncated. A stream, or NULL with err. */
FILE *hk_create_path(const char *path, hk_err *err);

/* A file being written inside an output folder. */
typedef struct hk_out {
    FILE *f;
    int dfd;                     /* the folder, held until commit or abort */
    char name[256];
    char path[1024];
    char part[1040];
} hk_out;

/* Open dir/name.part (hk_create_at in hk_dir_open(dir)); name holds no '/'. */
int hk_out_open(hk_out *o, const char *dir, const char *name, hk_err *err);
/* Flush, close, rename into place. Returns -1 (and removes the part) on a write error. */
int hk_out_commit(hk_out *o, hk_err *err);
/* Close and remove the partial file. */
void hk_out_abort(hk_out *o);
/* Write a whole buffer as dir/name atomically, in the file dir/old, which goes (a rotation's
 * oldest): its pages are rewritten rather than freed and allocated again (a third of the
 * kernel's time for a 1.3 MB snapshot). It is renamed to name.part, rewritten, then renamed to
 * name, so name appears complete or not at all; a reader still holding old sees it change
 * (hk_file_read refuses such a read). old not a regular file of ours with one name: removed,
 * and name written anew. 0, or -1 with err. */
int hk_out_reuse(const char *dir, const char *old, const char *name, const char *data,
                 size_t len, hk_err *err);
/* Write a whole buffer as dir/name atomically. */
int hk_out_write_all(const char *dir, const char *name, const char *data, size_t len, hk_err *err);

#endif
