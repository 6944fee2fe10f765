/* attention.c - Attention (opsets 23, 24, 25): scaled dot-product attention.
 *
 * Q [B,Hq,Sq,Dk] or [B,Sq,Hq*Dk], K [B,Hkv,Skv,Dk] or [B,Skv,Hkv*Dk], V
 * [B,Hkv,Skv,Dv] or [B,Skv,Hkv*Dv] (3-D inputs need q_num_heads and
 * kv_num_heads). Optional past_key/past_value [B,Hkv,P,D] are prepended to
 * K/V (present_key/present_value outputs hold the concatenation, T = P+Skv
 * keys); query head h reads kv head h / (Hq/Hkv) (GQA/MQA). Per query row:
 *   s_j  = sum_d (q_d*c)(k_jd*c), c = sqrt(scale) (scale 1/sqrt(Dk) by default)
 *   s_j  = softcap * tanh(s_j / softcap)                  when softcap > 0
 *   x_j  = s_j + bias_j
 *   p    = softmax(x) (a row of -inf gives zeros), zero when every bias_j is -inf
 *   Y    = sum_j p_j v_j
 * bias_j = mask + causal + window + padding, each structural term 0 or -inf:
 * a bool mask gives 0 (true) / -inf, another mask is added as a value; the
 * mask broadcasts against [B,Hq,Sq,T] and a shorter last dim is padded with
 * -inf. Causal: key j allowed iff j <= i + off; window (25): off+i-j <= left
 * and j-(off+i) <= right for bounds >= 0; off = P with a past, else
 * nonpad_kv_seqlen[b] - Sq when that input (24+) is given, else 0. Padding:
 * j < nonpad_kv_seqlen[b]. The optional 4th output is s before softcap
 * (mode 0), after it (1), x (2) or p (3).
 *
 * Arithmetic follows the ONNX reference in the input type: float16 and
 * bfloat16 compute in float32 but round to their precision after each step
 * (the scaled operands, the dot products, the biased scores, the softmax
 * steps); dot products accumulate in float32 (float64 for double); the
 * softmax sum accumulates in float32 for float16 and in bfloat16 for
 * bfloat16, as numpy does. The softcap computes in float32 (the reference's
 * softcap is a float32 scalar, which promotes float16/bfloat16 scores), and
 * the scores stay float32 from there on. softmax_precision casts the scores
 * to its type for the softmax (wider or narrower); the probabilities are
 * cast back to the input type before P.V.
 *
 * One loop nest: per query row (b, h, i) a row of T scores in a local
 * buffer, so the work is B*Hq*Sq*T*(Dk+Dv) and the memory one row; the
 * rows are independent (the schedule shares them among threads when the
 * work is large).
 *
 * Typed attributes (Node.at.attention): q_num_heads, kv_num_heads (from the
 * shapes for 4-D inputs), is_causal, softcap, qk_matmul_output_mode,
 * softmax_dtype (a DType), left/right window (-1 when absent or before
 * version 25). "scale" stays as given (absent: 1/sqrt(Dk),
 * computed in double like the reference). */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "ops/compute.h"
#include "ops/op_util.h"
#include "ops/ops.h"
#include "runtime_min/ctvm_types.h"

static int attn_float_type(DType t)
{
    return t == DT_FLOAT16 || t == DT_BFLOAT16 || t == DT_FLOAT32 || t == DT_FLOAT64;
}

static DType onnx_to_dtype_prec(int64_t p)
{
    switch (p) {
    case 1: return DT_FLOAT32;
    case 10: return DT_FLOAT16;
    case 11: return DT_FLOAT64;
    case 16: return DT_BFLOAT16;
    default: return DT_UNDEFINED;
    }
}

/* The geometry every function reads; hq and hkv: the head counts of 3-D
 * inputs (the attributes at infer, Node.at.attention after). */
