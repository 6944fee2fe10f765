/* qmatmul.c - ctvm.QMatMul, the integer matrix product pass "layout" makes
 * from a MatMulInteger with a constant int8 B (never read from a model):
 *
 *   A   [..., M, K]  uint8, K a multiple of 4
 *   B   [K/4, N*4]   int8, packed at compile time: row g holds, for each
 *       column n, B[4g..4g+3, n] (one 32-bit group per output lane:
 *       vpdpbusd / SDOT); or [..., K/4, N*4] with A's batch dimensions,
 *       packed at run time (pass qmatmul_runtime); or, with attribute
 *       at.conv.panel = P (pass layout's; a matrix-vector product: A one row), [K/4, Np*4] holding
 *       ceil(N/P) panels of P columns one after the other, each [K/4, P*4]
 *       (zero columns past N): a vector of P columns streams one contiguous
 *       panel instead of P*4 bytes of every row
 *   AZ  A's zero point (uint8 scalar, run-time or constant); omitted: 0
 *   BS  [N] (or [..., N], B's batch dimensions) int32: the sum of each
 *       column of B; omitted with AZ (no zero-point term to weigh), except
 *       with at.conv.panel, whose N it gives; AZ times those sums with
 *       at.conv.ws_scaled (a constant AZ, multiplied in by pass layout)
 *   RC  optional [..., M] int32 (A's batch dimensions): a term per row
 *   Y   [..., M, N] int32, or float32 (at.conv.out_float: the Cast that
 *       followed the MatMulInteger folded in, so the float epilogue fuses)
 * B's zero point is 0, or folded into RC by the pass that made the node, so
 *   y = sum_k (a - az) * b [+ RC[m]] = sum_k a * b - az * BS[n] [+ RC[m]]
 * and the body is the sum of the 4 products of one k group, which
 * lp_vectorize turns into one EX_DOT per output vector (A's 4 bytes
 * broadcast, B's moving 4 a lane); the register-tiled GEMM schedule
 * (SCHED_GEMM) tiles rows by vectors of columns. */
#include "ops/compute.h"
#include "ops/op_util.h"
#include "ops/ops.h"

int op_qmatmul_infer(Graph *g, int node, Diag *d)
{
    if (opu_check_arity(g, node, d, 2, 5, 1, 1)) /* AZ and BS may be omitted (-1) */
        return -1;
    const Value *a = opu_in(g, node, 0), *b = opu_in(g, node, 1), *az = opu_in(g, node, 2), *bs = opu_in(g, node, 3),
                *rc = opu_in(g, node, 4);
    int ra = a ? a->shape.rank : 0, rb = b ? b->shape.rank : 0, ok = a && b && (bs || !az);
    int64_t P = g->nodes[node].at.conv.panel; /* pass layout's */
    ok = ok && ra >= 2 && rb >= 2 && (rb == 2 || rb == ra) && a->dtype == DT_UINT8 && b->dtype == DT_INT8 &&
         a->shape.dims[ra - 1] == b->shape.dims[rb - 2] * 4 && P >= 0 && (!P || (bs && rb == 2));
    if (ok && bs)
        ok = bs->dtype == DT_INT32 && bs->shape.rank == rb - 1 &&
             (P ? b->shape.dims[1] == (bs->shape.dims[0] + P - 1) / P * P * 4
                : b->shape.dims[rb - 1] == bs->shape.dims[rb - 2] * 4);
    for (int i = 0; ok && i < rb - 2; i++)
        ok = b->shape.dims[i] == a->shape.dims[i] && (!bs || bs->shape.dims[i] == a->shape.dims[i]);
    if (ok && rc) {
        ok = rc->dtype == DT_INT32 && rc->shape.rank == ra - 1;
        for (int i = 0; ok && i < ra - 1; i++)
            ok = rc->shape.dims[i] == a->shape.dims[i];
    }
    if (!ok)
        return diag_error(d, g, node, "malformed QMatMul (internal error)");
    Shape s = a->shape;
    s.dims[s.rank - 1] = bs ? bs->shape.dims[rb - 2] : b->shape.dims[rb - 1] / 4;
    opu_set_out(g, node, 0, g->nodes[node].at.conv.out_float ? DT_FLOAT32 : DT_INT32, s);
    return 0;
}

