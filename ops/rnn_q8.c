/* rnn_q8.c - the int8 LSTM's own pieces (ops/rnn_q8.h): ONNX Runtime's
 * DynamicQuantizeLSTM runs its products on uint8 x int8 in int32 with the
 * input X quantized once and h at every step (DynamicQuantizeLinear's
 * arithmetic); ops/rnn.c builds the rest of the nest, the float32 layers'
 * code, and its recurrent tile (mm_tile) takes the same 4-product body. */
#include "ops/rnn_q8.h"

#include "ops/op_util.h"

static LBuf *in(ComputeCtx *cx, const Node *n, int i)
{
    return cx->buf_of(cx, n->in[i]);
}

/* the sum over groups of 4 i in int32 (EX_DOT); W as ONNX has it, [D, G*H,
 * I], or (pass layout, at.rnn.w_transposed) [D, I/4, G*H*4], 4 i-values to
 * a gate column; X uint8 [rows, I] in its own layout */
int rnn_q8_projection(ComputeCtx *cx, int node, ComputeDef *def, LBuf *px, int64_t D, int64_t ROWS, int64_t GH)
{
    LoopBuilder *lb = cx->lb;
    const Node *n = &cx->g->nodes[node];
    int64_t IN = cx->g->values[n->in[0]].shape.dims[2];
    int wt = n->at.rnn.w_transposed;
    LBuf *xb = in(cx, n, 0), *wb = in(cx, n, 1), *bb = n->n_in > 3 && n->in[3] >= 0 ? in(cx, n, 3) : NULL;
    int64_t KG = IN / 4, pd[3] = {D, ROWS, GH};
    Shape ps = shape_make(3, pd);
    ComputeStage *ps_ = compute_stage_new(cx, def, n->name, px, &ps);
    if (!ps_)
        return compute_fail(cx, node, "too many stages (internal error)");
    LVar *kv = compute_add_raxis(cx, ps_, "kg", KG);
    ps_->red = RED_SUM;
    ps_->acc = lv_new_typed(lb, "acc", LT_I32);
    Expr *ed = lx_var(lb, ps_->axis[0]), *er = lx_var(lb, ps_->axis[1]), *eg = lx_var(lb, ps_->axis[2]);
    Expr *sum = NULL;
    for (int q = 0; q < 4; q++) {
        Expr *ik = lx_add(lb, lx_muli(lb, lx_var(lb, kv), 4), lx_int(lb, q));
        Expr *xi = lx_add(lb, lx_muli(lb, er, IN), ik);
        Expr *wrow = lx_add(lb, lx_muli(lb, ed, KG), lx_var(lb, kv)); /* packed: row (d, group) */
        Expr *wi = wt ? lx_add(lb, lx_muli(lb, lx_add(lb, lx_muli(lb, wrow, GH), eg), 4), lx_int(lb, q))
                      : lx_add(lb, lx_muli(lb, lx_add(lb, lx_muli(lb, ed, GH), eg), IN), ik);
        Expr *pr = lx_mul(lb, lx_cast(lb, LT_I32, lx_load(lb, xb, xi)), lx_cast(lb, LT_I32, lx_load(lb, wb, wi)));
        sum = sum ? lx_add(lb, sum, pr) : pr;
    }
    ps_->body = sum;
    Expr *si = lx_add(lb, lx_muli(lb, ed, GH), eg), *c0 = lx_int(lb, 0);
    Expr *xz = lx_cast(lb, LT_I32, lx_load(lb, in(cx, n, 9), c0));
    Expr *xs = lx_load(lb, in(cx, n, 8), c0);
    Expr *v = lx_sub(lb, lx_var(lb, ps_->acc), lx_mul(lb, xz, lx_load(lb, in(cx, n, 11), si)));
    Expr *fin = lx_mul(lb, lx_cast(lb, LT_F32, v), lx_mul(lb, xs, lx_load(lb, in(cx, n, 10), si)));
    if (bb)
        fin = lx_add(lb, fin, lx_load(lb, bb, lx_add(lb, lx_muli(lb, ed, 2 * GH), eg)));
    ps_->finalize = fin;
    if (wt && ROWS >= 2)
        ps_->sched = SCHED_GEMM;
    return 0;
}

Expr *rnn_q8_within(LoopBuilder *lb, LBuf *slb, Expr *b, Expr *s, int64_t T)
{
    Expr *L = lx_bin(lb, BO_MIN, lx_bin(lb, BO_MAX, lx_cast(lb, LT_IDX, lx_load(lb, slb, b)), lx_int(lb, 0)),
                     lx_int(lb, T));
    return lx_bin(lb, BO_LE, s, L);
}

