/* qconvnchwc.c - ctvm.QConvNCHWc, the blocked integer convolution pass
 * "layout" makes from ConvInteger (never read from a model):
 *
 *   X   [N, ICb, H, W, IB]  uint8 input in channel blocks (IB a multiple of
 *       4), already padded (ctvm.PadHW with the zero point as its value),
 *       except depthwise, which tests the bounds itself
 *   W   [OCb, ICb, KH, KW, IB/4, OB*4]  int8, packed at compile time: for
 *       each group of 4 input lanes, the 4 weights of output lane 0, then
 *       lane 1, ... (one 32-bit group per output lane: vpdpbusd / SDOT)
 *   XZ  the input's zero point (uint8 scalar, run-time or constant)
 *   WS  [OCb*OB] int32: sum of each output channel's weights, or XZ times
 *       it (at.conv.ws_scaled: a constant XZ, multiplied in by pass layout)
 *   Y   [N, OCb, OH, OW, OB] int32, or float32 (at.conv.out_float: the
 *       Cast that followed the ConvInteger folded in)
 * Attributes: kernel_shape[2], strides[2], dilations[2], pads[4]
 * (Node.at.conv.win; pads only when depthwise: a tap outside the input reads
 * xz, so it adds (xz - xz) * w = 0), group G (at.conv.group: W is [OCb, ICb/G, ...] and output
 * blocks g*OCb/G.. read input blocks g*ICb/G..; pass layout merges small
 * groups into whole blocks first). The weights' zero point is 0 (pass layout only
 * makes this node then), so
 *   y = sum((x - xz) * w) = sum(x * w) - xz * WS[oc]
 * and the sum of products is the body: 4 products of one input group and
 * one output lane's weights at a time, which lp_vectorize turns into one
 * EX_DOT per output vector. Scheduled by the blocked-conv schedule.
 * With at.conv.depthwise = 1 (one group per channel, IB = OB): W is
 * [OCb, 1, KH, KW, 1, OB], one weight per lane, and the body is the
 * widened product of lane ol of input block ocb and its weight (int32
 * multiply-adds in channel lanes, no dot product). */
#include "ops/compute.h"
#include "ops/op_util.h"
#include "ops/ops.h"

static int read_attrs(Graph *g, int node, Diag *d)
{
    Node *n = &g->nodes[node];
    int k1, k2, k3;
    const int64_t *ks = attr_ints(n, "kernel_shape", &k1), *st = attr_ints(n, "strides", &k2),
                  *dl = attr_ints(n, "dilations", &k3);
    if (!ks || !st || !dl || k1 != 2 || k2 != 2 || k3 != 2)
        return diag_error(d, g, node, "malformed QConvNCHWc (internal error)");
    WindowAttrs *wa = &n->at.conv.win;
    wa->n = 2;
    for (int i = 0; i < 2; i++) {
        wa->kernel[i] = ks[i];
        wa->strides[i] = st[i];
        wa->dilations[i] = dl[i];
    }
    int k4;
    const int64_t *pd = attr_ints(n, "pads", &k4); /* depthwise only; absent: none */
    if (pd && k4 != 4)
        return diag_error(d, g, node, "malformed QConvNCHWc (internal error)");
    for (int i = 0; i < 4; i++)
        wa->pads[i] = pd ? pd[i] : 0;
    if (!n->at.conv.depthwise && (wa->pads[0] || wa->pads[1] || wa->pads[2] || wa->pads[3]))
        return diag_error(d, g, node, "malformed QConvNCHWc (internal error)");
    n->at.conv.group = (int)attr_int(n, "group", 1); /* (at.conv.out_float and in_channels are pass layout's, as ConvNCHWc's depthwise) */
    return 0;
}

