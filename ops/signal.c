/* signal.c - the signal-processing operators: HannWindow, HammingWindow,
 * BlackmanWindow, DFT, STFT and MelWeightMatrix.
 *
 * Windows: y[n] = a0 - a1 cos(2 pi n / N1) + a2 cos(4 pi n / N1), N1 = N
 * when periodic (the default), N - 1 otherwise; Hann (0.5, 0.5, 0), Hamming
 * (25/46, 21/46, 0), Blackman (0.42, 0.5, 0.08). The size input decides the
 * shape, so it is constant and the window folds to a constant.
 *
 * DFT: the input is [..., n, ..., 1 or 2] (real, or complex as re/im in the
 * last dim); the transform runs along `axis` (17: attribute, default 1; 20:
 * optional input, default -2), over dft_length points (input, default the
 * axis length; zero-padded or truncated). Forward: X[k] = sum_j x[j]
 * e^{-2 pi i jk/L}, k < L, or k <= L/2 when onesided. Inverse: x[n] = 1/L
 * sum_k X[k] e^{+2 pi i kn/L}; inverse + onesided is numpy's irfft: a real
 * output of L points (last dim 1) from the one-sided half spectrum, whose
 * default L is 2 (n - 1). Written as one stage reducing over j with the
 * twiddle angle 2 pi ((j k) mod L) / L, computed in float64.
 *
 * STFT: signal [B, T, 1 or 2], frame_step, optional window [W], optional
 * frame_length L (default W, else T); frames F = 1 + (T - L) / step; out
 * [B, F, onesided ? L/2+1 : L, 2] = DFT over L of x[f*step + j] * w[j]
 * (j < W; samples past the end are 0).
 *
 * MelWeightMatrix: every input decides the values (two decide the shape),
 * so all must be constant; evaluated on the host as ONNX's reference does.
 *
 * Normalised attributes: DFT "axis" (>= 0), "len" (L), "n_red" (points
 * summed), "inverse", "mode" (0 complex out, 1 irfft); STFT "len", "step",
 * "n_red". */
#include <math.h>
#include <string.h>

#include "ir/tensor.h"
#include "ops/compute.h"
#include "ops/op_util.h"
#include "ops/ops.h"

static const double PI = 3.14159265358979323846;

/* An optional scalar integer input: *v, or def when omitted. */
static int opt_scalar(Graph *g, int node, Diag *d, int i, int64_t def, int64_t *v, const char *what)
{
    const Node *n = &g->nodes[node];
    *v = def;
    if (i >= n->n_in || n->in[i] < 0)
        return 0;
    int64_t buf[1];
    int cnt = 0;
    if (opu_const_ints(g, node, d, i, buf, 1, &cnt))
        return -1;
    if (cnt != 1)
        return diag_error(d, g, node, "%s must hold one value", what);
    *v = buf[0];
    return 0;
}

static int read_out_type(Graph *g, int node, Diag *d, DType *t)
{
    int64_t code = attr_int(&g->nodes[node], "output_datatype", 1);
    *t = dtype_from_onnx((int)code);
    if (!dtype_supported(*t) || *t == DT_BOOL)
        return diag_error(d, g, node, "output_datatype %lld is not supported", (long long)code);
    return 0;
}

static int infer_window(Graph *g, int node, Diag *d)
{
    if (opu_check_arity(g, node, d, 1, 1, 1, 1))
        return -1;
    int64_t size;
    DType t;
    if (opt_scalar(g, node, d, 0, 0, &size, "size") || read_out_type(g, node, d, &t))
        return -1;
    if (size < 0)
        return diag_error(d, g, node, "size %lld is negative", (long long)size);
    g->nodes[node].at.signal.len = size;
    g->nodes[node].at.signal.periodic = attr_int(&g->nodes[node], "periodic", 1) != 0;
    opu_set_out(g, node, 0, t, shape_make(1, &size));
    return 0;
}

