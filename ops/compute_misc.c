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
    return compute_fail(cx, node, "this operator must be constant-folded: its inputs are not constant");
}
