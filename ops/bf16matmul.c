/* bf16matmul.c - ctvm.BF16MatMul, the matrix product of two bfloat16
 * operands with float32 accumulation, which pass pack_matmul makes from a
 * MatMul / Gemm whose operands are both exactly bfloat16 values in the model
 * (promote_half's Node.bf16_operands) on a target with a bfloat16 dot
 * product (never read from a model):
 *
 *   A  [..., M, K]   bfloat16, K even
 *   B  [K/2, N*2]    bfloat16, packed at compile time: row g holds, for
 *      each column n, B[2g, n] and B[2g+1, n] (one 32-bit pair per output
 *      lane: vdpbf16ps's operand); or [P, K/2, N*2] (column panels, A of
 *      rank 2 broadcast over P)
 *   Y  [..., M, N] or [P, M, N] float32
 *
 *   y = sum_g A[2g]*B[2g, n] + A[2g+1]*B[2g+1, n]
 *
 * Every product of two bfloat16 values is exact in float32, so only the
 * sums round: the model's bfloat16 inputs, float32 accumulation (how ONNX
 * Runtime and PyTorch compute a bfloat16 GEMM on a CPU). The body is the
 * sum of the 2 products of one k pair, which lp_vectorize turns into one
 * EX_DOT of float32 type per output vector (A's pair broadcast, B's moving
 * 2 a lane) -> ctvm_vdot_bf16; the register-tiled GEMM schedule
 * (SCHED_GEMM) tiles rows by vectors of columns as for float32. The scalar
 * form adds the pair's sum to the accumulator (acc + (p0 + p1)); the
 * vector one adds p1, then p0 (vdpbf16ps's order), so the last bits of a
 * scalar remainder column may differ from a vector one's. */
#include "ops/compute.h"
#include "ops/op_util.h"
#include "ops/ops.h"

int op_bf16matmul_infer(Graph *g, int node, Diag *d)
{
    if (opu_check_arity(g, node, d, 2, 2, 1, 1))
        return -1;
    const Value *a = opu_in(g, node, 0), *b = opu_in(g, node, 1);
    int ra = a ? a->shape.rank : 0, rb = b ? b->shape.rank : 0;
    int ok = a && b && a->dtype == DT_BFLOAT16 && b->dtype == DT_BFLOAT16 && ra >= 2 && (rb == 2 || (rb == 3 && ra == 2));
    ok = ok && a->shape.dims[ra - 1] == 2 * b->shape.dims[rb - 2] && b->shape.dims[rb - 1] % 2 == 0;
    if (!ok)
        return diag_error(d, g, node, "malformed BF16MatMul (internal error)");
    Shape s = a->shape;
    if (rb == 3) {
        s.rank = 3;
        s.dims[0] = b->shape.dims[0];
        s.dims[1] = a->shape.dims[0];
    }
    s.dims[s.rank - 1] = b->shape.dims[rb - 1] / 2;
    opu_set_out(g, node, 0, DT_FLOAT32, s);
    return 0;
}

int compute_bf16matmul(ComputeCtx *cx, int node, ComputeDef *def)
{
    LoopBuilder *lb = cx->lb;
    const Node *n = &cx->g->nodes[node];
    const Value *a = &cx->g->values[n->in[0]], *b = &cx->g->values[n->in[1]];
    const Value *y = &cx->g->values[n->out[0]];
    ComputeStage *s = compute_sum_stage(cx, def, node, LT_F32, SCHED_GEMM);
    if (!s)
        return -1;
    int r = y->shape.rank, ra = a->shape.rank, rb = b->shape.rank;
    LVar *kg = compute_add_raxis(cx, s, "kg", b->shape.dims[rb - 2]);
    LBuf *ab = cx->buf_of(cx, n->in[0]), *bb = cx->buf_of(cx, n->in[1]);
    Expr *col = lx_var(lb, s->axis[r - 1]), *sum = NULL;
    for (int q = 0; q < 2; q++) { /* the 2 products of one k pair: EX_DOT's unit */
        Expr *ai[CTVM_MAX_RANK], *bi[CTVM_MAX_RANK];
        for (int i = 0; i < ra - 1; i++) /* panels: A [M, K] against Y [P, M, N] */
            ai[i] = lx_var(lb, s->axis[i + (r - ra)]);
        ai[ra - 1] = lx_add(lb, lx_muli(lb, lx_var(lb, kg), 2), lx_int(lb, q));
        if (rb == 3)
            bi[0] = lx_var(lb, s->axis[0]);
        bi[rb - 2] = lx_var(lb, kg);
        bi[rb - 1] = lx_add(lb, lx_muli(lb, col, 2), lx_int(lb, q));
        Expr *p = lx_mul(lb, lx_load(lb, ab, compute_flat_index(cx, &a->shape, ai)),
                         lx_load(lb, bb, compute_flat_index(cx, &b->shape, bi)));
        sum = sum ? lx_add(lb, sum, p) : p;
    }
    s->body = sum;
    s->finalize = lx_var(lb, s->acc);
    return 0;
}

DEFINE_EVAL_BY_COMPUTE(bf16matmul)