static int infer_dft(Graph *g, int node, Diag *d)
{
    Node *n = &g->nodes[node];
    int v20 = n->version >= 20;
    if (opu_check_arity(g, node, d, 1, v20 ? 3 : 2, 1, 1))
        return -1;
    Value *x = opu_in(g, node, 0);
    if (!dtype_is_float(x->dtype))
        return diag_error(d, g, node, "input type %s is not supported", dtype_name(x->dtype));
    int r = x->shape.rank;
    if (r < 2 || (x->shape.dims[r - 1] != 1 && x->shape.dims[r - 1] != 2))
        return diag_error(d, g, node, "input %s must end in a dim of 1 (real) or 2 (complex)",
                          opu_shape_str(&x->shape));
    int64_t axis = attr_int(n, "axis", 1);
    if (v20 && opt_scalar(g, node, d, 2, -2, &axis, "axis"))
        return -1;
    int ax;
    if (opu_norm_axis(g, node, d, axis, r, "axis", &ax))
        return -1;
    if (ax == r - 1)
        return diag_error(d, g, node, "axis %lld is the real/imaginary dim", (long long)axis);
    int inverse = (int)attr_int(n, "inverse", 0), onesided = (int)attr_int(n, "onesided", 0);
    int64_t nin = x->shape.dims[ax], len;
    if (opt_scalar(g, node, d, 1, inverse && onesided ? 2 * (nin - 1) : nin, &len, "dft_length"))
        return -1;
    if (len < 1)
        return diag_error(d, g, node, "dft_length %lld must be positive", (long long)len);
    Shape s = x->shape;
    int irfft = inverse && onesided;
    s.dims[ax] = irfft ? len : onesided ? len / 2 + 1 : len;
    s.dims[r - 1] = irfft ? 1 : 2;
    /* points summed: the input's, cut at L (irfft: at the half spectrum) */
    int64_t lim = irfft ? len / 2 + 1 : len;
    SignalAttrs *sa = &n->at.signal;
    sa->axis = ax;
    sa->len = len;
    sa->n_red = nin < lim ? nin : lim;
    sa->irfft = irfft;
    sa->inverse = inverse;
    if (!v20)
        node_set_int(g, node, "axis", ax);
    opu_set_out(g, node, 0, x->dtype, s);
    return 0;
}

static int infer_stft(Graph *g, int node, Diag *d)
{
    if (opu_check_arity(g, node, d, 2, 4, 1, 1))
        return -1;
    Value *x = opu_in(g, node, 0), *w = opu_in(g, node, 2);
    if (!dtype_is_float(x->dtype))
        return diag_error(d, g, node, "input type %s is not supported", dtype_name(x->dtype));
    if (x->shape.rank != 3 || (x->shape.dims[2] != 1 && x->shape.dims[2] != 2))
        return diag_error(d, g, node, "signal %s must be [batch, length, 1 or 2]", opu_shape_str(&x->shape));
    if (w && (w->shape.rank != 1 || w->dtype != x->dtype))
        return diag_error(d, g, node, "window must be 1-D of the signal's type");
    int64_t T = x->shape.dims[1], step, len;
    if (opt_scalar(g, node, d, 1, 0, &step, "frame_step") ||
        opt_scalar(g, node, d, 3, w ? w->shape.dims[0] : T, &len, "frame_length"))
        return -1;
    if (step < 1 || len < 1 || len > T)
        return diag_error(d, g, node, "frame_step %lld / frame_length %lld do not fit a signal of %lld",
                          (long long)step, (long long)len, (long long)T);
    int64_t W = w ? w->shape.dims[0] : len;
    int onesided = (int)attr_int(&g->nodes[node], "onesided", 1);
    if (onesided && x->shape.dims[2] == 2)
        return diag_error(d, g, node, "onesided output of a complex signal is not defined");
    int64_t dims[4] = {x->shape.dims[0], 1 + (T - len) / step, onesided ? len / 2 + 1 : len, 2};
    SignalAttrs *sa = &g->nodes[node].at.signal;
    sa->len = len;
    sa->step = step;
    sa->n_red = W < len ? W : len;
    opu_set_out(g, node, 0, x->dtype, shape_make(4, dims));
    return 0;
}

