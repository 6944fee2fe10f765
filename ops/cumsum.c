/* cumsum.c - CumSum (11, 14) and CumProd (26): running sums / products
 * along one axis, every type the spec allows (int32, int64, uint32,
 * uint64, float16, bfloat16, float, double).
 *
 * The axis is input 1 (a scalar or one-element int32/int64 tensor). It
 * does not decide the output shape, so it may be a run-time input. A
 * constant axis builds one loop nest. A run-time axis is loaded (as int64)
 * and normalised (negative counts from the end); the definition holds the
 * rank possible nests and a chain of ifs picks one. An out-of-range axis
 * is clamped after normalisation: below -rank acts as axis 0, rank or more
 * as axis rank-1 (a defined result, never an out-of-bounds access).
 * The data is viewed as [outer, len, inner]; every (outer, inner)
 * row is one serial loop carrying the running value in a local:
 *   inclusive  y[j] = x[0] op ... op x[j]
 *   exclusive  y[j] = x[0] op ... op x[j-1]   (y[0] = 0 or 1)
 * and reverse = 1 runs the row from its end. The running value is kept in
 * the element type (float16/bfloat16 round at every step as numpy does;
 * integers wrap).
 *
 * Normalised attributes: "axis" >= 0 (from a constant input 1) or -1
 * (run-time axis, read from input 1), "exclusive" and
 * "reverse" 0/1. */
#include "ops/compute.h"
#include "ops/op_util.h"
#include "ops/ops.h"

static int type_ok(DType t)
{
    switch (t) {
    case DT_FLOAT32: case DT_FLOAT64: case DT_FLOAT16: case DT_BFLOAT16:
    case DT_INT32: case DT_INT64: case DT_UINT32: case DT_UINT64:
        return 1;
    default:
        return 0;
    }
}

int op_cumsum_infer(Graph *g, int node, Diag *d)
{
    if (opu_check_arity(g, node, d, 2, 2, 1, 1))
        return -1;
    Node *n = &g->nodes[node];
    Value *x = opu_in(g, node, 0), *av = opu_in(g, node, 1);
    if (!type_ok(x->dtype))
        return diag_error(d, g, node, "input type %s is not supported", dtype_name(x->dtype));
    if (av->dtype != DT_INT32 && av->dtype != DT_INT64)
        return diag_error(d, g, node, "axis must be int32 or int64, not %s", dtype_name(av->dtype));
    if (x->shape.rank < 1)
        return diag_error(d, g, node, "input must have rank >= 1");
    int axis = -1;
    if (av->data) {
        int64_t raw[2];
        int na = 0;
        if (opu_const_ints(g, node, d, 1, raw, 2, &na))
            return -1;
        if (na != 1)
            return diag_error(d, g, node, "axis must hold one value, not %d", na);
        if (opu_norm_axis(g, node, d, raw[0], x->shape.rank, "axis", &axis))
            return -1;
    } else {
        int64_t an = 0;
        if (av->shape.rank > 1 || (shape_numel(&av->shape, &an) && an != 1))
            return diag_error(d, g, node, "axis must be a scalar or hold one value");
    }
    CumSumAttrs *ca = &g->nodes[node].at.cumsum;
    ca->axis = axis;
    ca->exclusive = attr_int(n, "exclusive", 0) != 0;
    ca->reverse = attr_int(n, "reverse", 0) != 0;
    node_set_int(g, node, "exclusive", ca->exclusive);
    node_set_int(g, node, "reverse", ca->reverse);
    opu_set_out(g, node, 0, x->dtype, x->shape);
    return 0;
}

DEFINE_EVAL_BY_COMPUTE(cumsum)

