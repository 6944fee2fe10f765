/* conv.c - Conv (versions 1, 11, 22): N-D convolution over channel-first
 * input X [N, C, D1..Dn], weights W [M, C/group, k1..kn], optional bias
 * B [M], with strides, dilations, pads/auto_pad and group; float16,
 * float32, float64, and bfloat16 from version 22.
 *
 * Normalised attributes after infer (n = number of spatial axes):
 * kernel_shape[n] (from the weights when absent), strides[n], dilations[n],
 * pads[2n] (begins then ends; auto_pad resolved and set to "NOTSET"),
 * group; typed: Node.at.conv (window and group). Output element (b, m, o1..on) is
 *   B[m] + sum over c < C/group, k1..kn of
 *       X[b, (m / (M/group)) * C/group + c, o_i*s_i - pb_i + k_i*d_i] * W[m, c, k..]
 * with zeros read outside the input. The definition is compute_conv.c
 * (general) and, for float32 2-D convolutions of a CNN, pass layout turns
 * the node into ctvm.ConvNCHWc (the fast blocked path). Constant folding of
 * float32 2-D convolutions uses im2col + OpenBLAS; everything else runs the
 * compute definition. */
#include <cblas.h>
#include <stdlib.h>

#include "ops/op_util.h"
#include "ops/ops.h"
#include "ops/window.h"

int op_conv_infer(Graph *g, int node, Diag *d)
{
    Node *n = &g->nodes[node];
    if (opu_check_arity(g, node, d, 2, 3, 1, 1))
        return -1;
    Value *x = opu_in(g, node, 0), *w = opu_in(g, node, 1), *b = opu_in(g, node, 2);
    int rank = x->shape.rank, ns = rank - 2;
    if (window_spatial_axes(g, node, d, x, &ns))
        return -1;
    if (!window_float_type_ok(x->dtype, n->version))
        return diag_error(d, g, node, "input type %s not supported by Conv-%d", dtype_name(x->dtype),
                          n->version);
    if (w->dtype != x->dtype || (b && b->dtype != x->dtype))
        return diag_error(d, g, node, "weights and bias must have the input's type %s", dtype_name(x->dtype));
    int64_t group, m = w->shape.dims[0];
    if (window_read_group(g, node, d, x, w, &group))
        return -1;
    if (b && (b->shape.rank != 1 || b->shape.dims[0] != m))
        return diag_error(d, g, node, "bias must be [%lld], got %s", (long long)m, opu_shape_str(&b->shape));
    if (window_read_kernel_match(g, node, d, w, ns))
        return -1;
    Window win;
    if (window_infer(g, node, d, ns, &x->shape.dims[2], &w->shape.dims[2], 0, &win))
        return -1;
    node_set_int(g, node, "group", group);
    window_store(&win, &n->at.conv.win);
    n->at.conv.group = group;
    int64_t dims[CTVM_MAX_RANK] = {x->shape.dims[0], m};
    for (int i = 0; i < ns; i++)
        dims[2 + i] = win.out[i];
    Shape out = shape_make(rank, dims);
    int64_t total;
    if (opu_numel(g, node, d, &out, &total))
        return -1;
    opu_set_out(g, node, 0, x->dtype, out);
    return 0;
}

/* float32 2-D: im2col per image and group, then cblas_sgemm. */
static int eval_blas(Graph *g, int node, Diag *d)
{
    const Node *n = &g->nodes[node];
    Value *xv = opu_in(g, node, 0), *wv = opu_in(g, node, 1), *bv = opu_in(g, node, 2);
    Value *yv = opu_out(g, node, 0);
    const WindowAttrs *wa = &n->at.conv.win;
    const int64_t *k = wa->kernel, *st = wa->strides, *dl = wa->dilations, *pd = wa->pads;
    int64_t group = n->at.conv.group;
    int64_t N = xv->shape.dims[0], C = xv->shape.dims[1], H = xv->shape.dims[2],
            W = xv->shape.dims[3], M = yv->shape.dims[1], OH = yv->shape.dims[2],
            OW = yv->shape.dims[3];
    int64_t cg = C / group, mg = M / group, kk = cg * k[0] * k[1], ohw = OH * OW, col_n;
    int64_t col_bytes;
    if (!i64_mul(kk, ohw, &col_n) || !i64_mul(col_n, (int64_t)sizeof(float), &col_bytes) ||
        col_bytes > opu_fold_limit(g)) /* scratch of folding, bounded like its constants */
        return diag_error(d, g, node, "folding it needs an im2col buffer of %lld x %lld floats, over the limit "
                          "of %lld bytes folded per compile; raise it with --max-fold-bytes N",
                          (long long)kk, (long long)ohw, (long long)opu_fold_limit(g));
    float *y = opu_alloc_out(g, node, 0, d);
    if (!y)
        return -1;
    float *col = malloc((size_t)(col_n ? col_n : 1) * sizeof(float));
    if (!col)
        return diag_error(d, g, node, "out of memory for im2col (%lld floats)", (long long)col_n);
    const float *x = xv->data, *w = wv->data, *b = bv ? bv->data : NULL;
    for (int64_t in = 0; in < N; in++)
        for (int64_t gi = 0; gi < group; gi++) {
            const float *xg = x + (in * C + gi * cg) * H * W;
            for (int64_t c = 0; c < cg; c++)
                for (int64_t i = 0; i < k[0]; i++)
                    for (int64_t j = 0; j < k[1]; j++) {
                        float *row = col + ((c * k[0] + i) * k[1] + j) * ohw;
                        for (int64_t oh = 0; oh < OH; oh++)
                            for (int64_t ow = 0; ow < OW; ow++) {
                                int64_t h = oh * st[0] - pd[0] + i * dl[0];
                                int64_t ww = ow * st[1] - pd[1] + j * dl[1];
                                row[oh * OW + ow] = h >= 0 && h < H && ww >= 0 && ww < W
                                                        ? xg[(c * H + h) * W + ww]
                                                        : 0.0f;
                            }
                    }
            float *yg = y + (in * M + gi * mg) * ohw;
            if (mg > 0 && ohw > 0 && kk > 0)
                cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)mg, (int)ohw, (int)kk,
                            1.0f, w + gi * mg * kk, (int)kk, col, (int)ohw, 0.0f, yg, (int)ohw);
            if (b)
                for (int64_t m = 0; m < mg; m++)
                    for (int64_t p = 0; p < ohw; p++)
                        yg[m * ohw + p] += b[gi * mg + m];
        }
    free(col);
    return 1;
}

int op_conv_eval(Graph *g, int node, Diag *d)
{
    const Value *x = opu_in(g, node, 0);
    if (x->dtype == DT_FLOAT32 && x->shape.rank == 4)
        return eval_blas(g, node, d);
    return OPS_EVAL_BY_COMPUTE;
}
