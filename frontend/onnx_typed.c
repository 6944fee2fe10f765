/* onnx_typed.c - a TensorProto's typed value fields (everything but raw_data
 * and external data), following onnx.proto (onnx 1.23):
 *
 *   float_data   FLOAT
 *   int64_data   INT64
 *   double_data  DOUBLE
 *   uint64_data  UINT32, UINT64
 *   int32_data   INT32, INT16, INT8, UINT16, UINT8, BOOL; FLOAT16 and BFLOAT16
 *                as their 16-bit patterns, the float8 types (and float8e8m0)
 *                as their 8-bit patterns: one element per value. INT4, UINT4
 *                and FLOAT4E2M1: one value per *byte* of the packed form, two
 *                elements a byte (element 0 in the low nibble); INT2 and
 *                UINT2: one byte of four elements (element 0 in bits 0-1).
 *
 * So a packed tensor of n elements has ceil(n * bits / 8) int32 values, each
 * a byte - exactly the bytes of its raw_data. Values must fit their type:
 * integers their range; bit patterns and packed bytes 0..2^bits-1, or the
 * same pattern sign-extended (a writer that stored the pattern as a signed
 * int16/int8 is read correctly). BOOL takes any value, non-zero meaning true,
 * as ONNX Runtime does. */
#include <stdio.h>
#include <string.h>

#include "onnx_tensor.h"

const char *onnx_typed_field(DType dt)
{
    switch (dt) {
    case DT_FLOAT32: return "float_data";
    case DT_INT64: return "int64_data";
    case DT_FLOAT64: return "double_data";
    case DT_UINT32:
    case DT_UINT64: return "uint64_data";
    default: return "int32_data";
    }
}

int onnx_typed_count(DType dt, int64_t numel, int64_t *count)
{
    if (dtype_is_packed(dt))
        return dtype_bytes(dt, numel, count); /* one value per packed byte */
    *count = numel;
    return 1;
}

/* Allowed range of an int32_data value for dt; *mask: bits kept. */
static void int32_range(DType dt, int64_t *lo, int64_t *hi, uint32_t *mask)
{
    *mask = 0xffffffffu;
    switch (dt) {
    case DT_INT8: *lo = INT8_MIN, *hi = INT8_MAX, *mask = 0xff; return;
    case DT_UINT8: *lo = 0, *hi = UINT8_MAX, *mask = 0xff; return;
    case DT_INT16: *lo = INT16_MIN, *hi = INT16_MAX, *mask = 0xffff; return;
    case DT_UINT16: *lo = 0, *hi = UINT16_MAX, *mask = 0xffff; return;
    case DT_FLOAT16:
    case DT_BFLOAT16: *lo = INT16_MIN, *hi = UINT16_MAX, *mask = 0xffff; return;
    case DT_INT32:
    case DT_BOOL: *lo = INT32_MIN, *hi = INT32_MAX; return;
    default: /* 8-bit float patterns and packed bytes */
        *lo = INT8_MIN, *hi = UINT8_MAX, *mask = 0xff;
        return;
    }
}

int onnx_typed_check(const Onnx__TensorProto *tp, DType dt, char *why, size_t cap)
{
    if (dt == DT_UINT32) {
        for (size_t i = 0; i < tp->n_uint64_data; i++)
            if (tp->uint64_data[i] > UINT32_MAX) {
                snprintf(why, cap, "uint64_data value %zu (%llu) does not fit uint32", i,
                         (unsigned long long)tp->uint64_data[i]);
                return -1;
            }
        return 0;
    }
    if (strcmp(onnx_typed_field(dt), "int32_data") != 0)
        return 0;
    int64_t lo, hi;
    uint32_t mask;
    int32_range(dt, &lo, &hi, &mask);
    for (size_t i = 0; i < tp->n_int32_data; i++) {
        int64_t v = tp->int32_data[i];
        if (v < lo || v > hi) {
            const char *what = dtype_is_packed(dt) ? " (one packed byte a value)"
                               : dtype_is_float(dt) ? " (a bit pattern)" : "";
            snprintf(why, cap, "int32_data value %zu (%lld) does not fit %s%s: expected %lld..%lld",
                     i, (long long)v, dtype_name(dt), what, (long long)lo, (long long)hi);
            return -1;
        }
    }
    return 0;
}

static void fill_int32(const int32_t *src, size_t n, DType dt, void *dst)
{
    int64_t lo, hi;
    uint32_t mask;
    int32_range(dt, &lo, &hi, &mask);
    for (size_t i = 0; i < n; i++) {
        uint32_t bits = (uint32_t)src[i] & mask;
        switch (dt) {
        case DT_INT32: ((int32_t *)dst)[i] = src[i]; break;
        case DT_BOOL: ((uint8_t *)dst)[i] = src[i] != 0; break;
        case DT_INT16:
        case DT_UINT16:
        case DT_FLOAT16:
        case DT_BFLOAT16: ((uint16_t *)dst)[i] = (uint16_t)bits; break;
        default: ((uint8_t *)dst)[i] = (uint8_t)bits; break; /* 8-bit types, packed bytes */
        }
    }
}

void onnx_typed_fill(const Onnx__TensorProto *tp, DType dt, void *dst)
{
    /* an empty field has a NULL array: memcpy(dst, NULL, 0) is undefined */
    switch (dt) {
    case DT_FLOAT32:
        if (tp->n_float_data)
            memcpy(dst, tp->float_data, tp->n_float_data * sizeof(float));
        break;
    case DT_INT64:
        if (tp->n_int64_data)
            memcpy(dst, tp->int64_data, tp->n_int64_data * sizeof(int64_t));
        break;
    case DT_FLOAT64:
        if (tp->n_double_data)
            memcpy(dst, tp->double_data, tp->n_double_data * sizeof(double));
        break;
    case DT_UINT64:
        if (tp->n_uint64_data)
            memcpy(dst, tp->uint64_data, tp->n_uint64_data * sizeof(uint64_t));
        break;
    case DT_UINT32:
        for (size_t i = 0; i < tp->n_uint64_data; i++)
            ((uint32_t *)dst)[i] = (uint32_t)tp->uint64_data[i];
        break;
    default:
        fill_int32(tp->int32_data, tp->n_int32_data, dt, dst);
        break;
    }
}
