/* rnn.c - the recurrent layers RNN (1, 7, 14, 22), GRU (1, 3, 7, 14, 22)
 * and LSTM (1, 7, 14, 22) as one loop nest over the time steps.
 *
 * Inputs X [T,B,I] (layout 1: [B,T,I]), W [D,G*H,I], R [D,G*H,H], optional
 * B [D,2*G*H] (input biases then recurrent ones), sequence_lens [B],
 * initial_h [D,B,H] (layout 1: [B,D,H]), LSTM initial_c and peepholes P
 * [D,3H] (i, o, f). Gates: RNN one (i), GRU three (z, r, h), LSTM four
 * (i, o, f, c). Outputs Y [T,D,B,H] (layout 1: [B,T,D,H]), Y_h and Y_c
 * like initial_h. Direction 0 runs forward (or reverse when direction is
 * "reverse"), direction 1 of a bidirectional layer reverse. With
 * sequence_lens a batch entry runs its first len steps only (reverse from
 * len - 1 down), Y is 0 past them and Y_h/Y_c hold the last state. LSTM
 * with input_forget couples the forget gate to 1 - i.
 *
 * Structure: a first stage computes the input projection X·Wᵀ + Wb of
 * every time step and direction at once ([D, T*B, G*H], one batched GEMM;
 * float32 with W stored in panels or transposed takes the register-tiled
 * GEMM schedule, SCHED_GEMM; with panels the stage runs over [D, panel,
 * row, lane] and writes px[d, row, panel*WP + lane]). The custom loop nest then runs, per direction and step:
 *  - the recurrent product gr[b, g] = Rb[g] + sum_k h[b,k] R[d,g,k] of all
 *    B batch entries, gate by gate, as a matrix product (mm_build below):
 *    column blocks of vectors of the target's width outermost, row blocks
 *    of a few batch entries inside, each tile accumulating in a small
 *    unrolled local that emit_c keeps in registers, vectorized along g when
 *    R is packed in panels of vector-width columns (contiguous in g); tails
 *    of rows, whole vectors and single columns. Other types and
 *    non-constant weights run the same nest with scalar tiles (same
 *    summation order, k ascending).
 *  - per batch entry still within its sequence: gate activations and the
 *    new state, loops over the hidden units j vectorized in whole vectors
 *    plus a scalar tail. The projection's row of (step, b) holds the gate
 *    pre-activations and is overwritten in place by the gates. GRU without
 *    linear_before_reset needs r before its third gate's product: z and r
 *    and r*h first, then a second product (r*h)·Rhᵀ, then h~ and h.
 * Entries past their sequence length still take part in the product (the
 * result is not used); their state is left alone. With threads, the two
 * directions of a bidirectional layer run at once, one per thread, each on
 * its own state (64 steps of a 256-unit LSTM layer, bidirectional: 3.9 ->
 * 2.7 ms at 2 threads); one direction shares each step's gate products
 * among the threads when the step is large enough.
 *
 * W and R: [D,G*H,I] and [D,G*H,H] as ONNX has them, or, for float32
 * constants (pass layout), W in panels of WP = at.rnn.w_panels gate columns,
 * [D, G*H/WP * I, WP] (WP = two vectors, when it divides G*H), else
 * transposed, [D,I,G*H] (at.rnn.w_transposed), and
 * on vector targets R per direction and gate in panels of P = at.rnn.r_panels
 * gate columns, [D, G*ceil(H/P), H*P], zero past H. The projection, the
 * states (one per direction), the products and r*h live in one arena scratch
 * (rnn_scratch_elems; Node.scratch, pass hidden), not on the stack. The clip
 * bound applies to the input of every activation (LSTM's h(c) included, as
 * the spec words it; onnxruntime leaves h(c) unclipped).
 *
 * The int8 form (LSTM only, at.rnn.q8; pass lower_msquant's
 * DynamicQuantizeLSTM, docs/ARCHITECTURE.md): X uint8 with its scale and
 * zero point (inputs 8, 9), W and R int8 (w - zero point) as ONNX lays
 * them out or (pass layout) W as [D, I/4, G*H*4] and R in panels with 4
 * k-values to a lane, W's and R's per-column scales and column sums
 * (inputs 10..13, [D, G*H]). The projection is an int32 stage of 4-product
 * sums (ops/rnn_q8.c); each step quantizes h to uint8 as ONNX Runtime does
 * (rnn_q8_quantize_h, into a second, uint8 scratch) and the recurrent
 * product runs on the same 4-product body (mm_tile); both finalize in
 * float32 with the zero points' column-sum terms and the scales.
 *
 * Typed attributes (Node.at.rnn, ir/op_attrs.h): hidden size, dirs 0
 * forward / 1 reverse / 2 bidirectional, layout, linear_before_reset,
 * input_forget, clip (0: none), the activation codes (ActKind) per
 * direction with their alpha and beta, q8 (the int8 form) and (set by
 * pass layout) W in panels or transposed, R in panels. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ops/compute.h"
#include "ops/op_util.h"
#include "ops/ops.h"
#include "ops/rnn_q8.h"

typedef enum ActKind {
    A_RELU, A_TANH, A_SIGMOID, A_AFFINE, A_LEAKYRELU, A_THRESHRELU, A_SCALEDTANH, A_HARDSIGMOID, A_ELU,
    A_SOFTSIGN, A_SOFTPLUS, A_COUNT
} ActKind;

static const struct {
    const char *name;
    int n_alpha, n_beta;
    float alpha, beta;
} ACTS[A_COUNT] = {
    {"relu", 0, 0, 0, 0},         {"tanh", 0, 0, 0, 0},         {"sigmoid", 0, 0, 0, 0},
    {"affine", 1, 1, 1.0f, 0.0f}, {"leakyrelu", 1, 0, 0.01f, 0}, {"thresholdedrelu", 1, 0, 1.0f, 0},
    {"scaledtanh", 1, 1, 1.0f, 1.0f}, {"hardsigmoid", 1, 1, 0.2f, 0.5f}, {"elu", 1, 0, 1.0f, 0},
    {"softsign", 0, 0, 0, 0},     {"softplus", 0, 0, 0, 0},
};

static int gates_of(OpKind op)
{
    return op == OP_RNN ? 1 : op == OP_GRU ? 3 : 4;
}

static int acts_of(OpKind op)
{
    return op == OP_RNN ? 1 : op == OP_GRU ? 2 : 3;
}

static int act_code(const char *s)
{
    char low[32];
    size_t i = 0;
    for (; s[i] && i + 1 < sizeof low; i++)
        low[i] = (char)tolower((unsigned char)s[i]);
    low[i] = 0;
    for (int k = 0; k < A_COUNT; k++)
        if (!strcmp(low, ACTS[k].name))
            return k;
    return -1;
}

/* the state of one direction in the scratch: h [B,H], c [B,H] (LSTM) or
 * r*h [B,H] (GRU), the recurrent products gr [B,G*H] of the current step */
