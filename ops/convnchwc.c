/* convnchwc.c - ctvm.ConvNCHWc, the blocked convolution pass "layout" makes
 * from Conv (never read from a model):
 *
 *   X  [N, ICb, H, W, IB]   input in channel blocks (IB = 1: plain channels)
 *   W  [OCb, ICb/G, KH, KW, IB, OB]  packed at compile time; depthwise = 1:
 *      [OCb, KH, KW, OB] (one input lane per output lane, IB = OB)
 *   B  [OCb*OB] optional bias, zero past the real channels
 *   Y  [N, OCb, OH, OW, OB]
 * Attributes: kernel_shape[2], strides[2], dilations[2], pads[4] (top,
 * left, bottom, right; zeros read outside the input), group G (in
 * blocks: output blocks g*OCb/G.. read input blocks g*ICb/G..), typed in
 * Node.at.conv with depthwise (pass layout keeps them in step).
 * The eval is the plain-loop reference for tests. */
#include "ops/op_util.h"
#include "ops/ops.h"

typedef struct ConvB {
    int64_t N, ICb, H, W, IB, OCb, OH, OW, OB, KH, KW, sh, sw, dh, dw, G, dwise, pt, pl, pb, pr;
} ConvB;

/* The attributes into Node.at.conv (depthwise stays pass layout's). */
static int read_attrs(Graph *g, int node, Diag *d)
{
    Node *n = &g->nodes[node];
    int k1, k2, k3, k4 = 4;
    const int64_t *ks = attr_ints(n, "kernel_shape", &k1), *st = attr_ints(n, "strides", &k2),
                  *dl = attr_ints(n, "dilations", &k3), *pd = attr_ints(n, "pads", &k4);
    if (!ks || !st || !dl || k1 != 2 || k2 != 2 || k3 != 2 || (pd && k4 != 4))
        return diag_error(d, g, node, "malformed ConvNCHWc (internal error)");
    WindowAttrs *wa = &n->at.conv.win;
    wa->n = 2;
    for (int i = 0; i < 2; i++) {
        wa->kernel[i] = ks[i];
        wa->strides[i] = st[i];
        wa->dilations[i] = dl[i];
    }
    for (int i = 0; i < 4; i++)
        wa->pads[i] = pd ? pd[i] : 0;
    n->at.conv.group = attr_int(n, "group", 1);
    return 0;
}

static int conv_b(Graph *g, int node, Diag *d, ConvB *c)
{
    const Node *n = &g->nodes[node];
    const Value *x = opu_in(g, node, 0), *w = opu_in(g, node, 1);
    const WindowAttrs *wa = &n->at.conv.win;
    const int64_t *ks = wa->kernel, *st = wa->strides, *dl = wa->dilations, *pd = wa->pads;
    if (!x || !w || x->shape.rank != 5 || wa->n != 2)
        return diag_error(d, g, node, "malformed ConvNCHWc (internal error)");
    *c = (ConvB){.N = x->shape.dims[0], .ICb = x->shape.dims[1], .H = x->shape.dims[2], .W = x->shape.dims[3],
                 .IB = x->shape.dims[4], .KH = ks[0], .KW = ks[1], .sh = st[0], .sw = st[1], .dh = dl[0],
                 .dw = dl[1], .G = n->at.conv.group, .dwise = n->at.conv.depthwise,
                 .pt = pd[0], .pl = pd[1], .pb = pd[2], .pr = pd[3]};
    c->OCb = w->shape.dims[0];
    c->OB = w->shape.dims[w->shape.rank - 1];
    c->OH = (c->H + c->pt + c->pb - c->dh * (c->KH - 1) - 1) / c->sh + 1;
    c->OW = (c->W + c->pl + c->pr - c->dw * (c->KW - 1) - 1) / c->sw + 1;
    if (c->OH < 1 || c->OW < 1 || c->G < 1 || c->ICb % c->G || c->OCb % c->G ||
        (c->dwise && (c->IB != c->OB || c->OCb != c->ICb || w->shape.rank != 4)) ||
        (!c->dwise && w->shape.rank != 6))
        return diag_error(d, g, node, "malformed ConvNCHWc (internal error)");
    return 0;
}

int op_convnchwc_infer(Graph *g, int node, Diag *d)
{
    ConvB c;
    if (opu_check_arity(g, node, d, 2, 3, 1, 1) || read_attrs(g, node, d) || conv_b(g, node, d, &c))
        return -1;
    int64_t dims[5] = {c.N, c.OCb, c.OH, c.OW, c.OB};
    opu_set_out(g, node, 0, DT_FLOAT32, shape_make(5, dims));
    return 0;
}

int op_convnchwc_eval(Graph *g, int node, Diag *d)
{
    ConvB c;
    if (conv_b(g, node, d, &c))
        return -1;
    const float *x = opu_in(g, node, 0)->data, *w = opu_in(g, node, 1)->data;
    const Value *bv = opu_in(g, node, 2);
    const float *b = bv ? bv->data : NULL;
    float *y = opu_alloc_out(g, node, 0, d);
    if (!y)
        return -1;
    int64_t icbg = c.ICb / c.G, ocbg = c.OCb / c.G;
    for (int64_t n = 0; n < c.N; n++)
        for (int64_t ob = 0; ob < c.OCb; ob++)
            for (int64_t oh = 0; oh < c.OH; oh++)
                for (int64_t ow = 0; ow < c.OW; ow++)
                    for (int64_t ol = 0; ol < c.OB; ol++) {
                        double acc = b ? b[ob * c.OB + ol] : 0.0;
                        for (int64_t kh = 0; kh < c.KH; kh++)
                            for (int64_t kw = 0; kw < c.KW; kw++) {
                                int64_t ih = oh * c.sh + kh * c.dh - c.pt, iw = ow * c.sw + kw * c.dw - c.pl;
                                if (ih < 0 || ih >= c.H || iw < 0 || iw >= c.W)
                                    continue;
                                if (c.dwise) {
                                    acc += (double)x[(((n * c.ICb + ob) * c.H + ih) * c.W + iw) * c.IB + ol] *
                                           w[((ob * c.KH + kh) * c.KW + kw) * c.OB + ol];
                                    continue;
                                }
                                for (int64_t ib = 0; ib < icbg; ib++)
                                    for (int64_t il = 0; il < c.IB; il++) {
                                        int64_t icb = ob / ocbg * icbg + ib;
                                        acc += (double)x[(((n * c.ICb + icb) * c.H + ih) * c.W + iw) * c.IB + il] *
                                               w[((((ob * icbg + ib) * c.KH + kh) * c.KW + kw) * c.IB + il) * c.OB + ol];
                                    }
                            }
                        y[(((n * c.OCb + ob) * c.OH + oh) * c.OW + ow) * c.OB + ol] = (float)acc;
                    }
    return 1;
}
