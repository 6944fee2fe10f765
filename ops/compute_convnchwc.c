/* compute_convnchwc.c - ctvm.ConvNCHWc (ops/convnchwc.c) as one reduction
 * stage over the blocked output [n, ocb, oh, ow, ol]: a sum over (input
 * block in group, kh, kw, input lane), or over (kh, kw) when depthwise, plus
 * bias. Pads, when present (depthwise), read zeros through a select whose
 * condition does not depend on the lanes. It is scheduled by the blocked-conv
 * schedule (SCHED_CONV, schedule/schedule_conv.c). */
#include "ops/compute.h"

int compute_convnchwc(ComputeCtx *cx, int node, ComputeDef *def)
{
    LoopBuilder *lb = cx->lb;
    const Node *n = &cx->g->nodes[node];
    const Value *x = &cx->g->values[n->in[0]], *w = &cx->g->values[n->in[1]];
    const Value *y = &cx->g->values[n->out[0]];
    const WindowAttrs *wa = &n->at.conv.win;
    const int64_t *ks = wa->kernel;
    if (wa->n != 2 || n->at.conv.group < 1 || x->shape.rank != 5 || y->shape.rank != 5)
        return compute_fail(cx, node, "malformed ConvNCHWc (internal error)");
    int64_t G = n->at.conv.group, dwise = n->at.conv.depthwise;
    int64_t ICb = x->shape.dims[1], IB = x->shape.dims[4], OCb = y->shape.dims[1], OB = y->shape.dims[4];
    int64_t icbg = ICb / G, ocbg = OCb / G;

    ComputeStage *s = compute_stage_new(cx, def, n->name, cx->buf_of(cx, n->out[0]), &y->shape);
    s->out_is_node_output = 1;
    s->red = RED_SUM;
    s->sched = SCHED_CONV;
    Expr *nn = lx_var(lb, s->axis[0]), *ocb = lx_var(lb, s->axis[1]), *ol = lx_var(lb, s->axis[4]);
    /* reduction order: input blocks outermost; with one-channel blocks
     * (IB = 1) the channels go innermost instead, so consecutive iterations
     * read different planes (neighbouring kw would share input elements and
     * invite the C compiler to carry them in spilled scalars) */
    LVar *icb = NULL, *kh, *kw, *il = NULL;
    if (!dwise && IB > 1)
        icb = compute_add_raxis(cx, s, "icb", icbg);
    kh = compute_add_raxis(cx, s, "kh", ks[0]);
    kw = compute_add_raxis(cx, s, "kw", ks[1]);
    if (!dwise && IB == 1)
        icb = compute_add_raxis(cx, s, "icb", icbg);
    if (!dwise)
        il = compute_add_raxis(cx, s, "il", IB);
    Expr *ih, *iw, *cond = compute_window_tap(cx, s, wa, kh, kw, &x->shape, &y->shape, &ih, &iw);
    Expr *xin, *win;
    if (dwise) {
        Expr *xi[5] = {nn, ocb, ih, iw, ol};
        Expr *wi[4] = {ocb, lx_var(lb, kh), lx_var(lb, kw), ol};
        xin = compute_flat_index(cx, &x->shape, xi);
        win = compute_flat_index(cx, &w->shape, wi);
    } else {
        Expr *cb = G == 1 ? lx_var(lb, icb)
                          : lx_add(lb, lx_muli(lb, lx_bin(lb, BO_DIV, ocb, lx_int(lb, ocbg)), icbg), lx_var(lb, icb));
        Expr *xi[5] = {nn, cb, ih, iw, lx_var(lb, il)};
        Expr *wi[6] = {ocb, lx_var(lb, icb), lx_var(lb, kh), lx_var(lb, kw), lx_var(lb, il), ol};
        xin = compute_flat_index(cx, &x->shape, xi);
        win = compute_flat_index(cx, &w->shape, wi);
    }
    Expr *xload = lx_select(lb, cond, lx_load(lb, cx->buf_of(cx, n->in[0]), xin), lx_float(lb, 0.0));
    s->body = lx_mul(lb, xload, lx_load(lb, cx->buf_of(cx, n->in[1]), win));
    s->finalize = lx_var(lb, s->acc);
    if (n->n_in > 2 && n->in[2] >= 0)
        s->finalize = lx_add(lb, s->finalize,
                             lx_load(lb, cx->buf_of(cx, n->in[2]), lx_add(lb, lx_muli(lb, ocb, OB), ol)));
    return 0;
}