static int infer_mel(Graph *g, int node, Diag *d)
{
    if (opu_check_arity(g, node, d, 5, 5, 1, 1))
        return -1;
    int64_t bins, dft;
    DType t;
    if (opt_scalar(g, node, d, 0, 0, &bins, "num_mel_bins") || opt_scalar(g, node, d, 1, 0, &dft, "dft_length") ||
        read_out_type(g, node, d, &t))
        return -1;
    for (int i = 2; i < 5; i++)
        if (!opu_in(g, node, i)->data)
            return opu_need_const(g, node, d, i, "a MelWeightMatrix frequency parameter");
    if (bins < 1 || dft < 1)
        return diag_error(d, g, node, "num_mel_bins %lld and dft_length %lld must be positive",
                          (long long)bins, (long long)dft);
    int64_t dims[2] = {dft / 2 + 1, bins};
    opu_set_out(g, node, 0, t, shape_make(2, dims));
    return 0;
}

int op_signal_infer(Graph *g, int node, Diag *d)
{
    switch (g->nodes[node].op) {
    case OP_HANNWINDOW:
    case OP_HAMMINGWINDOW:
    case OP_BLACKMANWINDOW: return infer_window(g, node, d);
    case OP_DFT: return infer_dft(g, node, d);
    case OP_STFT: return infer_stft(g, node, d);
    case OP_MELWEIGHTMATRIX: return infer_mel(g, node, d);
    default: return diag_error(d, g, node, "not a signal operator (internal error)");
    }
}

/* ---- compute definitions ---- */

static Expr *f64c(LoopBuilder *lb, double v)
{
    return lx_const_f(lb, LT_F64, v);
}

static int compute_window(ComputeCtx *cx, int node, ComputeDef *def)
{
    LoopBuilder *lb = cx->lb;
    const Node *n = &cx->g->nodes[node];
    const Value *y = &cx->g->values[n->out[0]];
    double a0 = 0.5, a1 = 0.5, a2 = 0;
    if (n->op == OP_HAMMINGWINDOW)
        a0 = 25.0 / 46.0, a1 = 21.0 / 46.0;
    else if (n->op == OP_BLACKMANWINDOW)
        a0 = 0.42, a1 = 0.5, a2 = 0.08;
    int64_t N = n->at.signal.len, N1 = n->at.signal.periodic ? N : N - 1;
    ComputeStage *s = compute_stage_new(cx, def, n->name, cx->buf_of(cx, n->out[0]), &y->shape);
    s->out_is_node_output = 1;
    s->acc = lv_new_typed(lb, "acc", LT_F64); /* twiddles and sums in float64 */
    Expr *t = lx_mul(lb, lx_cast(lb, LT_F64, lx_var(lb, s->axis[0])), f64c(lb, 2 * PI / (double)N1));
    Expr *v = lx_sub(lb, f64c(lb, a0), lx_mul(lb, f64c(lb, a1), lx_call(lb, CO_COS, t)));
    if (a2 != 0)
        v = lx_add(lb, v, lx_mul(lb, f64c(lb, a2), lx_call(lb, CO_COS, lx_mul(lb, t, f64c(lb, 2)))));
    s->body = v;
    s->finalize = lx_cast(lb, lt_of_dtype(y->dtype), lx_var(lb, s->acc));
    return 0;
}

/* cos and sin of 2 pi ((j k) mod L) / L, in float64 */
static void twiddle(LoopBuilder *lb, Expr *j, Expr *k, int64_t L, Expr **c, Expr **sn)
{
    Expr *jk = lx_bin(lb, BO_MOD, lx_mul(lb, j, k), lx_int(lb, L));
    Expr *th = lx_mul(lb, lx_cast(lb, LT_F64, jk), f64c(lb, 2 * PI / (double)L));
    *c = lx_call(lb, CO_COS, th);
    *sn = lx_call(lb, CO_SIN, th);
}

/* Loads re and im (0 for a real input) of x at idx, where idx[last] is set here. */
static void load_complex(ComputeCtx *cx, LBuf *xb, const Shape *xs, Expr **idx, Expr **re, Expr **im)
{
    LoopBuilder *lb = cx->lb;
    int r = xs->rank;
    idx[r - 1] = lx_int(lb, 0);
    *re = lx_cast(lb, LT_F64, lx_load(lb, xb, compute_flat_index(cx, xs, idx)));
    if (xs->dims[r - 1] == 2) {
        idx[r - 1] = lx_int(lb, 1);
        *im = lx_cast(lb, LT_F64, lx_load(lb, xb, compute_flat_index(cx, xs, idx)));
    } else {
        *im = f64c(lb, 0);
    }
}

