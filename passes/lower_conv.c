/* lower_conv.c - pass "lower_conv": float32 convolutions that are not 2-D
 * become 2-D convolutions or GEMMs, so that they run on the blocked conv
 * kernel (pass layout, schedule/schedule_conv.c) and the register-tiled
 * GEMM schedule (schedule/schedule_gemm.c) instead of the general N-D loop
 * nest.
 *
 *   Conv 1-D       X [N,C,W]: a 2-D Conv over X viewed as [N,C,1,W] with W
 *                  viewed as [M,C/g,1,K]; the result is viewed back.
 *   Conv 3-D       X [N,C,D,H,W], weights [M,C/g,KD,KH,KW]: the depth taps
 *                  become channels. X (padded in depth) is gathered to
 *                  [N,C,OD,KD,H,W] (entry (od,kd) = depth od*sd + kd*dd),
 *                  transposed to [N,OD,C,KD,H,W] and viewed as
 *                  [N*OD, C*KD, H, W]; a 2-D Conv with weights viewed as
 *                  [M, C/g*KD, KH, KW] (channel c*KD+kd, so groups stay
 *                  contiguous) gives [N*OD, M, OH, OW], transposed back to
 *                  [N, M, OD, OH, OW]. Costs KD copies of the input.
 *   ConvTranspose  1-D to 3-D, X [N,C,S..], weights [C,M/g,K..]: the
 *                  columns of every input position are one (batched)
 *                  MatMul, cols[n, m*KK+k, l] = sum_c Wt[m*KK+k, c] X[n,c,l]
 *                  (Wt the transposed weights, made here), and Col2Im adds
 *                  them into the output (strides, dilations, begin pads as
 *                  the ConvTranspose's); the bias is an Add. Taken when
 *                  every axis' output_padding/output_shape leaves the
 *                  number of blocks equal to the input extent, i.e. the
 *                  end pad s*(S-1) + (K-1)*d + 1 - pb - OS is > -s (it is
 *                  then clamped at 0).
 *
 * Weights must be constant (they are packed or transposed at compile time);
 * anything else keeps its node. Runs after the first inference (attributes
 * are normalised: kernel_shape, strides, dilations, pads, group) and before
 * the second, which infers the new nodes and folds the weight reshapes. */
#include <stdlib.h>
#include <string.h>

#include "passes/pass_util.h"
#include "passes/passes.h"

static int is_f32_const(const Value *v) { return v->dtype == DT_FLOAT32 && v->data; }

/* The normalised window attributes of conv node `node` with ns spatial
 * axes, copied (the node moves as nodes are inserted); -1 if malformed. */
typedef struct Geo {
    int64_t k[3], s[3], dl[3], pd[6];
} Geo;

static int geo_read(const Node *n, int ns, Geo *o)
{
    const WindowAttrs *wa = &n->at.conv.win;
    const int64_t *k = wa->kernel, *s = wa->strides, *dl = wa->dilations, *pd = wa->pads;
    if (ns < 1 || ns > 3 || wa->n != ns)
        return -1;
    memcpy(o->k, k, (size_t)ns * sizeof *k);
    memcpy(o->s, s, (size_t)ns * sizeof *s);
    memcpy(o->dl, dl, (size_t)ns * sizeof *dl);
    memcpy(o->pd, pd, (size_t)(2 * ns) * sizeof *pd);
    return 0;
}

/* the conv node, now at L->pos, reads x and w and writes a new value with
   the given 2-D geometry; the nodes after it go in behind it */
static int retarget(PassBuild *L, int x, int w, const int64_t *k, const int64_t *s, const int64_t *dl, const int64_t *pd)
{
    Graph *g = L->g;
    int node = L->pos, y = pb_value(L, "2d");
    Node *n = &g->nodes[node];
    n->in[0] = x;
    n->in[1] = w;
    n->out[0] = y;
    node_set_ints(g, node, "kernel_shape", k, 2);
    node_set_ints(g, node, "strides", s, 2);
    node_set_ints(g, node, "dilations", dl, 2);
    node_set_ints(g, node, "pads", pd, 4);
    WindowAttrs *wa = &g->nodes[node].at.conv.win; /* in step until infer_fold2 re-infers it */
    *wa = (WindowAttrs){.n = 2};
    for (int i = 0; i < 2; i++)
        wa->kernel[i] = k[i], wa->strides[i] = s[i], wa->dilations[i] = dl[i];
    for (int i = 0; i < 4; i++)
        wa->pads[i] = pd[i];
    pass_modern_version(g, node);
    L->pos++;
    graph_count_uses(g);
    return y;
}

