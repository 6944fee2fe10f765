/* layout.c - pass "layout": convolutions in channel blocks, and the blocked
 * layout carried from the first convolution to the head.
 *
 * With B = the target's vector width, a blocked tensor is [N, ceil(C/B), H,
 * W, B]: the B channels of a block are one vector. Every 2-D Conv becomes
 * ctvm.ConvNCHWc with weights packed at compile time ([OCb, ICb/G, KH, KW,
 * IB, OB], zero past the real channels) and its padding made explicit by a
 * ctvm.PadHW node (so the convolution's inner loops test no bounds; depthwise
 * convolutions keep their pads and test bounds instead). Its
 * output is a new, blocked twin of the original value. Elementwise ops,
 * pools and channel Concats whose inputs have blocked twins stay blocked;
 * per-channel constants are repacked. Anything else reads the plain value,
 * which a ctvm.Unpack recreates (once, under the original value id, so graph
 * outputs and names are unchanged). A convolution on a plain input reads it
 * as one-channel blocks (IB = 1, a zero-copy reshape), except depthwise,
 * whose lanes must be channels (ctvm.Pack).
 *
 * Lanes past the real channels hold finite values (zero weights give zero
 * sums; constants are padded with 0, or 1 for Div), and are dropped by
 * Unpack. Grouped convolutions with groups smaller than a block merge
 * neighbouring groups into one (zero weights between them) when they
 * divide it evenly (merge_groups); others whose groups do not fill whole
 * blocks stay plain Conv. Gemm with a constant transposed B gets B stored K-major;
 * float32 RNN/GRU/LSTM get constant W stored transposed and R in panels of
 * vector-width columns (rnn_wt, rnn_rp); the int8 LSTM's W packed 4 inputs
 * to a gate column and R in panels of 4 k-values to a lane. */
#include <stdlib.h>
#include <string.h>

#include "ir/target.h"
#include "passes.h"
#include "passes/pass_util.h"

typedef struct Lay {
    Graph *g;
    int B;
    int *twin;     /* value -> blocked twin value id, or -1 */
    int *plain_ok; /* value -> its plain bytes are (or will be) computed */
    int cap;
    int pos;       /* index of the node being rewritten; insertions go before it */
} Lay;

static void grow(Lay *L)
{
    Graph *g = L->g;
    if (g->n_values <= L->cap)
        return;
    int cap = g->n_values * 2;
    L->twin = realloc(L->twin, (size_t)cap * sizeof(int));
    L->plain_ok = realloc(L->plain_ok, (size_t)cap * sizeof(int));
    for (int i = L->cap; i < cap; i++) {
        L->twin[i] = -1;
        L->plain_ok[i] = 1;
    }
    L->cap = cap;
}

static int new_value(Lay *L, const char *base, int rank, const int64_t *dims)
{
    Graph *g = L->g;
    int v = graph_add_value(g, pass_unique_name(g, base));
    g->values[v].dtype = DT_FLOAT32;
    g->values[v].shape = shape_make(rank, dims);
    grow(L);
    return v;
}

static int insert(Lay *L, const char *op, const char *name, int n_in, const int *ins, int out)
{
    int id = pass_insert_node(L->g, L->pos, op, pass_unique_name(L->g, name), n_in, ins, 1, &out);
    L->pos++;
    return id;
}

/* Reshape node (a zero-copy view after pass views) of x to `rank` dims. */
static void reshape(Lay *L, int x, int out, const char *name)
{
    Graph *g = L->g;
    const Shape *s = &g->values[out].shape;
    int64_t dims[CTVM_MAX_RANK];
    for (int i = 0; i < s->rank; i++)
        dims[i] = s->dims[i];
    int64_t r = s->rank;
    int shp = graph_add_const(g, pass_unique_name(g, "layout_shape"), DT_INT64, shape_make(1, &r), dims);
    grow(L);
    int ins[2] = {x, shp};
    insert(L, "Reshape", name, 2, ins, out);
}

static int64_t cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

/* The blocked twin of plain 4-D value v (made with ctvm.Pack). */
static int get_blocked(Lay *L, int v)
{
    if (L->twin[v] >= 0)
        return L->twin[v];
    Graph *g = L->g;
    const int64_t *d = g->values[v].shape.dims;
    int64_t dims[5] = {d[0], cdiv(d[1], L->B), d[2], d[3], L->B};
    int t = new_value(L, arena_printf(g->arena, "%s_blk", g->values[v].name), 5, dims);
    if (L->B == 1) {
        reshape(L, v, t, "layout_view");
    } else {
        int id = insert(L, "ctvm.Pack", "pack", 1, &v, t);
        g->nodes[id].at.layout.block = L->B;
    }
    L->twin[v] = t;
    return t;
}

/* Make sure the plain bytes of v exist (ctvm.Unpack of its twin). */
static void need_plain(Lay *L, int v)
{
    if (v < 0 || L->plain_ok[v])
        return;
    Graph *g = L->g;
    if (L->B == 1) {
        reshape(L, L->twin[v], v, "layout_view");
    } else {
        int id = insert(L, "ctvm.Unpack", "unpack", 1, &L->twin[v], v);
        g->nodes[id].at.layout.channels = g->values[v].shape.dims[1];
    }
    L->plain_ok[v] = 1;
}

static int is_plain4(const Graph *g, int v)
{
    return v >= 0 && g->values[v].shape.rank == 4 && g->values[v].dtype == DT_FLOAT32;
}

/* A constant operand c of a blocked elementwise op over logical shape s, as
 * a 5-D constant broadcasting the same way; -1 when it cannot be. */
static int pack_const(Lay *L, int c, const Shape *s, float pad)
{
    Graph *g = L->g;
    const Value *cv = &g->values[c];
    if (cv->dtype != DT_FLOAT32 || cv->shape.rank > 4 || !cv->data)
        return -1;
    int64_t kd[4] = {1, 1, 1, 1};
    for (int i = 0; i < cv->shape.rank; i++)
        kd[4 - cv->shape.rank + i] = cv->shape.dims[i];
    for (int i = 0; i < 4; i++)
        if (kd[i] != 1 && kd[i] != s->dims[i])
            return -1;
    int perc = kd[1] != 1;
    int64_t B = perc ? L->B : 1, Cb = perc ? cdiv(kd[1], L->B) : 1;
    int64_t dims[5] = {kd[0], Cb, kd[2], kd[3], B}, n = kd[0] * Cb * kd[2] * kd[3] * B;
    float *p = malloc((size_t)n * sizeof(float));
    if (!p)
        return -1;
    const float *src = cv->data;
    for (int64_t i0 = 0; i0 < kd[0]; i0++)
        for (int64_t cb = 0; cb < Cb; cb++)
            for (int64_t h = 0; h < kd[2]; h++)
                for (int64_t w = 0; w < kd[3]; w++)
                    for (int64_t l = 0; l < B; l++) {
                        int64_t ch = cb * B + l;
                        p[(((i0 * Cb + cb) * kd[2] + h) * kd[3] + w) * B + l] =
                            ch < kd[1] ? src[((i0 * kd[1] + ch) * kd[2] + h) * kd[3] + w] : pad;
                    }
    int id = graph_add_const(g, pass_unique_name(g, arena_printf(g->arena, "%s_blk", cv->name)), DT_FLOAT32,
                             shape_make(5, dims), p);
    free(p);
    grow(L);
    return id;
}

