/* rotary.c - RotaryEmbedding (opset 23): rotary positional embeddings.
 *
 * X is [B,H,S,D] or [B,S,H*D] (3-D needs num_heads). The first R =
 * rotary_embedding_dim (0: D) elements of each head are rotated in pairs,
 * the rest copied. A pair is (d, d+R/2) (halves) or (2i, 2i+1)
 * (interleaved); for pair i with first element x1 and second x2:
 *   y1 = cos_i * x1 - sin_i * x2,   y2 = sin_i * x1 + cos_i * x2
 * cos/sin come from caches [M, R/2] indexed by position_ids[b, s] when that
 * input is given (a negative id counts from M, out-of-range ids are clamped
 * into the cache), else from caches [B, S, R/2] at [b, s].
 *
 * float16/bfloat16 round each product and the sum as the reference's numpy
 * arithmetic in that type does.
 *
 * One stage over the output: every element reads its own x, its partner's
 * and one cos/sin pair.
 *
 * Normalised attributes: "num_heads" (H, also for 4-D inputs),
 * "rotary_embedding_dim" (R, never 0), "interleaved" (0/1). */
#include <string.h>

#include "ops/compute.h"
#include "ops/op_util.h"
#include "ops/ops.h"

static int rope_float(DType t)
{
    return t == DT_FLOAT32 || t == DT_FLOAT16 || t == DT_BFLOAT16;
}

int op_rotary_infer(Graph *g, int node, Diag *d)
{
    Node *n = &g->nodes[node];
    if (opu_check_arity(g, node, d, 3, 4, 1, 1))
        return -1;
    Value *x = opu_in(g, node, 0), *c = opu_in(g, node, 1), *s = opu_in(g, node, 2), *p = opu_in(g, node, 3);
    if (!rope_float(x->dtype) || c->dtype != x->dtype || s->dtype != x->dtype)
        return diag_error(d, g, node, "input, cos_cache and sin_cache must share float32/float16/bfloat16, got %s, %s, %s",
                          dtype_name(x->dtype), dtype_name(c->dtype), dtype_name(s->dtype));
    int r = x->shape.rank;
    if (r != 3 && r != 4)
        return diag_error(d, g, node, "input %s must be 3-D or 4-D", opu_shape_str(&x->shape));
    int64_t B = x->shape.dims[0], S, H, D;
    if (r == 4) {
        H = x->shape.dims[1], S = x->shape.dims[2], D = x->shape.dims[3];
    } else {
        H = attr_int(n, "num_heads", 0), S = x->shape.dims[1];
        if (H <= 0 || x->shape.dims[2] % H)
            return diag_error(d, g, node, "3-D input %s needs a num_heads attribute dividing its last dim",
                              opu_shape_str(&x->shape));
        D = x->shape.dims[2] / H;
    }
    int64_t R = attr_int(n, "rotary_embedding_dim", 0);
    if (R == 0)
        R = D;
    if (R < 0 || R > D || R % 2)
        return diag_error(d, g, node, "rotary_embedding_dim %lld must be even and at most the head size %lld",
                          (long long)R, (long long)D);
    if (c->shape.rank != s->shape.rank)
        return diag_error(d, g, node, "cos_cache %s and sin_cache %s differ in rank", opu_shape_str(&c->shape),
                          opu_shape_str(&s->shape));
    for (int i = 0; i < c->shape.rank; i++)
        if (c->shape.dims[i] != s->shape.dims[i])
            return diag_error(d, g, node, "cos_cache %s and sin_cache %s differ in shape", opu_shape_str(&c->shape),
                              opu_shape_str(&s->shape));
    if (p) {
        if (p->dtype != DT_INT64 || p->shape.rank != 2 || p->shape.dims[0] != B || p->shape.dims[1] != S)
            return diag_error(d, g, node, "position_ids must be int64 [%lld,%lld], got %s %s", (long long)B,
                              (long long)S, dtype_name(p->dtype), opu_shape_str(&p->shape));
        if (c->shape.rank != 2 || c->shape.dims[0] < 1 || c->shape.dims[1] != R / 2)
            return diag_error(d, g, node, "with position_ids the caches must be [max_position, %lld], got %s",
                              (long long)(R / 2), opu_shape_str(&c->shape));
    } else if (c->shape.rank != 3 || c->shape.dims[0] != B || c->shape.dims[1] != S || c->shape.dims[2] != R / 2) {
        return diag_error(d, g, node, "without position_ids the caches must be [%lld,%lld,%lld], got %s",
                          (long long)B, (long long)S, (long long)(R / 2), opu_shape_str(&c->shape));
    }
    node_set_int(g, node, "num_heads", H);
    node_set_int(g, node, "rotary_embedding_dim", R);
    node_set_int(g, node, "interleaved", attr_int(n, "interleaved", 0) != 0);
    n->at.rotary = (RotaryAttrs){.num_heads = H, .dim = R, .interleaved = attr_int(n, "interleaved", 0) != 0};
    opu_set_out(g, node, 0, x->dtype, x->shape);
    return 0;
}

