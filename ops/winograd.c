/* winograd.c - ctvm.WinogradConv, a 3x3 stride-1 blocked convolution as
 * Winograd F(m x m, 3x3), m = 2 or 4 (pass "winograd" makes it from
 * ctvm.ConvNCHWc; never read from a model). With A = m + 2 and T = A*A
 * (16 or 36; U's first dimension says which), for m = 2:
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
 * output row a sums m[a] + s*(m[a+1] + m[a+2]) with s = 1 - 2a.
 *
 * For m = 4 (6x6 input patches at (4*th - pt, 4*tw - pl), V and M [36, P, .])
 * the transforms are sums over the rows of the tables BT4 and AT4 below,
 * written for any t: on the unrolled t axis every coefficient is a constant
 * and the zero ones fold away (22 nonzeros in BT4: 484 terms for a tile's 36
 * values). The output transform needs the tile's 16 outputs at constant
 * positions, so it writes whole tiles into a fourth output, scratch
 * Z [OCb, P*16, L], and the last stage copies Z into Y (where the
 * epilogues compose), cutting the tiles at the output's edge. */
#include "ops/compute.h"
#include "ops/op_util.h"
#include "ops/ops.h"

typedef struct Wino {
    int64_t N, ICb, H, W, L, IC, OC, OCb, OH, OW, TH, TW, P, pt, pl;
    int m, A, T; /* outputs per tile side, input patch side, products */
} Wino;

/* F(4x4, 3x3)'s B^T (6x6) and A^T (4x6) */
static const double BT4[6][6] = {{4, 0, -5, 0, 1, 0},  {0, -4, -4, 1, 1, 0}, {0, 4, -4, -1, 1, 0},
                                 {0, -2, -1, 2, 1, 0}, {0, 2, -1, -2, 1, 0}, {0, 4, 0, -5, 0, 1}};
static const double AT4[4][6] = {{1, 1, 1, 1, 1, 0}, {0, 1, -1, 2, -2, 0}, {0, 1, 1, 4, 4, 0}, {0, 1, -1, 8, -8, 1}};

static int wino_dims(const Graph *g, int node, Wino *w)
{
    const Node *n = &g->nodes[node];
    if (n->n_in < 2)
        return -1;
    const Value *x = &g->values[n->in[0]], *u = &g->values[n->in[1]];
    const int64_t *pd = n->at.conv.win.pads;
    if (n->at.conv.win.n != 2 || x->shape.rank != 5 || u->shape.rank != 3 ||
        (u->shape.dims[0] != 16 && u->shape.dims[0] != 36))
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
    w->T = (int)u->shape.dims[0];
    w->A = w->T == 16 ? 4 : 6;
    w->m = w->A - 2;
    w->TH = (w->OH + w->m - 1) / w->m;
    w->TW = (w->OW + w->m - 1) / w->m;
    w->P = w->N * w->TH * w->TW;
    return 0;
}

/* The pads attribute (pass winograd's) into Node.at.conv, when present. */
static void read_pads(Graph *g, int node)
{
    Node *n = &g->nodes[node];
    int k = 0;
    const int64_t *pd = attr_ints(n, "pads", &k);
    if (!pd || k != 4)
        return;
    n->at.conv.win.n = 2;
    for (int i = 0; i < 4; i++)
        n->at.conv.win.pads[i] = pd[i];
}

int op_winograd_infer(Graph *g, int node, Diag *d)
{
    Wino w;
    if (opu_check_arity(g, node, d, 2, 3, 1, 4))
        return -1;
    read_pads(g, node);
    if (wino_dims(g, node, &w))
        return diag_error(d, g, node, "malformed WinogradConv (internal error)");
    int64_t y[5] = {w.N, w.OCb, w.OH, w.OW, w.L}, v[3] = {w.T, w.P, w.IC}, m[3] = {w.T, w.P, w.OC};
    int64_t z[3] = {w.OCb, w.P * 16, w.L};
    opu_set_out(g, node, 0, DT_FLOAT32, shape_make(5, y));
    if (g->nodes[node].n_out > 1)
        opu_set_out(g, node, 1, DT_FLOAT32, shape_make(3, v));
    if (g->nodes[node].n_out > 2)
        opu_set_out(g, node, 2, DT_FLOAT32, shape_make(3, m));
    if (g->nodes[node].n_out > 3)
        opu_set_out(g, node, 3, DT_FLOAT32, shape_make(3, z));
    return 0;
}