/* Output of node n rewritten in place to a new blocked twin with `dims`. */
static void blocked_out(Lay *L, int node, const int64_t *dims)
{
    Graph *g = L->g;
    int y = g->nodes[node].out[0];
    int t = new_value(L, arena_printf(g->arena, "%s_blk", g->values[y].name), 5, dims);
    g->values[t].dtype = g->values[y].dtype; /* uint8 after a QuantizeLinear kept blocked */
    g->nodes[node].out[0] = t;
    g->values[t].producer = node;
    L->twin[y] = t;
    L->plain_ok[y] = 0;
}

/* ---- convolution ---- */


/* Grouped convolutions with fewer than B input channels per group (ResNeXt's
 * 32 groups of 4): M = B / (C/G) neighbouring groups become one group of B
 * input channels whose weights are zero between the merged groups, so the
 * groups fill whole blocks and run on the blocked kernel (ResNeXt-50's
 * first-stage 3x3 convolutions: 13 ms -> 0.8 ms each, twice the
 * multiply-adds at thirty times the rate). Returns the merged weights
 * [OC, B, KH, KW] (caller frees) and sets *G to ceil(G / M); NULL when they
 * cannot merge. When M does not divide G (RegNetY-400MF's 13 and 55 groups
 * of 8 on 16-lane blocks), the last merged group holds the remaining groups
 * and zero weights for the channel-padding lanes of the last input block;
 * that needs a blocked input (`blocked_in`) and one output block per merged
 * group, so that input and output blocks still split evenly by group
 * (regnet_y_400mf on AVX-512: the general loop nest's 2.4 GFLOP/s per
 * grouped conv becomes the blocked kernel's). A non-finite input element
 * (or padding lane) then also reaches the merged neighbours' sums
 * (0 * inf = NaN): only when the input holds inf/NaN. */
static float *merge_groups(const float *W, int64_t C, int64_t OC, int64_t KH, int64_t KW, int64_t B, int64_t *G,
                           int blocked_in)
{
    int64_t icg = C / *G, ocg = OC / *G, M = icg > 0 && icg < B && B % icg == 0 ? B / icg : 0;
    if (!M || (ocg * M) % B || ocg <= 0)
        return NULL;
    if (*G % M && (!blocked_in || ocg * M != B))
        return NULL;
    float *m = calloc((size_t)(OC * B * KH * KW), sizeof(float));
    if (!m)
        return NULL;
    for (int64_t oc = 0; oc < OC; oc++) {
        int64_t slot = (oc / ocg) % M; /* the old group's place in the merged one */
        for (int64_t ic = 0; ic < icg; ic++)
            for (int64_t k = 0; k < KH * KW; k++)
                m[(oc * B + slot * icg + ic) * KH * KW + k] = W[(oc * icg + ic) * KH * KW + k];
    }
    *G = cdiv(*G, M);
    return m;
}

static int conv_blocked(Lay *L, int node)
{
    Graph *g = L->g;
    Node *n = &g->nodes[node];
    int x = n->in[0], w = n->in[1], b = n->n_in > 2 ? n->in[2] : -1;
    const Value *xv = &g->values[x], *wv = &g->values[w];
    if (!is_plain4(g, x) || !wv->data || wv->dtype != DT_FLOAT32 || (b >= 0 && !g->values[b].data))
        return 0;
    if (n->at.conv.win.n != 2)
        return 0;
    /* copies: inserting nodes below moves the node array */
    const int64_t ks[2] = {n->at.conv.win.kernel[0], n->at.conv.win.kernel[1]};
    const int64_t pd[4] = {n->at.conv.win.pads[0], n->at.conv.win.pads[1], n->at.conv.win.pads[2],
                           n->at.conv.win.pads[3]};
    int64_t B = L->B, G = n->at.conv.group;
    int64_t C = xv->shape.dims[1], OC = wv->shape.dims[0], KH = ks[0], KW = ks[1];
    int dwise = G > 1 && G == C && OC == C;
    float *merged = NULL;
    if (G > 1 && !dwise && ((C / G) % B || (OC / G) % B)) {
        merged = merge_groups(g->values[w].data, C, OC, KH, KW, B, &G, L->twin[x] >= 0);
        if (!merged)
            return 0; /* groups that do not fill whole blocks: plain Conv */
    }
    /* input: blocked twin, or the plain tensor seen as one-channel blocks */
    int IB, xin;
    if (dwise || L->twin[x] >= 0) {
        xin = get_blocked(L, x);
        IB = (int)B;
    } else {
        int64_t dims[5] = {xv->shape.dims[0], C, xv->shape.dims[2], xv->shape.dims[3], 1};
        xin = new_value(L, arena_printf(g->arena, "%s_c1", g->values[x].name), 5, dims);
        reshape(L, x, xin, "layout_view");
        IB = 1;
    }
    /* padding: explicit (PadHW) so the register-blocked inner loops test no
     * bounds; depthwise (memory-bound, one load per multiply-add) tests them
     * in the kernel instead of paying a copy of its input */
    int64_t pads[4] = {pd[0], pd[1], pd[2], pd[3]};
    if (!dwise && (pd[0] || pd[1] || pd[2] || pd[3])) {
        Shape s = g->values[xin].shape;
        s.dims[2] += pd[0] + pd[2];
        s.dims[3] += pd[1] + pd[3];
        int padded = new_value(L, arena_printf(g->arena, "%s_pad", g->values[x].name), 5, s.dims);
        int id = insert(L, "ctvm.PadHW", "pad", 1, &xin, padded);
        for (int i = 0; i < 4; i++)
            g->nodes[id].at.layout.pads[i] = pd[i];
        xin = padded;
        pads[0] = pads[1] = pads[2] = pads[3] = 0;
    }
    n = &g->nodes[L->pos];
    /* weights and bias, packed */
    int64_t OCb = cdiv(OC, B), icg = merged ? B : C / G; /* merged: B channels a group */
    const float *W = merged ? merged : g->values[w].data;
    int64_t nw, wdims[6];
    int wrank;
    if (dwise) {
        wrank = 4;
        wdims[0] = OCb, wdims[1] = KH, wdims[2] = KW, wdims[3] = B;
    } else {
        wrank = 6;
        wdims[0] = OCb, wdims[1] = cdiv(icg, IB), wdims[2] = KH, wdims[3] = KW, wdims[4] = IB, wdims[5] = B;
    }
    nw = 1;
    for (int i = 0; i < wrank; i++)
        nw *= wdims[i];
    float *P = calloc((size_t)nw, sizeof(float));
    if (!P) {
        free(merged);
        return -1;
    }
    for (int64_t oc = 0; oc < OC; oc++)
        for (int64_t ic = 0; ic < icg; ic++)
            for (int64_t kh = 0; kh < KH; kh++)
                for (int64_t kw = 0; kw < KW; kw++) {
                    float v = W[((oc * icg + ic) * KH + kh) * KW + kw];
                    int64_t ocb = oc / B, ol = oc % B;
                    if (dwise)
                        P[((ocb * KH + kh) * KW + kw) * B + ol] = v;
                    else
                        P[((((ocb * wdims[1] + ic / IB) * KH + kh) * KW + kw) * IB + ic % IB) * B + ol] = v;
                }
    int wp = graph_add_const(g, pass_unique_name(g, arena_printf(g->arena, "%s_packed", g->values[w].name)),
                             DT_FLOAT32, shape_make(wrank, wdims), P);
    free(P);
    free(merged);
    int bp = -1;
    if (b >= 0) {
        float *bb = calloc((size_t)(OCb * B), sizeof(float));
        if (!bb)
            return -1;
        memcpy(bb, g->values[b].data, (size_t)OC * sizeof(float));
        int64_t nb = OCb * B;
        bp = graph_add_const(g, pass_unique_name(g, arena_printf(g->arena, "%s_packed", g->values[b].name)),
                             DT_FLOAT32, shape_make(1, &nb), bb);
        free(bb);
    }
    grow(L);
    n = &g->nodes[L->pos];
    const int64_t *yd = g->values[n->out[0]].shape.dims;
    int64_t ydims[5] = {yd[0], OCb, yd[2], yd[3], B};
    n->op = OP_CONV_NCHWC;
    n->op_type = "ctvm.ConvNCHWc";
    pass_grow_inputs(g, L->pos, 3);
    n = &g->nodes[L->pos];
    n->in[0] = xin;
    n->in[1] = wp;
    n->in[2] = bp;
    n->n_in = bp >= 0 ? 3 : 2;
    n->at.conv.depthwise = dwise;
    node_set_ints(g, L->pos, "pads", pads, 4);
    node_set_int(g, L->pos, "group", dwise ? 1 : G);
    for (int i = 0; i < 4; i++)
        g->nodes[L->pos].at.conv.win.pads[i] = pads[i];
    g->nodes[L->pos].at.conv.group = dwise ? 1 : G;
    blocked_out(L, L->pos, ydims);
    return 1;
}

