/* winograd.c - ctvm.WinogradConv, a 3x3 stride-1 blocked convolution as
 * Winograd F(2x2, 3x3) (pass "winograd" makes it from ctvm.ConvNCHWc; never
 * read from a model):
 *
 *   X  [N, ICb, H, W, L]  input in channel blocks of L lanes (not padded:
 *      attribute pads [4] = top, left, bottom, right; zeros read outside)
 *   U  [16, IC, OC]       G g G^T of the weights (IC = ICb*L, OC = OCb*L),
 *                         computed at compile time; t = 4*xi + nu
 *   B  [OC] optional bias
 *   Y  [N, OCb, OH, OW, L]            OH = H + pt + pb - 2, OW likewise
 *   V  [16, P, IC] scratch (output 1), P = N * TH * TW tiles of 2x2 outputs,
 *      TH = ceil(OH/2), TW = ceil(OW/2)
 *   M  [16, P, OC] scratch (output 2)
 *
 * Three stages: V = B^T d B per tile and input channel (d the 4x4 input
 * patch at (2*th - pt, 2*tw - pl)); M[t] = V[t] U[t] (16 GEMMs, the
 * register-tiled GEMM schedule); Y = A^T m A per tile, plus bias, with the
 * fused epilogues composed into this last stage. Rows of
 *   B^T = [[1,0,-1,0], [0,1,1,0], [0,-1,1,0], [0,1,0,-1]]
 * have two nonzeros each: row xi takes +-d[i0(xi)] and +-d[i1(xi)] with
 * i0 = min(xi, 1), i1 = 2 + (xi == 3), the first negative for xi = 2 and the
 * second negative for xi = 0 and 3. Rows of A^T = [[1,1,1,0], [0,1,-1,-1]]:
 * output row a sums m[a] + s*(m[a+1] + m[a+2]) with s = 1 - 2a. */
#include "ops/compute.h"
#include "ops/op_util.h"
#include "ops/ops.h"

typedef struct Wino {
    int64_t N, ICb, H, W, L, IC, OC, OCb, OH, OW, TH, TW, P, pt, pl;
} Wino;

static int wino_dims(const Graph *g, int node, Wino *w)
{
    const Node *n = &g->nodes[node];
    if (n->n_in < 2)
        return -1;
    const Value *x = &g->values[n->in[0]], *u = &g->values[n->in[1]];
    int k = 0;
    const int64_t *pd = attr_ints(n, "pads", &k);
    if (!pd || k != 4 || x->shape.rank != 5 || u->shape.rank != 3 || u->shape.dims[0] != 16)
        return -1;
    *w = (Wino){.N = x->shape.dims[0], .ICb = x->shape.dims[1], .H = x->shape.dims[2], .W = x->shape.dims[3],
                .L = x->shape.dims[4], .IC = u->shape.dims[1], .OC = u->shape.dims[2], .pt = pd[0], .pl = pd[1]};
    if (w->L < 1 || w->IC != w->ICb * w->L || w->OC % w->L)
        return -1;
    w->OCb = w->OC / w->L;
    w->OH = w->H + pd[0] + pd[2] - 2;
    w->OW = w->W + pd[1] + pd[3] - 2;
    if (w->OH < 1 || w->OW < 1)
        return -1;
    w->TH = (w->OH + 1) / 2;
    w->TW = (w->OW + 1) / 2;
    w->P = w->N * w->TH * w->TW;
    return 0;
}

int op_winograd_infer(Graph *g, int node, Diag *d)
{
    Wino w;
    if (opu_check_arity(g, node, d, 2, 3, 1, 3))
        return -1;
    if (wino_dims(g, node, &w))
        return diag_error(d, g, node, "malformed WinogradConv (internal error)");
    int64_t y[5] = {w.N, w.OCb, w.OH, w.OW, w.L}, v[3] = {16, w.P, w.IC}, m[3] = {16, w.P, w.OC};
    opu_set_out(g, node, 0, DT_FLOAT32, shape_make(5, y));
    if (g->nodes[node].n_out > 1)
        opu_set_out(g, node, 1, DT_FLOAT32, shape_make(3, v));
    if (g->nodes[node].n_out > 2)
        opu_set_out(g, node, 2, DT_FLOAT32, shape_make(3, m));
    return 0;
}