DEFINE_EVAL_BY_COMPUTE(winograd)

/* -e when neg, else e (neg is a constant once the transform index is) */
static Expr *sgn(LoopBuilder *lb, Expr *neg, Expr *e)
{
    return lx_select(lb, neg, lx_call(lb, CO_NEG, e), e);
}

/* table[idx][col] (a rows x cols table) for an index expression idx in
 * [0, rows): a select chain, a constant once idx is */
static Expr *coef(LoopBuilder *lb, const double *table, int rows, int cols, Expr *idx, int col)
{
    Expr *e = lx_float(lb, table[(rows - 1) * cols + col]);
    for (int r = rows - 2; r >= 0; r--)
        e = lx_select(lb, lx_bin(lb, BO_EQ, idx, lx_int(lb, r)), lx_float(lb, table[r * cols + col]), e);
    return e;
}

/* sum + c*x, where a constant c of 0 (or 1) folds the term away (or to x) */
static Expr *add_term(LoopBuilder *lb, Expr *sum, Expr *c, Expr *x)
{
    Expr *term = lx_select(lb, lx_bin(lb, BO_EQ, c, lx_float(lb, 0.0)), lx_float(lb, 0.0), lx_mul(lb, x, c));
    return sum ? lx_add(lb, sum, term) : term;
}

/* X at input row ih (inside when hin) and column iw of the tile's patch,
 * 0 outside the input: columns reach at most maxw */
static Expr *patch_load(ComputeCtx *cx, const Node *n, const Wino *w, Expr *nn, Expr *icb, Expr *l, Expr *ih,
                        Expr *hin, Expr *iw, int64_t maxw)
{
    LoopBuilder *lb = cx->lb;
    Shape xs = cx->g->values[n->in[0]].shape;
    Expr *cond = compute_bound(cx, hin, iw, w->pl, maxw, w->W);
    Expr *xi5[5] = {nn, icb, ih, iw, l};
    return lx_select(lb, cond, lx_load(lb, cx->buf_of(cx, n->in[0]), compute_flat_index(cx, &xs, xi5)),
                     lx_float(lb, 0.0));
}

/* m = 2, stage 1's body: the two nonzeros of each row of B^T (top comment) */
static Expr *input_transform2(ComputeCtx *cx, const Node *n, const Wino *w, Expr *nn, Expr *th, Expr *tw,
                              Expr *icb, Expr *t, Expr *l)
{
    LoopBuilder *lb = cx->lb;
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
    int64_t maxh = 2 * (w->TH - 1) + 3 - w->pt, maxw = 2 * (w->TW - 1) + 3 - w->pl;
    Expr *sum = NULL;
    for (int a = 0; a < 2; a++) {
        Expr *ih = lx_add(lb, lx_add(lb, lx_muli(lb, th, 2), row[a]), lx_int(lb, -w->pt));
        Expr *hin = compute_bound(cx, lx_int(lb, 1), ih, w->pt, maxh, w->H);
        Expr *part = NULL;
        for (int b = 0; b < 2; b++) {
            Expr *iw = lx_add(lb, lx_add(lb, lx_muli(lb, tw, 2), col[b]), lx_int(lb, -w->pl));
            Expr *ld = sgn(lb, cneg[b], patch_load(cx, n, w, nn, icb, l, ih, hin, iw, maxw));
            part = part ? lx_add(lb, part, ld) : ld;
        }
        part = sgn(lb, rneg[a], part);
        sum = sum ? lx_add(lb, sum, part) : part;
    }
    return sum;
}

/* m = 4, stage 1's body: V[t] = sum_ij BT4[xi][i] BT4[nu][j] d[i][j] */
static Expr *input_transform4(ComputeCtx *cx, const Node *n, const Wino *w, Expr *nn, Expr *th, Expr *tw,
                              Expr *icb, Expr *t, Expr *l)
{
    LoopBuilder *lb = cx->lb;
    Expr *xi = lx_div(lb, t, lx_int(lb, 6)), *nu = lx_bin(lb, BO_MOD, t, lx_int(lb, 6));
    int64_t maxh = 4 * (w->TH - 1) + 5 - w->pt, maxw = 4 * (w->TW - 1) + 5 - w->pl;
    Expr *sum = NULL;
    for (int i = 0; i < 6; i++) {
        Expr *ih = lx_add(lb, lx_add(lb, lx_muli(lb, th, 4), lx_int(lb, i)), lx_int(lb, -w->pt));
        Expr *hin = compute_bound(cx, lx_int(lb, 1), ih, w->pt, maxh, w->H);
        Expr *cr = coef(lb, &BT4[0][0], 6, 6, xi, i);
        for (int j = 0; j < 6; j++) {
            Expr *iw = lx_add(lb, lx_add(lb, lx_muli(lb, tw, 4), lx_int(lb, j)), lx_int(lb, -w->pl));
            sum = add_term(lb, sum, lx_mul(lb, cr, coef(lb, &BT4[0][0], 6, 6, nu, j)),
                           patch_load(cx, n, w, nn, icb, l, ih, hin, iw, maxw));
        }
    }
    return sum;
}