/* ---- integer convolution (ConvInteger -> ctvm.QConvNCHWc) ---- */

/* The constant int8 / uint8 weights w minus their zero point z (absent,
 * one value, or one per channel: element e's channel is (e / div) % nch)
 * as int8, when every difference fits (int8 weights with zero point 0
 * always; uint8 ones, or asymmetric int8 ones, when their range allows):
 * then the kernels' weights have zero point 0 and no per-pixel input sum is
 * needed. NULL otherwise (caller frees). */
static int8_t *weights_minus_zp(const Graph *g, int w, int z, int64_t nch, int64_t div)
{
    const Value *wv = &g->values[w], *zv = z >= 0 ? &g->values[z] : NULL;
    int64_t ne = 0, nz = 1;
    if (!wv->data || (wv->dtype != DT_INT8 && wv->dtype != DT_UINT8) || !shape_numel(&wv->shape, &ne) || ne < 1 ||
        (zv && (!zv->data || zv->dtype != wv->dtype || !shape_numel(&zv->shape, &nz) || (nz != 1 && nz != nch))))
        return NULL;
    int8_t *r = malloc((size_t)ne);
    for (int64_t e = 0; r && e < ne; e++) {
        int64_t k = nz == 1 ? 0 : (e / div) % nch;
        int v = wv->dtype == DT_INT8 ? ((const int8_t *)wv->data)[e] : ((const uint8_t *)wv->data)[e];
        int zz = !zv ? 0 : zv->dtype == DT_INT8 ? ((const int8_t *)zv->data)[k] : ((const uint8_t *)zv->data)[k];
        if (v - zz < -128 || v - zz > 127) {
            free(r);
            return NULL;
        }
        r[e] = (int8_t)(v - zz);
    }
    return r;
}

/* The uint8 input of an integer convolution in blocks of IB lanes: its
 * blocked twin (ctvm.DynamicQuantizeLinear kept blocked: follow_dynquant),
 * or a ctvm.Pack of the plain tensor. */
static int qconv_input(Lay *L, int x, int64_t *IB, int dwise)
{
    Graph *g = L->g;
    int64_t tb = L->twin[x] >= 0 && g->values[L->twin[x]].dtype == DT_UINT8 ? g->values[L->twin[x]].shape.dims[4] : 0;
    if (tb && (dwise || tb % 4 == 0)) {
        *IB = tb;
        return dwise && *IB != L->B ? -1 : L->twin[x];
    }
    /* a twin in blocks of fewer than 4 lanes (targets narrower than 4
       floats) cannot feed the 4-byte dot: pack the plain tensor instead */
    need_plain(L, x);
    if (dwise && L->B == 1) { /* one channel a lane: the plain tensor, viewed */
        int t = get_blocked(L, x);
        g->values[t].dtype = DT_UINT8;
        *IB = 1;
        return t;
    }
    const int64_t *d = g->values[x].shape.dims;
    *IB = (d[1] <= 4 || L->B < 4) && !dwise ? 4 : L->B; /* 3-channel images: one group of 4 */
    int64_t dims[5] = {d[0], cdiv(d[1], *IB), d[2], d[3], *IB};
    int t = new_value(L, arena_printf(g->arena, "%s_blk", g->values[x].name), 5, dims);
    g->values[t].dtype = DT_UINT8;
    int id = insert(L, "ctvm.Pack", "pack", 1, &x, t);
    g->nodes[id].at.layout.block = *IB;
    return t;
}

/* With a constant, non-zero zero point z the weight sums S become z * S
 * (wrapping, as the int32 arithmetic of the kernel), so the epilogue
 * subtracts a loaded term instead of multiplying one per output vector
 * (a vpmulld per vector in the 1x1 convs of 4-6 reduction steps); returns
 * 1 when it scaled them (at.conv.ws_scaled). */
static int scale_sums(const Graph *g, int z, int32_t *S, int64_t n)
{
    const Value *zv = &g->values[z];
    int64_t cnt;
    if (!zv->data || zv->dtype != DT_UINT8 || !shape_numel(&zv->shape, &cnt) || cnt != 1 || !*(const uint8_t *)zv->data)
        return 0;
    uint32_t zz = *(const uint8_t *)zv->data;
    for (int64_t i = 0; i < n; i++)
        S[i] = (int32_t)((uint32_t)S[i] * zz);
    return 1;
}

