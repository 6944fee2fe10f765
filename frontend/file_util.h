/* file_util.h - small file helpers shared by the ONNX loader and the tensor
 * readers: open only regular files, read a whole file into memory, and find
 * a file's folder.
 *
 * Errors are reported through a Diag and name the file and the reason. */
#ifndef CTVM_FRONTEND_FILE_UTIL_H
#define CTVM_FRONTEND_FILE_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "ir/arena.h"
#include "ir/diag.h"

/* Opens `path` for reading only once it is known to be a regular file (a
 * FIFO, device or folder is refused without blocking): the descriptor, with
 * the file's size in *size, or -1 with the reason (naming the path) in why. */
int file_open_regular(const char *path, int64_t *size, char *why, size_t cap);

/* Reads all of `path` into a malloc'd buffer (*buf, freed by the caller; one
 * spare NUL byte follows the data). 0 ok, -1 after a diag_error. */
int file_read_all(const char *path, unsigned char **buf, size_t *len, Diag *d);

/* The folder holding `path` ("." when it has no slash), from arena a. */
char *file_dirname(Arena *a, const char *path);

/* 1 if `name` ends with `suffix` (ASCII case-insensitive). */
int file_has_suffix(const char *name, const char *suffix);

#endif
