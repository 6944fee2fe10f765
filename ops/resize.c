/* resize.c - Resize (10, 11, 13, 18, 19) and Upsample (1, 7, 9, 10).
 *
 * Every output element is a separable interpolation of the input: along
 * each resized axis the output index y maps to a source coordinate x (the
 * coordinate_transformation_mode, computed in float64 as the ONNX reference
 * does), and the value is the weighted sum over the product of the per-axis
 * taps, with tap indices clamped into the input (the reference's edge
 * padding). With ratio = x - floor(x), or 1 when x is integral, and base =
 * x - ratio, the taps of an axis are base + start + t for t in [0, n):
 *   nearest  one tap: base + 1 when x is integral, else base or base + 1 by
 *            nearest_mode ("simple", versions < 11: floor when upsampling,
 *            ceil when downsampling, as onnxruntime);
 *   linear   kernel max(0, 1 - |u|), cubic the Keys kernel with a =
 *            cubic_coeff_a, at u = (start + t - ratio) * s, where s = 1, or
 *            min(scale, 1) with antialias, which widens the kernel to
 *            n = 2 - 2 * start taps (start = floor(-1/s) + 1 for linear,
 *            floor(-2/s) + 1 for cubic); with antialias or exclude_outside
 *            the weights are divided by their sum (taps outside the input
 *            count as 0 with exclude_outside).
 * tf_crop_and_resize reads the ROI at run time (it decides no shape) and
 * gives extrapolation_value where any axis maps outside [0, in - 1].
 * Integer outputs are rounded (ties to even) and saturated, like the
 * reference's saturate_cast. Scales/sizes decide the output shape and must
 * be constant.
 *
 * A nearest axis whose source index, evaluated at compile time for every
 * output index, is y / k or a + k*y (integer up/downscale, identity) uses
 * that form in the generated code instead of the coordinate arithmetic.
 *
 * Typed attributes (Node.at.resize; the graph dump prints them as rs_*):
 *   "rs_mode"     0 nearest, 1 linear, 2 cubic
 *   "rs_ctm"      0 half_pixel, 1 pytorch_half_pixel, 2 align_corners,
 *                 3 asymmetric, 4 tf_crop_and_resize, 5 half_pixel_symmetric,
 *                 6 tf_half_pixel_for_nn (version 11 only)
 *   "rs_nearest"  0 round_prefer_floor, 1 round_prefer_ceil, 2 floor, 3 ceil,
 *                 4 simple (versions < 11)
 *   "rs_scale"    per dimension, the float64 scale's IEEE bits
 *   "rs_axis"     per dimension: 1 when the axis is interpolated
 *   "rs_roi"      per dimension: position of the axis in the ROI's first
 *                 half (-1: ROI 0..1); "rs_roi_n" the half's length
 *   "rs_aa", "rs_excl", "rs_a" (cubic a), "rs_extrap" */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ir/loop_interp.h"
#include "ops/compute.h"
#include "ops/op_util.h"
#include "ops/ops.h"

static int64_t dbits(double v)
{
    int64_t b;
    memcpy(&b, &v, sizeof b);
    return b;
}

static double bitsd(int64_t b)
{
    double v;
    memcpy(&v, &b, sizeof v);
    return v;
}

static int pick(const char *s, const char *const *names, int n)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(s, names[i]))
            return i;
    return -1;
}

/* Float scales from constant input i (float16/32/64), count in *n. */
static int const_floats(Graph *g, int node, Diag *d, int i, double *out, int *n)
{
    Value *v = opu_in(g, node, i);
    if (!v->data)
        return opu_need_const(g, node, d, i, "scales");
    if (!dtype_is_float(v->dtype))
        return diag_error(d, g, node, "scales must be a float tensor, got %s", dtype_name(v->dtype));
    int64_t cnt = 0;
    shape_numel(&v->shape, &cnt);
    if (cnt > CTVM_MAX_RANK)
        return diag_error(d, g, node, "scales has %lld entries, more than the rank", (long long)cnt);
    for (int64_t k = 0; k < cnt; k++)
        out[k] = tensor_get_f64(v->dtype, v->data, k);
    *n = (int)cnt;
    return 0;
}

static int64_t numel_of(const Value *v)
{
    int64_t c = 0;
    if (!v || !shape_numel(&v->shape, &c))
        return 0;
    return c;
}

