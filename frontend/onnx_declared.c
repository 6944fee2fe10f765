/* onnx_declared.c - the shapes a model declares for its values (graph
 * inputs and outputs, value_info, subgraph inputs and outputs), checked
 * against ctvm's limits before anything uses them: rank at most
 * CTVM_MAX_RANK, every dim_value at most ONNX_MAX_DIM, and - where the
 * declared shape is used (a graph input) - no negative dim but -1, which
 * paddle2onnx writes for "unknown". Only runtime inputs' shapes are used
 * as declared; the others are checked because a file declaring a dimension
 * of 2^40 is damaged or hostile either way. */
#include <stdio.h>

#include "onnx_internal.h"
#include "onnx_limits.h"

int onnx_declared_check(OnnxLoadCtx *c, const char *what, const Onnx__ValueInfoProto *vi,
                        int strict)
{
    const char *name = vi->name ? vi->name : "";
    const Onnx__TypeProto *tp = vi->type;
    if (!tp || tp->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE || !tp->tensor_type ||
        !tp->tensor_type->shape)
        return 0;
    const Onnx__TensorShapeProto *sp = tp->tensor_type->shape;
    if (sp->n_dim > CTVM_MAX_RANK)
        return diag_error(c->d, c->g, -1, "%s '%s' has rank %zu; ctvm's limit is %d", what, name,
                          sp->n_dim, CTVM_MAX_RANK);
    for (size_t i = 0; i < sp->n_dim; i++) {
        const Onnx__TensorShapeProto__Dimension *dim = sp->dim[i];
        if (dim->value_case != ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE)
            continue;
        if (dim->dim_value > ONNX_MAX_DIM)
            return diag_error(c->d, c->g, -1,
                              "%s '%s' declares dimension %lld at axis %zu, above ctvm's limit "
                              "of %lld", what, name, (long long)dim->dim_value, i,
                              (long long)ONNX_MAX_DIM);
        if (strict && dim->dim_value < -1)
            return diag_error(c->d, c->g, -1,
                              "%s '%s' declares a negative dimension %lld at axis %zu (a "
                              "dimension is >= 0, or -1 for unknown)", what, name,
                              (long long)dim->dim_value, i);
    }
    return 0;
}

int onnx_declared_check_all(OnnxLoadCtx *c, const Onnx__GraphProto *gp)
{
    for (size_t i = 0; i < gp->n_output; i++)
        if (onnx_declared_check(c, c->is_subgraph ? "subgraph output" : "graph output",
                                gp->output[i], 0))
            return -1;
    for (size_t i = 0; i < gp->n_value_info; i++)
        if (onnx_declared_check(c, "value_info", gp->value_info[i], 0))
            return -1;
    return 0;
}