static void conv1d(PassBuild *L, int node)
{
    Graph *g = L->g;
    const Node *n = &g->nodes[node];
    const Value *x = &g->values[n->in[0]], *w = &g->values[n->in[1]], *y = &g->values[n->out[0]];
    int yv = n->out[0];
    Geo o;
    if (geo_read(n, 1, &o))
        return;
    const int64_t *k = o.k, *s = o.s, *dl = o.dl, *pd = o.pd;
    int64_t k2[2] = {1, k[0]}, s2[2] = {1, s[0]}, d2[2] = {1, dl[0]}, p2[4] = {0, pd[0], 0, pd[1]};
    int64_t xd[4] = {x->shape.dims[0], x->shape.dims[1], 1, x->shape.dims[2]};
    int64_t wd[4] = {w->shape.dims[0], w->shape.dims[1], 1, w->shape.dims[2]};
    int64_t yd[3] = {y->shape.dims[0], y->shape.dims[1], y->shape.dims[2]};
    int xin = n->in[0], win = n->in[1];
    int x4 = pb_reshape(L, xin, 4, xd, -1), w4 = pb_reshape(L, win, 4, wd, -1);
    int y4 = retarget(L, x4, w4, k2, s2, d2, p2);
    pb_reshape(L, y4, 3, yd, yv);
}

static void conv3d(PassBuild *L, int node)
{
    Graph *g = L->g;
    const Node *n = &g->nodes[node];
    int xin = n->in[0], win = n->in[1], yv = n->out[0];
    Geo o;
    if (geo_read(n, 3, &o))
        return;
    const int64_t *k = o.k, *s = o.s, *dl = o.dl, *pd = o.pd;
    int64_t N, C, D, H, W, M, CG, OD, OH, OW;
    {
        const int64_t *xd = g->values[xin].shape.dims, *wd = g->values[win].shape.dims, *yd = g->values[yv].shape.dims;
        N = xd[0], C = xd[1], D = xd[2], H = xd[3], W = xd[4];
        M = wd[0], CG = wd[1];
        OD = yd[2], OH = yd[3], OW = yd[4];
    }
    int64_t KD = k[0], sd = s[0], dd = dl[0], pdb = pd[0], pde = pd[3];
    int64_t NOD, CKD, CGKD;
    if (!i64_mul(N, OD, &NOD) || !i64_mul(C, KD, &CKD) || !i64_mul(CG, KD, &CGKD))
        return;
    /* depth padding as a Pad; the height/width pads stay on the 2-D conv */
    int xp = xin;
    if (pdb || pde) {
        int64_t pads[10] = {0, 0, pdb, 0, 0, 0, 0, pde, 0, 0};
        int ins[2] = {xin, pb_ints(L, "dpads", 10, pads)};
        xp = pb_value(L, "dpad");
        pb_node(L, "Pad", 2, ins, xp);
    }
    int x2;
    if (KD == 1 && sd == 1 && OD == D + pdb + pde) { /* every depth once, in order */
        int64_t perm[5] = {0, 2, 1, 3, 4}, dims[4] = {NOD, C, H, W};
        x2 = pb_reshape(L, pb_transpose(L, xp, 5, perm, -1), 4, dims, -1);
    } else {
        int64_t cnt;
        if (!i64_mul(OD, KD, &cnt))
            return;
        int64_t *idx = malloc((size_t)cnt * sizeof *idx), id2[2] = {OD, KD};
        if (!idx)
            return;
        for (int64_t o = 0; o < OD; o++)
            for (int64_t t = 0; t < KD; t++)
                idx[o * KD + t] = o * sd + t * dd;
        int ic = graph_add_const(g, pass_unique_name(g, arena_printf(g->arena, "%s_taps", L->base)), DT_INT64,
                                 shape_make(2, id2), idx);
        free(idx);
        int ins[2] = {xp, ic}, gath = pb_value(L, "taps");
        int gid = pb_node(L, "Gather", 2, ins, gath);
        node_set_int(g, gid, "axis", 2);
        int64_t perm[6] = {0, 2, 1, 3, 4, 5}, dims[4] = {NOD, CKD, H, W};
        x2 = pb_reshape(L, pb_transpose(L, gath, 6, perm, -1), 4, dims, -1);
    }
    int64_t wd[4] = {M, CGKD, k[1], k[2]};
    int w2 = pb_reshape(L, win, 4, wd, -1);
    int64_t k2[2] = {k[1], k[2]}, s2[2] = {s[1], s[2]}, d2[2] = {dl[1], dl[2]}, p2[4] = {pd[1], pd[2], pd[4], pd[5]};
    int y2 = retarget(L, x2, w2, k2, s2, d2, p2);
    int64_t yd[5] = {N, OD, M, OH, OW}, perm[5] = {0, 2, 1, 3, 4};
    pb_transpose(L, pb_reshape(L, y2, 5, yd, -1), 5, perm, yv);
}

