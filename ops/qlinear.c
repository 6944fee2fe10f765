/* qlinear.c - integer and quantized matrix products and convolutions:
 * MatMulInteger (10), QLinearMatMul (10, 21), ConvInteger (10) and
 * QLinearConv (10), on int8/uint8 operands.
 *
 * They reuse the MatMul and Conv compute definitions (compute_matmul_stage,
 * compute_conv_stage) with int32 accumulation of (a - a_zero_point) *
 * (b - b_zero_point); padding of a convolution reads zero after the zero
 * point is subtracted (the padding value is the zero point).
 * MatMulInteger / ConvInteger return the int32 sum. QLinearMatMul /
 * QLinearConv (with the int32 bias B of QLinearConv added to the sum)
 * requantize it: y = clamp(round_half_even(sum * (a_scale * b_scale /
 * y_scale) + y_zero_point)), the factor computed in float32 as the
 * reference does and the product in float64; the output type is
 * y_zero_point's (a's when it is absent).
 *
 * Granularity: a zero point or scale of one element applies to the whole
 * tensor. Otherwise (1-D): for the matmuls a's and y's index the row of
 * the output (length M), b's the column (length N); for the convolutions
 * the weights' ones index the output channel (length M); x's and y's must
 * be per tensor. float8 operands of QLinearMatMul-21 are refused.
 *
 * Normalised attributes: the convolutions get Conv's (kernel_shape,
 * strides, dilations, pads, group; auto_pad resolved); Node.at.qlinear.per_axis[i] is set to
 * 0 (per tensor) or 1 (per row / column / channel) for each parameter
 * input i that is present. */
#include <stdio.h>

#include "ops/compute.h"
#include "ops/op_util.h"
#include "ops/ops.h"
#include "ops/window.h"
#include "ir/tensor.h"
#include "runtime_min/ctvm_types.h"

enum { Q_MATMUL, Q_QMATMUL, Q_CONV, Q_QCONV };

#ifndef QMATMUL_RUNTIME_GEMM
#define QMATMUL_RUNTIME_GEMM 1
#endif

static int q_kind(const Node *n)
{
    switch (n->op) {
    case OP_MATMULINTEGER: return Q_MATMUL;
    case OP_QLINEARMATMUL: return Q_QMATMUL;
    case OP_CONVINTEGER: return Q_CONV;
    default: return Q_QCONV;
    }
}

/* Input positions: the two operands, their zero points and scales, y's
 * scale and zero point, bias (-1 when the op has none). */
typedef struct QIn { int a, b, az, bz, as, bs, ys, yz, bias; } QIn;

static QIn q_inputs(int kind)
{
    if (kind == Q_MATMUL || kind == Q_CONV)
        return (QIn){0, 1, 2, 3, -1, -1, -1, -1, -1};
    return (QIn){0, 3, 2, 5, 1, 4, 6, 7, kind == Q_QCONV ? 8 : -1};
}

static int i8_type(DType t)
{
    return t == DT_INT8 || t == DT_UINT8;
}

static int scale_type(DType t, int version)
{
    return t == DT_FLOAT32 || (version >= 21 && (t == DT_FLOAT16 || t == DT_BFLOAT16));
}

/* Checks parameter input i (NULL ok when optional): per tensor, or 1-D of
 * length len (0: per tensor only); records its mode in Node.at.qlinear. */
static int check_param(Graph *g, int node, Diag *d, int i, const char *what, int64_t len, DType want)
{
    Value *v = opu_in(g, node, i);
    if (!v)
        return 0;
    if (want != DT_UNDEFINED && v->dtype != want)
        return diag_error(d, g, node, "%s must be %s, got %s", what, dtype_name(want), dtype_name(v->dtype));
    int64_t ne = 0;
    if (!shape_numel(&v->shape, &ne))
        return diag_error(d, g, node, "%s shape %s is not static", what, opu_shape_str(&v->shape));
    int mode = 0;
    if (ne != 1) {
        if (!len || v->shape.rank != 1 || ne != len)
            return diag_error(d, g, node, "%s %s must have one element%s", what, opu_shape_str(&v->shape),
                              len ? " or be 1-D of the matching dimension" : "");
        mode = 1;
    }
    if (i < QLINEAR_MAX_INPUTS)
        g->nodes[node].at.qlinear.per_axis[i] = mode;
    return 0;
}