/* ConvInteger with uint8 x, constant int8 weights whose zero point is 0, a
 * per-tensor x zero point and one group becomes ctvm.QConvNCHWc
 * (ops/qconvnchwc.c): input blocked and padded with its zero point (so a
 * padded tap adds (xz - xz) * w = 0 and the inner loops test no bounds;
 * depthwise keeps its pads and reads xz for a padded tap in the kernel),
 * weights packed 4 input channels to an output lane, their per-channel sums
 * for the zero point's term. A Cast to float32 that is the product's only
 * reader is folded in (the contract's epilogue chain starts with it): the
 * node then writes the Cast's value, blocked, and the float32 Mul / Add /
 * Relu after it stay blocked and fuse as usual. */
static int qconv_blocked(Lay *L, int node)
{
    Graph *g = L->g;
    Node *n = &g->nodes[node];
    int x = n->in[0], w = n->in[1], xz = n->n_in > 2 ? n->in[2] : -1, wz = n->n_in > 3 ? n->in[3] : -1;
    const Value *xv = &g->values[x], *wv = &g->values[w];
    const ConvAttrs *ca = &n->at.qlinear.conv;
    int dwise = ca->group > 1 && ca->group == xv->shape.dims[1] && wv->shape.rank == 4 &&
                wv->shape.dims[0] == ca->group && wv->shape.dims[1] == 1 && (L->B >= 4 || L->B == 1);
    if (xv->dtype != DT_UINT8 || xv->shape.rank != 4 || !wv->data || wv->shape.rank != 4 ||
        ca->win.n != 2 || n->at.qlinear.per_axis[2] ||
        (xz >= 0 && g->values[xz].dtype != DT_UINT8))
        return 0;
    /* groups: whole input and output blocks per group, after merging M
     * neighbouring groups of icg < B channels into one of B (zero weights
     * between them); G / M groups of B-lane blocks on the kernel. All the
     * groups fit in one block (C <= B): one group, the merged weights
     * dense (the block's multiply-adds are paid either way). */
    int64_t G = ca->group, icg = xv->shape.dims[1] / G, ocg = wv->shape.dims[0] / G, M = 1;
    if (G > 1 && !dwise) {
        if (icg < L->B && L->B % icg == 0)
            M = L->B / icg;
        if (L->B % 4 || (M < G && ((icg * M) % L->B || (ocg * M) % L->B || G % M)))
            return 0; /* groups that do not fill whole blocks: the generic loops */
        if (M >= G)
            M = G;
    }
    int64_t Gk = dwise ? 1 : G / M;
    int8_t *W = weights_minus_zp(g, w, wz, wv->shape.dims[0], wv->shape.dims[1] * wv->shape.dims[2] * wv->shape.dims[3]);
    if (!W)
        return 0; /* (x - xz) * (w - wz) with w - wz beyond int8: the generic loops */
    int64_t ks[2] = {ca->win.kernel[0], ca->win.kernel[1]}, st[2] = {ca->win.strides[0], ca->win.strides[1]};
    int64_t dl[2] = {ca->win.dilations[0], ca->win.dilations[1]};
    int64_t pd[4] = {ca->win.pads[0], ca->win.pads[1], ca->win.pads[2], ca->win.pads[3]};
    /* the output: the Cast's float32 value when a Cast is the only reader */
    int y = n->out[0], cast = pass_sole_consumer(g, y), out_float = 0;
    if (cast >= 0 && g->nodes[cast].op == OP_CAST && g->values[g->nodes[cast].out[0]].dtype == DT_FLOAT32 &&
        !g->values[y].is_output)
        out_float = 1;
    else
        cast = -1;
    int64_t B = L->B, IB, OC = wv->shape.dims[0];
    int xin = qconv_input(L, x, &IB, dwise || Gk > 1);
    if (xin < 0 || (Gk > 1 && IB != B)) {
        free(W);
        return 0;
    }
    if (xz < 0) {
        uint8_t zero = 0;
        xz = graph_add_const(g, pass_unique_name(g, "qconv_zero_point"), DT_UINT8, shape_make(0, NULL), &zero);
        grow(L);
    }
    /* padding: a PadHW copy (value xz) so the register-blocked inner loops
     * test no bounds; depthwise (one load per multiply-add) tests them in
     * the kernel instead (a padded tap reads xz), as the float32 path does:
     * mobilenet_v2_qdq_u8's 17 pad kernels took ~0.4 ms of ~3.5 */
    int64_t kpads[4] = {0, 0, 0, 0};
    if (dwise)
        memcpy(kpads, pd, sizeof kpads);
    if (!dwise && (pd[0] || pd[1] || pd[2] || pd[3])) {
        Shape s = g->values[xin].shape;
        s.dims[2] += pd[0] + pd[2];
        s.dims[3] += pd[1] + pd[3];
        int padded = new_value(L, arena_printf(g->arena, "%s_pad", g->values[x].name), 5, s.dims);
        g->values[padded].dtype = DT_UINT8;
        int ins[2] = {xin, xz};
        int id = insert(L, "ctvm.PadHW", "pad", 2, ins, padded);
        for (int i = 0; i < 4; i++)
            g->nodes[id].at.layout.pads[i] = pd[i];
        xin = padded;
    }
    /* weights [OCb, ICb, KH, KW, IB/4, B*4] and their per-channel sums;
       depthwise: [OCb, 1, KH, KW, 1, B], one weight per lane (channel) */
    int64_t OCb = cdiv(OC, B), ICb = g->values[xin].shape.dims[1], KH = ks[0], KW = ks[1];
    int64_t ICbg = ICb / Gk; /* input blocks of one (merged) group */
    int64_t wdims[6] = {OCb, ICbg, KH, KW, IB / 4, B * 4}, nw = OCb * ICbg * KH * KW * IB * B;
    if (dwise) {
        int64_t dd[6] = {OCb, 1, KH, KW, 1, B};
        memcpy(wdims, dd, sizeof wdims);
        nw = OCb * KH * KW * B;
    }
    int8_t *P = calloc((size_t)nw, 1);
    int32_t *S = calloc((size_t)(OCb * B), sizeof(int32_t));
    if (!P || !S) {
        free(P);
        free(S);
        free(W);
        return -1;
    }
    for (int64_t oc = 0; oc < OC && dwise; oc++)
        for (int64_t kh = 0; kh < KH; kh++)
            for (int64_t kw = 0; kw < KW; kw++) {
                int8_t v = W[(oc * KH + kh) * KW + kw];
                P[((oc / B * KH + kh) * KW + kw) * B + oc % B] = v;
                S[oc] += v;
            }
    for (int64_t oc = 0; oc < OC && !dwise; oc++)
        for (int64_t i = 0; i < icg; i++) { /* i: channel in the model's group; ic: in the merged one */
            int64_t ic = (oc / ocg) % M * icg + i;
            for (int64_t kh = 0; kh < KH; kh++)
                for (int64_t kw = 0; kw < KW; kw++) {
                    int8_t v = W[((oc * icg + i) * KH + kh) * KW + kw];
                    int64_t blk = (((oc / B * ICbg + ic / IB) * KH + kh) * KW + kw) * (IB / 4) + ic % IB / 4;
                    P[(blk * B + oc % B) * 4 + ic % 4] = v;
                    S[oc] += v;
                }
        }
    int ws_scaled = scale_sums(g, xz, S, OCb * B);
    int wp = graph_add_const(g, pass_unique_name(g, arena_printf(g->arena, "%s_packed", g->values[w].name)),
                             DT_INT8, shape_make(6, wdims), P);
    int64_t ns = OCb * B;
    int ws = graph_add_const(g, pass_unique_name(g, arena_printf(g->arena, "%s_sum", g->values[w].name)),
                             DT_INT32, shape_make(1, &ns), S);
    free(P);
    free(S);
    free(W);
    grow(L);
    n = &g->nodes[L->pos];
    const int64_t *yd = g->values[y].shape.dims;
    int64_t ydims[5] = {yd[0], OCb, yd[2], yd[3], B};
    n->op = OP_QCONV_NCHWC;
    n->op_type = "ctvm.QConvNCHWc";
    pass_grow_inputs(g, L->pos, 4);
    n = &g->nodes[L->pos];
    n->in[0] = xin;
    n->in[1] = wp;
    n->in[2] = xz;
    n->in[3] = ws;
    n->n_in = 4;
    node_set_ints(g, L->pos, "kernel_shape", ks, 2);
    node_set_ints(g, L->pos, "strides", st, 2);
    node_set_ints(g, L->pos, "dilations", dl, 2);
    node_set_ints(g, L->pos, "pads", kpads, 4);
    node_set_int(g, L->pos, "group", Gk);
    n = &g->nodes[L->pos];
    memset(&n->at, 0, sizeof n->at);
    n->at.conv.depthwise = dwise;
    n->at.conv.win.n = 2;
    for (int i = 0; i < 2; i++) {
        n->at.conv.win.kernel[i] = ks[i];
        n->at.conv.win.strides[i] = st[i];
        n->at.conv.win.dilations[i] = dl[i];
    }
    for (int i = 0; i < 4; i++)
        n->at.conv.win.pads[i] = kpads[i];
    n->at.conv.group = (int)Gk;
    n->at.conv.in_channels = g->values[x].shape.dims[1];
    n->at.conv.out_float = out_float;
    n->at.conv.ws_scaled = ws_scaled;
    if (cast >= 0) /* moved down by the nodes inserted before the convolution */
        cast += L->pos - node;
    if (cast >= 0) { /* the node now writes the Cast's value; the int32 one is gone */
        n->out[0] = g->nodes[cast].out[0];
        g->nodes[cast].dead = 1;
    }
    blocked_out(L, L->pos, ydims);
    g->values[g->nodes[L->pos].out[0]].dtype = out_float ? DT_FLOAT32 : DT_INT32;
    return 1;
}