static int64_t rnn_state_elems(OpKind op, int q8, int64_t B, int64_t H)
{
    return (op == OP_LSTM || op == OP_GRU ? 2 : 1) * B * H + B * gates_of(op) * H + (q8 ? 2 : 0);
}

/* scratch elements: the input projection [D,T*B,G*H] of every step and
 * direction, then one state per direction (the two directions of a
 * bidirectional layer run on two threads at once); sizes already bounded
 * by op_rnn_infer */
static int64_t rnn_scratch_elems(OpKind op, int q8, int64_t D, int64_t T, int64_t B, int64_t H)
{
    return D * T * B * gates_of(op) * H + D * rnn_state_elems(op, q8, B, H) + 1;
}

int op_rnn_infer(Graph *g, int node, Diag *d)
{
    Node *n = &g->nodes[node];
    int lstm = n->op == OP_LSTM, G = gates_of(n->op), NA = acts_of(n->op), ver = n->version;
    /* the int8 form: only pass lower_msquant makes it (at.rnn.q8, for a
       DynamicQuantizeLSTM), never a model's LSTM */
    int q8 = lstm && n->at.rnn.q8;
    if (opu_check_arity(g, node, d, 3, q8 ? 14 : lstm ? 8 : 6, 0, lstm ? 3 : 2))
        return -1;
    Value *x = opu_in(g, node, 0), *w = opu_in(g, node, 1), *r = opu_in(g, node, 2);
    DType t = q8 ? DT_FLOAT32 : x->dtype;
    if (t != DT_FLOAT32 && t != DT_FLOAT64 && t != DT_FLOAT16 && !(t == DT_BFLOAT16 && ver >= 22))
        return diag_error(d, g, node, "input type %s is not supported", dtype_name(t));
    const char *dir = attr_string(n, "direction", "forward");
    int dirs = !strcmp(dir, "forward") ? 0 : !strcmp(dir, "reverse") ? 1 : !strcmp(dir, "bidirectional") ? 2 : -1;
    if (dirs < 0)
        return diag_error(d, g, node, "unknown direction '%s'", dir);
    int D = dirs == 2 ? 2 : 1, layout = ver >= 14 ? (int)attr_int(n, "layout", 0) : 0;
    if (layout != 0 && layout != 1)
        return diag_error(d, g, node, "layout must be 0 or 1");
    if (x->shape.rank != 3 || w->shape.rank != 3 || r->shape.rank != 3)
        return diag_error(d, g, node, "X, W and R must be 3-D");
    int64_t T = x->shape.dims[layout ? 1 : 0], B = x->shape.dims[layout ? 0 : 1], I = x->shape.dims[2];
    /* w_transposed: pass layout stored W transposed, [D,I,G*H]; r_panels > 1:
       R packed in panels of r_panels gate columns, [D,G*HP,H*r_panels] */
    RnnAttrs *ra = &n->at.rnn;
    int wt = ra->w_transposed, gd = wt ? 2 : 1, kd = wt ? 1 : 2;
    int64_t rp = ra->r_panels > 1 ? ra->r_panels : 1;
    int64_t H = attr_int(n, "hidden_size",
                         ra->hidden > 0 ? ra->hidden : w->shape.dims[gd] / (q8 && wt ? 4 * G : G));
    if (H <= 0 || H > (1 << 20))
        return diag_error(d, g, node, "hidden_size %lld is out of range (1..%d)", (long long)H, 1 << 20);
    int64_t wp = ra->w_panels > 1 ? ra->w_panels : 1;
    if (q8 && (x->dtype != DT_UINT8 || w->dtype != DT_INT8 || r->dtype != DT_INT8 || wp > 1 || I % 4 || H % 4 ||
               w->shape.dims[0] != D || w->shape.dims[1] != (wt ? I / 4 : G * H) ||
               w->shape.dims[2] != (wt ? G * H * 4 : I)))
        return diag_error(d, g, node, "malformed int8 LSTM weights W %s (internal error)", opu_shape_str(&w->shape));
    if (q8) {
        /* x_scale, x_zero_point; W's scales and column sums, R's, [D, G*H] */
        static const DType qt[6] = {DT_FLOAT32, DT_UINT8, DT_FLOAT32, DT_INT32, DT_FLOAT32, DT_INT32};
        for (int i = 8; i < 14; i++) {
            Value *v = opu_in(g, node, i);
            int64_t cnt = 0, want = i < 10 ? 1 : D * G * H;
            if (!v || v->dtype != qt[i - 8] || !shape_numel(&v->shape, &cnt) || cnt != want)
                return diag_error(d, g, node, "malformed int8 LSTM input %d (internal error)", i);
        }
    } else if (wp > 1) { /* W in panels of wp gate columns, [D, G*H/wp * I, wp] */
        if (wp > 64 || (G * H) % wp || w->shape.dims[0] != D || w->shape.dims[1] != (G * H / wp) * I ||
            w->shape.dims[2] != wp)
            return diag_error(d, g, node, "packed W %s does not fit [%d,%lld,%lld]", opu_shape_str(&w->shape), D,
                              (long long)((G * H / (wp > 0 ? wp : 1)) * I), (long long)wp);
    } else if (H <= 0 || w->shape.dims[0] != D || w->shape.dims[gd] != G * H || w->shape.dims[kd] != I)
        return diag_error(d, g, node, "W %s does not fit [%d,%lld,%lld]", opu_shape_str(&w->shape), D,
                          (long long)(G * H), (long long)I);
    int64_t rpad = q8 && rp > 1 ? ra->r_pad : 0; /* int8 panels: padding after each (pass layout) */
    if (rpad < 0 || rpad > 256)
        return diag_error(d, g, node, "R panel padding %lld is out of range", (long long)rpad);
    if (rp > 1 && H <= (1 << 20) && rp <= 64) {
        int64_t HP = (H + rp - 1) / rp;
        if (r->shape.dims[0] != D || r->shape.dims[1] != G * HP || r->shape.dims[2] != H * rp + rpad)
            return diag_error(d, g, node, "packed R %s does not fit [%d,%lld,%lld]", opu_shape_str(&r->shape), D,
                              (long long)(G * HP), (long long)(H * rp + rpad));
    } else if (rp > 1) {
        return diag_error(d, g, node, "R panel width %lld is out of range", (long long)rp);
    } else if (r->shape.dims[0] != D || r->shape.dims[1] != G * H || r->shape.dims[2] != H)
        return diag_error(d, g, node, "R %s does not fit [%d,%lld,%lld]", opu_shape_str(&r->shape), D,
                          (long long)(G * H), (long long)H);
    for (int i = 1; i < (q8 ? 8 : n->n_in); i++) {
        Value *v = opu_in(g, node, i);
        if (!v || i == 4 || (q8 && i < 3))
            continue;
        if (v->dtype != t)
            return diag_error(d, g, node, "input %d must be %s like X", i, dtype_name(t));
    }
    Value *bias = opu_in(g, node, 3), *sl = opu_in(g, node, 4), *h0 = opu_in(g, node, 5);
    Value *c0 = lstm ? opu_in(g, node, 6) : NULL, *p = lstm ? opu_in(g, node, 7) : NULL;
    int64_t sdims[3] = {D, B, H};
    if (layout)
        sdims[0] = B, sdims[1] = D;
    Shape st = shape_make(3, sdims);
    if (bias && (bias->shape.rank != 2 || bias->shape.dims[0] != D || bias->shape.dims[1] != 2 * G * H))
        return diag_error(d, g, node, "B must be [%d,%lld]", D, (long long)(2 * G * H));
    if (sl && (sl->dtype != DT_INT32 && sl->dtype != DT_INT64))
        return diag_error(d, g, node, "sequence_lens must be int32");
    if (sl && (sl->shape.rank != 1 || sl->shape.dims[0] != B))
        return diag_error(d, g, node, "sequence_lens must be [%lld]", (long long)B);
    if (h0 && !shape_equal(&h0->shape, &st))
        return diag_error(d, g, node, "initial_h must be %s", opu_shape_str(&st));
    if (c0 && !shape_equal(&c0->shape, &st))
        return diag_error(d, g, node, "initial_c must be %s", opu_shape_str(&st));
    if (p && (p->shape.rank != 2 || p->shape.dims[0] != D || p->shape.dims[1] != 3 * H))
        return diag_error(d, g, node, "P must be [%d,%lld]", D, (long long)(3 * H));
    /* sizes checked one factor at a time, so no product overflows */
    if (T < 0 || B < 0 || I < 0 || T > (1 << 24) || B > (1 << 24) || H > (1 << 20) || B * H > (1 << 20) ||
        G * H > (1 << 20) || T * B > (1 << 24) || D * T * B > (1 << 24) || D * T * B * G * H > ((int64_t)1 << 28))
        return diag_error(d, g, node, "the recurrent state or its input projection is too large");
    /* the input projection of every time step, [D, rows of X, G*H] in the
       compute type, lives in an arena scratch buffer (pass hidden) */
    DType ct = t == DT_FLOAT64 ? DT_FLOAT64 : DT_FLOAT32;
    n->scratch.dtype = ct;
    n->scratch.bytes = rnn_scratch_elems(n->op, q8, D, T, B, H) * (int64_t)dtype_size(ct);
    n->scratch.bytes_u8 = q8 ? D * B * H : 0; /* the int8 form's quantized states h */
    /* activations, consumed per direction; alphas/betas in the order of
     * the activations that take them */
    int n_act = 0;
    const Attr *aa = node_attr(n, "activations");
    int64_t codes[6];
    if (aa && aa->kind == ATTR_STRINGS && aa->n > 0) {
        if (aa->n != NA * D && aa->n != NA)
            return diag_error(d, g, node, "activations has %d entries, expected %d", aa->n, NA * D);
        for (int k = 0; k < NA * D; k++) {
            int c = act_code(aa->strings[k % aa->n]);
            if (c < 0)
                return diag_error(d, g, node, "unsupported activation '%s'", aa->strings[k % aa->n]);
            codes[n_act++] = c;
        }
    } else {
        static const int defs[3][3] = {{A_TANH}, {A_SIGMOID, A_TANH}, {A_SIGMOID, A_TANH, A_TANH}};
        for (int k = 0; k < NA * D; k++)
            codes[n_act++] = defs[NA - 1][k % NA];
    }
    const Attr *al = node_attr(n, "activation_alpha"), *be = node_attr(n, "activation_beta");
    int ia = 0, ib = 0;
    for (int k = 0; k < n_act; k++) {
        float a = ACTS[codes[k]].alpha, b = ACTS[codes[k]].beta;
        if (ACTS[codes[k]].n_alpha && al && al->kind == ATTR_FLOATS && ia < al->n)
            a = al->floats[ia++];
        if (ACTS[codes[k]].n_beta && be && be->kind == ATTR_FLOATS && ib < be->n)
            b = be->floats[ib++];
        ra->act[k] = (int)codes[k];
        ra->act_alpha[k] = a;
        ra->act_beta[k] = b;
    }
    ra->n_act = n_act;
    ra->hidden = H;
    ra->dirs = dirs;
    ra->layout = layout;
    ra->linear_before_reset = n->op == OP_GRU && ver >= 3 ? (int)attr_int(n, "linear_before_reset", 0) : 0;
    ra->input_forget = lstm ? (int)attr_int(n, "input_forget", 0) : 0;
    const Attr *cl = node_attr(n, "clip");
    ra->clip = cl && cl->kind == ATTR_FLOAT ? cl->f : 0.0f;
    int64_t ydims[4] = {T, D, B, H};
    if (layout)
        ydims[0] = B, ydims[1] = T, ydims[2] = D;
    opu_set_out(g, node, 0, t, shape_make(4, ydims));
    opu_set_out(g, node, 1, t, st);
    if (lstm)
        opu_set_out(g, node, 2, t, st);
    return 0;
}

