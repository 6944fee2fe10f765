/* npy_elems.c - .npy file elements <-> ctvm's native storage.
 *
 * Most types are the same bytes on both sides (big-endian files are swapped
 * on read; files are always written little-endian). bool is read as 0/1
 * (numpy's truth: any non-zero byte). The sub-byte types take one byte per
 * element in a file - the element's code in the low bits, as ml_dtypes keeps
 * it in memory - and are packed in native storage (element 0 in the low
 * bits of byte 0). On read a signed int4/int2 byte may also be the value
 * sign-extended (0xff for -1); any other byte outside the type is an error. */
#include <stdio.h>
#include <string.h>

#include "npy_format.h"

/* The code of a sub-byte element from its file byte, or -1. */
static int sub_byte_code(DType dt, unsigned b)
{
    unsigned n = 1u << dtype_bits(dt);
    if (b < n)
        return (int)b;
    int is_signed = dt == DT_INT4 || dt == DT_INT2;
    if (is_signed && b >= 256 - n / 2)
        return (int)(b & (n - 1));
    return -1;
}

static int decode_packed(DType dt, const unsigned char *src, int64_t numel, uint8_t *dst,
                         char *why, size_t cap)
{
    int bits = dtype_bits(dt);
    int64_t bytes;
    dtype_bytes(dt, numel, &bytes);
    memset(dst, 0, (size_t)bytes);
    for (int64_t i = 0; i < numel; i++) {
        int code = sub_byte_code(dt, src[i]);
        if (code < 0) {
            snprintf(why, cap, "element %lld is byte 0x%02x, which holds no %s (one element a "
                     "byte, 0..%u)", (long long)i, src[i], dtype_name(dt), (1u << bits) - 1);
            return -1;
        }
        int64_t bit = i * bits;
        dst[bit / 8] |= (uint8_t)(code << (bit % 8));
    }
    return 0;
}

int npy_elems_decode(const NpyType *t, const unsigned char *src, int64_t numel, void *dst,
                     char *why, size_t cap)
{
    if (dtype_is_packed(t->dt))
        return decode_packed(t->dt, src, numel, dst, why, cap);
    uint8_t *out = dst;
    if (t->dt == DT_BOOL) {
        for (int64_t i = 0; i < numel; i++)
            out[i] = src[i] != 0;
        return 0;
    }
    size_t bytes = (size_t)numel * (size_t)t->item;
    if (!t->swap) {
        if (bytes)
            memcpy(out, src, bytes);
        return 0;
    }
    for (size_t i = 0; i < bytes; i += (size_t)t->item)
        for (int k = 0; k < t->item; k++)
            out[i + (size_t)k] = src[i + (size_t)(t->item - 1 - k)];
    return 0;
}

void npy_elems_encode(DType dt, const void *src, int64_t numel, unsigned char *dst)
{
    const uint8_t *in = src;
    if (dtype_is_packed(dt)) {
        int bits = dtype_bits(dt);
        unsigned mask = (1u << bits) - 1;
        for (int64_t i = 0; i < numel; i++) {
            int64_t bit = i * bits;
            dst[i] = (unsigned char)((in[bit / 8] >> (bit % 8)) & mask);
        }
        return;
    }
    int64_t bytes;
    dtype_bytes(dt, numel, &bytes);
    if (bytes)
        memcpy(dst, in, (size_t)bytes);
}