static int infer_conv_shape(Graph *g, int node, Diag *d, const Value *x, const Value *w, Shape *out)
{
    int rank = x->shape.rank, ns;
    int64_t group, m = w->shape.dims[0];
    if (window_spatial_axes(g, node, d, x, &ns) || window_read_group(g, node, d, x, w, &group) ||
        window_read_kernel_match(g, node, d, w, ns))
        return -1;
    Window win;
    if (window_infer(g, node, d, ns, &x->shape.dims[2], &w->shape.dims[2], 0, &win))
        return -1;
    node_set_int(g, node, "group", group);
    window_store(&win, &g->nodes[node].at.qlinear.conv.win);
    g->nodes[node].at.qlinear.conv.group = group;
    int64_t dims[CTVM_MAX_RANK] = {x->shape.dims[0], m};
    for (int i = 0; i < ns; i++)
        dims[2 + i] = win.out[i];
    *out = shape_make(rank, dims);
    int64_t total;
    return opu_numel(g, node, d, out, &total);
}

static int infer_matmul_shape(Graph *g, int node, Diag *d, const Value *a, const Value *b, Shape *out)
{
    int ra = a->shape.rank, rb = b->shape.rank;
    if (ra < 1 || rb < 1)
        return diag_error(d, g, node, "operands must have rank >= 1");
    int64_t ka = a->shape.dims[ra - 1], kb = rb == 1 ? b->shape.dims[0] : b->shape.dims[rb - 2];
    if (ka != kb)
        return diag_error(d, g, node, "inner dimensions of %s and %s differ", opu_shape_str(&a->shape),
                          opu_shape_str(&b->shape));
    Shape ba = shape_make(ra > 2 ? ra - 2 : 0, a->shape.dims);
    Shape bb = shape_make(rb > 2 ? rb - 2 : 0, b->shape.dims);
    if (!shape_broadcast(&ba, &bb, out))
        return diag_error(d, g, node, "batch dimensions of %s and %s do not broadcast", opu_shape_str(&a->shape),
                          opu_shape_str(&b->shape));
    if (ra >= 2)
        out->dims[out->rank++] = a->shape.dims[ra - 2];
    if (rb >= 2)
        out->dims[out->rank++] = b->shape.dims[rb - 1];
    int64_t total;
    return opu_numel(g, node, d, out, &total);
}

