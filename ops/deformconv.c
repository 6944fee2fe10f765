/* deformconv.c - DeformConv (19, 22): a grouped convolution whose kernel
 * taps are moved by learned offsets and scaled by an optional mask.
 * X [N, C, D1..Dk], W [OC, C / group, K1..Kk], offset [N, og * prod(K) * k,
 * O1..Ok], optional B [OC] and mask [N, og * prod(K), O1..Ok] (og =
 * offset_group). For output position o and kernel tap t (flat index tf),
 * input channel c of offset group g = c / (C / og) samples X[n, c] at
 *   p_i = o_i * s_i - pb_i + t_i * d_i + offset[n, (g * prod(K) + tf) * k + i, o]
 * bilinearly (the 2^k corners floor(p) + {0, 1}, weights 1 - |corner - p|,
 * corners outside X read 0: GridSample with align_corners and zero
 * padding, as the reference computes it; p is kept as float32 like the
 * reference's grid coordinates), and
 *   Y[n, oc, o] = B[oc] + sum_{c in oc's group, t} W[oc, c', t] * mask[n, g * prod(K) + tf, o] * X~(p).
 * float16/bfloat16 accumulate in float32.
 *
 * Normalised attributes (after infer): "kernel_shape", "strides",
 * "dilations" (k values), "pads" (2k), "group", "offset_group". */
#include "ops/compute.h"
#include "ops/op_util.h"
#include "ops/ops.h"
#include "ops/window.h"

int op_deformconv_infer(Graph *g, int node, Diag *d)
{
    Node *n = &g->nodes[node];
    if (opu_check_arity(g, node, d, 3, 5, 1, 1))
        return -1;
    Value *x = opu_in(g, node, 0), *w = opu_in(g, node, 1), *off = opu_in(g, node, 2);
    Value *b = opu_in(g, node, 3), *m = opu_in(g, node, 4);
    DType t = x->dtype;
    if (!window_float_type_ok(t, n->version))
        return diag_error(d, g, node, "input type %s not supported by DeformConv-%d", dtype_name(t), n->version);
    int r = x->shape.rank, k = r - 2;
    if (r < 3 || k > 3)
        return diag_error(d, g, node, "X must have 1 to 3 spatial axes, got %s", opu_shape_str(&x->shape));
    if (w->dtype != t || off->dtype != t || (b && b->dtype != t) || (m && m->dtype != t))
        return diag_error(d, g, node, "all inputs must have the type of X (%s)", dtype_name(t));
    int64_t C = x->shape.dims[1], grp = attr_int(n, "group", 1), og = attr_int(n, "offset_group", 1);
    if (w->shape.rank != r)
        return diag_error(d, g, node, "W must have rank %d, got %s", r, opu_shape_str(&w->shape));
    int64_t OC = w->shape.dims[0];
    if (grp < 1 || og < 1 || C % grp || OC % grp || w->shape.dims[1] * grp != C || C % og)
        return diag_error(d, g, node, "channels (X %lld, W %s) do not fit group %lld and offset_group %lld",
                          (long long)C, opu_shape_str(&w->shape), (long long)grp, (long long)og);
    int64_t ks[WINDOW_MAX_AXES], K = 1;
    int nk = 0;
    const int64_t *ka = attr_ints(n, "kernel_shape", &nk);
    if (ka && nk != k)
        return diag_error(d, g, node, "kernel_shape must have %d values, got %d", k, nk);
    for (int i = 0; i < k; i++) {
        ks[i] = ka ? ka[i] : w->shape.dims[2 + i];
        if (ks[i] != w->shape.dims[2 + i])
            return diag_error(d, g, node, "kernel_shape does not match W %s", opu_shape_str(&w->shape));
        K *= ks[i];
    }
    Window win;
    if (window_read(g, node, d, k, &win))
        return -1;
    int64_t dims[CTVM_MAX_RANK], tot;
    dims[0] = x->shape.dims[0];
    dims[1] = OC;
    for (int i = 0; i < k; i++) {
        int64_t ek = (ks[i] - 1) * win.dilations[i] + 1;
        int64_t span = x->shape.dims[2 + i] + win.pads[i] + win.pads[i + k] - ek;
        if (span < 0 || x->shape.dims[2 + i] > INT32_MAX / 2)
            return diag_error(d, g, node, "the kernel does not fit the padded input along axis %d", i);
        dims[2 + i] = span / win.strides[i] + 1;
    }
    Shape out = shape_make(r, dims);
    if (opu_numel(g, node, d, &out, &tot))
        return -1;
    Shape es = out;
    es.dims[1] = og * K * k;
    if (!shape_equal(&off->shape, &es))
        return diag_error(d, g, node, "offset must have shape %s, got %s", opu_shape_str(&es),
                          opu_shape_str(&off->shape));
    if (b && (b->shape.rank != 1 || b->shape.dims[0] != OC))
        return diag_error(d, g, node, "B must have shape [%lld], got %s", (long long)OC, opu_shape_str(&b->shape));
    es.dims[1] = og * K;
    if (m && !shape_equal(&m->shape, &es))
        return diag_error(d, g, node, "mask must have shape %s, got %s", opu_shape_str(&es), opu_shape_str(&m->shape));
    node_set_ints(g, node, "kernel_shape", ks, k);
    node_set_ints(g, node, "strides", win.strides, k);
    node_set_ints(g, node, "dilations", win.dilations, k);
    node_set_ints(g, node, "pads", win.pads, 2 * k);
    node_set_int(g, node, "group", grp);
    node_set_int(g, node, "offset_group", og);
    for (int i = 0; i < k; i++)
        win.kernel[i] = ks[i];
    window_store(&win, &n->at.conv.win);
    n->at.conv.group = grp;
    n->at.conv.offset_group = og;
    opu_set_out(g, node, 0, t, out);
    return 0;
}

