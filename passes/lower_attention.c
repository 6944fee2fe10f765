/* lower_attention.c - pass "lower_attention": the common float32 Attention
 * (opsets 23-25) as the operators ONNX defines it with, so that its two
 * products run on the register-tiled GEMM schedule and its softmax on the
 * vectorized row nest instead of the op's one-row-at-a-time loop nest:
 *
 *   S = MatMul(Q, Transpose(K, [0,1,3,2])) * scale   [B,H,Sq,T]
 *   S = S + mask (constant, finite) + causal (0 / -inf, constant)
 *   Y = MatMul(Softmax(S, axis -1), V)
 *
 * with 3-D inputs [B,S,H*D] viewed as [B,S,H,D] and transposed to heads
 * first (and Y back). Taken only where the decomposition is exact in
 * meaning: float32 Q/K/V, as many KV heads as query heads, no past
 * key/value, no nonpad_kv_seqlen, no softcap, no window, float32 softmax,
 * Y the only output used, and a mask that is absent or a constant finite
 * float32 tensor whose last dim is T (so no row is entirely -inf: the op
 * gives zeros there, Softmax would give NaN). Everything else keeps the
 * Attention node (ops/attention.c). Runs before the second inference. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "passes/pass_util.h"
#include "passes/passes.h"

static int present(const Node *n, int i, int out)
{
    if (out)
        return i < n->n_out && n->out[i] >= 0;
    return i < n->n_in && n->in[i] >= 0;
}

/* the mask, when usable: constant float32, finite, last dim T, rank <= 4 */
static int mask_ok(const Value *m, int64_t T)
{
    int64_t cnt = 0;
    if (m->dtype != DT_FLOAT32 || !m->data || m->shape.rank < 1 || m->shape.rank > 4 ||
        m->shape.dims[m->shape.rank - 1] != T || !shape_numel(&m->shape, &cnt))
        return 0;
    const float *d = m->data;
    for (int64_t i = 0; i < cnt; i++)
        if (!isfinite(d[i]))
            return 0;
    return 1;
}