typedef struct AttnDims {
    int rank;                 /* 3 or 4 */
    int64_t B, Hq, Hkv, Sq, Skv, P, T, Dk, Dv;
} AttnDims;

static int attn_dims(Graph *g, int node, Diag *d, int64_t hq, int64_t hkv, AttnDims *a)
{
    Value *q = opu_in(g, node, 0), *k = opu_in(g, node, 1), *v = opu_in(g, node, 2);
    Value *pk = opu_in(g, node, 4), *pv = opu_in(g, node, 5);
    memset(a, 0, sizeof *a);
    a->rank = q->shape.rank;
    if ((a->rank != 3 && a->rank != 4) || k->shape.rank != a->rank || v->shape.rank != a->rank)
        return diag_error(d, g, node, "Q %s, K %s and V %s must all be 3-D or all 4-D",
                          opu_shape_str(&q->shape), opu_shape_str(&k->shape), opu_shape_str(&v->shape));
    const int64_t *qs = q->shape.dims, *ks = k->shape.dims, *vs = v->shape.dims;
    a->B = qs[0];
    if (ks[0] != a->B || vs[0] != a->B)
        return diag_error(d, g, node, "Q, K and V differ in batch size");
    if (a->rank == 4) {
        a->Hq = qs[1], a->Sq = qs[2], a->Dk = qs[3];
        a->Hkv = ks[1], a->Skv = ks[2], a->Dv = vs[3];
        if (ks[3] != a->Dk || vs[1] != a->Hkv || vs[2] != a->Skv)
            return diag_error(d, g, node, "Q %s, K %s and V %s do not fit [B,Hq,Sq,Dk], [B,Hkv,S,Dk], [B,Hkv,S,Dv]",
                              opu_shape_str(&q->shape), opu_shape_str(&k->shape), opu_shape_str(&v->shape));
    } else {
        a->Hq = hq, a->Hkv = hkv;
        if (a->Hq <= 0 || a->Hkv <= 0)
            return diag_error(d, g, node, "3-D inputs need positive q_num_heads and kv_num_heads attributes");
        if (qs[2] % a->Hq || ks[2] % a->Hkv || vs[2] % a->Hkv)
            return diag_error(d, g, node, "hidden sizes %lld, %lld, %lld are not multiples of the head counts",
                              (long long)qs[2], (long long)ks[2], (long long)vs[2]);
        a->Sq = qs[1], a->Dk = qs[2] / a->Hq;
        a->Skv = ks[1], a->Dv = vs[2] / a->Hkv;
        if (ks[2] / a->Hkv != a->Dk || vs[1] != a->Skv)
            return diag_error(d, g, node, "Q %s, K %s and V %s do not fit the head counts %lld and %lld",
                              opu_shape_str(&q->shape), opu_shape_str(&k->shape), opu_shape_str(&v->shape),
                              (long long)a->Hq, (long long)a->Hkv);
    }
    if (a->Hkv <= 0 || a->Hq % a->Hkv)
        return diag_error(d, g, node, "q heads %lld are not a multiple of kv heads %lld", (long long)a->Hq,
                          (long long)a->Hkv);
    if (!pk != !pv)
        return diag_error(d, g, node, "past_key and past_value must be given together");
    if (pk) {
        const int64_t *p = pk->shape.dims, *p2 = pv->shape.dims;
        if (pk->shape.rank != 4 || pv->shape.rank != 4 || p[0] != a->B || p[1] != a->Hkv || p[3] != a->Dk ||
            p2[0] != a->B || p2[1] != a->Hkv || p2[2] != p[2] || p2[3] != a->Dv)
            return diag_error(d, g, node, "past_key %s / past_value %s do not fit [B,Hkv,P,Dk] / [B,Hkv,P,Dv]",
                              opu_shape_str(&pk->shape), opu_shape_str(&pv->shape));
        a->P = p[2];
    }
    a->T = a->P + a->Skv;
    /* every loop index is a C int: bound the largest tensor touched */
    const double big = 2147483647.0;
    if ((double)a->B * a->Hq * a->Sq * a->T >= big || (double)a->B * a->Hkv * a->T * (a->Dk > a->Dv ? a->Dk : a->Dv) >= big ||
        (double)a->B * a->Hq * a->Sq * (a->Dk > a->Dv ? a->Dk : a->Dv) >= big)
        return diag_error(d, g, node, "tensors of 2^31 elements or more are not supported");
    return 0;
}