static Expr *cf(LoopBuilder *lb, LType t, double v)
{
    return lx_const_f(lb, t, v);
}

int compute_deformconv(ComputeCtx *cx, int node, ComputeDef *def)
{
    LoopBuilder *lb = cx->lb;
    const Node *n = &cx->g->nodes[node];
    const Value *x = &cx->g->values[n->in[0]], *y = &cx->g->values[n->out[0]];
    const Value *off = &cx->g->values[n->in[2]];
    int r = y->shape.rank, k = r - 2;
    const WindowAttrs *wa = &n->at.conv.win;
    const int64_t *ks = wa->kernel, *st = wa->strides, *dl = wa->dilations, *pd = wa->pads;
    if (wa->n != k || n->at.conv.group < 1 || n->at.conv.offset_group < 1)
        return compute_fail(cx, node, "DeformConv attributes were not normalised");
    int64_t grp = n->at.conv.group, og = n->at.conv.offset_group;
    int64_t C = x->shape.dims[1], OC = y->shape.dims[1], icpg = C / grp, ocpg = OC / grp, K = 1;
    for (int i = 0; i < k; i++)
        K *= ks[i];
    int has_b = n->n_in > 3 && n->in[3] >= 0, has_m = n->n_in > 4 && n->in[4] >= 0;
    LType ct = lt_of_dtype(y->dtype);
    ComputeStage *s = compute_stage_new(cx, def, n->name, cx->buf_of(cx, n->out[0]), &y->shape);
    s->out_is_node_output = 1;
    LVar *icv = compute_add_raxis(cx, s, "ic", icpg);
    LVar *tv[WINDOW_MAX_AXES], *cv[WINDOW_MAX_AXES];
    for (int i = 0; i < k; i++)
        tv[i] = compute_add_raxis(cx, s, "kt", ks[i]);
    for (int i = 0; i < k; i++)
        cv[i] = compute_add_raxis(cx, s, "cn", 2);
    Expr *nv = lx_var(lb, s->axis[0]), *oc = lx_var(lb, s->axis[1]);
    /* input channel, offset group, flat kernel tap */
    Expr *c = lx_add(lb, lx_muli(lb, lx_bin(lb, BO_DIV, oc, lx_int(lb, ocpg)), icpg), lx_var(lb, icv));
    Expr *gi = lx_bin(lb, BO_DIV, c, lx_int(lb, C / og));
    Expr *tf = NULL;
    for (int i = 0; i < k; i++)
        tf = tf ? lx_add(lb, lx_muli(lb, tf, ks[i]), lx_var(lb, tv[i])) : lx_var(lb, tv[i]);
    Expr *gk = lx_add(lb, lx_muli(lb, gi, K), tf); /* g * prod(K) + tf */
    /* flat output position o within a channel */
    Expr *opos = NULL;
    int64_t osz = 1;
    for (int i = 0; i < k; i++) {
        opos = opos ? lx_add(lb, lx_muli(lb, opos, y->shape.dims[2 + i]), lx_var(lb, s->axis[2 + i]))
                    : lx_var(lb, s->axis[2 + i]);
        osz *= y->shape.dims[2 + i];
    }
    LBuf *xb = cx->buf_of(cx, n->in[0]), *ob = cx->buf_of(cx, n->in[2]);
    Expr *weight = NULL, *valid = NULL, *xi = lx_add(lb, lx_muli(lb, nv, C), c);
    for (int i = 0; i < k; i++) {
        int64_t dim = x->shape.dims[2 + i];
        Expr *ochan = lx_add(lb, lx_muli(lb, gk, k), lx_int(lb, i));
        Expr *oi = lx_add(lb, lx_muli(lb, lx_add(lb, lx_muli(lb, nv, off->shape.dims[1]), ochan), osz), opos);
        Expr *ofs = lx_cast(lb, LT_F64, lx_load(lb, ob, oi));
        Expr *base = lx_add(lb, lx_sub(lb, lx_muli(lb, lx_var(lb, s->axis[2 + i]), st[i]), lx_int(lb, pd[i])),
                            lx_muli(lb, lx_var(lb, tv[i]), dl[i]));
        Expr *p = lx_cast(lb, LT_F32, lx_add(lb, lx_cast(lb, LT_F64, base), ofs));
        /* far outside (or NaN): any far point has every corner outside */
        Expr *near = lx_bin(lb, BO_AND, lx_bin(lb, BO_GE, p, cf(lb, LT_F32, -4.0)),
                            lx_bin(lb, BO_LE, p, cf(lb, LT_F32, (double)dim + 4.0)));
        p = lx_select(lb, near, p, cf(lb, LT_F32, -4.0));
        Expr *fl = lx_call(lb, CO_FLOOR, p);
        Expr *frac = lx_cast(lb, ct, lx_sub(lb, p, fl));
        Expr *te = lx_var(lb, cv[i]);
        Expr *w = lx_sub(lb, cf(lb, ct, 1.0), lx_call(lb, CO_ABS, lx_sub(lb, lx_cast(lb, ct, te), frac)));
        weight = weight ? lx_mul(lb, weight, w) : w;
        Expr *tap = lx_add(lb, lx_cast(lb, LT_IDX, fl), te);
        Expr *ok = lx_bin(lb, BO_AND, lx_bin(lb, BO_GE, tap, lx_int(lb, 0)), lx_bin(lb, BO_LT, tap, lx_int(lb, dim)));
        valid = valid ? lx_bin(lb, BO_AND, valid, ok) : ok;
        tap = lx_bin(lb, BO_MIN, lx_bin(lb, BO_MAX, tap, lx_int(lb, 0)), lx_int(lb, dim - 1));
        xi = lx_add(lb, lx_muli(lb, xi, dim), tap);
    }
    Expr *xv = lx_select(lb, valid, lx_cast(lb, ct, lx_load(lb, xb, xi)), cf(lb, ct, 0.0));
    Expr *wi = lx_add(lb, lx_muli(lb, lx_add(lb, lx_muli(lb, oc, icpg), lx_var(lb, icv)), K), tf);
    Expr *body = lx_mul(lb, lx_mul(lb, xv, weight), lx_cast(lb, ct, lx_load(lb, cx->buf_of(cx, n->in[1]), wi)));
    if (has_m) {
        Expr *mi = lx_add(lb, lx_muli(lb, lx_add(lb, lx_muli(lb, nv, og * K), gk), osz), opos);
        body = lx_mul(lb, body, lx_cast(lb, ct, lx_load(lb, cx->buf_of(cx, n->in[4]), mi)));
    }
    s->red = RED_SUM;
    s->body = body;
    s->acc = lv_new_typed(lb, "acc", ct);
    Expr *res = lx_var(lb, s->acc);
    if (has_b)
        res = lx_add(lb, res, lx_cast(lb, ct, lx_load(lb, cx->buf_of(cx, n->in[3]), oc)));
    s->finalize = res;
    return 0;
}

DEFINE_EVAL_BY_COMPUTE(deformconv)
