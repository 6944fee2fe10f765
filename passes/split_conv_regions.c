/* split_conv_regions.c - pass "split_conv_regions": a dilated 2-D Conv whose
 * off-centre taps read mostly zero padding is split into output regions,
 * each a Conv of only the taps that read real rows and columns there.
 *
 * Along one axis (input H, output O, stride s, dilation d, begin pad pb),
 * tap t reads input row o*s - pb + t*d, which lies in [0, H) for the outputs
 * o of one interval. The ends of those intervals cut [0, O) into bands in
 * which every tap is either always in range or never; a band's taps in
 * range are consecutive, [ta, tb]. Each pair (row band, column band) is
 * then Conv(Slice(X, the rows and columns those taps read), W cropped to
 * [ta, tb] x [ta', tb'], no padding, same strides and dilations, bias), and
 * Concats along the width then the height put the regions back together.
 * The sums are the Conv's own without its zero terms. DeepLabV3's ASPP
 * convolution of dilation 12 on a 16x16 map keeps a quarter of its work
 * this way (centre 8x8 outputs: the 1x1 centre tap only).
 *
 * Taken for float32 Conv with constant weights, group 1, a dilation above
 * 1, at least 2^24 multiply-adds, at most five bands per axis, at most 60%
 * of the work kept, and a tap in range in every band (else the region is
 * the bias alone). Runs after crop_conv_taps (which drops the taps that
 * never read real rows), before the second inference. */
#include <stdlib.h>
#include <string.h>

#include "passes/pass_util.h"
#include "passes/passes.h"

enum { MAX_BANDS = 5 };

typedef struct Bands {
    int n;
    int64_t o0[MAX_BANDS], o1[MAX_BANDS], ta[MAX_BANDS], tb[MAX_BANDS];
} Bands;

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* the bands of one axis; 0 when there are too many or one has no tap */
static int bands_of(int64_t H, int64_t O, int64_t s, int64_t d, int64_t pb, int64_t k, Bands *b)
{
    int64_t cut[2 * 16 + 2];
    int nc = 0;
    if (k > 16)
        return 0;
    cut[nc++] = 0;
    cut[nc++] = O;
    for (int64_t t = 0; t < k; t++) { /* o in range iff 0 <= o*s - pb + t*d < H */
        int64_t lo = -1, hi = -1;
        for (int64_t o = 0; o < O; o++) {
            int64_t r = o * s - pb + t * d;
            if (r >= 0 && r < H) {
                if (lo < 0)
                    lo = o;
                hi = o + 1;
            }
        }
        if (lo >= 0) {
            cut[nc++] = lo;
            cut[nc++] = hi;
        }
    }
    qsort(cut, (size_t)nc, sizeof cut[0], cmp_i64);
    b->n = 0;
    for (int i = 0; i + 1 < nc; i++) {
        if (cut[i] == cut[i + 1])
            continue;
        if (b->n == MAX_BANDS)
            return 0;
        int64_t o0 = cut[i], o1 = cut[i + 1], ta = -1, tb = -1;
        for (int64_t t = 0; t < k; t++) {
            int64_t r0 = o0 * s - pb + t * d, r1 = (o1 - 1) * s - pb + t * d;
            if (r0 >= 0 && r1 < H) {
                if (ta < 0)
                    ta = t;
                tb = t;
            }
        }
        if (ta < 0)
            return 0;
        b->o0[b->n] = o0, b->o1[b->n] = o1, b->ta[b->n] = ta, b->tb[b->n] = tb;
        b->n++;
    }
    return b->n > 0;
}

/* W [M, C, KH, KW] cropped to taps [a0, a1] x [b0, b1], as a new constant */
static int crop_weights(Graph *g, int w, int64_t a0, int64_t a1, int64_t b0, int64_t b1)
{
    const Value *wv = &g->values[w];
    int64_t M = wv->shape.dims[0], C = wv->shape.dims[1], KH = wv->shape.dims[2], KW = wv->shape.dims[3];
    int64_t kh = a1 - a0 + 1, kw = b1 - b0 + 1;
    float *nw = malloc((size_t)(M * C * kh * kw) * sizeof *nw);
    if (!nw)
        return -1;
    const float *src = wv->data;
    int64_t q = 0;
    for (int64_t m = 0; m < M * C; m++)
        for (int64_t i = a0; i <= a1; i++)
            for (int64_t j = b0; j <= b1; j++)
                nw[q++] = src[(m * KH + i) * KW + j];
    int64_t wd[4] = {M, C, kh, kw};
    int v = graph_add_const(g, pass_unique_name(g, arena_printf(g->arena, "%s_region", wv->name)), DT_FLOAT32,
                            shape_make(4, wd), nw);
    free(nw);
    return v;
}

