/* op_table.c - names, implemented versions and flags of the operators in
 * ir/op_table.h, and the ONNX operator history (ir/onnx_op_history.inc). */
#include "op_table.h"

#include <string.h>

static const struct {
    const char *name;
    int lo, hi, flags;
} OPS[OP_COUNT] = {
    [OP_UNKNOWN] = {"?", 0, 0, 0},
#define X(e, name, fam, lo, hi, fl) [OP_##e] = {name, lo, hi, fl},
    CTVM_OPS(X)
#undef X
};

#define H_MAX 16
static const struct {
    const char *name;
    int since[H_MAX];
} HISTORY[] = {
#define H(name, ...) {name, {__VA_ARGS__, 0}},
#include "onnx_op_history.inc"
#undef H
};

OpKind op_kind_from_name(const char *onnx_name)
{
    for (int k = 1; k < OP_COUNT; k++)
        if (strcmp(OPS[k].name, onnx_name) == 0)
            return (OpKind)k;
    return OP_UNKNOWN;
}

const char *op_kind_name(OpKind k)
{
    return k > 0 && k < OP_COUNT ? OPS[k].name : "?";
}

void op_kind_versions(OpKind k, int *lo, int *hi)
{
    *lo = k > 0 && k < OP_COUNT ? OPS[k].lo : 0;
    *hi = k > 0 && k < OP_COUNT ? OPS[k].hi : 0;
}

int onnx_max_opset(void)
{
    return ONNX_HISTORY_MAX_OPSET;
}

int onnx_op_version(const char *name, int64_t opset, int *first)
{
    for (size_t i = 0; i < sizeof HISTORY / sizeof HISTORY[0]; i++) {
        if (strcmp(HISTORY[i].name, name) != 0)
            continue;
        int v = 0;
        *first = HISTORY[i].since[0];
        for (int j = 0; j < H_MAX && HISTORY[i].since[j]; j++)
            if (HISTORY[i].since[j] <= opset)
                v = HISTORY[i].since[j];
        return v;
    }
    *first = 0;
    return -1;
}

int op_is_elementwise(OpKind k)
{
    return k > 0 && k < OP_COUNT && (OPS[k].flags & OPF_E);
}

int op_takes_epilogue(OpKind k)
{
    return k > 0 && k < OP_COUNT && (OPS[k].flags & OPF_P);
}

int op_is_reshape(OpKind k)
{
    return k > 0 && k < OP_COUNT && (OPS[k].flags & OPF_V);
}
