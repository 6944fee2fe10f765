/* match_layernorm.c - pass "match_layernorm": a LayerNorm that the exporter
 * wrote out as operators (torch.onnx below opset 17, tf2onnx, paddle2onnx):
 *
 *   m = ReduceMean(x, axes A, keepdims 1)      A = the last axes of x
 *   d = Sub(x, m)
 *   v = ReduceMean(Pow(d, 2) or Mul(d, d), A, keepdims 1)
 *   y = Div(d, Sqrt(Add(v, eps)))
 *   [y = Mul(y, gamma)] [y = Add(y, beta)]     gamma, beta constant over A
 *
 * becomes one LayerNormalization(x, gamma, beta; axis, epsilon): the
 * vectorized normalization nest (ops/norm.c), one kernel reading x twice,
 * instead of six kernels and four intermediate tensors. float32 only; every
 * intermediate must have no other reader. Runs after the first inference
 * (it needs shapes, constants and the reductions' normalised axes). */
#include <stdlib.h>
#include <string.h>

#include "passes/pass_util.h"
#include "passes/passes.h"

/* ReduceMean node r over the last axes of its input with keepdims: the first
 * reduced axis, else -1. */
static int mean_over_last_axes(const Graph *g, int r)
{
    const Node *n = &g->nodes[r];
    int na = n->at.reduce.n_axes;
    const int64_t *ax = n->at.reduce.axes;
    int rank = g->values[n->in[0]].shape.rank;
    if (na < 1 || !n->at.reduce.keepdims)
        return -1;
    for (int k = 0; k < na; k++)
        if (ax[k] != rank - na + k)
            return -1;
    return rank - na;
}

/* A float32 constant c that broadcasts over x's dims [axis, rank) only:
 * its data as a tensor of exactly those dims (a new constant), else -1. */
static int affine_const(Graph *g, int c, const Value *x, int axis, const char *what, const char *base)
{
    const Value *v = &g->values[c];
    int nd = x->shape.rank - axis;
    if (!v->data || v->dtype != DT_FLOAT32 || v->shape.rank > nd)
        return -1;
    for (int k = 0; k < v->shape.rank; k++) {
        int64_t want = x->shape.dims[x->shape.rank - v->shape.rank + k];
        if (v->shape.dims[k] != want)
            return -1;
    }
    int64_t cnt = 1;
    for (int k = 0; k < v->shape.rank; k++)
        cnt *= v->shape.dims[k]; /* equals a product of x's dims: no overflow */
    int64_t full;
    Shape s = shape_make(nd, x->shape.dims + axis);
    if (!shape_numel(&s, &full) || full != cnt)
        return -1; /* broadcast along a normalized dim: keep the operators */
    return graph_add_const(g, pass_unique_name(g, arena_printf(g->arena, "%s_%s", base, what)), DT_FLOAT32, s,
                           v->data);
}