int op_qconvnchwc_infer(Graph *g, int node, Diag *d)
{
    if (opu_check_arity(g, node, d, 4, 4, 1, 1) || read_attrs(g, node, d))
        return -1;
    const Value *x = opu_in(g, node, 0), *w = opu_in(g, node, 1), *ws = opu_in(g, node, 3);
    const WindowAttrs *wa = &g->nodes[node].at.conv.win;
    if (!x || !w || !ws || x->shape.rank != 5 || w->shape.rank != 6 || x->dtype != DT_UINT8 ||
        w->dtype != DT_INT8 || ws->dtype != DT_INT32 || x->shape.dims[4] % 4)
        return diag_error(d, g, node, "malformed QConvNCHWc (internal error)");
    int dw = g->nodes[node].at.conv.depthwise != 0;
    if (dw ? w->shape.dims[1] != 1 || w->shape.dims[4] != 1 || w->shape.dims[5] != x->shape.dims[4] ||
                 w->shape.dims[0] != x->shape.dims[1]
           : g->nodes[node].at.conv.group < 1 || w->shape.dims[1] * g->nodes[node].at.conv.group != x->shape.dims[1] ||
                 w->shape.dims[0] % g->nodes[node].at.conv.group || w->shape.dims[4] * 4 != x->shape.dims[4] ||
                 w->shape.dims[5] % 4)
        return diag_error(d, g, node, "malformed QConvNCHWc (internal error)");
    int64_t OB = dw ? w->shape.dims[5] : w->shape.dims[5] / 4, OCb = w->shape.dims[0];
    int64_t H = x->shape.dims[2] + wa->pads[0] + wa->pads[2], W = x->shape.dims[3] + wa->pads[1] + wa->pads[3];
    int64_t OH = (H - wa->dilations[0] * (wa->kernel[0] - 1) - 1) / wa->strides[0] + 1;
    int64_t OW = (W - wa->dilations[1] * (wa->kernel[1] - 1) - 1) / wa->strides[1] + 1;
    if (OH < 1 || OW < 1 || ws->shape.rank != 1 || ws->shape.dims[0] != OCb * OB)
        return diag_error(d, g, node, "malformed QConvNCHWc (internal error)");
    int64_t dims[5] = {x->shape.dims[0], OCb, OH, OW, OB};
    opu_set_out(g, node, 0, g->nodes[node].at.conv.out_float ? DT_FLOAT32 : DT_INT32, shape_make(5, dims));
    return 0;
}

/* the 4-channel groups a 1x1 one-group convolution reads when its input's
   channels (at.conv.in_channels) leave whole groups of its last block
   unused; 0 otherwise */
static int64_t one_by_one_groups(const Node *n, const Value *x, const Value *w)
{
    const WindowAttrs *wa = &n->at.conv.win;
    int64_t C = n->at.conv.in_channels, IB = x->shape.dims[4], ng = (C + 3) / 4;
    if (n->at.conv.depthwise || n->at.conv.group != 1 || wa->kernel[0] != 1 || wa->kernel[1] != 1 || C <= 0 ||
        w->shape.dims[1] != x->shape.dims[1] || ng >= x->shape.dims[1] * IB / 4)
        return 0;
    return ng;
}

