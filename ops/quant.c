/* quant.c - linear quantization: QuantizeLinear (versions 10..28),
 * DequantizeLinear (10..28) and DynamicQuantizeLinear (11).
 *
 * QuantizeLinear: y = saturate(x / y_scale + y_zero_point). The quotient
 * is computed in float32 (float64 when x, the scale or the "precision"
 * attribute is int32, or precision is double, so int32 inputs stay exact);
 * for integer outputs it is rounded half to even, the zero point added and
 * the sum clamped to the type's range (int8/uint8/int16/uint16/int4/uint4/
 * int2/uint2). For float8/float4 outputs the zero point (normally 0) is
 * added and the store rounds to nearest even; it saturates to the largest
 * finite value unless saturate = 0 (float8 only), in which case values out
 * of range become NaN (float8e5m2: infinity, not supported). The output type
 * is the zero point's, else "output_dtype" (21+), else uint8.
 * DequantizeLinear: y = (x - x_zero_point) * x_scale in float32 (float64
 * for int32 x), stored as "output_dtype" (23+) or the scale's type.
 * Granularity (both): per tensor when the scale has one element; per axis
 * when it is 1-D of the length of x's dimension "axis"; blocked (21+,
 * block_size > 0) when it has x's rank and x's shape except ceil(D/B) along
 * "axis". The zero point, when given, has the scale's shape.
 * DynamicQuantizeLinear: uint8 quantization of a float32 tensor with the
 * scale (max(0, max x) - min(0, min x)) / 255 (1/255 when that range is 0)
 * and the zero point round(clamp(-min / scale, 0, 255)), both also outputs.
 *
 * The quotient follows numpy's types as the reference: float16 x by a
 * float16 scale (or precision float16/bfloat16) rounds x, the scale and
 * the quotient to that type (round_narrow); precision int32 truncates x and the scale to
 * int32 and divides in float64.
 *
 * Normalised attributes (Quantize/Dequantize): "axis" >= 0, "qmode" 0 per
 * tensor / 1 per axis / 2 blocked, "block_size", "saturate", "wide" 1 when
 * the arithmetic is float64; QuantizeLinear also "narrow" (the float16 or
 * bfloat16 DType the quotient is rounded to, else 0) and "xint" (1 for
 * precision int32). */
#include <math.h>
#include <string.h>

#include "ops/compute.h"
#include "ops/op_util.h"
#include "ops/ops.h"

/* Range of an integer quantized type; 0 for float types. */
static int q_int_range(DType t, double *lo, double *hi)
{
    switch (t) {
    case DT_INT8: *lo = -128; *hi = 127; return 1;
    case DT_UINT8: *lo = 0; *hi = 255; return 1;
    case DT_INT16: *lo = -32768; *hi = 32767; return 1;
    case DT_UINT16: *lo = 0; *hi = 65535; return 1;
    case DT_INT4: *lo = -8; *hi = 7; return 1;
    case DT_UINT4: *lo = 0; *hi = 15; return 1;
    case DT_INT2: *lo = -2; *hi = 1; return 1;
    case DT_UINT2: *lo = 0; *hi = 3; return 1;
    default: return 0;
    }
}

static int is_float8(DType t)
{
    return t == DT_FLOAT8E4M3FN || t == DT_FLOAT8E4M3FNUZ || t == DT_FLOAT8E5M2 || t == DT_FLOAT8E5M2FNUZ;
}

/* Types a quantized tensor may have (y of QuantizeLinear, x of DequantizeLinear). */
static int q_type_ok(DType t)
{
    double lo, hi;
    return q_int_range(t, &lo, &hi) || is_float8(t) || t == DT_FLOAT4E2M1;
}

static int scale_type_ok(DType t)
{
    return t == DT_FLOAT32 || t == DT_FLOAT16 || t == DT_BFLOAT16 || t == DT_FLOAT8E8M0 || t == DT_INT32;
}

