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
 * Elementwise consumers of Y (bias Add, Relu, Gelu, a residual Add, ...)
 * move before the final view, onto Yt's [M, N/NB, NB] shape (a constant
 * operand along N stored as [N/NB, NB], a full-size operand read through a
 * view), so pass fuse makes them the Transpose's epilogue: the panels are
 * turned back into rows, biased and activated in one pass.
 *
 * bfloat16 (issue 22): a product whose operands are both exactly bfloat16
 * in the model (Node.bf16_operands, set by promote_half), on a target with a
 * bfloat16 dot product (x86_64-avx512-bf16: target_has_bf16_dot), K even and
 * alpha*B still bfloat16 (Gemm's alpha a power of 2), stores its panels as bfloat16 pairs [P, K/2, NB*2] (half the
 * bytes) and multiplies them with ctvm.BF16MatMul (ops/bf16matmul.c) on A
 * as bfloat16: the model's own bfloat16 value when A is a Cast of one, else
 * A rounded by a Cast (a value the model declares bfloat16). Everything
 * after the product (Transpose, epilogues, Slice, Gemm's C) is as below.
 *
 * Taken when: vector target, B constant float32 2-D, N >= NB (N off the
 * grid: the last panel padded with zero columns, Y sliced out of the result,
 * the consumers left after the Slice),
 * A of rank >= 2 (Gemm: transA = 0), and at least 2^18 multiply-adds. Runs
 * where pass lower_conv does: before the second inference, which infers
 * the new nodes. */
#include <stdlib.h>
#include <string.h>

#include "ir/target.h"
#include "passes/pass_util.h"
#include "passes/passes.h"

#define PACK_MIN_WORK (1 << 18)
#define PACK_PART_BYTES (64 << 20)
#define PACK_MAX_GROUPS 64

/* Operand o of an elementwise node over Y [.., N] as an operand over Yt
 * [M, P, NB]: a scalar as is, a constant varying along N only as [P, NB],
 * a value of Y's shape through a view; -1 when none of these. */
static int sink_operand(PassBuild *B, int o, const Shape *ys, int64_t M, int64_t P, int64_t NB)
{
    Graph *g = B->g;
    const Value *v = &g->values[o];
    int64_t cnt;
    if (v->dtype != DT_FLOAT32 || !shape_numel(&v->shape, &cnt))
        return -1;
    if (cnt == 1 && v->data)
        return o;
    if (shape_equal(&v->shape, ys) && !v->data) {
        int64_t d3[3] = {M, P, NB};
        return pb_reshape(B, o, 3, d3, -1);
    }
    if (!v->data || cnt != P * NB || v->shape.rank < 1 || v->shape.dims[v->shape.rank - 1] != P * NB)
        return -1; /* varies along other dims than N */
    int64_t d2[2] = {P, NB};
    return graph_add_const(g, pass_unique_name(g, arena_printf(g->arena, "%s_panels", v->name)), DT_FLOAT32,
                           shape_make(2, d2), v->data);
}

/* Moves the elementwise consumers of y = Reshape(yt) before the Reshape
 * (see the top comment). r is the Reshape node, ys Y's shape. */
static void sink_epilogue(Graph *g, int r, Shape ys, int64_t M, int64_t P, int64_t NB)
{
    for (;;) {
        int yt = g->nodes[r].in[0], y = g->nodes[r].out[0], c = pass_sole_consumer(g, y);
        if (c < 0 || !op_is_elementwise(g->nodes[c].op) || g->nodes[c].n_out != 1 || g->nodes[c].n_in > 3)
            return;
        int co = g->nodes[c].out[0];
        if (g->values[co].dtype != DT_FLOAT32 || !shape_equal(&g->values[co].shape, &ys))
            return;
        PassBuild B = {g, c, g->nodes[c].name};
        int ins[3], old[3], n_in = g->nodes[c].n_in;
        memcpy(old, g->nodes[c].in, (size_t)n_in * sizeof(int)); /* views inserted before c move it */
        for (int k = 0; k < n_in; k++) {
            int o = old[k];
            ins[k] = o == y ? yt : o < 0 ? -1 : sink_operand(&B, o, &ys, M, P, NB);
            if (o >= 0 && ins[k] < 0)
                return; /* (a view made for an earlier operand stays unused: dce drops it) */
        }
        c = B.pos; /* views were inserted before it */
        int t2 = pb_value(&B, "panels_epi");
        Node *cn = &g->nodes[c];
        for (int k = 0; k < cn->n_in; k++)
            cn->in[k] = ins[k];
        cn->out[0] = t2;
        g->values[co].producer = -1;
        /* the view now follows c: a new Reshape after it, the old one dead */
        g->nodes[r].dead = 1;
        int64_t yd[CTVM_MAX_RANK];
        memcpy(yd, ys.dims, sizeof yd);
        B.pos = c + 1;
        pb_reshape(&B, t2, ys.rank, yd, co);
        r = c + 1;
        graph_count_uses(g);
    }
}

/* x is not a bfloat16 number (its low 16 bits are not 0) */
static int bf16_bits_lost(float x)
{
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    return (u & 0xffffu) != 0;
}

/* bfloat16 bits of a float32 that is exactly a bfloat16 number */
static uint16_t bf16_bits(float x)
{
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    return (uint16_t)(u >> 16);
}

/* A as bfloat16: the value a Cast from bfloat16 widened (the model's own
 * bfloat16 input, promote_half's Cast), else a new Cast rounding it (a
 * value the model declares bfloat16 but ctvm computed in float32). */
static int a_as_bf16(PassBuild *B, int a)
{
    Graph *g = B->g;
    int c = g->values[a].producer;
    if (c >= 0 && !g->nodes[c].dead && g->nodes[c].op == OP_CAST && g->nodes[c].n_in == 1 && g->nodes[c].in[0] >= 0 &&
        g->values[g->nodes[c].in[0]].dtype == DT_BFLOAT16)
        return g->nodes[c].in[0];
    int ab = pb_value(B, "bf16");
    node_set_int(g, pb_node(B, "Cast", 1, &a, ab), "to", 16 /* BFLOAT16 */);
    return ab;
}

/* Rewrites node i; returns the number of nodes it now spans (0: untouched).
 * bf16: the target has a bfloat16 dot product; a node whose operands are
 * exactly bfloat16 (Node.bf16_operands, K even, alpha*B bfloat16) then becomes
 * ctvm.BF16MatMul (ops/bf16matmul.c) on panels of bfloat16 pairs
 * [P, K/2, NB*2], A rounded to (or read as) bfloat16; the rest is as for
 * float32. */
static int pack_one(Graph *g, int i, int64_t NB, int bf16)
{
    const Node *n = &g->nodes[i];
    int gemm = n->op == OP_GEMM;
    if (n->n_in < 2 || n->n_out < 1 || n->in[0] < 0 || n->in[1] < 0 || n->out[0] < 0)
        return 0;
    const Value *a = &g->values[n->in[0]], *b = &g->values[n->in[1]], *y = &g->values[n->out[0]];
    if (a->dtype != DT_FLOAT32 || b->dtype != DT_FLOAT32 || y->dtype != DT_FLOAT32 || !b->data ||
        b->shape.rank != 2 || a->shape.rank < 2 || a->data)
        return 0;
    int tb = gemm ? n->at.gemm.trans_b : 0, cin = gemm && n->n_in > 2 ? n->in[2] : -1;
    float alpha = gemm ? n->at.gemm.alpha : 1.0f, beta = gemm ? n->at.gemm.beta : 1.0f;
    if (gemm && (n->at.gemm.trans_a || a->shape.rank != 2))
        return 0;
    if (cin >= 0 && beta == 0.0f)
        cin = -1;
    if (cin >= 0 && beta != 1.0f && (!g->values[cin].data || g->values[cin].dtype != DT_FLOAT32))
        return 0;
    int64_t K = a->shape.dims[a->shape.rank - 1], N = tb ? b->shape.dims[0] : b->shape.dims[1], M = 1;
    if ((tb ? b->shape.dims[1] : b->shape.dims[0]) != K || N < NB)
        return 0;
    for (int d = 0; d < a->shape.rank - 1; d++)
        M *= a->shape.dims[d];
    if ((double)M * (double)N * (double)K < PACK_MIN_WORK)
        return 0;
    bf16 = bf16 && n->bf16_operands && K % 2 == 0;
    for (int64_t e = 0; bf16 && e < K * N; e++) /* Gemm's alpha folded in must keep B bfloat16 (a power of 2) */
        bf16 = !(bf16_bits_lost(alpha * ((const float *)b->data)[e]));
    int64_t esz = bf16 ? 2 : (int64_t)sizeof(float); /* bytes of a packed element */
    /* N off the panel grid: the last panel's columns past N are zeros, and a
       Slice takes the N real ones back (mobilenet_v2's 1280 x 1000
       classifier: its rows 4000 bytes apart, one page each) */
    int64_t P = (N + NB - 1) / NB, total = K * P * NB, NP = P * NB;
    float *bp = calloc((size_t)total, sizeof *bp);
    if (!bp)
        return 0;
    const float *bs = b->data;
    uint16_t *hp = (uint16_t *)bp; /* bf16: [P, K/2, NB*2], 2 k-values to an output lane */
    for (int64_t j = 0; j < P; j++)
        for (int64_t k = 0; k < K; k++)
            for (int64_t c = 0; c < NB && j * NB + c < N; c++) {
                int64_t col = j * NB + c;
                float x = alpha * (tb ? bs[col * K + k] : bs[k * N + col]);
                if (bf16)
                    hp[((j * K / 2 + k / 2) * NB + c) * 2 + k % 2] = bf16_bits(x);
                else
                    bp[(j * K + k) * NB + c] = x;
            }
    const char *base = n->name;
    int ain = n->in[0], yv = n->out[0], yrank = y->shape.rank;
    int64_t ydims[CTVM_MAX_RANK], pd[3] = {P, bf16 ? K / 2 : K, bf16 ? NB * 2 : NB};
    memcpy(ydims, y->shape.dims, sizeof ydims);
    /* B of more than PACK_PART_BYTES: several constants of whole panels, one
       MatMul each, joined by a Concat of their [Pg, M, NB] results (a copy of
       M*N floats), so no single constant is bigger than that: gcc's memory
       on the generated file follows its biggest constant (vgg11_bn's first
       classifier layer: 411 MB) */
    const char *bname = g->values[n->in[1]].name;
    int64_t per = PACK_PART_BYTES / (K * NB * esz);
    if (per < 1)
        per = 1;
    int ng = (int)((P + per - 1) / per), bpg[PACK_MAX_GROUPS];
    if (ng > PACK_MAX_GROUPS) {
        free(bp);
        return 0;
    }
    for (int q = 0; q < ng; q++) {
        int64_t p0 = q * per, pn = P - p0 < per ? P - p0 : per, gd[3] = {pn, pd[1], pd[2]};
        bpg[q] = graph_add_const(g, pass_unique_name(g, arena_printf(g->arena, ng > 1 ? "%s_packed%d" : "%s_packed", bname, q)),
                                 bf16 ? DT_BFLOAT16 : DT_FLOAT32, shape_make(3, ng > 1 ? gd : pd),
                                 (const char *)bp + p0 * K * NB * esz);
    }
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
    if (bf16)
        ain = a_as_bf16(&B, ain);
    const char *mm = bf16 ? "ctvm.BF16MatMul" : "MatMul";
    int a2 = ain;
    if (g->values[ain].shape.rank != 2) {
        int64_t ad[2] = {M, K};
        a2 = pb_reshape(&B, ain, 2, ad, -1);
    }
    int yp = pb_value(&B, "panels");
    if (ng == 1) {
        int mins[2] = {a2, bpg[0]};
        pb_node(&B, mm, 2, mins, yp);
    } else {
        int parts[PACK_MAX_GROUPS];
        for (int q = 0; q < ng; q++) {
            int mins[2] = {a2, bpg[q]};
            parts[q] = pb_value(&B, "panels_part");
            pb_node(&B, mm, 2, mins, parts[q]);
        }
        node_set_int(g, pb_node(&B, "Concat", ng, parts, yp), "axis", 0);
    }
    int64_t perm[3] = {1, 0, 2};
    int yt = pb_transpose(&B, yp, 3, perm, -1);
    int64_t pdims[CTVM_MAX_RANK];
    memcpy(pdims, ydims, sizeof pdims);
    pdims[yrank - 1] = NP;
    int yr = pb_reshape(&B, yt, yrank, pdims, cc >= 0 || NP != N ? -1 : yv);
    int ys = yr;
    if (NP != N) { /* the columns of Y, out of the padded panels */
        int64_t st = 0, en = N, ax = yrank - 1;
        int sins[4] = {yr, pb_ints(&B, "starts", 1, &st), pb_ints(&B, "ends", 1, &en), pb_ints(&B, "axes", 1, &ax)};
        ys = cc >= 0 ? pb_value(&B, "cols") : yv;
        pb_node(&B, "Slice", 4, sins, ys);
    }
    if (cc >= 0) {
        int ains[2] = {ys, cc};
        pb_node(&B, "Add", 2, ains, yv);
    }
    g->nodes[B.pos].dead = 1; /* the original product, now after its replacement */
    graph_count_uses(g);
    int span = B.pos - i + 1;
    if (NP == N)
        sink_epilogue(g, g->values[yr].producer, shape_make(yrank, ydims), M, P, NB); /* Gemm's C too */
    return span;
}

int pass_pack_matmul(Graph *g, const CodegenOptions *cg, Diag *d)
{
    (void)d;
    const Target *t = cg->target;
    if (!t || t->vl <= 1)
        return 0;
    int64_t NB = 2 * (int64_t)t->vl;
    int bf16 = target_has_bf16_dot(t);
    for (int i = 0; i < g->n_nodes; i++) {
        const Node *n = &g->nodes[i];
        if (n->dead || (n->op != OP_MATMUL && n->op != OP_GEMM))
            continue;
        int span = pack_one(g, i, NB, bf16);
        if (span > 0)
            i += span - 1;
    }
    return 0;
}
