/* qpackb.c - ctvm.QPackB, the run-time packing of a matrix product's B for
 * the dot-product kernel ctvm.QMatMul (made by pass qmatmul_runtime, never
 * read from a model):
 *
 *   X  [..., K, N]      uint8 or int8, K a multiple of 4
 *   Y  [..., K/4, N*4]  int8: Y[..., g, 4n+q] = X[..., 4g+q, n], minus 128
 *      for uint8 X (x xor 0x80 read as int8), so each output lane's 4 bytes
 *      are one 32-bit group of vpdpbusd / SDOT.
 * One copy stage over Y, like the layout copies. */
#include "ops/compute.h"
#include "ops/op_util.h"
#include "ops/ops.h"

int op_qpackb_infer(Graph *g, int node, Diag *d)
{
    if (opu_check_arity(g, node, d, 1, 1, 1, 1))
        return -1;
    const Value *x = opu_in(g, node, 0);
    int r = x ? x->shape.rank : 0;
    if (!x || r < 2 || (x->dtype != DT_UINT8 && x->dtype != DT_INT8) || x->shape.dims[r - 2] % 4)
        return diag_error(d, g, node, "malformed QPackB (internal error)");
    Shape s = x->shape;
    s.dims[r - 2] /= 4;
    s.dims[r - 1] *= 4;
    opu_set_out(g, node, 0, DT_INT8, s);
    return 0;
}

int compute_qpackb(ComputeCtx *cx, int node, ComputeDef *def)
{
    LoopBuilder *lb = cx->lb;
    const Node *n = &cx->g->nodes[node];
    const Value *x = &cx->g->values[n->in[0]], *y = &cx->g->values[n->out[0]];
    ComputeStage *s = compute_stage_new(cx, def, n->name, cx->buf_of(cx, n->out[0]), &y->shape);
    if (!s)
        return compute_fail(cx, node, "too many stages");
    s->out_is_node_output = 1;
    int r = y->shape.rank;
    Expr *xi[CTVM_MAX_RANK];
    for (int i = 0; i < r - 2; i++)
        xi[i] = lx_var(lb, s->axis[i]);
    Expr *j = lx_var(lb, s->axis[r - 1]);
    xi[r - 2] = lx_add(lb, lx_muli(lb, lx_var(lb, s->axis[r - 2]), 4), lx_bin(lb, BO_MOD, j, lx_int(lb, 4)));
    xi[r - 1] = lx_bin(lb, BO_DIV, j, lx_int(lb, 4));
    Expr *v = lx_load(lb, cx->buf_of(cx, n->in[0]), compute_flat_index(cx, &x->shape, xi));
    if (x->dtype == DT_UINT8)
        v = lx_cast(lb, LT_I8, lx_sub(lb, lx_cast(lb, LT_I32, v), lx_const_i(lb, LT_I32, 128)));
    s->body = v;
    s->finalize = lx_var(lb, s->acc);
    return 0;
}

DEFINE_EVAL_BY_COMPUTE(qpackb)
