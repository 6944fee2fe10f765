/* linattn.c - LinearAttention (opset 27): recurrent linear attention.
 *
 * query [B,T,Hq*dk], key [B,T,Hkv*dk], value [B,T,Hkv*dv]; optional
 * past_state [B,Hkv,dk,dv] (zeros when absent), decay [B,T,Hkv] or
 * [B,T,Hkv*dk] (log-space gate), beta [B,T,Hkv] or [B,T,1]. Per batch and kv
 * head, the state S [dk,dv] runs over the T tokens:
 *   gated rules:  S = exp(g_t) * S              (g per head or per key dim)
 *   delta rules:  u = beta_t * (v_t - S^T k_t)  (else u = v_t)
 *                 S = S + k_t (x) u
 *   every query head h of the group (h / (Hq/Hkv) == kv head):
 *                 out[b,t,h,:] = scale * q_t[h]^T S
 * present_state is the final S. As in the reference, everything computes in
 * float32 whatever the input types (the default scale 1/sqrt(dk) multiplies
 * in double), then output and present_state are converted to the query's
 * type and to past_state's (or the query's) type.
 *
 * The rule shows in the inputs (infer checks decay/beta against it).
 * One loop nest per (b, kv head), parallel over them when worth it. The
 * float32 state lives in present_state when that is float32, else in a
 * local [dk*dv] buffer.
 *
 * Typed attributes (Node.at.linattn): q_num_heads, kv_num_heads, rule
 * (update_rule as 0 linear, 1 gated, 2 delta, 3 gated_delta), scale (0 when
 * the default 1/sqrt(dk) applies). */
#include <math.h>
#include <string.h>

#include "ops/compute.h"
#include "ops/op_util.h"
#include "ops/ops.h"

static int la_float(DType t)
{
    return t == DT_FLOAT32 || t == DT_FLOAT16 || t == DT_BFLOAT16;
}

enum { LA_LINEAR, LA_GATED, LA_DELTA, LA_GATED_DELTA };