int compute_rotary(ComputeCtx *cx, int node, ComputeDef *def)
{
    LoopBuilder *lb = cx->lb;
    const Node *n = &cx->g->nodes[node];
    const Value *x = &cx->g->values[n->in[0]], *c = &cx->g->values[n->in[1]];
    const Value *y = &cx->g->values[n->out[0]];
    int has_p = n->n_in > 3 && n->in[3] >= 0;
    int r = x->shape.rank;
    int64_t H = n->at.rotary.num_heads, R = n->at.rotary.dim, half = R / 2;
    int inter = n->at.rotary.interleaved;
    int64_t S = r == 4 ? x->shape.dims[2] : x->shape.dims[1];
    int64_t D = r == 4 ? x->shape.dims[3] : x->shape.dims[2] / H;
    if (half < 1 || H < 1)
        return compute_fail(cx, node, "attributes not normalised");
    LBuf *xb = cx->buf_of(cx, n->in[0]), *cb = cx->buf_of(cx, n->in[1]), *sb = cx->buf_of(cx, n->in[2]);
    ComputeStage *st = compute_stage_new(cx, def, n->name, cx->buf_of(cx, n->out[0]), &y->shape);
    st->out_is_node_output = 1;
    Expr *eb = lx_var(lb, st->axis[0]);
    Expr *es = lx_var(lb, st->axis[r == 4 ? 2 : 1]);
    Expr *last = lx_var(lb, st->axis[r - 1]);
    Expr *dd = r == 4 ? last : lx_bin(lb, BO_MOD, last, lx_int(lb, D)); /* position in the head */
    Expr *self = st->out_index;
    /* first element of its pair, the partner's flat index, the pair number */
    Expr *first, *partner, *pair;
    if (inter) {
        first = lx_bin(lb, BO_EQ, lx_bin(lb, BO_MOD, dd, lx_int(lb, 2)), lx_int(lb, 0));
        partner = lx_select(lb, first, lx_add(lb, self, lx_int(lb, 1)), lx_sub(lb, self, lx_int(lb, 1)));
        pair = lx_bin(lb, BO_MOD, lx_div(lb, dd, lx_int(lb, 2)), lx_int(lb, half));
    } else {
        first = lx_bin(lb, BO_LT, dd, lx_int(lb, half));
        partner = lx_select(lb, first, lx_add(lb, self, lx_int(lb, half)), lx_sub(lb, self, lx_int(lb, half)));
        pair = lx_bin(lb, BO_MOD, dd, lx_int(lb, half));
    }
    /* the cache row */
    Expr *row;
    if (has_p) {
        int64_t M = c->shape.dims[0];
        LBuf *pb = cx->buf_of(cx, n->in[3]);
        Expr *k = lx_load(lb, pb, lx_add(lb, lx_muli(lb, eb, S), es));
        k = lx_select(lb, lx_bin(lb, BO_LT, k, lx_const_i(lb, LT_I64, 0)), lx_add(lb, k, lx_const_i(lb, LT_I64, M)), k);
        k = lx_bin(lb, BO_MIN, lx_bin(lb, BO_MAX, k, lx_const_i(lb, LT_I64, 0)), lx_const_i(lb, LT_I64, M - 1));
        row = lx_cast(lb, LT_IDX, k);
    } else {
        row = lx_add(lb, lx_muli(lb, eb, S), es);
    }
    Expr *ci = lx_add(lb, lx_muli(lb, row, half), pair);
    Expr *cv = lx_load(lb, cb, ci), *sv = lx_load(lb, sb, ci);
    Expr *xs = lx_load(lb, xb, self), *xp = lx_load(lb, xb, partner);
    DType dt = x->dtype;
    /* first: cos*x - sin*partner; second: sin*partner + cos*x */
    Expr *cx_ = compute_round_to(lb, dt, lx_mul(lb, cv, xs)), *sp = compute_round_to(lb, dt, lx_mul(lb, sv, xp));
    Expr *rot = lx_select(lb, first, compute_round_to(lb, dt, lx_sub(lb, cx_, sp)), compute_round_to(lb, dt, lx_add(lb, sp, cx_)));
    st->body = R < D ? lx_select(lb, lx_bin(lb, BO_LT, dd, lx_int(lb, R)), rot, xs) : rot;
    return 0;
}

DEFINE_EVAL_BY_COMPUTE(rotary)
