/* compute_conv.c - 2-D convolution (NCHW, groups, pads, strides, dilations,
 * optional bias) as a sum over (input channel in group, kh, kw). Padding is a
 * select that reads zero outside the input; bounds that can never be crossed
 * are dropped at definition time. */
#include "ops/compute.h"

int compute_conv(ComputeCtx *cx, int node, ComputeDef *def)
{
    LoopBuilder *lb = cx->lb;
    const Node *n = &cx->g->nodes[node];
    const Value *x = &cx->g->values[n->in[0]], *w = &cx->g->values[n->in[1]];
    const Value *y = &cx->g->values[n->out[0]];
    if (x->shape.rank != 4)
        return compute_fail(cx, node, "only 2-D convolution (NCHW) is supported");
    int k;
    const int64_t *ks = attr_ints(n, "kernel_shape", &k), *st = attr_ints(n, "strides", &k),
                  *dl = attr_ints(n, "dilations", &k), *pd = attr_ints(n, "pads", &k);
    if (!ks || !st || !dl || !pd)
        return compute_fail(cx, node, "attributes not normalised (internal error)");
    int64_t group = attr_int(n, "group", 1);
    int64_t C = x->shape.dims[1], H = x->shape.dims[2], W = x->shape.dims[3];
    int64_t OC = y->shape.dims[1], OH = y->shape.dims[2], OW = y->shape.dims[3];
    int64_t icg = C / group, ocg = OC / group;

    ComputeStage *s = compute_stage_new(cx, def, n->name, cx->buf_of(cx, n->out[0]), &y->shape);
    s->out_is_node_output = 1;
    LVar *ic = compute_add_raxis(cx, s, "ic", icg);
    LVar *kh = compute_add_raxis(cx, s, "kh", ks[0]);
    LVar *kw = compute_add_raxis(cx, s, "kw", ks[1]);
    s->red = RED_SUM;

    Expr *ih = lx_add(lb, lx_muli(lb, lx_var(lb, s->axis[2]), st[0]),
                      lx_add(lb, lx_muli(lb, lx_var(lb, kh), dl[0]), lx_int(lb, -pd[0])));
    Expr *iw = lx_add(lb, lx_muli(lb, lx_var(lb, s->axis[3]), st[1]),
                      lx_add(lb, lx_muli(lb, lx_var(lb, kw), dl[1]), lx_int(lb, -pd[1])));
    Expr *cin = lx_add(lb, lx_muli(lb, lx_bin(lb, BO_DIV, lx_var(lb, s->axis[1]), lx_int(lb, ocg)), icg),
                       lx_var(lb, ic));
    Expr *xi[4] = {lx_var(lb, s->axis[0]), cin, ih, iw};
    Expr *xload = lx_load(lb, cx->buf_of(cx, n->in[0]), compute_flat_index(cx, &x->shape, xi));
    Expr *cond = lx_int(lb, 1);
    cond = compute_bound(cx, cond, ih, pd[0], (OH - 1) * st[0] - pd[0] + (ks[0] - 1) * dl[0], H);
    cond = compute_bound(cx, cond, iw, pd[1], (OW - 1) * st[1] - pd[1] + (ks[1] - 1) * dl[1], W);
    xload = lx_select(lb, cond, xload, lx_float(lb, 0.0));
    Expr *wi[4] = {lx_var(lb, s->axis[1]), lx_var(lb, ic), lx_var(lb, kh), lx_var(lb, kw)};
    Expr *wload = lx_load(lb, cx->buf_of(cx, n->in[1]), compute_flat_index(cx, &w->shape, wi));
    s->body = lx_mul(lb, xload, wload);
    s->finalize = lx_var(lb, s->acc);
    if (n->n_in > 2 && n->in[2] >= 0) {
        Expr *bi = lx_var(lb, s->axis[1]);
        s->finalize = lx_add(lb, s->finalize, lx_load(lb, cx->buf_of(cx, n->in[2]), bi));
    }
    return 0;
}