/* MatMulInteger with uint8 A (K a multiple of 4), a constant 2-D int8 B
 * whose zero point is 0 and a per-tensor A zero point becomes ctvm.QMatMul
 * (ops/qmatmul.c): B packed 4 rows to an output lane ([K/4, N*4]), its
 * column sums for the zero point's term, and a Cast to float32 that is
 * the only reader folded in (as for the integer convolution), so the float
 * epilogue fuses into the register tile. */
static int qmatmul_packed(Lay *L, int node)
{
    Graph *g = L->g;
    Node *n = &g->nodes[node];
    int a = n->in[0], b = n->in[1], az = n->n_in > 2 ? n->in[2] : -1, bz = n->n_in > 3 ? n->in[3] : -1;
    const Value *av = &g->values[a], *bv = &g->values[b];
    if (av->dtype != DT_UINT8 || av->shape.rank < 2 || !bv->data || bv->shape.rank != 2 ||
        av->shape.dims[av->shape.rank - 1] != bv->shape.dims[0] || bv->shape.dims[0] % 4 ||
        n->at.qlinear.per_axis[2] || (az >= 0 && g->values[az].dtype != DT_UINT8) ||
        g->values[n->out[0]].shape.rank != av->shape.rank)
        return 0;
    int64_t K = bv->shape.dims[0], N = bv->shape.dims[1];
    const char *bname = bv->name; /* bv moves when constants are added */
    /* one row of A (a classifier's matrix-vector product): B in panels of
       one vector's columns, each contiguous over K, so every output vector
       streams its own bytes (mobilenet_v2_qdq_u8's 1280x1000: rows of 4000
       bytes read 256 at a time before) */
    int64_t rows = 1;
    for (int i = 0; i < av->shape.rank - 1; i++)
        rows *= av->shape.dims[i];
    int64_t PW = rows == 1 && L->B > 1 && N > L->B ? L->B : 0, Np = PW ? (N + PW - 1) / PW * PW : N;
    int8_t *B = weights_minus_zp(g, b, bz, N, 1);
    if (!B)
        return 0; /* (a - az) * (b - bz) with b - bz beyond int8: the generic loops */
    int8_t *P = calloc((size_t)(K * Np) + 1, 1);
    int32_t *S = calloc((size_t)N + 1, sizeof(int32_t));
    if (!P || !S) {
        free(P);
        free(S);
        free(B);
        return -1;
    }
    for (int64_t k = 0; k < K; k++)
        for (int64_t j = 0; j < N; j++) {
            if (PW)
                P[((j / PW) * (K / 4) + k / 4) * PW * 4 + (j % PW) * 4 + k % 4] = B[k * N + j];
            else
                P[(k / 4) * N * 4 + j * 4 + k % 4] = B[k * N + j];
            S[j] += B[k * N + j];
        }
    int64_t pd[2] = {K / 4, Np * 4};
    int bp = graph_add_const(g, pass_unique_name(g, arena_printf(g->arena, "%s_packed", bname)), DT_INT8,
                             shape_make(2, pd), P);
    int ws_scaled = az >= 0 && scale_sums(g, az, S, N);
    int bs = graph_add_const(g, pass_unique_name(g, arena_printf(g->arena, "%s_sum", bname)), DT_INT32,
                             shape_make(1, &N), S);
    free(P);
    free(S);
    free(B);
    if (az < 0) {
        uint8_t zero = 0;
        az = graph_add_const(g, pass_unique_name(g, "qmatmul_zero_point"), DT_UINT8, shape_make(0, NULL), &zero);
    }
    grow(L);
    int y = g->nodes[node].out[0], cast = pass_sole_consumer(g, y);
    int out_float = cast >= 0 && g->nodes[cast].op == OP_CAST && g->values[g->nodes[cast].out[0]].dtype == DT_FLOAT32 &&
                    !g->values[y].is_output;
    pass_grow_inputs(g, node, 4);
    n = &g->nodes[node];
    n->op = OP_QMATMUL;
    n->op_type = "ctvm.QMatMul";
    n->in[0] = a;
    n->in[1] = bp;
    n->in[2] = az;
    n->in[3] = bs;
    n->n_in = 4;
    memset(&n->at, 0, sizeof n->at);
    n->at.conv.out_float = out_float;
    n->at.conv.panel = PW;
    n->at.conv.ws_scaled = ws_scaled;
    if (out_float) {
        n->out[0] = g->nodes[cast].out[0];
        g->values[n->out[0]].producer = node;
        g->nodes[cast].dead = 1;
    }
    return 0; /* stays plain */
}

