/* hk_file: whole-file reads, paths relative to another file, and an output
 * folder whose files appear only when complete (written as NAME.part, then
 * renamed). Host-side helpers shared by sim/ and real/. */
#ifndef HK_FILE_H
#define HK_FILE_H

#include <stddef.h>
#include <stdio.h>
#include "hk_err.h"

/* Read path into a NUL-terminated malloc'd buffer. */
int hk_file_read(const char *path, char **buf, size_t *len, hk_err *err);
/* rel resolved against the directory of base (rel unchanged if absolute). */
void hk_path_rel(const char *base, const char *rel, char *out, size_t n);
/* mkdir -p. */
int hk_mkdirs(const char *path, hk_err *err);

/* A file being written inside an output folder. */
typedef struct hk_out {
    FILE *f;
    char path[1024];
    char part[1040];
} hk_out;

int hk_out_open(hk_out *o, const char *dir, const char *name, hk_err *err);
/* Flush, close, rename into place. Returns -1 (and removes the part) on a write error. */
int hk_out_commit(hk_out *o, hk_err *err);
/* Close and remove the partial file. */
void hk_out_abort(hk_out *o);
/* Write a whole buffer as dir/name atomically. */
int hk_out_write_all(const char *dir, const char *name, const char *data, size_t len, hk_err *err);

#endif
