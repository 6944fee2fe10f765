/* loss.c - NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss.
 *
 * Input [N, C, d1...] (log-probabilities, or scores for SCE), target
 * [N, d1...] of int32/int64 class indices, optional weight [C]. Per element
 * loss = -x[n, t, d] * w[t], 0 where t == ignore_index; SCE takes x from
 * LogSoftmax over axis 1 (max-subtracted, and its optional second output is
 * that log_prob tensor). reduction none keeps [N, d1...]; sum adds up; mean
 * divides by the sum of the weights of the counted elements, following the
 * ONNX reference exactly: with a weight input, sum of w[t] over elements
 * not ignored; without one, the count of elements not ignored when
 * ignore_index is set (for NLL: set and not -1), else all elements. A
 * target out of [0, C) is clamped for the lookups, as the reference's
 * take(mode="clip") does. One loop nest with two accumulators.
 *
 * Normalised attributes: "mode" 0 none / 1 sum / 2 mean, "has_ii",
 * "ignore_index". */
#include <string.h>

#include "ops/compute.h"
#include "ops/op_util.h"
#include "ops/ops.h"

int op_loss_infer(Graph *g, int node, Diag *d)
{
    Node *n = &g->nodes[node];
    int sce = n->op == OP_SCELOSS;
    if (opu_check_arity(g, node, d, 2, 3, 1, sce ? 2 : 1))
        return -1;
    Value *x = opu_in(g, node, 0), *t = opu_in(g, node, 1), *w = opu_in(g, node, 2);
    if (!dtype_is_float(x->dtype) || dtype_size(x->dtype) < 2)
        return diag_error(d, g, node, "input type %s is not supported", dtype_name(x->dtype));
    if (t->dtype != DT_INT64 && t->dtype != DT_INT32)
        return diag_error(d, g, node, "target must be int32 or int64, got %s", dtype_name(t->dtype));
    if (x->shape.rank < 2 || t->shape.rank != x->shape.rank - 1 || t->shape.dims[0] != x->shape.dims[0])
        return diag_error(d, g, node, "input %s and target %s do not fit [N,C,d...] and [N,d...]",
                          opu_shape_str(&x->shape), opu_shape_str(&t->shape));
    for (int i = 1; i < t->shape.rank; i++)
        if (t->shape.dims[i] != x->shape.dims[i + 1])
            return diag_error(d, g, node, "input %s and target %s do not fit [N,C,d...] and [N,d...]",
                              opu_shape_str(&x->shape), opu_shape_str(&t->shape));
    if (w && (w->dtype != x->dtype || w->shape.rank != 1 || w->shape.dims[0] != x->shape.dims[1]))
        return diag_error(d, g, node, "weight must be [%lld] of the input's type", (long long)x->shape.dims[1]);
    const char *red = attr_string(n, "reduction", "mean");
    int mode = !strcmp(red, "none") ? 0 : !strcmp(red, "sum") ? 1 : !strcmp(red, "mean") ? 2 : -1;
    if (mode < 0)
        return diag_error(d, g, node, "reduction must be none, sum or mean, got '%s'", red);
    n->at.loss.reduction = mode;
    n->at.loss.has_ignore_index = node_attr(n, "ignore_index") != NULL;
    n->at.loss.ignore_index = attr_int(n, "ignore_index", 0);
    opu_set_out(g, node, 0, x->dtype, mode == 0 ? t->shape : shape_make(0, NULL));
    if (n->n_out > 1)
        opu_set_out(g, node, 1, x->dtype, x->shape);
    return 0;
}