/* m = 4, the output transform: whole tiles Z[ocb][p][ab][l] =
 * sum_rq AT4[a][r] AT4[b][q] M[6r + q][p][ocb*L + l], ab = 4a + b unrolled */
static int output_tiles4(ComputeCtx *cx, ComputeDef *def, const Node *n, const Wino *w)
{
    LoopBuilder *lb = cx->lb;
    LBuf *M = cx->buf_of(cx, n->out[2]);
    int64_t dz[4] = {w->OCb, w->P, 16, w->L};
    Shape sz = shape_make(4, dz);
    ComputeStage *st = compute_stage_new(cx, def, n->name, cx->buf_of(cx, n->out[3]), &sz);
    if (!st)
        return -1;
    Expr *ocb = lx_var(lb, st->axis[0]), *p = lx_var(lb, st->axis[1]), *ab = lx_var(lb, st->axis[2]);
    Expr *l = lx_var(lb, st->axis[3]);
    Expr *a = lx_div(lb, ab, lx_int(lb, 4)), *b = lx_bin(lb, BO_MOD, ab, lx_int(lb, 4));
    Expr *base = lx_add(lb, lx_muli(lb, p, w->OC), lx_add(lb, lx_muli(lb, ocb, w->L), l));
    Expr *sum = NULL;
    for (int r = 0; r < 6; r++) {
        Expr *cr = coef(lb, &AT4[0][0], 4, 6, a, r);
        for (int q = 0; q < 6; q++) {
            Expr *ld = lx_load(lb, M, lx_add(lb, lx_int(lb, (int64_t)(6 * r + q) * w->P * w->OC), base));
            sum = add_term(lb, sum, lx_mul(lb, cr, coef(lb, &AT4[0][0], 4, 6, b, q)), ld);
        }
    }
    st->body = sum;
    st->finalize = lx_var(lb, st->acc);
    st->unroll_inner = 1; /* ab: the coefficients become constants */
    return 0;
}

/* m = 2, Y at one pixel: 9 values of M (top comment) */
static Expr *output_pixel2(LoopBuilder *lb, LBuf *M, const Wino *w, Expr *yn, Expr *ocb, Expr *oh, Expr *ow, Expr *ol)
{
    Expr *two = lx_int(lb, 2);
    Expr *ra = lx_bin(lb, BO_MOD, oh, two), *cb = lx_bin(lb, BO_MOD, ow, two);
    Expr *tp = lx_add(lb, lx_muli(lb, lx_add(lb, lx_muli(lb, yn, w->TH), lx_div(lb, oh, two)), w->TW),
                      lx_div(lb, ow, two));
    Expr *base = lx_add(lb, lx_muli(lb, tp, w->OC), lx_add(lb, lx_muli(lb, ocb, w->L), ol));
    Expr *sa = lx_select(lb, lx_bin(lb, BO_EQ, ra, lx_int(lb, 1)), lx_float(lb, -1.0), lx_float(lb, 1.0));
    Expr *sb = lx_select(lb, lx_bin(lb, BO_EQ, cb, lx_int(lb, 1)), lx_float(lb, -1.0), lx_float(lb, 1.0));
    Expr *r3[3];
    for (int r = 0; r < 3; r++) {
        Expr *m3[3];
        for (int q = 0; q < 3; q++) {
            Expr *ti = lx_add(lb, lx_muli(lb, lx_add(lb, ra, lx_int(lb, r)), 4), lx_add(lb, cb, lx_int(lb, q)));
            m3[q] = lx_load(lb, M, lx_add(lb, lx_muli(lb, ti, w->P * w->OC), base));
        }
        r3[r] = lx_add(lb, m3[0], lx_mul(lb, sb, lx_add(lb, m3[1], m3[2])));
    }
    return lx_add(lb, r3[0], lx_mul(lb, sa, lx_add(lb, r3[1], r3[2])));
}

