/* compute_misc.c - the compute definition of the shape-subgraph family
 * (ops/shapeops.c). Only Expand can reach code generation: Constant,
 * ConstantOfShape and Range have constant inputs and Shape/Size a static
 * input shape, so they always fold. */
#include "ops/compute.h"

int compute_shapeops(ComputeCtx *cx, int node, ComputeDef *def)
{
    const Node *n = &cx->g->nodes[node];
    const Value *y = &cx->g->values[n->out[0]];
    if (n->op == OP_EXPAND) {
        ComputeStage *s = compute_stage_new(cx, def, n->name, cx->buf_of(cx, n->out[0]), &y->shape);
        s->out_is_node_output = 1;
        s->body = compute_load_broadcast(cx, n->in[0], &y->shape, s->axis);
        return 0;
    }
    if (n->op == OP_CONSTANTOFSHAPE && n->at.shape.shape_runtime) {
        /* a run-time shape: the whole bound holds the value (ops/dynprop.c) */
        const Attr *a = n->at.shape.value;
        ComputeStage *s = compute_stage_new(cx, def, n->name, cx->buf_of(cx, n->out[0]), &y->shape);
        s->out_is_node_output = 1;
        LType t = lt_of_dtype(y->dtype);
        if (!a || a->kind != ATTR_TENSOR || !a->t)
            s->body = lx_zero(cx->lb, t);
        else if (dtype_is_float(a->t->dtype))
            s->body = lx_const_f(cx->lb, t, tensor_get_f64(a->t->dtype, a->t->data, 0));
        else
            s->body = lx_const_i(cx->lb, t, tensor_get_i64(a->t->dtype, a->t->data, 0));
        return 0;
    }
    return compute_fail(cx, node, "this operator must be constant-folded: its inputs are not constant");
}