int op_attention_infer(Graph *g, int node, Diag *d)
{
    Node *n = &g->nodes[node];
    int ver = n->version;
    if (opu_check_arity(g, node, d, 3, ver >= 24 ? 7 : 6, 1, 4))
        return -1;
    Value *q = opu_in(g, node, 0), *k = opu_in(g, node, 1), *v = opu_in(g, node, 2);
    Value *m = opu_in(g, node, 3), *pk = opu_in(g, node, 4), *pv = opu_in(g, node, 5);
    Value *np = opu_in(g, node, 6);
    if (!attn_float_type(q->dtype) || k->dtype != q->dtype || !attn_float_type(v->dtype))
        return diag_error(d, g, node, "Q/K must share a float type and V be a float type, got %s, %s, %s",
                          dtype_name(q->dtype), dtype_name(k->dtype), dtype_name(v->dtype));
    if ((pk && pk->dtype != q->dtype) || (pv && pv->dtype != v->dtype))
        return diag_error(d, g, node, "past_key/past_value must have the types of K/V");
    AttnDims a;
    if (attn_dims(g, node, d, attr_int(n, "q_num_heads", 0), attr_int(n, "kv_num_heads", 0), &a))
        return -1;
    if (m) {
        if (!dtype_supported(m->dtype) || m->dtype == DT_STRING || dtype_is_packed(m->dtype) ||
            (!dtype_is_int(m->dtype) && m->dtype != DT_BOOL && !attn_float_type(m->dtype)))
            return diag_error(d, g, node, "attn_mask type %s is not supported", dtype_name(m->dtype));
        int r = m->shape.rank;
        const int64_t full[4] = {a.B, a.Hq, a.Sq, a.T};
        if (r < 1 || r > 4)
            return diag_error(d, g, node, "attn_mask %s must have rank 1 to 4", opu_shape_str(&m->shape));
        for (int i = 0; i < r - 1; i++) {
            int64_t md = m->shape.dims[i], fd = full[4 - r + i];
            if (md != 1 && md != fd)
                return diag_error(d, g, node, "attn_mask %s does not broadcast to [%lld,%lld,%lld,%lld]",
                                  opu_shape_str(&m->shape), (long long)a.B, (long long)a.Hq, (long long)a.Sq,
                                  (long long)a.T);
        }
        int64_t last = m->shape.dims[r - 1];
        if (last < 1 || last > a.T)
            return diag_error(d, g, node, "attn_mask %s: last dim must be in 1..%lld (total kv length)",
                              opu_shape_str(&m->shape), (long long)a.T);
    }
    if (np) {
        if ((np->dtype != DT_INT64 && np->dtype != DT_INT32) || np->shape.rank != 1 || np->shape.dims[0] != a.B)
            return diag_error(d, g, node, "nonpad_kv_seqlen must be int64 [%lld]", (long long)a.B);
        if (pk)
            return diag_error(d, g, node, "nonpad_kv_seqlen cannot be combined with past_key/past_value");
    }
    int64_t mode = attr_int(n, "qk_matmul_output_mode", 0);
    if (mode < 0 || mode > 3)
        return diag_error(d, g, node, "qk_matmul_output_mode must be 0..3, got %lld", (long long)mode);
    /* the scores enter the softmax in the input type, or in float32 after a
       softcap on float16/bfloat16 (the reference's float32 softcap promotes),
       unless softmax_precision casts them to its type */
    int narrow = q->dtype == DT_FLOAT16 || q->dtype == DT_BFLOAT16;
    DType sdt = narrow && attr_float(n, "softcap", 0.0f) > 0 ? DT_FLOAT32 : q->dtype;
    if (node_attr(n, "softmax_precision")) {
        sdt = onnx_to_dtype_prec(attr_int(n, "softmax_precision", 1));
        if (sdt == DT_UNDEFINED)
            return diag_error(d, g, node, "softmax_precision must be 1, 10, 11 or 16");
    }
    int64_t lw = ver >= 25 ? attr_int(n, "left_window_size", -1) : -1;
    int64_t rw = ver >= 25 ? attr_int(n, "right_window_size", -1) : -1;
    if (lw < -1 || rw < -1)
        return diag_error(d, g, node, "window sizes must be -1 or non-negative");
    node_set_int(g, node, "q_num_heads", a.Hq);
    node_set_int(g, node, "kv_num_heads", a.Hkv);
    node_set_int(g, node, "is_causal", attr_int(n, "is_causal", 0) != 0);
    node_set_int(g, node, "qk_matmul_output_mode", mode);
    AttentionAttrs *aa = &n->at.attention;
    aa->q_num_heads = a.Hq, aa->kv_num_heads = a.Hkv;
    aa->is_causal = attr_int(n, "is_causal", 0) != 0;
    aa->qk_matmul_output_mode = (int)mode;
    aa->softmax_dtype = sdt;
    aa->left_window = lw, aa->right_window = rw;
    aa->softcap = attr_float(n, "softcap", 0.0f);
    aa->has_scale = node_attr(n, "scale") != NULL;
    aa->scale = attr_float(n, "scale", 1.0f);
    node_set_int(g, node, "left_window_size", lw);
    node_set_int(g, node, "right_window_size", rw);
    node_set_float(g, node, "softcap", attr_float(n, "softcap", 0.0f));

    int64_t yd[4];
    Shape ys;
    if (a.rank == 4) {
        yd[0] = a.B, yd[1] = a.Hq, yd[2] = a.Sq, yd[3] = a.Dv;
        ys = shape_make(4, yd);
    } else {
        yd[0] = a.B, yd[1] = a.Sq, yd[2] = a.Hq * a.Dv;
        ys = shape_make(3, yd);
    }
    opu_set_out(g, node, 0, q->dtype, ys);
    int64_t pkd[4] = {a.B, a.Hkv, a.T, a.Dk}, pvd[4] = {a.B, a.Hkv, a.T, a.Dv}, qkd[4] = {a.B, a.Hq, a.Sq, a.T};
    if (n->n_out > 1)
        opu_set_out(g, node, 1, q->dtype, shape_make(4, pkd));
    if (n->n_out > 2)
        opu_set_out(g, node, 2, v->dtype, shape_make(4, pvd));
    if (n->n_out > 3)
        opu_set_out(g, node, 3, q->dtype, shape_make(4, qkd));
    return 0;
}

