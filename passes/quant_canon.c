/* quant_canon.c - pass "quant_canon": quantized arithmetic in the one
 * canonical form of issue 22, an integer core and a float32 epilogue:
 *
 *   DQ(x) -> Conv / MatMul / Gemm (DQ(w const), bias)     (QDQ, as ORT,
 *   QLinearConv / QLinearMatMul                             PyTorch, TF write them)
 *     ->  ConvInteger / MatMulInteger(x, w, x_zp, w_zp) -> Cast(float32)
 *         -> Mul(x_scale * w_scale) [-> Add(bias)] [-> QuantizeLinear(y_scale, y_zp)]
 *
 * (a QDQ pattern keeps what followed the float op: its Relu/Clip and its
 * QuantizeLinear then close the chain; QLinear* end in their own
 * QuantizeLinear). The integer sum is exact, so the rewrite differs from
 * the float graph only by float32 rounding of one product per element.
 * Data movement between a DequantizeLinear and a QuantizeLinear of equal
 * parameters (passes/quant_moves.c) runs on the integers.
 *
 * It runs before infer_fold, which would fold the DequantizeLinear of the
 * int8 weights into float32 constants: the weights stay int8. It reads only
 * constants (initializers, or Constant nodes not yet folded) and leaves a
 * pattern alone unless every parameter is a constant of the right type and
 * shape: float32 scales positive and finite, int8/uint8 zero points of the
 * operand's type, per-channel scales along the output channel, no blocks.
 * DequantizeLinear nodes left without a reader are dropped. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ir/tensor.h"
#include "passes/pass_util.h"
#include "passes/passes.h"
#include "passes/quant_util.h"

/* The integer core and float epilogue that replace node src. */
typedef struct Core {
    const char *op;   /* "ConvInteger" or "MatMulInteger" */
    int src;          /* the node replaced: the names, a Conv's attributes */
    int x, xz, w, wz; /* operands and zero points (-1: zero) */
    int64_t ch;       /* per-channel constants: length */
    int ch_rank;      /* and rank: [M,1,..,1] for a Conv, [N] for a product */
    float *scale;     /* ch values (per channel) or one */
    int per_ch;
    float *bias;      /* constant bias (already scaled), shape bias_shape, or NULL */
    Shape bias_shape;
    int bias_rt;      /* a run-time float32 bias added instead, or -1 */
    int ys, yz;       /* closing QuantizeLinear's parameters (ys -1: none) */
    int y;            /* the value the chain ends in */
    int int_bias;     /* ORT's order (QLinearConv / QLinearMatMul): bias holds the
                         int32 bias unscaled and is added before the Mul, scale is
                         x_scale * w_scale / y_scale, and the QuantizeLinear divides
                         by 1 */
} Core;

static int f32_const(Graph *g, const char *base, const char *what, Shape s, const float *v)
{
    return graph_add_const(g, pass_unique_name(g, arena_printf(g->arena, "%s_%s", base, what)), DT_FLOAT32, s, v);
}

/* Shape [len, 1, ..., 1] of the given rank ([] when len is 0). */
static Shape channel_shape(int64_t len, int rank)
{
    int64_t dims[CTVM_MAX_RANK];
    if (!len)
        return shape_make(0, NULL);
    for (int i = 0; i < rank; i++)
        dims[i] = i ? 1 : len;
    return shape_make(rank, dims);
}