/* The nest of one axis: every (outer, inner) row runs serially. */
static Stmt *cum_nest(ComputeCtx *cx, int node, int axis)
{
    LoopBuilder *lb = cx->lb;
    const Node *n = &cx->g->nodes[node];
    const Value *x = &cx->g->values[n->in[0]];
    int excl = n->at.cumsum.exclusive, rev = n->at.cumsum.reverse;
    int prod = n->op == OP_CUMPROD;
    int64_t outer, len, inner;
    opu_axis_view(&x->shape, axis, &outer, &len, &inner);
    LType t = lt_of_dtype(x->dtype);
    LBuf *in = cx->buf_of(cx, n->in[0]), *out = cx->buf_of(cx, n->out[0]);
    LBuf *acc = lbuf_new_typed(lb, "run", LB_LOCAL, lt_dtype(t), 2); /* running, next */
    LVar *o = lv_new(lb, "o"), *i = lv_new(lb, "in"), *l = lv_new(lb, "l");
    Expr *zero = lx_int(lb, 0), *one = lx_int(lb, 1);
    Expr *pos = rev ? lx_sub(lb, lx_int(lb, len - 1), lx_var(lb, l)) : lx_var(lb, l);
    /* index(o, pos, i) = (o * len + pos) * inner + i */
    Expr *idx = lx_add(lb, lx_muli(lb, lx_add(lb, lx_muli(lb, lx_var(lb, o), len), pos), inner), lx_var(lb, i));
    Expr *cur = lx_load(lb, acc, zero), *xv = lx_load(lb, in, idx);
    Expr *nv = prod ? lx_mul(lb, cur, xv) : lx_add(lb, cur, xv);
    Stmt *body;
    if (x->dtype == DT_FLOAT16 || x->dtype == DT_BFLOAT16) {
        /* locals compute in float32: round the running value through the
         * output element (new value stored, read back, then the exclusive
         * form puts the previous one there) */
        Stmt *items[4] = {ls_store(lb, out, idx, nv), ls_store(lb, acc, one, lx_load(lb, out, idx)),
                          excl ? ls_store(lb, out, idx, cur) : NULL,
                          ls_store(lb, acc, zero, lx_load(lb, acc, one))};
        body = ls_seq(lb, 4, items);
    } else {
        Stmt *step = ls_store(lb, acc, zero, nv);
        Stmt *put = ls_store(lb, out, idx, cur);
        body = excl ? ls_seq2(lb, put, step) : ls_seq2(lb, step, put);
    }
    Stmt *row = ls_alloc(lb, acc, ls_seq2(lb, ls_store(lb, acc, zero, prod ? lx_one(lb, t) : lx_zero(lb, t)),
                                          ls_for(lb, l, len, LOOP_SERIAL, body)));
    return ls_for(lb, o, outer, LOOP_SERIAL, ls_for(lb, i, inner, LOOP_SERIAL, row));
}

int compute_cumsum(ComputeCtx *cx, int node, ComputeDef *def)
{
    LoopBuilder *lb = cx->lb;
    const Node *n = &cx->g->nodes[node];
    int rank = cx->g->values[n->in[0]].shape.rank;
    int axis = n->at.cumsum.axis;
    if (axis >= 0) {
        def->custom = cum_nest(cx, node, axis);
        return 0;
    }
    /* run-time axis: a = axis < 0 ? axis + rank : axis, then clamped to
     * [0, rank-1] by the if chain (a <= 0 -> 0, ..., else rank-1) */
    Expr *a = lx_cast(lb, LT_I64, lx_load(lb, cx->buf_of(cx, n->in[1]), lx_int(lb, 0)));
    a = lx_select(lb, lx_bin(lb, BO_LT, a, lx_const_i(lb, LT_I64, 0)), lx_add(lb, a, lx_const_i(lb, LT_I64, rank)), a);
    Stmt *s = cum_nest(cx, node, rank - 1);
    for (int k = rank - 2; k >= 0; k--) {
        BinOp op = k == 0 ? BO_LE : BO_EQ;
        s = ls_if_else(lb, lx_bin(lb, op, a, lx_const_i(lb, LT_I64, k)), cum_nest(cx, node, k), s);
    }
    def->custom = s;
    return 0;
}