typedef struct RnnB {
    ComputeCtx *cx;
    LoopBuilder *lb;
    LType t;
    const Node *n;
    int dir;  /* index of this direction's activations */
    float clip;
} RnnB;

static Expr *cst(RnnB *r, double v)
{
    return lx_const_f(r->lb, r->t, v);
}

/* activation k (0 f, 1 g, 2 h) of the direction, with clipping */
static Expr *act(RnnB *r, int k, Expr *x)
{
    LoopBuilder *lb = r->lb;
    const RnnAttrs *ra = &r->n->at.rnn;
    int idx = r->dir * acts_of(r->n->op) + k;
    double a = ra->act_alpha[idx], b = ra->act_beta[idx];
    if (r->clip > 0)
        x = lx_bin(lb, BO_MIN, lx_bin(lb, BO_MAX, x, cst(r, -r->clip)), cst(r, r->clip));
    switch ((ActKind)ra->act[idx]) {
    case A_RELU: return lx_bin(lb, BO_MAX, x, cst(r, 0));
    case A_TANH: return lx_call(lb, CO_TANH, x);
    case A_SIGMOID: return lx_call(lb, CO_SIGMOID, x);
    case A_AFFINE: return lx_add(lb, lx_mul(lb, cst(r, a), x), cst(r, b));
    case A_LEAKYRELU: return lx_select(lb, lx_bin(lb, BO_GE, x, cst(r, 0)), x, lx_mul(lb, cst(r, a), x));
    case A_THRESHRELU: return lx_select(lb, lx_bin(lb, BO_GT, x, cst(r, a)), x, cst(r, 0));
    case A_SCALEDTANH: return lx_mul(lb, cst(r, a), lx_call(lb, CO_TANH, lx_mul(lb, cst(r, b), x)));
    case A_HARDSIGMOID:
        return lx_bin(lb, BO_MAX, cst(r, 0), lx_bin(lb, BO_MIN, cst(r, 1), lx_add(lb, lx_mul(lb, cst(r, a), x), cst(r, b))));
    case A_ELU:
        return lx_select(lb, lx_bin(lb, BO_GE, x, cst(r, 0)), x,
                         lx_mul(lb, cst(r, a), lx_sub(lb, lx_call(lb, CO_EXP, x), cst(r, 1))));
    case A_SOFTSIGN: return lx_div(lb, x, lx_add(lb, cst(r, 1), lx_call(lb, CO_ABS, x)));
    case A_SOFTPLUS: /* max(x, 0) + log1p(e^-|x|): no overflow */
        return lx_add(lb, lx_bin(lb, BO_MAX, x, cst(r, 0)),
                      lx_call(lb, CO_LOG1P, lx_call(lb, CO_EXP, lx_call(lb, CO_NEG, lx_call(lb, CO_ABS, x)))));
    default: return x;
    }
}