/* ---- the loop nest ---- */

typedef struct AB {
    LoopBuilder *lb;
    AttnDims a;
    DType qt;     /* Q's dtype: the working precision */
    LType t;      /* its compute type */
} AB;

/* v as a float32 rounded to odd (truncated, lowest bit set when inexact):
   rounding that to float16/bfloat16 then equals rounding v directly, as
   numpy's float16(double) does (no double rounding) */
static float f32_round_odd(double v)
{
    float f = (float)v;
    if (!isfinite(f) || (double)f == v)
        return f;
    if (fabs((double)f) > fabs(v))
        f = nextafterf(f, 0.0f);
    uint32_t bits;
    memcpy(&bits, &f, sizeof bits);
    bits |= 1u;
    memcpy(&f, &bits, sizeof f);
    return f;
}

/* a double constant rounded to dtype dt, as an immediate of compute type t */
static Expr *const_in(LoopBuilder *lb, DType dt, LType t, double v)
{
    if (dt == DT_FLOAT16)
        v = ctvm_f16_to_f32(ctvm_f32_to_f16(f32_round_odd(v)));
    else if (dt == DT_BFLOAT16)
        v = ctvm_bf16_to_f32(ctvm_f32_to_bf16(f32_round_odd(v)));
    else if (dt == DT_FLOAT32)
        v = (float)v;
    return lx_const_f(lb, t, v);
}