static void build_core(Graph *g, const Core *c)
{
    const Node *src = &g->nodes[c->src];
    const char *base = src->name;
    int n_attrs = strcmp(c->op, "ConvInteger") == 0 ? src->n_attrs : 0;
    Attr *attrs = NULL;
    if (n_attrs) { /* a copy: inference rewrites attributes in place */
        attrs = arena_array(g->arena, (size_t)n_attrs, sizeof(Attr));
        memcpy(attrs, src->attrs, (size_t)n_attrs * sizeof(Attr));
    }
    g->nodes[c->src].dead = 1;
    PassBuild b = {g, c->src, base};
    int ins[4] = {c->x, c->w, c->xz, c->wz}, n_in = c->wz >= 0 ? 4 : c->xz >= 0 ? 3 : 2;
    int acc = pb_value(&b, "acc");
    int core = pb_node(&b, c->op, n_in, ins, acc);
    g->nodes[core].attrs = attrs;
    g->nodes[core].n_attrs = n_attrs;
    int f = pb_value(&b, "float");
    int cast = pb_node(&b, "Cast", 1, &acc, f);
    node_set_int(g, cast, "to", dtype_to_onnx(DT_FLOAT32));
    int more = c->bias || c->bias_rt >= 0 || c->ys >= 0;
    int s = f32_const(g, base, "scale", channel_shape(c->per_ch ? c->ch : 0, c->ch_rank), c->scale);
    if (c->int_bias) { /* float(acc + B) * (xs * ws / ys), rounded: as ORT requantizes */
        int v = f;
        if (c->bias) {
            int ab[2] = {f, f32_const(g, base, "bias", c->bias_shape, c->bias)};
            v = pb_value(&b, "biased");
            pb_node(&b, "Add", 2, ab, v);
        }
        static const float one = 1.0f;
        int ms[2] = {v, s};
        int r = pb_value(&b, "scaled");
        pb_node(&b, "Mul", 2, ms, r);
        int q[3] = {r, f32_const(g, base, "one", shape_make(0, NULL), &one), c->yz};
        pb_node(&b, "QuantizeLinear", c->yz >= 0 ? 3 : 2, q, c->y);
        graph_count_uses(g);
        return;
    }
    int v = pb_binary(&b, "Mul", f, s);
    if (!more)
        g->nodes[g->values[v].producer].out[0] = c->y;
    v = more ? v : c->y;
    if (c->bias || c->bias_rt >= 0) {
        int bv = c->bias ? f32_const(g, base, "bias", c->bias_shape, c->bias) : c->bias_rt;
        int ab[2] = {v, bv};
        v = c->ys >= 0 ? pb_value(&b, "biased") : c->y;
        pb_node(&b, "Add", 2, ab, v);
    }
    if (c->ys >= 0) {
        int q[3] = {v, c->ys, c->yz};
        pb_node(&b, "QuantizeLinear", c->yz >= 0 ? 3 : 2, q, c->y);
    }
    graph_count_uses(g);
}

/* x_scale * w_scale[k] (* alpha) for the n channels of the weights. */
static float *product_scales(Graph *g, const QParams *x, const QParams *w, float alpha, int64_t n)
{
    float *s = arena_array(g->arena, (size_t)n, sizeof(float));
    float xs = qp_scale(x, 0);
    for (int64_t k = 0; k < n; k++)
        s[k] = alpha * (xs * qp_scale(w, k));
    return s;
}

/* The zero point of p as a core input: -1 when absent or all zero. */
static int core_zp(const QParams *p)
{
    return p->zp >= 0 && !qp_zero_all_zero(p) ? p->zp : -1;
}

/* A float32 constant bias: a float32 constant, or the DequantizeLinear of a
 * constant (int32 / int8 / uint8); its values (times mul) into *out. */
static int const_bias(Graph *g, int v, float mul, float **out, Shape *shape)
{
    QConst c;
    int64_t n;
    if (qc_get(g, v, &c) && c.t == DT_FLOAT32) {
        n = c.n;
        *out = arena_array(g->arena, (size_t)(n ? n : 1), sizeof(float));
        for (int64_t i = 0; i < n; i++)
            (*out)[i] = mul * ((const float *)c.data)[i];
        *shape = c.s;
        return 1;
    }
    QParams p;
    if (!qp_match_dq(g, v, 1, &p) || !p.x_const)
        return 0;
    n = p.xc.n;
    *out = arena_array(g->arena, (size_t)(n ? n : 1), sizeof(float));
    qp_dequantize(&p, *out);
    for (int64_t i = 0; i < n; i++)
        (*out)[i] *= mul;
    *shape = p.xc.s;
    return 1;
}

/* ORT's requantization order for a QDQ Conv whose only reader is a
 * per-tensor QuantizeLinear (ORT's QDQ fusion makes it a QLinearConv): the
 * bias, if any, is the DequantizeLinear of int32 values at scale
 * x_scale * w_scale (as ORT's quantizer writes it), added unscaled; the
 * multiplier is x_scale * w_scale / y_scale; the QuantizeLinear is folded
 * into the chain. 0 (c unchanged) when the pattern does not hold. */
static int ort_order(Graph *g, Core *c, int out, int bias_v)
{
    int q = pass_sole_consumer(g, out);
    QParams yp, bp;
    if (q < 0 || !qp_match_q(g, q, &yp))
        return 0;
    float *bias = NULL;
    int64_t m = c->ch;
    if (bias_v >= 0) {
        if (!qp_match_dq(g, bias_v, 1, &bp) || !bp.x_const || bp.qt != DT_INT32 || bp.xc.n < 1 ||
            (bp.xc.n != 1 && bp.xc.n != m) || !qp_zero_all_zero(&bp))
            return 0;
        int64_t nb = bp.xc.n;
        bias = arena_array(g->arena, (size_t)nb, sizeof(float));
        for (int64_t k = 0; k < nb; k++) {
            float want = c->scale[c->per_ch ? k : 0], have = qp_scale(&bp, k);
            if (!(fabsf(have - want) <= 1e-6f * want))
                return 0;
            bias[k] = (float)((const int32_t *)bp.xc.data)[k];
        }
        if (nb != m) /* one bias value for every channel */
            return 0;
    }
    float ys = qp_scale(&yp, 0);
    for (int64_t k = 0; k < (c->per_ch ? m : 1); k++)
        c->scale[k] = c->scale[k] / ys;
    c->int_bias = 1;
    c->bias = bias;
    c->ys = g->nodes[q].in[1];
    c->yz = g->nodes[q].n_in > 2 ? g->nodes[q].in[2] : -1;
    c->y = yp.x;
    g->nodes[q].dead = 1;
    return 1;
}

