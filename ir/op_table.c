/* op_table.c - names of the operators in ir/op_table.h. */
#include "op_table.h"

#include <string.h>

static const char *const NAMES[OP_COUNT] = {
    [OP_UNKNOWN] = "?",
#define X(e, name, fam) [OP_##e] = name,
    CTVM_OPS(X)
#undef X
};

OpKind op_kind_from_name(const char *onnx_name)
{
    for (int k = 1; k < OP_COUNT; k++)
        if (strcmp(NAMES[k], onnx_name) == 0)
            return (OpKind)k;
    return OP_UNKNOWN;
}

const char *op_kind_name(OpKind k)
{
    return k > 0 && k < OP_COUNT ? NAMES[k] : "?";
}

int op_is_elementwise(OpKind k)
{
    switch (k) {
    case OP_RELU: case OP_CLIP: case OP_SIGMOID: case OP_TANH: case OP_EXP: case OP_SQRT:
    case OP_NEG: case OP_ABS: case OP_LEAKYRELU: case OP_HARDSIGMOID: case OP_HARDSWISH:
    case OP_ADD: case OP_SUB: case OP_MUL: case OP_DIV:
        return 1;
    default:
        return 0;
    }
}

int op_takes_epilogue(OpKind k)
{
    switch (k) {
    case OP_CONV: case OP_CONV_NCHWC: case OP_GEMM: case OP_MATMUL: case OP_MAXPOOL: case OP_AVGPOOL:
    case OP_GLOBALAVGPOOL: case OP_GLOBALMAXPOOL: case OP_REDUCEMEAN: case OP_REDUCESUM:
    case OP_REDUCEMAX: case OP_BATCHNORM: case OP_TRANSPOSE: case OP_SLICE:
        return 1;
    default:
        return op_is_elementwise(k);
    }
}

int op_is_reshape(OpKind k)
{
    return k == OP_RESHAPE || k == OP_FLATTEN || k == OP_SQUEEZE || k == OP_UNSQUEEZE;
}