/* Check the scale / zero point against x and normalise axis, qmode, block_size. */
static int infer_granularity(Graph *g, int node, Diag *d, const Value *x, const Value *s, const Value *z)
{
    Node *n = &g->nodes[node];
    int rank = x->shape.rank, axis = 0;
    int64_t block = n->version >= 21 ? attr_int(n, "block_size", 0) : 0, ns = 0;
    if (block < 0)
        return diag_error(d, g, node, "block_size must be >= 0, got %lld", (long long)block);
    if (!shape_numel(&s->shape, &ns))
        return diag_error(d, g, node, "scale shape %s is not static", opu_shape_str(&s->shape));
    int64_t nz = 0;
    int one = ns == 1 && z && shape_numel(&z->shape, &nz) && nz == 1 && z->shape.rank <= 1 && s->shape.rank <= 1;
    if (z && !one && !shape_equal(&z->shape, &s->shape))
        return diag_error(d, g, node, "zero point %s and scale %s must have the same shape",
                          opu_shape_str(&z->shape), opu_shape_str(&s->shape));
    int qmode;
    if (ns == 1 && s->shape.rank <= 1) {
        qmode = 0;
    } else {
        if (opu_norm_axis(g, node, d, n->version >= 13 ? attr_int(n, "axis", 1) : 1, rank, "axis", &axis))
            return -1;
        if (!block) {
            if (s->shape.rank != 1 || s->shape.dims[0] != x->shape.dims[axis])
                return diag_error(d, g, node, "per-axis scale %s must be 1-D of length %lld (axis %d of %s)",
                                  opu_shape_str(&s->shape), (long long)x->shape.dims[axis], axis,
                                  opu_shape_str(&x->shape));
            qmode = 1;
        } else {
            int ok = s->shape.rank == rank;
            for (int i = 0; ok && i < rank; i++)
                ok = s->shape.dims[i] == (i == axis ? (x->shape.dims[i] + block - 1) / block : x->shape.dims[i]);
            if (!ok)
                return diag_error(d, g, node, "blocked scale %s does not fit input %s with block_size %lld on axis %d",
                                  opu_shape_str(&s->shape), opu_shape_str(&x->shape), (long long)block, axis);
            qmode = 2;
        }
    }
    QuantAttrs *qa = &g->nodes[node].at.quant;
    qa->axis = axis;
    qa->qmode = qmode;
    qa->block_size = block;
    if (g->nodes[node].version >= 13)
        node_set_int(g, node, "axis", axis);
    if (g->nodes[node].version >= 21)
        node_set_int(g, node, "block_size", block);
    return 0;
}

static int infer_quantize(Graph *g, int node, Diag *d)
{
    Node *n = &g->nodes[node];
    if (opu_check_arity(g, node, d, 2, 3, 1, 1))
        return -1;
    Value *x = opu_in(g, node, 0), *s = opu_in(g, node, 1), *z = opu_in(g, node, 2);
    if (x->dtype != DT_FLOAT32 && x->dtype != DT_FLOAT16 && x->dtype != DT_BFLOAT16 && x->dtype != DT_INT32)
        return diag_error(d, g, node, "x must be float32/float16/bfloat16/int32, got %s", dtype_name(x->dtype));
    if (!scale_type_ok(s->dtype))
        return diag_error(d, g, node, "scale type %s is not supported", dtype_name(s->dtype));
    int64_t od = n->version >= 21 ? attr_int(n, "output_dtype", 0) : 0;
    DType yt = z ? z->dtype : od ? dtype_from_onnx((int)od) : DT_UINT8;
    if (z && od && dtype_from_onnx((int)od) != z->dtype)
        return diag_error(d, g, node, "output_dtype %lld differs from the zero point's type %s", (long long)od,
                          dtype_name(z->dtype));
    if (!q_type_ok(yt))
        return diag_error(d, g, node, "quantized type %s is not supported", dtype_name(yt));
    int sat = n->version >= 19 ? attr_int(n, "saturate", 1) != 0 : 1;
    if (!sat && yt == DT_FLOAT8E5M2)
        return diag_error(d, g, node, "saturate = 0 to float8e5m2 (overflow to infinity) is not supported");
    int64_t prec = n->version >= 23 ? attr_int(n, "precision", 0) : 0;
    DType pt = prec ? dtype_from_onnx((int)prec) : DT_UNDEFINED;
    if (prec && pt != DT_FLOAT32 && pt != DT_FLOAT16 && pt != DT_BFLOAT16 && pt != DT_FLOAT64 && pt != DT_INT32)
        return diag_error(d, g, node, "precision %lld is not supported", (long long)prec);
    int wide = prec ? (pt == DT_FLOAT64 || pt == DT_INT32) : (x->dtype == DT_INT32 || s->dtype == DT_INT32);
    DType narrow = prec ? (pt == DT_FLOAT16 || pt == DT_BFLOAT16 ? pt : DT_UNDEFINED)
                        : (x->dtype == s->dtype && (x->dtype == DT_FLOAT16 || x->dtype == DT_BFLOAT16) ? x->dtype
                                                                                                        : DT_UNDEFINED);
    if (infer_granularity(g, node, d, x, s, z))
        return -1;
    QuantAttrs *qa = &g->nodes[node].at.quant;
    qa->narrow = narrow;
    qa->int_scale = prec && pt == DT_INT32;
    qa->saturate = sat != 0;
    qa->wide = wide;
    if (n->version >= 19)
        node_set_int(g, node, "saturate", sat);
    opu_set_out(g, node, 0, yt, x->shape);
    return 0;
}

