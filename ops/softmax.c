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
 * float32 Softmax/LogSoftmax along the innermost axis (inner == 1) with a
 * row of at least one vector take a vectorized nest (vector_rows): the
 * max and the sum kept in one vector each and reduced across lanes at the
 * row's end, Softmax's exponentials stored once and scaled by 1/sum.
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

int op_softmax_eval(Graph *g, int node, Diag *d)
{
    return ops_eval_compute(g, node, d);
}

/* Softmax / LogSoftmax of float32 rows [outer, len] (inner == 1), vectors
 * of L lanes along the row; the len % L tail elements scalar. */
static Stmt *vector_rows(ComputeCtx *cx, int softmax, LBuf *in, LBuf *out, int64_t outer, int64_t len, int64_t L)
{
    LoopBuilder *lb = cx->lb;
    int64_t nv = len / L, t0 = nv * L;
    LBuf *vm = lbuf_new_typed(lb, "vmx", LB_LOCAL, DT_FLOAT32, L), *vs = lbuf_new_typed(lb, "vsum", LB_LOCAL, DT_FLOAT32, L);
    LBuf *m = lbuf_new_typed(lb, "mx", LB_LOCAL, DT_FLOAT32, 1), *sm = lbuf_new_typed(lb, "sum", LB_LOCAL, DT_FLOAT32, 1);
    LVar *o = lv_new(lb, "o");
    Expr *zero = lx_int(lb, 0), *row = lx_muli(lb, lx_var(lb, o), len);
    Expr *mx = lx_load(lb, m, zero), *su = lx_load(lb, sm, zero);
    /* for c < nv, lane < L: f(index c*L + lane, lane) */
#define VEC(c, l, body) ls_for(lb, c, nv, LOOP_SERIAL, ls_for(lb, l, L, LOOP_VECTORIZE, body))
#define VI(c, l) lx_add(lb, row, lx_add(lb, lx_muli(lb, lx_var(lb, c), L), lx_var(lb, l)))
#define TAIL(t, body) (len > t0 ? ls_for(lb, t, len - t0, LOOP_SERIAL, body) : NULL)
#define TI(t) lx_add(lb, row, lx_add(lb, lx_var(lb, t), lx_int(lb, t0)))
    LVar *l0 = lv_new(lb, "l"), *c1 = lv_new(lb, "c"), *l1 = lv_new(lb, "l"), *r1 = lv_new(lb, "l"), *t1 = lv_new(lb, "t");
    Stmt *mx_s[5] = {
        ls_for(lb, l0, L, LOOP_VECTORIZE, ls_store(lb, vm, lx_var(lb, l0), lx_lowest(lb, LT_F32))),
        VEC(c1, l1, ls_store(lb, vm, lx_var(lb, l1), lx_bin(lb, BO_MAX, lx_load(lb, vm, lx_var(lb, l1)), lx_load(lb, in, VI(c1, l1))))),
        ls_store(lb, m, zero, lx_lowest(lb, LT_F32)),
        ls_for(lb, r1, L, LOOP_SERIAL, ls_store(lb, m, zero, lx_bin(lb, BO_MAX, mx, lx_load(lb, vm, lx_var(lb, r1))))),
        TAIL(t1, ls_store(lb, m, zero, lx_bin(lb, BO_MAX, mx, lx_load(lb, in, TI(t1))))),
    };
    /* sum of exp(x - max); Softmax stores the exponentials in out on the way */
    LVar *l2 = lv_new(lb, "l"), *c2 = lv_new(lb, "c"), *l3 = lv_new(lb, "l"), *r2 = lv_new(lb, "l"), *t2 = lv_new(lb, "t");
    Expr *ev = lx_call(lb, CO_EXP, lx_sub(lb, lx_load(lb, in, VI(c2, l3)), mx));
    Expr *et = lx_call(lb, CO_EXP, lx_sub(lb, lx_load(lb, in, TI(t2)), mx));
    Stmt *vupd, *tupd;
    if (softmax) {
        vupd = ls_seq2(lb, ls_store(lb, out, VI(c2, l3), ev),
                       ls_store(lb, vs, lx_var(lb, l3), lx_add(lb, lx_load(lb, vs, lx_var(lb, l3)), lx_load(lb, out, VI(c2, l3)))));
        tupd = ls_seq2(lb, ls_store(lb, out, TI(t2), et), ls_store(lb, sm, zero, lx_add(lb, su, lx_load(lb, out, TI(t2)))));
    } else {
        vupd = ls_store(lb, vs, lx_var(lb, l3), lx_add(lb, lx_load(lb, vs, lx_var(lb, l3)), ev));
        tupd = ls_store(lb, sm, zero, lx_add(lb, su, et));
    }
    Stmt *sum_s[5] = {
        ls_for(lb, l2, L, LOOP_VECTORIZE, ls_store(lb, vs, lx_var(lb, l2), lx_zero(lb, LT_F32))),
        VEC(c2, l3, vupd),
        ls_store(lb, sm, zero, lx_zero(lb, LT_F32)),
        ls_for(lb, r2, L, LOOP_SERIAL, ls_store(lb, sm, zero, lx_add(lb, su, lx_load(lb, vs, lx_var(lb, r2))))),
        TAIL(t2, tupd),
    };
    /* Softmax: out *= 1/sum; LogSoftmax: out = x - (max + log(sum)) */
    LVar *c3 = lv_new(lb, "c"), *l4 = lv_new(lb, "l"), *t3 = lv_new(lb, "t");
    Stmt *fin[3];
    if (softmax) {
        fin[0] = ls_store(lb, sm, zero, lx_div(lb, lx_one(lb, LT_F32), su)); /* sum := 1/sum */
        fin[1] = VEC(c3, l4, ls_store(lb, out, VI(c3, l4), lx_mul(lb, lx_load(lb, out, VI(c3, l4)), su)));
        fin[2] = TAIL(t3, ls_store(lb, out, TI(t3), lx_mul(lb, lx_load(lb, out, TI(t3)), su)));
    } else {
        fin[0] = ls_store(lb, sm, zero, lx_add(lb, mx, lx_call(lb, CO_LOG, su))); /* sum := max + log(sum) */
        fin[1] = VEC(c3, l4, ls_store(lb, out, VI(c3, l4), lx_sub(lb, lx_load(lb, in, VI(c3, l4)), su)));
        fin[2] = TAIL(t3, ls_store(lb, out, TI(t3), lx_sub(lb, lx_load(lb, in, TI(t3)), su)));
    }
#undef VEC
#undef VI
#undef TAIL
#undef TI
    Stmt *all[3] = {ls_seq(lb, 5, mx_s), ls_seq(lb, 5, sum_s), ls_seq(lb, 3, fin)};
    Stmt *body = ls_alloc(lb, vm, ls_alloc(lb, vs, ls_alloc(lb, m, ls_alloc(lb, sm, ls_seq(lb, 3, all)))));
    int par = compute_threads(cx) > 1 && outer > 1 && (double)outer * (double)len >= 32768.0;
    return ls_for(lb, o, outer, par ? LOOP_PARALLEL : LOOP_SERIAL, body); /* rows are independent */
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
    int vl = compute_vl(cx);
    if (n->op != OP_HARDMAX && x->dtype == DT_FLOAT32 && inner == 1 && vl > 1 && len >= vl) {
        def->custom = vector_rows(cx, n->op == OP_SOFTMAX, in, out, outer, len, vl);
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
