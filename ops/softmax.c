/* softmax.c - Softmax, LogSoftmax and Hardmax, every version, float16,
 * bfloat16, float32 and float64.
 *
 * Version >= 13: the operator works along one axis (default -1). Versions
 * 1 and 11: the input is coerced to 2-D [prod(dims[:axis]),
 * prod(dims[axis:])] (axis default 1) and the operator works along the
 * second dimension, i.e. over the flattened tail. Either way the data is a
 * [outer, len, inner] view and every (outer, inner) row is one loop nest:
 *   Softmax     exp(x - max) / sum(exp(x - max))  (the reference subtracts
 *               the maximum before exponentiating)
 *   LogSoftmax  x - max - log(sum(exp(x - max)))
 *   Hardmax     1 at the first index of the row's maximum, 0 elsewhere
 * float16/bfloat16 compute in float32 (loads widen, stores narrow).
 * float32 Softmax/LogSoftmax along the innermost axis (inner == 1) take
 * float_rows: Softmax's exponentials stored once and scaled by 1/sum, the
 * row loops marked contiguous so that the schedule (schedule_custom.c) runs
 * them in vectors with the max and the sum as per-lane partials.
 *
 * Typed attributes (Node.at.softmax): axis >= 0, coerce2d 1 for the
 * version < 13 semantics, 0 otherwise. */
#include <math.h>

#include "ops/compute.h"
#include "ops/op_util.h"
#include "ops/ops.h"

int op_softmax_infer(Graph *g, int node, Diag *d)
{
    Node *n = &g->nodes[node];
    if (opu_check_arity(g, node, d, 1, 1, 1, 1))
        return -1;
    Value *x = opu_in(g, node, 0);
    DType t = x->dtype;
    if (t != DT_FLOAT32 && t != DT_FLOAT64 && t != DT_FLOAT16 && t != DT_BFLOAT16)
        return diag_error(d, g, node, "input type %s is not supported (float16, bfloat16, float, double)",
                          dtype_name(t));
    int coerce = n->version < 13, axis;
    if (x->shape.rank < 1)
        return diag_error(d, g, node, "input must have rank >= 1");
    if (opu_norm_axis(g, node, d, attr_int(n, "axis", coerce ? 1 : -1), x->shape.rank, "axis", &axis))
        return -1;
    node_set_int(g, node, "axis", axis);
    n->at.softmax.axis = axis;
    n->at.softmax.coerce2d = coerce;
    opu_set_out(g, node, 0, t, x->shape);
    return 0;
}

DEFINE_EVAL_BY_COMPUTE(softmax)

/* Softmax / LogSoftmax of float32 rows [outer, len] (inner == 1): the
 * exponentials stored once and scaled by 1/sum. The row loops are contiguous
 * (LR_LANES: the schedule runs them in vectors, the max and the sum as
 * per-lane partials combined at the row's end) and the rows independent. */
static Stmt *float_rows(ComputeCtx *cx, int softmax, LBuf *in, LBuf *out, int64_t outer, int64_t len)
{
    LoopBuilder *lb = cx->lb;
    LBuf *m = lbuf_new_typed(lb, "mx", LB_LOCAL, DT_FLOAT32, 1), *sm = lbuf_new_typed(lb, "sum", LB_LOCAL, DT_FLOAT32, 1);
    LVar *o = lv_new(lb, "o");
    Expr *zero = lx_int(lb, 0), *row = lx_muli(lb, lx_var(lb, o), len);
    Expr *mx = lx_load(lb, m, zero), *su = lx_load(lb, sm, zero);
#define ROW(l, body) ls_role(ls_for(lb, l, len, LOOP_SERIAL, body), LR_LANES, 0)
#define AT(l) lx_add(lb, row, lx_var(lb, l))
    LVar *l1 = lv_new(lb, "l"), *l2 = lv_new(lb, "l"), *l3 = lv_new(lb, "l");
    Stmt *mx_s = ls_seq2(lb, ls_store(lb, m, zero, lx_lowest(lb, LT_F32)),
                         ROW(l1, ls_store(lb, m, zero, lx_bin(lb, BO_MAX, mx, lx_load(lb, in, AT(l1))))));
    /* sum of exp(x - max); Softmax stores the exponentials in out on the way */
    Expr *e = lx_call(lb, CO_EXP, lx_sub(lb, lx_load(lb, in, AT(l2)), mx));
    Stmt *upd = softmax ? ls_seq2(lb, ls_store(lb, out, AT(l2), e), ls_store(lb, sm, zero, lx_add(lb, su, lx_load(lb, out, AT(l2)))))
                        : ls_store(lb, sm, zero, lx_add(lb, su, e));
    Stmt *sum_s = ls_seq2(lb, ls_store(lb, sm, zero, lx_zero(lb, LT_F32)), ROW(l2, upd));
    /* Softmax: out *= 1/sum; LogSoftmax: out = x - (max + log(sum)) */
    Stmt *fin;
    if (softmax)
        fin = ls_seq2(lb, ls_store(lb, sm, zero, lx_div(lb, lx_one(lb, LT_F32), su)), /* sum := 1/sum */
                      ROW(l3, ls_store(lb, out, AT(l3), lx_mul(lb, lx_load(lb, out, AT(l3)), su))));
    else
        fin = ls_seq2(lb, ls_store(lb, sm, zero, lx_add(lb, mx, lx_call(lb, CO_LOG, su))), /* sum := max + log(sum) */
                      ROW(l3, ls_store(lb, out, AT(l3), lx_sub(lb, lx_load(lb, in, AT(l3)), su))));
#undef ROW
#undef AT
    Stmt *all[3] = {mx_s, sum_s, fin};
    Stmt *body = ls_alloc(lb, m, ls_alloc(lb, sm, ls_seq(lb, 3, all)));
    return ls_role(ls_for(lb, o, outer, LOOP_SERIAL, body), LR_INDEPENDENT, outer * len); /* rows are independent */
}

