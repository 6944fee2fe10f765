/* col2im.c - Col2Im (18): the inverse of im2col. input [N, C * B, L],
 * where B = prod(block_shape) and L is the number of sliding blocks of the
 * image; image_shape and block_shape (int64, k values each) decide the
 * output [N, C, image_shape...], so both must be constant. Every column
 * (kernel offset o, block position p) is added into the image pixel
 *   p_i * strides_i - pads_begin_i + o_i * dilations_i
 * when that pixel lies inside the image. Written in gather form: an image
 * pixel i sums, over the kernel offsets o, the column of the block
 * p_i = (i + pb_i - o_i * d_i) / s_i where that division is exact and p_i is
 * a block position. Numbers accumulate in their compute type (integers
 * wrap); bool is the logical or, as numpy's += on bool.
 *
 * float32 and float64 (stored as computed) take the scatter form instead:
 * the image is zeroed, then every column element is added into its pixel
 * (guarded by the image bounds), which is prod(strides) times fewer steps
 * and needs no division (ConvTranspose lowers to MatMul + Col2Im, pass
 * lower_conv).
 *
 * Normalised attributes (after infer): "ci_block" (block_shape), "ci_cols"
 * (blocks per axis), "strides", "dilations", "pads" (k, k, 2k values). */
#include "ops/compute.h"
#include "ops/op_util.h"
#include "ops/ops.h"
#include "ops/window.h"

int op_col2im_infer(Graph *g, int node, Diag *d)
{
    if (opu_check_arity(g, node, d, 3, 3, 1, 1))
        return -1;
    Value *x = opu_in(g, node, 0), *is = opu_in(g, node, 1), *bs = opu_in(g, node, 2);
    DType t = x->dtype;
    if (!(dtype_is_float(t) && dtype_size(t) >= 2) && !(dtype_is_int(t) && !dtype_is_packed(t)) && t != DT_BOOL)
        return diag_error(d, g, node, "input type %s is not supported", dtype_name(t));
    if (x->shape.rank != 3)
        return diag_error(d, g, node, "input must have rank 3 [N, C * prod(block_shape), L], got %s",
                          opu_shape_str(&x->shape));
    if (!is->data)
        return opu_need_const(g, node, d, 1, "image_shape");
    if (!bs->data)
        return opu_need_const(g, node, d, 2, "block_shape");
    int64_t img[CTVM_MAX_RANK], blk[CTVM_MAX_RANK];
    int k = 0, kb = 0;
    if (opu_const_ints(g, node, d, 1, img, WINDOW_MAX_AXES, &k) ||
        opu_const_ints(g, node, d, 2, blk, WINDOW_MAX_AXES, &kb))
        return -1;
    if (k < 1 || kb != k)
        return diag_error(d, g, node, "image_shape and block_shape must have the same number (>= 1) of values, got %d and %d",
                          k, kb);
    Window w;
    if (window_read(g, node, d, k, &w))
        return -1;
    int64_t B = 1, L = 1, cols[WINDOW_MAX_AXES];
    for (int i = 0; i < k; i++) {
        if (img[i] < 1 || blk[i] < 1 || blk[i] > INT32_MAX || img[i] > INT32_MAX)
            return diag_error(d, g, node, "image_shape and block_shape must be positive");
        if (B > INT32_MAX / blk[i])
            return diag_error(d, g, node, "block_shape is too large");
        B *= blk[i];
        int64_t ek = (blk[i] - 1) * w.dilations[i] + 1;
        int64_t span = img[i] + w.pads[i] + w.pads[i + k] - ek;
        if (span < 0)
            return diag_error(d, g, node, "the block does not fit the padded image along axis %d", i);
        cols[i] = span / w.strides[i] + 1;
        if (L > INT32_MAX / cols[i])
            return diag_error(d, g, node, "too many blocks");
        L *= cols[i];
    }
    if (x->shape.dims[1] % B != 0)
        return diag_error(d, g, node, "input dimension 1 (%lld) is not a multiple of prod(block_shape) = %lld",
                          (long long)x->shape.dims[1], (long long)B);
    if (x->shape.dims[2] != L)
        return diag_error(d, g, node, "input dimension 2 is %lld, but the image has %lld sliding blocks",
                          (long long)x->shape.dims[2], (long long)L);
    int64_t dims[CTVM_MAX_RANK], tot;
    dims[0] = x->shape.dims[0];
    dims[1] = x->shape.dims[1] / B;
    for (int i = 0; i < k; i++)
        dims[2 + i] = img[i];
    Shape out = shape_make(k + 2, dims);
    if (opu_numel(g, node, d, &out, &tot))
        return -1;
    Col2ImAttrs *ca = &g->nodes[node].at.col2im;
    ca->win.n = k;
    for (int i = 0; i < k; i++) {
        ca->block[i] = blk[i], ca->cols[i] = cols[i];
        ca->win.strides[i] = w.strides[i], ca->win.dilations[i] = w.dilations[i];
        ca->win.pads[i] = w.pads[i], ca->win.pads[k + i] = w.pads[k + i];
    }
    node_set_ints(g, node, "strides", w.strides, k);
    node_set_ints(g, node, "dilations", w.dilations, k);
    node_set_ints(g, node, "pads", w.pads, 2 * k);
    opu_set_out(g, node, 0, t, out);
    return 0;
}

