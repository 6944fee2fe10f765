/* compute_softmax.c - Softmax along one axis (opset >= 13) or over the
 * flattened trailing dims (coerce2d, opset < 13): per row, a max reduction,
 * a sum of exp(x - max), then the normalised store. Built directly as a loop
 * nest with two local accumulators per row. */
#include <math.h>

#include "ops/compute.h"

int compute_softmax(ComputeCtx *cx, int node, ComputeDef *def)
{
    LoopBuilder *lb = cx->lb;
    const Node *n = &cx->g->nodes[node];
    const Value *x = &cx->g->values[n->in[0]];
    int axis = (int)attr_int(n, "axis", x->shape.rank - 1);
    int coerce = (int)attr_int(n, "coerce2d", 0);
    int64_t outer = 1, len = 1, inner = 1;
    for (int i = 0; i < x->shape.rank; i++) {
        if (i < axis)
            outer *= x->shape.dims[i];
        else if (i == axis || coerce)
            len *= x->shape.dims[i];
        else
            inner *= x->shape.dims[i];
    }
    LBuf *in = cx->buf_of(cx, n->in[0]), *out = cx->buf_of(cx, n->out[0]);
    LBuf *mx = lbuf_new(lb, "mx", LB_LOCAL, 1), *sum = lbuf_new(lb, "sum", LB_LOCAL, 1);
    LVar *o = lv_new(lb, "o"), *i = lv_new(lb, "in"), *l1 = lv_new(lb, "l"), *l2 = lv_new(lb, "l"),
         *l3 = lv_new(lb, "l");
    Expr *zero = lx_int(lb, 0);
    /* index(o, l, i) = (o * len + l) * inner + i */
#define IDX(l) lx_add(lb, lx_muli(lb, lx_add(lb, lx_muli(lb, lx_var(lb, o), len), lx_var(lb, l)), inner), lx_var(lb, i))
    Stmt *s_max = ls_seq2(lb, ls_store(lb, mx, zero, lx_float(lb, -INFINITY)),
                          ls_for(lb, l1, len, LOOP_SERIAL,
                                 ls_store(lb, mx, zero, lx_bin(lb, BO_MAX, lx_load(lb, mx, zero), lx_load(lb, in, IDX(l1))))));
    Expr *e2 = lx_call(lb, CO_EXP, lx_bin(lb, BO_SUB, lx_load(lb, in, IDX(l2)), lx_load(lb, mx, zero)));
    Stmt *s_sum = ls_seq2(lb, ls_store(lb, sum, zero, lx_float(lb, 0.0)),
                          ls_for(lb, l2, len, LOOP_SERIAL,
                                 ls_store(lb, sum, zero, lx_add(lb, lx_load(lb, sum, zero), e2))));
    Expr *e3 = lx_call(lb, CO_EXP, lx_bin(lb, BO_SUB, lx_load(lb, in, IDX(l3)), lx_load(lb, mx, zero)));
    Stmt *s_out = ls_for(lb, l3, len, LOOP_SERIAL,
                         ls_store(lb, out, IDX(l3), lx_bin(lb, BO_DIV, e3, lx_load(lb, sum, zero))));
#undef IDX
    Stmt *items[3] = {s_max, s_sum, s_out};
    Stmt *row = ls_alloc(lb, mx, ls_alloc(lb, sum, ls_seq(lb, 3, items)));
    def->custom = ls_for(lb, o, outer, LOOP_SERIAL, ls_for(lb, i, inner, LOOP_SERIAL, row));
    return 0;
}