static int infer_dequantize(Graph *g, int node, Diag *d)
{
    Node *n = &g->nodes[node];
    if (opu_check_arity(g, node, d, 2, 3, 1, 1))
        return -1;
    Value *x = opu_in(g, node, 0), *s = opu_in(g, node, 1), *z = opu_in(g, node, 2);
    if (!q_type_ok(x->dtype) && x->dtype != DT_INT32)
        return diag_error(d, g, node, "quantized type %s is not supported", dtype_name(x->dtype));
    if (z && z->dtype != x->dtype)
        return diag_error(d, g, node, "zero point type %s differs from x's %s", dtype_name(z->dtype),
                          dtype_name(x->dtype));
    if (s->dtype != DT_FLOAT32 && s->dtype != DT_FLOAT16 && s->dtype != DT_BFLOAT16 && s->dtype != DT_FLOAT8E8M0)
        return diag_error(d, g, node, "scale type %s is not supported", dtype_name(s->dtype));
    int64_t od = n->version >= 23 ? attr_int(n, "output_dtype", 0) : 0;
    DType yt = od ? dtype_from_onnx((int)od) : s->dtype;
    if (yt != DT_FLOAT32 && yt != DT_FLOAT16 && yt != DT_BFLOAT16)
        return diag_error(d, g, node, "output type %s is not float32/float16/bfloat16%s", dtype_name(yt),
                          od ? "" : " (set output_dtype)");
    if (infer_granularity(g, node, d, x, s, z))
        return -1;
    g->nodes[node].at.quant.wide = x->dtype == DT_INT32;
    opu_set_out(g, node, 0, yt, x->shape);
    return 0;
}

/* DynamicQuantizeLinear of a large tensor runs in chunks, so that threads
 * share both passes over it (most of mobilenet_v2_dyn's time is these
 * passes): the number of chunks, a divisor of n leaving at least
 * DQ_CHUNK_MIN elements to each, at most DQ_CHUNKS; 1 keeps one serial
 * nest. Depends only on n. */
#define DQ_CHUNKS 64
#define DQ_CHUNK_MIN 8192
static int64_t dynquant_chunks(int64_t n)
{
    for (int64_t p = DQ_CHUNKS; p > 1; p--)
        if (n % p == 0 && n / p >= DQ_CHUNK_MIN)
            return p;
    return 1;
}

