/* tensor.c - typed element access used by constant folding and comparisons. */
#include "tensor.h"

#include <stdint.h>
#include <string.h>

static float half_to_float(uint16_t h)
{
    uint32_t sign = (uint32_t)(h >> 15) << 31, exp = (h >> 10) & 0x1f, man = h & 0x3ff, bits;
    if (exp == 0) {
        if (man == 0) {
            bits = sign;
        } else { /* subnormal: normalise */
            exp = 127 - 15 + 1;
            while (!(man & 0x400)) {
                man <<= 1;
                exp--;
            }
            bits = sign | (exp << 23) | ((man & 0x3ff) << 13);
        }
    } else if (exp == 31) {
        bits = sign | 0x7f800000u | (man << 13);
    } else {
        bits = sign | ((exp + 127 - 15) << 23) | (man << 13);
    }
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

double tensor_get_f64(DType t, const void *data, int64_t i)
{
    switch (t) {
    case DT_FLOAT32: return ((const float *)data)[i];
    case DT_FLOAT64: return ((const double *)data)[i];
    case DT_INT64: return (double)((const int64_t *)data)[i];
    case DT_INT32: return ((const int32_t *)data)[i];
    case DT_INT8: return ((const int8_t *)data)[i];
    case DT_UINT8: return ((const uint8_t *)data)[i];
    case DT_BOOL: return ((const uint8_t *)data)[i] != 0;
    case DT_FLOAT16: return half_to_float(((const uint16_t *)data)[i]);
    default: return 0;
    }
}

int64_t tensor_get_i64(DType t, const void *data, int64_t i)
{
    switch (t) {
    case DT_INT64: return ((const int64_t *)data)[i];
    case DT_INT32: return ((const int32_t *)data)[i];
    case DT_INT8: return ((const int8_t *)data)[i];
    case DT_UINT8: return ((const uint8_t *)data)[i];
    case DT_BOOL: return ((const uint8_t *)data)[i] != 0;
    default: return (int64_t)tensor_get_f64(t, data, i);
    }
}

void tensor_set_f64(DType t, void *data, int64_t i, double v)
{
    switch (t) {
    case DT_FLOAT32: ((float *)data)[i] = (float)v; break;
    case DT_FLOAT64: ((double *)data)[i] = v; break;
    case DT_BOOL: ((uint8_t *)data)[i] = v != 0; break;
    default: tensor_set_i64(t, data, i, (int64_t)v); break;
    }
}

void tensor_set_i64(DType t, void *data, int64_t i, int64_t v)
{
    switch (t) {
    case DT_INT64: ((int64_t *)data)[i] = v; break;
    case DT_INT32: ((int32_t *)data)[i] = (int32_t)v; break;
    case DT_INT8: ((int8_t *)data)[i] = (int8_t)v; break;
    case DT_UINT8: ((uint8_t *)data)[i] = (uint8_t)v; break;
    case DT_BOOL: ((uint8_t *)data)[i] = v != 0; break;
    case DT_FLOAT32: ((float *)data)[i] = (float)v; break;
    case DT_FLOAT64: ((double *)data)[i] = (double)v; break;
    default: break;
    }
}