/* DynamicQuantizeLinear of a blocked float32 value whose channels fill the
 * blocks (no padding lanes, which would join its min and max) stays
 * blocked: its uint8 output becomes a blocked twin that an integer
 * convolution reads directly. Its min/max pass is over all elements in any
 * order, and its scale and zero point outputs are scalars. Only with
 * blocks of whole 4-byte groups (the dot product's). */
static int follow_dynquant(Lay *L, int node)
{
    Graph *g = L->g;
    Node *n = &g->nodes[node];
    int x = n->in[0];
    if (x < 0 || L->twin[x] < 0 || L->B % 4 || g->values[x].shape.rank != 4 ||
        g->values[x].shape.dims[1] % L->B)
        return 0;
    n->in[0] = L->twin[x];
    blocked_out(L, node, g->values[L->twin[x]].shape.dims);
    g->values[g->nodes[node].out[0]].dtype = DT_UINT8;
    return 1;
}

/* ---- ops that follow their input's layout ---- */

/* Per-channel parameter p (a constant of C elements) padded to Cb * B
 * elements with `pad` for the blocked form. */
static int pad_channel_param(Lay *L, int p, int64_t C, float pad)
{
    Graph *g = L->g;
    const Value *v = &g->values[p];
    int64_t n = cdiv(C, L->B) * L->B;
    size_t es = v->dtype == DT_FLOAT32 ? 4 : 1;
    unsigned char *d = calloc((size_t)n, es);
    if (!d)
        return -1;
    memcpy(d, v->data, (size_t)C * es);
    for (int64_t i = C; i < n && es == 4; i++)
        memcpy(d + i * 4, &pad, 4);
    int id = graph_add_const(g, pass_unique_name(g, arena_printf(g->arena, "%s_blk", v->name)), v->dtype,
                             shape_make(1, &n), d);
    free(d);
    grow(L);
    return id;
}

/* A QuantizeLinear to uint8/int8 of a blocked float32 value, or a
 * DequantizeLinear of a blocked integer one, per tensor or per channel
 * (axis 1: its parameters padded to whole blocks, read at cb * B + lane),
 * stays blocked: so the quantized result of one integer convolution feeds
 * the next one (and a residual Add) without Unpack / Pack. Padding lanes
 * stay finite. */
static int follow_quant(Lay *L, int node)
{
    Graph *g = L->g;
    Node *n = &g->nodes[node];
    int x = n->in[0], y = n->out[0];
    DType yt = g->values[y].dtype;
    if (x < 0 || L->twin[x] < 0 || !shape_equal(&g->values[x].shape, &g->values[y].shape))
        return 0;
    int per_ch = !pass_quant_per_tensor(g, n);
    if (per_ch && (!pass_quant_per_channel(g, n) || n->at.quant.axis != 1 || g->values[x].shape.rank != 4))
        return 0;
    if (n->op == OP_QUANTIZELINEAR ? yt != DT_UINT8 && yt != DT_INT8 : yt != DT_FLOAT32)
        return 0;
    if (per_ch) {
        int64_t C = g->values[x].shape.dims[1];
        int s = pad_channel_param(L, n->in[1], C, 1.0f);
        int z = n->n_in > 2 && n->in[2] >= 0 ? pad_channel_param(L, g->nodes[node].in[2], C, 0.0f) : -1;
        if (s < 0 || (g->nodes[node].n_in > 2 && g->nodes[node].in[2] >= 0 && z < 0))
            return -1;
        n = &g->nodes[node];
        n->in[1] = s;
        if (z >= 0)
            n->in[2] = z;
        n->at.quant.blocked = 1;
    }
    n->in[0] = L->twin[x];
    blocked_out(L, node, g->values[L->twin[x]].shape.dims);
    g->values[g->nodes[node].out[0]].dtype = yt;
    return 1;
}

static int follow_unary(Lay *L, int node)
{
    Graph *g = L->g;
    Node *n = &g->nodes[node];
    int x = n->in[0];
    if (x < 0 || L->twin[x] < 0 || !shape_equal(&g->values[x].shape, &g->values[n->out[0]].shape))
        return 0;
    for (int i = 1; i < n->n_in; i++) /* Clip bounds etc.: only scalar constants */
        if (n->in[i] >= 0 && (!g->values[n->in[i]].data || g->values[n->in[i]].shape.rank > 0))
            return 0;
    n->in[0] = L->twin[x];
    blocked_out(L, node, g->values[L->twin[x]].shape.dims);
    return 1;
}

static int one_element(const Value *v)
{
    int64_t ne = 0;
    return v->dtype == DT_FLOAT32 && shape_numel(&v->shape, &ne) && ne == 1 && v->shape.rank <= 4;
}

static int follow_binary(Lay *L, int node)
{
    Graph *g = L->g;
    Node *n = &g->nodes[node];
    int a = n->in[0], b = n->in[1];
    const Shape *ys = &g->values[n->out[0]].shape;
    int ta = L->twin[a] >= 0 && shape_equal(&g->values[a].shape, ys);
    int tb = L->twin[b] >= 0 && shape_equal(&g->values[b].shape, ys);
    if ((!ta && !tb) || g->values[n->out[0]].dtype != DT_FLOAT32)
        return 0;
    int ops[2] = {a, b}, blk[2];
    float pad = n->op == OP_DIV ? 1.0f : 0.0f;
    for (int i = 0; i < 2; i++) {
        int v = ops[i];
        if (L->twin[v] >= 0 && shape_equal(&g->values[v].shape, ys))
            blk[i] = L->twin[v];
        else if (g->values[v].data)
            blk[i] = pack_const(L, v, ys, pad);
        else if (one_element(&g->values[v]))
            blk[i] = v; /* a run-time scalar (a dynamic quantization's scale) broadcasts to any layout */
        else if (is_plain4(g, v) && shape_equal(&g->values[v].shape, ys))
            blk[i] = get_blocked(L, v);
        else
            blk[i] = -1;
        if (blk[i] < 0)
            return 0;
    }
    n = &g->nodes[L->pos];
    n->in[0] = blk[0];
    n->in[1] = blk[1];
    blocked_out(L, L->pos, g->values[ta ? blk[0] : blk[1]].shape.dims);
    return 1;
}