static int infer_dynamic(Graph *g, int node, Diag *d)
{
    if (opu_check_arity(g, node, d, 1, 1, 1, 3 + (g->nodes[node].scratch.value >= 0)))
        return -1;
    Value *x = opu_in(g, node, 0);
    if (x->dtype != DT_FLOAT32)
        return diag_error(d, g, node, "x must be float32, got %s", dtype_name(x->dtype));
    opu_set_out(g, node, 0, DT_UINT8, x->shape);
    int64_t numel = 0;
    if (shape_numel(&x->shape, &numel) && dynquant_chunks(numel) > 1) {
        Node *n = &g->nodes[node]; /* the chunks' min and max, then scale and zero point (pass hidden) */
        n->scratch.dtype = DT_FLOAT32;
        n->scratch.bytes = (2 * dynquant_chunks(numel) + 2) * (int64_t)sizeof(float);
    }
    if (opu_out(g, node, 1))
        opu_set_out(g, node, 1, DT_FLOAT32, shape_make(0, NULL));
    if (opu_out(g, node, 2))
        opu_set_out(g, node, 2, DT_UINT8, shape_make(0, NULL));
    return 0;
}

int op_quant_infer(Graph *g, int node, Diag *d)
{
    switch (g->nodes[node].op) {
    case OP_QUANTIZELINEAR: return infer_quantize(g, node, d);
    case OP_DEQUANTIZELINEAR: return infer_dequantize(g, node, d);
    default: return infer_dynamic(g, node, d);
    }
}

/* The scale or zero point (value vid) for the element of x at `axes`, cast to t. */
static Expr *qparam(ComputeCtx *cx, const Node *n, int vid, const Shape *xs, LVar *const *axes, LType t)
{
    LoopBuilder *lb = cx->lb;
    int qmode = n->at.quant.qmode, axis = n->at.quant.axis;
    int64_t block = n->at.quant.block_size;
    const Value *p = &cx->g->values[vid];
    Expr *k = compute_const_scalar(cx, vid), *idx;
    if (k)
        return lx_cast(lb, t, k);
    if (qmode == 0) {
        idx = lx_int(lb, 0);
    } else if (qmode == 1 && n->at.quant.blocked) { /* channel cb * B + lane of a blocked value */
        idx = lx_add(lb, lx_muli(lb, lx_var(lb, axes[1]), xs->dims[4]), lx_var(lb, axes[4]));
    } else if (qmode == 1) {
        idx = lx_var(lb, axes[axis]);
    } else {
        Expr *ix[CTVM_MAX_RANK];
        for (int i = 0; i < xs->rank; i++)
            ix[i] = i == axis ? lx_div(lb, lx_var(lb, axes[i]), lx_int(lb, block)) : lx_var(lb, axes[i]);
        idx = compute_flat_index(cx, &p->shape, ix);
    }
    return lx_cast(lb, t, lx_load(lb, cx->buf_of(cx, vid), idx));
}

/* |v| above which a non-saturating float8 conversion overflows (to NaN):
 * halfway between the largest finite value and the next step, the tie
 * rounding down when the largest value's mantissa is even. */
static Expr *f8_overflow(LoopBuilder *lb, DType t, Expr *v)
{
    double mid = t == DT_FLOAT8E4M3FN ? 464.0 : t == DT_FLOAT8E4M3FNUZ ? 248.0 : 61440.0;
    Expr *a = lx_call(lb, CO_ABS, v), *m = lx_const_f(lb, v->type, mid);
    Expr *over = t == DT_FLOAT8E4M3FN ? lx_bin(lb, BO_GT, a, m) : lx_bin(lb, BO_GE, a, m);
    return lx_bin(lb, BO_OR, over, lx_call(lb, CO_ISINF, v));
}

