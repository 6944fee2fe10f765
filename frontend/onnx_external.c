/* onnx_external.c - reading a tensor's bytes from an ONNX external data file.
 *
 * The TensorProto names the file with key/value entries: "location" (a path
 * relative to the model's folder), optional "offset" and "length" (decimal
 * byte counts). A model must not reach outside its own folder: absolute
 * locations, ".." components and symlinks resolving elsewhere are refused,
 * the file is opened only once known to be a regular file (a FIFO would
 * block), and offset/length are checked against the file's real size. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "file_util.h"
#include "onnx_tensor.h"

static int ext_err(const OnnxTensorCtx *c, const Onnx__TensorProto *tp, Diag *d,
                   const char *reason)
{
    if (!tp->name || !*tp->name)
        return diag_error(d, c->g, c->node, "%s: external data: %s", c->what, reason);
    return diag_error(d, c->g, c->node, "%s '%s': external data: %s", c->what, tp->name, reason);
}

/* A non-negative decimal integer, or -1. */
static int64_t parse_count(const char *s)
{
    if (!s || !*s)
        return -1;
    int64_t v = 0;
    for (; *s; s++) {
        if (*s < '0' || *s > '9' || v > (INT64_MAX - 9) / 10)
            return -1;
        v = v * 10 + (*s - '0');
    }
    return v;
}

/* 1 if some '/'-separated component of path is "..". */
static int has_dotdot(const char *path)
{
    const char *p = path;
    while (*p) {
        const char *end = strchr(p, '/');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        if (n == 2 && p[0] == '.' && p[1] == '.')
            return 1;
        if (!end)
            break;
        p = end + 1;
    }
    return 0;
}

/* Opens base_dir/location after checking it stays inside base_dir and is a
 * regular file; its size in *size. */
static int open_inside(const OnnxTensorCtx *c, const Onnx__TensorProto *tp, int64_t *size,
                       const char *loc, Diag *d)
{
    char why[PATH_MAX + 128];
    if (loc[0] == '/') {
        snprintf(why, sizeof why,
                 "location '%s' is an absolute path; it must be relative to the model's folder",
                 loc);
        return ext_err(c, tp, d, why);
    }
    if (has_dotdot(loc)) {
        snprintf(why, sizeof why, "location '%s' uses '..' and would leave the model's folder",
                 loc);
        return ext_err(c, tp, d, why);
    }
    char joined[PATH_MAX], base_real[PATH_MAX], file_real[PATH_MAX];
    if (snprintf(joined, sizeof joined, "%s/%s", c->base_dir, loc) >= (int)sizeof joined)
        return ext_err(c, tp, d, "location is too long");
    if (!realpath(c->base_dir, base_real)) {
        snprintf(why, sizeof why, "cannot resolve the model's folder '%s': %s", c->base_dir,
                 strerror(errno));
        return ext_err(c, tp, d, why);
    }
    if (!realpath(joined, file_real)) {
        snprintf(why, sizeof why, "cannot open '%s': %s", joined, strerror(errno));
        return ext_err(c, tp, d, why);
    }
    size_t nb = strlen(base_real);
    int inside = strcmp(base_real, "/") == 0 ||
                 (strncmp(file_real, base_real, nb) == 0 && file_real[nb] == '/');
    if (!inside) {
        snprintf(why, sizeof why, "location '%s' resolves to '%s', outside the model's folder",
                 loc, file_real);
        return ext_err(c, tp, d, why);
    }
    int fd = file_open_regular(file_real, size, why, sizeof why); /* a FIFO must not block */
    if (fd < 0)
        return ext_err(c, tp, d, why);
    return fd;
}

/* Opens the external file after all checks; *offset is where the data starts.
 * Returns the descriptor or -1. */
static int ext_open(const Onnx__TensorProto *tp, const OnnxTensorCtx *c, int64_t bytes,
                    int64_t *offset_out, Diag *d)
{
    char why[512];
    const char *loc = NULL, *off_s = NULL, *len_s = NULL;
    for (size_t i = 0; i < tp->n_external_data; i++) {
        const Onnx__StringStringEntryProto *e = tp->external_data[i];
        if (!e->key)
            continue;
        if (strcmp(e->key, "location") == 0)
            loc = e->value;
        else if (strcmp(e->key, "offset") == 0)
            off_s = e->value;
        else if (strcmp(e->key, "length") == 0)
            len_s = e->value;
    }
    if (!loc || !*loc)
        return ext_err(c, tp, d, "no 'location' entry");
    if (!c->base_dir)
        return ext_err(c, tp, d, "the model was loaded from memory, so its folder is unknown");
    int64_t offset = off_s ? parse_count(off_s) : 0;
    int64_t length = len_s ? parse_count(len_s) : -2;
    if (offset < 0 || length == -1) {
        snprintf(why, sizeof why, "bad offset '%s' or length '%s'", off_s ? off_s : "",
                 len_s ? len_s : "");
        return ext_err(c, tp, d, why);
    }
    int64_t size;
    int fd = open_inside(c, tp, &size, loc, d);
    if (fd < 0)
        return -1;
    if (length == -2)
        length = offset <= size ? size - offset : 0;
    if (offset > size || length > size - offset) {
        close(fd);
        snprintf(why, sizeof why,
                 "offset %lld + length %lld goes past the end of '%s' (%lld bytes)",
                 (long long)offset, (long long)length, loc, (long long)size);
        return ext_err(c, tp, d, why);
    }
    if (length != bytes) {
        close(fd);
        snprintf(why, sizeof why, "'%s' holds %lld bytes for it, expected %lld", loc,
                 (long long)length, (long long)bytes);
        return ext_err(c, tp, d, why);
    }
    *offset_out = offset;
    return fd;
}

int onnx_external_check(const Onnx__TensorProto *tp, const OnnxTensorCtx *c, int64_t bytes,
                        Diag *d)
{
    int64_t offset;
    int fd = ext_open(tp, c, bytes, &offset, d);
    if (fd < 0)
        return -1;
    close(fd);
    return 0;
}

int onnx_external_read(const Onnx__TensorProto *tp, const OnnxTensorCtx *c, void *dst,
                       int64_t bytes, Diag *d)
{
    int64_t offset;
    int fd = ext_open(tp, c, bytes, &offset, d);
    if (fd < 0)
        return -1;
    int64_t done = 0;
    while (done < bytes) {
        ssize_t r = pread(fd, (char *)dst + done, (size_t)(bytes - done), (off_t)(offset + done));
        if (r <= 0) {
            if (r < 0 && errno == EINTR)
                continue;
            close(fd);
            return ext_err(c, tp, d, "read error (the file changed while loading?)");
        }
        done += r;
    }
    close(fd);
    return 0;
}
