/* compute_reduce.c - ReduceMean / ReduceSum / ReduceMax over the normalised
 * "axes" (keepdims 0 or 1) as one reduction stage. */
#include "ops/compute.h"

int compute_reduce(ComputeCtx *cx, int node, ComputeDef *def)
{
    LoopBuilder *lb = cx->lb;
    const Node *n = &cx->g->nodes[node];
    const Value *x = &cx->g->values[n->in[0]], *y = &cx->g->values[n->out[0]];
    int n_axes = 0;
    const int64_t *axes = attr_ints(n, "axes", &n_axes);
    int keep = (int)attr_int(n, "keepdims", 1);
    int reduced[CTVM_MAX_RANK] = {0};
    if ((!axes || n_axes == 0) && attr_int(n, "noop_with_empty_axes", 0))
        return compute_reshape(cx, node, def); /* identity */
    if (!axes || n_axes == 0) { /* reduce over everything */
        for (int i = 0; i < x->shape.rank; i++)
            reduced[i] = 1;
    } else {
        for (int i = 0; i < n_axes; i++)
            if (axes[i] >= 0 && axes[i] < x->shape.rank)
                reduced[axes[i]] = 1;
    }
    ComputeStage *s = compute_stage_new(cx, def, n->name, cx->buf_of(cx, n->out[0]), &y->shape);
    s->out_is_node_output = 1;
    Expr *idx[CTVM_MAX_RANK];
    int64_t count = 1;
    for (int i = 0, oa = 0; i < x->shape.rank; i++) {
        if (reduced[i]) {
            idx[i] = lx_var(lb, compute_add_raxis(cx, s, "r", x->shape.dims[i]));
            count *= x->shape.dims[i];
            if (keep)
                oa++;
        } else {
            idx[i] = lx_var(lb, s->axis[oa++]);
        }
    }
    s->red = n->op == OP_REDUCEMAX ? RED_MAX : RED_SUM;
    s->body = lx_load(lb, cx->buf_of(cx, n->in[0]), compute_flat_index(cx, &x->shape, idx));
    s->finalize = lx_var(lb, s->acc);
    if (n->op == OP_REDUCEMEAN)
        s->finalize = lx_mul(lb, s->finalize, lx_float(lb, 1.0 / (double)count));
    return 0;
}