/* The stored value of QuantizeLinear for the quotient q (of type ct). */
static Expr *quantize_tail(ComputeCtx *cx, const Node *n, const Shape *xs, LVar *const *axes, Expr *q, LType ct)
{
    LoopBuilder *lb = cx->lb;
    const Value *y = &cx->g->values[n->out[0]];
    int has_z = n->n_in > 2 && n->in[2] >= 0;
    Expr *zp = has_z ? qparam(cx, n, n->in[2], xs, axes, ct) : NULL;
    double lo, hi;
    if (q_int_range(y->dtype, &lo, &hi)) {
        Expr *v = lx_call(lb, CO_ROUND, q);
        if (zp)
            v = lx_add(lb, v, zp);
        /* max first: NaN becomes the lower bound, as the reference's int cast and clip */
        v = lx_bin(lb, BO_MIN, lx_bin(lb, BO_MAX, v, lx_const_f(lb, ct, lo)), lx_const_f(lb, ct, hi));
        return lx_cast(lb, lt_of_dtype(y->dtype), v);
    }
    Expr *v = zp && !is_float8(y->dtype) ? lx_add(lb, q, zp) : q; /* the reference ignores a float8 zero point */
    v = lx_cast(lb, LT_F32, v);
    if (is_float8(y->dtype) && !n->at.quant.saturate)
        v = lx_select(lb, f8_overflow(lb, y->dtype, v), lx_const_f(lb, LT_F32, NAN), v);
    return v;
}

/* float32 v rounded (to nearest even) to float16 or bfloat16 arithmetic:
 * round(v / ulp) * ulp, the ulp (a power of two, so the operations are
 * exact) chosen by |v|'s binade; bfloat16 binades outside 2^-40..2^40 are
 * left unrounded (far outside any quantized range). */
static Expr *round_narrow(LoopBuilder *lb, DType nt, Expr *v)
{
    int mant = nt == DT_FLOAT16 ? 10 : 7, emin = nt == DT_FLOAT16 ? -14 : -40, emax = nt == DT_FLOAT16 ? 15 : 40;
    Expr *a = lx_call(lb, CO_ABS, v);
    Expr *u = lx_const_f(lb, LT_F32, ldexp(1.0, emin - mant));
    for (int e = emin + 1; e <= emax; e++)
        u = lx_select(lb, lx_bin(lb, BO_GE, a, lx_const_f(lb, LT_F32, ldexp(1.0, e))),
                      lx_const_f(lb, LT_F32, ldexp(1.0, e - mant)), u);
    return lx_mul(lb, lx_call(lb, CO_ROUND, lx_div(lb, v, u)), u);
}

static int compute_quantize(ComputeCtx *cx, int node, ComputeDef *def)
{
    LoopBuilder *lb = cx->lb;
    const Node *n = &cx->g->nodes[node];
    const Value *x = &cx->g->values[n->in[0]], *y = &cx->g->values[n->out[0]];
    DType narrow = n->at.quant.narrow;
    LType ct = n->at.quant.wide ? LT_F64 : LT_F32;
    ComputeStage *s = compute_stage_new(cx, def, n->name, cx->buf_of(cx, n->out[0]), &y->shape);
    if (!s)
        return compute_fail(cx, node, "too many stages");
    s->out_is_node_output = 1;
    Expr *xv = lx_load(lb, cx->buf_of(cx, n->in[0]), s->out_index);
    Expr *sv = qparam(cx, n, n->in[1], &x->shape, s->axis, n->at.quant.int_scale ? LT_I32 : ct);
    if (n->at.quant.int_scale) /* precision int32: both operands truncated to int32 first */
        xv = lx_cast(lb, LT_I32, xv), sv = lx_cast(lb, ct, sv);
    Expr *q;
    if (narrow) { /* float16/bfloat16 arithmetic: operands and quotient rounded to it */
        q = round_narrow(lb, narrow, lx_div(lb, round_narrow(lb, narrow, lx_cast(lb, LT_F32, xv)),
                                            round_narrow(lb, narrow, sv)));
    } else {
        q = lx_div(lb, lx_cast(lb, ct, xv), sv);
    }
    s->body = quantize_tail(cx, n, &x->shape, s->axis, q, ct);
    s->finalize = lx_var(lb, s->acc);
    return 0;
}

Expr *compute_quantize_expr(ComputeCtx *cx, int node, Expr *x, const Shape *xs, LVar *const *axes)
{
    const Node *n = &cx->g->nodes[node];
    Expr *q = lx_div(cx->lb, lx_cast(cx->lb, LT_F32, x), qparam(cx, n, n->in[1], xs, axes, LT_F32));
    return quantize_tail(cx, n, xs, axes, q, LT_F32);
}

