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
 * with input_forget
 * couples the forget gate to 1 - i. A first stage computes the input
 * projection X·Wᵀ + Wb of every time step and direction at once (one
 * batched GEMM, scheduled like Gemm); the loop nest then runs, per
 * direction, step and batch entry, the recurrent matvec h·Rᵀ + Rb, the gate
 * activations and the new state. The projection, the states and the gate
 * buffers live in one arena scratch (attributes scratch_bytes and
 * scratch_dtype, pass hidden), not on the stack. The clip bound applies to
 * the input of every activation (LSTM's h(c) included, as the spec words
 * it; onnxruntime leaves h(c) unclipped).
 *
 * Normalised attributes: "rnn_h" hidden size, "rnn_dirs" 0 forward /
 * 1 reverse / 2 bidirectional, "rnn_layout", "rnn_lbr" (GRU
 * linear_before_reset), "rnn_if" (input_forget), "rnn_clip" (0: none),
 * "rnn_act" the activation codes (ActKind) per direction, and floats
 * "rnn_a<k>" / "rnn_b<k>" their alpha and beta (k = index in rnn_act). */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ops/compute.h"
#include "ops/op_util.h"
#include "ops/ops.h"

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

/* scratch elements: projection [D,T*B,G*H], h [B,H], c [B,H] (LSTM),
   gx and gr [G*H]; sizes already bounded by op_rnn_infer */
static int64_t rnn_scratch_elems(OpKind op, int64_t D, int64_t T, int64_t B, int64_t H)
{
    int64_t GH = gates_of(op) * H;
    return D * T * B * GH + (op == OP_LSTM ? 2 : 1) * B * H + 2 * GH + 1;
}