int compute_winograd(ComputeCtx *cx, int node, ComputeDef *def)
{
    LoopBuilder *lb = cx->lb;
    const Graph *g = cx->g;
    const Node *n = &g->nodes[node];
    Wino w;
    if (wino_dims(g, node, &w) || n->n_out < (w.m == 4 ? 4 : 3))
        return compute_fail(cx, node, "malformed WinogradConv (internal error)");
    LBuf *U = cx->buf_of(cx, n->in[1]);
    LBuf *V = cx->buf_of(cx, n->out[1]), *M = cx->buf_of(cx, n->out[2]);

    /* 1. input transform over [n, th, tw, icb, t, l]; V is [t][p][ic] */
    int64_t d1[6] = {w.N, w.TH, w.TW, w.ICb, w.T, w.L};
    Shape s1 = shape_make(6, d1);
    ComputeStage *st = compute_stage_new(cx, def, n->name, V, &s1);
    if (!st)
        return compute_fail(cx, node, "too many stages");
    Expr *nn = lx_var(lb, st->axis[0]), *th = lx_var(lb, st->axis[1]), *tw = lx_var(lb, st->axis[2]);
    Expr *icb = lx_var(lb, st->axis[3]), *t = lx_var(lb, st->axis[4]), *l = lx_var(lb, st->axis[5]);
    Expr *p = lx_add(lb, lx_muli(lb, lx_add(lb, lx_muli(lb, nn, w.TH), th), w.TW), tw);
    st->out_index = lx_add(lb, lx_muli(lb, lx_add(lb, lx_muli(lb, t, w.P), p), w.IC),
                           lx_add(lb, lx_muli(lb, icb, w.L), l));
    if (w.m == 4)
        st->body = input_transform4(cx, n, &w, nn, th, tw, icb, t, l);
    else
        st->body = input_transform2(cx, n, &w, nn, th, tw, icb, t, l);
    st->finalize = lx_var(lb, st->acc);
    st->unroll_inner = 1; /* t: the row and column picks become constants */

    /* 2. M[t] = V[t] U[t]: T products [P, IC] x [IC, OC] */
    int64_t d2[3] = {w.T, w.P, w.OC};
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

    /* 3. output transform into Y (the node's output: epilogues compose here);
       for m = 4 through whole tiles in Z, copied into Y */
    if (w.m == 4 && output_tiles4(cx, def, n, &w) != 0)
        return compute_fail(cx, node, "too many stages");
    const Value *yv = &g->values[n->out[0]];
    st = compute_stage_new(cx, def, n->name, cx->buf_of(cx, n->out[0]), &yv->shape);
    if (!st)
        return compute_fail(cx, node, "too many stages");
    st->out_is_node_output = 1;
    Expr *yn = lx_var(lb, st->axis[0]), *ocb = lx_var(lb, st->axis[1]), *oh = lx_var(lb, st->axis[2]);
    Expr *ow = lx_var(lb, st->axis[3]), *ol = lx_var(lb, st->axis[4]);
    if (w.m == 4) {
        Expr *four = lx_int(lb, 4);
        Expr *tp = lx_add(lb, lx_muli(lb, lx_add(lb, lx_muli(lb, yn, w.TH), lx_div(lb, oh, four)), w.TW),
                          lx_div(lb, ow, four));
        Expr *ab = lx_add(lb, lx_muli(lb, lx_bin(lb, BO_MOD, oh, four), 4), lx_bin(lb, BO_MOD, ow, four));
        Expr *zi = lx_add(lb, lx_muli(lb, lx_add(lb, lx_muli(lb, lx_add(lb, lx_muli(lb, ocb, w.P), tp), 16), ab), w.L), ol);
        st->body = lx_load(lb, cx->buf_of(cx, n->out[3]), zi);
    } else {
        st->body = output_pixel2(lb, M, &w, yn, ocb, oh, ow, ol);
    }
    st->finalize = lx_var(lb, st->acc);
    if (n->n_in > 2 && n->in[2] >= 0)
        st->finalize = lx_add(lb, st->finalize,
                              lx_load(lb, cx->buf_of(cx, n->in[2]), lx_add(lb, lx_muli(lb, ocb, w.L), ol)));
    return 0;
}