/* The pattern ending in Div node i; returns 1 when rewritten. */
static int match_one(Graph *g, int i)
{
    const Node *div = &g->nodes[i];
    int d = div->in[0], sq = pass_producer(g, div->in[1], OP_SQRT);
    int sub = pass_producer(g, d, OP_SUB);
    if (sq < 0 || sub < 0 || g->values[div->in[1]].n_uses != 1)
        return 0;
    int add_eps = pass_producer(g, g->nodes[sq].in[0], OP_ADD);
    if (add_eps < 0 || g->values[g->nodes[sq].in[0]].n_uses != 1)
        return 0;
    double eps = 0;
    int v = -1;
    for (int k = 0; k < 2 && v < 0; k++)
        if (pass_const_scalar(g, g->nodes[add_eps].in[k], &eps))
            v = g->nodes[add_eps].in[1 - k];
    int r2 = pass_producer(g, v, OP_REDUCEMEAN);
    if (r2 < 0 || g->values[v].n_uses != 1 || !(eps >= 0))
        return 0;
    int p = g->nodes[r2].in[0], sqn = pass_producer(g, p, OP_POW), sqm = pass_producer(g, p, OP_MUL);
    double two = 0;
    if (g->values[p].n_uses != 1)
        return 0;
    int d_uses;
    if (sqn >= 0 && g->nodes[sqn].in[0] == d && pass_const_scalar(g, g->nodes[sqn].in[1], &two) && two == 2.0)
        d_uses = 2;
    else if (sqm >= 0 && g->nodes[sqm].in[0] == d && g->nodes[sqm].in[1] == d)
        d_uses = 3;
    else
        return 0;
    int x = g->nodes[sub].in[0], m = g->nodes[sub].in[1], r1 = pass_producer(g, m, OP_REDUCEMEAN);
    if (r1 < 0 || g->nodes[r1].in[0] != x || g->values[m].n_uses != 1 || g->values[d].n_uses != d_uses ||
        g->values[d].is_output)
        return 0;
    const Value *xv = &g->values[x];
    int axis = mean_over_last_axes(g, r1);
    if (xv->dtype != DT_FLOAT32 || axis < 0 || mean_over_last_axes(g, r2) != axis ||
        !shape_equal(&g->values[d].shape, &xv->shape) || !shape_equal(&g->values[div->out[0]].shape, &xv->shape))
        return 0;
    /* the optional affine tail */
    int dead[10] = {r1, sub, sqn >= 0 ? sqn : sqm, r2, add_eps, sq, i}, n_dead = 7;
    int y = div->out[0], gamma = -1, beta = -1;
    const char *base = div->name;
    int c = pass_sole_consumer(g, y);
    if (c >= 0 && g->nodes[c].op == OP_MUL && !g->nodes[c].dead) {
        int o = pass_other_operand(g, c, y);
        if (o >= 0 && (gamma = affine_const(g, o, xv, axis, "gamma", base)) >= 0) {
            dead[n_dead++] = c;
            y = g->nodes[c].out[0];
            c = pass_sole_consumer(g, y);
        }
    }
    xv = &g->values[x]; /* graph_add_const may move the values */
    if (c >= 0 && g->nodes[c].op == OP_ADD && !g->nodes[c].dead) {
        int o = pass_other_operand(g, c, y);
        if (o >= 0 && (beta = affine_const(g, o, xv, axis, "beta", base)) >= 0) {
            dead[n_dead++] = c;
            y = g->nodes[c].out[0];
        }
    }
    xv = &g->values[x];
    if (!shape_equal(&g->values[y].shape, &xv->shape) || g->values[y].dtype != DT_FLOAT32)
        return 0;
    if (gamma < 0) { /* LayerNormalization's Scale is required */
        int64_t cnt = 1;
        for (int k = axis; k < xv->shape.rank; k++)
            cnt *= xv->shape.dims[k];
        float *ones = malloc((size_t)cnt * sizeof *ones);
        if (!ones)
            return 0;
        for (int64_t k = 0; k < cnt; k++)
            ones[k] = 1.0f;
        gamma = graph_add_const(g, pass_unique_name(g, arena_printf(g->arena, "%s_gamma", base)), DT_FLOAT32,
                                shape_make(xv->shape.rank - axis, g->values[x].shape.dims + axis), ones);
        free(ones);
    }
    int ins[3] = {x, gamma, beta};
    int ln = pass_replace_nodes(g, dead, n_dead, "LayerNormalization", beta >= 0 ? 3 : 2, ins, y);
    node_set_int(g, ln, "axis", axis);
    node_set_float(g, ln, "epsilon", (float)eps);
    graph_count_uses(g);
    return 1;
}

int pass_match_layernorm(Graph *g, Diag *d)
{
    (void)d;
    for (int i = 0; i < g->n_nodes; i++)
        if (!g->nodes[i].dead && g->nodes[i].op == OP_DIV && g->nodes[i].fused_into < 0)
            match_one(g, i); /* the new node goes after i: the loop reaches it, a LayerNormalization */
    return 0;
}
