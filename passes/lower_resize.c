/* lower_resize.c - pass "lower_resize": a float32 linear or cubic Resize of
 * the last one or two axes as products with interpolation matrices.
 *
 * Both modes are separable: along an axis, output index o is a weighted sum
 * of input indices, the weights depending on o only. With Rw [Wi, Wo] and
 * Rh [Ho, Hi] holding them (computed here exactly as ops/resize.c computes
 * them per element: coordinate mode in float64, taps, kernel, clamped
 * indices, exclude_outside / antialias normalisation, weights rounded to
 * float32),
 *
 *   Y = MatMul(Rh, MatMul(X, Rw))      X [.., Hi, Wi], Y [.., Ho, Wo]
 *
 * runs on the register-tiled GEMM schedule instead of the per-element
 * coordinate arithmetic in float64 of the general Resize nest. The products
 * do Hi*Wi/Ho + Hi multiply-adds per output where the taps need 4 (linear)
 * or 16 (cubic), so the pass is taken for small inputs only (at most 64 per
 * output): the segmentation heads' 8x-32x upsampling of their logits, where
 * the nest cost 36 ns per output (deeplabv3: 50 ms of 320). Runs after the
 * first inference (normalised rs_* attributes); tf_crop_and_resize stays. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "passes/pass_util.h"
#include "passes/passes.h"

#define RESIZE_MAX_MACS 64

static double kernel(int mode, double A, double u)
{
    double a = fabs(u);
    if (mode == 1)
        return fmax(1.0 - a, 0.0);
    if (a <= 1.0)
        return ((A + 2) * a - (A + 3)) * a * a + 1.0;
    if (a < 2.0)
        return ((A * a - 5 * A) * a + 8 * A) * a - 4 * A;
    return 0.0;
}

/* R [out][in] (row o: the weights of output o) for one axis; 0 on an
 * unsupported case */
static int axis_weights(const Node *n, int64_t in, int64_t out, double sc, float *R)
{
    const ResizeAttrs *ra = &n->at.resize;
    int mode = ra->mode, ctm = ra->ctm;
    int aa = ra->antialias, excl = ra->exclude_outside;
    double A = ra->cubic_a, outf = sc * (double)in;
    double se = aa ? fmin(sc, 1.0) : 1.0;
    int64_t start = (int64_t)floor((mode == 1 ? -1.0 : -2.0) / se) + 1, taps = 2 - 2 * start;
    if (taps < 2 || taps > 64)
        return 0;
    memset(R, 0, (size_t)(out * in) * sizeof *R);
    for (int64_t o = 0; o < out; o++) {
        double yf = (double)o, hp = (yf + 0.5) / sc - 0.5, xo;
        switch (ctm) {
        case 0: xo = hp; break;
        case 1: xo = outf == 1.0 ? -0.5 : hp; break;
        case 2: xo = outf == 1.0 ? 0.0 : yf * (double)(in - 1) / (outf - 1.0); break;
        case 3: xo = yf / sc; break;
        case 5: {
            double adj = (double)out / outf, off = ((double)in / 2.0) * (1.0 - adj);
            xo = off + (yf + 0.5) / sc - 0.5;
            break;
        }
        case 6: xo = (yf + 0.5) / sc; break;
        default: return 0; /* tf_crop_and_resize: run-time ROI */
        }
        double fl = floor(xo), ratio = xo == fl ? 1.0 : xo - fl, base = xo - ratio;
        double w[64], sum = 0.0;
        for (int64_t t = 0; t < taps; t++) {
            double pos = (double)(t + start);
            w[t] = kernel(mode, A, (pos - ratio) * se);
            if (excl && (base + pos < 0.0 || base + pos > (double)(in - 1)))
                w[t] = 0.0;
            sum += w[t];
        }
        for (int64_t t = 0; t < taps; t++) {
            double wt = (aa || excl) ? w[t] / (sum == 0.0 ? 1.0 : sum) : w[t];
            double ix = fmin(fmax(base + (double)(t + start), 0.0), (double)(in - 1));
            R[o * in + (int64_t)ix] += (float)wt;
        }
    }
    return 1;
}