int compute_qconvnchwc(ComputeCtx *cx, int node, ComputeDef *def)
{
    LoopBuilder *lb = cx->lb;
    const Node *n = &cx->g->nodes[node];
    const Value *x = &cx->g->values[n->in[0]], *w = &cx->g->values[n->in[1]];
    const Value *y = &cx->g->values[n->out[0]];
    const WindowAttrs *wa = &n->at.conv.win;
    int64_t IB = x->shape.dims[4], OB = y->shape.dims[4];
    ComputeStage *s = compute_sum_stage(cx, def, node, LT_I32, SCHED_CONV);
    if (!s)
        return -1;
    Expr *nn = lx_var(lb, s->axis[0]), *ocb = lx_var(lb, s->axis[1]), *ol = lx_var(lb, s->axis[4]);
    LBuf *xb = cx->buf_of(cx, n->in[0]), *wb = cx->buf_of(cx, n->in[1]);
    Expr *xz = compute_const_scalar(cx, n->in[2]);
    xz = lx_cast(lb, LT_I32, xz ? xz : lx_load(lb, cx->buf_of(cx, n->in[2]), lx_int(lb, 0)));
    if (n->at.conv.depthwise) { /* reduction over kh, kw only: the schedule's depthwise case */
        LVar *kh = compute_add_raxis(cx, s, "kh", wa->kernel[0]);
        LVar *kw = compute_add_raxis(cx, s, "kw", wa->kernel[1]);
        Expr *ih, *iw, *cond = compute_window_tap(cx, s, wa, kh, kw, &x->shape, &y->shape, &ih, &iw);
        Expr *xi[5] = {nn, ocb, ih, iw, ol};
        Expr *wi[6] = {ocb, lx_int(lb, 0), lx_var(lb, kh), lx_var(lb, kw), lx_int(lb, 0), ol};
        /* a padded tap reads the zero point: (xz - xz) * w = 0 after the compensation */
        Expr *xv = lx_select(lb, cond, lx_cast(lb, LT_I32, lx_load(lb, xb, compute_flat_index(cx, &x->shape, xi))), xz);
        s->body = lx_mul(lb, xv, lx_cast(lb, LT_I32, lx_load(lb, wb, compute_flat_index(cx, &w->shape, wi))));
    } else if (one_by_one_groups(n, x, w) > 0) {
        /* 1x1, one group, channels short of the last block: one reduction
         * axis over the input's 4-channel groups only (block g / (IB/4),
         * group g % (IB/4)), so the groups of padding lanes, whose weights
         * are 0, are not multiplied (24 channels in blocks of 16: 6 groups
         * of 8) */
        LVar *g = compute_add_raxis(cx, s, "ig", one_by_one_groups(n, x, w));
        Expr *gb = lx_div(lb, lx_var(lb, g), lx_int(lb, IB / 4)), *gi = lx_bin(lb, BO_MOD, lx_var(lb, g), lx_int(lb, IB / 4));
        Expr *ih = lx_muli(lb, lx_var(lb, s->axis[2]), wa->strides[0]), *iw = lx_muli(lb, lx_var(lb, s->axis[3]), wa->strides[1]);
        Expr *sum = NULL;
        for (int q = 0; q < 4; q++) {
            Expr *xi[5] = {nn, gb, ih, iw, lx_add(lb, lx_muli(lb, gi, 4), lx_int(lb, q))};
            Expr *wi[6] = {ocb, gb, lx_int(lb, 0), lx_int(lb, 0), gi, lx_add(lb, lx_muli(lb, ol, 4), lx_int(lb, q))};
            Expr *p = lx_mul(lb, lx_cast(lb, LT_I32, lx_load(lb, xb, compute_flat_index(cx, &x->shape, xi))),
                             lx_cast(lb, LT_I32, lx_load(lb, wb, compute_flat_index(cx, &w->shape, wi))));
            sum = sum ? lx_add(lb, sum, p) : p;
        }
        s->body = sum;
    } else {
        LVar *icb = compute_add_raxis(cx, s, "icb", w->shape.dims[1]);
        int64_t G = n->at.conv.group, OCbg = w->shape.dims[0] / G;
        Expr *xcb = G > 1 ? lx_add(lb, lx_muli(lb, lx_div(lb, ocb, lx_int(lb, OCbg)), w->shape.dims[1]), lx_var(lb, icb))
                          : lx_var(lb, icb); /* the group's input blocks */
        LVar *kh = compute_add_raxis(cx, s, "kh", wa->kernel[0]);
        LVar *kw = compute_add_raxis(cx, s, "kw", wa->kernel[1]);
        LVar *grp = compute_add_raxis(cx, s, "ig", IB / 4);
        Expr *ih = lx_add(lb, lx_muli(lb, lx_var(lb, s->axis[2]), wa->strides[0]), lx_muli(lb, lx_var(lb, kh), wa->dilations[0]));
        Expr *iw = lx_add(lb, lx_muli(lb, lx_var(lb, s->axis[3]), wa->strides[1]), lx_muli(lb, lx_var(lb, kw), wa->dilations[1]));
        Expr *sum = NULL;
        for (int q = 0; q < 4; q++) { /* the 4 products of one input group: EX_DOT's unit */
            Expr *xi[5] = {nn, xcb, ih, iw, lx_add(lb, lx_muli(lb, lx_var(lb, grp), 4), lx_int(lb, q))};
            Expr *wi[6] = {ocb, lx_var(lb, icb), lx_var(lb, kh), lx_var(lb, kw), lx_var(lb, grp),
                           lx_add(lb, lx_muli(lb, ol, 4), lx_int(lb, q))};
            Expr *p = lx_mul(lb, lx_cast(lb, LT_I32, lx_load(lb, xb, compute_flat_index(cx, &x->shape, xi))),
                             lx_cast(lb, LT_I32, lx_load(lb, wb, compute_flat_index(cx, &w->shape, wi))));
            sum = sum ? lx_add(lb, sum, p) : p;
        }
        s->body = sum;
    }
    /* - xz * sum(w) */
    Expr *wsum = lx_load(lb, cx->buf_of(cx, n->in[3]), lx_add(lb, lx_muli(lb, ocb, OB), ol));
    Expr *fin = lx_sub(lb, lx_var(lb, s->acc), n->at.conv.ws_scaled ? wsum : lx_mul(lb, xz, wsum));
    s->finalize = n->at.conv.out_float ? lx_cast(lb, LT_F32, fin) : fin;
    return 0;
}

DEFINE_EVAL_BY_COMPUTE(qconvnchwc)