static void split_one(Graph *g, int i)
{
    const Node *n = &g->nodes[i];
    if (n->n_in < 2 || n->in[1] < 0 || n->n_out != 1 || n->at.conv.group != 1)
        return;
    const Value *x = &g->values[n->in[0]], *w = &g->values[n->in[1]], *y = &g->values[n->out[0]];
    /* copies: the nodes move as the regions are inserted */
    const WindowAttrs wa = n->at.conv.win;
    const int64_t *ks = wa.kernel, *st = wa.strides, *dl = wa.dilations, *pd = wa.pads;
    if (!w->data || w->dtype != DT_FLOAT32 || x->dtype != DT_FLOAT32 || w->shape.rank != 4 || x->shape.rank != 4 ||
        y->shape.rank != 4 || wa.n != 2 ||
        ks[0] != w->shape.dims[2] || ks[1] != w->shape.dims[3] || (dl[0] <= 1 && dl[1] <= 1))
        return;
    Bands bh, bw;
    if (!bands_of(x->shape.dims[2], y->shape.dims[2], st[0], dl[0], pd[0], ks[0], &bh) ||
        !bands_of(x->shape.dims[3], y->shape.dims[3], st[1], dl[1], pd[1], ks[1], &bw) || bh.n * bw.n < 2)
        return;
    double full = (double)y->shape.dims[2] * y->shape.dims[3] * ks[0] * ks[1], kept = 0;
    for (int a = 0; a < bh.n; a++)
        for (int b = 0; b < bw.n; b++)
            kept += (double)(bh.o1[a] - bh.o0[a]) * (bw.o1[b] - bw.o0[b]) * (bh.tb[a] - bh.ta[a] + 1) *
                    (bw.tb[b] - bw.ta[b] + 1);
    double macs = full * (double)w->shape.dims[0] * w->shape.dims[1] * y->shape.dims[0];
    if (macs < (double)(1 << 24) || kept > 0.6 * full)
        return;

    int xv = n->in[0], wv = n->in[1], bias = n->n_in > 2 ? n->in[2] : -1, yv = n->out[0];
    int64_t s[2] = {st[0], st[1]}, dil[2] = {dl[0], dl[1]}, pbeg[2] = {pd[0], pd[1]};
    PassBuild pb = {g, i, g->nodes[i].name};
    int rows[MAX_BANDS];
    for (int a = 0; a < bh.n; a++) {
        int cols[MAX_BANDS];
        for (int b = 0; b < bw.n; b++) {
            int64_t ta = bh.ta[a], tb = bh.tb[a], ua = bw.ta[b], ub = bw.tb[b];
            int64_t starts[2] = {bh.o0[a] * s[0] - pbeg[0] + ta * dil[0], bw.o0[b] * s[1] - pbeg[1] + ua * dil[1]};
            int64_t ends[2] = {(bh.o1[a] - 1) * s[0] - pbeg[0] + tb * dil[0] + 1,
                               (bw.o1[b] - 1) * s[1] - pbeg[1] + ub * dil[1] + 1};
            int64_t axes[2] = {2, 3};
            int sl = pb_value(&pb, "rows");
            int sins[4] = {xv, pb_ints(&pb, "starts", 2, starts), pb_ints(&pb, "ends", 2, ends), pb_ints(&pb, "axes", 2, axes)};
            pb_node(&pb, "Slice", 4, sins, sl);
            int wc = crop_weights(g, wv, ta, tb, ua, ub);
            if (wc < 0)
                return; /* (out of memory: the nodes built so far are unused and dce drops them) */
            int out = bh.n * bw.n == 1 ? yv : pb_value(&pb, "region");
            int cins[3] = {sl, wc, bias};
            int c = pb_node(&pb, "Conv", bias >= 0 ? 3 : 2, cins, out);
            int64_t kern[2] = {tb - ta + 1, ub - ua + 1}, d2[2] = {kern[0] > 1 ? dil[0] : 1, kern[1] > 1 ? dil[1] : 1};
            int64_t zero[4] = {0, 0, 0, 0};
            node_set_ints(g, c, "kernel_shape", kern, 2);
            node_set_ints(g, c, "strides", s, 2);
            node_set_ints(g, c, "dilations", d2, 2);
            node_set_ints(g, c, "pads", zero, 4);
            node_set_int(g, c, "group", 1);
            cols[b] = out;
        }
        rows[a] = cols[0];
        if (bw.n > 1) {
            rows[a] = bh.n == 1 ? yv : pb_value(&pb, "band");
            int c = pb_node(&pb, "Concat", bw.n, cols, rows[a]);
            node_set_int(g, c, "axis", 3);
        }
    }
    if (bh.n > 1) {
        int c = pb_node(&pb, "Concat", bh.n, rows, yv);
        node_set_int(g, c, "axis", 2);
    }
    g->nodes[pb.pos].dead = 1; /* the Conv, moved past the new nodes */
    graph_count_uses(g);
}

int pass_split_conv_regions(Graph *g, Diag *d)
{
    (void)d;
    int n0 = g->n_nodes;
    for (int i = 0; i < g->n_nodes && i < 4 * n0; i++)
        if (!g->nodes[i].dead && g->nodes[i].op == OP_CONV)
            split_one(g, i);
    return 0;
}