int op_rnn_infer(Graph *g, int node, Diag *d)
{
    Node *n = &g->nodes[node];
    int lstm = n->op == OP_LSTM, G = gates_of(n->op), NA = acts_of(n->op), ver = n->version;
    if (opu_check_arity(g, node, d, 3, lstm ? 8 : 6, 0, lstm ? 3 : 2))
        return -1;
    Value *x = opu_in(g, node, 0), *w = opu_in(g, node, 1), *r = opu_in(g, node, 2);
    DType t = x->dtype;
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
    int64_t H = attr_int(n, "hidden_size", w->shape.dims[1] / G);
    if (H <= 0 || H > (1 << 20))
        return diag_error(d, g, node, "hidden_size %lld is out of range (1..%d)", (long long)H, 1 << 20);
    if (H <= 0 || w->shape.dims[0] != D || w->shape.dims[1] != G * H || w->shape.dims[2] != I)
        return diag_error(d, g, node, "W %s does not fit [%d,%lld,%lld]", opu_shape_str(&w->shape), D,
                          (long long)(G * H), (long long)I);
    if (r->shape.dims[0] != D || r->shape.dims[1] != G * H || r->shape.dims[2] != H)
        return diag_error(d, g, node, "R %s does not fit [%d,%lld,%lld]", opu_shape_str(&r->shape), D,
                          (long long)(G * H), (long long)H);
    for (int i = 1; i < n->n_in; i++) {
        Value *v = opu_in(g, node, i);
        if (!v || i == 4)
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
    node_set_int(g, node, "scratch_dtype", ct);
    node_set_int(g, node, "scratch_bytes", rnn_scratch_elems(n->op, D, T, B, H) * (int64_t)dtype_size(ct));
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
        char nm[16];
        snprintf(nm, sizeof nm, "rnn_a%d", k);
        node_set_float(g, node, nm, a);
        snprintf(nm, sizeof nm, "rnn_b%d", k);
        node_set_float(g, node, nm, b);
    }
    node_set_ints(g, node, "rnn_act", codes, n_act);
    node_set_int(g, node, "rnn_h", H);
    node_set_int(g, node, "rnn_dirs", dirs);
    node_set_int(g, node, "rnn_layout", layout);
    node_set_int(g, node, "rnn_lbr", n->op == OP_GRU && ver >= 3 ? attr_int(n, "linear_before_reset", 0) : 0);
    node_set_int(g, node, "rnn_if", lstm ? attr_int(n, "input_forget", 0) : 0);
    const Attr *cl = node_attr(n, "clip");
    node_set_float(g, node, "rnn_clip", cl && cl->kind == ATTR_FLOAT ? cl->f : 0.0f);
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
    int na = acts_of(r->n->op), cnt;
    const int64_t *codes = attr_ints(r->n, "rnn_act", &cnt);
    int idx = r->dir * na + k;
    char nm[16];
    snprintf(nm, sizeof nm, "rnn_a%d", idx);
    double a = attr_float(r->n, nm, 0);
    snprintf(nm, sizeof nm, "rnn_b%d", idx);
    double b = attr_float(r->n, nm, 0);
    if (r->clip > 0)
        x = lx_bin(lb, BO_MIN, lx_bin(lb, BO_MAX, x, cst(r, -r->clip)), cst(r, r->clip));
    switch ((ActKind)codes[idx]) {
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
    if (out && v >= 0 && v == (int)attr_int(n, "scratch_value", -1))
        v = -1; /* the hidden scratch output, not Y / Y_h / Y_c */
    return v >= 0 ? cx->buf_of(cx, v) : NULL;
}

typedef struct Slot { /* a region of the scratch buffer */
    LBuf *buf;
    int64_t off;
} Slot;

static Expr *slot_load(LoopBuilder *lb, Slot s, Expr *i)
{
    return lx_load(lb, s.buf, lx_add(lb, lx_int(lb, s.off), i));
}

static Stmt *slot_store(LoopBuilder *lb, Slot s, Expr *i, Expr *v)
{
    return ls_store(lb, s.buf, lx_add(lb, lx_int(lb, s.off), i), v);
}

#define SL(s, i) slot_load(lb, s, i)
#define SS(s, i, v) slot_store(lb, s, i, v)
#define E(v) lx_var(lb, v)
#define I(k) lx_int(lb, k)
#define LD(b, i) lx_cast(lb, t, lx_load(lb, b, i))

int compute_rnn(ComputeCtx *cx, int node, ComputeDef *def)
{
    LoopBuilder *lb = cx->lb;
    const Node *n = &cx->g->nodes[node];
    const Value *x = &cx->g->values[n->in[0]];
    int lstm = n->op == OP_LSTM, gru = n->op == OP_GRU, G = gates_of(n->op);
    int layout = (int)attr_int(n, "rnn_layout", 0), dirs = (int)attr_int(n, "rnn_dirs", 0);
    int lbr = (int)attr_int(n, "rnn_lbr", 0), inpf = (int)attr_int(n, "rnn_if", 0);
    int D = dirs == 2 ? 2 : 1;
    int64_t T = x->shape.dims[layout ? 1 : 0], B = x->shape.dims[layout ? 0 : 1], IN = x->shape.dims[2];
    int64_t H = attr_int(n, "rnn_h", 1), GH = G * H;
    LType t = lt_of_dtype(x->dtype);
    RnnB rb = {cx, lb, t, n, 0, attr_float(n, "rnn_clip", 0.0f)};
    LBuf *xb = opt_buf(cx, n, 0, 0), *wb = opt_buf(cx, n, 1, 0), *rwb = opt_buf(cx, n, 2, 0);
    LBuf *bb = opt_buf(cx, n, 3, 0), *slb = opt_buf(cx, n, 4, 0), *h0b = opt_buf(cx, n, 5, 0);
    LBuf *c0b = lstm ? opt_buf(cx, n, 6, 0) : NULL, *pb = lstm ? opt_buf(cx, n, 7, 0) : NULL;
    LBuf *yb = opt_buf(cx, n, 0, 1), *yhb = opt_buf(cx, n, 1, 1), *ycb = lstm ? opt_buf(cx, n, 2, 1) : NULL;
    DType ldt = lt_dtype(t);
    /* Stage: the input projection of all time steps as one batched GEMM,
       px[d, r, g] = Wb[d, g] + sum_i X[r, i] W[d, g, i] over the rows r of X
       (in X's own layout). Code generation schedules it like Gemm into the
       arena scratch; folding runs it naively into a local buffer. */
    int64_t ROWS = T * B;
    int sv = (int)attr_int(n, "scratch_value", -1);
    LBuf *px = sv >= 0 ? cx->buf_of(cx, sv) : lbuf_new_typed(lb, "px", LB_LOCAL, ldt, rnn_scratch_elems(n->op, D, T, B, H));
    {
        int64_t pd[3] = {D, ROWS, GH};
        Shape ps = shape_make(3, pd);
        ComputeStage *ps_ = compute_stage_new(cx, def, n->name, px, &ps);
        if (!ps_)
            return compute_fail(cx, node, "too many stages (internal error)");
        LVar *iv = compute_add_raxis(cx, ps_, "i", IN);
        ps_->red = RED_SUM;
        Expr *ed = lx_var(lb, ps_->axis[0]), *er = lx_var(lb, ps_->axis[1]), *eg = lx_var(lb, ps_->axis[2]);
        Expr *xi = lx_add(lb, lx_muli(lb, er, IN), lx_var(lb, iv));
        Expr *wi = lx_add(lb, lx_muli(lb, lx_add(lb, lx_muli(lb, ed, GH), eg), IN), lx_var(lb, iv));
        ps_->body = lx_mul(lb, LD(xb, xi), LD(wb, wi));
        Expr *fin = lx_var(lb, ps_->acc);
        if (bb)
            fin = lx_add(lb, fin, LD(bb, lx_add(lb, lx_muli(lb, ed, 2 * GH), eg)));
        ps_->finalize = fin;
    }
    /* the rest of the scratch: state h [B,H], cell c [B,H] (LSTM), and the
       gate buffers gx, gr [G*H] of the current step (not on the stack:
       they can be large) */
    Slot hs = {px, D * ROWS * GH}, cs = {px, hs.off + B * H};
    Slot gx = {px, cs.off + (lstm ? B * H : 0)}, gr = {px, gx.off + GH};
    Stmt *top[16];
    int nt = 0;
    if (yb && slb) { /* steps past a sequence's length stay 0 */
        LVar *k = lv_new(lb, "k");
        top[nt++] = ls_for(lb, k, T * D * B * H, LOOP_SERIAL, ls_store(lb, yb, E(k), lx_zero(lb, t)));
    }
    for (int d = 0; d < D; d++) {
        int rev = dirs == 1 || d == 1;
        rb.dir = d;
        Stmt *ds[8];
        int nd = 0;
        /* state index of (b, j) in initial_h / Y_h */
#define SIDX(be, je) lx_add(lb, lx_muli(lb, layout ? lx_add(lb, lx_muli(lb, be, D), I(d)) : lx_add(lb, I(d * B), be), H), je)
        {
            LVar *b = lv_new(lb, "b"), *j = lv_new(lb, "j");
            Expr *hi = lx_add(lb, lx_muli(lb, E(b), H), E(j));
            Stmt *two[2];
            two[0] = SS(hs, hi, h0b ? LD(h0b, SIDX(E(b), E(j))) : lx_zero(lb, t));
            two[1] = lstm ? SS(cs, hi, c0b ? LD(c0b, SIDX(E(b), E(j))) : lx_zero(lb, t)) : NULL;
            ds[nd++] = ls_for(lb, b, B, LOOP_SERIAL, ls_for(lb, j, H, LOOP_SERIAL, ls_seq(lb, 2, two)));
        }
        LVar *s = lv_new(lb, "s"), *b = lv_new(lb, "b");
        Expr *eb = E(b), *es = E(s);
        Expr *L = slb ? lx_bin(lb, BO_MIN, lx_bin(lb, BO_MAX, lx_cast(lb, LT_IDX, lx_load(lb, slb, eb)), I(0)), I(T)) : I(T);
        Expr *et = rev ? lx_sub(lb, lx_sub(lb, L, I(1)), es) : es;
        Expr *hrow = lx_muli(lb, eb, H);
        Stmt *st[12];
        int ns = 0;
        /* gx[g] = px[d, row of (t, b), g] (the projection stage);
           gr[g] = Rb[g] + sum_k h[b,k] R[d,g,k] (a small matvec per step) */
        {
            LVar *gv = lv_new(lb, "g"), *kv = lv_new(lb, "k");
            Expr *eg = E(gv);
            Expr *xrow = layout ? lx_add(lb, lx_muli(lb, eb, T), et) : lx_add(lb, lx_muli(lb, et, B), eb);
            Expr *ri = lx_add(lb, lx_muli(lb, lx_add(lb, I(d * GH), eg), H), E(kv));
            /* the dot product accumulates in a local (a register) */
            LBuf *acc = lbuf_new_typed(lb, "acc", LB_LOCAL, ldt, 1);
            Stmt *gs[4];
            gs[0] = SS(gx, eg, lx_load(lb, px, lx_add(lb, lx_muli(lb, lx_add(lb, I(d * ROWS), xrow), GH), eg)));
            gs[1] = ls_store(lb, acc, I(0), bb ? LD(bb, lx_add(lb, I(d * 2 * GH + GH), eg)) : lx_zero(lb, t));
            Expr *hval = SL(hs, lx_add(lb, hrow, E(kv)));
            gs[2] = ls_for(lb, kv, H, LOOP_SERIAL,
                           ls_store(lb, acc, I(0), lx_add(lb, lx_load(lb, acc, I(0)), lx_mul(lb, hval, LD(rwb, ri)))));
            gs[3] = SS(gr, eg, lx_load(lb, acc, I(0)));
            st[ns++] = ls_for(lb, gv, GH, LOOP_SERIAL, ls_alloc(lb, acc, ls_seq(lb, 4, gs)));
        }
        LVar *jv = lv_new(lb, "j");
        Expr *ej = E(jv), *hj = lx_add(lb, hrow, ej);
#define GX(k) SL(gx, lx_add(lb, I((k) * H), ej))
#define GR(k) SL(gr, lx_add(lb, I((k) * H), ej))
#define PRE(k) lx_add(lb, GX(k), GR(k))
        if (!gru && !lstm) {
            st[ns++] = ls_for(lb, jv, H, LOOP_SERIAL, SS(hs, hj, act(&rb, 0, PRE(0))));
        } else if (gru) {
            /* z, r in place into gx */
            Stmt *zr[2] = {SS(gx, ej, act(&rb, 0, PRE(0))),
                           SS(gx, lx_add(lb, I(H), ej), act(&rb, 0, PRE(1)))};
            st[ns++] = ls_for(lb, jv, H, LOOP_SERIAL, ls_seq(lb, 2, zr));
            LVar *j2 = lv_new(lb, "j");
            Expr *e2 = E(j2);
            Expr *hh;
            Stmt *hpre = NULL;
            if (lbr) {
                hh = act(&rb, 1, lx_add(lb, SL(gx, lx_add(lb, I(2 * H), e2)),
                                        lx_mul(lb, SL(gx, lx_add(lb, I(H), e2)),
                                               SL(gr, lx_add(lb, I(2 * H), e2)))));
                hpre = SS(gr, lx_add(lb, I(2 * H), e2), hh);
            } else {
                /* gr[2H+j] = Rbh[j] + sum_k (r_k h_k) Rh[j,k], then activation */
                LVar *kv = lv_new(lb, "k");
                Expr *gi = lx_add(lb, I(2 * H), e2);
                Expr *ri = lx_add(lb, lx_muli(lb, lx_add(lb, I(d * GH + 2 * H), e2), H), E(kv));
                Expr *rh = lx_mul(lb, SL(gx, lx_add(lb, I(H), E(kv))), SL(hs, lx_add(lb, hrow, E(kv))));
                Stmt *p3[3];
                LBuf *acc = lbuf_new_typed(lb, "acc", LB_LOCAL, ldt, 1);
                p3[0] = ls_store(lb, acc, I(0), bb ? LD(bb, lx_add(lb, I(d * 2 * GH + GH), gi)) : lx_zero(lb, t));
                p3[1] = ls_for(lb, kv, H, LOOP_SERIAL,
                               ls_store(lb, acc, I(0), lx_add(lb, lx_load(lb, acc, I(0)), lx_mul(lb, rh, LD(rwb, ri)))));
                p3[2] = SS(gr, gi, act(&rb, 1, lx_add(lb, SL(gx, gi), lx_load(lb, acc, I(0)))));
                hpre = ls_alloc(lb, acc, ls_seq(lb, 3, p3));
            }
            st[ns++] = ls_for(lb, j2, H, LOOP_SERIAL, hpre);
            /* h = (1 - z) hh + z h */
            LVar *j3 = lv_new(lb, "j");
            Expr *e3 = E(j3), *z = SL(gx, e3), *h3 = lx_add(lb, hrow, e3);
            st[ns++] = ls_for(lb, j3, H, LOOP_SERIAL,
                              SS(hs, h3, lx_add(lb, lx_mul(lb, lx_sub(lb, cst(&rb, 1), z),
                                                                     SL(gr, lx_add(lb, I(2 * H), e3))),
                                                          lx_mul(lb, z, SL(hs, h3)))));
        } else {
            /* LSTM: i into gx[j], f into gx[2H+j], c~ into gx[3H+j], c, o into gx[H+j], h */
            Expr *cp = SL(cs, hj);
#define PEEP(k) (pb ? LD(pb, lx_add(lb, I(d * 3 * H + (k) * H), ej)) : NULL)
            Expr *ip = PRE(0), *fp = PRE(2), *op = PRE(1);
            if (pb) {
                ip = lx_add(lb, ip, lx_mul(lb, PEEP(0), cp));
                fp = lx_add(lb, fp, lx_mul(lb, PEEP(2), cp));
            }
            Stmt *ls[6];
            ls[0] = SS(gx, ej, act(&rb, 0, ip));
            Expr *ig = GX(0);
            ls[1] = SS(gx, lx_add(lb, I(2 * H), ej), inpf ? lx_sub(lb, cst(&rb, 1), ig) : act(&rb, 0, fp));
            ls[2] = SS(gx, lx_add(lb, I(3 * H), ej), act(&rb, 1, PRE(3)));
            ls[3] = SS(cs, hj, lx_add(lb, lx_mul(lb, GX(2), cp), lx_mul(lb, ig, GX(3))));
            Expr *cn = SL(cs, hj);
            if (pb)
                op = lx_add(lb, op, lx_mul(lb, PEEP(1), cn));
            ls[4] = SS(gx, lx_add(lb, I(H), ej), act(&rb, 0, op));
            ls[5] = SS(hs, hj, lx_mul(lb, GX(1), act(&rb, 2, cn)));
#undef PEEP
            st[ns++] = ls_for(lb, jv, H, LOOP_SERIAL, ls_seq(lb, 6, ls));
        }
#undef PRE
#undef GR
#undef GX
        if (yb) {
            LVar *j4 = lv_new(lb, "j");
            Expr *yrow = layout ? lx_add(lb, lx_muli(lb, lx_add(lb, lx_muli(lb, eb, T), et), D), I(d))
                                : lx_add(lb, lx_muli(lb, lx_add(lb, lx_muli(lb, et, D), I(d)), B), eb);
            st[ns++] = ls_for(lb, j4, H, LOOP_SERIAL,
                              ls_store(lb, yb, lx_add(lb, lx_muli(lb, yrow, H), E(j4)),
                                       SL(hs, lx_add(lb, hrow, E(j4)))));
        }
        Stmt *step = ls_seq(lb, ns, st);
        if (slb)
            step = ls_if(lb, lx_bin(lb, BO_LT, es, L), step);
        ds[nd++] = ls_for(lb, s, T, LOOP_SERIAL, ls_for(lb, b, B, LOOP_SERIAL, step));
        /* Y_h, Y_c */
        {
            LVar *b5 = lv_new(lb, "b"), *j5 = lv_new(lb, "j");
            Expr *hi = lx_add(lb, lx_muli(lb, E(b5), H), E(j5));
            Stmt *two[2] = {yhb ? ls_store(lb, yhb, SIDX(E(b5), E(j5)), SL(hs, hi)) : NULL,
                            ycb ? ls_store(lb, ycb, SIDX(E(b5), E(j5)), SL(cs, hi)) : NULL};
            if (yhb || ycb)
                ds[nd++] = ls_for(lb, b5, B, LOOP_SERIAL, ls_for(lb, j5, H, LOOP_SERIAL, ls_seq(lb, 2, two)));
        }
#undef SIDX
        top[nt++] = ls_seq(lb, nd, ds);
    }
    Stmt *body = ls_seq(lb, nt, top);
    if (sv < 0) { /* folding: the projection stage lowered inside the nest */
        Stmt *two[2] = {compute_lower_naive(lb, &def->stages[0]), body};
        body = ls_alloc(lb, px, ls_seq(lb, 2, two));
        def->n_stages = 0;
    }
    def->custom = body;
    return 0;
}

int op_rnn_eval(Graph *g, int node, Diag *d)
{
    return ops_eval_compute(g, node, d);
}