int op_winograd_eval(Graph *g, int node, Diag *d) { return ops_eval_compute(g, node, d); }

/* -e when neg, else e (neg is a constant once the transform index is) */
static Expr *sgn(LoopBuilder *lb, Expr *neg, Expr *e)
{
    return lx_select(lb, neg, lx_call(lb, CO_NEG, e), e);
}

int compute_winograd(ComputeCtx *cx, int node, ComputeDef *def)
{
    LoopBuilder *lb = cx->lb;
    const Graph *g = cx->g;
    const Node *n = &g->nodes[node];
    Wino w;
    if (wino_dims(g, node, &w) || n->n_out < 3)
        return compute_fail(cx, node, "malformed WinogradConv (internal error)");
    LBuf *X = cx->buf_of(cx, n->in[0]), *U = cx->buf_of(cx, n->in[1]);
    LBuf *V = cx->buf_of(cx, n->out[1]), *M = cx->buf_of(cx, n->out[2]);

    /* 1. input transform over [n, th, tw, icb, t, l]; V is [t][p][ic] */
    int64_t d1[6] = {w.N, w.TH, w.TW, w.ICb, 16, w.L};
    Shape s1 = shape_make(6, d1);
    ComputeStage *st = compute_stage_new(cx, def, n->name, V, &s1);
    if (!st)
        return compute_fail(cx, node, "too many stages");
    Expr *nn = lx_var(lb, st->axis[0]), *th = lx_var(lb, st->axis[1]), *tw = lx_var(lb, st->axis[2]);
    Expr *icb = lx_var(lb, st->axis[3]), *t = lx_var(lb, st->axis[4]), *l = lx_var(lb, st->axis[5]);
    Expr *p = lx_add(lb, lx_muli(lb, lx_add(lb, lx_muli(lb, nn, w.TH), th), w.TW), tw);
    st->out_index = lx_add(lb, lx_muli(lb, lx_add(lb, lx_muli(lb, t, w.P), p), w.IC),
                           lx_add(lb, lx_muli(lb, icb, w.L), l));
    Expr *xi = lx_div(lb, t, lx_int(lb, 4)), *nu = lx_bin(lb, BO_MOD, t, lx_int(lb, 4));
    Expr *row[2], *col[2], *rneg[2], *cneg[2];
    row[0] = lx_bin(lb, BO_MIN, xi, lx_int(lb, 1));
    col[0] = lx_bin(lb, BO_MIN, nu, lx_int(lb, 1));
    row[1] = lx_add(lb, lx_int(lb, 2), lx_bin(lb, BO_EQ, xi, lx_int(lb, 3)));
    col[1] = lx_add(lb, lx_int(lb, 2), lx_bin(lb, BO_EQ, nu, lx_int(lb, 3)));
    rneg[0] = lx_bin(lb, BO_EQ, xi, lx_int(lb, 2));
    cneg[0] = lx_bin(lb, BO_EQ, nu, lx_int(lb, 2));
    rneg[1] = lx_bin(lb, BO_OR, lx_bin(lb, BO_EQ, xi, lx_int(lb, 0)), lx_bin(lb, BO_EQ, xi, lx_int(lb, 3)));
    cneg[1] = lx_bin(lb, BO_OR, lx_bin(lb, BO_EQ, nu, lx_int(lb, 0)), lx_bin(lb, BO_EQ, nu, lx_int(lb, 3)));
    /* input rows reach 2*(TH-1) + 3 - pt, columns likewise */
    int64_t maxh = 2 * (w.TH - 1) + 3 - w.pt, maxw = 2 * (w.TW - 1) + 3 - w.pl;
    Expr *sum = NULL;
    for (int a = 0; a < 2; a++) {
        Expr *ih = lx_add(lb, lx_add(lb, lx_muli(lb, th, 2), row[a]), lx_int(lb, -w.pt));
        Expr *hin = compute_bound(cx, lx_int(lb, 1), ih, w.pt, maxh, w.H);
        Expr *part = NULL;
        for (int b = 0; b < 2; b++) {
            Expr *iw = lx_add(lb, lx_add(lb, lx_muli(lb, tw, 2), col[b]), lx_int(lb, -w.pl));
            Expr *cond = compute_bound(cx, hin, iw, w.pl, maxw, w.W);
            Expr *xi5[5] = {nn, icb, ih, iw, l};
            Shape xs = g->values[n->in[0]].shape;
            Expr *ld = lx_select(lb, cond, lx_load(lb, X, compute_flat_index(cx, &xs, xi5)), lx_float(lb, 0.0));
            ld = sgn(lb, cneg[b], ld);
            part = part ? lx_add(lb, part, ld) : ld;
        }
        part = sgn(lb, rneg[a], part);
        sum = sum ? lx_add(lb, sum, part) : part;
    }
    st->body = sum;
    st->finalize = lx_var(lb, st->acc);
    st->unroll_inner = 1; /* t: the row and column picks become constants */

    /* 2. M[t] = V[t] U[t]: 16 products [P, IC] x [IC, OC] */
    int64_t d2[3] = {16, w.P, w.OC};
    Shape s2 = shape_make(3, d2);
    st = compute_stage_new(cx, def, n->name, M, &s2);
    if (!st)
        return compute_fail(cx, node, "too many stages");
    LVar *k = compute_add_raxis(cx, st, "k", w.IC);
    st->red = RED_SUM;
    Expr *tt = lx_var(lb, st->axis[0]), *pp = lx_var(lb, st->axis[1]), *oc = lx_var(lb, st->axis[2]);
    Expr *kk = lx_var(lb, k);
    Expr *va = lx_load(lb, V, lx_add(lb, lx_muli(lb, lx_add(lb, lx_muli(lb, tt, w.P), pp), w.IC), kk));
    Expr *ub = lx_load(lb, U, lx_add(lb, lx_muli(lb, lx_add(lb, lx_muli(lb, tt, w.IC), kk), w.OC), oc));
    st->body = lx_mul(lb, va, ub);
    st->finalize = lx_var(lb, st->acc);
    st->sched = SCHED_GEMM;

    /* 3. output transform into Y (the node's output: epilogues compose here) */
    const Value *yv = &g->values[n->out[0]];
    st = compute_stage_new(cx, def, n->name, cx->buf_of(cx, n->out[0]), &yv->shape);
    if (!st)
        return compute_fail(cx, node, "too many stages");
    st->out_is_node_output = 1;
    Expr *yn = lx_var(lb, st->axis[0]), *ocb = lx_var(lb, st->axis[1]), *oh = lx_var(lb, st->axis[2]);
    Expr *ow = lx_var(lb, st->axis[3]), *ol = lx_var(lb, st->axis[4]);
    Expr *two = lx_int(lb, 2);
    Expr *ra = lx_bin(lb, BO_MOD, oh, two), *cb = lx_bin(lb, BO_MOD, ow, two);
    Expr *tp = lx_add(lb, lx_muli(lb, lx_add(lb, lx_muli(lb, yn, w.TH), lx_div(lb, oh, two)), w.TW),
                      lx_div(lb, ow, two));
    Expr *base = lx_add(lb, lx_muli(lb, tp, w.OC), lx_add(lb, lx_muli(lb, ocb, w.L), ol));
    Expr *sa = lx_select(lb, lx_bin(lb, BO_EQ, ra, lx_int(lb, 1)), lx_float(lb, -1.0), lx_float(lb, 1.0));
    Expr *sb = lx_select(lb, lx_bin(lb, BO_EQ, cb, lx_int(lb, 1)), lx_float(lb, -1.0), lx_float(lb, 1.0));
    Expr *r3[3];
    for (int r = 0; r < 3; r++) {
        Expr *m3[3];
        for (int q = 0; q < 3; q++) {
            Expr *ti = lx_add(lb, lx_muli(lb, lx_add(lb, ra, lx_int(lb, r)), 4), lx_add(lb, cb, lx_int(lb, q)));
            m3[q] = lx_load(lb, M, lx_add(lb, lx_muli(lb, ti, w.P * w.OC), base));
        }
        r3[r] = lx_add(lb, m3[0], lx_mul(lb, sb, lx_add(lb, m3[1], m3[2])));
    }
    st->body = lx_add(lb, r3[0], lx_mul(lb, sa, lx_add(lb, r3[1], r3[2])));
    st->finalize = lx_var(lb, st->acc);
    if (n->n_in > 2 && n->in[2] >= 0)
        st->finalize = lx_add(lb, st->finalize,
                              lx_load(lb, cx->buf_of(cx, n->in[2]), lx_add(lb, lx_muli(lb, ocb, w.L), ol)));
    return 0;
}