int compute_softmax(ComputeCtx *cx, int node, ComputeDef *def)
{
    LoopBuilder *lb = cx->lb;
    const Node *n = &cx->g->nodes[node];
    const Value *x = &cx->g->values[n->in[0]];
    int axis = n->at.softmax.axis, coerce = n->at.softmax.coerce2d;
    int64_t outer = 1, len = 1, inner = 1;
    for (int i = 0; i < x->shape.rank; i++) {
        if (i < axis)
            outer *= x->shape.dims[i];
        else if (i == axis || coerce)
            len *= x->shape.dims[i];
        else
            inner *= x->shape.dims[i];
    }
    LType t = lt_of_dtype(x->dtype);
    LBuf *in = cx->buf_of(cx, n->in[0]), *out = cx->buf_of(cx, n->out[0]);
    if (n->op != OP_HARDMAX && x->dtype == DT_FLOAT32 && inner == 1) {
        def->custom = float_rows(cx, n->op == OP_SOFTMAX, in, out, outer, len);
        return 0;
    }
    LBuf *mx = lbuf_new_typed(lb, "mx", LB_LOCAL, lt_dtype(t), 1);
    LBuf *sum = lbuf_new_typed(lb, "sum", LB_LOCAL, lt_dtype(t), 1);
    LBuf *arg = lbuf_new_typed(lb, "arg", LB_LOCAL, DT_INT32, 1);
    LVar *o = lv_new(lb, "o"), *i = lv_new(lb, "in"), *l1 = lv_new(lb, "l"), *l2 = lv_new(lb, "l"),
         *l3 = lv_new(lb, "l");
    Expr *zero = lx_int(lb, 0);
    /* index(o, l, i) = (o * len + l) * inner + i */
#define IDX(l) lx_add(lb, lx_muli(lb, lx_add(lb, lx_muli(lb, lx_var(lb, o), len), lx_var(lb, l)), inner), lx_var(lb, i))
    Expr *cur_mx = lx_load(lb, mx, zero), *x1 = lx_load(lb, in, IDX(l1));
    Stmt *s_max, *s_sum = NULL, *s_out;
    if (n->op == OP_HARDMAX) {
        /* first index of the maximum: a strictly greater value moves it */
        Expr *gt = lx_bin(lb, BO_GT, x1, cur_mx);
        Stmt *upd = ls_if(lb, gt, ls_seq2(lb, ls_store(lb, mx, zero, x1),
                                          ls_store(lb, arg, zero, lx_cast(lb, LT_I32, lx_var(lb, l1)))));
        Stmt *init[2] = {ls_store(lb, mx, zero, lx_lowest(lb, t)), ls_store(lb, arg, zero, lx_const_i(lb, LT_I32, 0))};
        s_max = ls_seq2(lb, ls_seq(lb, 2, init), ls_for(lb, l1, len, LOOP_SERIAL, upd));
        Expr *hit = lx_bin(lb, BO_EQ, lx_cast(lb, LT_I32, lx_var(lb, l3)), lx_load(lb, arg, zero));
        s_out = ls_for(lb, l3, len, LOOP_SERIAL,
                       ls_store(lb, out, IDX(l3), lx_select(lb, hit, lx_one(lb, t), lx_zero(lb, t))));
    } else {
        s_max = ls_seq2(lb, ls_store(lb, mx, zero, lx_lowest(lb, t)),
                        ls_for(lb, l1, len, LOOP_SERIAL, ls_store(lb, mx, zero, lx_bin(lb, BO_MAX, cur_mx, x1))));
        Expr *e2 = lx_call(lb, CO_EXP, lx_sub(lb, lx_load(lb, in, IDX(l2)), cur_mx));
        s_sum = ls_seq2(lb, ls_store(lb, sum, zero, lx_zero(lb, t)),
                        ls_for(lb, l2, len, LOOP_SERIAL,
                               ls_store(lb, sum, zero, lx_add(lb, lx_load(lb, sum, zero), e2))));
        Expr *d3 = lx_sub(lb, lx_load(lb, in, IDX(l3)), cur_mx), *v;
        if (n->op == OP_LOGSOFTMAX)
            v = lx_sub(lb, d3, lx_call(lb, CO_LOG, lx_load(lb, sum, zero)));
        else
            v = lx_div(lb, lx_call(lb, CO_EXP, d3), lx_load(lb, sum, zero));
        s_out = ls_for(lb, l3, len, LOOP_SERIAL, ls_store(lb, out, IDX(l3), v));
    }
#undef IDX
    Stmt *items[3] = {s_max, s_sum, s_out};
    /* only the locals the row uses: an unused one is a -Wunused-variable */
    Stmt *body = ls_seq(lb, 3, items);
    Stmt *row = ls_alloc(lb, mx, n->op == OP_HARDMAX ? ls_alloc(lb, arg, body) : ls_alloc(lb, sum, body));
    def->custom = ls_for(lb, o, outer, LOOP_SERIAL, ls_for(lb, i, inner, LOOP_SERIAL, row));
    return 0;
}
