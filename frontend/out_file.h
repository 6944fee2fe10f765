/* out_file.h - every file ctvm writes goes through here: model.c and model.h
 * (cli/driver.c), .npz and .npy files such as ctvm-run's --output
 * (npz_io.c, npy_write.c), ctvm-run's input files in its work folder, and
 * ctvm-tune's records, appended (tune/records.c, out_open_append).
 *
 * Rules, so a path from the command line can never destroy what is there:
 * - Only a regular file, or a name where nothing is, is ever written. A
 *   directory, device, FIFO, socket or symbolic link (even one to a regular
 *   file: it is refused, give the real path) is an error naming the path
 *   and what it is; it is left as it was.
 * - The data goes to a temporary file made by mkstemp beside the target
 *   ("<target>.tmp-XXXXXX", O_CLOEXEC, mode 0666 & ~umask) and is renamed
 *   over the target only once written completely (flush and close checked).
 * - SIGINT and SIGTERM while a temporary file exists remove it, then the
 *   process dies of the signal as it would have (exit status unchanged).
 * - Several outputs (model.c and model.h) are committed together: every
 *   temporary file is written first, every target checked again, then they
 *   are renamed in order; a target that existed is swapped in with
 *   renameat2(RENAME_EXCHANGE), so if a later rename fails the earlier ones
 *   are swapped back and the user's files are exactly what they were (a
 *   target that was new is removed again). On a file system without
 *   RENAME_EXCHANGE a plain rename is used and a later failure leaves the
 *   earlier new file in place, which the error then says. Signals are held
 *   back during the renames, so a kill leaves all old or all new files. */
#ifndef CTVM_FRONTEND_OUT_FILE_H
#define CTVM_FRONTEND_OUT_FILE_H

#include <stddef.h>
#include <stdio.h>

#include "ir/diag.h"

typedef struct OutFile {
    const char *path; /* the target, as the user gave it */
    FILE *f;          /* write here; open until out_commit or out_drop */
    int slot;         /* its temporary file's name in the cleanup table; -1 none */
} OutFile;

/* 0 if `path` names nothing or a regular file; else -1 with the reason in
 * why[], e.g. "it is a directory; only a regular file is written" (also
 * for a symbolic link). */
int out_target_check(const char *path, char *why, size_t cap);

/* out_target_check as a diagnostic: 0, or -1 after "cannot write 'P': why". */
int out_check(const char *path, Diag *d);

/* 1 if a and b name the same file (same folder and the same last name). */
int out_same_target(const char *a, const char *b);

/* Checks the target and opens a fresh temporary file beside it in o->f.
 * 0 ok; -1 after a diag_error naming the path. */
int out_open(OutFile *o, const char *path, Diag *d);

/* The temporary file's path (for tests), or NULL. */
const char *out_temp_path(const OutFile *o);

/* Closes every file of fs[0..n-1] (write errors checked), checks each target
 * again and renames the temporary files over them, as the top comment says.
 * On any failure nothing the user had is changed, every temporary file is
 * removed and -1 is returned after a diag_error naming the path. */
int out_commit_all(OutFile *const *fs, int n, Diag *d);
int out_commit(OutFile *o, Diag *d);
/* The whole of path is data[0, len): out_open, write, out_commit. 0, or -1
   after a diagnostic (and nothing changed at path). */
int out_write_all(const char *path, const void *data, size_t len, Diag *d);

/* Closes and removes the temporary file (after a failure); no-op if none. */
void out_drop(OutFile *o);

/* For appending (tuning records): opens `path` O_RDWR | O_APPEND, created
 * 0644 if it does not exist, only if it is a regular file (no symbolic link
 * followed, a FIFO refused without blocking). The descriptor, or -1 with
 * the reason in why[]. */
int out_open_append(const char *path, char *why, size_t cap);

#endif