/* flat index of (b, head, s, d) in a [B,H,S,D] tensor or a [B,S,H*D] one */
static Expr *idx4(LoopBuilder *lb, int rank, Expr *b, Expr *h, Expr *s, Expr *dd, int64_t H, int64_t S, int64_t D)
{
    if (rank == 4)
        return lx_add(lb, lx_muli(lb, lx_add(lb, lx_muli(lb, lx_add(lb, lx_muli(lb, b, H), h), S), s), D), dd);
    return lx_add(lb, lx_add(lb, lx_muli(lb, lx_add(lb, lx_muli(lb, b, S), s), H * D), lx_muli(lb, h, D)), dd);
}

/* key or value (b, hk, j, d) over the T = P + Skv positions: past then new */
static Expr *kv_at(AB *x, LBuf *past, LBuf *cur, int64_t D, Expr *b, Expr *hk, Expr *j, Expr *dd)
{
    LoopBuilder *lb = x->lb;
    const AttnDims *a = &x->a;
    if (!past)
        return lx_load(lb, cur, idx4(lb, a->rank, b, hk, j, dd, a->Hkv, a->Skv, D));
    Expr *pl = lx_load(lb, past, idx4(lb, 4, b, hk, j, dd, a->Hkv, a->P, D));
    Expr *cl = lx_load(lb, cur, idx4(lb, a->rank, b, hk, lx_sub(lb, j, lx_int(lb, a->P)), dd, a->Hkv, a->Skv, D));
    return lx_select(lb, lx_bin(lb, BO_LT, j, lx_int(lb, a->P)), pl, cl);
}

/* present_key/value: the concatenation, in [B,Hkv,T,D] */
static Stmt *present_copy(AB *x, LBuf *out, LBuf *past, LBuf *cur, int64_t D)
{
    LoopBuilder *lb = x->lb;
    const AttnDims *a = &x->a;
    LVar *b = lv_new(lb, "b"), *h = lv_new(lb, "h"), *j = lv_new(lb, "j"), *dd = lv_new(lb, "d");
    Expr *eb = lx_var(lb, b), *eh = lx_var(lb, h), *ej = lx_var(lb, j), *ed = lx_var(lb, dd);
    Stmt *s = ls_store(lb, out, idx4(lb, 4, eb, eh, ej, ed, a->Hkv, a->T, D), kv_at(x, past, cur, D, eb, eh, ej, ed));
    s = ls_for(lb, dd, D, LOOP_SERIAL, s);
    s = ls_for(lb, j, a->T, LOOP_SERIAL, s);
    s = ls_for(lb, h, a->Hkv, LOOP_SERIAL, s);
    return ls_for(lb, b, a->B, LOOP_SERIAL, s);
}

