/* dtype.c - sizes, names, ONNX codes, C types and compute types of the
 * element types (one table). */
#include "dtype.h"

#include <string.h>

static const struct {
    DType t;
    int bits;          /* 0: not supported at run time */
    const char *name;
    int onnx;          /* TensorProto.DataType */
    DType compute;
    const char *ctype; /* storage unit */
    char kind;         /* 'f' float, 'i' signed int, 'u' unsigned int, 'b' bool, '-' unsupported */
} TABLE[] = {
    {DT_UNDEFINED, 0, "undefined", 0, DT_UNDEFINED, "void", '-'},
    {DT_FLOAT32, 32, "float32", 1, DT_FLOAT32, "float", 'f'},
    {DT_INT64, 64, "int64", 7, DT_INT64, "int64_t", 'i'},
    {DT_INT32, 32, "int32", 6, DT_INT32, "int32_t", 'i'},
    {DT_INT8, 8, "int8", 3, DT_INT8, "int8_t", 'i'},
    {DT_UINT8, 8, "uint8", 2, DT_UINT8, "uint8_t", 'u'},
    {DT_FLOAT16, 16, "float16", 10, DT_FLOAT32, "uint16_t", 'f'},
    {DT_BOOL, 8, "bool", 9, DT_BOOL, "uint8_t", 'b'},
    {DT_FLOAT64, 64, "float64", 11, DT_FLOAT64, "double", 'f'},
    {DT_INT16, 16, "int16", 5, DT_INT16, "int16_t", 'i'},
    {DT_UINT16, 16, "uint16", 4, DT_UINT16, "uint16_t", 'u'},
    {DT_UINT32, 32, "uint32", 12, DT_UINT32, "uint32_t", 'u'},
    {DT_UINT64, 64, "uint64", 13, DT_UINT64, "uint64_t", 'u'},
    {DT_BFLOAT16, 16, "bfloat16", 16, DT_FLOAT32, "uint16_t", 'f'},
    {DT_FLOAT8E4M3FN, 8, "float8e4m3fn", 17, DT_FLOAT32, "uint8_t", 'f'},
    {DT_FLOAT8E4M3FNUZ, 8, "float8e4m3fnuz", 18, DT_FLOAT32, "uint8_t", 'f'},
    {DT_FLOAT8E5M2, 8, "float8e5m2", 19, DT_FLOAT32, "uint8_t", 'f'},
    {DT_FLOAT8E5M2FNUZ, 8, "float8e5m2fnuz", 20, DT_FLOAT32, "uint8_t", 'f'},
    {DT_FLOAT8E8M0, 8, "float8e8m0", 24, DT_FLOAT32, "uint8_t", 'f'},
    {DT_FLOAT4E2M1, 4, "float4e2m1", 23, DT_FLOAT32, "uint8_t", 'f'},
    {DT_INT4, 4, "int4", 22, DT_INT8, "uint8_t", 'i'},
    {DT_UINT4, 4, "uint4", 21, DT_UINT8, "uint8_t", 'u'},
    {DT_INT2, 2, "int2", 26, DT_INT8, "uint8_t", 'i'},
    {DT_UINT2, 2, "uint2", 25, DT_UINT8, "uint8_t", 'u'},
    {DT_STRING, 0, "string", 8, DT_UNDEFINED, "void", '-'},
    {DT_COMPLEX64, 0, "complex64", 14, DT_UNDEFINED, "void", '-'},
    {DT_COMPLEX128, 0, "complex128", 15, DT_UNDEFINED, "void", '-'},
};
enum { N = sizeof TABLE / sizeof TABLE[0] };

static int row(DType t)
{
    return (int)t >= 0 && (int)t < N && TABLE[t].t == t ? (int)t : 0;
}

size_t dtype_size(DType t)
{
    int b = TABLE[row(t)].bits;
    return b >= 8 ? (size_t)b / 8 : 0;
}

int dtype_bits(DType t)
{
    return TABLE[row(t)].bits;
}

int dtype_bytes(DType t, int64_t n, int64_t *bytes)
{
    int b = dtype_bits(t);
    *bytes = 0;
    if (b == 0 || n < 0 || n > INT64_MAX / 64)
        return 0;
    *bytes = (n * b + 7) / 8;
    return 1;
}

const char *dtype_name(DType t)
{
    return TABLE[row(t)].name;
}

DType dtype_from_name(const char *name)
{
    for (int i = 1; i < N; i++)
        if (strcmp(TABLE[i].name, name) == 0)
            return TABLE[i].t;
    return DT_UNDEFINED;
}

DType dtype_from_onnx(int code)
{
    for (int i = 1; i < N; i++)
        if (TABLE[i].onnx == code)
            return TABLE[i].t;
    return DT_UNDEFINED;
}

int dtype_to_onnx(DType t)
{
    return TABLE[row(t)].onnx;
}

int dtype_supported(DType t)
{
    return TABLE[row(t)].bits > 0;
}

DType dtype_compute(DType t)
{
    return TABLE[row(t)].compute;
}

const char *dtype_c_storage(DType t)
{
    return TABLE[row(t)].ctype;
}

int dtype_is_float(DType t)
{
    return TABLE[row(t)].kind == 'f';
}

int dtype_is_int(DType t)
{
    char k = TABLE[row(t)].kind;
    return k == 'i' || k == 'u';
}

int dtype_is_signed(DType t)
{
    char k = TABLE[row(t)].kind;
    return k == 'i' || k == 'f';
}

int dtype_is_packed(DType t)
{
    int b = TABLE[row(t)].bits;
    return b > 0 && b < 8;
}
