/* compute_layout.c - the layout copies of ops/layout.c: ctvm.Pack (plain to
 * channel blocks, zero lanes past the channels), ctvm.Unpack (back) and
 * ctvm.PadHW (border on dims 2 and 3: zeros, or its second input's value).
 * One copy stage each; on blocked tensors the lanes are the innermost axis,
 * so PadHW vectorizes. A PadHW fused into its producer's group (pass fuse)
 * stores at compute_pad_index; schedule/ fills its border. */
#include "ops/compute.h"

Expr *compute_pad_value(ComputeCtx *cx, int node)
{
    LoopBuilder *lb = cx->lb;
    const Node *n = &cx->g->nodes[node];
    DType dt = cx->g->values[n->in[0]].dtype;
    Expr *zero = dt == DT_FLOAT32 ? lx_float(lb, 0.0) : lx_zero(lb, lt_of_dtype(dt));
    if (n->n_in < 2 || n->in[1] < 0)
        return zero;
    Expr *pad = compute_const_scalar(cx, n->in[1]);
    return pad ? lx_cast(lb, zero->type, pad) : lx_load(lb, cx->buf_of(cx, n->in[1]), lx_int(lb, 0));
}

Expr *compute_pad_index(ComputeCtx *cx, int node, LVar *const *axes)
{
    LoopBuilder *lb = cx->lb;
    const Node *n = &cx->g->nodes[node];
    const Shape *ys = &cx->g->values[n->out[0]].shape;
    Expr *at[CTVM_MAX_RANK];
    for (int i = 0; i < ys->rank; i++)
        at[i] = lx_var(lb, axes[i]);
    at[2] = lx_add(lb, at[2], lx_int(lb, n->at.layout.pads[0]));
    at[3] = lx_add(lb, at[3], lx_int(lb, n->at.layout.pads[1]));
    return compute_flat_index(cx, ys, at);
}

int compute_layout(ComputeCtx *cx, int node, ComputeDef *def)
{
    LoopBuilder *lb = cx->lb;
    const Node *n = &cx->g->nodes[node];
    const Value *x = &cx->g->values[n->in[0]], *y = &cx->g->values[n->out[0]];
    LBuf *xb = cx->buf_of(cx, n->in[0]);
    Expr *zero = x->dtype == DT_FLOAT32 ? lx_float(lb, 0.0) : lx_zero(lb, lt_of_dtype(x->dtype));
    ComputeStage *s = compute_stage_new(cx, def, n->name, cx->buf_of(cx, n->out[0]), &y->shape);
    s->out_is_node_output = 1;
    Expr *ax[CTVM_MAX_RANK];
    for (int i = 0; i < y->shape.rank; i++)
        ax[i] = lx_var(lb, s->axis[i]);
    if (n->op == OP_PACK) {
        int64_t B = y->shape.dims[4], C = x->shape.dims[1];
        Expr *c = lx_add(lb, lx_muli(lb, ax[1], B), ax[4]);
        Expr *xi[4] = {ax[0], c, ax[2], ax[3]};
        Expr *load = lx_load(lb, xb, compute_flat_index(cx, &x->shape, xi));
        s->body = C % B ? lx_select(lb, lx_bin(lb, BO_LT, c, lx_int(lb, C)), load, zero) : load;
        s->unroll_last = B <= 8; /* a small block (a 3-channel image in one of 4): one copy per lane */
    } else if (n->op == OP_UNPACK) {
        int64_t B = x->shape.dims[4];
        Expr *xi[5] = {ax[0], lx_bin(lb, BO_DIV, ax[1], lx_int(lb, B)), ax[2], ax[3],
                       lx_bin(lb, BO_MOD, ax[1], lx_int(lb, B))};
        s->body = lx_load(lb, xb, compute_flat_index(cx, &x->shape, xi));
    } else {
        const int64_t *p = n->at.layout.pads;
        Expr *xi[CTVM_MAX_RANK];
        for (int i = 0; i < y->shape.rank; i++)
            xi[i] = ax[i];
        xi[2] = lx_add(lb, ax[2], lx_int(lb, -p[0]));
        xi[3] = lx_add(lb, ax[3], lx_int(lb, -p[1]));
        /* the largest coordinate read is size - 1 + bottom/right pad */
        int64_t H = x->shape.dims[2], W = x->shape.dims[3];
        Expr *cond = compute_bound(cx, lx_int(lb, 1), xi[2], p[0], H - 1 + p[2], H);
        cond = compute_bound(cx, cond, xi[3], p[1], W - 1 + p[3], W);
        s->body = lx_select(lb, cond, lx_load(lb, xb, compute_flat_index(cx, &x->shape, xi)), compute_pad_value(cx, node));
    }
    s->finalize = lx_var(lb, s->acc);
    return 0;
}
