/* npy_write.c - encoding a Tensor as an .npy image and writing .npy files.
 *
 * The header is the dict numpy itself writes, padded with spaces and a final
 * newline so that the data starts on a 64-byte boundary (numpy >= 1.x does
 * the same). Data is written in native order, which is little-endian here. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "npy_format.h"
#include "tensor_io.h"

static const char *dtype_descr(DType t)
{
    switch (t) {
    case DT_FLOAT32: return "<f4";
    case DT_FLOAT64: return "<f8";
    case DT_INT64: return "<i8";
    case DT_INT32: return "<i4";
    case DT_FLOAT16: return "<f2";
    case DT_UINT8: return "|u1";
    case DT_INT8: return "|i1";
    case DT_BOOL: return "|b1";
    default: return NULL;
    }
}

unsigned char *npy_encode(const Tensor *t, size_t *len, const char **why)
{
    const char *descr = dtype_descr(t->dtype);
    if (!descr)
        return *why = "its dtype has no .npy equivalent", NULL;
    int64_t numel, bytes;
    if (!shape_numel(&t->shape, &numel) ||
        !i64_mul(numel, (int64_t)dtype_size(t->dtype), &bytes))
        return *why = "its shape is not static or its size overflows", NULL;
    char dict[512];
    int n = snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': (",
                     descr);
    for (int i = 0; i < t->shape.rank; i++)
        n += snprintf(dict + n, sizeof dict - (size_t)n, "%lld%s", (long long)t->shape.dims[i],
                      t->shape.rank == 1 || i + 1 < t->shape.rank ? ", " : "");
    n += snprintf(dict + n, sizeof dict - (size_t)n, "), }");
    /* numpy writes "(5,)" for rank 1: turn the trailing ", " into "," */
    if (t->shape.rank == 1) {
        char *p = strstr(dict, ", ), }");
        memmove(p + 1, p + 2, strlen(p + 2) + 1);
        n--;
    }
    size_t hlen = (size_t)n + 1; /* + '\n' */
    size_t pad = (64 - (10 + hlen) % 64) % 64;
    hlen += pad;
    size_t total = 10 + hlen + (size_t)bytes;
    unsigned char *buf = malloc(total ? total : 1);
    if (!buf)
        return *why = "out of memory", NULL;
    memcpy(buf, "\x93NUMPY\x01\x00", 8);
    buf[8] = (unsigned char)(hlen & 0xff);
    buf[9] = (unsigned char)(hlen >> 8);
    memcpy(buf + 10, dict, (size_t)n);
    memset(buf + 10 + n, ' ', pad);
    buf[10 + hlen - 1] = '\n';
    if (bytes)
        memcpy(buf + 10 + hlen, t->data, (size_t)bytes);
    *len = total;
    return buf;
}

int tensor_write_npy(const char *path, const Tensor *t, Diag *d)
{
    size_t len;
    const char *why = NULL;
    unsigned char *buf = npy_encode(t, &len, &why);
    if (!buf)
        return diag_error(d, NULL, -1, "%s: cannot write tensor '%s': %s", path,
                          t->name ? t->name : "", why);
    FILE *f = fopen(path, "wb");
    if (!f) {
        free(buf);
        return diag_error(d, NULL, -1, "cannot create '%s': %s", path, strerror(errno));
    }
    size_t put = fwrite(buf, 1, len, f);
    free(buf);
    if (fclose(f) != 0 || put != len) {
        remove(path);
        return diag_error(d, NULL, -1, "%s: write error", path);
    }
    return 0;
}
