/* fold_batchnorm.c - pass_fold_batchnorm: inference BatchNormalization with
 * constant statistics disappears into its producer or a Mul and an Add.
 *
 * With s = scale / sqrt(var + eps) and t = B - mean * s per channel c (axis 1):
 *   - producer Conv (its output used only by the BN, not a graph output,
 *     constant weights and bias): W'[m] = W[m] * s[m], b'[m] = b[m] * s[m] + t[m]
 *     (a bias input is created when the Conv had none);
 *   - producer Gemm (same conditions; B constant, C absent, or constant
 *     scalar or per-column [N] / [1,N]): column n of op(B) scaled by s[n],
 *     C'[n] = C[n] * s[n] + t[n] / beta (C' = t with beta 1 when C is absent
 *     or beta is 0);
 *   - producer MatMul of a 2-D input by a constant 2-D [K,N] weight: the
 *     MatMul becomes Gemm(A, W * s, t) with alpha = beta = 1, no transposes.
 * The producer then writes the BN's output value directly (names of graph
 * outputs survive) and the BN is marked dead. New constants are fresh values;
 * the old weights are left for pass_dce (they may be shared).
 * Otherwise the BN becomes Mul(x, s) followed by Add(., t) with constants of
 * shape [C, 1, ..., 1] (rank of x minus 1) broadcasting over [N, C, ...]; the
 * Add is inserted right after the Mul to keep the topological order.
 * A BN in training mode, with run-time parameters, per-activation statistics
 * (spatial = 0) or another type than float32 stays: ops/norm.c computes it.
 * Run after pass_infer_fold. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "passes/pass_util.h"
#include "passes/passes.h"

typedef struct BnParams {
    int64_t c;
    float *s, *t; /* arena arrays of c floats */
} BnParams;

static int bn_params(Graph *g, int node, Diag *d, BnParams *bp)
{
    const Node *n = &g->nodes[node];
    if (n->n_in != 5)
        return diag_error(d, g, node, "expected 5 inputs");
    const Value *x = &g->values[n->in[0]];
    if (x->shape.rank < 2 || x->dtype != DT_FLOAT32)
        return diag_error(d, g, node, "input type unknown or not float32 [N,C,...]; "
                                      "run shape inference first");
    bp->c = x->shape.dims[1];
    const float *p[4];
    for (int k = 1; k < 5; k++) {
        const Value *v = node_input(g, n, k);
        int64_t cnt;
        if (!v || !value_is_const(v) || v->dtype != DT_FLOAT32 || !shape_numel(&v->shape, &cnt) ||
            cnt != bp->c)
            return diag_error(d, g, node, "scale, B, mean and var must be constant float32 [%lld]",
                              (long long)bp->c);
        p[k - 1] = v->data;
    }
    float eps = n->at.bn.epsilon;
    bp->s = arena_array(g->arena, (size_t)bp->c, sizeof(float));
    bp->t = arena_array(g->arena, (size_t)bp->c, sizeof(float));
    for (int64_t c = 0; c < bp->c; c++) {
        bp->s[c] = p[0][c] / sqrtf(p[3][c] + eps);
        bp->t[c] = p[1][c] - p[2][c] * bp->s[c];
    }
    return 0;
}

/* An inference BN with constant float32 per-channel parameters and float32 input. */
static int foldable(Graph *g, int node)
{
    const Node *n = &g->nodes[node];
    if (n->at.bn.training || !n->at.bn.spatial || n->n_in != 5)
        return 0;
    for (int k = 1; k < n->n_out; k++)
        if (n->out[k] >= 0 && (g->values[n->out[k]].n_uses > 0 || g->values[n->out[k]].is_output))
            return 0;
    if (g->values[n->in[0]].dtype != DT_FLOAT32)
        return 0;
    for (int k = 1; k < 5; k++) {
        const Value *v = node_input(g, n, k);
        if (!v || !value_is_const(v) || v->dtype != DT_FLOAT32)
            return 0;
    }
    return 1;
}

/* The single-use, non-output value x produced by a live node, or -1. */
static int sole_producer(Graph *g, int x)
{
    const Value *v = &g->values[x];
    if (v->n_uses != 1 || v->is_output || v->producer < 0 || g->nodes[v->producer].dead)
        return -1;
    return v->producer;
}