static LBuf *opt_buf(ComputeCtx *cx, const Node *n, int i, int out)
{
    int v = out ? (i < n->n_out ? n->out[i] : -1) : (i < n->n_in ? n->in[i] : -1);
    if (out && v >= 0 && (v == n->scratch.value || v == n->scratch.value_u8))
        v = -1; /* the hidden scratch outputs, not Y / Y_h / Y_c */
    return v >= 0 ? cx->buf_of(cx, v) : NULL;
}

/* One register-tiled matrix product per step and gate (the recurrent
 * product):
 *   out[ob + b*os + c] = bias[bb + c] + sum_k a[ab + b*as + k] * w(k, c)
 * for b in 0..M, c in 0..N, k in 0..K, the sum in k order. w holds the
 * gate's N x K block of R in panels of Lp columns: w(k, c) = w[wb +
 * ((c / Lp) * K + k) * Lp + c % Lp] (Lp = 1: R as ONNX stores it, row c
 * then k; Lp = the vector width: pass layout packed it so a vector of
 * columns is contiguous and each panel is read in sequence). Column blocks
 * of NR vectors of L = Lp lanes (L = 1: NR scalar columns) run outermost, so
 * a block of w stays in cache while every row block of MR rows of a passes;
 * each tile keeps its MR*NR*L sums in a local indexed by constants once the
 * unrolled loops are expanded (registers, emit_c), vectorized along c when
 * L > 1. Tails: a last row block of M % MR rows, then column tails of whole
 * vectors and of single columns.
 * The int8 form (q8): a is uint8 (the quantized h) and w int8 with 4
 * k-values to a column, w(4g+r, c) = w[wb + (c / Lp) * ps + ((g * Lp + c %
 * Lp) * 4 + r] over K = H/4 groups g (a panel is H*Lp bytes, then
 * at.rnn.r_pad bytes of padding: ps apart); the int32 sum of a group's 4
 * products is the body lp_vectorize turns into a dot product (EX_DOT), and
 * the store is bias + (acc - a_zp * wsum[sb + c]) * (a_scale * wscale[sb +
 * c]). */
typedef struct Mm {
    LoopBuilder *lb;
    LType t;
    LBuf *a, *w, *bias, *out;
    Expr *ab, *wb, *bb, *ob;
    int64_t as, os, M, N, K, MR, NR, L;
    int q8;
    int64_t ps; /* q8: bytes from one panel to the next (K*L*4 and padding) */
    LBuf *wsum, *wscale;
    Expr *sb, *a_scale, *a_zp;
} Mm;

/* the tile of rows b0.., columns c0 + u*L + l (U vectors of L lanes, or U
 * single columns when L = 1); c0 is a multiple of p->L, c0p = c0 / p->L */
