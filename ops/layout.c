/* layout.c - the internal layout operators made by pass "layout":
 *
 *   ctvm.Pack    [N,C,H,W] -> [N,ceil(C/B),H,W,B] (attr block = B); channel
 *                c lands in block c/B, lane c%B; lanes past C are zero.
 *   ctvm.Unpack  [N,Cb,H,W,B] -> [N,C,H,W] (attr channels = C).
 *   ctvm.PadHW   padding of dims 2 and 3 of a 4-D or 5-D tensor (attr
 *                pads = top, left, bottom, right) with zeros, or with the
 *                value of its optional second input (a scalar of the
 *                tensor's type: an integer convolution's zero point).
 *
 * Output type = input type: float32, or the 8-bit and int32 tensors of
 * the integer convolutions. The float32 eval functions are the reference
 * the generated copies are tested against; other types evaluate by their
 * compute definition. */
#include <string.h>

#include "ops/op_util.h"
#include "ops/ops.h"

static int infer_pack(Graph *g, int node, Diag *d, const Value *x)
{
    int64_t B = g->nodes[node].at.layout.block;
    if (x->shape.rank != 4 || B < 1)
        return diag_error(d, g, node, "Pack needs a 4-D input and block >= 1 (internal error)");
    int64_t dims[5] = {x->shape.dims[0], (x->shape.dims[1] + B - 1) / B, x->shape.dims[2], x->shape.dims[3], B};
    opu_set_out(g, node, 0, x->dtype, shape_make(5, dims));
    return 0;
}

static int infer_unpack(Graph *g, int node, Diag *d, const Value *x)
{
    int64_t C = g->nodes[node].at.layout.channels;
    if (x->shape.rank != 5 || C < 1 || C > x->shape.dims[1] * x->shape.dims[4])
        return diag_error(d, g, node, "Unpack needs a 5-D input holding the channels (internal error)");
    int64_t dims[4] = {x->shape.dims[0], C, x->shape.dims[2], x->shape.dims[3]};
    opu_set_out(g, node, 0, x->dtype, shape_make(4, dims));
    return 0;
}

static int infer_pad(Graph *g, int node, Diag *d, const Value *x)
{
    const int64_t *p = g->nodes[node].at.layout.pads;
    if ((x->shape.rank != 4 && x->shape.rank != 5) || p[0] < 0 || p[1] < 0 || p[2] < 0 ||
        p[3] < 0)
        return diag_error(d, g, node, "PadHW needs a 4-D/5-D input and 4 pads >= 0 (internal error)");
    Shape s = x->shape;
    s.dims[2] += p[0] + p[2];
    s.dims[3] += p[1] + p[3];
    const Value *pv = opu_in(g, node, 1);
    if (pv && (g->nodes[node].op != OP_PADHW || pv->dtype != x->dtype || pv->shape.rank > 1 ||
               (pv->shape.rank == 1 && pv->shape.dims[0] != 1)))
        return diag_error(d, g, node, "PadHW's value must be one element of the input's type (internal error)");
    opu_set_out(g, node, 0, x->dtype, s);
    return 0;
}

int op_layout_infer(Graph *g, int node, Diag *d)
{
    if (opu_check_arity(g, node, d, 1, g->nodes[node].op == OP_PADHW ? 2 : 1, 1, 1))
        return -1;
    const Value *x = opu_in(g, node, 0);
    if (x->dtype != DT_FLOAT32 && x->dtype != DT_UINT8 && x->dtype != DT_INT8 && x->dtype != DT_INT32)
        return diag_error(d, g, node, "only float32, uint8, int8 and int32 are supported (internal error)");
    switch (g->nodes[node].op) {
    case OP_PACK: return infer_pack(g, node, d, x);
    case OP_UNPACK: return infer_unpack(g, node, d, x);
    default: return infer_pad(g, node, d, x);
    }
}

int op_layout_eval(Graph *g, int node, Diag *d)
{
    const Node *n = &g->nodes[node];
    const Value *xv = opu_in(g, node, 0), *yv = opu_out(g, node, 0);
    if (xv->dtype != DT_FLOAT32 || n->n_in > 1)
        return OPS_EVAL_BY_COMPUTE;
    const float *x = xv->data;
    float *y = opu_alloc_out(g, node, 0, d); /* zeroed */
    if (!y)
        return -1;
    const int64_t *xd = xv->shape.dims, *yd = yv->shape.dims;
    if (n->op == OP_PACK || n->op == OP_UNPACK) {
        /* plain [N,C,H,W] <-> blocked [N,Cb,H,W,B] */
        const int64_t *pd = n->op == OP_PACK ? xd : yd, *bd = n->op == OP_PACK ? yd : xd;
        int64_t N = pd[0], C = pd[1], HW = pd[2] * pd[3], B = bd[4], Cb = bd[1];
        for (int64_t i = 0; i < N; i++)
            for (int64_t c = 0; c < C; c++)
                for (int64_t p = 0; p < HW; p++) {
                    int64_t plain = (i * C + c) * HW + p, blk = ((i * Cb + c / B) * HW + p) * B + c % B;
                    if (n->op == OP_PACK)
                        y[blk] = x[plain];
                    else
                        y[plain] = x[blk];
                }
        return 1;
    }
    const int64_t *pads = n->at.layout.pads;
    int64_t lanes = xv->shape.rank == 5 ? xd[4] : 1, outer = xd[0] * xd[1];
    for (int64_t o = 0; o < outer; o++)
        for (int64_t h = 0; h < xd[2]; h++)
            memcpy(&y[((o * yd[2] + h + pads[0]) * yd[3] + pads[1]) * lanes], &x[(o * xd[2] + h) * xd[3] * lanes],
                   (size_t)(xd[3] * lanes) * sizeof(float));
    return 1;
}
