/* file_util.c - whole-file reads and path helpers (see file_util.h). */
#include "file_util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

int file_read_all(const char *path, unsigned char **buf, size_t *len, Diag *d)
{
    *buf = NULL;
    *len = 0;
    FILE *f = fopen(path, "rb");
    if (!f)
        return diag_error(d, NULL, -1, "cannot open '%s': %s", path, strerror(errno));
    struct stat st;
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
        fclose(f);
        return diag_error(d, NULL, -1, "'%s' is not a regular file", path);
    }
    size_t size = (size_t)st.st_size;
    if ((off_t)size != st.st_size || size == (size_t)-1) {
        fclose(f);
        return diag_error(d, NULL, -1, "'%s' is too large", path);
    }
    unsigned char *p = malloc(size + 1);
    if (!p) {
        fclose(f);
        return diag_error(d, NULL, -1, "'%s': out of memory reading %zu bytes", path, size);
    }
    size_t got = size ? fread(p, 1, size, f) : 0;
    int err = ferror(f);
    fclose(f);
    if (got != size || err) {
        free(p);
        return diag_error(d, NULL, -1, "'%s': read error", path);
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