/* DQ(x) -> Conv(., DQ(w const) [, bias]) */
static int canon_conv(Graph *g, int i)
{
    const Node *n = &g->nodes[i];
    QParams xp, wp;
    if (n->n_in < 2 || n->n_out != 1 || !qp_match_dq(g, n->in[0], 0, &xp) || xp.axis >= 0 ||
        !qp_match_dq(g, n->in[1], 0, &wp) || !wp.x_const || wp.xc.s.rank < 3)
        return 0;
    int64_t m = wp.xc.s.dims[0];
    if (wp.axis > 0)
        return 0;
    Core c = {.op = "ConvInteger", .src = i, .x = xp.x, .xz = core_zp(&xp), .w = wp.x, .wz = core_zp(&wp),
              .ch = m, .ch_rank = wp.xc.s.rank - 1, .per_ch = wp.axis == 0, .bias_rt = -1, .ys = -1, .yz = -1,
              .y = n->out[0]};
    int bias_v = n->n_in >= 3 ? n->in[2] : -1;
    if (bias_v >= 0) {
        Shape bs;
        if (!const_bias(g, bias_v, 1.0f, &c.bias, &bs) || bs.rank != 1 || bs.dims[0] != m)
            return 0;
        c.bias_shape = channel_shape(m, c.ch_rank);
    }
    c.scale = product_scales(g, &xp, &wp, 1.0f, c.per_ch ? m : 1);
    ort_order(g, &c, n->out[0], bias_v);
    build_core(g, &c);
    return 1;
}

/* DQ(a) -> MatMul(., DQ(b)) and DQ(a) -> Gemm(., DQ(b) [, C]) */
static int canon_dense(Graph *g, int i)
{
    const Node *n = &g->nodes[i];
    int gemm = n->op == OP_GEMM;
    QParams ap, bp;
    if (n->n_in < 2 || n->n_out != 1 || !qp_match_dq(g, n->in[0], 0, &ap) || ap.axis >= 0 ||
        !qp_match_dq(g, n->in[1], 0, &bp))
        return 0;
    int trans_b = gemm ? attr_int(n, "transB", 0) != 0 : 0;
    float alpha = gemm ? attr_float(n, "alpha", 1.0f) : 1.0f, beta = gemm ? attr_float(n, "beta", 1.0f) : 1.0f;
    if (gemm && attr_int(n, "transA", 0) != 0)
        return 0;
    if (!isfinite(alpha) || !isfinite(beta))
        return 0;
    int rb = bp.x_const ? bp.xc.s.rank : -1;
    if ((gemm && rb >= 0 && rb != 2) || (!bp.x_const && (bp.axis >= 0 || trans_b)) || (bp.axis >= 0 && rb != 2))
        return 0;
    /* the output column k of B: axis 1 of [K, N], axis 0 of a transposed [N, K] */
    if (bp.axis >= 0 && bp.axis != (trans_b ? 0 : 1))
        return 0;
    int64_t cols = bp.axis >= 0 ? bp.xc.s.dims[bp.axis] : 1;
    Core c = {.op = "MatMulInteger", .src = i, .x = ap.x, .xz = core_zp(&ap), .w = bp.x, .wz = core_zp(&bp),
              .ch = cols, .ch_rank = 1, .per_ch = bp.axis >= 0, .bias_rt = -1, .ys = -1, .yz = -1,
              .y = n->out[0]};
    if (gemm && n->n_in >= 3 && n->in[2] >= 0 && beta != 0.0f) {
        Shape bs;
        QConst any;
        if (!const_bias(g, n->in[2], beta, &c.bias, &bs)) {
            if (beta != 1.0f || qc_get(g, n->in[2], &any))
                return 0;
            c.bias_rt = n->in[2]; /* a run-time C */
        } else {
            c.bias_shape = bs;
        }
    }
    if (trans_b) { /* B^T as a new int8 constant [K, N] */
        int64_t nn = bp.xc.s.dims[0], k = bp.xc.s.dims[1], dims[2] = {k, nn};
        size_t es = dtype_size(bp.xc.t);
        unsigned char *t = arena_alloc(g->arena, (size_t)(nn * k) * es + 1);
        const unsigned char *w = bp.xc.data;
        for (int64_t r = 0; r < nn; r++)
            for (int64_t q = 0; q < k; q++)
                memcpy(t + (size_t)(q * nn + r) * es, w + (size_t)(r * k + q) * es, es);
        const char *name = pass_unique_name(g, arena_printf(g->arena, "%s_t", g->values[bp.x].name));
        c.w = graph_add_const(g, name, bp.xc.t, shape_make(2, dims), t);
    }
    c.scale = product_scales(g, &ap, &bp, alpha, c.per_ch ? cols : 1);
    build_core(g, &c);
    return 1;
}

