/* pool.c - the pooling operators over channel-first input X [N, C, D1..Dn]:
 * MaxPool (1, 8, 10, 11, 12, 22; int8/uint8 from 12, the optional Indices
 * output from 8), AveragePool (1, 7, 10, 11, 19, 22), LpPool (1, 2, 11, 18,
 * 22), GlobalAveragePool / GlobalMaxPool (1, 22) and GlobalLpPool (1, 2,
 * 22); float16, float32, float64, and bfloat16 from version 22.
 *
 * Normalised attributes after infer of the windowed pools (n spatial axes):
 * kernel_shape[n], strides[n], dilations[n], pads[2n] (begins then ends;
 * auto_pad resolved and set to "NOTSET"), ceil_mode (already reflected in
 * the output shape), count_include_pad (AveragePool), storage_order
 * (MaxPool); typed: Node.at.pool (the window, count_include_pad,
 * storage_order, and p of LpPool and GlobalLpPool, whose "p" is a float
 * in version 1 and an int later). Window of output o along axis i: input
 * coordinates o*s_i - pb_i + k*d_i for k < kernel_i. Taps outside the
 * input are skipped by MaxPool and add zero to LpPool. AveragePool divides
 * the sum of the taps inside the input by: count_include_pad = 0 -> the
 * number of taps inside the input; 1 -> the number of taps inside the
 * padded input [-pb, D + pe) (so a ceil_mode window hanging past the end
 * padding is not charged for the overhang, as in PyTorch and ONNX Runtime).
 * MaxPool's Indices (int64) is the flat index of the maximum into X:
 * row-major, or with storage_order 1 column-major over the spatial axes
 * (n and c stay the outer strides); ties give the lowest index. The
 * compute definitions are in compute_pool.c; folding runs them. */
#include "ops/compute.h"
#include "ops/op_util.h"
#include "ops/ops.h"
#include "ops/window.h"

static int pool_type_ok(const Node *n, DType t)
{
    if (t == DT_FLOAT32 || t == DT_FLOAT64 || t == DT_FLOAT16)
        return 1;
    if (t == DT_BFLOAT16)
        return n->version >= 22;
    if (t == DT_INT8 || t == DT_UINT8)
        return n->op == OP_MAXPOOL && n->version >= 12;
    return 0;
}

static int is_global(int op)
{
    return op == OP_GLOBALAVGPOOL || op == OP_GLOBALMAXPOOL || op == OP_GLOBALLPPOOL;
}

/* LpPool / GlobalLpPool: p is a float in version 1, an int after. */
static int read_p(Graph *g, int node, Diag *d)
{
    const Node *n = &g->nodes[node];
    double p = n->version == 1 ? attr_float(n, "p", 2.0f) : (double)attr_int(n, "p", 2);
    if (n->version == 1 && node_attr(n, "p") && node_attr(n, "p")->kind == ATTR_INT)
        p = (double)attr_int(n, "p", 2);
    if (!(p > 0))
        return diag_error(d, g, node, "p must be positive, got %g", p);
    g->nodes[node].at.pool.p = (float)p;
    return 0;
}

int op_pool_infer(Graph *g, int node, Diag *d)
{
    Node *n = &g->nodes[node];
    int max_out = n->op == OP_MAXPOOL && n->version >= 8 ? 2 : 1;
    if (opu_check_arity(g, node, d, 1, 1, 1, max_out))
        return -1;
    Value *x = opu_in(g, node, 0);
    if (!pool_type_ok(n, x->dtype))
        return diag_error(d, g, node, "input type %s not supported by %s-%d", dtype_name(x->dtype), n->op_type,
                          n->version);
    int rank = x->shape.rank, ns = rank - 2;
    if (window_spatial_axes(g, node, d, x, &ns))
        return -1;
    if ((n->op == OP_LPPOOL || n->op == OP_GLOBALLPPOOL) && read_p(g, node, d))
        return -1;
    if (is_global(n->op)) {
        Shape out = x->shape;
        for (int i = 2; i < out.rank; i++)
            out.dims[i] = 1;
        opu_set_out(g, node, 0, x->dtype, out);
        return 0;
    }
    const int64_t *ks = window_read_kernel(g, node, d, ns);
    if (!ks)
        return -1;
    int64_t so = attr_int(n, "storage_order", 0);
    if (so != 0 && so != 1)
        return diag_error(d, g, node, "storage_order must be 0 or 1, got %lld", (long long)so);
    int64_t ceil_mode = attr_int(n, "ceil_mode", 0);
    int64_t kernel[WINDOW_MAX_AXES];
    for (int i = 0; i < ns; i++)
        kernel[i] = ks[i];
    Window w;
    if (window_infer(g, node, d, ns, &x->shape.dims[2], kernel, ceil_mode != 0, &w))
        return -1;
    for (int i = 0; i < ns; i++)
        if (w.pads[i] >= (w.kernel[i] - 1) * w.dilations[i] + 1 ||
            w.pads[i + ns] >= (w.kernel[i] - 1) * w.dilations[i] + 1)
            return diag_error(d, g, node, "pads must be smaller than the kernel extent");
    node_set_int(g, node, "ceil_mode", ceil_mode != 0);
    int include = n->op == OP_AVGPOOL && attr_int(n, "count_include_pad", 0) != 0;
    if (n->op == OP_AVGPOOL)
        node_set_int(g, node, "count_include_pad", include);
    if (n->op == OP_MAXPOOL)
        node_set_int(g, node, "storage_order", so);
    window_store(&w, &n->at.pool.win);
    n->at.pool.count_include_pad = include;
    n->at.pool.storage_order = n->op == OP_MAXPOOL && so == 1;
    int64_t dims[CTVM_MAX_RANK] = {x->shape.dims[0], x->shape.dims[1]};
    for (int i = 0; i < ns; i++)
        dims[2 + i] = w.out[i];
    Shape out = shape_make(rank, dims);
    int64_t total;
    if (opu_numel(g, node, d, &out, &total))
        return -1;
    opu_set_out(g, node, 0, x->dtype, out);
    opu_set_out(g, node, 1, DT_INT64, out);
    return 0;
}

DEFINE_EVAL_BY_COMPUTE(pool)