/* the scatter form: zero the image, then add every column element */
static Stmt *scatter(ComputeCtx *cx, const Node *n, int k, const int64_t *blk, const int64_t *cols,
                     const int64_t *st, const int64_t *dl, const int64_t *pd)
{
    LoopBuilder *lb = cx->lb;
    const Value *x = &cx->g->values[n->in[0]], *y = &cx->g->values[n->out[0]];
    LBuf *xb = cx->buf_of(cx, n->in[0]), *yb = cx->buf_of(cx, n->out[0]);
    LType t = lt_of_dtype(x->dtype);
    int64_t total = 1, B = 1, L = 1;
    for (int i = 0; i < y->shape.rank; i++)
        total *= y->shape.dims[i];
    for (int i = 0; i < k; i++) {
        B *= blk[i];
        L *= cols[i];
    }
    int64_t N = y->shape.dims[0], C = y->shape.dims[1];
    LVar *z = lv_new(lb, "e"), *nv = lv_new(lb, "n"), *cv = lv_new(lb, "c"), *o[8], *p[8];
    Stmt *zero = ls_for(lb, z, total, LOOP_SERIAL, ls_store(lb, yb, lx_var(lb, z), lx_zero(lb, t)));
    /* x[n, c*B + o, p] and y[n, c, i], i_j = p_j*s_j - pb_j + o_j*d_j */
    Expr *orow = lx_int(lb, 0), *pcol = lx_int(lb, 0), *yidx = lx_add(lb, lx_muli(lb, lx_var(lb, nv), C), lx_var(lb, cv));
    Expr *ok = NULL;
    for (int j = 0; j < k; j++) {
        o[j] = lv_new(lb, "o");
        p[j] = lv_new(lb, "p");
        orow = lx_add(lb, lx_muli(lb, orow, blk[j]), lx_var(lb, o[j]));
        pcol = lx_add(lb, lx_muli(lb, pcol, cols[j]), lx_var(lb, p[j]));
        Expr *ij = lx_add(lb, lx_sub(lb, lx_muli(lb, lx_var(lb, p[j]), st[j]), lx_int(lb, pd[j])),
                          lx_muli(lb, lx_var(lb, o[j]), dl[j]));
        Expr *in = lx_bin(lb, BO_AND, lx_bin(lb, BO_GE, ij, lx_int(lb, 0)),
                          lx_bin(lb, BO_LT, ij, lx_int(lb, y->shape.dims[2 + j])));
        ok = ok ? lx_bin(lb, BO_AND, ok, in) : in;
        yidx = lx_add(lb, lx_muli(lb, yidx, y->shape.dims[2 + j]), ij);
    }
    Expr *xidx = lx_add(lb, lx_muli(lb, lx_add(lb, lx_muli(lb, lx_add(lb, lx_muli(lb, lx_var(lb, nv), C), lx_var(lb, cv)), B), orow), L),
                        pcol);
    Stmt *s = ls_if(lb, ok, ls_store(lb, yb, yidx, lx_add(lb, lx_load(lb, yb, yidx), lx_load(lb, xb, xidx))));
    for (int j = k - 1; j >= 0; j--)
        s = ls_for(lb, p[j], cols[j], LOOP_SERIAL, s);
    for (int j = k - 1; j >= 0; j--)
        s = ls_for(lb, o[j], blk[j], LOOP_SERIAL, s);
    s = ls_for(lb, nv, N, LOOP_SERIAL, ls_for(lb, cv, C, LOOP_SERIAL, s));
    return ls_seq2(lb, zero, s);
}

