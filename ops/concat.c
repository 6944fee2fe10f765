/* concat.c - Concat along one axis (versions 1..13; "axis" defaults to 1
 * before version 4, required since); any dtype. Constant inputs fold by
 * byte copies (packed sub-byte types through the compute definition,
 * compute_copy.c). After infer "axis" >= 0. Every input must have the same
 * dtype and rank and agree on every dimension but the axis. */
#include <string.h>

#include "ops/op_util.h"
#include "ops/ops.h"

int op_concat_infer(Graph *g, int node, Diag *d)
{
    Node *n = &g->nodes[node];
    if (opu_check_arity(g, node, d, 1, n->n_in > 0 ? n->n_in : 1, 1, 1) || opu_check_all_inputs(g, node, d))
        return -1;
    Value *x0 = opu_in(g, node, 0);
    const Attr *ax = node_attr(n, "axis");
    if (!ax && n->version >= 4)
        return diag_error(d, g, node, "attribute axis is required");
    if (!dtype_supported(x0->dtype) || x0->dtype == DT_STRING)
        return diag_error(d, g, node, "input type %s is not supported", dtype_name(x0->dtype));
    int axis;
    if (opu_norm_axis(g, node, d, ax ? ax->i : 1, x0->shape.rank, "axis", &axis))
        return -1;
    Shape out = x0->shape;
    out.dims[axis] = 0;
    for (int i = 0; i < n->n_in; i++) {
        Value *x = opu_in(g, node, i);
        if (!x)
            return diag_error(d, g, node, "input %d is missing", i);
        if (x->dtype != x0->dtype)
            return diag_error(d, g, node, "input %d has dtype %s, input 0 %s", i,
                              dtype_name(x->dtype), dtype_name(x0->dtype));
        if (x->shape.rank != out.rank)
            return diag_error(d, g, node, "input %d %s and input 0 %s differ in rank", i,
                              opu_shape_str(&x->shape), opu_shape_str(&x0->shape));
        for (int k = 0; k < out.rank; k++)
            if (k != axis && x->shape.dims[k] != x0->shape.dims[k])
                return diag_error(d, g, node, "input %d %s does not match input 0 %s off axis %d",
                                  i, opu_shape_str(&x->shape), opu_shape_str(&x0->shape), axis);
        out.dims[axis] += x->shape.dims[axis];
    }
    node_set_int(g, node, "axis", axis);
    n->at.axis = (AxisAttrs){.axis = axis};
    opu_set_out(g, node, 0, x0->dtype, out);
    return 0;
}

int op_concat_eval(Graph *g, int node, Diag *d)
{
    const Node *n = &g->nodes[node];
    Value *yv = opu_out(g, node, 0);
    int axis = n->at.axis.axis;
    size_t es = dtype_size(yv->dtype);
    if (dtype_is_packed(yv->dtype))
        return OPS_EVAL_BY_COMPUTE;
    int64_t outer = 1, inner = 1;
    for (int k = 0; k < yv->shape.rank; k++) {
        if (k < axis)
            outer *= yv->shape.dims[k];
        if (k > axis)
            inner *= yv->shape.dims[k];
    }
    char *y = opu_alloc_out(g, node, 0, d);
    if (!y)
        return -1;
    int64_t row = yv->shape.dims[axis] * inner, at = 0; /* output elements per outer step */
    for (int i = 0; i < n->n_in; i++) {
        Value *x = opu_in(g, node, i);
        int64_t chunk = x->shape.dims[axis] * inner;
        for (int64_t o = 0; o < outer; o++)
            memcpy(y + (size_t)(o * row + at) * es, (const char *)x->data + (size_t)(o * chunk) * es,
                   (size_t)chunk * es);
        at += chunk;
    }
    return 1;
}
