/* compute_conv.c - N-D convolution (channel-first, groups, pads, strides,
 * dilations, optional bias; any float type) as a sum over (input channel in
 * group, k1..kn). Padding is a select that reads zero outside the input;
 * bounds that can never be crossed are dropped at definition time. */
#include "ops/compute.h"

ComputeStage *compute_conv_stage(ComputeCtx *cx, int node, ComputeDef *def, const ConvAttrs *ca, int x_vid,
                                 int w_vid, Expr **x_load, Expr **in_bounds, Expr **w_load)
{
    LoopBuilder *lb = cx->lb;
    const Node *n = &cx->g->nodes[node];
    const Value *x = &cx->g->values[x_vid], *w = &cx->g->values[w_vid];
    const Value *y = &cx->g->values[n->out[0]];
    int rank = x->shape.rank, ns = rank - 2;
    const int64_t *ks = ca->win.kernel, *st = ca->win.strides, *dl = ca->win.dilations, *pd = ca->win.pads;
    if (ns < 1 || ca->win.n != ns || ca->group < 1) {
        compute_fail(cx, node, "attributes not normalised (internal error)");
        return NULL;
    }
    int64_t group = ca->group;
    int64_t C = x->shape.dims[1], OC = y->shape.dims[1];
    int64_t icg = C / group, ocg = OC / group;

    ComputeStage *s = compute_stage_new(cx, def, n->name, cx->buf_of(cx, n->out[0]), &y->shape);
    if (!s) {
        compute_fail(cx, node, "too many stages");
        return NULL;
    }
    s->out_is_node_output = 1;
    LVar *ic = compute_add_raxis(cx, s, "ic", icg);
    LVar *kv[CTVM_MAX_RANK];
    for (int i = 0; i < ns; i++)
        kv[i] = compute_kernel_raxis(cx, s, ns, i, ks[i]);
    s->red = RED_SUM;

    Expr *cin = lx_add(lb, lx_muli(lb, lx_bin(lb, BO_DIV, lx_var(lb, s->axis[1]), lx_int(lb, ocg)), icg),
                       lx_var(lb, ic));
    Expr *xi[CTVM_MAX_RANK] = {lx_var(lb, s->axis[0]), cin};
    Expr *cond = lx_int(lb, 1);
    for (int i = 0; i < ns; i++) {
        xi[2 + i] = lx_add(lb, lx_muli(lb, lx_var(lb, s->axis[2 + i]), st[i]),
                           lx_add(lb, lx_muli(lb, lx_var(lb, kv[i]), dl[i]), lx_int(lb, -pd[i])));
        int64_t max_c = (y->shape.dims[2 + i] - 1) * st[i] - pd[i] + (ks[i] - 1) * dl[i];
        cond = compute_bound(cx, cond, xi[2 + i], pd[i], max_c, x->shape.dims[2 + i]);
    }
    *x_load = lx_load(lb, cx->buf_of(cx, x_vid), compute_flat_index(cx, &x->shape, xi));
    *in_bounds = cond;
    Expr *wi[CTVM_MAX_RANK] = {lx_var(lb, s->axis[1]), lx_var(lb, ic)};
    for (int i = 0; i < ns; i++)
        wi[2 + i] = lx_var(lb, kv[i]);
    *w_load = lx_load(lb, cx->buf_of(cx, w_vid), compute_flat_index(cx, &w->shape, wi));
    return s;
}

int compute_conv(ComputeCtx *cx, int node, ComputeDef *def)
{
    LoopBuilder *lb = cx->lb;
    const Node *n = &cx->g->nodes[node];
    Expr *xload, *cond, *wload;
    ComputeStage *s = compute_conv_stage(cx, node, def, &n->at.conv, n->in[0], n->in[1], &xload, &cond, &wload);
    if (!s)
        return -1;
    xload = lx_select(lb, cond, xload, lx_zero(lb, xload->type));
    s->body = lx_mul(lb, xload, wload);
    s->finalize = lx_var(lb, s->acc);
    if (n->n_in > 2 && n->in[2] >= 0) {
        Expr *bi = lx_var(lb, s->axis[1]);
        s->finalize = lx_add(lb, s->finalize, lx_load(lb, cx->buf_of(cx, n->in[2]), bi));
    }
    return 0;
}