/* (x - zero point) * scale in the compute type, as the node's output type */
static Expr *dequantize_of(ComputeCtx *cx, const Node *n, Expr *x, const Shape *xs, LVar *const *axes)
{
    LoopBuilder *lb = cx->lb;
    LType ct = n->at.quant.wide ? LT_F64 : LT_F32;
    Expr *v = lx_cast(lb, ct, x);
    if (n->n_in > 2 && n->in[2] >= 0)
        v = lx_sub(lb, v, qparam(cx, n, n->in[2], xs, axes, ct));
    v = lx_mul(lb, v, qparam(cx, n, n->in[1], xs, axes, ct));
    return lx_cast(lb, lt_of_dtype(cx->g->values[n->out[0]].dtype), v);
}

Expr *compute_dequantize_expr(ComputeCtx *cx, int node, Expr *x, const Shape *xs, LVar *const *axes)
{
    return dequantize_of(cx, &cx->g->nodes[node], x, xs, axes);
}

static int compute_dequantize(ComputeCtx *cx, int node, ComputeDef *def)
{
    const Node *n = &cx->g->nodes[node];
    const Value *x = &cx->g->values[n->in[0]], *y = &cx->g->values[n->out[0]];
    ComputeStage *s = compute_stage_new(cx, def, n->name, cx->buf_of(cx, n->out[0]), &y->shape);
    if (!s)
        return compute_fail(cx, node, "too many stages");
    s->out_is_node_output = 1;
    s->body = dequantize_of(cx, n, lx_load(cx->lb, cx->buf_of(cx, n->in[0]), s->out_index), &x->shape, s->axis);
    s->finalize = lx_var(cx->lb, s->acc);
    return 0;
}

/* The scale and zero point from min mn and max mx (both include 0),
 * stored at qp[at], qp[at + 1]. */
static Stmt *dynquant_params(LoopBuilder *lb, LBuf *qp, int64_t at, Expr *mn, Expr *mx)
{
    Expr *c0 = lx_int(lb, at), *c1 = lx_int(lb, at + 1), *sc = lx_load(lb, qp, c0);
    Expr *f0 = lx_const_f(lb, LT_F32, 0.0), *f255 = lx_const_f(lb, LT_F32, 255.0);
    Expr *range = lx_select(lb, lx_bin(lb, BO_EQ, mx, mn), lx_const_f(lb, LT_F32, 1.0), lx_sub(lb, mx, mn));
    Expr *izp = lx_sub(lb, f0, lx_div(lb, mn, sc));
    return ls_seq2(lb, ls_store(lb, qp, c0, lx_div(lb, range, f255)),
                   ls_store(lb, qp, c1, lx_call(lb, CO_ROUND, lx_bin(lb, BO_MIN, lx_bin(lb, BO_MAX, izp, f0), f255))));
}

/* min and max (both starting at 0) of x[base + i], i < len, into the
 * one-element locals mnb and mxb: per-lane partials (LR_LANES). */
static Stmt *dynquant_range(ComputeCtx *cx, const Node *n, LBuf *mnb, LBuf *mxb, Expr *base, int64_t len)
{
    LoopBuilder *lb = cx->lb;
    LVar *i = lv_new(lb, "i");
    Expr *c0 = lx_int(lb, 0), *f0 = lx_const_f(lb, LT_F32, 0.0);
    Expr *idx = base ? lx_add(lb, base, lx_var(lb, i)) : lx_var(lb, i);
    Expr *x = lx_load(lb, cx->buf_of(cx, n->in[0]), idx);
    Stmt *st[3] = {ls_store(lb, mnb, c0, f0), ls_store(lb, mxb, c0, f0),
                   ls_role(ls_for(lb, i, len, LOOP_SERIAL,
                                  ls_seq2(lb, ls_store(lb, mnb, c0, lx_bin(lb, BO_MIN, lx_load(lb, mnb, c0), x)),
                                          ls_store(lb, mxb, c0, lx_bin(lb, BO_MAX, lx_load(lb, mxb, c0), x)))),
                           LR_LANES, len)};
    return ls_seq(lb, 3, st);
}