int op_qlinear_infer(Graph *g, int node, Diag *d)
{
    Node *n = &g->nodes[node];
    int kind = q_kind(n);
    QIn q = q_inputs(kind);
    int quant = kind == Q_QMATMUL || kind == Q_QCONV;
    if (opu_check_arity(g, node, d, quant ? 8 : 2, kind == Q_QCONV ? 9 : quant ? 8 : 4, 1, 1))
        return -1;
    Value *a = opu_in(g, node, q.a), *b = opu_in(g, node, q.b);
    if (!a || !b)
        return diag_error(d, g, node, "missing operand");
    if (!i8_type(a->dtype) || !i8_type(b->dtype))
        return diag_error(d, g, node, "operands must be int8 or uint8, got %s and %s", dtype_name(a->dtype),
                          dtype_name(b->dtype));
    Shape out;
    int conv = kind == Q_CONV || kind == Q_QCONV;
    if (conv ? infer_conv_shape(g, node, d, a, b, &out) : infer_matmul_shape(g, node, d, a, b, &out))
        return -1;
    /* lengths a per-row / per-column / per-channel parameter must have */
    int64_t rows = !conv && a->shape.rank >= 2 ? a->shape.dims[a->shape.rank - 2] : 0;
    int64_t cols = conv ? b->shape.dims[0] : b->shape.rank >= 2 ? b->shape.dims[b->shape.rank - 1] : 0;
    if (check_param(g, node, d, q.az, "a's zero point", conv ? 0 : rows, a->dtype) ||
        check_param(g, node, d, q.bz, "b's zero point", cols, b->dtype))
        return -1;
    DType yt = DT_INT32;
    if (quant) {
        Value *as = opu_in(g, node, q.as), *bs = opu_in(g, node, q.bs), *ys = opu_in(g, node, q.ys);
        Value *yz = opu_in(g, node, q.yz);
        if (!as || !bs || !ys)
            return diag_error(d, g, node, "the scales are required");
        if (!scale_type(as->dtype, n->version) || bs->dtype != as->dtype || ys->dtype != as->dtype)
            return diag_error(d, g, node, "scales must share one type among float32%s, got %s/%s/%s",
                              n->version >= 21 ? "/float16/bfloat16" : "", dtype_name(as->dtype),
                              dtype_name(bs->dtype), dtype_name(ys->dtype));
        yt = yz ? yz->dtype : a->dtype;
        if (!i8_type(yt))
            return diag_error(d, g, node, "output type must be int8 or uint8, got %s", dtype_name(yt));
        if (check_param(g, node, d, q.as, "a's scale", conv ? 0 : rows, DT_UNDEFINED) ||
            check_param(g, node, d, q.bs, "b's scale", cols, DT_UNDEFINED) ||
            check_param(g, node, d, q.ys, "y's scale", conv ? 0 : rows, DT_UNDEFINED) ||
            check_param(g, node, d, q.yz, "y's zero point", conv ? 0 : rows, DT_UNDEFINED))
            return -1;
        Value *bias = q.bias >= 0 ? opu_in(g, node, q.bias) : NULL;
        if (bias && (bias->dtype != DT_INT32 || bias->shape.rank != 1 || bias->shape.dims[0] != b->shape.dims[0]))
            return diag_error(d, g, node, "bias must be int32 [%lld], got %s %s", (long long)b->shape.dims[0],
                              dtype_name(bias->dtype), opu_shape_str(&bias->shape));
    }
    opu_set_out(g, node, 0, yt, out);
    return 0;
}

/* Parameter input i at the element whose row/column/channel is `ax`, as t
 * (NULL when the input is absent). */
static Expr *q_param(ComputeCtx *cx, const Node *n, int i, LVar *ax, LType t)
{
    LoopBuilder *lb = cx->lb;
    if (i < 0 || i >= n->n_in || n->in[i] < 0)
        return NULL;
    Expr *k = compute_const_scalar(cx, n->in[i]);
    if (k)
        return lx_cast(lb, t, k);
    Expr *idx = i < QLINEAR_MAX_INPUTS && n->at.qlinear.per_axis[i] && ax ? lx_var(lb, ax) : lx_int(lb, 0);
    return lx_cast(lb, t, lx_load(lb, cx->buf_of(cx, n->in[i]), idx));
}

/* v - zero point, in int32. */
static Expr *q_centre(ComputeCtx *cx, const Node *n, Expr *v, int zi, LVar *ax)
{
    Expr *c = lx_cast(cx->lb, LT_I32, v), *z = q_param(cx, n, zi, ax, LT_I32);
    return z ? lx_sub(cx->lb, c, z) : c;
}

/* Rounds v to the scale type t (float16/bfloat16 arithmetic rounds every
 * result, as the reference's numpy arithmetic does). */
static float q_round_to(DType t, float v)
{
    if (t == DT_FLOAT16)
        return ctvm_f16_to_f32(ctvm_f32_to_f16(v));
    if (t == DT_BFLOAT16)
        return ctvm_bf16_to_f32(ctvm_f32_to_bf16(v));
    return v;
}

/* a_scale * b_scale / y_scale computed in the scales' type when all three
 * are per-tensor constants (the usual case); 0 otherwise. */
