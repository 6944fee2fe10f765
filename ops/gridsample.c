/* gridsample.c - GridSample (16, 20, 22): samples X [N, C, D1..Dk] at the
 * normalised positions of grid [N, O1..Om, k] (m = k; version 16 is the
 * 2-D case of the same rule), giving Y [N, C, O1..Om]. The last grid axis
 * lists the coordinates in reverse axis order (x = width first). As the
 * ONNX reference does it, per spatial axis i of extent d:
 *   x = align_corners ? (g + 1) / 2 * (d - 1) : ((g + 1) * d - 1) / 2
 * computed in the grid's type and kept as float32; nearest rounds it (ties
 * to even) first. Outside [lo, hi] (lo = 0, hi = d - 1 with align_corners,
 * else -0.5, d - 0.5) "border" clamps x to [0, d - 1] and "reflection"
 * reflects it at lo and hi. The value is then
 *   nearest  X at trunc(x);
 *   linear   the sum over the 2^k corners floor(x) + {0, 1} of the product
 *            of the weights 1 - |t - frac|;
 *   cubic    the sum over the 4^k taps floor(x) - 1 + {0..3} of the Keys
 *            kernel (a = -0.75) weights,
 * where a tap index outside [0, d) reads 0 ("zeros"), the clamped index
 * ("border") or the reflected index ("reflection"). Floats accumulate in
 * their compute type; integer and bool data in float64, rounded (ties to
 * even) and saturated into the output type.
 *
 * Normalised attributes (after infer):
 *   "gs_mode"  0 nearest, 1 linear (also "bilinear"), 2 cubic (also "bicubic")
 *   "gs_pad"   0 zeros, 1 border, 2 reflection
 *   "gs_align" align_corners (0 or 1) */
#include <math.h>
#include <string.h>

#include "ops/compute.h"
#include "ops/op_util.h"
#include "ops/ops.h"

int op_gridsample_infer(Graph *g, int node, Diag *d)
{
    Node *n = &g->nodes[node];
    if (opu_check_arity(g, node, d, 2, 2, 1, 1))
        return -1;
    Value *x = opu_in(g, node, 0), *gr = opu_in(g, node, 1);
    DType t = x->dtype, gt = gr->dtype;
    int ver = n->version;
    int xok = (dtype_is_float(t) && dtype_size(t) >= 2 && t != DT_BFLOAT16) || (t == DT_BFLOAT16 && ver >= 22) ||
              (dtype_is_int(t) && !dtype_is_packed(t)) || t == DT_BOOL;
    if (!xok)
        return diag_error(d, g, node, "input type %s not supported by GridSample-%d", dtype_name(t), ver);
    if (!(gt == DT_FLOAT32 || gt == DT_FLOAT64 || gt == DT_FLOAT16 || (gt == DT_BFLOAT16 && ver >= 22)))
        return diag_error(d, g, node, "grid type %s not supported by GridSample-%d", dtype_name(gt), ver);
    int r = x->shape.rank, k = r - 2;
    if (r < 3)
        return diag_error(d, g, node, "the input must have rank >= 3 (N, C, spatial...), got %s",
                          opu_shape_str(&x->shape));
    if (gr->shape.rank != r || gr->shape.dims[0] != x->shape.dims[0] || gr->shape.dims[r - 1] != k)
        return diag_error(d, g, node, "grid must have shape [N, spatial..., %d] with N = %lld, got %s", k,
                          (long long)x->shape.dims[0], opu_shape_str(&gr->shape));
    const char *ms = attr_string(n, "mode", ver >= 20 ? "linear" : "bilinear");
    int mode;
    if (!strcmp(ms, "nearest"))
        mode = 0;
    else if (!strcmp(ms, "linear") || !strcmp(ms, "bilinear"))
        mode = 1;
    else if (!strcmp(ms, "cubic") || !strcmp(ms, "bicubic"))
        mode = 2;
    else
        return diag_error(d, g, node, "unsupported mode '%s'", ms);
    const char *ps = attr_string(n, "padding_mode", "zeros");
    int pad;
    if (!strcmp(ps, "zeros"))
        pad = 0;
    else if (!strcmp(ps, "border"))
        pad = 1;
    else if (!strcmp(ps, "reflection"))
        pad = 2;
    else
        return diag_error(d, g, node, "unsupported padding_mode '%s'", ps);
    int taps = mode == 2 ? 4 : 2;
    if (mode && k > 8)
        return diag_error(d, g, node, "%d spatial axes are too many for %d^%d interpolation taps", k, taps, k);
    for (int i = 0; i < k; i++)
        if (x->shape.dims[2 + i] > INT32_MAX / 2)
            return diag_error(d, g, node, "spatial axis %d is too large", i);
    int64_t dims[CTVM_MAX_RANK], total;
    dims[0] = x->shape.dims[0];
    dims[1] = x->shape.dims[1];
    for (int i = 0; i < k; i++)
        dims[2 + i] = gr->shape.dims[1 + i];
    Shape out = shape_make(r, dims);
    if (opu_numel(g, node, d, &out, &total))
        return -1;
    n->at.gridsample.mode = mode;
    n->at.gridsample.padding = pad;
    n->at.gridsample.align_corners = attr_int(n, "align_corners", 0) != 0;
    opu_set_out(g, node, 0, t, out);
    return 0;
}

