/* hk_exec: run a `#!` config as Manticore does — the interpreter named on the
 * first line (with at most one argument) gets the file's path as its last
 * argument, and what it prints is the config — with a bounded output size
 * (HK_FILE_MAX) and a time limit, so a runaway script cannot hang or flood. */
#ifndef HK_EXEC_H
#define HK_EXEC_H

#include <stddef.h>
#include "hk_err.h"

#define HK_EXEC_TIMEOUT_MS 30000

/* shebang: the first line after "#!". On success *out is a malloc'd NUL-terminated buffer. */
int hk_exec_config(const char *path, const char *shebang, char **out, size_t *len, hk_err *err);

#endif