static Stmt *mm_tile(const Mm *p, Expr *b0, Expr *c0, Expr *c0p, int64_t T, int64_t U, int64_t L)
{
    LoopBuilder *lb = p->lb;
    LType t = p->t;
    LVar *j = lv_new(lb, "j"), *u = lv_new(lb, "u"), *l = lv_new(lb, "l"), *k = lv_new(lb, "k");
    Expr *le = L > 1 ? lx_var(lb, l) : lx_int(lb, 0), *ue = lx_var(lb, u);
    Expr *row = lx_add(lb, b0, lx_var(lb, j));
    Expr *col = lx_add(lb, c0, lx_add(lb, lx_muli(lb, ue, L), le));
    /* panel and column in it: vectors are whole panels; single columns of a
       tail lie in one panel (fewer than p->L of them) unless panels are 1 wide */
    Expr *panel = L > 1 || p->L == 1 ? lx_add(lb, c0p, ue) : c0p;
    Expr *inp = L > 1 ? le : p->L == 1 ? lx_int(lb, 0) : ue;
    LBuf *acc = lbuf_new_typed(lb, "acc", LB_LOCAL, p->q8 ? DT_INT32 : lt_dtype(t), T * U * L);
    Expr *slot = lx_add(lb, lx_muli(lb, lx_add(lb, lx_muli(lb, lx_var(lb, j), U), ue), L), le);
    Expr *bias = p->bias ? lx_cast(lb, t, lx_load(lb, p->bias, lx_add(lb, p->bb, col))) : NULL;
    Expr *init = p->q8 ? lx_const_i(lb, LT_I32, 0) : bias ? bias : lx_zero(lb, t);
    Expr *wi = lx_add(lb, lx_muli(lb, lx_add(lb, lx_muli(lb, panel, p->K), lx_var(lb, k)), p->L), inp);
    Expr *prod = NULL, *res = lx_load(lb, acc, slot);
    if (p->q8) { /* the 4 products of one k group: EX_DOT's unit */
        for (int r = 0; r < 4; r++) {
            Expr *ki = lx_add(lb, lx_muli(lb, lx_var(lb, k), 4), lx_int(lb, r));
            Expr *ai = lx_add(lb, p->ab, lx_add(lb, lx_muli(lb, row, p->as), ki));
            Expr *wg = lx_muli(lb, lx_add(lb, lx_muli(lb, lx_var(lb, k), p->L), inp), 4);
            Expr *wr = lx_add(lb, lx_add(lb, p->wb, lx_add(lb, lx_muli(lb, panel, p->ps), wg)), lx_int(lb, r));
            Expr *pr = lx_mul(lb, lx_cast(lb, LT_I32, lx_load(lb, p->a, ai)),
                              lx_cast(lb, LT_I32, lx_load(lb, p->w, wr)));
            prod = prod ? lx_add(lb, prod, pr) : pr;
        }
        Expr *si = lx_add(lb, p->sb, col);
        Expr *zs = lx_mul(lb, lx_cast(lb, LT_I32, p->a_zp), lx_load(lb, p->wsum, si));
        res = lx_mul(lb, lx_cast(lb, t, lx_sub(lb, res, zs)), lx_mul(lb, p->a_scale, lx_load(lb, p->wscale, si)));
        if (bias)
            res = lx_add(lb, bias, res);
    } else {
        Expr *av =
            lx_cast(lb, t, lx_load(lb, p->a, lx_add(lb, p->ab, lx_add(lb, lx_muli(lb, row, p->as), lx_var(lb, k)))));
        prod = lx_mul(lb, av, lx_cast(lb, t, lx_load(lb, p->w, lx_add(lb, p->wb, wi))));
    }
    Stmt *s3[3] = {ls_store(lb, acc, slot, init), ls_store(lb, acc, slot, lx_add(lb, lx_load(lb, acc, slot), prod)),
                   ls_store(lb, p->out, lx_add(lb, p->ob, lx_add(lb, lx_muli(lb, row, p->os), col)), res)};
    for (int i = 0; i < 3; i++) { /* for j in tile T { for u in tile U { for l in the panel's lanes } } */
        if (L > 1)
            s3[i] = ls_role(ls_for(lb, l, L, LOOP_SERIAL, s3[i]), LR_PANEL, 0);
        s3[i] = ls_role(ls_for(lb, j, T, LOOP_SERIAL, ls_role(ls_for(lb, u, U, LOOP_SERIAL, s3[i]), LR_TILE, 0)), LR_TILE, 0);
    }
    s3[1] = ls_for(lb, k, p->K, LOOP_SERIAL, s3[1]);
    return ls_alloc(lb, acc, ls_seq(lb, 3, s3));
}

/* every row block of the columns c0 .. c0 + U*L */
static Stmt *mm_rows(const Mm *p, Expr *c0, Expr *c0p, int64_t U, int64_t L)
{
    LoopBuilder *lb = p->lb;
    int64_t full = p->M / p->MR, rest = p->M % p->MR;
    Stmt *two[2] = {NULL, NULL};
    if (full > 0) {
        LVar *bt = lv_new(lb, "bt");
        two[0] = ls_for(lb, bt, full, LOOP_SERIAL,
                        mm_tile(p, lx_muli(lb, lx_var(lb, bt), p->MR), c0, c0p, p->MR, U, L));
    }
    if (rest > 0)
        two[1] = mm_tile(p, lx_int(lb, full * p->MR), c0, c0p, rest, U, L);
    return ls_seq(lb, 2, two);
}

static Stmt *mm_build(const Mm *p)
{
    LoopBuilder *lb = p->lb;
    int64_t NB = p->NR * p->L, full = p->N / NB, rest = p->N - full * NB;
    int64_t nv = p->L > 1 ? rest / p->L : 0, ns = rest - nv * p->L;
    Stmt *s3[3] = {NULL, NULL, NULL};
    if (p->M <= 0 || p->N <= 0)
        return NULL;
    if (full > 0) {
        LVar *ct = lv_new(lb, "ct");
        s3[0] = ls_for(lb, ct, full, LOOP_SERIAL,
                       mm_rows(p, lx_muli(lb, lx_var(lb, ct), NB), lx_muli(lb, lx_var(lb, ct), p->NR), p->NR, p->L));
    }
    if (nv > 0)
        s3[1] = mm_rows(p, lx_int(lb, full * NB), lx_int(lb, full * p->NR), nv, p->L);
    if (ns > 0)
        s3[2] = mm_rows(p, lx_int(lb, full * NB + nv * p->L), lx_int(lb, full * p->NR + nv), ns, 1);
    return ls_seq(lb, 3, s3);
}

/* for j in 0..n { body }, contiguous in j when `lanes` (float32): the
 * schedule may run it in vectors (emit_c prints a vector loop it cannot
 * vectorize as a plain loop, so the body need not qualify) */
static Stmt *jloop(LoopBuilder *lb, int lanes, LVar *j, int64_t n, Stmt *body)
{
    return ls_role(ls_for(lb, j, n, LOOP_SERIAL, body), lanes ? LR_LANES : LR_NONE, 0);
}

#define E(v) lx_var(lb, v)
#define I(k) lx_int(lb, k)
#define LD(b, i) lx_cast(lb, t, lx_load(lb, b, i))
#define SC(off) lx_load(lb, px, off)            /* a scratch element */
#define SCS(off, v) ls_store(lb, px, off, v)

