/* lut.c - ctvm.Lut, a 256-entry table lookup on the bytes of an 8-bit
 * tensor (made by pass quant_lut, never read from a model):
 *
 *   T  [256] constant, any type: T[k] is the result for the byte value
 *      k (uint8 X) or k - 128 (int8 X)
 *   X  uint8 or int8, any shape
 *   Y  X's shape, T's type: Y[i] = T[X[i]] (T[X[i] + 128] for int8)
 *
 * Every X value indexes the table, so no index is ever out of range. One
 * stage over Y; the index is data, so the loop stays scalar (a byte load
 * and a byte store per element, against the float chain it replaces). */
#include "ops/compute.h"
#include "ops/op_util.h"
#include "ops/ops.h"

int op_lut_infer(Graph *g, int node, Diag *d)
{
    if (opu_check_arity(g, node, d, 2, 2, 1, 1))
        return -1;
    const Value *t = opu_in(g, node, 0), *x = opu_in(g, node, 1);
    if (!t || !x || !t->data || t->shape.rank != 1 || t->shape.dims[0] != 256 ||
        (x->dtype != DT_UINT8 && x->dtype != DT_INT8))
        return diag_error(d, g, node, "malformed Lut (internal error)");
    opu_set_out(g, node, 0, t->dtype, x->shape);
    return 0;
}

int compute_lut(ComputeCtx *cx, int node, ComputeDef *def)
{
    LoopBuilder *lb = cx->lb;
    const Node *n = &cx->g->nodes[node];
    const Value *x = &cx->g->values[n->in[1]], *y = &cx->g->values[n->out[0]];
    ComputeStage *s = compute_stage_new(cx, def, n->name, cx->buf_of(cx, n->out[0]), &y->shape);
    if (!s)
        return compute_fail(cx, node, "too many stages");
    s->out_is_node_output = 1;
    Expr *k = lx_cast(lb, LT_I32, lx_load(lb, cx->buf_of(cx, n->in[1]), s->out_index));
    if (x->dtype == DT_INT8)
        k = lx_add(lb, k, lx_const_i(lb, LT_I32, 128));
    s->body = lx_load(lb, cx->buf_of(cx, n->in[0]), lx_cast(lb, LT_IDX, k));
    s->finalize = lx_var(lb, s->acc);
    return 0;
}

DEFINE_EVAL_BY_COMPUTE(lut)