int op_linattn_infer(Graph *g, int node, Diag *d)
{
    Node *n = &g->nodes[node];
    if (opu_check_arity(g, node, d, 3, 6, 1, 2))
        return -1;
    Value *q = opu_in(g, node, 0), *k = opu_in(g, node, 1), *v = opu_in(g, node, 2);
    Value *ps = opu_in(g, node, 3), *dc = opu_in(g, node, 4), *bt = opu_in(g, node, 5);
    if (!la_float(q->dtype) || k->dtype != q->dtype || v->dtype != q->dtype || (dc && dc->dtype != q->dtype) ||
        (bt && bt->dtype != q->dtype))
        return diag_error(d, g, node, "query, key, value, decay and beta must share float32/float16/bfloat16");
    if (ps && !la_float(ps->dtype))
        return diag_error(d, g, node, "past_state type %s is not float32/float16/bfloat16", dtype_name(ps->dtype));
    const char *rule = attr_string(n, "update_rule", "gated_delta");
    int r = !strcmp(rule, "linear") ? LA_LINEAR : !strcmp(rule, "gated") ? LA_GATED
          : !strcmp(rule, "delta") ? LA_DELTA : !strcmp(rule, "gated_delta") ? LA_GATED_DELTA : -1;
    if (r < 0)
        return diag_error(d, g, node, "update_rule '%s' is not linear, gated, delta or gated_delta", rule);
    int gating = r == LA_GATED || r == LA_GATED_DELTA, delta = r == LA_DELTA || r == LA_GATED_DELTA;
    if (gating != (dc != NULL))
        return diag_error(d, g, node, "update_rule '%s' %s the decay input", rule, gating ? "requires" : "forbids");
    if (delta != (bt != NULL))
        return diag_error(d, g, node, "update_rule '%s' %s the beta input", rule, delta ? "requires" : "forbids");
    int64_t Hq = attr_int(n, "q_num_heads", 0), Hkv = attr_int(n, "kv_num_heads", 0);
    if (Hq <= 0 || Hkv <= 0 || Hq % Hkv)
        return diag_error(d, g, node, "q_num_heads %lld must be a positive multiple of kv_num_heads %lld",
                          (long long)Hq, (long long)Hkv);
    if (q->shape.rank != 3 || k->shape.rank != 3 || v->shape.rank != 3)
        return diag_error(d, g, node, "query %s, key %s and value %s must be 3-D", opu_shape_str(&q->shape),
                          opu_shape_str(&k->shape), opu_shape_str(&v->shape));
    int64_t B = q->shape.dims[0], T = q->shape.dims[1];
    if (k->shape.dims[0] != B || v->shape.dims[0] != B || k->shape.dims[1] != T || v->shape.dims[1] != T ||
        q->shape.dims[2] % Hq || k->shape.dims[2] % Hkv || v->shape.dims[2] % Hkv ||
        q->shape.dims[2] / Hq != k->shape.dims[2] / Hkv)
        return diag_error(d, g, node, "query %s, key %s and value %s do not fit [B,T,%lld*dk], [B,T,%lld*dk], [B,T,%lld*dv]",
                          opu_shape_str(&q->shape), opu_shape_str(&k->shape), opu_shape_str(&v->shape),
                          (long long)Hq, (long long)Hkv, (long long)Hkv);
    int64_t dk = q->shape.dims[2] / Hq, dv = v->shape.dims[2] / Hkv;
    if (ps && (ps->shape.rank != 4 || ps->shape.dims[0] != B || ps->shape.dims[1] != Hkv ||
               ps->shape.dims[2] != dk || ps->shape.dims[3] != dv))
        return diag_error(d, g, node, "past_state %s must be [%lld,%lld,%lld,%lld]", opu_shape_str(&ps->shape),
                          (long long)B, (long long)Hkv, (long long)dk, (long long)dv);
    if (dc && (dc->shape.rank != 3 || dc->shape.dims[0] != B || dc->shape.dims[1] != T ||
               (dc->shape.dims[2] != Hkv && dc->shape.dims[2] != Hkv * dk)))
        return diag_error(d, g, node, "decay %s must be [%lld,%lld,%lld] or [%lld,%lld,%lld]",
                          opu_shape_str(&dc->shape), (long long)B, (long long)T, (long long)Hkv, (long long)B,
                          (long long)T, (long long)(Hkv * dk));
    if (bt && (bt->shape.rank != 3 || bt->shape.dims[0] != B || bt->shape.dims[1] != T ||
               (bt->shape.dims[2] != Hkv && bt->shape.dims[2] != 1)))
        return diag_error(d, g, node, "beta %s must be [%lld,%lld,%lld] or [%lld,%lld,1]", opu_shape_str(&bt->shape),
                          (long long)B, (long long)T, (long long)Hkv, (long long)B, (long long)T);
    if ((double)B * T * Hq * (dk > dv ? dk : dv) >= 2147483647.0 || (double)B * Hkv * dk * dv >= 2147483647.0)
        return diag_error(d, g, node, "tensors of 2^31 elements or more are not supported");
    LinAttnAttrs *la = &n->at.linattn;
    la->q_num_heads = Hq, la->kv_num_heads = Hkv, la->rule = r;
    la->scale = attr_float(n, "scale", 0.0f);
    node_set_int(g, node, "q_num_heads", Hq);
    node_set_int(g, node, "kv_num_heads", Hkv);
    node_set_float(g, node, "scale", la->scale);
    int64_t od[3] = {B, T, Hq * dv}, sd[4] = {B, Hkv, dk, dv};
    opu_set_out(g, node, 0, q->dtype, shape_make(3, od));
    if (n->n_out > 1)
        opu_set_out(g, node, 1, ps ? ps->dtype : q->dtype, shape_make(4, sd));
    return 0;
}

