/* argmax.c - ArgMax and ArgMin, every version (1, 11, 12, 13), every type
 * the spec allows (int8..int64, uint8..uint64, float16, bfloat16, float,
 * double); the output is int64.
 *
 * The data is viewed as [outer, len, inner] around the axis; every (outer,
 * inner) row is one loop nest that keeps the best value and its index: a
 * strictly better value moves the index (ties keep the first index), or,
 * with select_last_index = 1 (12+), a better or equal one (ties keep the
 * last). NaN counts as better than every number, as in numpy (the first
 * NaN, or the last one with select_last_index). An empty axis has no index
 * to return and is refused.
 *
 * Normalised attributes: "axis" >= 0, "keepdims" and "select_last_index"
 * 0/1; typed: Node.at.reduce. */
#include "ops/compute.h"
#include "ops/op_util.h"
#include "ops/ops.h"

static int type_ok(DType t)
{
    switch (t) {
    case DT_FLOAT32: case DT_FLOAT64: case DT_FLOAT16: case DT_BFLOAT16:
    case DT_INT8: case DT_INT16: case DT_INT32: case DT_INT64:
    case DT_UINT8: case DT_UINT16: case DT_UINT32: case DT_UINT64:
        return 1;
    default:
        return 0;
    }
}

int op_argmax_infer(Graph *g, int node, Diag *d)
{
    Node *n = &g->nodes[node];
    if (opu_check_arity(g, node, d, 1, 1, 1, 1))
        return -1;
    Value *x = opu_in(g, node, 0);
    if (!type_ok(x->dtype))
        return diag_error(d, g, node, "input type %s is not supported", dtype_name(x->dtype));
    int rank = x->shape.rank, axis;
    if (rank < 1)
        return diag_error(d, g, node, "input must have rank >= 1");
    if (opu_norm_axis(g, node, d, attr_int(n, "axis", 0), rank, "axis", &axis))
        return -1;
    int64_t keep = attr_int(n, "keepdims", 1) != 0;
    int64_t last = n->version >= 12 && attr_int(n, "select_last_index", 0) != 0;
    Shape out = shape_unknown();
    out.rank = 0;
    int64_t rest = 1;
    for (int i = 0; i < rank; i++) {
        if (i != axis)
            rest *= x->shape.dims[i] > 0 ? 1 : 0;
        if (i != axis)
            out.dims[out.rank++] = x->shape.dims[i];
        else if (keep)
            out.dims[out.rank++] = 1;
    }
    if (x->shape.dims[axis] == 0 && rest != 0)
        return diag_error(d, g, node, "axis %d is empty: there is no index to return", axis);
    node_set_int(g, node, "axis", axis);
    node_set_int(g, node, "keepdims", keep);
    node_set_int(g, node, "select_last_index", last);
    n->at.reduce = (ReduceAttrs){.axis = axis, .keepdims = (int)keep, .select_last_index = (int)last};
    opu_set_out(g, node, 0, DT_INT64, out);
    return 0;
}

DEFINE_EVAL_BY_COMPUTE(argmax)

int compute_argmax(ComputeCtx *cx, int node, ComputeDef *def)
{
    LoopBuilder *lb = cx->lb;
    const Node *n = &cx->g->nodes[node];
    const Value *x = &cx->g->values[n->in[0]];
    int axis = n->at.reduce.axis;
    int last = n->at.reduce.select_last_index;
    int64_t outer, len, inner;
    opu_axis_view(&x->shape, axis, &outer, &len, &inner);
    LType t = lt_of_dtype(x->dtype);
    LBuf *in = cx->buf_of(cx, n->in[0]), *out = cx->buf_of(cx, n->out[0]);
    LBuf *best = lbuf_new_typed(lb, "best", LB_LOCAL, lt_dtype(t), 1);
    LBuf *arg = lbuf_new_typed(lb, "arg", LB_LOCAL, DT_INT64, 1);
    LVar *o = lv_new(lb, "o"), *i = lv_new(lb, "in"), *l = lv_new(lb, "l");
    Expr *zero = lx_int(lb, 0);
    /* index(o, l, i) = (o * len + l) * inner + i */
#define IDX(le) lx_add(lb, lx_muli(lb, lx_add(lb, lx_muli(lb, lx_var(lb, o), len), le), inner), lx_var(lb, i))
    Expr *xv = lx_load(lb, in, IDX(lx_var(lb, l))), *cur = lx_load(lb, best, zero);
    BinOp cmp;
    if (n->op == OP_ARGMAX)
        cmp = last ? BO_GE : BO_GT;
    else
        cmp = last ? BO_LE : BO_LT;
    Expr *better = lx_bin(lb, cmp, xv, cur);
    if (lt_is_float(t)) {
        /* numpy: NaN wins over every number; the first NaN (the last one
         * with select_last_index) is the answer */
        Expr *nx = lx_call(lb, CO_ISNAN, xv), *nb = lx_call(lb, CO_ISNAN, cur);
        better = lx_select(lb, nb, last ? nx : lx_const_i(lb, LT_BOOL, 0), lx_bin(lb, BO_OR, nx, better));
    }
    Stmt *upd = ls_if(lb, better, ls_seq2(lb, ls_store(lb, best, zero, xv),
                                          ls_store(lb, arg, zero, lx_cast(lb, LT_I64, lx_var(lb, l)))));
    Stmt *items[3] = {ls_seq2(lb, ls_store(lb, best, zero, lx_load(lb, in, IDX(zero))),
                              ls_store(lb, arg, zero, lx_const_i(lb, LT_I64, 0))),
                      ls_for(lb, l, len, LOOP_SERIAL, upd),
                      ls_store(lb, out, lx_add(lb, lx_muli(lb, lx_var(lb, o), inner), lx_var(lb, i)),
                               lx_load(lb, arg, zero))};
#undef IDX
    Stmt *row = ls_alloc(lb, best, ls_alloc(lb, arg, ls_seq(lb, 3, items)));
    def->custom = ls_for(lb, o, outer, LOOP_SERIAL, ls_for(lb, i, inner, LOOP_SERIAL, row));
    return 0;
}