static int add_const(Graph *g, const char *base, int64_t rank, const int64_t *dims, const float *data)
{
    return graph_add_const(g, pass_unique_name(g, base), DT_FLOAT32, shape_make((int)rank, dims), data);
}

/* Producer p writes the BN's output; BN dead. */
static void take_output(Graph *g, int bn, int p)
{
    int x = g->nodes[bn].in[0], y = g->nodes[bn].out[0];
    g->nodes[p].out[0] = y;
    g->values[y].producer = p;
    g->values[x].producer = -1;
    g->values[x].n_uses = 0;
    g->nodes[bn].dead = 1;
}

static int fold_conv(Graph *g, int bn, int p, const BnParams *bp)
{
    const Node *cv = &g->nodes[p];
    const Value *w = node_input(g, cv, 1), *b = node_input(g, cv, 2);
    if (!w || !value_is_const(w) || (b && !value_is_const(b)) || w->shape.dims[0] != bp->c)
        return 0;
    int64_t total, m = bp->c;
    if (!shape_numel(&w->shape, &total))
        return 0;
    int64_t per = m ? total / m : 0;
    float *nw = malloc((size_t)(total ? total : 1) * sizeof(float));
    float *nb = malloc((size_t)(m ? m : 1) * sizeof(float));
    if (!nw || !nb) {
        free(nw);
        free(nb);
        return 0;
    }
    for (int64_t i = 0; i < m; i++) {
        for (int64_t k = 0; k < per; k++)
            nw[i * per + k] = ((const float *)w->data)[i * per + k] * bp->s[i];
        nb[i] = (b ? ((const float *)b->data)[i] * bp->s[i] : 0.0f) + bp->t[i];
    }
    Shape ws = w->shape;
    const char *cname = cv->name;
    int wid = add_const(g, arena_printf(g->arena, "%s_bnfold_w", cname), ws.rank, ws.dims, nw);
    int bid = add_const(g, arena_printf(g->arena, "%s_bnfold_b", cname), 1, &m, nb);
    free(nw);
    free(nb);
    pass_grow_inputs(g, p, 3);
    g->nodes[p].in[1] = wid;
    g->nodes[p].in[2] = bid;
    take_output(g, bn, p);
    return 1;
}

/* Scale column n of op(B) (B is [K,N], or [N,K] when transposed) by s[n]. */
static float *scale_columns(const Value *bv, int transb, const float *s)
{
    int64_t r = bv->shape.dims[0], c = bv->shape.dims[1];
    float *out = malloc((size_t)(r * c > 0 ? r * c : 1) * sizeof(float));
    if (!out)
        return NULL;
    const float *in = bv->data;
    for (int64_t i = 0; i < r; i++)
        for (int64_t j = 0; j < c; j++)
            out[i * c + j] = in[i * c + j] * s[transb ? i : j];
    return out;
}

static int fold_gemm(Graph *g, int bn, int p, const BnParams *bp)
{
    const Node *gm = &g->nodes[p];
    const Value *bv = node_input(g, gm, 1), *cv = node_input(g, gm, 2);
    int transb = gm->at.gemm.trans_b;
    float beta = gm->at.gemm.beta;
    int64_t nn = bp->c, cnt = 0;
    if (!bv || !value_is_const(bv) || bv->shape.rank != 2 || bv->shape.dims[transb ? 0 : 1] != nn)
        return 0;
    int use_c = cv && beta != 0.0f;
    if (use_c && (!value_is_const(cv) || !shape_numel(&cv->shape, &cnt) ||
                  !(cnt == 1 || (cnt == nn && cv->shape.rank >= 1 &&
                                 cv->shape.dims[cv->shape.rank - 1] == nn))))
        return 0;
    float *nw = scale_columns(bv, transb, bp->s);
    float *nc = malloc((size_t)(nn ? nn : 1) * sizeof(float));
    if (!nw || !nc) {
        free(nw);
        free(nc);
        return 0;
    }
    for (int64_t j = 0; j < nn; j++)
        nc[j] = use_c ? ((const float *)cv->data)[cnt == 1 ? 0 : j] * bp->s[j] + bp->t[j] / beta
                      : bp->t[j];
    Shape ws = bv->shape;
    const char *name = gm->name;
    int wid = add_const(g, arena_printf(g->arena, "%s_bnfold_w", name), 2, ws.dims, nw);
    int cid = add_const(g, arena_printf(g->arena, "%s_bnfold_c", name), 1, &nn, nc);
    free(nw);
    free(nc);
    pass_grow_inputs(g, p, 3);
    g->nodes[p].in[1] = wid;
    g->nodes[p].in[2] = cid;
    if (!use_c) {
        node_set_float(g, p, "beta", 1.0f);
        g->nodes[p].at.gemm.beta = 1.0f;
    }
    take_output(g, bn, p);
    return 1;
}