int compute_col2im(ComputeCtx *cx, int node, ComputeDef *def)
{
    LoopBuilder *lb = cx->lb;
    const Node *n = &cx->g->nodes[node];
    const Value *x = &cx->g->values[n->in[0]], *y = &cx->g->values[n->out[0]];
    int k = y->shape.rank - 2;
    const Col2ImAttrs *ca = &n->at.col2im;
    const int64_t *blk = ca->block, *cols = ca->cols, *st = ca->win.strides, *dl = ca->win.dilations,
                  *pd = ca->win.pads;
    if (ca->win.n != k)
        return compute_fail(cx, node, "Col2Im attributes were not normalised");
    DType dt = x->dtype;
    if ((dt == DT_FLOAT32 || dt == DT_FLOAT64) && k <= 8) {
        def->custom = scatter(cx, n, k, blk, cols, st, dl, pd);
        return 0;
    }
    LType ct = dt == DT_BOOL ? LT_I32 : lt_of_dtype(dt);
    ComputeStage *s = compute_stage_new(cx, def, n->name, cx->buf_of(cx, n->out[0]), &y->shape);
    s->out_is_node_output = 1;
    Expr *valid = NULL, *row = lx_var(lb, s->axis[1]), *col = NULL;
    for (int i = 0; i < k; i++) {
        LVar *o = compute_add_raxis(cx, s, "o", blk[i]);
        row = lx_add(lb, lx_muli(lb, row, blk[i]), lx_var(lb, o));
        /* t = i + pb - o * d; block p = t / s when t >= 0, t % s == 0, p < cols */
        Expr *t = lx_sub(lb, lx_add(lb, lx_var(lb, s->axis[2 + i]), lx_int(lb, pd[i])), lx_muli(lb, lx_var(lb, o), dl[i]));
        Expr *ok = lx_bin(lb, BO_GE, t, lx_int(lb, 0));
        Expr *tp = lx_bin(lb, BO_MAX, t, lx_int(lb, 0));
        Expr *p = tp;
        if (st[i] != 1) {
            ok = lx_bin(lb, BO_AND, ok, lx_bin(lb, BO_EQ, lx_bin(lb, BO_MOD, tp, lx_int(lb, st[i])), lx_int(lb, 0)));
            p = lx_bin(lb, BO_DIV, tp, lx_int(lb, st[i]));
        }
        ok = lx_bin(lb, BO_AND, ok, lx_bin(lb, BO_LT, p, lx_int(lb, cols[i])));
        p = lx_bin(lb, BO_MIN, p, lx_int(lb, cols[i] - 1));
        valid = valid ? lx_bin(lb, BO_AND, valid, ok) : ok;
        col = col ? lx_add(lb, lx_muli(lb, col, cols[i]), p) : p;
    }
    Expr *xi = lx_add(lb, lx_muli(lb, lx_add(lb, lx_muli(lb, lx_var(lb, s->axis[0]), x->shape.dims[1]), row),
                                  x->shape.dims[2]),
                      col);
    Expr *v = lx_cast(lb, ct, lx_load(lb, cx->buf_of(cx, n->in[0]), xi));
    s->red = RED_SUM;
    s->body = lx_select(lb, valid, v, lx_zero(lb, ct));
    s->acc = lv_new_typed(lb, "acc", ct);
    Expr *r = lx_var(lb, s->acc);
    if (dt == DT_BOOL)
        r = lx_bin(lb, BO_NE, r, lx_zero(lb, ct));
    s->finalize = r;
    return 0;
}

DEFINE_EVAL_BY_COMPUTE(col2im)