int compute_qmatmul(ComputeCtx *cx, int node, ComputeDef *def)
{
    LoopBuilder *lb = cx->lb;
    const Node *n = &cx->g->nodes[node];
    const Value *a = &cx->g->values[n->in[0]], *b = &cx->g->values[n->in[1]];
    const Value *y = &cx->g->values[n->out[0]];
    ComputeStage *s = compute_sum_stage(cx, def, node, LT_I32, SCHED_GEMM);
    if (!s)
        return -1;
    int r = y->shape.rank;
    LVar *kg = compute_add_raxis(cx, s, "kg", b->shape.dims[b->shape.rank - 2]);
    LBuf *ab = cx->buf_of(cx, n->in[0]), *bb = cx->buf_of(cx, n->in[1]);
    int rb = b->shape.rank;
    Expr *col = lx_var(lb, s->axis[r - 1]), *sum = NULL;
    for (int q = 0; q < 4; q++) { /* the 4 products of one k group: EX_DOT's unit */
        Expr *ai[CTVM_MAX_RANK];
        for (int i = 0; i < r - 1; i++)
            ai[i] = lx_var(lb, s->axis[i]);
        ai[r - 1] = lx_add(lb, lx_muli(lb, lx_var(lb, kg), 4), lx_int(lb, q));
        Expr *bi[CTVM_MAX_RANK];
        for (int i = 0; i < rb - 2; i++) /* run-time B: A's batch dimensions */
            bi[i] = lx_var(lb, s->axis[i]);
        bi[rb - 2] = lx_var(lb, kg);
        bi[rb - 1] = lx_add(lb, lx_muli(lb, col, 4), lx_int(lb, q));
        Expr *bidx = compute_flat_index(cx, &b->shape, bi);
        int64_t P = n->at.conv.panel, KG = b->shape.dims[rb - 2];
        if (P > 0) /* ((col / P) * K/4 + kg) * P*4 + (col % P) * 4 + q */
            bidx = lx_add(lb, lx_add(lb, lx_muli(lb, lx_add(lb, lx_muli(lb, lx_div(lb, col, lx_int(lb, P)), KG), lx_var(lb, kg)), P * 4),
                                     lx_muli(lb, lx_bin(lb, BO_MOD, col, lx_int(lb, P)), 4)),
                          lx_int(lb, q));
        Expr *p = lx_mul(lb, lx_cast(lb, LT_I32, lx_load(lb, ab, compute_flat_index(cx, &a->shape, ai))),
                         lx_cast(lb, LT_I32, lx_load(lb, bb, bidx)));
        sum = sum ? lx_add(lb, sum, p) : p;
    }
    s->body = sum;
    Expr *si[CTVM_MAX_RANK], *fin = lx_var(lb, s->acc);
    if (n->in[2] >= 0) { /* - az * BS[n] */
        Expr *az = compute_const_scalar(cx, n->in[2]);
        az = lx_cast(lb, LT_I32, az ? az : lx_load(lb, cx->buf_of(cx, n->in[2]), lx_int(lb, 0)));
        for (int i = 0; i < rb - 1; i++)
            si[i] = lx_var(lb, s->axis[i == rb - 2 ? r - 1 : i]);
        const Value *bs = &cx->g->values[n->in[3]];
        Expr *sum = lx_load(lb, cx->buf_of(cx, n->in[3]), compute_flat_index(cx, &bs->shape, si));
        fin = lx_sub(lb, fin, n->at.conv.ws_scaled ? sum : lx_mul(lb, az, sum));
    }
    if (n->n_in > 4 && n->in[4] >= 0) { /* the row term */
        const Value *rc = &cx->g->values[n->in[4]];
        for (int i = 0; i < r - 1; i++)
            si[i] = lx_var(lb, s->axis[i]);
        fin = lx_add(lb, fin, lx_load(lb, cx->buf_of(cx, n->in[4]), compute_flat_index(cx, &rc->shape, si)));
    }
    s->finalize = n->at.conv.out_float ? lx_cast(lb, LT_F32, fin) : fin;
    return 0;
}

DEFINE_EVAL_BY_COMPUTE(qmatmul)
