/* fuzz_util.h - what the fuzz targets share: a quiet Diag, and a file that
 * holds the current input for readers that take a path (a memfd, so no
 * file system is touched; its /proc/self/fd path is a regular file).
 * Header-only (static), included by each fuzz/fuzz_*.c. */
#ifndef CTVM_FUZZ_UTIL_H
#define CTVM_FUZZ_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ir/diag.h"

/* Errors are kept in d->last, never printed: bad input is the normal case. */
static inline Diag fuzz_diag(const char *tool, const char *file)
{
    Diag d = {.tool = tool, .file = file, .quiet = 1};
    return d;
}

/* Writes data to this process's input file (one memfd, rewritten for every
 * input) and returns its path, or NULL. The readers given it do not look at
 * the file name's suffix. */
static inline const char *fuzz_input_file(const uint8_t *data, size_t size)
{
    static int fd = -1;
    static char path[64];
    if (fd < 0) {
        fd = memfd_create("ctvm-fuzz", MFD_CLOEXEC);
        if (fd < 0)
            return NULL;
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    }
    if (ftruncate(fd, 0) != 0 || (size && pwrite(fd, data, size, 0) != (ssize_t)size))
        return NULL;
    return path;
}

#endif