static Expr *cst(LoopBuilder *lb, LType t, double v)
{
    return lx_const_f(lb, t, v);
}

/* Reflects v (float64) at lo and hi as the reference's _gs_reflect does:
 * dx beyond the nearer border, n = trunc(dx / range), r = dx - n * range,
 * back from that border for even n, from the other one for odd n. */
static Expr *reflect(LoopBuilder *lb, Expr *v, double lo, double hi)
{
    double rng = hi - lo;
    if (!(rng > 0))
        return lx_select(lb, lx_bin(lb, BO_LT, v, cst(lb, LT_F64, lo)), cst(lb, LT_F64, lo),
                         lx_select(lb, lx_bin(lb, BO_GT, v, cst(lb, LT_F64, hi)), cst(lb, LT_F64, hi), v));
    Expr *dlo = lx_sub(lb, cst(lb, LT_F64, lo), v), *dhi = lx_sub(lb, v, cst(lb, LT_F64, hi));
    Expr *nlo = lx_call(lb, CO_FLOOR, lx_div(lb, dlo, cst(lb, LT_F64, rng)));
    Expr *nhi = lx_call(lb, CO_FLOOR, lx_div(lb, dhi, cst(lb, LT_F64, rng)));
    Expr *rlo = lx_sub(lb, dlo, lx_mul(lb, nlo, cst(lb, LT_F64, rng)));
    Expr *rhi = lx_sub(lb, dhi, lx_mul(lb, nhi, cst(lb, LT_F64, rng)));
    Expr *elo = lx_bin(lb, BO_EQ, lx_bin(lb, BO_MOD, nlo, cst(lb, LT_F64, 2.0)), cst(lb, LT_F64, 0.0));
    Expr *ehi = lx_bin(lb, BO_EQ, lx_bin(lb, BO_MOD, nhi, cst(lb, LT_F64, 2.0)), cst(lb, LT_F64, 0.0));
    Expr *below = lx_select(lb, elo, lx_add(lb, cst(lb, LT_F64, lo), rlo), lx_sub(lb, cst(lb, LT_F64, hi), rlo));
    Expr *above = lx_select(lb, ehi, lx_sub(lb, cst(lb, LT_F64, hi), rhi), lx_add(lb, cst(lb, LT_F64, lo), rhi));
    return lx_select(lb, lx_bin(lb, BO_LT, v, cst(lb, LT_F64, lo)), below,
                     lx_select(lb, lx_bin(lb, BO_GT, v, cst(lb, LT_F64, hi)), above, v));
}