static void convtranspose(PassBuild *L, int node)
{
    Graph *g = L->g;
    const Node *n = &g->nodes[node];
    const Value *x = &g->values[n->in[0]], *w = &g->values[n->in[1]], *y = &g->values[n->out[0]];
    int ns = x->shape.rank - 2;
    Geo o;
    if (geo_read(n, ns, &o))
        return;
    const int64_t *k = o.k, *s = o.s, *dl = o.dl, *pd = o.pd;
    int64_t G = n->at.conv.group, N = x->shape.dims[0], C = x->shape.dims[1];
    int64_t MG = w->shape.dims[1], M = y->shape.dims[1], KK = 1, L_ = 1, rows, wn;
    if (G < 1 || C % G || M != MG * G)
        return;
    int64_t CG = C / G, pads[6];
    for (int i = 0; i < ns; i++) {
        int64_t S = x->shape.dims[2 + i], OS = y->shape.dims[2 + i], ek = (k[i] - 1) * dl[i] + 1;
        int64_t pe = s[i] * (S - 1) + ek - pd[i] - OS;
        if (pd[i] < 0 || pe <= -s[i])
            return;
        pads[i] = pd[i];
        pads[ns + i] = pe > 0 ? pe : 0;
        KK *= k[i];
        L_ *= S;
    }
    if (!i64_mul(MG, KK, &rows) || !i64_mul(rows, C, &wn))
        return;
    /* Wt[gi, mg*KK + kk, c] = W[gi*CG + c, mg, kk] */
    float *wt = malloc((size_t)(wn ? wn : 1) * sizeof *wt);
    if (!wt)
        return;
    const float *wsrc = w->data;
    for (int64_t gi = 0; gi < G; gi++)
        for (int64_t c = 0; c < CG; c++)
            for (int64_t r = 0; r < rows; r++)
                wt[(gi * rows + r) * CG + c] = wsrc[(gi * CG + c) * rows + r];
    int64_t wtd[3] = {G, rows, CG}; /* [rows, C] without groups */
    int wtv = graph_add_const(g, pass_unique_name(g, arena_printf(g->arena, "%s_wt", L->base)), DT_FLOAT32,
                              G == 1 ? shape_make(2, wtd + 1) : shape_make(3, wtd), wt);
    free(wt);
    n = &g->nodes[node];
    int xin = n->in[0], bin = n->n_in > 2 ? n->in[2] : -1, yv = n->out[0];
    int64_t img[3], blk[3], MKK;
    for (int i = 0; i < ns; i++) {
        img[i] = g->values[yv].shape.dims[2 + i];
        blk[i] = k[i];
    }
    int64_t sv[3], dv[3];
    memcpy(sv, s, (size_t)ns * sizeof *sv);
    memcpy(dv, dl, (size_t)ns * sizeof *dv);
    if (!i64_mul(M, KK, &MKK))
        return;
    /* columns [N, M*KK, L] */
    int x3, cols = pb_value(L, "cols");
    if (G == 1) {
        int64_t xd[3] = {N, C, L_};
        x3 = pb_reshape(L, xin, 3, xd, -1);
        int ins[2] = {wtv, x3};
        pb_node(L, "MatMul", 2, ins, cols);
    } else {
        int64_t xd[4] = {N, G, CG, L_}, cd[3] = {N, MKK, L_};
        x3 = pb_reshape(L, xin, 4, xd, -1);
        int ins[2] = {wtv, x3}, c4v = pb_value(L, "gcols");
        pb_node(L, "MatMul", 2, ins, c4v);
        pb_reshape(L, c4v, 3, cd, cols);
    }
    int cins[3] = {cols, pb_ints(L, "image", ns, img), pb_ints(L, "block", ns, blk)};
    int img_v = bin >= 0 ? pb_value(L, "image") : yv;
    int cid = pb_node(L, "Col2Im", 3, cins, img_v);
    node_set_ints(g, cid, "strides", sv, ns);
    node_set_ints(g, cid, "dilations", dv, ns);
    node_set_ints(g, cid, "pads", pads, 2 * ns);
    g->nodes[L->pos].dead = 1; /* the ConvTranspose, replaced */
    L->pos++;
    graph_count_uses(g);
    if (bin >= 0) {
        int64_t bd[CTVM_MAX_RANK] = {M};
        for (int i = 0; i < ns; i++)
            bd[1 + i] = 1;
        int ins[2] = {img_v, pb_reshape(L, bin, ns + 1, bd, -1)};
        pb_node(L, "Add", 2, ins, yv);
    }
}

int pass_lower_conv(Graph *g, Diag *d)
{
    (void)d;
    for (int i = 0; i < g->n_nodes; i++) {
        const Node *n = &g->nodes[i];
        if (n->dead || (n->op != OP_CONV && n->op != OP_CONVTRANSPOSE) || n->n_in < 2 || n->n_out < 1)
            continue;
        const Value *x = &g->values[n->in[0]], *w = &g->values[n->in[1]];
        if (x->dtype != DT_FLOAT32 || !is_f32_const(w) || g->values[n->out[0]].dtype != DT_FLOAT32)
            continue;
        int rank = x->shape.rank, before = g->n_nodes;
        PassBuild L = {g, i, n->name};
        if (n->op == OP_CONV && rank == 3)
            conv1d(&L, i);
        else if (n->op == OP_CONV && rank == 5)
            conv3d(&L, i);
        else if (n->op == OP_CONVTRANSPOSE && rank >= 3 && rank <= 5)
            convtranspose(&L, i);
        i += g->n_nodes - before; /* past the nodes put in front */
    }
    return 0;
}
