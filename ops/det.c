/* det.c - Det (versions 11, 22): the determinant of every square matrix of
 * a [..., M, M] float tensor (float16, bfloat16 (22, accepted by every
 * version here), float32, float64); the output has shape [...] (a scalar
 * for one matrix).
 *
 * Computed by LU decomposition with partial pivoting in float64, as LAPACK
 * (numpy) does: for each column k the row with the largest |a[i][k]|, i >= k,
 * is swapped up (negating the sign), the determinant takes the pivot as a
 * factor and the rows below are eliminated. A zero pivot makes the
 * determinant 0 (elimination is skipped). Written as a hand-built loop nest
 * (def->custom), one matrix per iteration of a parallel batch loop, in a
 * float64 copy held in a local array of M*M elements on the stack; M is
 * therefore limited (DET_MAX_M).
 *
 * Normalised attributes: none. */
#include "ops/compute.h"
#include "ops/op_util.h"
#include "ops/ops.h"

/* The largest matrix: its float64 copy (32 KiB) lives on the stack. */
#define DET_MAX_M 64

int op_det_infer(Graph *g, int node, Diag *d)
{
    if (opu_check_arity(g, node, d, 1, 1, 1, 1))
        return -1;
    Value *x = opu_in(g, node, 0);
    DType t = x->dtype;
    if (t != DT_FLOAT16 && t != DT_BFLOAT16 && t != DT_FLOAT32 && t != DT_FLOAT64)
        return diag_error(d, g, node, "input type %s is not supported", dtype_name(t));
    int r = x->shape.rank;
    if (r < 2 || x->shape.dims[r - 1] != x->shape.dims[r - 2])
        return diag_error(d, g, node, "input %s is not a batch of square matrices", opu_shape_str(&x->shape));
    if (x->shape.dims[r - 1] > DET_MAX_M)
        return diag_error(d, g, node, "matrices of %lld x %lld are larger than the %d x %d ctvm supports",
                          (long long)x->shape.dims[r - 1], (long long)x->shape.dims[r - 1], DET_MAX_M, DET_MAX_M);
    Shape s = x->shape;
    s.rank = r - 2;
    opu_set_out(g, node, 0, t, s);
    return 0;
}

/* a[i * M + j] of the local matrix */
static Expr *at(LoopBuilder *lb, LBuf *a, int64_t M, Expr *i, Expr *j)
{
    return lx_load(lb, a, lx_add(lb, lx_muli(lb, i, M), j));
}

static Stmt *set(LoopBuilder *lb, LBuf *a, int64_t M, Expr *i, Expr *j, Expr *v)
{
    return ls_store(lb, a, lx_add(lb, lx_muli(lb, i, M), j), v);
}

static Expr *fabs64(LoopBuilder *lb, Expr *v)
{
    return lx_call(lb, CO_ABS, v);
}

