/* hk_rundir: one run owns its output folder. While a run writes, the folder
 * is locked (an advisory flock on DIR/.hakarma.lock, which holds the
 * owner's pid and program: a second run refuses at once, naming them); what
 * the run writes at the folder's top is listed in DIR/.hakarma.files (a file
 * or a folder it made, a folder it made being wholly its own), so a rerun
 * removes every file of the run before it and nothing else; a run that
 * completes leaves DIR/.hakarma.done, and one that fails or is interrupted
 * removes what it wrote, so it leaves nothing that looks finished. A finished folder's lock
 * file is empty (no pid), so two identical runs' folders are identical. Nothing is written
 * through a link: the folder must be a real directory of the user's (hk_dir_open), and its
 * lock, list and files are opened with O_NOFOLLOW. A folder the list names that has become
 * another run's own folder is never removed.
 *   a new or empty folder, or one a failed run left      taken
 *   a finished run's folder                              refused without force
 *   a folder with other files and no run of hakarma's    refused without force
 * hk_out_open and hk_mkdirs note their files and folders in the list of the
 * folder they write in, when it has one. */
#ifndef HK_RUNDIR_H
#define HK_RUNDIR_H

#include <stddef.h>
#include "hk_err.h"

typedef struct hk_rundir {
    char dir[1024];
    int lock_fd;                 /* -1: not held */
} hk_rundir;

enum {
    HK_RUNDIR_FORCE = 1,         /* replace a finished run, or write beside foreign files */
    HK_RUNDIR_KEEP = 2           /* resume: keep what the run before wrote (a sweep's points) */
};
/* The default output folder of a run of input: "out/" prefix STEM suffix, STEM the file's
 * name up to its first '.' after any leading dots ("scenario" when that is empty), so a
 * default is always a folder of its own under out/, never out/ itself nor a hidden one. */
void hk_rundir_default(const char *input, const char *prefix, const char *suffix, char *out,
                       size_t n);
/* Make dir, lock it for prog, remove what an earlier run wrote there (refusing a finished run
 * or a foreign non-empty folder unless HK_RUNDIR_FORCE; keeping it with HK_RUNDIR_KEEP), and
 * start its list. -1 with err. */
int hk_rundir_open(hk_rundir *r, const char *dir, const char *prog, int flags, hk_err *err);
/* The run completed: mark the folder finished, release the lock. */
int hk_rundir_done(hk_rundir *r, hk_err *err);
/* The run stopped, keeping what it completed (a sweep's sealed points, for --resume): the
 * folder stays unfinished, its list goes on; release the lock. */
void hk_rundir_release(hk_rundir *r);
/* The run failed or was interrupted: remove what it wrote, release the lock. */
void hk_rundir_abort(hk_rundir *r);
/* 1 when dir holds a run that completed. */
int hk_rundir_finished(const char *dir);
/* Remove every file and folder dir's list names, and the list (the folder itself stays). */
void hk_rundir_clean(const char *dir);
/* Note entry (a file, or a folder when it ends with '/') in dir's list, if dir has one. */
void hk_rundir_note(const char *dir, const char *entry);

#endif