/* Rewrites Attention node i; returns the nodes it spans now (0: kept). */
static int lower_one(Graph *g, int i)
{
    const Node *n = &g->nodes[i];
    if (n->n_in < 3 || present(n, 4, 0) || present(n, 5, 0) || present(n, 6, 0) || present(n, 1, 1) ||
        present(n, 2, 1) || present(n, 3, 1) || n->out[0] < 0)
        return 0;
    const Value *q = &g->values[n->in[0]], *k = &g->values[n->in[1]], *v = &g->values[n->in[2]];
    const Value *y = &g->values[n->out[0]];
    if (q->dtype != DT_FLOAT32 || k->dtype != DT_FLOAT32 || v->dtype != DT_FLOAT32 || y->dtype != DT_FLOAT32)
        return 0;
    int rank = q->shape.rank;
    if ((rank != 3 && rank != 4) || k->shape.rank != rank || v->shape.rank != rank)
        return 0;
    const AttentionAttrs *aa = &n->at.attention;
    int64_t Hq = aa->q_num_heads, Hkv = aa->kv_num_heads;
    if (Hq < 1 || Hq != Hkv || aa->softcap != 0.0f || aa->left_window >= 0 || aa->right_window >= 0 ||
        aa->softmax_dtype != DT_FLOAT32 || aa->qk_matmul_output_mode != 0)
        return 0;
    int causal = aa->is_causal;
    int64_t B = q->shape.dims[0], Sq, T, Dk;
    if (rank == 4) {
        Sq = q->shape.dims[2];
        T = k->shape.dims[2];
        Dk = q->shape.dims[3];
    } else {
        Sq = q->shape.dims[1];
        T = k->shape.dims[1];
        if (q->shape.dims[2] % Hq)
            return 0;
        Dk = q->shape.dims[2] / Hq;
    }
    if (Sq < 1 || T < 1 || Dk < 1)
        return 0;
    int mask = present(n, 3, 0) ? n->in[3] : -1;
    if (mask >= 0 && !mask_ok(&g->values[mask], T))
        return 0;
    /* default scale 1/sqrt(Dk), as the reference computes it (in double) */
    float scale = n->at.attention.has_scale ? n->at.attention.scale : (float)(1.0 / sqrt((double)Dk));
    int64_t ydims[CTVM_MAX_RANK];
    memcpy(ydims, y->shape.dims, sizeof ydims);
    int qv = n->in[0], kv = n->in[1], vv = n->in[2], yv = n->out[0];
    const char *base = n->name;
    if (rank == 3 && g->values[vv].shape.dims[2] % Hq)
        return 0;
    int cv = -1;
    if (causal) { /* key j attends to query i iff j <= i */
        int64_t cnt, cd[2] = {Sq, T};
        if (!i64_mul(Sq, T, &cnt))
            return 0;
        float *cm = malloc((size_t)cnt * sizeof *cm);
        if (!cm)
            return 0;
        for (int64_t a = 0; a < Sq; a++)
            for (int64_t b = 0; b < T; b++)
                cm[a * T + b] = b <= a ? 0.0f : -INFINITY;
        cv = graph_add_const(g, pass_unique_name(g, arena_printf(g->arena, "%s_causal", base)), DT_FLOAT32,
                             shape_make(2, cd), cm);
        free(cm);
    }
    PassBuild L = {g, i, base};
    int64_t perm_heads[4] = {0, 2, 1, 3}, perm_kt[4] = {0, 1, 3, 2};
    if (rank == 3) { /* [B,S,H*D] -> [B,H,S,D] */
        const int64_t *vd = g->values[vv].shape.dims;
        int64_t qd[4] = {B, Sq, Hq, Dk}, kd[4] = {B, T, Hq, Dk}, vd4[4] = {B, T, Hq, vd[2] / Hq};
        qv = pb_transpose(&L, pb_reshape(&L, qv, 4, qd, -1), 4, perm_heads, -1);
        kv = pb_transpose(&L, pb_reshape(&L, kv, 4, kd, -1), 4, perm_heads, -1);
        vv = pb_transpose(&L, pb_reshape(&L, vv, 4, vd4, -1), 4, perm_heads, -1);
    }
    int kt = pb_transpose(&L, kv, 4, perm_kt, -1);
    int s = pb_binary(&L, "MatMul", qv, kt);
    int sc = graph_add_const(g, pass_unique_name(g, arena_printf(g->arena, "%s_scale", L.base)), DT_FLOAT32,
                             shape_make(0, NULL), &scale);
    s = pb_binary(&L, "Mul", s, sc);
    if (mask >= 0)
        s = pb_binary(&L, "Add", s, mask);
    if (cv >= 0)
        s = pb_binary(&L, "Add", s, cv);
    int p = pb_value(&L, "probs");
    int sid = pb_node(&L, "Softmax", 1, &s, p);
    node_set_int(g, sid, "axis", -1);
    g->nodes[sid].at.softmax = (SoftmaxAttrs){.axis = -1}; /* as the attribute, until infer_fold2 resolves it */
    if (rank == 4) {
        int ins[2] = {p, vv};
        pb_node(&L, "MatMul", 2, ins, yv);
    } else {
        int y4 = pb_binary(&L, "MatMul", p, vv);
        pb_reshape(&L, pb_transpose(&L, y4, 4, perm_heads, -1), 3, ydims, yv);
    }
    g->nodes[L.pos].dead = 1; /* the Attention node, replaced */
    graph_count_uses(g);
    return L.pos - i + 1;
}

int pass_lower_attention(Graph *g, Diag *d)
{
    (void)d;
    for (int i = 0; i < g->n_nodes; i++) {
        const Node *n = &g->nodes[i];
        if (n->dead || n->op != OP_ATTENTION)
            continue;
        int span = lower_one(g, i);
        if (span > 0)
            i += span - 1;
    }
    return 0;
}