static int follow_pool(Lay *L, int node)
{
    Graph *g = L->g;
    Node *n = &g->nodes[node];
    int x = n->in[0];
    if (x < 0 || L->twin[x] < 0 || n->n_out != 1)
        return 0;
    const int64_t *yd = g->values[n->out[0]].shape.dims;
    int64_t dims[5] = {yd[0], g->values[L->twin[x]].shape.dims[1], yd[2], yd[3], L->B};
    n->in[0] = L->twin[x];
    n->at.pool.blocked = 1;
    blocked_out(L, node, dims);
    return 1;
}

static int follow_concat(Lay *L, int node)
{
    Graph *g = L->g;
    Node *n = &g->nodes[node];
    if (n->at.axis.axis != 1 || n->n_in < 1)
        return 0;
    int64_t cb = 0;
    for (int i = 0; i < n->n_in; i++) {
        int v = n->in[i];
        if (v < 0 || L->twin[v] < 0 || g->values[v].shape.rank != 4)
            return 0;
        if (i + 1 < n->n_in && g->values[v].shape.dims[1] % L->B)
            return 0; /* a padded block may only come last */
        cb += g->values[L->twin[v]].shape.dims[1];
    }
    for (int i = 0; i < n->n_in; i++)
        n->in[i] = L->twin[n->in[i]];
    const int64_t *yd = g->values[n->out[0]].shape.dims;
    int64_t dims[5] = {yd[0], cb, yd[2], yd[3], L->B};
    blocked_out(L, node, dims);
    return 1;
}

/* Gemm with a constant transposed B: store B K-major ([K, N]) at compile
 * time, so the output row vectorizes with contiguous loads of B. */
static void gemm_k_major(Lay *L, int node)
{
    Graph *g = L->g;
    Node *n = &g->nodes[node];
    int b = n->in[1];
    const Value *bv = &g->values[b];
    if (!n->at.gemm.trans_b || !bv->data || bv->dtype != DT_FLOAT32 || bv->shape.rank != 2)
        return;
    int64_t N = bv->shape.dims[0], K = bv->shape.dims[1], dims[2] = {K, N};
    float *t = malloc((size_t)(N * K) * sizeof(float));
    if (!t)
        return;
    const float *src = bv->data;
    for (int64_t i = 0; i < N; i++)
        for (int64_t k = 0; k < K; k++)
            t[k * N + i] = src[i * K + k];
    int id = graph_add_const(g, pass_unique_name(g, arena_printf(g->arena, "%s_kmajor", bv->name)), DT_FLOAT32,
                             shape_make(2, dims), t);
    free(t);
    grow(L);
    g->nodes[node].in[1] = id;
    node_set_int(g, node, "transB", 0);
    g->nodes[node].at.gemm.trans_b = 0;
}

/* The float32 recurrent layers (ops/rnn.c) with constant W [D,G*H,I] and
 * R [D,G*H,H] (at.rnn w_panels / w_transposed, r_panels): W stored in panels of
 * WP = two vectors of gate columns when WP divides G*H, [D, G*H/WP * I,
 * WP], else transposed, [D,I,G*H], so the input projection vectorizes along
 * the gates with contiguous loads; on a vector target R stored per direction and gate in
 * panels of P = the vector width gate columns, [D, G*HP, H*P] (HP =
 * ceil(H/P)): element (d, q, p, k, c) is R[d, q*H + p*P + c, k], 0 past
 * the H columns of a gate, so each step's product reads a vector of
 * columns at once and a panel from start to end. */
static int rnn_weights(Lay *L, int node)
{
    Graph *g = L->g;
    const Node *n = &g->nodes[node];
    if (n->n_in < 3 || n->in[0] < 0 || n->in[1] < 0 || n->in[2] < 0 || n->at.rnn.w_transposed ||
        n->at.rnn.w_panels || g->values[n->in[0]].dtype != DT_FLOAT32)
        return 0;
    const Value *w = &g->values[n->in[1]], *r = &g->values[n->in[2]];
    int64_t H = n->at.rnn.hidden, P = L->B;
    if (!w->data || !r->data || w->dtype != DT_FLOAT32 || r->dtype != DT_FLOAT32 || w->shape.rank != 3 ||
        r->shape.rank != 3 || H <= 0 || r->shape.dims[2] != H || r->shape.dims[1] % H)
        return 0;
    /* W in panels of WP = two vectors of gate columns when they divide
       G*H (the GEMM schedule's tile width), else transposed */
    int64_t D = w->shape.dims[0], N = w->shape.dims[1], K = w->shape.dims[2], WP = 2 * P;
    int packed = P > 1 && N % WP == 0;
    int64_t dims[3] = {D, K, N}, pdims[3] = {D, N / WP * K, WP};
    float *t = malloc((size_t)(D * N * K) * sizeof(float) + 1);
    if (!t)
        return -1;
    const float *src = w->data;
    for (int64_t d = 0; d < D; d++)
        for (int64_t i = 0; i < N; i++)
            for (int64_t k = 0; k < K; k++)
                t[packed ? ((d * (N / WP) + i / WP) * K + k) * WP + i % WP : (d * K + k) * N + i] =
                    src[(d * N + i) * K + k];
    int wt = graph_add_const(g, pass_unique_name(g, arena_printf(g->arena, "%s_%s", w->name, packed ? "panels" : "t")),
                             DT_FLOAT32, shape_make(3, packed ? pdims : dims), t);
    free(t);
    grow(L);
    g->nodes[node].in[1] = wt;
    if (packed)
        g->nodes[node].at.rnn.w_panels = WP;
    else
        g->nodes[node].at.rnn.w_transposed = 1;
    if (P <= 1)
        return 0;
    r = &g->values[g->nodes[node].in[2]];
    int64_t G = r->shape.dims[1] / H, HP = (H + P - 1) / P, rdims[3] = {D, G * HP, H * P};
    float *pk = calloc((size_t)(D * G * HP * H * P), sizeof(float));
    if (!pk)
        return -1;
    src = r->data;
    for (int64_t d = 0; d < D; d++)
        for (int64_t q = 0; q < G; q++)
            for (int64_t c = 0; c < H; c++)
                for (int64_t k = 0; k < H; k++)
                    pk[((((d * G + q) * HP + c / P) * H + k) * P) + c % P] = src[(d * G * H + q * H + c) * H + k];
    int rp = graph_add_const(g, pass_unique_name(g, arena_printf(g->arena, "%s_panels", r->name)), DT_FLOAT32,
                             shape_make(3, rdims), pk);
    free(pk);
    grow(L);
    g->nodes[node].in[2] = rp;
    g->nodes[node].at.rnn.r_panels = P;
    return 0;
}

