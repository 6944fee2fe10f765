/* causalconv.c - CausalConvWithState (27): a causal depthwise 1-D
 * convolution that carries its left context between calls (Mamba, Gated
 * DeltaNet decode steps). input [B, C, L], weight [C, 1, k], optional bias
 * [C] and past_state [B, C, k - 1] (zeros when absent). With the padded
 * sequence P = concat(past_state, input) along the last axis (length
 * L + k - 1):
 *   output[b, c, t]        = act(bias[c] + sum_j weight[c, 0, j] * P[b, c, t + j])
 *   present_state[b, c, p] = P[b, c, L + p],  p < k - 1
 * act is the identity ("none") or x * sigmoid(x) ("silu", "swish").
 * float16/bfloat16 accumulate in float32.
 *
 * Normalised attributes (after infer): "cc_silu" 1 for silu/swish. */
#include <string.h>

#include "ops/compute.h"
#include "ops/op_util.h"
#include "ops/ops.h"

int op_causalconv_infer(Graph *g, int node, Diag *d)
{
    Node *n = &g->nodes[node];
    if (opu_check_arity(g, node, d, 2, 4, 1, 2))
        return -1;
    Value *x = opu_in(g, node, 0), *w = opu_in(g, node, 1), *b = opu_in(g, node, 2), *ps = opu_in(g, node, 3);
    DType t = x->dtype;
    if (!(t == DT_FLOAT32 || t == DT_FLOAT16 || t == DT_BFLOAT16))
        return diag_error(d, g, node, "input type %s not supported (float, float16, bfloat16)", dtype_name(t));
    if (x->shape.rank != 3)
        return diag_error(d, g, node, "input must have rank 3 (batch, channels, length), got %s",
                          opu_shape_str(&x->shape));
    int64_t B = x->shape.dims[0], C = x->shape.dims[1], L = x->shape.dims[2];
    if (w->dtype != t || w->shape.rank != 3 || w->shape.dims[0] != C || w->shape.dims[1] != 1 || w->shape.dims[2] < 1)
        return diag_error(d, g, node, "weight must be %s [%lld, 1, k] with k >= 1, got %s %s", dtype_name(t),
                          (long long)C, dtype_name(w->dtype), opu_shape_str(&w->shape));
    int64_t k = w->shape.dims[2];
    if (b && (b->dtype != t || b->shape.rank != 1 || b->shape.dims[0] != C))
        return diag_error(d, g, node, "bias must be %s [%lld], got %s", dtype_name(t), (long long)C,
                          opu_shape_str(&b->shape));
    if (ps && (ps->dtype != t || ps->shape.rank != 3 || ps->shape.dims[0] != B || ps->shape.dims[1] != C ||
               ps->shape.dims[2] != k - 1))
        return diag_error(d, g, node, "past_state must be %s [%lld, %lld, %lld], got %s", dtype_name(t),
                          (long long)B, (long long)C, (long long)(k - 1), opu_shape_str(&ps->shape));
    if (L > INT32_MAX - k)
        return diag_error(d, g, node, "the sequence is too long");
    const char *act = attr_string(n, "activation", "none");
    int silu;
    if (!strcmp(act, "none"))
        silu = 0;
    else if (!strcmp(act, "silu") || !strcmp(act, "swish"))
        silu = 1;
    else
        return diag_error(d, g, node, "unsupported activation '%s' (none, silu, swish)", act);
    int64_t od[3] = {B, C, L}, sd[3] = {B, C, k - 1}, tot;
    Shape os = shape_make(3, od), ss = shape_make(3, sd);
    if (opu_numel(g, node, d, &os, &tot) || opu_numel(g, node, d, &ss, &tot))
        return -1;
    g->nodes[node].at.causalconv.silu = silu;
    opu_set_out(g, node, 0, t, os);
    if (n->n_out > 1 && n->out[1] >= 0)
        opu_set_out(g, node, 1, t, ss);
    return 0;
}

