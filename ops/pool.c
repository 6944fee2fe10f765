/* pool.c - MaxPool, AveragePool (2-D, NCHW) and GlobalAveragePool,
 * GlobalMaxPool (any rank >= 3), float32 only.
 *
 * After infer MaxPool/AveragePool carry kernel_shape[2], strides[2],
 * dilations[2], pads[4] (top, left, bottom, right; auto_pad resolved and set
 * to "NOTSET"), ceil_mode (already reflected in the output shape) and, for
 * AveragePool, count_include_pad. Window of output (oh, ow): rows
 * oh*s0 - top + i*d0 for i < k0 (columns alike). Taps outside the input are
 * skipped by MaxPool. AveragePool divides the sum of the taps inside the
 * input by: count_include_pad = 0 -> the number of taps inside the input;
 * count_include_pad = 1 -> the number of taps inside the padded input
 * [-top, H + bottom) x [-left, W + right) (so a ceil_mode window hanging past
 * the bottom/right padding is not charged for the overhang, as in PyTorch
 * and ONNX Runtime). MaxPool's optional Indices output (int64, row-major
 * index into the NCHW input) is computed by eval too. */
#include <float.h>

#include "ops/op_util.h"
#include "ops/ops.h"
#include "ops/window.h"

static int infer_global(Graph *g, int node, Diag *d, Value *x)
{
    if (opu_check_arity(g, node, d, 1, 1, 1, 1))
        return -1;
    if (x->shape.rank < 3)
        return diag_error(d, g, node, "input must have rank >= 3, got %s", opu_shape_str(&x->shape));
    Shape out = x->shape;
    for (int i = 2; i < out.rank; i++)
        out.dims[i] = 1;
    opu_set_out(g, node, 0, DT_FLOAT32, out);
    return 0;
}

int op_pool_infer(Graph *g, int node, Diag *d)
{
    Node *n = &g->nodes[node];
    if (n->n_in < 1 || n->in[0] < 0)
        return diag_error(d, g, node, "input 0 is missing");
    Value *x = opu_in(g, node, 0);
    if (x->dtype != DT_FLOAT32)
        return diag_error(d, g, node, "only float32 is supported");
    if (n->op == OP_GLOBALAVGPOOL || n->op == OP_GLOBALMAXPOOL)
        return infer_global(g, node, d, x);
    int max_out = n->op == OP_MAXPOOL ? 2 : 1;
    if (opu_check_arity(g, node, d, 1, 1, 1, max_out))
        return -1;
    if (x->shape.rank != 4)
        return diag_error(d, g, node, "%d-D pooling not supported (input %s)", x->shape.rank - 2,
                          opu_shape_str(&x->shape));
    int nk = 0;
    const int64_t *ks = attr_ints(n, "kernel_shape", &nk);
    if (!ks)
        return diag_error(d, g, node, "kernel_shape is required");
    if (nk != 2)
        return diag_error(d, g, node, "kernel_shape must have 2 values, got %d", nk);
    if (attr_int(n, "storage_order", 0) != 0)
        return diag_error(d, g, node, "storage_order 1 not supported");
    int64_t ceil_mode = attr_int(n, "ceil_mode", 0);
    int64_t kernel[2] = {ks[0], ks[1]};
    Window w;
    if (window_resolve(g, node, d, &x->shape.dims[2], kernel, ceil_mode != 0, &w))
        return -1;
    for (int i = 0; i < 2; i++)
        if (w.pads[i] >= (w.kernel[i] - 1) * w.dilations[i] + 1 ||
            w.pads[i + 2] >= (w.kernel[i] - 1) * w.dilations[i] + 1)
            return diag_error(d, g, node, "pads must be smaller than the kernel extent");
    node_set_int(g, node, "ceil_mode", ceil_mode != 0);
    if (n->op == OP_AVGPOOL)
        node_set_int(g, node, "count_include_pad", attr_int(n, "count_include_pad", 0) != 0);
    int64_t dims[4] = {x->shape.dims[0], x->shape.dims[1], w.out[0], w.out[1]};
    opu_set_out(g, node, 0, DT_FLOAT32, shape_make(4, dims));
    opu_set_out(g, node, 1, DT_INT64, shape_make(4, dims));
    return 0;
}

static int eval_global(Graph *g, int node, Diag *d, const Value *xv)
{
    int64_t total, nc = xv->shape.dims[0] * xv->shape.dims[1];
    if (opu_numel(g, node, d, &xv->shape, &total))
        return -1;
    int64_t inner = nc ? total / nc : 0;
    float *y = opu_alloc_out(g, node, 0, d);
    if (!y)
        return -1;
    const float *x = xv->data;
    int is_max = g->nodes[node].op == OP_GLOBALMAXPOOL;
    for (int64_t p = 0; p < nc; p++) {
        double acc = is_max ? -DBL_MAX : 0;
        for (int64_t i = 0; i < inner; i++) {
            float v = x[p * inner + i];
            acc = is_max ? (v > acc ? v : acc) : acc + v;
        }
        y[p] = is_max ? (float)acc : (float)(inner ? acc / (double)inner : 0);
    }
    return 1;
}

int op_pool_eval(Graph *g, int node, Diag *d)
{
    const Node *n = &g->nodes[node];
    Value *xv = opu_in(g, node, 0), *yv = opu_out(g, node, 0);
    if (n->op == OP_GLOBALAVGPOOL || n->op == OP_GLOBALMAXPOOL)
        return eval_global(g, node, d, xv);
    int cnt = 0;
    const int64_t *k = attr_ints(n, "kernel_shape", &cnt), *s = attr_ints(n, "strides", &cnt),
                  *dl = attr_ints(n, "dilations", &cnt), *p = attr_ints(n, "pads", &cnt);
    int include_pad = attr_int(n, "count_include_pad", 0) != 0, is_max = n->op == OP_MAXPOOL;
    int64_t NC = xv->shape.dims[0] * xv->shape.dims[1], H = xv->shape.dims[2],
            W = xv->shape.dims[3], OH = yv->shape.dims[2], OW = yv->shape.dims[3];
    float *y = opu_alloc_out(g, node, 0, d);
    if (!y)
        return -1;
    int64_t *idx = opu_out(g, node, 1) ? opu_alloc_out(g, node, 1, d) : NULL;
    const float *x = xv->data;
    for (int64_t c = 0; c < NC; c++)
        for (int64_t oh = 0; oh < OH; oh++)
            for (int64_t ow = 0; ow < OW; ow++) {
                double sum = 0;
                float best = -FLT_MAX;
                int64_t best_at = -1, inside = 0, padded = 0;
                for (int64_t i = 0; i < k[0]; i++)
                    for (int64_t j = 0; j < k[1]; j++) {
                        int64_t h = oh * s[0] - p[0] + i * dl[0], w = ow * s[1] - p[1] + j * dl[1];
                        if (h >= -p[0] && h < H + p[2] && w >= -p[1] && w < W + p[3])
                            padded++;
                        if (h < 0 || h >= H || w < 0 || w >= W)
                            continue;
                        int64_t at = (c * H + h) * W + w;
                        inside++;
                        sum += x[at];
                        if (best_at < 0 || x[at] > best) {
                            best = x[at];
                            best_at = at;
                        }
                    }
                int64_t o = (c * OH + oh) * OW + ow;
                if (is_max) {
                    y[o] = best;
                    if (idx)
                        idx[o] = best_at;
                } else {
                    int64_t div = include_pad ? padded : inside;
                    y[o] = div ? (float)(sum / (double)div) : 0.0f;
                }
            }
    return 1;
}