static int q_const_factor(ComputeCtx *cx, const Node *n, QIn q, double *out)
{
    const int ids[3] = {q.as, q.bs, q.ys};
    float v[3];
    for (int i = 0; i < 3; i++) {
        const Value *p = &cx->g->values[n->in[ids[i]]];
        int64_t ne = 0;
        if (!p->data || !shape_numel(&p->shape, &ne) || ne != 1)
            return 0;
        v[i] = (float)tensor_get_f64(p->dtype, p->data, 0);
    }
    DType t = cx->g->values[n->in[q.as]].dtype;
    *out = q_round_to(t, q_round_to(t, v[0] * v[1]) / v[2]);
    return 1;
}

int compute_qlinear(ComputeCtx *cx, int node, ComputeDef *def)
{
    LoopBuilder *lb = cx->lb;
    const Node *n = &cx->g->nodes[node];
    const Value *y = &cx->g->values[n->out[0]];
    int kind = q_kind(n);
    QIn q = q_inputs(kind);
    Expr *av, *bv, *cond = NULL;
    ComputeStage *s;
    LVar *row = NULL, *col = NULL;
    if (kind == Q_CONV || kind == Q_QCONV) {
        s = compute_conv_stage(cx, node, def, &n->at.qlinear.conv, n->in[q.a], n->in[q.b], &av, &cond, &bv);
        if (!s)
            return -1;
        col = s->axis[1];
    } else {
        s = compute_matmul_stage(cx, node, def, n->in[q.a], n->in[q.b], &av, &bv);
        if (!s)
            return -1;
        int ra = cx->g->values[n->in[q.a]].shape.rank, rb = cx->g->values[n->in[q.b]].shape.rank;
        int ry = y->shape.rank;
        if (rb > 1)
            col = s->axis[ry - 1];
        if (ra > 1)
            row = s->axis[ry - 1 - (rb > 1)];
    }
    s->acc = lv_new_typed(lb, "acc", LT_I32); /* the int32 sum, not the output type */
    av = q_centre(cx, n, av, q.az, row);
    if (cond)
        av = lx_select(lb, cond, av, lx_zero(lb, LT_I32));
    bv = q_centre(cx, n, bv, q.bz, col);
    s->body = lx_mul(lb, av, bv);
    Expr *acc = lx_var(lb, s->acc);
    if (q.bias >= 0 && q.bias < n->n_in && n->in[q.bias] >= 0)
        acc = lx_add(lb, acc, lx_cast(lb, LT_I32, lx_load(lb, cx->buf_of(cx, n->in[q.bias]), lx_var(lb, col))));
    if (kind == Q_MATMUL || kind == Q_CONV) {
        s->finalize = acc;
        /* a run-time B (attention's products; a constant int8 B takes
           ctvm.QMatMul): int32 multiply-adds in the GEMM schedule's
           register tile rather than one accumulator vector at a time */
        if (kind == Q_MATMUL && !cond && col && row && QMATMUL_RUNTIME_GEMM)
            s->sched = SCHED_GEMM;
        return 0;
    }
    /* factor = a_scale * b_scale / y_scale in float32, applied in float64 */
    double cf;
    Expr *f;
    if (q_const_factor(cx, n, q, &cf)) {
        f = lx_const_f(lb, LT_F64, cf);
    } else { /* run-time scales: float32 arithmetic (float16/bfloat16 scales round once, at the end) */
        f = lx_mul(lb, q_param(cx, n, q.as, row, LT_F32), q_param(cx, n, q.bs, col, LT_F32));
        f = lx_cast(lb, LT_F64, lx_div(lb, f, q_param(cx, n, q.ys, row, LT_F32)));
    }
    Expr *v = lx_mul(lb, lx_cast(lb, LT_F64, acc), f);
    Expr *yz = q_param(cx, n, q.yz, row, LT_F64);
    if (yz)
        v = lx_add(lb, v, yz);
    v = lx_call(lb, CO_ROUND, v);
    int s8 = y->dtype == DT_INT8;
    v = lx_bin(lb, BO_MIN, lx_bin(lb, BO_MAX, v, lx_const_f(lb, LT_F64, s8 ? -128 : 0)),
               lx_const_f(lb, LT_F64, s8 ? 127 : 255));
    s->finalize = lx_cast(lb, lt_of_dtype(y->dtype), v);
    return 0;
}

DEFINE_EVAL_BY_COMPUTE(qlinear)