int compute_attention(ComputeCtx *cx, int node, ComputeDef *def)
{
    LoopBuilder *lb = cx->lb;
    Graph *g = cx->g;
    const Node *n = &g->nodes[node];
    AB x = {.lb = lb};
    if (attn_dims(g, node, cx->d, n->at.attention.q_num_heads, n->at.attention.kv_num_heads, &x.a))
        return -1;
    const AttnDims *a = &x.a;
    x.qt = g->values[n->in[0]].dtype;
    LType t = x.t = lt_of_dtype(x.qt);
    const AttentionAttrs *aa = &n->at.attention;
    DType qt = x.qt, sdt = aa->softmax_dtype;
    LType st = lt_of_dtype(sdt);
    int causal = aa->is_causal, mode = aa->qk_matmul_output_mode;
    int64_t lw = aa->left_window, rw = aa->right_window;
    double cap = aa->softcap;
    /* c = sqrt(scale): of the float32 attribute in float32, of the default
       1/sqrt(Dk) in double, then rounded once to the input type (reference) */
    double c = aa->has_scale ? (double)sqrtf(aa->scale) : sqrt(1.0 / sqrt((double)a->Dk));
    Expr *sc = const_in(lb, qt, t, c);

#define IN(i) (n->n_in > (i) && n->in[i] >= 0 ? cx->buf_of(cx, n->in[i]) : NULL)
#define OUT(i) (n->n_out > (i) && n->out[i] >= 0 ? cx->buf_of(cx, n->out[i]) : NULL)
    LBuf *qb = IN(0), *kb = IN(1), *vb = IN(2), *mb = IN(3), *pkb = IN(4), *pvb = IN(5), *npb = IN(6);
    LBuf *yb = OUT(0), *okb = OUT(1), *ovb = OUT(2), *qkb = OUT(3);
#undef IN
#undef OUT
    const Value *mv = mb ? &g->values[n->in[3]] : NULL;

    /* one loop over the B*Hq*Sq query rows (parallel when worth it) */
    LVar *vr = lv_new(lb, "row"), *vj = lv_new(lb, "j"), *vd = lv_new(lb, "d");
    Expr *er = lx_var(lb, vr), *ej = lx_var(lb, vj), *ed = lx_var(lb, vd);
    Expr *ei = lx_bin(lb, BO_MOD, er, lx_int(lb, a->Sq));
    Expr *eh = lx_bin(lb, BO_MOD, lx_div(lb, er, lx_int(lb, a->Sq)), lx_int(lb, a->Hq));
    Expr *eb = lx_div(lb, er, lx_int(lb, a->Sq * a->Hq));
    Expr *z = lx_int(lb, 0), *one = lx_int(lb, 1);
    Expr *ehk = lx_div(lb, eh, lx_int(lb, a->Hq / a->Hkv));
    Expr *ninf = lx_const_f(lb, t, -INFINITY), *zero = lx_zero(lb, t);

    /* locals: the scaled query row, the score row, scalars */
    LBuf *qs = lbuf_new_typed(lb, "qs", LB_LOCAL, lt_dtype(t), a->Dk);
    LBuf *row = lbuf_new_typed(lb, "row", LB_LOCAL, lt_dtype(st), a->T);
    LBuf *acc = lbuf_new_typed(lb, "acc", LB_LOCAL, lt_dtype(t), 2);  /* dot product, max of the bias */
    LBuf *sacc = lbuf_new_typed(lb, "sacc", LB_LOCAL, lt_dtype(st), 2); /* row max, row sum */
    Expr *dot = lx_load(lb, acc, z), *bmax = lx_load(lb, acc, one);
    Expr *rmax = lx_load(lb, sacc, z), *rsum = lx_load(lb, sacc, one);
    Expr *row_j = lx_load(lb, row, ej);
    Expr *qk_at = lx_add(lb, lx_muli(lb, lx_add(lb, lx_muli(lb, lx_add(lb, lx_muli(lb, eb, a->Hq), eh), a->Sq), ei), a->T), ej);

    Stmt *body[16];
    int nb = 0;
    /* qs[d] = q * c */
    body[nb++] = ls_for(lb, vd, a->Dk, LOOP_SERIAL,
                        ls_store(lb, qs, ed, compute_round_to(lb, qt, lx_mul(lb, lx_load(lb, qb, idx4(lb, a->rank, eb, eh, ei, ed, a->Hq, a->Sq, a->Dk)), sc))));
    body[nb++] = ls_store(lb, acc, one, ninf);

    /* per key j: score, softcap, bias */
    Stmt *sj[12];
    int ns = 0;
    sj[ns++] = ls_store(lb, acc, z, zero);
    Expr *kv = compute_round_to(lb, qt, lx_mul(lb, kv_at(&x, pkb, kb, a->Dk, eb, ehk, ej, ed), sc));
    sj[ns++] = ls_for(lb, vd, a->Dk, LOOP_SERIAL, ls_store(lb, acc, z, lx_add(lb, dot, lx_mul(lb, lx_load(lb, qs, ed), kv))));
    Expr *s = compute_round_to(lb, qt, dot);
    if (qkb && mode == 0)
        sj[ns++] = ls_store(lb, qkb, qk_at, s);
    /* after a softcap, float16/bfloat16 scores stay float32 (wt) */
    DType wt = cap > 0 && t == LT_F32 ? DT_FLOAT32 : qt;
    if (cap > 0) {
        Expr *cc = const_in(lb, DT_FLOAT32, t, cap);
        s = lx_mul(lb, lx_call(lb, CO_TANH, lx_div(lb, s, cc)), cc);
    }
    if (qkb && mode == 1)
        sj[ns++] = ls_store(lb, qkb, qk_at, s);
    /* the bias */
    Expr *bias = NULL;
    if (mb) {
        int r = mv->shape.rank;
        const Shape *ms = &mv->shape;
        Expr *coord[4] = {eb, eh, ei, ej};
        Expr *mi = z;
        for (int k = 0; k < r; k++) {
            Expr *c = coord[4 - r + k];
            if (ms->dims[k] == 1)
                c = z;
            mi = lx_add(lb, lx_muli(lb, mi, ms->dims[k]), c);
        }
        Expr *mval = lx_load(lb, mb, mi);
        mval = mval->type == LT_BOOL ? lx_select(lb, mval, zero, ninf) : lx_cast(lb, t, mval);
        if (ms->dims[r - 1] < a->T)
            mval = lx_select(lb, lx_bin(lb, BO_LT, ej, lx_int(lb, ms->dims[r - 1])), mval, ninf);
        bias = compute_round_to(lb, qt, mval);
    }
    /* offset of the query block: past length, or nonpad - Sq */
    Expr *off = lx_int(lb, a->P), *npl = NULL;
    if (npb) {
        npl = lx_cast(lb, LT_IDX, lx_load(lb, npb, eb));
        if (!pkb)
            off = lx_sub(lb, npl, lx_int(lb, a->Sq));
    }
    Expr *pos = lx_add(lb, ei, off); /* absolute position of query i */
    Expr *term[3];
    int nt = 0;
    if (causal)
        term[nt++] = lx_bin(lb, BO_LE, ej, pos);
    if (lw >= 0 || rw >= 0) {
        Expr *ok = NULL;
        if (lw >= 0)
            ok = lx_bin(lb, BO_LE, lx_sub(lb, pos, ej), lx_int(lb, lw));
        if (rw >= 0) {
            Expr *r2 = lx_bin(lb, BO_LE, lx_sub(lb, ej, pos), lx_int(lb, rw));
            ok = ok ? lx_bin(lb, BO_AND, ok, r2) : r2;
        }
        term[nt++] = ok;
    }
    if (npl)
        term[nt++] = lx_bin(lb, BO_LT, ej, npl);
    for (int k = 0; k < nt; k++) {
        Expr *tv = lx_select(lb, term[k], zero, ninf);
        bias = bias ? lx_add(lb, bias, tv) : tv;
    }
    int has_bias = bias != NULL;
    Expr *xs = has_bias ? compute_round_to(lb, wt, lx_add(lb, s, bias)) : s;
    if (qkb && mode == 2)
        sj[ns++] = ls_store(lb, qkb, qk_at, xs);
    sj[ns++] = ls_store(lb, row, ej, compute_round_to(lb, sdt, lx_cast(lb, st, xs)));
    if (has_bias)
        sj[ns++] = ls_store(lb, acc, one, lx_bin(lb, BO_MAX, bmax, bias));
    body[nb++] = ls_for(lb, vj, a->T, LOOP_SERIAL, ls_seq(lb, ns, sj));

    /* softmax over the row */
    body[nb++] = ls_store(lb, sacc, z, lx_lowest(lb, st));
    body[nb++] = ls_for(lb, vj, a->T, LOOP_SERIAL, ls_store(lb, sacc, z, lx_bin(lb, BO_MAX, rmax, row_j)));
    Expr *szero = lx_zero(lb, st);
    Expr *safe = lx_select(lb, lx_call(lb, CO_ISNEGINF, rmax), szero, rmax);
    body[nb++] = ls_store(lb, sacc, z, safe);
    body[nb++] = ls_store(lb, sacc, one, szero);
    Expr *e = compute_round_to(lb, sdt, lx_call(lb, CO_EXP, compute_round_to(lb, sdt, lx_sub(lb, row_j, rmax))));
    Expr *nsum = lx_add(lb, rsum, lx_load(lb, row, ej));
    if (sdt == DT_BFLOAT16)
        nsum = compute_round_to(lb, sdt, nsum);
    body[nb++] = ls_for(lb, vj, a->T, LOOP_SERIAL,
                        ls_seq2(lb, ls_store(lb, row, ej, e), ls_store(lb, sacc, one, nsum)));
    Expr *tot = compute_round_to(lb, sdt, rsum);
    body[nb++] = ls_store(lb, sacc, one, lx_select(lb, lx_bin(lb, BO_EQ, tot, szero), lx_one(lb, st), tot));
    Expr *p = compute_round_to(lb, sdt, lx_div(lb, row_j, rsum));
    if (has_bias)
        p = lx_select(lb, lx_call(lb, CO_ISNEGINF, bmax), szero, p);
    p = compute_round_to(lb, qt, lx_cast(lb, t, p));
    Stmt *pj = ls_store(lb, row, ej, p);
    if (qkb && mode == 3)
        pj = ls_seq2(lb, pj, ls_store(lb, qkb, qk_at, lx_cast(lb, t, row_j)));
    body[nb++] = ls_for(lb, vj, a->T, LOOP_SERIAL, pj);

    /* Y = p . V */
    Expr *vv = lx_cast(lb, t, kv_at(&x, pvb, vb, a->Dv, eb, ehk, ej, ed));
    Stmt *yd[3];
    yd[0] = ls_store(lb, acc, z, zero);
    yd[1] = ls_for(lb, vj, a->T, LOOP_SERIAL,
                   ls_store(lb, acc, z, lx_add(lb, dot, lx_mul(lb, lx_cast(lb, t, row_j), vv))));
    yd[2] = ls_store(lb, yb, idx4(lb, a->rank, eb, eh, ei, ed, a->Hq, a->Sq, a->Dv), dot);
    body[nb++] = ls_for(lb, vd, a->Dv, LOOP_SERIAL, ls_seq(lb, 3, yd));

    Stmt *main = ls_seq(lb, nb, body);
    main = ls_alloc(lb, qs, ls_alloc(lb, row, ls_alloc(lb, acc, ls_alloc(lb, sacc, main))));
    int64_t rows = a->B * a->Hq * a->Sq;
    double work = (double)rows * a->T * (a->Dk + a->Dv); /* rows are independent */
    main = ls_role(ls_for(lb, vr, rows, LOOP_SERIAL, main), LR_INDEPENDENT, work < 1e18 ? (int64_t)work : -1);

    Stmt *all[3];
    int na = 0;
    if (okb)
        all[na++] = present_copy(&x, okb, pkb, kb, a->Dk);
    if (ovb)
        all[na++] = present_copy(&x, ovb, pvb, vb, a->Dv);
    all[na++] = main;
    def->custom = ls_seq(lb, na, all);
    return 0;
}

DEFINE_EVAL_BY_COMPUTE(attention)