int compute_rnn(ComputeCtx *cx, int node, ComputeDef *def)
{
    LoopBuilder *lb = cx->lb;
    const Node *n = &cx->g->nodes[node];
    const Value *x = &cx->g->values[n->in[0]];
    int lstm = n->op == OP_LSTM, gru = n->op == OP_GRU, G = gates_of(n->op);
    const RnnAttrs *ra = &n->at.rnn;
    int layout = ra->layout, dirs = ra->dirs;
    int lbr = ra->linear_before_reset, inpf = ra->input_forget;
    int wt = ra->w_transposed; /* W, R stored transposed (pass layout) */
    int D = dirs == 2 ? 2 : 1;
    int64_t T = x->shape.dims[layout ? 1 : 0], B = x->shape.dims[layout ? 0 : 1], IN = x->shape.dims[2];
    int64_t H = ra->hidden, GH = G * H;
    int q8 = ra->q8; /* the int8 form: float32 arithmetic around integer products */
    LType t = q8 ? LT_F32 : lt_of_dtype(x->dtype);
    RnnB rb = {cx, lb, t, n, 0, ra->clip};
    LBuf *xb = opt_buf(cx, n, 0, 0), *wb = opt_buf(cx, n, 1, 0), *rwb = opt_buf(cx, n, 2, 0);
    LBuf *bb = opt_buf(cx, n, 3, 0), *slb = opt_buf(cx, n, 4, 0), *h0b = opt_buf(cx, n, 5, 0);
    LBuf *c0b = lstm ? opt_buf(cx, n, 6, 0) : NULL, *pb = lstm ? opt_buf(cx, n, 7, 0) : NULL;
    LBuf *yb = opt_buf(cx, n, 0, 1), *yhb = opt_buf(cx, n, 1, 1), *ycb = lstm ? opt_buf(cx, n, 2, 1) : NULL;
    DType ldt = lt_dtype(t);
    /* float32 may run in vectors along the gate axis when W and R are
       transposed (contiguous in g) and along j in the state updates */
    int lanes = t == LT_F32 && (x->dtype == DT_FLOAT32 || q8);
    /* Stage: the input projection of all time steps as one batched GEMM,
       px[d, r, g] = Wb[d, g] + sum_i X[r, i] W[d, g, i] over the rows r of X
       (in X's own layout). Code generation schedules it like Gemm into the
       arena scratch (the register-tiled GEMM schedule when pass layout
       stored W in panels or transposed); folding runs it naively into a
       local buffer. */
    int64_t ROWS = T * B;
    int sv = n->scratch.value;
    LBuf *px = sv >= 0 ? cx->buf_of(cx, sv)
                       : lbuf_new_typed(lb, "px", LB_LOCAL, ldt, rnn_scratch_elems(n->op, q8, D, T, B, H));
    /* the int8 form's quantized states h, [D, B, H] */
    LBuf *hq = NULL;
    if (q8)
        hq = sv >= 0 && n->scratch.value_u8 >= 0 ? cx->buf_of(cx, n->scratch.value_u8)
                                                 : lbuf_new_typed(lb, "hq", LB_LOCAL, DT_UINT8, D * B * H);
    int64_t WP = ra->w_panels > 1 ? ra->w_panels : 1; /* W in panels (pass layout) */
    if (q8) {
        if (rnn_q8_projection(cx, node, def, px, D, ROWS, GH) < 0)
            return -1;
    } else if (WP > 1) {
        /* W as [D, G*H/WP, I, WP]: the stage runs over [D, panel, row, lane]
           and writes px[d, r, panel*WP + lane] */
        int64_t NP = GH / WP, pd[4] = {D, NP, ROWS, WP};
        Shape ps = shape_make(4, pd);
        ComputeStage *ps_ = compute_stage_new(cx, def, n->name, px, &ps);
        if (!ps_)
            return compute_fail(cx, node, "too many stages (internal error)");
        LVar *iv = compute_add_raxis(cx, ps_, "i", IN);
        ps_->red = RED_SUM;
        Expr *ed = lx_var(lb, ps_->axis[0]), *ep = lx_var(lb, ps_->axis[1]), *er = lx_var(lb, ps_->axis[2]);
        Expr *eg = lx_add(lb, lx_muli(lb, ep, WP), lx_var(lb, ps_->axis[3]));
        Expr *xi = lx_add(lb, lx_muli(lb, er, IN), lx_var(lb, iv));
        Expr *wi = lx_add(lb, lx_muli(lb, lx_add(lb, lx_muli(lb, lx_add(lb, lx_muli(lb, ed, NP), ep), IN), lx_var(lb, iv)), WP),
                          lx_var(lb, ps_->axis[3]));
        ps_->body = lx_mul(lb, LD(xb, xi), LD(wb, wi));
        ps_->out_index = lx_add(lb, lx_muli(lb, lx_add(lb, lx_muli(lb, ed, ROWS), er), GH), eg);
        Expr *fin = lx_var(lb, ps_->acc);
        if (bb)
            fin = lx_add(lb, fin, LD(bb, lx_add(lb, lx_muli(lb, ed, 2 * GH), eg)));
        ps_->finalize = fin;
        if (ROWS >= 2)
            ps_->sched = SCHED_GEMM;
    } else {
        int64_t pd[3] = {D, ROWS, GH};
        Shape ps = shape_make(3, pd);
        ComputeStage *ps_ = compute_stage_new(cx, def, n->name, px, &ps);
        if (!ps_)
            return compute_fail(cx, node, "too many stages (internal error)");
        LVar *iv = compute_add_raxis(cx, ps_, "i", IN);
        ps_->red = RED_SUM;
        Expr *ed = lx_var(lb, ps_->axis[0]), *er = lx_var(lb, ps_->axis[1]), *eg = lx_var(lb, ps_->axis[2]);
        Expr *xi = lx_add(lb, lx_muli(lb, er, IN), lx_var(lb, iv));
        Expr *wi = wt ? lx_add(lb, lx_muli(lb, lx_add(lb, lx_muli(lb, ed, IN), lx_var(lb, iv)), GH), eg)
                      : lx_add(lb, lx_muli(lb, lx_add(lb, lx_muli(lb, ed, GH), eg), IN), lx_var(lb, iv));
        ps_->body = lx_mul(lb, LD(xb, xi), LD(wb, wi));
        Expr *fin = lx_var(lb, ps_->acc);
        if (bb)
            fin = lx_add(lb, fin, LD(bb, lx_add(lb, lx_muli(lb, ed, 2 * GH), eg)));
        ps_->finalize = fin;
        if (wt && lanes && ROWS >= 2 && GH >= 2 && ROWS * GH * IN >= 4096) {
            ps_->sched = SCHED_GEMM;
            ps_->sched_vector_only = 1;
        }
    }
    /* the product tiles: NR vectors (scalar: NR columns) by MR rows, as
       the schedule sizes them for the target's registers */
    /* R in panels of Lp gate columns (pass layout, float32 constants) or as
       ONNX stores it (Lp = 1); per direction and gate, HP panels of H rows */
    int64_t Lp = ra->r_panels > 1 ? ra->r_panels : 1, HP = (H + Lp - 1) / Lp;
    Mm mm = {.lb = lb, .t = t, .w = rwb, .bias = bb, .out = px, .a = px, .as = H, .os = GH, .M = B, .K = H,
             .N = H, .L = Lp};
    if (q8) { /* the products of the quantized h: R's scales and column sums */
        mm.q8 = 1;
        mm.a = hq;
        mm.K = H / 4;
        mm.ps = H * Lp + (Lp > 1 ? ra->r_pad : 0);
        mm.wscale = opt_buf(cx, n, 12, 0);
        mm.wsum = opt_buf(cx, n, 13, 0);
    }
    mm.MR = mm.NR = 1;
    if (cx->reg_tile)
        cx->reg_tile(cx, B, H, mm.L, &mm.MR, &mm.NR);
    Stmt *top[16];
    int nt = 0;
    if (yb && slb) { /* steps past a sequence's length stay 0 */
        LVar *k = lv_new(lb, "k");
        top[nt++] = ls_for(lb, k, T * D * B * H, LOOP_SERIAL, ls_store(lb, yb, E(k), lx_zero(lb, t)));
    }
    Stmt *dir_nest[2] = {NULL, NULL};
    for (int d = 0; d < D; d++) {
        int rev = dirs == 1 || d == 1;
        rb.dir = d;
        /* this direction's state in the scratch (rnn_state_elems): h [B,H],
           cell c [B,H] (LSTM), the recurrent products gr [B,G*H] of the
           current step and r*h [B,H] (GRU); not on the stack: they can be
           large */
        int64_t hs = D * ROWS * GH + d * rnn_state_elems(n->op, q8, B, H), cs = hs + B * H,
                gr = cs + (lstm ? B * H : 0), rh = gr + B * GH, qs = gr + B * GH;
        Stmt *ds[8];
        int nd = 0;
        /* state index of (b, j) in initial_h / Y_h */
#define SIDX(be, je) lx_add(lb, lx_muli(lb, layout ? lx_add(lb, lx_muli(lb, be, D), I(d)) : lx_add(lb, I(d * B), be), H), je)
        {
            LVar *b = lv_new(lb, "b"), *j = lv_new(lb, "j");
            Expr *hi = lx_add(lb, lx_muli(lb, E(b), H), E(j));
            Stmt *two[2];
            two[0] = SCS(lx_add(lb, I(hs), hi), h0b ? LD(h0b, SIDX(E(b), E(j))) : lx_zero(lb, t));
            two[1] = lstm ? SCS(lx_add(lb, I(cs), hi), c0b ? LD(c0b, SIDX(E(b), E(j))) : lx_zero(lb, t)) : NULL;
            ds[nd++] = ls_for(lb, b, B, LOOP_SERIAL, ls_for(lb, j, H, LOOP_SERIAL, ls_seq(lb, 2, two)));
        }
        LVar *s = lv_new(lb, "s");
        Expr *es = E(s);
        Stmt *st[12];
        int ns = 0;
        /* gr[b, g] = Rb[g] + sum_k h[b,k] R[d,g,k] for every batch entry,
           gate by gate (GRU without linear_before_reset: the z and r gates
           only); A = the states h (or r*h), rows of H */
#define GATE_MM(q, abase)                                                                  \
    do {                                                                                   \
        Mm m_ = mm;                                                                        \
        m_.ab = I(abase);                                                                  \
        m_.wb = I((d * G + (q)) * HP * (q8 ? mm.ps : H * Lp));                            \
        m_.bb = I(d * 2 * GH + GH + (q) * H);                                              \
        m_.ob = I(gr + (q) * H);                                                           \
        if (q8)                                                                            \
            m_.ab = I(d * B * H), m_.sb = I(d * GH + (q) * H);                            \
        st[ns++] = mm_build(&m_);                                                          \
    } while (0)
        if (q8) { /* h quantized as ONNX Runtime does, its scale and zero point at px[qs] */
            st[ns++] = rnn_q8_quantize_h(lb, px, hs, B * H, H, yb ? slb : NULL, es, T, qs, hq, d * B * H);
            mm.a_scale = SC(I(qs));
            mm.a_zp = SC(I(qs + 1));
        }
        int nq = gru && !lbr ? 2 : G, q0 = ns;
        for (int q = 0; q < nq; q++)
            GATE_MM(q, hs);
        /* one direction with threads: its gates' products (independent of
           each other) shared among them, one fork/join per step, when a
           step has at least 2^16 multiply-adds (gru_cls, 256 units: 0.60 ->
           0.50 ms at 2 threads); bidirectional layers put the threads on
           the directions instead (below) */
        if (D == 1 && sv >= 0 && nq >= 2) {
            Stmt *gates = ls_seq(lb, nq, st + q0);
            ns = q0;
            st[ns++] = ls_role(gates, LR_INDEPENDENT, B * H * H * nq);
        }
        /* then per batch entry still within its sequence: the gates and the
           new state; gx, the gate pre-activations of the input, is the
           projection's row of (step, b), overwritten in place */
        Stmt *part[2] = {NULL, NULL};
        for (int ph = 0; ph < (gru && !lbr ? 2 : 1); ph++) {
            LVar *b = lv_new(lb, "b");
            Expr *eb = E(b);
            Expr *L = slb ? lx_bin(lb, BO_MIN, lx_bin(lb, BO_MAX, lx_cast(lb, LT_IDX, lx_load(lb, slb, eb)), I(0)), I(T)) : I(T);
            Expr *et = rev ? lx_sub(lb, lx_sub(lb, L, I(1)), es) : es;
            Expr *xrow = layout ? lx_add(lb, lx_muli(lb, eb, T), et) : lx_add(lb, lx_muli(lb, et, B), eb);
            Expr *gx = lx_muli(lb, lx_add(lb, I(d * ROWS), xrow), GH);
            Expr *hrow = lx_add(lb, I(hs), lx_muli(lb, eb, H)), *crow = lx_add(lb, I(cs), lx_muli(lb, eb, H));
            Expr *grow = lx_add(lb, I(gr), lx_muli(lb, eb, GH)), *rrow = lx_add(lb, I(rh), lx_muli(lb, eb, H));
            Stmt *ps[6];
            int np = 0;
            LVar *jv = lv_new(lb, "j");
            Expr *ej = E(jv);
#define AT(row, k) lx_add(lb, row, lx_add(lb, I((k) * H), ej))
#define GX(k) SC(AT(gx, k))
#define GR(k) SC(AT(grow, k))
#define PRE(k) lx_add(lb, GX(k), GR(k))
#define HJ AT(hrow, 0)
#define CJ AT(crow, 0)
            if (!gru && !lstm) {
                ps[np++] = jloop(lb, lanes, jv, H, SCS(HJ, act(&rb, 0, PRE(0))));
            } else if (gru && ph == 0) {
                /* z, r in place into gx; without linear_before_reset r*h
                   for the second product, else h~ and h at once */
                Stmt *zr[4] = {SCS(AT(gx, 0), act(&rb, 0, PRE(0))), SCS(AT(gx, 1), act(&rb, 0, PRE(1))), NULL, NULL};
                if (!lbr) {
                    zr[2] = SCS(AT(rrow, 0), lx_mul(lb, GX(1), SC(HJ)));
                } else {
                    zr[2] = SCS(AT(grow, 2), act(&rb, 1, lx_add(lb, GX(2), lx_mul(lb, GX(1), GR(2)))));
                    zr[3] = SCS(HJ, lx_add(lb, lx_mul(lb, lx_sub(lb, cst(&rb, 1), GX(0)), GR(2)), lx_mul(lb, GX(0), SC(HJ))));
                }
                ps[np++] = jloop(lb, lanes, jv, H, ls_seq(lb, 4, zr));
            } else if (gru) {
                /* h~ = g(gx_h + Rbh + (r*h) Rhᵀ), then h = (1 - z) h~ + z h */
                Stmt *two[2] = {SCS(AT(grow, 2), act(&rb, 1, PRE(2))),
                                SCS(HJ, lx_add(lb, lx_mul(lb, lx_sub(lb, cst(&rb, 1), GX(0)), GR(2)),
                                               lx_mul(lb, GX(0), SC(HJ))))};
                ps[np++] = jloop(lb, lanes, jv, H, ls_seq(lb, 2, two));
            } else {
                /* LSTM: i into gx[j], f into gx[2H+j], c~ into gx[3H+j], c, o into gx[H+j], h */
#define PEEP(k) (pb ? LD(pb, lx_add(lb, I(d * 3 * H + (k) * H), ej)) : NULL)
                Expr *ip = PRE(0), *fp = PRE(2), *op = PRE(1);
                if (pb) {
                    ip = lx_add(lb, ip, lx_mul(lb, PEEP(0), SC(CJ)));
                    fp = lx_add(lb, fp, lx_mul(lb, PEEP(2), SC(CJ)));
                }
                Stmt *ls[6];
                ls[0] = SCS(AT(gx, 0), act(&rb, 0, ip));
                ls[1] = SCS(AT(gx, 2), inpf ? lx_sub(lb, cst(&rb, 1), GX(0)) : act(&rb, 0, fp));
                ls[2] = SCS(AT(gx, 3), act(&rb, 1, PRE(3)));
                ls[3] = SCS(CJ, lx_add(lb, lx_mul(lb, GX(2), SC(CJ)), lx_mul(lb, GX(0), GX(3))));
                if (pb)
                    op = lx_add(lb, op, lx_mul(lb, PEEP(1), SC(CJ)));
                ls[4] = SCS(AT(gx, 1), act(&rb, 0, op));
                ls[5] = SCS(HJ, lx_mul(lb, GX(1), act(&rb, 2, SC(CJ))));
#undef PEEP
                ps[np++] = jloop(lb, lanes, jv, H, ls_seq(lb, 6, ls));
            }
#undef CJ
#undef PRE
#undef GR
#undef GX
            if (yb && ph == (gru && !lbr ? 1 : 0)) {
                LVar *j4 = lv_new(lb, "j");
                Expr *yrow = layout ? lx_add(lb, lx_muli(lb, lx_add(lb, lx_muli(lb, eb, T), et), D), I(d))
                                    : lx_add(lb, lx_muli(lb, lx_add(lb, lx_muli(lb, et, D), I(d)), B), eb);
                ps[np++] = jloop(lb, lanes, j4, H,
                                 ls_store(lb, yb, lx_add(lb, lx_muli(lb, yrow, H), E(j4)),
                                          SC(lx_add(lb, hrow, E(j4)))));
            }
#undef HJ
#undef AT
            Stmt *step = ls_seq(lb, np, ps);
            if (slb)
                step = ls_if(lb, lx_bin(lb, BO_LT, es, L), step);
            part[ph] = ls_for(lb, b, B, LOOP_SERIAL, step);
        }
        st[ns++] = part[0];
        if (part[1]) { /* GRU: the product of r*h by Rhᵀ, then h~ and h */
            GATE_MM(2, rh);
            st[ns++] = part[1];
        }
#undef GATE_MM
        ds[nd++] = ls_for(lb, s, T, LOOP_SERIAL, ls_seq(lb, ns, st));
        /* Y_h, Y_c */
        {
            LVar *b5 = lv_new(lb, "b"), *j5 = lv_new(lb, "j");
            Expr *hi = lx_add(lb, lx_muli(lb, E(b5), H), E(j5));
            Expr *hv = SC(lx_add(lb, I(hs), hi)), *cv = SC(lx_add(lb, I(cs), hi));
            if (q8 && slb) { /* ONNX Runtime's DynamicQuantizeLSTM: 0 for an entry of length 0 */
                Expr *ran = rnn_q8_within(lb, slb, E(b5), I(1), T);
                hv = lx_select(lb, ran, hv, lx_zero(lb, t));
                cv = lx_select(lb, ran, cv, lx_zero(lb, t));
            }
            Stmt *two[2] = {yhb ? ls_store(lb, yhb, SIDX(E(b5), E(j5)), hv) : NULL,
                            ycb ? ls_store(lb, ycb, SIDX(E(b5), E(j5)), cv) : NULL};
            if (yhb || ycb)
                ds[nd++] = ls_for(lb, b5, B, LOOP_SERIAL, ls_for(lb, j5, H, LOOP_SERIAL, ls_seq(lb, 2, two)));
        }
#undef SIDX
        dir_nest[d] = ls_seq(lb, nd, ds);
    }
    if (D == 2 && sv >= 0) { /* the directions are independent (two threads at once) */
        top[nt++] = ls_role(ls_seq(lb, 2, dir_nest), LR_INDEPENDENT, -1);
    } else {
        for (int d = 0; d < D; d++)
            top[nt++] = dir_nest[d];
    }
    Stmt *body = ls_seq(lb, nt, top);
    if (sv < 0) { /* folding: the projection stage lowered inside the nest */
        Stmt *two[2] = {compute_lower_naive(lb, &def->stages[0]), body};
        body = ls_alloc(lb, px, ls_seq(lb, 2, two));
        if (q8)
            body = ls_alloc(lb, hq, body);
        def->n_stages = 0;
    }
    def->custom = body;
    return 0;
}

DEFINE_EVAL_BY_COMPUTE(rnn)
