/* file_util.c - whole-file reads and path helpers (see file_util.h). */
#include "file_util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

int file_open_regular(const char *path, int64_t *size, char *why, size_t cap)
{
    /* O_NONBLOCK: opening a FIFO for reading with no writer would block */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        snprintf(why, cap, "cannot open '%s': %s", path, strerror(errno));
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        snprintf(why, cap, "'%s' is not a regular file", path);
        return -1;
    }
    *size = (int64_t)st.st_size;
    int fl = fcntl(fd, F_GETFL);
    if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0) {
        snprintf(why, cap, "cannot open '%s': %s", path, strerror(errno));
        close(fd);
        return -1;
    }
    return fd;
}

int file_read_all(const char *path, unsigned char **buf, size_t *len, Diag *d)
{
    *buf = NULL;
    *len = 0;
    char why[PATH_MAX + 128];
    int64_t file_size;
    int fd = file_open_regular(path, &file_size, why, sizeof why);
    if (fd < 0)
        return diag_error(d, NULL, -1, "%s", why);
    size_t size = (size_t)file_size;
    if ((int64_t)size != file_size || size == (size_t)-1) {
        close(fd);
        return diag_error(d, NULL, -1, "'%s' is too large", path);
    }
    unsigned char *p = malloc(size + 1);
    if (!p) {
        close(fd);
        return diag_error(d, NULL, -1, "'%s': out of memory reading %zu bytes", path, size);
    }
    size_t got = 0;
    while (got < size) {
        ssize_t r = read(fd, p + got, size - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    close(fd);
    if (got != size) {
        free(p);
        return diag_error(d, NULL, -1, "'%s': read error (the file changed while reading?)", path);
    }
    p[size] = 0;
    *buf = p;
    *len = size;
    return 0;
}

char *file_dirname(Arena *a, const char *path)
{
    const char *slash = path ? strrchr(path, '/') : NULL;
    if (!slash)
        return arena_strdup(a, ".");
    if (slash == path)
        return arena_strdup(a, "/");
    size_t n = (size_t)(slash - path);
    char *s = arena_alloc(a, n + 1);
    memcpy(s, path, n);
    return s;
}

int file_has_suffix(const char *name, const char *suffix)
{
    size_t n = strlen(name), k = strlen(suffix);
    return n >= k && strcasecmp(name + n - k, suffix) == 0;
}
