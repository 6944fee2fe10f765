/* trilu.c - Trilu (version 14): the upper or lower triangular part of the
 * last two dims of a tensor of rank >= 2, the other elements zeroed.
 *
 * y[..., i, j] = x[..., i, j] when j - i >= k (upper = 1) or j - i <= k
 * (upper = 0), else 0 of the element type (false for bool). k is the
 * optional second input (a scalar int64, default 0). It decides values, not
 * the shape, so it may stay a run-time input; when it is a constant it is
 * folded into the condition (and clamped to the matrix, where every k
 * beyond it gives the same result).
 *
 * Normalised attributes: "upper" (0 or 1, explicit); "kc" = 1 when k is
 * known at compile time, its value (clamped to [-rows-1, cols+1]) in "k". */
#include "ir/tensor.h"
#include "ops/compute.h"
#include "ops/op_util.h"
#include "ops/ops.h"

int op_trilu_infer(Graph *g, int node, Diag *d)
{
    if (opu_check_arity(g, node, d, 1, 2, 1, 1))
        return -1;
    Value *x = opu_in(g, node, 0), *kv = opu_in(g, node, 1);
    if (!dtype_supported(x->dtype))
        return diag_error(d, g, node, "input type %s is not supported", dtype_name(x->dtype));
    int r = x->shape.rank;
    if (r < 2)
        return diag_error(d, g, node, "input %s must have rank 2 or more", opu_shape_str(&x->shape));
    int64_t rows = x->shape.dims[r - 2], cols = x->shape.dims[r - 1];
    int64_t upper = attr_int(&g->nodes[node], "upper", 1);
    node_set_int(g, node, "upper", upper != 0);
    int kc = 1;
    int64_t k = 0;
    if (kv) {
        int64_t n = 0;
        if (kv->dtype != DT_INT64)
            return diag_error(d, g, node, "k must be int64, not %s", dtype_name(kv->dtype));
        if (!shape_numel(&kv->shape, &n) || n != 1 || kv->shape.rank > 1)
            return diag_error(d, g, node, "k must be a scalar, not %s", opu_shape_str(&kv->shape));
        if (kv->data)
            k = tensor_get_i64(kv->dtype, kv->data, 0);
        else
            kc = 0;
    }
    if (k < -rows - 1)
        k = -rows - 1;
    if (k > cols + 1)
        k = cols + 1;
    TriluAttrs *ta = &g->nodes[node].at.trilu;
    ta->upper = upper != 0;
    ta->k_const = kc;
    ta->k = k;
    opu_set_out(g, node, 0, x->dtype, x->shape);
    return 0;
}

int compute_trilu(ComputeCtx *cx, int node, ComputeDef *def)
{
    LoopBuilder *lb = cx->lb;
    const Node *n = &cx->g->nodes[node];
    const Value *y = &cx->g->values[n->out[0]];
    int r = y->shape.rank, upper = n->at.trilu.upper;
    ComputeStage *s = compute_stage_new(cx, def, n->name, cx->buf_of(cx, n->out[0]), &y->shape);
    if (!s)
        return compute_fail(cx, node, "too many stages");
    s->out_is_node_output = 1;
    LType t = lt_of_dtype(y->dtype);
    /* diff = j - i, compared with k */
    Expr *i = lx_var(lb, s->axis[r - 2]), *j = lx_var(lb, s->axis[r - 1]), *cond;
    if (n->at.trilu.k_const) {
        Expr *diff = lx_sub(lb, j, i), *k = lx_int(lb, n->at.trilu.k);
        cond = upper ? lx_bin(lb, BO_GE, diff, k) : lx_bin(lb, BO_LE, diff, k);
    } else {
        Expr *diff = lx_sub(lb, lx_cast(lb, LT_I64, j), lx_cast(lb, LT_I64, i));
        Expr *k = lx_load(lb, cx->buf_of(cx, n->in[1]), lx_int(lb, 0));
        cond = upper ? lx_bin(lb, BO_GE, diff, k) : lx_bin(lb, BO_LE, diff, k);
    }
    Expr *idx[CTVM_MAX_RANK];
    for (int a = 0; a < r; a++)
        idx[a] = lx_var(lb, s->axis[a]);
    Expr *xv = lx_load(lb, cx->buf_of(cx, n->in[0]), compute_flat_index(cx, &y->shape, idx));
    s->body = lx_select(lb, cond, xv, lx_zero(lb, t));
    s->finalize = lx_var(lb, s->acc);
    return 0;
}

DEFINE_EVAL_BY_COMPUTE(trilu)