int compute_linattn(ComputeCtx *cx, int node, ComputeDef *def)
{
    LoopBuilder *lb = cx->lb;
    const Graph *g = cx->g;
    const Node *n = &g->nodes[node];
    const Value *q = &g->values[n->in[0]], *v = &g->values[n->in[2]];
    int64_t Hq = n->at.linattn.q_num_heads, Hkv = n->at.linattn.kv_num_heads;
    int64_t B = q->shape.dims[0], T = q->shape.dims[1], dk = q->shape.dims[2] / Hq, dv = v->shape.dims[2] / Hkv;
    int64_t G = Hq / Hkv;
#define IN(i) (n->n_in > (i) && n->in[i] >= 0 ? cx->buf_of(cx, n->in[i]) : NULL)
#define OUT(i) (n->n_out > (i) && n->out[i] >= 0 ? cx->buf_of(cx, n->out[i]) : NULL)
    LBuf *qb = IN(0), *kb = IN(1), *vb = IN(2), *psb = IN(3), *dcb = IN(4), *btb = IN(5);
    LBuf *ob = OUT(0), *presb = OUT(1);
#undef IN
#undef OUT
    int64_t dc_last = dcb ? g->values[n->in[4]].shape.dims[2] : 0;
    int64_t bt_last = btb ? g->values[n->in[5]].shape.dims[2] : 0;
    const LType f = LT_F32;

    /* one loop over the B*Hkv independent states (parallel when worth it) */
    LVar *vbh = lv_new(lb, "bh"), *vt = lv_new(lb, "t");
    LVar *vd = lv_new(lb, "d"), *vm = lv_new(lb, "m"), *vg = lv_new(lb, "g");
    Expr *ebh = lx_var(lb, vbh), *et = lx_var(lb, vt);
    Expr *eb = lx_div(lb, ebh, lx_int(lb, Hkv)), *eh = lx_bin(lb, BO_MOD, ebh, lx_int(lb, Hkv));
    Expr *ed = lx_var(lb, vd), *em = lx_var(lb, vm), *eg = lx_var(lb, vg);
    Expr *z = lx_int(lb, 0);

    /* the float32 state of (b, hk): present_state itself when it is float32 */
    int in_present = presb && presb->dtype == DT_FLOAT32;
    LBuf *S = in_present ? presb : lbuf_new_typed(lb, "state", LB_LOCAL, DT_FLOAT32, dk * dv);
    Expr *sbase = in_present ? lx_muli(lb, lx_add(lb, lx_muli(lb, eb, Hkv), eh), dk * dv) : z;
    Expr *sidx = lx_add(lb, sbase, lx_add(lb, lx_muli(lb, ed, dv), em));
    Expr *s_dm = lx_load(lb, S, sidx);
    LBuf *u = lbuf_new_typed(lb, "u", LB_LOCAL, DT_FLOAT32, dv);
    LBuf *acc = lbuf_new_typed(lb, "acc", LB_LOCAL, DT_FLOAT32, 1);
    Expr *acc0 = lx_load(lb, acc, z);

    /* token t of kv head hk: key[d], value[m] (T-major packed layout) */
    Expr *bt_row = lx_add(lb, lx_muli(lb, eb, T), et);
    Expr *k_d = lx_cast(lb, f, lx_load(lb, kb, lx_add(lb, lx_muli(lb, bt_row, Hkv * dk), lx_add(lb, lx_muli(lb, eh, dk), ed))));
    Expr *v_m = lx_cast(lb, f, lx_load(lb, vb, lx_add(lb, lx_muli(lb, bt_row, Hkv * dv), lx_add(lb, lx_muli(lb, eh, dv), em))));

    Stmt *per_b[4];
    int nb = 0;
    /* S = past or 0 */
    Expr *init = psb ? lx_cast(lb, f, lx_load(lb, psb, lx_add(lb, lx_muli(lb, lx_add(lb, lx_muli(lb, eb, Hkv), eh), dk * dv),
                                                                  lx_add(lb, lx_muli(lb, ed, dv), em))))
                     : lx_zero(lb, f);
    per_b[nb++] = ls_for(lb, vd, dk, LOOP_SERIAL, ls_for(lb, vm, dv, LOOP_SERIAL, ls_store(lb, S, sidx, init)));

    Stmt *tok[6];
    int nt = 0;
    if (dcb) { /* S *= exp(g) */
        Expr *gi = dc_last == Hkv ? lx_add(lb, lx_muli(lb, bt_row, Hkv), eh)
                                  : lx_add(lb, lx_muli(lb, bt_row, Hkv * dk), lx_add(lb, lx_muli(lb, eh, dk), ed));
        Expr *eg_ = lx_call(lb, CO_EXP, lx_cast(lb, f, lx_load(lb, dcb, gi)));
        tok[nt++] = ls_for(lb, vd, dk, LOOP_SERIAL,
                           ls_seq2(lb, ls_store(lb, acc, z, eg_),
                                   ls_for(lb, vm, dv, LOOP_SERIAL, ls_store(lb, S, sidx, lx_mul(lb, s_dm, acc0)))));
    }
    Expr *um = lx_load(lb, u, em);
    if (btb) { /* u = beta * (v - S^T k) */
        Expr *bi = bt_last == 1 ? bt_row : lx_add(lb, lx_muli(lb, bt_row, Hkv), eh);
        Expr *beta = lx_cast(lb, f, lx_load(lb, btb, bi));
        Stmt *r[3];
        r[0] = ls_store(lb, acc, z, lx_zero(lb, f));
        r[1] = ls_for(lb, vd, dk, LOOP_SERIAL, ls_store(lb, acc, z, lx_add(lb, acc0, lx_mul(lb, s_dm, k_d))));
        r[2] = ls_store(lb, u, em, lx_mul(lb, beta, lx_sub(lb, v_m, acc0)));
        tok[nt++] = ls_for(lb, vm, dv, LOOP_SERIAL, ls_seq(lb, 3, r));
    } else {
        tok[nt++] = ls_for(lb, vm, dv, LOOP_SERIAL, ls_store(lb, u, em, v_m));
    }
    /* S += k (x) u */
    tok[nt++] = ls_for(lb, vd, dk, LOOP_SERIAL,
                       ls_for(lb, vm, dv, LOOP_SERIAL, ls_store(lb, S, sidx, lx_add(lb, s_dm, lx_mul(lb, k_d, um)))));
    /* out[b, t, h, m] = scale * sum_d q[d] S[d, m] for the group's query heads */
    Expr *eq = lx_add(lb, lx_muli(lb, eh, G), eg);
    Expr *q_d = lx_cast(lb, f, lx_load(lb, qb, lx_add(lb, lx_muli(lb, bt_row, Hq * dk), lx_add(lb, lx_muli(lb, eq, dk), ed))));
    double scale = n->at.linattn.scale;
    Expr *o;
    if (scale == 0.0)
        o = lx_cast(lb, f, lx_mul(lb, lx_cast(lb, LT_F64, acc0), lx_const_f(lb, LT_F64, 1.0 / sqrt((double)dk))));
    else
        o = lx_mul(lb, acc0, lx_const_f(lb, f, scale));
    Stmt *r[3];
    r[0] = ls_store(lb, acc, z, lx_zero(lb, f));
    r[1] = ls_for(lb, vd, dk, LOOP_SERIAL, ls_store(lb, acc, z, lx_add(lb, acc0, lx_mul(lb, q_d, s_dm))));
    r[2] = ls_store(lb, ob, lx_add(lb, lx_muli(lb, bt_row, Hq * dv), lx_add(lb, lx_muli(lb, eq, dv), em)), o);
    tok[nt++] = ls_for(lb, vg, G, LOOP_SERIAL, ls_for(lb, vm, dv, LOOP_SERIAL, ls_seq(lb, 3, r)));
    per_b[nb++] = ls_for(lb, vt, T, LOOP_SERIAL, ls_seq(lb, nt, tok));

    if (presb && !in_present) {
        Expr *pi = lx_add(lb, lx_muli(lb, lx_add(lb, lx_muli(lb, eb, Hkv), eh), dk * dv), lx_add(lb, lx_muli(lb, ed, dv), em));
        per_b[nb++] = ls_for(lb, vd, dk, LOOP_SERIAL, ls_for(lb, vm, dv, LOOP_SERIAL, ls_store(lb, presb, pi, s_dm)));
    }
    Stmt *body = ls_seq(lb, nb, per_b);
    body = ls_alloc(lb, u, ls_alloc(lb, acc, body));
    if (!in_present)
        body = ls_alloc(lb, S, body);
    double work = (double)B * T * Hq * dk * dv; /* (batch, head) pairs are independent */
    def->custom = ls_role(ls_for(lb, vbh, B * Hkv, LOOP_SERIAL, body), LR_INDEPENDENT, work < 1e18 ? (int64_t)work : -1);
    return 0;
}

DEFINE_EVAL_BY_COMPUTE(linattn)