/* QLinearConv (x, xs, xz, w, ws, wz, ys, yz [, B]) and QLinearMatMul
 * (a, as, az, b, bs, bz, ys, yz) with constant parameters (zero points
 * given, so the types are known) and, for the convolution, constant w */
static int canon_qlinear(Graph *g, int i)
{
    const Node *n = &g->nodes[i];
    int conv = n->op == OP_QLINEARCONV;
    if (n->n_in < 8 || n->n_out != 1 || n->in[0] < 0 || n->in[3] < 0 || n->in[2] < 0 || n->in[5] < 0 ||
        n->in[7] < 0)
        return 0;
    QConst wc;
    int w_const = qc_get(g, n->in[3], &wc);
    if (conv && (!w_const || wc.s.rank < 3))
        return 0;
    /* per channel: axis 0 of the conv's weights, the columns (axis 1) of a [K, N] b */
    const Shape *ws = w_const && (conv || wc.s.rank == 2) ? &wc.s : NULL;
    QParams xp, wp, yp;
    if (!qp_read(g, -1, n->in[1], n->in[2], NULL, 0, 0, &xp) || !qp_read(g, -1, n->in[6], n->in[7], NULL, 0, 0, &yp) ||
        !qp_read(g, -1, n->in[4], n->in[5], ws, conv ? 0 : 1, 0, &wp) || (w_const && wc.t != wp.qt))
        return 0;
    int64_t ch = wp.axis >= 0 ? wp.s.n : 1;
    Core c = {.op = conv ? "ConvInteger" : "MatMulInteger", .src = i, .x = n->in[0], .xz = core_zp(&xp),
              .w = n->in[3], .wz = core_zp(&wp), .ch = ch, .ch_rank = conv ? wc.s.rank - 1 : 1,
              .per_ch = wp.axis >= 0, .bias_rt = -1, .ys = n->in[6], .yz = n->in[7], .y = n->out[0]};
    /* ORT's QLinearConv / QLinearMatMul: one multiplier x_scale * w_scale /
       y_scale (in float32, in that order) on the int32 sum plus the int32
       bias B, rounded half to even (MLAS's requantization); the same order
       here keeps the rounding ties where ORT has them */
    c.int_bias = 1;
    c.scale = product_scales(g, &xp, &wp, 1.0f, ch);
    float ys = qp_scale(&yp, 0);
    for (int64_t k = 0; k < ch; k++)
        c.scale[k] = c.scale[k] / ys;
    if (conv && n->n_in >= 9 && n->in[8] >= 0) { /* int32 bias B, added before scaling */
        QConst bc;
        int64_t m = wc.s.dims[0];
        if (!qc_get(g, n->in[8], &bc) || bc.t != DT_INT32 || bc.s.rank != 1 || bc.n != m)
            return 0;
        c.bias = arena_array(g->arena, (size_t)m, sizeof(float));
        for (int64_t k = 0; k < m; k++)
            c.bias[k] = (float)((const int32_t *)bc.data)[k];
        c.bias_shape = channel_shape(m, c.ch_rank);
    }
    build_core(g, &c);
    return 1;
}

int pass_quant_canon(Graph *g, Diag *d)
{
    (void)d;
    graph_count_uses(g);
    for (int i = 0; i < g->n_nodes; i++) {
        const Node *n = &g->nodes[i];
        if (n->dead)
            continue;
        switch (n->op) {
        case OP_CONV: canon_conv(g, i); break;
        case OP_MATMUL:
        case OP_GEMM: canon_dense(g, i); break;
        case OP_QLINEARCONV:
        case OP_QLINEARMATMUL: canon_qlinear(g, i); break;
        default: break;
        }
    }
    qp_drop_unread_dq(g);
    return 0;
}
