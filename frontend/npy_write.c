/* npy_write.c - encoding a Tensor as an .npy image and writing .npy files.
 *
 * The header is the dict numpy itself writes, padded with spaces and a final
 * newline so that the data starts on a 64-byte boundary (numpy >= 1.x does
 * the same). Data is written little-endian (native order here); types numpy
 * lacks are written as tensor_io.h says (npy_descr.c, npy_elems.c). Files
 * are written through out_file.h. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "npy_format.h"
#include "out_file.h"
#include "tensor_io.h"

unsigned char *npy_encode(const Tensor *t, size_t *len, const char **why)
{
    char descr[64];
    int item;
    if (npy_descr_for(t->dtype, descr, sizeof descr, &item))
        return *why = "its dtype has no .npy equivalent", NULL;
    int64_t numel, bytes;
    if (!shape_numel(&t->shape, &numel) || !i64_mul(numel, item, &bytes) ||
        (uint64_t)bytes > SIZE_MAX / 2)
        return *why = "its shape is not static or its size overflows", NULL;
    char dict[512];
    int n = snprintf(dict, sizeof dict, "{'descr': %s, 'fortran_order': False, 'shape': (",
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
    npy_elems_encode(t->dtype, t->data, numel, buf + 10 + hlen);
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
    int rc = out_write_all(path, buf, len, d);
    free(buf);
    return rc;
}
