/* compute_misc.c - operators that normally disappear before code generation
 * but still get a correct definition when they do not: the shape-subgraph
 * family at run time (Gather with constant indices, Expand). */
#include "ops/compute.h"

int compute_shapeops(ComputeCtx *cx, int node, ComputeDef *def)
{
    LoopBuilder *lb = cx->lb;
    const Node *n = &cx->g->nodes[node];
    const Value *y = &cx->g->values[n->out[0]];
    const Value *x = n->n_in > 0 && n->in[0] >= 0 ? &cx->g->values[n->in[0]] : NULL;
    if (n->op == OP_EXPAND) {
        ComputeStage *s = compute_stage_new(cx, def, n->name, cx->buf_of(cx, n->out[0]), &y->shape);
        s->out_is_node_output = 1;
        s->body = compute_load_broadcast(cx, n->in[0], &y->shape, s->axis);
        return 0;
    }
    if (n->op == OP_GATHER && x && n->in[1] >= 0 && cx->g->values[n->in[1]].data) {
        /* y[pre, idx..., post] = x[pre, indices[idx...], post] */
        const Value *ind = &cx->g->values[n->in[1]];
        int axis = (int)attr_int(n, "axis", 0), ri = ind->shape.rank;
        int64_t numel = 1;
        for (int d = 0; d < ri; d++)
            numel *= ind->shape.dims[d];
        if (numel != 1)
            return compute_fail(cx, node, "Gather at run time supports a single constant index only");
        int64_t k = tensor_get_i64(ind->dtype, ind->data, 0);
        if (k < 0)
            k += x->shape.dims[axis];
        ComputeStage *s = compute_stage_new(cx, def, n->name, cx->buf_of(cx, n->out[0]), &y->shape);
        s->out_is_node_output = 1;
        Expr *xi[CTVM_MAX_RANK];
        for (int d = 0, o = 0; d < x->shape.rank; d++) {
            if (d == axis) {
                xi[d] = lx_int(lb, k);
                o += ri;
            } else {
                xi[d] = lx_var(lb, s->axis[o++]);
            }
        }
        s->body = lx_load(lb, cx->buf_of(cx, n->in[0]), compute_flat_index(cx, &x->shape, xi));
        return 0;
    }
    return compute_fail(cx, node, "this operator must be constant-folded: its inputs are not constant");
}