static int compute_dft(ComputeCtx *cx, int node, ComputeDef *def)
{
    LoopBuilder *lb = cx->lb;
    const Node *n = &cx->g->nodes[node];
    const Value *x = &cx->g->values[n->in[0]], *y = &cx->g->values[n->out[0]];
    const SignalAttrs *sa = &n->at.signal;
    int ax = sa->axis, r = x->shape.rank, irfft = sa->irfft;
    int inverse = sa->inverse;
    int64_t L = sa->len;
    ComputeStage *s = compute_stage_new(cx, def, n->name, cx->buf_of(cx, n->out[0]), &y->shape);
    s->out_is_node_output = 1;
    s->acc = lv_new_typed(lb, "acc", LT_F64); /* twiddles and sums in float64 */
    LVar *j = compute_add_raxis(cx, s, "j", n->at.signal.n_red);
    s->red = RED_SUM;
    Expr *idx[CTVM_MAX_RANK], *re, *im, *c, *sn;
    for (int i = 0; i < r; i++)
        idx[i] = i == ax ? lx_var(lb, j) : lx_var(lb, s->axis[i]);
    load_complex(cx, cx->buf_of(cx, n->in[0]), &x->shape, idx, &re, &im);
    twiddle(lb, lx_var(lb, j), lx_var(lb, s->axis[ax]), L, &c, &sn);
    Expr *part0, *part1;
    if (irfft) { /* Hermitian weights: 1 for DC and (even L) Nyquist, else 2 */
        Expr *jv = lx_var(lb, j);
        Expr *edge = lx_bin(lb, BO_EQ, jv, lx_int(lb, 0));
        if (L % 2 == 0)
            edge = lx_bin(lb, BO_OR, edge, lx_bin(lb, BO_EQ, jv, lx_int(lb, L / 2)));
        Expr *wgt = lx_select(lb, edge, f64c(lb, 1), f64c(lb, 2));
        s->body = lx_mul(lb, wgt, lx_sub(lb, lx_mul(lb, re, c), lx_mul(lb, im, sn)));
        s->finalize = lx_cast(lb, lt_of_dtype(y->dtype), lx_div(lb, lx_var(lb, s->acc), f64c(lb, (double)L)));
        return 0;
    }
    if (inverse) { /* e^{+i theta} */
        part0 = lx_sub(lb, lx_mul(lb, re, c), lx_mul(lb, im, sn));
        part1 = lx_add(lb, lx_mul(lb, re, sn), lx_mul(lb, im, c));
    } else { /* e^{-i theta} */
        part0 = lx_add(lb, lx_mul(lb, re, c), lx_mul(lb, im, sn));
        part1 = lx_sub(lb, lx_mul(lb, im, c), lx_mul(lb, re, sn));
    }
    s->body = lx_select(lb, lx_bin(lb, BO_EQ, lx_var(lb, s->axis[r - 1]), lx_int(lb, 0)), part0, part1);
    Expr *acc = lx_var(lb, s->acc);
    if (inverse)
        acc = lx_div(lb, acc, f64c(lb, (double)L));
    s->finalize = lx_cast(lb, lt_of_dtype(y->dtype), acc);
    return 0;
}