/* P[b, c, p] for p in [0, L + k - 1) (an LT_IDX expression). */
static Expr *padded(ComputeCtx *cx, const Node *n, Expr *b, Expr *c, Expr *p)
{
    LoopBuilder *lb = cx->lb;
    const Value *x = &cx->g->values[n->in[0]];
    int64_t C = x->shape.dims[1], L = x->shape.dims[2];
    int64_t k1 = cx->g->values[n->in[1]].shape.dims[2] - 1;
    Expr *bc = lx_add(lb, lx_muli(lb, b, C), c);
    Expr *xi = lx_bin(lb, BO_MAX, lx_sub(lb, p, lx_int(lb, k1)), lx_int(lb, 0));
    Expr *xv = lx_load(lb, cx->buf_of(cx, n->in[0]), lx_add(lb, lx_muli(lb, bc, L), xi));
    if (k1 == 0)
        return xv;
    int has_past = n->n_in > 3 && n->in[3] >= 0;
    Expr *pv = has_past ? lx_load(lb, cx->buf_of(cx, n->in[3]),
                                  lx_add(lb, lx_muli(lb, bc, k1), lx_bin(lb, BO_MIN, p, lx_int(lb, k1 - 1))))
                        : lx_zero(lb, xv->type);
    return lx_select(lb, lx_bin(lb, BO_LT, p, lx_int(lb, k1)), pv, xv);
}

int compute_causalconv(ComputeCtx *cx, int node, ComputeDef *def)
{
    LoopBuilder *lb = cx->lb;
    const Node *n = &cx->g->nodes[node];
    const Value *y = &cx->g->values[n->out[0]];
    int64_t k = cx->g->values[n->in[1]].shape.dims[2], ny = 0;
    int silu = n->at.causalconv.silu;
    LType ct = lt_of_dtype(y->dtype);
    shape_numel(&y->shape, &ny);
    if (ny > 0) {
        ComputeStage *s = compute_stage_new(cx, def, n->name, cx->buf_of(cx, n->out[0]), &y->shape);
        s->out_is_node_output = 1;
        LVar *j = compute_add_raxis(cx, s, "j", k);
        Expr *b = lx_var(lb, s->axis[0]), *c = lx_var(lb, s->axis[1]), *t = lx_var(lb, s->axis[2]);
        Expr *wv = lx_load(lb, cx->buf_of(cx, n->in[1]), lx_add(lb, lx_muli(lb, c, k), lx_var(lb, j)));
        s->red = RED_SUM;
        s->body = lx_mul(lb, lx_cast(lb, ct, padded(cx, n, b, c, lx_add(lb, t, lx_var(lb, j)))), lx_cast(lb, ct, wv));
        s->acc = lv_new_typed(lb, "acc", ct);
        Expr *r = lx_var(lb, s->acc);
        if (n->n_in > 2 && n->in[2] >= 0)
            r = lx_add(lb, r, lx_cast(lb, ct, lx_load(lb, cx->buf_of(cx, n->in[2]), c)));
        if (silu)
            r = lx_mul(lb, r, lx_call(lb, CO_SIGMOID, r));
        s->finalize = r;
    }
    if (n->n_out > 1 && n->out[1] >= 0) {
        const Value *st = &cx->g->values[n->out[1]];
        int64_t ns = 0, L = y->shape.dims[2];
        shape_numel(&st->shape, &ns);
        if (ns > 0) {
            ComputeStage *s = compute_stage_new(cx, def, n->name, cx->buf_of(cx, n->out[1]), &st->shape);
            if (!s)
                return compute_fail(cx, node, "too many stages");
            s->body = padded(cx, n, lx_var(lb, s->axis[0]), lx_var(lb, s->axis[1]),
                             lx_add(lb, lx_var(lb, s->axis[2]), lx_int(lb, L)));
        }
    }
    return 0;
}

DEFINE_EVAL_BY_COMPUTE(causalconv)