int compute_det(ComputeCtx *cx, int node, ComputeDef *def)
{
    LoopBuilder *lb = cx->lb;
    const Node *n = &cx->g->nodes[node];
    const Value *x = &cx->g->values[n->in[0]], *y = &cx->g->values[n->out[0]];
    int64_t M = x->shape.dims[x->shape.rank - 1], B = 1;
    if (!shape_numel(&y->shape, &B))
        return compute_fail(cx, node, "output size unknown (internal error)");
    LBuf *xb = cx->buf_of(cx, n->in[0]), *yb = cx->buf_of(cx, n->out[0]);
    LBuf *a = lbuf_new_typed(lb, "lu", LB_LOCAL, DT_FLOAT64, M * M > 0 ? M * M : 1);
    LBuf *det = lbuf_new_typed(lb, "det", LB_LOCAL, DT_FLOAT64, 1);
    LBuf *best = lbuf_new_typed(lb, "piv", LB_LOCAL, DT_INT32, 1);
    LBuf *bmax = lbuf_new_typed(lb, "pmax", LB_LOCAL, DT_FLOAT64, 1);
    LBuf *tmp = lbuf_new_typed(lb, "tmp", LB_LOCAL, DT_FLOAT64, 1);
    LVar *b = lv_new(lb, "b"), *k = lv_new(lb, "k");
    Expr *z = lx_int(lb, 0), *bv = lx_var(lb, b), *kv = lx_var(lb, k);
    LVar *i = lv_new(lb, "i"), *j = lv_new(lb, "j");
    Expr *iv = lx_var(lb, i), *jv = lx_var(lb, j);
    Expr *one = lx_const_f(lb, LT_F64, 1), *zero = lx_const_f(lb, LT_F64, 0);

    /* a = x[b] in float64 */
    Expr *xi = lx_add(lb, lx_muli(lb, bv, M * M), lx_add(lb, lx_muli(lb, iv, M), jv));
    Stmt *copy = ls_for(lb, i, M, LOOP_SERIAL,
                        ls_for(lb, j, M, LOOP_SERIAL,
                               set(lb, a, M, iv, jv, lx_cast(lb, LT_F64, lx_load(lb, xb, xi)))));

    i = lv_new(lb, "i"), iv = lx_var(lb, i);
    /* pivot search: piv = argmax_{i >= k} |a[i][k]| (first one on ties) */
    Expr *cand = fabs64(lb, at(lb, a, M, iv, kv));
    Stmt *upd_items[2] = {ls_store(lb, bmax, z, cand), ls_store(lb, best, z, lx_cast(lb, LT_I32, iv))};
    Expr *better = lx_bin(lb, BO_AND, lx_bin(lb, BO_GT, iv, kv),
                          lx_bin(lb, BO_GT, cand, lx_load(lb, bmax, z)));
    Stmt *search_items[3] = {
        ls_store(lb, bmax, z, fabs64(lb, at(lb, a, M, kv, kv))),
        ls_store(lb, best, z, lx_cast(lb, LT_I32, kv)),
        ls_for(lb, i, M, LOOP_SERIAL, ls_if(lb, better, ls_seq(lb, 2, upd_items))),
    };
    Stmt *search = ls_seq(lb, 3, search_items);

    j = lv_new(lb, "j"), jv = lx_var(lb, j);
    /* swap rows k and piv, negating the determinant */
    Expr *pv = lx_cast(lb, LT_IDX, lx_load(lb, best, z));
    Stmt *swap_items[3] = {
        ls_store(lb, tmp, z, at(lb, a, M, kv, jv)),
        set(lb, a, M, kv, jv, at(lb, a, M, pv, jv)),
        set(lb, a, M, pv, jv, lx_load(lb, tmp, z)),
    };
    Stmt *swap = ls_if(lb, lx_bin(lb, BO_NE, pv, kv),
                       ls_seq2(lb, ls_for(lb, j, M, LOOP_SERIAL, ls_seq(lb, 3, swap_items)),
                               ls_store(lb, det, z, lx_sub(lb, zero, lx_load(lb, det, z)))));

    i = lv_new(lb, "i"), iv = lx_var(lb, i);
    j = lv_new(lb, "j"), jv = lx_var(lb, j);
    /* det *= pivot; rows below: a[i][j] -= a[i][k] / pivot * a[k][j] for j > k */
    Expr *piv = at(lb, a, M, kv, kv);
    Stmt *mul = ls_store(lb, det, z, lx_mul(lb, lx_load(lb, det, z), piv));
    Expr *f = lx_load(lb, tmp, z);
    Stmt *row_j = ls_if(lb, lx_bin(lb, BO_GT, jv, kv),
                        set(lb, a, M, iv, jv, lx_sub(lb, at(lb, a, M, iv, jv), lx_mul(lb, f, at(lb, a, M, kv, jv)))));
    Stmt *row = ls_if(lb, lx_bin(lb, BO_GT, iv, kv),
                      ls_seq2(lb, ls_store(lb, tmp, z, lx_div(lb, at(lb, a, M, iv, kv), piv)),
                              ls_for(lb, j, M, LOOP_SERIAL, row_j)));
    Stmt *elim = ls_if(lb, lx_bin(lb, BO_NE, piv, zero), ls_for(lb, i, M, LOOP_SERIAL, row));
    Stmt *step_items[4] = {search, swap, mul, elim};
    Stmt *lu = ls_for(lb, k, M, LOOP_SERIAL, ls_seq(lb, 4, step_items));

    Stmt *per_items[4] = {copy, ls_store(lb, det, z, one), lu, ls_store(lb, yb, bv, lx_load(lb, det, z))};
    Stmt *per = ls_seq(lb, 4, per_items);
    per = ls_alloc(lb, tmp, ls_alloc(lb, bmax, ls_alloc(lb, best, ls_alloc(lb, det, ls_alloc(lb, a, per)))));
    /* matrices are independent: the batch loop may run on threads (each has its own locals) */
    def->custom = ls_role(ls_for(lb, b, B, LOOP_SERIAL, per), LR_INDEPENDENT, -1);
    return 0;
}

DEFINE_EVAL_BY_COMPUTE(det)
