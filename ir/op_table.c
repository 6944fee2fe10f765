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
