/* dtype.c - sizes, names and ONNX codes of the element types. */
#include "dtype.h"

static const struct {
    DType t;
    size_t size;
    const char *name;
    int onnx; /* TensorProto.DataType */
} TABLE[] = {
    {DT_UNDEFINED, 0, "undefined", 0}, {DT_FLOAT32, 4, "float32", 1},
    {DT_UINT8, 1, "uint8", 2},         {DT_INT8, 1, "int8", 3},
    {DT_INT32, 4, "int32", 6},         {DT_INT64, 8, "int64", 7},
    {DT_BOOL, 1, "bool", 9},           {DT_FLOAT16, 2, "float16", 10},
    {DT_FLOAT64, 8, "float64", 11},
};
enum { N = sizeof TABLE / sizeof TABLE[0] };

size_t dtype_size(DType t)
{
    for (int i = 0; i < N; i++)
        if (TABLE[i].t == t)
            return TABLE[i].size;
    return 0;
}

const char *dtype_name(DType t)
{
    for (int i = 0; i < N; i++)
        if (TABLE[i].t == t)
            return TABLE[i].name;
    return "undefined";
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
    for (int i = 0; i < N; i++)
        if (TABLE[i].t == t)
            return TABLE[i].onnx;
    return 0;
}
