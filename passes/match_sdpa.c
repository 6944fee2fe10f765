/* match_sdpa.c - pass "match_sdpa": attention written out as operators,
 *
 *   S = MatMul(Q, Kt)  [-> Mul|Div by a constant scalar]  [-> Add mask]
 *   Y = MatMul(Softmax(S, last axis), V)
 *
 * (torch's and the exporters' form, and lower_attention's output) becomes
 * one ctvm.Sdpa node (ops/sdpa.c, templates/kernel_sdpa.h), which keeps a
 * block of score rows in cache instead of writing the [.., S, T] scores to
 * memory and reading them back for the softmax and for the product with V.
 * Taken for float32 operands of rank 3 or 4 with the same leading dims,
 * every intermediate read only by the next step, a float32 mask that
 * broadcasts against the scores, and scores of at least 2^20 elements (a
 * Whisper-sized sequence; shorter ones stay in cache as they are and keep
 * the register-tiled GEMM schedule). Runs after lower_attention, before the
 * second inference. */
#include "passes/pass_util.h"
#include "passes/passes.h"

enum { SDPA_MIN_SCORES = 1 << 20 };

static int is_f32(const Graph *g, int v) { return v >= 0 && g->values[v].dtype == DT_FLOAT32; }

/* the node reading value v, when v is read once and that node is of op, else -1 */
static int next_op(const Graph *g, int v, OpKind op)
{
    int c = pass_sole_consumer(g, v);
    return c >= 0 && g->nodes[c].op == op ? c : -1;
}

/* Rewrites the chain starting at MatMul node m1 when it matches; 1 if done. */
static int match_one(Graph *g, int m1)
{
    const Node *n1 = &g->nodes[m1];
    if (n1->n_in != 2 || n1->n_out != 1)
        return 0;
    int q = n1->in[0], kt = n1->in[1], s = n1->out[0];
    const Value *sv = &g->values[s];
    int r = sv->shape.rank;
    int64_t cnt = 0;
    if (!is_f32(g, q) || !is_f32(g, kt) || r < 3 || r > 4 || g->values[q].shape.rank != r ||
        g->values[kt].shape.rank != r || !shape_numel(&sv->shape, &cnt) || cnt < SDPA_MIN_SCORES)
        return 0;
    for (int i = 0; i < r - 2; i++)
        if (g->values[q].shape.dims[i] != sv->shape.dims[i] || g->values[kt].shape.dims[i] != sv->shape.dims[i])
            return 0;
    int chain[5] = {m1}, nc = 1, mode = 0, mask = -1, cur = s;
    double scale = 1.0;
    int sc = pass_sole_consumer(g, cur);
    if (sc >= 0 && (g->nodes[sc].op == OP_MUL || g->nodes[sc].op == OP_DIV)) {
        int other = pass_other_operand(g, sc, cur);
        if (other < 0 || !pass_const_scalar(g, other, &scale) ||
            (g->nodes[sc].op == OP_DIV && g->nodes[sc].in[0] != cur))
            return 0;
        mode = g->nodes[sc].op == OP_MUL ? 1 : 2;
        chain[nc++] = sc;
        cur = g->nodes[sc].out[0];
        sc = pass_sole_consumer(g, cur);
    }
    if (sc >= 0 && g->nodes[sc].op == OP_ADD) {
        mask = pass_other_operand(g, sc, cur);
        const Value *mv = mask >= 0 ? &g->values[mask] : NULL;
        if (!mv || !is_f32(g, mask) || mv->shape.rank > r || mv->dyn ||
            !shape_equal(&g->values[g->nodes[sc].out[0]].shape, &sv->shape))
            return 0;
        chain[nc++] = sc;
        cur = g->nodes[sc].out[0];
    }
    int sm = next_op(g, cur, OP_SOFTMAX);
    if (sm < 0 || g->nodes[sm].at.softmax.axis != r - 1 || !shape_equal(&g->values[cur].shape, &sv->shape))
        return 0;
    chain[nc++] = sm;
    int m2 = next_op(g, g->nodes[sm].out[0], OP_MATMUL);
    if (m2 < 0 || g->nodes[m2].in[0] != g->nodes[sm].out[0] || g->nodes[m2].n_out != 1)
        return 0;
    int v = g->nodes[m2].in[1];
    if (!is_f32(g, v) || g->values[v].shape.rank != r || g->values[v].shape.dims[r - 2] != sv->shape.dims[r - 1])
        return 0;
    for (int i = 0; i < r - 2; i++)
        if (g->values[v].shape.dims[i] != sv->shape.dims[i])
            return 0;
    chain[nc++] = m2;
    int ins[4] = {q, kt, v, mask};
    int node = pass_replace_nodes(g, chain, nc, "ctvm.Sdpa", mask >= 0 ? 4 : 3, ins, g->nodes[m2].out[0]);
    g->nodes[node].at.sdpa.scale_mode = mode;
    g->nodes[node].at.sdpa.scale = (float)scale;
    graph_count_uses(g);
    return 1;
}

int pass_match_sdpa(Graph *g, Diag *d)
{
    (void)d;
    for (int i = 0; i < g->n_nodes; i++) {
        const Node *n = &g->nodes[i];
        if (!n->dead && n->op == OP_MATMUL && n->fused_into < 0)
            match_one(g, i);
    }
    return 0;
}
