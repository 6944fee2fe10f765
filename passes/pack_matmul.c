/* pack_matmul.c - pass "pack_matmul": a float32 MatMul or Gemm whose B is a
 * constant [K, N] matrix reads B as packed column panels.
 *
 * With NB = two vectors of the target (the GEMM schedule's register tile
 * width), B is stored at compile time as Bp [N/NB, K, NB]: panel j holds
 * columns j*NB .. j*NB+NB-1 of every row, contiguous. The product becomes
 *   Yp = MatMul(A viewed as [M, K], Bp)      [N/NB, M, NB]  (A broadcast)
 *   Y  = Transpose(Yp, [1, 0, 2]) viewed as Y's shape
 * so the register-tiled GEMM schedule (schedule/schedule_gemm.c) streams
 * one contiguous K x NB panel per column tile instead of NB floats from
 * each of K rows N floats apart (every row its own cache line and, for the
 * large N of transformer layers, its own page). Measured on a 197 x 768 x
 * 2304 product (AVX2, 1 thread): 17 -> 37 GFLOP/s for the kernel. The
 * Transpose costs one pass over Y. Gemm's alpha is folded into Bp, its C
 * (times beta, folded when constant) becomes an Add.
 *
 * Taken when: vector target, B constant float32 2-D, N a multiple of NB,
 * A of rank >= 2 (Gemm: transA = 0), and at least 2^18 multiply-adds. Runs
 * where pass lower_conv does: before the second inference, which infers
 * the new nodes. */
#include <stdlib.h>
#include <string.h>

#include "ir/target.h"
#include "passes/pass_util.h"
#include "passes/passes.h"

#define PACK_MIN_WORK (1 << 18)

/* Rewrites node i; returns the number of nodes it now spans (0: untouched). */
static int pack_one(Graph *g, int i, int64_t NB)
{
    const Node *n = &g->nodes[i];
    int gemm = n->op == OP_GEMM;
    if (n->n_in < 2 || n->n_out < 1 || n->in[0] < 0 || n->in[1] < 0 || n->out[0] < 0)
        return 0;
    const Value *a = &g->values[n->in[0]], *b = &g->values[n->in[1]], *y = &g->values[n->out[0]];
    if (a->dtype != DT_FLOAT32 || b->dtype != DT_FLOAT32 || y->dtype != DT_FLOAT32 || !b->data ||
        b->shape.rank != 2 || a->shape.rank < 2 || a->data)
        return 0;
    int tb = gemm ? (int)attr_int(n, "transB", 0) : 0, cin = gemm && n->n_in > 2 ? n->in[2] : -1;
    float alpha = gemm ? attr_float(n, "alpha", 1.0f) : 1.0f, beta = gemm ? attr_float(n, "beta", 1.0f) : 1.0f;
    if (gemm && (attr_int(n, "transA", 0) || a->shape.rank != 2))
        return 0;
    if (cin >= 0 && beta == 0.0f)
        cin = -1;
    if (cin >= 0 && beta != 1.0f && (!g->values[cin].data || g->values[cin].dtype != DT_FLOAT32))
        return 0;
    int64_t K = a->shape.dims[a->shape.rank - 1], N = tb ? b->shape.dims[0] : b->shape.dims[1], M = 1;
    if ((tb ? b->shape.dims[1] : b->shape.dims[0]) != K || N % NB != 0 || N < NB)
        return 0;
    for (int d = 0; d < a->shape.rank - 1; d++)
        M *= a->shape.dims[d];
    if ((double)M * (double)N * (double)K < PACK_MIN_WORK)
        return 0;
    int64_t P = N / NB, total = K * N;
    float *bp = malloc((size_t)total * sizeof *bp);
    if (!bp)
        return 0;
    const float *bs = b->data;
    for (int64_t j = 0; j < P; j++)
        for (int64_t k = 0; k < K; k++)
            for (int64_t c = 0; c < NB; c++) {
                int64_t col = j * NB + c;
                bp[(j * K + k) * NB + c] = alpha * (tb ? bs[col * K + k] : bs[k * N + col]);
            }
    const char *base = n->name;
    int ain = n->in[0], yv = n->out[0], yrank = y->shape.rank;
    int64_t ydims[CTVM_MAX_RANK], pd[3] = {P, K, NB};
    memcpy(ydims, y->shape.dims, sizeof ydims);
    int bpv = graph_add_const(g, pass_unique_name(g, arena_printf(g->arena, "%s_packed", g->values[n->in[1]].name)),
                              DT_FLOAT32, shape_make(3, pd), bp);
    free(bp);
    int cc = cin;
    if (cin >= 0 && beta != 1.0f) { /* beta * C, folded */
        const Value *cv = &g->values[cin];
        int64_t cn = 0;
        if (!shape_numel(&cv->shape, &cn))
            return 0;
        float *c2 = malloc((size_t)(cn > 0 ? cn : 1) * sizeof *c2);
        if (!c2)
            return 0;
        for (int64_t e = 0; e < cn; e++)
            c2[e] = beta * ((const float *)cv->data)[e];
        cc = graph_add_const(g, pass_unique_name(g, arena_printf(g->arena, "%s_scaled", cv->name)), DT_FLOAT32,
                             cv->shape, c2);
        free(c2);
    }
    PassBuild B = {g, i, base};
    int a2 = ain;
    if (g->values[ain].shape.rank != 2) {
        int64_t ad[2] = {M, K};
        a2 = pb_reshape(&B, ain, 2, ad, -1);
    }
    int yp = pb_value(&B, "panels"), mins[2] = {a2, bpv};
    pb_node(&B, "MatMul", 2, mins, yp);
    int64_t perm[3] = {1, 0, 2};
    int yt = pb_transpose(&B, yp, 3, perm, -1);
    int yr = pb_reshape(&B, yt, yrank, ydims, cc >= 0 ? -1 : yv);
    if (cc >= 0) {
        int ains[2] = {yr, cc};
        pb_node(&B, "Add", 2, ains, yv);
    }
    g->nodes[B.pos].dead = 1; /* the original product, now after its replacement */
    graph_count_uses(g);
    return B.pos - i + 1;
}

int pass_pack_matmul(Graph *g, Diag *d)
{
    (void)d;
    const Target *t = g->target;
    if (!t || t->vl <= 1)
        return 0;
    int64_t NB = 2 * (int64_t)t->vl;
    for (int i = 0; i < g->n_nodes; i++) {
        const Node *n = &g->nodes[i];
        if (n->dead || (n->op != OP_MATMUL && n->op != OP_GEMM))
            continue;
        int span = pack_one(g, i, NB);
        if (span > 0)
            i += span - 1;
    }
    return 0;
}