/* The quantizing pass over x[base + i], i < len, with the scale and zero
 * point at qp[at], qp[at + 1]. */
static Stmt *dynquant_pass(ComputeCtx *cx, const Node *n, LBuf *qp, int64_t at, Expr *base, int64_t len)
{
    LoopBuilder *lb = cx->lb;
    LVar *i = lv_new(lb, "i");
    Expr *idx = base ? lx_add(lb, base, lx_var(lb, i)) : lx_var(lb, i);
    Expr *f0 = lx_const_f(lb, LT_F32, 0.0), *f255 = lx_const_f(lb, LT_F32, 255.0);
    Expr *sc = lx_load(lb, qp, lx_int(lb, at)), *zp = lx_load(lb, qp, lx_int(lb, at + 1));
    Expr *q = lx_add(lb, lx_call(lb, CO_ROUND, lx_div(lb, lx_load(lb, cx->buf_of(cx, n->in[0]), idx), sc)), zp);
    q = lx_bin(lb, BO_MIN, lx_bin(lb, BO_MAX, q, f0), f255);
    return ls_role(ls_for(lb, i, len, LOOP_SERIAL, ls_store(lb, cx->buf_of(cx, n->out[0]), idx, lx_cast(lb, LT_U8, q))),
                   LR_LANES, len);
}

/* The scale and zero point outputs from qp[at], qp[at + 1]. */
static Stmt *dynquant_outputs(ComputeCtx *cx, const Node *n, LBuf *qp, int64_t at)
{
    LoopBuilder *lb = cx->lb;
    Stmt *a = NULL, *b = NULL;
    if (n->n_out > 1 && n->out[1] >= 0)
        a = ls_store(lb, cx->buf_of(cx, n->out[1]), lx_int(lb, 0), lx_load(lb, qp, lx_int(lb, at)));
    if (n->n_out > 2 && n->out[2] >= 0)
        b = ls_store(lb, cx->buf_of(cx, n->out[2]), lx_int(lb, 0), lx_cast(lb, LT_U8, lx_load(lb, qp, lx_int(lb, at + 1))));
    return ls_seq2(lb, a, b);
}

/* DynamicQuantizeLinear in P chunks (dynquant_chunks) through its scratch
 * s: each chunk's min and max (independent chunks) into s[c], s[P + c];
 * their combination, the scale and zero point into s[2P], s[2P + 1]; the
 * quantizing pass (independent chunks). schedule_custom shares the chunks
 * among the threads. Min and max are exact in any
 * order, so the result is the serial nest's. */
