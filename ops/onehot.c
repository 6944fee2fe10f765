/* onehot.c - OneHot (versions 9, 11, 28): one-hot encoding of indices.
 *
 * Inputs: indices (any numeric type), depth (a scalar or one-element
 * tensor, any numeric type) and values = [off_value, on_value] (its type is
 * the output's). The output has the indices' shape with a new dim of size
 * depth inserted at `axis` (default -1, counted in the output's rank):
 * y[..., c, ...] = on_value when the index at (...) equals c, else
 * off_value. From version 11 a negative index counts from the end
 * (index + depth) and indices outside [-depth, depth) give off_value
 * everywhere; version 9 has no negative indices: those outside [0, depth)
 * give off_value everywhere. Float indices compare
 * by value (as ONNX's reference), so a fractional one never matches.
 *
 * depth decides the shape, so it must be constant (or --bind'ed); indices
 * and values are run-time inputs.
 *
 * Normalised attributes: "axis" in [0, rank(indices)], "depth" (> 0),
 * "wrap" (1 when negative indices count from the end: version >= 11). */
#include <math.h>

#include "ir/tensor.h"
#include "ops/compute.h"
#include "ops/op_util.h"
#include "ops/ops.h"

static int numeric(DType t)
{
    return dtype_supported(t) && t != DT_BOOL;
}

int op_onehot_infer(Graph *g, int node, Diag *d)
{
    if (opu_check_arity(g, node, d, 3, 3, 1, 1))
        return -1;
    Value *x = opu_in(g, node, 0), *dv = opu_in(g, node, 1), *vv = opu_in(g, node, 2);
    if (!numeric(x->dtype) || !numeric(dv->dtype))
        return diag_error(d, g, node, "indices type %s / depth type %s are not supported", dtype_name(x->dtype),
                          dtype_name(dv->dtype));
    if (!dtype_supported(vv->dtype))
        return diag_error(d, g, node, "values type %s is not supported", dtype_name(vv->dtype));
    int64_t nv = 0, nd = 0;
    if (!shape_numel(&vv->shape, &nv) || nv != 2 || vv->shape.rank != 1)
        return diag_error(d, g, node, "values must be [off_value, on_value], not %s", opu_shape_str(&vv->shape));
    if (!shape_numel(&dv->shape, &nd) || nd != 1 || dv->shape.rank > 1)
        return diag_error(d, g, node, "depth must be a scalar, not %s", opu_shape_str(&dv->shape));
    if (!dv->data)
        return opu_need_const(g, node, d, 1, "depth");
    int64_t depth;
    if (dtype_is_float(dv->dtype)) {
        double f = tensor_get_f64(dv->dtype, dv->data, 0);
        if (!(f > 0 && f < 2147483647.0))
            return diag_error(d, g, node, "depth %g must be positive", f);
        depth = (int64_t)ceil(f); /* the length of numpy's arange(depth) */
    } else {
        depth = tensor_get_i64(dv->dtype, dv->data, 0);
        if (dv->dtype == DT_UINT64 && depth < 0)
            depth = INT64_MAX;
    }
    if (depth < 1 || depth > INT32_MAX)
        return diag_error(d, g, node, "depth %lld is not a positive size", (long long)depth);
    int r = x->shape.rank, ax;
    if (r + 1 > CTVM_MAX_RANK)
        return diag_error(d, g, node, "output rank %d is too large", r + 1);
    if (opu_norm_axis(g, node, d, attr_int(&g->nodes[node], "axis", -1), r + 1, "axis", &ax))
        return -1;
    Shape s;
    s.rank = r + 1;
    for (int i = 0, j = 0; i <= r; i++)
        s.dims[i] = i == ax ? depth : x->shape.dims[j++];
    int64_t total;
    if (opu_numel(g, node, d, &s, &total))
        return -1;
    node_set_int(g, node, "axis", ax);
    OneHotAttrs *oa = &g->nodes[node].at.onehot;
    oa->axis = ax;
    oa->depth = depth;
    oa->wrap = g->nodes[node].version >= 11;
    opu_set_out(g, node, 0, vv->dtype, s);
    return 0;
}

int compute_onehot(ComputeCtx *cx, int node, ComputeDef *def)
{
    LoopBuilder *lb = cx->lb;
    const Node *n = &cx->g->nodes[node];
    const Value *x = &cx->g->values[n->in[0]], *y = &cx->g->values[n->out[0]];
    int ax = n->at.onehot.axis, r = x->shape.rank;
    int64_t depth = n->at.onehot.depth;
    int wrap = n->at.onehot.wrap;
    ComputeStage *s = compute_stage_new(cx, def, n->name, cx->buf_of(cx, n->out[0]), &y->shape);
    if (!s)
        return compute_fail(cx, node, "too many stages");
    s->out_is_node_output = 1;
    Expr *idx[CTVM_MAX_RANK];
    for (int i = 0, j = 0; i <= r; i++)
        if (i != ax)
            idx[j++] = lx_var(lb, s->axis[i]);
    Expr *v = lx_load(lb, cx->buf_of(cx, n->in[0]), compute_flat_index(cx, &x->shape, idx));
    Expr *c = lx_var(lb, s->axis[ax]), *hit;
    LType t = v->type;
    if (lt_is_float(t)) { /* by value, in float64 */
        Expr *f = lx_cast(lb, LT_F64, v), *fd = lx_const_f(lb, LT_F64, (double)depth);
        if (wrap)
            f = lx_select(lb, lx_bin(lb, BO_LT, f, lx_const_f(lb, LT_F64, 0)), lx_add(lb, f, fd), f);
        hit = lx_bin(lb, BO_EQ, f, lx_cast(lb, LT_F64, c));
    } else if (lt_is_signed_int(t)) {
        Expr *w = lx_cast(lb, LT_I64, v);
        if (wrap)
            w = lx_select(lb, lx_bin(lb, BO_LT, w, lx_const_i(lb, LT_I64, 0)),
                          lx_add(lb, w, lx_const_i(lb, LT_I64, depth)), w);
        hit = lx_bin(lb, BO_EQ, w, lx_cast(lb, LT_I64, c));
    } else {
        hit = lx_bin(lb, BO_EQ, lx_cast(lb, LT_U64, v), lx_cast(lb, LT_U64, c));
    }
    LBuf *vb = cx->buf_of(cx, n->in[2]);
    Expr *off = lx_load(lb, vb, lx_int(lb, 0)), *on = lx_load(lb, vb, lx_int(lb, 1));
    s->body = lx_select(lb, hit, on, off);
    s->finalize = lx_var(lb, s->acc);
    return 0;
}

DEFINE_EVAL_BY_COMPUTE(onehot)
