/* tensor.c - typed element access used by constant folding, the loop
 * interpreter and comparisons. The narrow formats convert through
 * runtime_min/ctvm_types.h, the code the generated C uses, so folding at
 * compile time and computing at run time round identically. */
#include "tensor.h"

#include <stdint.h>
#include <string.h>

#include "runtime_min/ctvm_types.h"

double tensor_get_f64(DType t, const void *data, int64_t i)
{
    switch (t) {
    case DT_FLOAT32: return ((const float *)data)[i];
    case DT_FLOAT64: return ((const double *)data)[i];
    case DT_FLOAT16: return ctvm_f16_to_f32(((const uint16_t *)data)[i]);
    case DT_BFLOAT16: return ctvm_bf16_to_f32(((const uint16_t *)data)[i]);
    case DT_FLOAT8E4M3FN: return ctvm_f8e4m3fn_to_f32(((const uint8_t *)data)[i]);
    case DT_FLOAT8E4M3FNUZ: return ctvm_f8e4m3fnuz_to_f32(((const uint8_t *)data)[i]);
    case DT_FLOAT8E5M2: return ctvm_f8e5m2_to_f32(((const uint8_t *)data)[i]);
    case DT_FLOAT8E5M2FNUZ: return ctvm_f8e5m2fnuz_to_f32(((const uint8_t *)data)[i]);
    case DT_FLOAT8E8M0: return ctvm_f8e8m0_to_f32(((const uint8_t *)data)[i]);
    case DT_FLOAT4E2M1: return ctvm_ld_f4e2m1((const uint8_t *)data, i);
    case DT_UINT64: return (double)((const uint64_t *)data)[i];
    default: return (double)tensor_get_i64(t, data, i);
    }
}

int64_t tensor_get_i64(DType t, const void *data, int64_t i)
{
    switch (t) {
    case DT_INT64: return ((const int64_t *)data)[i];
    case DT_INT32: return ((const int32_t *)data)[i];
    case DT_INT16: return ((const int16_t *)data)[i];
    case DT_INT8: return ((const int8_t *)data)[i];
    case DT_UINT64: return (int64_t)((const uint64_t *)data)[i];
    case DT_UINT32: return ((const uint32_t *)data)[i];
    case DT_UINT16: return ((const uint16_t *)data)[i];
    case DT_UINT8: return ((const uint8_t *)data)[i];
    case DT_BOOL: return ((const uint8_t *)data)[i] != 0;
    case DT_INT4: return ctvm_ld_i4((const uint8_t *)data, i);
    case DT_UINT4: return ctvm_ld_u4((const uint8_t *)data, i);
    case DT_INT2: return ctvm_ld_i2((const uint8_t *)data, i);
    case DT_UINT2: return ctvm_ld_u2((const uint8_t *)data, i);
    default: {
        double v = tensor_get_f64(t, data, i);
        if (v != v)
            return 0;
        if (v >= 9223372036854775807.0)
            return INT64_MAX;
        if (v <= -9223372036854775808.0)
            return INT64_MIN;
        return (int64_t)v;
    }
    }
}

void tensor_set_f64(DType t, void *data, int64_t i, double v)
{
    switch (t) {
    case DT_FLOAT32: ((float *)data)[i] = (float)v; break;
    case DT_FLOAT64: ((double *)data)[i] = v; break;
    case DT_BOOL: ((uint8_t *)data)[i] = v != 0; break;
    case DT_FLOAT16: ((uint16_t *)data)[i] = ctvm_f32_to_f16((float)v); break;
    case DT_BFLOAT16: ((uint16_t *)data)[i] = ctvm_f32_to_bf16((float)v); break;
    case DT_FLOAT8E4M3FN: ((uint8_t *)data)[i] = ctvm_f32_to_f8e4m3fn((float)v, 1); break;
    case DT_FLOAT8E4M3FNUZ: ((uint8_t *)data)[i] = ctvm_f32_to_f8e4m3fnuz((float)v, 1); break;
    case DT_FLOAT8E5M2: ((uint8_t *)data)[i] = ctvm_f32_to_f8e5m2((float)v, 1); break;
    case DT_FLOAT8E5M2FNUZ: ((uint8_t *)data)[i] = ctvm_f32_to_f8e5m2fnuz((float)v, 1); break;
    case DT_FLOAT8E8M0: ((uint8_t *)data)[i] = ctvm_f32_to_f8e8m0((float)v, 1, CTVM_ROUND_UP); break;
    case DT_FLOAT4E2M1: ctvm_st_f4e2m1((uint8_t *)data, i, (float)v); break;
    default: { /* integers: truncate toward zero, saturating at int64 */
        int64_t k = v != v ? 0 : v >= 9223372036854775807.0 ? INT64_MAX
                  : v <= -9223372036854775808.0 ? INT64_MIN : (int64_t)v;
        if (t == DT_UINT64 && v >= 9223372036854775808.0)
            k = (int64_t)(uint64_t)(v < 18446744073709551616.0 ? v : 18446744073709551615.0);
        tensor_set_i64(t, data, i, k);
        break;
    }
    }
}

void tensor_set_i64(DType t, void *data, int64_t i, int64_t v)
{
    switch (t) {
    case DT_INT64: ((int64_t *)data)[i] = v; break;
    case DT_INT32: ((int32_t *)data)[i] = (int32_t)(uint32_t)v; break;
    case DT_INT16: ((int16_t *)data)[i] = (int16_t)(uint16_t)v; break;
    case DT_INT8: ((int8_t *)data)[i] = (int8_t)(uint8_t)v; break;
    case DT_UINT64: ((uint64_t *)data)[i] = (uint64_t)v; break;
    case DT_UINT32: ((uint32_t *)data)[i] = (uint32_t)v; break;
    case DT_UINT16: ((uint16_t *)data)[i] = (uint16_t)v; break;
    case DT_UINT8: ((uint8_t *)data)[i] = (uint8_t)v; break;
    case DT_BOOL: ((uint8_t *)data)[i] = v != 0; break;
    case DT_INT4:
    case DT_UINT4: ctvm_st_4((uint8_t *)data, i, v); break;
    case DT_INT2:
    case DT_UINT2: ctvm_st_2((uint8_t *)data, i, v); break;
    default:
        if (dtype_is_float(t))
            tensor_set_f64(t, data, i, (double)v);
        break;
    }
}

void tensor_set_f64_mode(DType t, void *data, int64_t i, double v, int sat, int round_mode)
{
    uint8_t *b = (uint8_t *)data;
    switch (t) {
    case DT_FLOAT8E4M3FN: b[i] = ctvm_f32_to_f8e4m3fn((float)v, sat); break;
    case DT_FLOAT8E4M3FNUZ: b[i] = ctvm_f32_to_f8e4m3fnuz((float)v, sat); break;
    case DT_FLOAT8E5M2: b[i] = ctvm_f32_to_f8e5m2((float)v, sat); break;
    case DT_FLOAT8E5M2FNUZ: b[i] = ctvm_f32_to_f8e5m2fnuz((float)v, sat); break;
    case DT_FLOAT8E8M0: b[i] = ctvm_f32_to_f8e8m0((float)v, sat, round_mode); break;
    default: tensor_set_f64(t, data, i, v); break;
    }
}
