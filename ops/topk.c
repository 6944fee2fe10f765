/* topk.c - TopK, every version (1, 10, 11, 24): the k largest (or
 * smallest, 11+) elements along an axis and their int64 indices, every type
 * the spec allows (float16/float/double; from 11 the integer types, from
 * 24 bfloat16).
 *
 * k is the attribute "k" before 10 and the one-element int64 input 1 from
 * 10; it decides the output shape, so it must be a constant (--bind a graph
 * input). The outputs are always sorted best first (also for sorted = 0,
 * which leaves the order to the implementation); equal values keep the
 * lower index first. The work is the runtime kernel ctvm_k_topk
 * (templates/kernel_topk.h), the same code in generated models and in
 * constant folding.
 *
 * Normalised attributes: "axis" >= 0, "k" >= 0, "largest" 0/1. */
#include "ops/compute.h"
#include "ops/op_util.h"
#include "ops/ops.h"

static int type_ok(const Node *n, DType t)
{
    switch (t) {
    case DT_FLOAT32: case DT_FLOAT64: case DT_FLOAT16: case DT_BFLOAT16:
        return 1;
    case DT_INT8: case DT_INT16: case DT_INT32: case DT_INT64:
    case DT_UINT8: case DT_UINT16: case DT_UINT32: case DT_UINT64:
        return n->version >= 11;
    default:
        return 0;
    }
}

int op_topk_infer(Graph *g, int node, Diag *d)
{
    Node *n = &g->nodes[node];
    int k_input = n->version >= 10;
    if (opu_check_arity(g, node, d, k_input ? 2 : 1, k_input ? 2 : 1, 2, 2))
        return -1;
    Value *x = opu_in(g, node, 0);
    if (!type_ok(n, x->dtype))
        return diag_error(d, g, node, "input type %s is not supported by version %d", dtype_name(x->dtype),
                          n->version);
    int rank = x->shape.rank, axis;
    if (rank < 1)
        return diag_error(d, g, node, "input must have rank >= 1");
    if (opu_norm_axis(g, node, d, attr_int(n, "axis", -1), rank, "axis", &axis))
        return -1;
    int64_t k;
    if (k_input) {
        Value *kv = opu_in(g, node, 1);
        if (kv->dtype != DT_INT64)
            return diag_error(d, g, node, "K must be int64, not %s", dtype_name(kv->dtype));
        int64_t raw[2];
        int nk = 0;
        if (!kv->data) {
            /* a run-time K, bounded by the axis (ops/dynprop.c) */
            int64_t cnt = 0;
            if (!shape_numel(&kv->shape, &cnt) || cnt != 1)
                return diag_error(d, g, node, "K must hold one value");
            raw[0] = x->shape.dims[axis];
            nk = 1;
            n->at.topk.k_runtime = 1;
        } else if (opu_const_ints(g, node, d, 1, raw, 2, &nk)) {
            return -1;
        }
        if (nk != 1)
            return diag_error(d, g, node, "K must hold one value, not %d", nk);
        k = raw[0];
    } else {
        if (!node_attr(n, "k"))
            return diag_error(d, g, node, "attribute k is required");
        k = attr_int(n, "k", 0);
    }
    if (k < 0 || k > x->shape.dims[axis])
        return diag_error(d, g, node, "k = %lld is outside [0, %lld] (the length of axis %d)", (long long)k,
                          (long long)x->shape.dims[axis], axis);
    Shape out = x->shape;
    out.dims[axis] = k;
    n->at.topk.axis = axis;
    n->at.topk.k = k;
    n->at.topk.largest = n->version < 11 || attr_int(n, "largest", 1) != 0;
    node_set_int(g, node, "axis", axis);
    if (!k_input)
        node_set_int(g, node, "k", k);
    node_set_int(g, node, "largest", n->at.topk.largest);
    opu_set_out(g, node, 0, x->dtype, out);
    opu_set_out(g, node, 1, DT_INT64, out);
    return 0;
}

DEFINE_EVAL_BY_COMPUTE(topk)

int compute_topk(ComputeCtx *cx, int node, ComputeDef *def)
{
    const Node *n = &cx->g->nodes[node];
    const Value *x = &cx->g->values[n->in[0]];
    int axis = n->at.topk.axis;
    int64_t outer, len, inner;
    opu_axis_view(&x->shape, axis, &outer, &len, &inner);
    LBuf *bufs[3] = {cx->buf_of(cx, n->in[0]), cx->buf_of(cx, n->out[0]), cx->buf_of(cx, n->out[1])};
    int written[3] = {0, 1, 1};
    int64_t ia[6] = {x->dtype, outer, len, inner, n->at.topk.k, n->at.topk.largest};
    def->custom = ls_call(cx->lb, "ctvm_k_topk", 3, bufs, written, 6, ia, 0, NULL);
    return 0;
}