static int compute_stft(ComputeCtx *cx, int node, ComputeDef *def)
{
    LoopBuilder *lb = cx->lb;
    const Node *n = &cx->g->nodes[node];
    const Value *x = &cx->g->values[n->in[0]], *y = &cx->g->values[n->out[0]];
    int64_t L = n->at.signal.len, step = n->at.signal.step, T = x->shape.dims[1];
    ComputeStage *s = compute_stage_new(cx, def, n->name, cx->buf_of(cx, n->out[0]), &y->shape);
    s->out_is_node_output = 1;
    s->acc = lv_new_typed(lb, "acc", LT_F64); /* twiddles and sums in float64 */
    LVar *j = compute_add_raxis(cx, s, "j", n->at.signal.n_red);
    s->red = RED_SUM;
    /* sample t = f*step + j; frames never run past the end (F is floored) */
    Expr *t = lx_add(lb, lx_muli(lb, lx_var(lb, s->axis[1]), step), lx_var(lb, j));
    (void)T;
    Expr *idx[3] = {lx_var(lb, s->axis[0]), t, NULL}, *re, *im, *c, *sn;
    load_complex(cx, cx->buf_of(cx, n->in[0]), &x->shape, idx, &re, &im);
    if (n->n_in > 2 && n->in[2] >= 0) {
        Expr *w = lx_cast(lb, LT_F64, lx_load(lb, cx->buf_of(cx, n->in[2]), lx_var(lb, j)));
        re = lx_mul(lb, re, w);
        im = lx_mul(lb, im, w);
    }
    twiddle(lb, lx_var(lb, j), lx_var(lb, s->axis[2]), L, &c, &sn);
    Expr *part0 = lx_add(lb, lx_mul(lb, re, c), lx_mul(lb, im, sn));
    Expr *part1 = lx_sub(lb, lx_mul(lb, im, c), lx_mul(lb, re, sn));
    s->body = lx_select(lb, lx_bin(lb, BO_EQ, lx_var(lb, s->axis[3]), lx_int(lb, 0)), part0, part1);
    s->finalize = lx_cast(lb, lt_of_dtype(y->dtype), lx_var(lb, s->acc));
    return 0;
}

int compute_signal(ComputeCtx *cx, int node, ComputeDef *def)
{
    switch (cx->g->nodes[node].op) {
    case OP_HANNWINDOW:
    case OP_HAMMINGWINDOW:
    case OP_BLACKMANWINDOW: return compute_window(cx, node, def);
    case OP_DFT: return compute_dft(cx, node, def);
    case OP_STFT: return compute_stft(cx, node, def);
    default: return compute_fail(cx, node, "MelWeightMatrix is evaluated at compile time (internal error)");
    }
}

/* MelWeightMatrix on the host, as ONNX's reference computes it. */
static int eval_mel(Graph *g, int node, Diag *d)
{
    const Value *in[5];
    for (int i = 0; i < 5; i++)
        in[i] = opu_in(g, node, i);
    int64_t bins = tensor_get_i64(in[0]->dtype, in[0]->data, 0), dft = tensor_get_i64(in[1]->dtype, in[1]->data, 0);
    double rate = tensor_get_f64(in[2]->dtype, in[2]->data, 0);
    double lo = tensor_get_f64(in[3]->dtype, in[3]->data, 0), hi = tensor_get_f64(in[4]->dtype, in[4]->data, 0);
    Value *yv = opu_out(g, node, 0);
    if (rate <= 0)
        return diag_error(d, g, node, "sample_rate must be positive");
    void *y = opu_alloc_out(g, node, 0, d);
    if (!y)
        return -1;
    int64_t spec = dft / 2 + 1, nf = bins + 2;
    int64_t *f = arena_alloc(g->arena, (size_t)nf * sizeof *f);
    double lmel = 2595 * log1p(lo / 700) / log(10), hmel = 2595 * log1p(hi / 700) / log(10);
    double step = (hmel - lmel) / (double)nf;
    for (int64_t i = 0; i < nf; i++) {
        double hz = 700 * expm1(((double)i * step + lmel) / 2595 * log(10));
        f[i] = (int64_t)floor((double)(dft + 1) * hz / rate);
        if (f[i] < 0 || f[i] >= spec)
            return diag_error(d, g, node, "mel band edge %lld falls outside the %lld spectrogram bins",
                              (long long)f[i], (long long)spec);
    }
    for (int64_t k = 0; k < spec * bins; k++)
        tensor_set_f64(yv->dtype, y, k, 0);
    for (int64_t i = 0; i < bins; i++) {
        int64_t l = f[i], c = f[i + 1], h = f[i + 2];
        if (c == l)
            tensor_set_f64(yv->dtype, y, c * bins + i, 1);
        else
            for (int64_t j = l; j <= c; j++)
                tensor_set_f64(yv->dtype, y, j * bins + i, (double)(j - l) / (double)(c - l));
        for (int64_t j = c; j < h; j++)
            tensor_set_f64(yv->dtype, y, j * bins + i, (double)(h - j) / (double)(h - c));
    }
    return 1;
}

int op_signal_eval(Graph *g, int node, Diag *d)
{
    if (g->nodes[node].op == OP_MELWEIGHTMATRIX)
        return eval_mel(g, node, d);
    return OPS_EVAL_BY_COMPUTE;
}