static int fold_matmul(Graph *g, int bn, int p, const BnParams *bp)
{
    const Node *mm = &g->nodes[p];
    const Value *a = node_input(g, mm, 0), *bv = node_input(g, mm, 1);
    int64_t nn = bp->c;
    if (!a || !bv || a->shape.rank != 2 || !value_is_const(bv) || bv->shape.rank != 2 ||
        bv->shape.dims[1] != nn)
        return 0;
    float *nw = scale_columns(bv, 0, bp->s);
    if (!nw)
        return 0;
    Shape ws = bv->shape;
    const char *name = mm->name;
    int wid = add_const(g, arena_printf(g->arena, "%s_bnfold_w", name), 2, ws.dims, nw);
    int cid = add_const(g, arena_printf(g->arena, "%s_bnfold_c", name), 1, &nn, bp->t);
    free(nw);
    pass_grow_inputs(g, p, 3);
    Node *n = &g->nodes[p];
    n->in[1] = wid;
    n->in[2] = cid;
    n->op = OP_GEMM;
    n->op_type = "Gemm";
    pass_modern_version(g, p);
    node_set_float(g, p, "alpha", 1.0f);
    node_set_float(g, p, "beta", 1.0f);
    node_set_int(g, p, "transA", 0);
    node_set_int(g, p, "transB", 0);
    g->nodes[p].at.gemm = (GemmAttrs){.alpha = 1.0f, .beta = 1.0f};
    take_output(g, bn, p);
    return 1;
}

/* BN -> Mul(x, s) ; Add(., t). Returns the index of the inserted Add. */
static int to_mul_add(Graph *g, int bn, const BnParams *bp)
{
    Node *n = &g->nodes[bn];
    int x = n->in[0], y = n->out[0];
    Shape xs = g->values[x].shape;
    int64_t dims[CTVM_MAX_RANK];
    dims[0] = bp->c;
    for (int k = 1; k < xs.rank - 1; k++)
        dims[k] = 1;
    const char *name = n->name;
    int sid = add_const(g, arena_printf(g->arena, "%s_scale", name), xs.rank - 1, dims, bp->s);
    int tid = add_const(g, arena_printf(g->arena, "%s_shift", name), xs.rank - 1, dims, bp->t);
    int mid = graph_add_value(g, pass_unique_name(g, arena_printf(g->arena, "%s_scaled", name)));
    g->values[mid].dtype = DT_FLOAT32;
    g->values[mid].shape = xs;
    n = &g->nodes[bn];
    n->op = OP_MUL;
    n->op_type = "Mul";
    pass_modern_version(g, bn);
    n->n_in = 2;
    n->in[1] = sid;
    n->n_out = 1;
    n->out[0] = mid;
    n->n_attrs = 0;
    int ins[2] = {mid, tid}, outs[1] = {y};
    return pass_insert_node(g, bn + 1, "Add", arena_printf(g->arena, "%s_add", name), 2, ins, 1,
                            outs);
}

int pass_fold_batchnorm(Graph *g, Diag *d)
{
    graph_count_uses(g);
    for (int i = 0; i < g->n_nodes; i++) {
        if (g->nodes[i].dead || g->nodes[i].op != OP_BATCHNORM)
            continue;
        BnParams bp = {0, NULL, NULL};
        if (!foldable(g, i))
            continue; /* run-time statistics or training mode: a BatchNormalization kernel */
        if (bn_params(g, i, d, &bp))
            return -1;
        int p = sole_producer(g, g->nodes[i].in[0]), done = 0;
        if (p >= 0 && g->nodes[p].op == OP_CONV)
            done = fold_conv(g, i, p, &bp);
        else if (p >= 0 && g->nodes[p].op == OP_GEMM)
            done = fold_gemm(g, i, p, &bp);
        else if (p >= 0 && g->nodes[p].op == OP_MATMUL)
            done = fold_matmul(g, i, p, &bp);
        if (!done)
            i = to_mul_add(g, i, &bp);
    }
    graph_count_uses(g);
    return 0;
}