int compute_loss(ComputeCtx *cx, int node, ComputeDef *def)
{
    LoopBuilder *lb = cx->lb;
    const Node *n = &cx->g->nodes[node];
    int sce = n->op == OP_SCELOSS, mode = n->at.loss.reduction, has_ii = n->at.loss.has_ignore_index;
    int64_t ii = n->at.loss.ignore_index;
    const Value *x = &cx->g->values[n->in[0]];
    int64_t N = x->shape.dims[0], C = x->shape.dims[1], D = 1;
    for (int i = 2; i < x->shape.rank; i++)
        D *= x->shape.dims[i];
    LType t = lt_of_dtype(x->dtype);
    LBuf *xb = cx->buf_of(cx, n->in[0]), *tb = cx->buf_of(cx, n->in[1]), *yb = cx->buf_of(cx, n->out[0]);
    LBuf *wb = n->n_in > 2 && n->in[2] >= 0 ? cx->buf_of(cx, n->in[2]) : NULL;
    LBuf *lpb = sce && n->n_out > 1 && n->out[1] >= 0 ? cx->buf_of(cx, n->out[1]) : NULL;
    LVar *vn = lv_new(lb, "n"), *vd = lv_new(lb, "d");
    Expr *en = lx_var(lb, vn), *ed = lx_var(lb, vd), *z = lx_int(lb, 0);
    Expr *at_nd = lx_add(lb, lx_muli(lb, en, D), ed);
    /* x[n, c, d] */
#define XAT(c) lx_add(lb, lx_muli(lb, lx_add(lb, lx_muli(lb, en, C), (c)), D), ed)
    Expr *tgt = lx_cast(lb, LT_I64, lx_load(lb, tb, at_nd));
    Expr *valid = has_ii ? lx_bin(lb, BO_NE, tgt, lx_const_i(lb, LT_I64, ii)) : lx_const_i(lb, LT_BOOL, 1);
    Expr *tc = lx_cast(lb, LT_IDX, lx_bin(lb, BO_MIN, lx_bin(lb, BO_MAX, tgt, lx_const_i(lb, LT_I64, 0)),
                                         lx_const_i(lb, LT_I64, C - 1)));
    LBuf *acc = lbuf_new_typed(lb, "acc", LB_LOCAL, lt_dtype(t), 4); /* loss, weight, max, sum */
    Expr *a_loss = lx_load(lb, acc, z), *a_w = lx_load(lb, acc, lx_int(lb, 1));
    Stmt *row[8];
    int k = 0;
    Expr *xv = lx_cast(lb, t, lx_load(lb, xb, XAT(tc)));
    if (sce) { /* log-sum-exp of the scores over the classes */
        LVar *c1 = lv_new(lb, "c"), *c2 = lv_new(lb, "c");
        Expr *mx = lx_load(lb, acc, lx_int(lb, 2)), *sm = lx_load(lb, acc, lx_int(lb, 3));
        row[k++] = ls_store(lb, acc, lx_int(lb, 2), lx_lowest(lb, t));
        row[k++] = ls_for(lb, c1, C, LOOP_SERIAL,
                          ls_store(lb, acc, lx_int(lb, 2),
                                   lx_bin(lb, BO_MAX, mx, lx_cast(lb, t, lx_load(lb, xb, XAT(lx_var(lb, c1)))))));
        row[k++] = ls_store(lb, acc, lx_int(lb, 3), lx_zero(lb, t));
        Expr *e = lx_call(lb, CO_EXP, lx_sub(lb, lx_cast(lb, t, lx_load(lb, xb, XAT(lx_var(lb, c2)))), mx));
        row[k++] = ls_for(lb, c2, C, LOOP_SERIAL, ls_store(lb, acc, lx_int(lb, 3), lx_add(lb, sm, e)));
        Expr *lse = lx_add(lb, mx, lx_call(lb, CO_LOG, sm));
        if (lpb) {
            LVar *c3 = lv_new(lb, "c");
            row[k++] = ls_for(lb, c3, C, LOOP_SERIAL,
                              ls_store(lb, lpb, XAT(lx_var(lb, c3)),
                                       lx_sub(lb, lx_cast(lb, t, lx_load(lb, xb, XAT(lx_var(lb, c3)))), lse)));
        }
        xv = lx_sub(lb, xv, lse);
    }
    Expr *w = wb ? lx_cast(lb, t, lx_load(lb, wb, tc)) : lx_one(lb, t);
    Expr *loss = lx_select(lb, valid, lx_mul(lb, lx_call(lb, CO_NEG, xv), w), lx_zero(lb, t));
    if (mode == 0) {
        row[k++] = ls_store(lb, yb, at_nd, loss);
    } else {
        row[k++] = ls_store(lb, acc, z, lx_add(lb, a_loss, loss));
        row[k++] = ls_store(lb, acc, lx_int(lb, 1), lx_add(lb, a_w, lx_select(lb, valid, w, lx_zero(lb, t))));
    }
#undef XAT
    Stmt *loops = ls_for(lb, vn, N, LOOP_SERIAL, ls_for(lb, vd, D, LOOP_SERIAL, ls_seq(lb, k, row)));
    Stmt *items[4];
    int m = 0;
    items[m++] = ls_store(lb, acc, z, lx_zero(lb, t));
    items[m++] = ls_store(lb, acc, lx_int(lb, 1), lx_zero(lb, t));
    items[m++] = loops;
    if (mode == 1) {
        items[m++] = ls_store(lb, yb, z, a_loss);
    } else if (mode == 2) {
        /* the denominator of the reference's mean */
        int by_weight = wb || (has_ii && (sce || ii != -1));
        Expr *den = by_weight ? a_w : lx_const_f(lb, t, (double)(N * D));
        items[m++] = ls_store(lb, yb, z, lx_div(lb, a_loss, den));
    }
    def->custom = ls_alloc(lb, acc, ls_seq(lb, m, items));
    return 0;
}

DEFINE_EVAL_BY_COMPUTE(loss)