/* The int8 form's h, the n = B*H floats of px at hs, quantized to uint8
 * into hq[hb..] as ONNX Runtime quantizes the recurrent product's input at
 * each step (DynamicQuantizeLinear's arithmetic, ops/quant.c): min and max
 * (with 0), scale = (max - min) / 255 (1/255 when 0), zero point
 * round(clamp(-min / scale, 0, 255)), both stored at px[qs], px[qs + 1];
 * q = clamp(round(h / scale) + zero point, 0, 255). Both passes run in
 * vector lanes (LR_LANES; min and max one-element accumulators). With
 * sequence_lens (slb) the range covers the entries with s <= len only:
 * ONNX Runtime's h at step s is the Y row of step s - 1, computed when
 * s - 1 < len and zeroed past it (initial_h at step 0) when Y is an output;
 * when it is not, the caller passes no slb (ORT's h is then the stale
 * state, in the range as ctvm's is). */
Stmt *rnn_q8_quantize_h(LoopBuilder *lb, LBuf *px, int64_t hs, int64_t n, int64_t H, LBuf *slb, Expr *s, int64_t T,
                        int64_t qs, LBuf *hq, int64_t hb)
{
    LBuf *mnb = lbuf_new_typed(lb, "mn", LB_LOCAL, DT_FLOAT32, 1);
    LBuf *mxb = lbuf_new_typed(lb, "mx", LB_LOCAL, DT_FLOAT32, 1);
    Expr *c0 = lx_int(lb, 0), *f0 = lx_const_f(lb, LT_F32, 0.0), *f255 = lx_const_f(lb, LT_F32, 255.0);
    Expr *mn = lx_load(lb, mnb, c0), *mx = lx_load(lb, mxb, c0);
    Expr *sc = lx_load(lb, px, lx_int(lb, qs)), *zp = lx_load(lb, px, lx_int(lb, qs + 1));
    LVar *i1 = lv_new(lb, "i"), *i2 = lv_new(lb, "i"), *b = slb ? lv_new(lb, "b") : NULL;
    Expr *at = lx_int(lb, hs);
    if (slb) /* per batch entry: its H values */
        at = lx_add(lb, at, lx_muli(lb, lx_var(lb, b), H));
    Expr *x1 = lx_load(lb, px, lx_add(lb, at, lx_var(lb, i1)));
    Expr *x2 = lx_load(lb, px, lx_add(lb, lx_int(lb, hs), lx_var(lb, i2)));
    Stmt *st[6];
    st[0] = ls_store(lb, mnb, c0, f0);
    st[1] = ls_store(lb, mxb, c0, f0);
    int64_t m = slb ? H : n;
    st[2] = ls_role(ls_for(lb, i1, m, LOOP_SERIAL,
                           ls_seq2(lb, ls_store(lb, mnb, c0, lx_bin(lb, BO_MIN, mn, x1)),
                                   ls_store(lb, mxb, c0, lx_bin(lb, BO_MAX, mx, x1)))),
                    LR_LANES, m);
    if (slb)
        st[2] = ls_for(lb, b, n / H, LOOP_SERIAL, ls_if(lb, rnn_q8_within(lb, slb, lx_var(lb, b), s, T), st[2]));
    Expr *range = lx_select(lb, lx_bin(lb, BO_EQ, mx, mn), lx_const_f(lb, LT_F32, 1.0), lx_sub(lb, mx, mn));
    st[3] = ls_store(lb, px, lx_int(lb, qs), lx_div(lb, range, f255));
    Expr *izp = lx_sub(lb, f0, lx_div(lb, mn, sc));
    Expr *zpv = lx_call(lb, CO_ROUND, lx_bin(lb, BO_MIN, lx_bin(lb, BO_MAX, izp, f0), f255));
    st[4] = ls_store(lb, px, lx_int(lb, qs + 1), zpv);
    Expr *q = lx_add(lb, lx_call(lb, CO_ROUND, lx_div(lb, x2, sc)), zp);
    q = lx_bin(lb, BO_MIN, lx_bin(lb, BO_MAX, q, f0), f255);
    st[5] = ls_role(ls_for(lb, i2, n, LOOP_SERIAL,
                           ls_store(lb, hq, lx_add(lb, lx_int(lb, hb), lx_var(lb, i2)), lx_cast(lb, LT_U8, q))),
                    LR_LANES, n);
    return ls_alloc(lb, mnb, ls_alloc(lb, mxb, ls_seq(lb, 6, st)));
}