/* Keys cubic kernel (a = -0.75) at distance u >= 0 (u < 2). */
static Expr *cubic(LoopBuilder *lb, LType t, Expr *u)
{
    const double A = -0.75;
    Expr *nr = lx_add(lb, lx_mul(lb, lx_mul(lb, lx_sub(lb, lx_mul(lb, cst(lb, t, A + 2), u), cst(lb, t, A + 3)), u), u),
                      cst(lb, t, 1.0));
    Expr *fr = lx_sub(
        lb, lx_mul(lb, lx_add(lb, lx_mul(lb, lx_sub(lb, lx_mul(lb, cst(lb, t, A), u), cst(lb, t, 5 * A)), u), cst(lb, t, 8 * A)), u),
        cst(lb, t, 4 * A));
    return lx_select(lb, lx_bin(lb, BO_LE, u, cst(lb, t, 1.0)), nr, fr);
}

int compute_gridsample(ComputeCtx *cx, int node, ComputeDef *def)
{
    LoopBuilder *lb = cx->lb;
    const Node *n = &cx->g->nodes[node];
    const Value *x = &cx->g->values[n->in[0]], *gr = &cx->g->values[n->in[1]], *y = &cx->g->values[n->out[0]];
    int r = x->shape.rank, k = r - 2;
    int mode = n->at.gridsample.mode, pad = n->at.gridsample.padding;
    int align = n->at.gridsample.align_corners;
    DType dt = x->dtype;
    int isf = dtype_is_float(dt);
    LType ct = isf ? lt_of_dtype(dt) : LT_F64; /* type of the weighted sum */
    LType gt = lt_of_dtype(gr->dtype);
    LBuf *xb = cx->buf_of(cx, n->in[0]), *gb = cx->buf_of(cx, n->in[1]);
    ComputeStage *s = compute_stage_new(cx, def, n->name, cx->buf_of(cx, n->out[0]), &y->shape);
    s->out_is_node_output = 1;
    Expr *idx[CTVM_MAX_RANK], *valid = NULL, *weight = NULL;
    idx[0] = lx_var(lb, s->axis[0]);
    idx[1] = lx_var(lb, s->axis[1]);
    for (int i = 0; i < k; i++) {
        int64_t dim = x->shape.dims[2 + i];
        double lo = align ? 0.0 : -0.5, hi = align ? (double)dim - 1.0 : (double)dim - 0.5;
        /* the normalised coordinate grid[n, o..., k-1-i] */
        Expr *gi[CTVM_MAX_RANK];
        gi[0] = lx_var(lb, s->axis[0]);
        for (int j = 0; j < k; j++)
            gi[1 + j] = lx_var(lb, s->axis[2 + j]);
        gi[k + 1] = lx_int(lb, k - 1 - i);
        Expr *gv = lx_load(lb, gb, compute_flat_index(cx, &gr->shape, gi));
        Expr *p1 = lx_add(lb, gv, cst(lb, gt, 1.0));
        Expr *xv = align ? lx_mul(lb, lx_div(lb, p1, cst(lb, gt, 2.0)), cst(lb, gt, (double)(dim - 1)))
                         : lx_div(lb, lx_sub(lb, lx_mul(lb, p1, cst(lb, gt, (double)dim)), cst(lb, gt, 1.0)),
                                  cst(lb, gt, 2.0));
        xv = lx_cast(lb, LT_F32, xv);
        if (mode == 0)
            xv = lx_call(lb, CO_ROUND, xv);
        if (pad) {
            Expr *out = lx_bin(lb, BO_OR, lx_bin(lb, BO_LT, xv, cst(lb, LT_F32, lo)),
                               lx_bin(lb, BO_GT, xv, cst(lb, LT_F32, hi)));
            Expr *adj = pad == 1 ? lx_bin(lb, BO_MIN, lx_bin(lb, BO_MAX, xv, cst(lb, LT_F32, 0.0)),
                                          cst(lb, LT_F32, (double)(dim - 1)))
                                 : lx_cast(lb, LT_F32, reflect(lb, lx_cast(lb, LT_F64, xv), lo, hi));
            xv = lx_select(lb, out, adj, xv);
        }
        /* Keep the value castable to an index: far outside (or NaN) every
         * tap is outside anyway, so any far point gives the same taps. */
        Expr *near = lx_bin(lb, BO_AND, lx_bin(lb, BO_GE, xv, cst(lb, LT_F32, -8.0)),
                            lx_bin(lb, BO_LE, xv, cst(lb, LT_F32, (double)dim + 8.0)));
        xv = lx_select(lb, near, xv, cst(lb, LT_F32, -8.0));
        Expr *tap; /* integer tap index along the axis (LT_IDX) */
        if (mode == 0) {
            tap = lx_cast(lb, LT_IDX, xv); /* truncation, as astype(int32) */
        } else {
            Expr *fl = lx_call(lb, CO_FLOOR, xv);
            Expr *frac = lx_cast(lb, ct, lx_sub(lb, xv, fl));
            LVar *tv = compute_add_raxis(cx, s, "tap", mode == 2 ? 4 : 2);
            Expr *te = lx_var(lb, tv);
            Expr *w;
            if (mode == 1) {
                w = lx_sub(lb, cst(lb, ct, 1.0), lx_call(lb, CO_ABS, lx_sub(lb, lx_cast(lb, ct, te), frac)));
            } else {
                Expr *u = lx_call(lb, CO_ABS, lx_sub(lb, lx_sub(lb, lx_cast(lb, ct, te), cst(lb, ct, 1.0)), frac));
                w = cubic(lb, ct, u);
            }
            weight = weight ? lx_mul(lb, weight, w) : w;
            tap = lx_add(lb, lx_cast(lb, LT_IDX, fl), te);
            if (mode == 2)
                tap = lx_sub(lb, tap, lx_int(lb, 1));
        }
        Expr *ok = lx_bin(lb, BO_AND, lx_bin(lb, BO_GE, tap, lx_int(lb, 0)), lx_bin(lb, BO_LT, tap, lx_int(lb, dim)));
        Expr *ti = tap;
        if (pad == 0) {
            valid = valid ? lx_bin(lb, BO_AND, valid, ok) : ok;
        } else if (pad == 2) {
            ti = lx_cast(lb, LT_IDX, reflect(lb, lx_cast(lb, LT_F64, tap), lo, hi)); /* int(), truncation */
        }
        /* clamp (border, and a guard for the others) */
        idx[2 + i] = lx_bin(lb, BO_MIN, lx_bin(lb, BO_MAX, ti, lx_int(lb, 0)), lx_int(lb, dim - 1));
    }
    Expr *v = lx_load(lb, xb, compute_flat_index(cx, &x->shape, idx));
    if (weight) {
        v = lx_cast(lb, ct, v);
        if (valid)
            v = lx_select(lb, valid, v, cst(lb, ct, 0.0));
        s->red = RED_SUM;
        s->body = lx_mul(lb, v, weight);
        s->acc = lv_new_typed(lb, "acc", ct);
    } else {
        if (valid)
            v = lx_select(lb, valid, v, lx_zero(lb, v->type));
        s->body = v;
        s->acc = lv_new_typed(lb, "acc", v->type);
    }
    Expr *res = lx_var(lb, s->acc);
    if (!isf && weight) { /* round, saturate */
        double lo = 0, hi = 1;
        if (dt != DT_BOOL) {
            LType it = lt_of_dtype(dt);
            lo = lt_is_signed_int(it) ? -ldexp(1.0, lt_bits(it) - 1) : 0.0;
            hi = lt_is_signed_int(it) ? ldexp(1.0, lt_bits(it) - 1) - 1 : ldexp(1.0, lt_bits(it)) - 1;
            if (lt_bits(it) == 64) /* the largest double below 2^63 / 2^64 */
                hi = nextafter(hi, 0.0);
        }
        res = lx_bin(lb, BO_MIN, lx_bin(lb, BO_MAX, lx_call(lb, CO_ROUND, res), cst(lb, LT_F64, lo)),
                     cst(lb, LT_F64, hi));
        res = lx_cast(lb, lt_of_dtype(dt), res);
    }
    s->finalize = res;
    return 0;
}

DEFINE_EVAL_BY_COMPUTE(gridsample)