/* The int8 LSTM (at.rnn.q8, ops/rnn.c) with constant int8 W [D,G*H,I] and
 * R [D,G*H,H]: W packed as ctvm.QMatMul's B, [D, I/4, G*H*4] (for each
 * group of 4 inputs, the 4 bytes of gate column 0, then column 1, ...: one
 * 32-bit group per output lane; at.rnn.w_transposed), so the projection
 * runs on the GEMM schedule's dot products; on a vector target R per
 * direction and gate in panels of P = the vector width columns with 4
 * k-values to a lane, [D, G*HP, H*P + 64] (HP = ceil(H/P), 64 bytes of
 * padding after each panel, at.rnn.r_pad): byte (d, q, p, g, c, r) is
 * R[d, q*H + p*P + c, 4g + r], 0 past the H columns of a gate. The column
 * sums and scales stay. */
static int rnn_int8_weights(Lay *L, int node)
{
    Graph *g = L->g;
    const Node *n = &g->nodes[node];
    if (!n->at.rnn.q8 || n->at.rnn.w_transposed || n->at.rnn.r_panels > 1)
        return 0;
    const Value *w = &g->values[n->in[1]], *r = &g->values[n->in[2]];
    int64_t H = n->at.rnn.hidden, P = L->B;
    if (!w->data || !r->data || w->shape.rank != 3 || r->shape.rank != 3 || H <= 0 || H % 4 ||
        r->shape.dims[2] != H || r->shape.dims[1] % H)
        return 0;
    int64_t D = w->shape.dims[0], N = w->shape.dims[1], K = w->shape.dims[2];
    if (K % 4)
        return 0;
    int64_t wd[3] = {D, K / 4, N * 4};
    int8_t *t = malloc((size_t)(D * N * K) + 1);
    if (!t)
        return -1;
    const int8_t *src = w->data;
    for (int64_t d = 0; d < D; d++)
        for (int64_t i = 0; i < N; i++)
            for (int64_t k = 0; k < K; k++)
                t[((d * (K / 4) + k / 4) * N + i) * 4 + k % 4] = src[(d * N + i) * K + k];
    int wp = graph_add_const(g, pass_unique_name(g, arena_printf(g->arena, "%s_packed", w->name)), DT_INT8,
                             shape_make(3, wd), t);
    free(t);
    grow(L);
    g->nodes[node].in[1] = wp;
    g->nodes[node].at.rnn.w_transposed = 1;
    if (P <= 1)
        return 0;
    r = &g->values[g->nodes[node].in[2]];
    /* a cache line between panels: the NR panels a register tile reads at
       once are then not all a multiple of 4 KB apart (one L1 set) */
    int64_t G = r->shape.dims[1] / H, HP = (H + P - 1) / P, pad = 64, PS = H * P + pad;
    int64_t rd[3] = {D, G * HP, PS};
    int8_t *pk = calloc((size_t)(D * G * HP * PS) + 1, 1);
    if (!pk)
        return -1;
    src = r->data;
    for (int64_t d = 0; d < D; d++)
        for (int64_t q = 0; q < G; q++)
            for (int64_t c = 0; c < H; c++)
                for (int64_t k = 0; k < H; k++)
                    pk[((d * G + q) * HP + c / P) * PS + ((k / 4) * P + c % P) * 4 + k % 4] =
                        src[(d * G * H + q * H + c) * H + k];
    int rp = graph_add_const(g, pass_unique_name(g, arena_printf(g->arena, "%s_panels", r->name)), DT_INT8,
                             shape_make(3, rd), pk);
    free(pk);
    grow(L);
    g->nodes[node].in[2] = rp;
    g->nodes[node].at.rnn.r_panels = P;
    g->nodes[node].at.rnn.r_pad = pad;
    return 0;
}

static int rewrite(Lay *L, int node)
{
    const Node *n = &L->g->nodes[node];
    if (n->op == OP_CONVINTEGER && n->n_out == 1)
        return qconv_blocked(L, node);
    if (n->op == OP_MATMULINTEGER && n->n_out == 1 && n->n_in >= 2)
        return qmatmul_packed(L, node);
    if (n->op == OP_DYNAMICQUANTIZELINEAR && n->n_in == 1)
        return follow_dynquant(L, node);
    if ((n->op == OP_QUANTIZELINEAR || n->op == OP_DEQUANTIZELINEAR) && n->n_out == 1 && n->out[0] >= 0)
        return follow_quant(L, node);
    if (n->op == OP_MAXPOOL && n->n_out == 1 && n->out[0] >= 0 && L->g->values[n->out[0]].shape.rank == 4 &&
        (L->g->values[n->out[0]].dtype == DT_UINT8 || L->g->values[n->out[0]].dtype == DT_INT8))
        return follow_pool(L, node); /* on the quantized values (pass quant_moves), kept blocked */
    if (n->n_out != 1 || n->out[0] < 0 || !is_plain4(L->g, n->out[0]))
        return 0;
    switch (n->op) {
    case OP_CONV: return conv_blocked(L, node);
    case OP_MAXPOOL: case OP_AVGPOOL: case OP_GLOBALAVGPOOL: case OP_GLOBALMAXPOOL:
        return follow_pool(L, node);
    case OP_CONCAT: return follow_concat(L, node);
    case OP_ADD: case OP_SUB: case OP_MUL: case OP_DIV:
        return n->n_in == 2 ? follow_binary(L, node) : 0;
    default:
        return op_is_elementwise(n->op) ? follow_unary(L, node) : 0;
    }
}

int pass_layout(Graph *g, const CodegenOptions *cg, Diag *d)
{
    (void)d;
    Lay L = {.g = g, .B = cg->target ? cg->target->vl : 1};
    grow(&L);
    int rc = 0;
    for (L.pos = 0; L.pos < g->n_nodes; L.pos++) {
        if (g->nodes[L.pos].dead)
            continue;
        int r = rewrite(&L, L.pos);
        if (r < 0) {
            rc = diag_error(d, g, L.pos, "out of memory packing weights");
            break;
        }
        if (r == 0 && g->nodes[L.pos].op == OP_GEMM)
            gemm_k_major(&L, L.pos);
        OpKind op = g->nodes[L.pos].op;
        if (r == 0 && (op == OP_RNN || op == OP_GRU || op == OP_LSTM) &&
            (rnn_weights(&L, L.pos) < 0 || rnn_int8_weights(&L, L.pos) < 0)) {
            rc = diag_error(d, g, L.pos, "out of memory transposing weights");
            break;
        }
        if (r == 0) { /* stays plain: its inputs must be */
            for (int i = 0; i < g->nodes[L.pos].n_in; i++)
                need_plain(&L, g->nodes[L.pos].in[i]);
        }
    }
    L.pos = g->n_nodes;
    for (int i = 0; i < g->n_outputs && rc == 0; i++)
        need_plain(&L, g->outputs[i]);
    free(L.twin);
    free(L.plain_ok);
    graph_count_uses(g);
    return rc;
}
