/* eyelike.c - EyeLike (versions 9, 22): a 2-D tensor of the input's shape
 * with ones on the k-th diagonal (y[i, j] = 1 when j - i == k, k > 0 above
 * the main diagonal, k < 0 below it) and zeros elsewhere. Only the input's
 * shape is read. The output type is the `dtype` attribute (an ONNX type
 * code), default the input's type; 22 added bfloat16, which every version
 * accepts here.
 *
 * Normalised attributes: "k" (explicit, clamped to [-rows-1, cols+1], where
 * every k beyond gives the same all-zero result). */
#include "ops/compute.h"
#include "ops/op_util.h"
#include "ops/ops.h"

int op_eyelike_infer(Graph *g, int node, Diag *d)
{
    if (opu_check_arity(g, node, d, 1, 1, 1, 1))
        return -1;
    Node *n = &g->nodes[node];
    Value *x = opu_in(g, node, 0);
    if (x->shape.rank != 2)
        return diag_error(d, g, node, "input %s must be 2-D", opu_shape_str(&x->shape));
    DType t = x->dtype;
    if (node_attr(n, "dtype")) {
        int64_t code = attr_int(n, "dtype", 0);
        t = dtype_from_onnx((int)code);
        if (t == DT_UNDEFINED)
            return diag_error(d, g, node, "dtype %lld is not a tensor type", (long long)code);
    }
    if (!dtype_supported(t))
        return diag_error(d, g, node, "output type %s is not supported", dtype_name(t));
    int64_t rows = x->shape.dims[0], cols = x->shape.dims[1], k = attr_int(n, "k", 0);
    if (k < -rows - 1)
        k = -rows - 1;
    if (k > cols + 1)
        k = cols + 1;
    node_set_int(g, node, "k", k);
    n->at.trilu = (TriluAttrs){.k_const = 1, .k = k};
    opu_set_out(g, node, 0, t, x->shape);
    return 0;
}

int compute_eyelike(ComputeCtx *cx, int node, ComputeDef *def)
{
    LoopBuilder *lb = cx->lb;
    const Node *n = &cx->g->nodes[node];
    const Value *y = &cx->g->values[n->out[0]];
    ComputeStage *s = compute_stage_new(cx, def, n->name, cx->buf_of(cx, n->out[0]), &y->shape);
    if (!s)
        return compute_fail(cx, node, "too many stages");
    s->out_is_node_output = 1;
    LType t = lt_of_dtype(y->dtype);
    Expr *diff = lx_sub(lb, lx_var(lb, s->axis[1]), lx_var(lb, s->axis[0]));
    Expr *on = lx_bin(lb, BO_EQ, diff, lx_int(lb, n->at.trilu.k));
    s->body = lx_select(lb, on, lx_one(lb, t), lx_zero(lb, t));
    s->finalize = lx_var(lb, s->acc);
    return 0;
}

DEFINE_EVAL_BY_COMPUTE(eyelike)