int op_resize_infer(Graph *g, int node, Diag *d)
{
    Node *n = &g->nodes[node];
    int ver = n->version, up = n->op == OP_UPSAMPLE;
    int min_in = 1, max_in = 1;
    if ((up && ver >= 9) || (!up && ver == 10))
        min_in = max_in = 2;
    else if (!up)
        min_in = ver >= 13 ? 1 : 2, max_in = 4;
    if (opu_check_arity(g, node, d, min_in, max_in, 1, 1))
        return -1;
    Value *x = opu_in(g, node, 0);
    DType t = x->dtype;
    if (!(dtype_is_float(t) && dtype_size(t) >= 2) && !(dtype_is_int(t) && !dtype_is_packed(t)) && t != DT_BOOL)
        return diag_error(d, g, node, "input type %s is not supported", dtype_name(t));
    int r = x->shape.rank;
    if (r < 1)
        return diag_error(d, g, node, "the input must have rank >= 1");
    /* mode */
    static const char *const modes[] = {"nearest", "linear", "cubic"};
    const char *ms = attr_string(n, "mode", "nearest");
    int mode = pick(ms, modes, 3);
    if (up && !strcmp(ms, "bilinear"))
        mode = 1;
    if (mode < 0 || (mode == 2 && (up || ver < 11)))
        return diag_error(d, g, node, "unsupported mode '%s'", ms);
    /* coordinate transformation and nearest rounding */
    int ctm = 3, nearest = 4;
    if (!up && ver >= 11) {
        static const char *const ctms[] = {"half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric",
                                           "tf_crop_and_resize", "half_pixel_symmetric", "tf_half_pixel_for_nn"};
        const char *cs = attr_string(n, "coordinate_transformation_mode", "half_pixel");
        ctm = pick(cs, ctms, 7);
        if (ctm < 0 || (ctm == 5 && ver < 19) || (ctm == 6 && ver >= 13))
            return diag_error(d, g, node, "unsupported coordinate_transformation_mode '%s'", cs);
        static const char *const nms[] = {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"};
        const char *ns = attr_string(n, "nearest_mode", "round_prefer_floor");
        nearest = pick(ns, nms, 4);
        if (nearest < 0)
            return diag_error(d, g, node, "unsupported nearest_mode '%s'", ns);
    }
    int aa = !up && ver >= 18 ? (int)attr_int(n, "antialias", 0) : 0;
    if (aa && mode == 0)
        aa = 0; /* antialias has no effect on nearest */
    /* axes */
    int axes[CTVM_MAX_RANK], naxes = r;
    for (int i = 0; i < r; i++)
        axes[i] = i;
    if (!up && ver >= 18) {
        int na = 0;
        const int64_t *a = attr_ints(n, "axes", &na);
        if (a) {
            if (na < 1 || na > r)
                return diag_error(d, g, node, "axes has %d entries for rank %d", na, r);
            int seen[CTVM_MAX_RANK] = {0};
            for (int i = 0; i < na; i++) {
                int ax;
                if (opu_norm_axis(g, node, d, a[i], r, "axes", &ax))
                    return -1;
                if (seen[ax]++)
                    return diag_error(d, g, node, "axes repeats axis %d", ax);
                axes[i] = ax;
            }
            naxes = na;
        }
    }
    double scale[CTVM_MAX_RANK];
    int64_t out[CTVM_MAX_RANK];
    for (int i = 0; i < r; i++)
        scale[i] = 1.0, out[i] = x->shape.dims[i];
    Value *sizes = !up && ver >= 11 ? opu_in(g, node, 3) : NULL;
    if (sizes && numel_of(sizes) == 0)
        sizes = NULL;
    if (sizes) {
        Value *sv = opu_in(g, node, 2);
        if (sv && numel_of(sv) != 0)
            return diag_error(d, g, node, "only one of scales and sizes may be given");
        int64_t sz[CTVM_MAX_RANK];
        int cnt;
        if (!sizes->data)
            return opu_need_const(g, node, d, 3, "sizes");
        if (opu_const_ints(g, node, d, 3, sz, CTVM_MAX_RANK, &cnt))
            return -1;
        if (cnt != naxes)
            return diag_error(d, g, node, "sizes has %d entries, expected %d", cnt, naxes);
        for (int i = 0; i < naxes; i++) {
            if (sz[i] < 0)
                return diag_error(d, g, node, "sizes must not be negative");
            int a = axes[i];
            out[a] = sz[i];
            scale[a] = x->shape.dims[a] ? (double)sz[i] / (double)x->shape.dims[a] : 1.0;
        }
        const char *kp = ver >= 18 ? attr_string(n, "keep_aspect_ratio_policy", "stretch") : "stretch";
        if (strcmp(kp, "stretch")) {
            int larger = !strcmp(kp, "not_smaller");
            if (!larger && strcmp(kp, "not_larger"))
                return diag_error(d, g, node, "unsupported keep_aspect_ratio_policy '%s'", kp);
            double s = scale[axes[0]];
            for (int i = 1; i < naxes; i++)
                s = larger ? fmax(s, scale[axes[i]]) : fmin(s, scale[axes[i]]);
            for (int i = 0; i < naxes; i++) {
                int a = axes[i];
                scale[a] = s;
                out[a] = (int64_t)(s * (double)x->shape.dims[a] + 0.5);
            }
        }
    } else {
        double sc[CTVM_MAX_RANK];
        int cnt = 0;
        if (up && ver == 1) {
            if (r != 4)
                return diag_error(d, g, node, "Upsample-1 needs a 4-D input");
            sc[0] = sc[1] = 1.0;
            sc[2] = attr_float(n, "height_scale", 1.0f);
            sc[3] = attr_float(n, "width_scale", 1.0f);
            cnt = 4;
        } else if (up && ver == 7) {
            const Attr *at = node_attr(n, "scales");
            if (!at || at->kind != ATTR_FLOATS)
                return diag_error(d, g, node, "the scales attribute is required");
            cnt = at->n;
            if (cnt > CTVM_MAX_RANK)
                return diag_error(d, g, node, "scales has too many entries");
            for (int i = 0; i < cnt; i++)
                sc[i] = at->floats[i];
        } else {
            int si = up || ver == 10 ? 1 : 2;
            if (!opu_in(g, node, si))
                return diag_error(d, g, node, "one of scales and sizes is required");
            if (const_floats(g, node, d, si, sc, &cnt))
                return -1;
        }
        if (cnt != naxes)
            return diag_error(d, g, node, "scales has %d entries, expected %d", cnt, naxes);
        for (int i = 0; i < naxes; i++) {
            int a = axes[i];
            if (!(sc[i] > 0) || !isfinite(sc[i]))
                return diag_error(d, g, node, "scales must be positive and finite");
            double o = floor(sc[i] * (double)x->shape.dims[a]);
            if (o > 2147483647.0)
                return diag_error(d, g, node, "output dimension %d is too large", a);
            scale[a] = sc[i];
            out[a] = (int64_t)o;
        }
    }
    /* ROI positions (tf_crop_and_resize) */
    int64_t roi_pos[CTVM_MAX_RANK], rsz[CTVM_MAX_RANK], sbits[CTVM_MAX_RANK];
    int roi_n = 0;
    Value *roi = !up && ver >= 11 ? opu_in(g, node, 1) : NULL;
    for (int i = 0; i < r; i++)
        roi_pos[i] = -1;
    if (ctm == 4 && roi && numel_of(roi) > 0) {
        if (!dtype_is_float(roi->dtype))
            return diag_error(d, g, node, "roi must be a float tensor");
        roi_n = naxes;
        if (numel_of(roi) != 2 * naxes)
            return diag_error(d, g, node, "roi has %lld entries, expected %d", (long long)numel_of(roi), 2 * naxes);
        for (int i = 0; i < naxes; i++)
            roi_pos[axes[i]] = i;
    }
    for (int i = 0; i < r; i++) {
        int in_axes = 0;
        for (int k = 0; k < naxes; k++)
            in_axes |= axes[k] == i;
        int ident = fabs(scale[i] - 1.0) <= 1e-9 && out[i] == x->shape.dims[i];
        rsz[i] = in_axes && x->shape.dims[i] > 0 && out[i] > 0 && (!ident || ctm == 4);
        if (ctm == 4 && ident && roi_pos[i] < 0)
            rsz[i] = 0;
        sbits[i] = dbits(scale[i]);
    }
    ResizeAttrs *ra = &g->nodes[node].at.resize;
    ra->mode = mode;
    ra->ctm = ctm;
    ra->nearest = nearest;
    for (int i = 0; i < r; i++)
        ra->scale_bits[i] = sbits[i], ra->resized[i] = rsz[i], ra->roi_pos[i] = roi_pos[i];
    ra->roi_n = roi_n;
    ra->antialias = aa;
    ra->exclude_outside = !up && ver >= 11 ? attr_int(n, "exclude_outside", 0) != 0 : 0;
    ra->cubic_a = !up && ver >= 11 ? attr_float(n, "cubic_coeff_a", -0.75f) : -0.75f;
    ra->extrapolation = !up && ver >= 11 ? attr_float(n, "extrapolation_value", 0.0f) : 0.0f;
    opu_set_out(g, node, 0, t, shape_make(r, out));
    return 0;
}

/* float64 helpers */
static Expr *cf(LoopBuilder *lb, double v)
{
    return lx_const_f(lb, LT_F64, v);
}

static Expr *kernel(LoopBuilder *lb, int mode, double A, Expr *u)
{
    Expr *a = lx_call(lb, CO_ABS, u);
    if (mode == 1)
        return lx_bin(lb, BO_MAX, lx_sub(lb, cf(lb, 1.0), a), cf(lb, 0.0));
    /* ((A+2)a - (A+3)) a a + 1 for a <= 1; ((A a - 5A) a + 8A) a - 4A for a < 2 */
    Expr *near = lx_add(lb, lx_mul(lb, lx_mul(lb, lx_sub(lb, lx_mul(lb, cf(lb, A + 2), a), cf(lb, A + 3)), a), a),
                        cf(lb, 1.0));
    Expr *far = lx_sub(lb,
                       lx_mul(lb, lx_add(lb, lx_mul(lb, lx_sub(lb, lx_mul(lb, cf(lb, A), a), cf(lb, 5 * A)), a),
                                         cf(lb, 8 * A)),
                              a),
                       cf(lb, 4 * A));
    return lx_select(lb, lx_bin(lb, BO_LE, a, cf(lb, 1.0)), near,
                     lx_select(lb, lx_bin(lb, BO_LT, a, cf(lb, 2.0)), far, cf(lb, 0.0)));
}

static Expr *clampd(LoopBuilder *lb, Expr *v, int64_t hi)
{
    return lx_bin(lb, BO_MIN, lx_bin(lb, BO_MAX, v, cf(lb, 0.0)), cf(lb, (double)hi));
}

static void *tab_mem(void *user, const LBuf *b)
{
    (void)b;
    return user;
}

/* The nearest source index ie of output index ya (one axis, no run-time
 * input in it), evaluated at compile time for every ya < outi: when it is
 * ya / k (an integer upscale) or a + ya * k (identity, integer downscale)
 * that simpler form, else ie. The per-element double-precision coordinate
 * arithmetic then leaves the generated loop. */
static Expr *nearest_simple(LoopBuilder *lb, LVar *ya, Expr *ie, int64_t outi)
{
    if (outi < 2 || outi > (1 << 24))
        return ie;
    int64_t *tab = malloc((size_t)outi * sizeof *tab);
    if (!tab)
        return ie;
    LBuf *tb = lbuf_new_typed(lb, "rs_tab", LB_ARENA, DT_INT64, outi);
    LVar *v = lv_new(lb, "y");
    Stmt *st = ls_for(lb, v, outi, LOOP_SERIAL, ls_store(lb, tb, lx_var(lb, v), lx_subst(lb, ie, ya, lx_var(lb, v))));
    char err[128];
    Expr *r = ie;
    if (loop_interp_run(st, tab_mem, tab, err, sizeof err) == 0) {
        int64_t k = tab[1] - tab[0], up = 0;
        while (up < outi && tab[up] == 0)
            up++; /* the first index of source 1: the upscale factor */
        int affine = 1, divided = up > 1;
        for (int64_t y = 0; y < outi && (affine || divided); y++) {
            affine = affine && tab[y] == tab[0] + y * k;
            divided = divided && tab[y] == y / up;
        }
        if (affine)
            r = lx_add(lb, lx_muli(lb, lx_var(lb, ya), k), lx_int(lb, tab[0]));
        else if (divided)
            r = lx_div(lb, lx_var(lb, ya), lx_int(lb, up));
    }
    free(tab);
    return r;
}

int compute_resize(ComputeCtx *cx, int node, ComputeDef *def)
{
    LoopBuilder *lb = cx->lb;
    const Node *n = &cx->g->nodes[node];
    const Value *x = &cx->g->values[n->in[0]], *y = &cx->g->values[n->out[0]];
    const ResizeAttrs *ra = &n->at.resize;
    int r = x->shape.rank, mode = ra->mode, ctm = ra->ctm;
    int nearest = ra->nearest, aa = ra->antialias;
    int excl = ra->exclude_outside, roi_n = ra->roi_n;
    double A = ra->cubic_a, extrap = ra->extrapolation;
    const int64_t *sbits = ra->scale_bits, *rsz = ra->resized, *roi_pos = ra->roi_pos;
    LBuf *xb = cx->buf_of(cx, n->in[0]);
    LBuf *roib = roi_n > 0 ? cx->buf_of(cx, n->in[1]) : NULL;
    DType dt = x->dtype;
    int isf = dtype_is_float(dt);
    LType ct = isf ? lt_of_dtype(dt) : LT_F64; /* type of the weighted sum */
    ComputeStage *s = compute_stage_new(cx, def, n->name, cx->buf_of(cx, n->out[0]), &y->shape);
    s->out_is_node_output = 1;
    Expr *idx[CTVM_MAX_RANK], *outside = NULL, *weight = NULL;
    for (int a = 0; a < r; a++) {
        Expr *ya = lx_var(lb, s->axis[a]);
        if (!rsz[a]) {
            idx[a] = ya;
            continue;
        }
        int64_t in = x->shape.dims[a], outi = y->shape.dims[a];
        double sc = bitsd(sbits[a]), outf = sc * (double)in;
        Expr *yf = lx_cast(lb, LT_F64, ya), *xo;
        Expr *hp = lx_sub(lb, lx_div(lb, lx_add(lb, yf, cf(lb, 0.5)), cf(lb, sc)), cf(lb, 0.5));
        switch (ctm) {
        case 0: xo = hp; break;
        case 1: xo = outf == 1.0 ? cf(lb, -0.5) : hp; break;
        case 2: xo = outf == 1.0 ? cf(lb, 0.0) : lx_div(lb, lx_mul(lb, yf, cf(lb, (double)(in - 1))), cf(lb, outf - 1.0)); break;
        case 3: xo = lx_div(lb, yf, cf(lb, sc)); break;
        case 5: {
            double adj = (double)outi / outf, off = ((double)in / 2.0) * (1.0 - adj);
            xo = lx_add(lb, cf(lb, off), lx_div(lb, lx_add(lb, yf, cf(lb, 0.5)), cf(lb, sc)));
            xo = lx_sub(lb, xo, cf(lb, 0.5));
            break;
        }
        case 6: xo = lx_div(lb, lx_add(lb, yf, cf(lb, 0.5)), cf(lb, sc)); break;
        default: { /* tf_crop_and_resize */
            Expr *r0 = cf(lb, 0.0), *r1 = cf(lb, 1.0);
            if (roib && roi_pos[a] >= 0) {
                r0 = lx_cast(lb, LT_F64, lx_load(lb, roib, lx_int(lb, roi_pos[a])));
                r1 = lx_cast(lb, LT_F64, lx_load(lb, roib, lx_int(lb, roi_pos[a] + roi_n)));
            }
            Expr *span = lx_sub(lb, r1, r0);
            if (outf == 1.0)
                xo = lx_div(lb, lx_mul(lb, span, cf(lb, (double)(in - 1))), cf(lb, 2.0));
            else
                xo = lx_div(lb, lx_mul(lb, lx_mul(lb, yf, span), cf(lb, (double)(in - 1))), cf(lb, outf - 1.0));
            xo = lx_add(lb, xo, lx_mul(lb, r0, cf(lb, (double)(in - 1))));
            Expr *o = lx_bin(lb, BO_OR, lx_bin(lb, BO_LT, xo, cf(lb, 0.0)), lx_bin(lb, BO_GT, xo, cf(lb, (double)(in - 1))));
            outside = outside ? lx_bin(lb, BO_OR, outside, o) : o;
            break;
        }
        }
        Expr *fl = lx_call(lb, CO_FLOOR, xo);
        Expr *isint = lx_bin(lb, BO_EQ, xo, fl);
        Expr *ratio = lx_select(lb, isint, cf(lb, 1.0), lx_sub(lb, xo, fl));
        Expr *base = lx_sub(lb, xo, ratio);
        if (mode == 0) {
            Expr *up;
            switch (nearest) {
            case 0: up = lx_bin(lb, BO_GT, ratio, cf(lb, 0.5)); break;
            case 1: up = lx_bin(lb, BO_GE, ratio, cf(lb, 0.5)); break;
            case 2: up = lx_const_i(lb, LT_BOOL, 0); break;
            case 3: up = lx_const_i(lb, LT_BOOL, 1); break;
            default: up = lx_const_i(lb, LT_BOOL, sc < 1.0); break;
            }
            up = lx_bin(lb, BO_OR, isint, up);
            Expr *xi = lx_add(lb, base, lx_select(lb, up, cf(lb, 1.0), cf(lb, 0.0)));
            idx[a] = lx_cast(lb, LT_IDX, clampd(lb, xi, in - 1));
            if (ctm != 4)
                idx[a] = nearest_simple(lb, s->axis[a], idx[a], y->shape.dims[a]);
            continue;
        }
        double se = aa ? fmin(sc, 1.0) : 1.0;
        int64_t start = (int64_t)floor((mode == 1 ? -1.0 : -2.0) / se) + 1, taps = 2 - 2 * start;
        if (taps < 2 || taps > 4096)
            return compute_fail(cx, node, "the interpolation kernel is too wide");
        LVar *tv = compute_add_raxis(cx, s, "tap", taps);
        /* weight of tap t: kernel((start + t - ratio) * se) */
#define TAPPOS(te) lx_add(lb, lx_cast(lb, LT_F64, (te)), cf(lb, (double)start))
#define WEIGHT(te) kernel(lb, mode, A, lx_mul(lb, lx_sub(lb, TAPPOS(te), ratio), cf(lb, se)))
#define INSIDE(te)                                                                                    \
    lx_bin(lb, BO_AND, lx_bin(lb, BO_GE, lx_add(lb, base, TAPPOS(te)), cf(lb, 0.0)),                 \
           lx_bin(lb, BO_LE, lx_add(lb, base, TAPPOS(te)), cf(lb, (double)(in - 1))))
        Expr *te = lx_var(lb, tv);
        Expr *w = WEIGHT(te);
        if (excl)
            w = lx_select(lb, INSIDE(te), w, cf(lb, 0.0));
        if (aa || excl) {
            Expr *sum = NULL;
            for (int64_t k = 0; k < taps; k++) {
                Expr *kk = lx_int(lb, k), *wk = WEIGHT(kk);
                if (excl)
                    wk = lx_select(lb, INSIDE(kk), wk, cf(lb, 0.0));
                sum = sum ? lx_add(lb, sum, wk) : wk;
            }
            sum = lx_select(lb, lx_bin(lb, BO_EQ, sum, cf(lb, 0.0)), cf(lb, 1.0), sum);
            w = lx_div(lb, w, sum);
        }
#undef INSIDE
#undef WEIGHT
        idx[a] = lx_cast(lb, LT_IDX, clampd(lb, lx_add(lb, base, TAPPOS(te)), in - 1));
#undef TAPPOS
        w = lx_cast(lb, ct, w);
        weight = weight ? lx_mul(lb, weight, w) : w;
    }
    Expr *v = lx_load(lb, xb, compute_flat_index(cx, &x->shape, idx));
    if (weight) {
        s->red = RED_SUM;
        s->body = lx_mul(lb, lx_cast(lb, ct, v), weight);
        s->acc = lv_new_typed(lb, "acc", ct);
    } else {
        s->body = v;
        s->acc = lv_new_typed(lb, "acc", v->type);
    }
    Expr *res = lx_var(lb, s->acc);
    if (!isf && weight) { /* saturate_cast: round, clip */
        double lo = 0, hi = 1;
        if (dt != DT_BOOL) {
            LType it = lt_of_dtype(dt);
            lo = lt_is_signed_int(it) ? -ldexp(1.0, lt_bits(it) - 1) : 0.0;
            hi = lt_is_signed_int(it) ? ldexp(1.0, lt_bits(it) - 1) - 1 : ldexp(1.0, lt_bits(it)) - 1;
        }
        res = lx_bin(lb, BO_MIN, lx_bin(lb, BO_MAX, lx_call(lb, CO_ROUND, res), cf(lb, lo)), cf(lb, hi));
        res = lx_cast(lb, lt_of_dtype(dt), res);
    }
    if (outside) {
        LType rt = res->type;
        res = lx_select(lb, outside, lx_const_f(lb, rt, extrap), res);
    }
    s->finalize = res;
    return 0;
}

DEFINE_EVAL_BY_COMPUTE(resize)
