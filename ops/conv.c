/* conv.c - Conv: 2-D convolution, NCHW input, weights [M, C/group, kH, kW],
 * optional bias [M], with strides, dilations, pads/auto_pad and group.
 *
 * Only float32 and 2-D (4-D tensors). After infer the node carries
 * kernel_shape[2], strides[2], dilations[2], pads[4] (top, left, bottom,
 * right; auto_pad resolved and set to "NOTSET") and group. The reference
 * kernel is im2col per image and group followed by cblas_sgemm. */
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
    if (x->shape.rank == 5)
        return diag_error(d, g, node, "3-D convolution not supported");
    if (x->shape.rank == 3)
        return diag_error(d, g, node, "1-D convolution not supported");
    if (x->shape.rank != 4)
        return diag_error(d, g, node, "input must be 4-D (NCHW), got %s", opu_shape_str(&x->shape));
    if (x->dtype != DT_FLOAT32 || w->dtype != DT_FLOAT32 || (b && b->dtype != DT_FLOAT32))
        return diag_error(d, g, node, "only float32 is supported");
    if (w->shape.rank != 4)
        return diag_error(d, g, node, "weights must be 4-D, got %s", opu_shape_str(&w->shape));
    int64_t group = attr_int(n, "group", 1);
    int64_t c = x->shape.dims[1], m = w->shape.dims[0];
    if (group < 1 || c % group || m % group)
        return diag_error(d, g, node, "group %lld does not divide %lld input and %lld output channels",
                          (long long)group, (long long)c, (long long)m);
    if (w->shape.dims[1] != c / group)
        return diag_error(d, g, node, "weights %s do not match %lld input channels in %lld groups",
                          opu_shape_str(&w->shape), (long long)c, (long long)group);
    if (b && (b->shape.rank != 1 || b->shape.dims[0] != m))
        return diag_error(d, g, node, "bias must be [%lld], got %s", (long long)m,
                          opu_shape_str(&b->shape));
    int nk = 0;
    const int64_t *ks = attr_ints(n, "kernel_shape", &nk);
    if (ks && (nk != 2 || ks[0] != w->shape.dims[2] || ks[1] != w->shape.dims[3]))
        return diag_error(d, g, node, "kernel_shape does not match weights %s",
                          opu_shape_str(&w->shape));
    Window win;
    if (window_resolve(g, node, d, &x->shape.dims[2], &w->shape.dims[2], 0, &win))
        return -1;
    node_set_int(g, node, "group", group);
    int64_t dims[4] = {x->shape.dims[0], m, win.out[0], win.out[1]};
    Shape out = shape_make(4, dims);
    int64_t total;
    if (opu_numel(g, node, d, &out, &total))
        return -1;
    opu_set_out(g, node, 0, DT_FLOAT32, out);
    return 0;
}

int op_conv_eval(Graph *g, int node, Diag *d)
{
    const Node *n = &g->nodes[node];
    Value *xv = opu_in(g, node, 0), *wv = opu_in(g, node, 1), *bv = opu_in(g, node, 2);
    Value *yv = opu_out(g, node, 0);
    int nk = 0;
    const int64_t *k = attr_ints(n, "kernel_shape", &nk), *st = attr_ints(n, "strides", &nk),
                  *dl = attr_ints(n, "dilations", &nk), *pd = attr_ints(n, "pads", &nk);
    int64_t group = attr_int(n, "group", 1);
    int64_t N = xv->shape.dims[0], C = xv->shape.dims[1], H = xv->shape.dims[2],
            W = xv->shape.dims[3], M = yv->shape.dims[1], OH = yv->shape.dims[2],
            OW = yv->shape.dims[3];
    int64_t cg = C / group, mg = M / group, kk = cg * k[0] * k[1], ohw = OH * OW, col_n;
    if (!i64_mul(kk, ohw, &col_n))
        return diag_error(d, g, node, "im2col buffer too large");
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
