/* qpackb.c - ctvm.QPackB, the run-time packing of a matrix product's B for
 * the dot-product kernel ctvm.QMatMul (made by pass qmatmul_runtime, never
 * read from a model):
 *
 *   X  uint8 or int8: B = Transpose(X, at.transpose.perm) (identity when
 *      perm is not a permutation, e.g. all zero) is [..., K, N], K a
 *      multiple of 4; the Transpose that made B (attention's K^T) is read
 *      through, so it costs no kernel of its own
 *   Y  [..., K/4, N*4]  int8: Y[..., g, 4n+q] = B[..., 4g+q, n], minus 128
 *      for uint8 X (x xor 0x80 read as int8), so each output lane's 4 bytes
 *      are one 32-bit group of vpdpbusd / SDOT.
 * One copy stage over Y, like the layout copies. */
#include "ops/compute.h"
#include "ops/op_util.h"
#include "ops/ops.h"

/* at.transpose.perm when it is a permutation of 0..r-1, else the identity */
static void perm_of(const Node *n, int r, int *perm)
{
    int seen[CTVM_MAX_RANK] = {0}, ok = 1;
    for (int i = 0; i < r; i++) {
        int64_t p = n->at.transpose.perm[i];
        ok = ok && p >= 0 && p < r && !seen[p];
        if (ok)
            seen[p] = 1;
    }
    for (int i = 0; i < r; i++)
        perm[i] = ok ? (int)n->at.transpose.perm[i] : i;
}

int op_qpackb_infer(Graph *g, int node, Diag *d)
{
    if (opu_check_arity(g, node, d, 1, 1, 1, 1))
        return -1;
    const Value *x = opu_in(g, node, 0);
    int r = x ? x->shape.rank : 0;
    if (!x || r < 2 || (x->dtype != DT_UINT8 && x->dtype != DT_INT8))
        return diag_error(d, g, node, "malformed QPackB (internal error)");
    int perm[CTVM_MAX_RANK];
    perm_of(&g->nodes[node], r, perm);
    Shape s = x->shape;
    for (int i = 0; i < r; i++)
        s.dims[i] = x->shape.dims[perm[i]];
    if (s.dims[r - 2] % 4)
        return diag_error(d, g, node, "malformed QPackB (internal error)");
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
    /* over Y viewed [..., K/4, N, 4] (the same bytes): plain axes, no / or % */
    int r = y->shape.rank;
    Shape ys = y->shape;
    ys.rank = r + 1;
    ys.dims[r - 1] = y->shape.dims[r - 1] / 4;
    ys.dims[r] = 4;
    ComputeStage *s = compute_stage_new(cx, def, n->name, cx->buf_of(cx, n->out[0]), &ys);
    if (!s)
        return compute_fail(cx, node, "too many stages");
    s->out_is_node_output = 1;
    Expr *bi[CTVM_MAX_RANK], *xi[CTVM_MAX_RANK];
    for (int i = 0; i < r - 2; i++)
        bi[i] = lx_var(lb, s->axis[i]);
    bi[r - 2] = lx_add(lb, lx_muli(lb, lx_var(lb, s->axis[r - 2]), 4), lx_var(lb, s->axis[r]));
    bi[r - 1] = lx_var(lb, s->axis[r - 1]);
    int perm[CTVM_MAX_RANK];
    perm_of(n, r, perm);
    for (int i = 0; i < r; i++) /* B's axis i is X's axis perm[i] */
        xi[perm[i]] = bi[i];
    Expr *v = lx_load(lb, cx->buf_of(cx, n->in[0]), compute_flat_index(cx, &x->shape, xi));
    if (x->dtype == DT_UINT8)
        v = lx_cast(lb, LT_I8, lx_sub(lb, lx_cast(lb, LT_I32, v), lx_const_i(lb, LT_I32, 128)));
    s->body = v;
    s->finalize = lx_var(lb, s->acc);
    return 0;
}

DEFINE_EVAL_BY_COMPUTE(qpackb)