static int compute_dynquant_chunked(ComputeCtx *cx, const Node *n, int64_t N, int64_t P, ComputeDef *def)
{
    LoopBuilder *lb = cx->lb;
    int64_t L = N / P;
    LBuf *s = cx->buf_of(cx, n->scratch.value);
    LBuf *mnb = lbuf_new_typed(lb, "mn", LB_LOCAL, DT_FLOAT32, 1), *mxb = lbuf_new_typed(lb, "mx", LB_LOCAL, DT_FLOAT32, 1);
    Expr *c0 = lx_int(lb, 0), *f0 = lx_const_f(lb, LT_F32, 0.0);
    Expr *mn = lx_load(lb, mnb, c0), *mx = lx_load(lb, mxb, c0);
    LVar *c = lv_new(lb, "c");
    Stmt *range = ls_seq2(lb, dynquant_range(cx, n, mnb, mxb, lx_muli(lb, lx_var(lb, c), L), L),
                          ls_seq2(lb, ls_store(lb, s, lx_var(lb, c), mn),
                                  ls_store(lb, s, lx_add(lb, lx_var(lb, c), lx_int(lb, P)), mx)));
    Stmt *chunks = ls_role(ls_for(lb, c, P, LOOP_SERIAL, ls_alloc(lb, mnb, ls_alloc(lb, mxb, range))), LR_INDEPENDENT, N);
    /* one thread: the chunks' ranges combined */
    LBuf *mnc = lbuf_new_typed(lb, "mn", LB_LOCAL, DT_FLOAT32, 1), *mxc = lbuf_new_typed(lb, "mx", LB_LOCAL, DT_FLOAT32, 1);
    LVar *k = lv_new(lb, "k");
    Expr *cmn = lx_load(lb, mnc, c0), *cmx = lx_load(lb, mxc, c0);
    Stmt *comb[4] = {
        ls_store(lb, mnc, c0, f0), ls_store(lb, mxc, c0, f0),
        ls_for(lb, k, P, LOOP_SERIAL,
               ls_seq2(lb, ls_store(lb, mnc, c0, lx_bin(lb, BO_MIN, cmn, lx_load(lb, s, lx_var(lb, k)))),
                       ls_store(lb, mxc, c0,
                                lx_bin(lb, BO_MAX, cmx, lx_load(lb, s, lx_add(lb, lx_var(lb, k), lx_int(lb, P))))))),
        ls_seq2(lb, dynquant_params(lb, s, 2 * P, cmn, cmx), dynquant_outputs(cx, n, s, 2 * P))};
    Stmt *combine = ls_alloc(lb, mnc, ls_alloc(lb, mxc, ls_seq(lb, 4, comb)));
    LVar *q = lv_new(lb, "c");
    /* the chunk's pass as a sequence of one: schedule_custom takes a perfect
       nest ending in an LR_LANES loop as one vector loop, and would leave the
       chunks on one thread */
    Stmt *pass = dynquant_pass(cx, n, s, 2 * P, lx_muli(lb, lx_var(lb, q), L), L);
    Stmt *quantize = ls_role(ls_for(lb, q, P, LOOP_SERIAL, ls_seq(lb, 1, &pass)), LR_INDEPENDENT, N);
    Stmt *all[3] = {chunks, combine, quantize};
    def->custom = ls_seq(lb, 3, all);
    return 0;
}

/* DynamicQuantizeLinear as one loop nest: min/max pass, scale and zero
 * point, quantizing pass; the float32 arithmetic follows the reference. Both
 * passes run in vector lanes (LR_LANES): min and max are one-element
 * accumulators starting at 0 (the range always holds 0), so per-lane
 * partials give the same result in any order. A large tensor with its
 * scratch placed (pass hidden) runs in chunks instead. */
static int compute_dynquant(ComputeCtx *cx, int node, ComputeDef *def)
{
    LoopBuilder *lb = cx->lb;
    const Node *n = &cx->g->nodes[node];
    const Value *x = &cx->g->values[n->in[0]];
    int64_t N = 0;
    shape_numel(&x->shape, &N);
    if (n->scratch.value >= 0 && dynquant_chunks(N) > 1)
        return compute_dynquant_chunked(cx, n, N, dynquant_chunks(N), def);
    LBuf *mnb = lbuf_new_typed(lb, "mn", LB_LOCAL, DT_FLOAT32, 1), *mxb = lbuf_new_typed(lb, "mx", LB_LOCAL, DT_FLOAT32, 1);
    LBuf *qp = lbuf_new_typed(lb, "qp", LB_LOCAL, DT_FLOAT32, 2); /* scale, zero point */
    Expr *c0 = lx_int(lb, 0);
    Stmt *st[4] = {dynquant_range(cx, n, mnb, mxb, NULL, N),
                   dynquant_params(lb, qp, 0, lx_load(lb, mnb, c0), lx_load(lb, mxb, c0)),
                   dynquant_pass(cx, n, qp, 0, NULL, N), dynquant_outputs(cx, n, qp, 0)};
    def->custom = ls_alloc(lb, mnb, ls_alloc(lb, mxb, ls_alloc(lb, qp, ls_seq(lb, 4, st))));
    return 0;
}

int compute_quant(ComputeCtx *cx, int node, ComputeDef *def)
{
    switch (cx->g->nodes[node].op) {
    case OP_QUANTIZELINEAR: return compute_quantize(cx, node, def);
    case OP_DEQUANTIZELINEAR: return compute_dequantize(cx, node, def);
    default: return compute_dynquant(cx, node, def);
    }
}

DEFINE_EVAL_BY_COMPUTE(quant)