static double bits_double(int64_t b)
{
    double v;
    memcpy(&v, &b, sizeof v);
    return v;
}

/* Rewrites Resize node i; returns the nodes it spans now (0: kept). */
static int lower_one(Graph *g, int i)
{
    const Node *n = &g->nodes[i];
    const Value *x = &g->values[n->in[0]], *y = &g->values[n->out[0]];
    int r = x->shape.rank, mode = n->at.resize.mode;
    const int64_t *sbits = n->at.resize.scale_bits, *rsz = n->at.resize.resized;
    if (x->dtype != DT_FLOAT32 || y->dtype != DT_FLOAT32 || x->data || (mode != 1 && mode != 2) || r < 2 ||
        y->shape.rank != r)
        return 0;
    for (int a = 0; a < r - 2; a++)
        if (rsz[a])
            return 0;
    int rw = rsz[r - 1] != 0, rh = rsz[r - 2] != 0;
    int64_t Hi = x->shape.dims[r - 2], Wi = x->shape.dims[r - 1], Ho = y->shape.dims[r - 2], Wo = y->shape.dims[r - 1];
    if (!rw && !rh)
        return 0;
    double macs = (rw ? (double)Wi * (rh ? (double)Hi / (double)Ho : 1.0) : 0.0) + (rh ? (double)Hi : 0.0);
    if (macs > RESIZE_MAX_MACS || Wi * Wo > (1 << 20) || Hi * Ho > (1 << 20))
        return 0;
    float *Rw = rw ? malloc((size_t)(Wi * Wo) * sizeof *Rw) : NULL, *Rh = rh ? malloc((size_t)(Hi * Ho) * sizeof *Rh) : NULL;
    float *RwT = rw ? malloc((size_t)(Wi * Wo) * sizeof *RwT) : NULL;
    int ok = (!rw || (Rw && RwT && axis_weights(n, Wi, Wo, bits_double(sbits[r - 1]), Rw))) &&
             (!rh || (Rh && axis_weights(n, Hi, Ho, bits_double(sbits[r - 2]), Rh)));
    int cw = -1, ch = -1;
    const char *base = n->name;
    if (ok && rw) { /* X [.., Wi] times Rw^T [Wi, Wo] */
        for (int64_t o = 0; o < Wo; o++)
            for (int64_t k = 0; k < Wi; k++)
                RwT[k * Wo + o] = Rw[o * Wi + k];
        int64_t d[2] = {Wi, Wo};
        cw = graph_add_const(g, pass_unique_name(g, arena_printf(g->arena, "%s_wcols", base)), DT_FLOAT32,
                             shape_make(2, d), RwT);
    }
    if (ok && rh) {
        int64_t d[2] = {Ho, Hi};
        ch = graph_add_const(g, pass_unique_name(g, arena_printf(g->arena, "%s_hrows", base)), DT_FLOAT32,
                             shape_make(2, d), Rh);
    }
    free(Rw);
    free(RwT);
    free(Rh);
    if (!ok)
        return 0;
    int xv = g->nodes[i].in[0], yv = g->nodes[i].out[0];
    PassBuild B = {g, i, base};
    int t = xv;
    if (rw) {
        int ins[2] = {t, cw};
        int out = rh ? pb_value(&B, "wresized") : yv;
        pb_node(&B, "MatMul", 2, ins, out);
        t = out;
    }
    if (rh) {
        int ins[2] = {ch, t};
        pb_node(&B, "MatMul", 2, ins, yv);
    }
    g->nodes[B.pos].dead = 1; /* the Resize, replaced */
    graph_count_uses(g);
    return B.pos - i + 1;
}

int pass_lower_resize(Graph *g, Diag *d)
{
    (void)d;
    for (int i = 0; i < g->n_nodes; i++) {
        const Node *n = &g->nodes[i];
        if (n->dead || (n->op != OP_RESIZE && n->op != OP_UPSAMPLE) || n->n_in < 1 || n->n_out < 1)
            continue;
        int span = lower_one(g, i);
        if (span > 0)
            i += span - 1;
    }
    return 0;
}
