/* maxunpool.c - MaxUnpool (versions 9, 11, 22): the partial inverse of
 * MaxPool. X [N, C, D1..Dn] (float16, float32, float64; bfloat16 from 22)
 * and Indices (int64, the shape of X) as MaxPool makes them: flat indices
 * into the "inferred" tensor [N, C, (D_i - 1)*s_i - pb_i - pe_i + k_i ...].
 * The unpooled tensor is zero except U[I[e]] = X[e] (later elements win on
 * duplicates; indices outside it are ignored). Without the optional third
 * input output_shape, Y = U. With it (it decides the shape, so it must be
 * constant), Y has that shape and U sits in its leading corner, as the ONNX
 * reference and its test data define it (elements of U outside Y are
 * dropped, Y beyond U is zero).
 *
 * Normalised attributes: "unpool_shape" (ints, rank values) the inferred
 * shape the indices refer to. One loop nest: zero fill, then the scatter. */
#include "ops/compute.h"
#include "ops/op_util.h"
#include "ops/ops.h"
#include "ops/window.h"

int op_maxunpool_infer(Graph *g, int node, Diag *d)
{
    Node *n = &g->nodes[node];
    if (opu_check_arity(g, node, d, 2, 3, 1, 1))
        return -1;
    Value *x = opu_in(g, node, 0), *idx = opu_in(g, node, 1), *os = opu_in(g, node, 2);
    int rank = x->shape.rank, ns = rank - 2;
    if (window_spatial_axes(g, node, d, x, &ns))
        return -1;
    DType t = x->dtype;
    if (!window_float_type_ok(t, n->version))
        return diag_error(d, g, node, "input type %s not supported by MaxUnpool-%d", dtype_name(t), n->version);
    if (idx->dtype != DT_INT64 || !shape_equal(&idx->shape, &x->shape))
        return diag_error(d, g, node, "indices must be int64 of the input's shape %s", opu_shape_str(&x->shape));
    const int64_t *ks = window_read_kernel(g, node, d, ns);
    if (!ks)
        return -1;
    Window w;
    if (window_read(g, node, d, ns, &w))
        return -1;
    int64_t dims[CTVM_MAX_RANK], inf[CTVM_MAX_RANK];
    inf[0] = x->shape.dims[0];
    inf[1] = x->shape.dims[1];
    for (int i = 0; i < ns; i++) {
        if (ks[i] < 1)
            return diag_error(d, g, node, "kernel size must be positive");
        if (x->shape.dims[2 + i] < 1 || w.strides[i] > INT32_MAX)
            return diag_error(d, g, node, "spatial axis %d is empty or its stride too large", i);
        inf[2 + i] = (x->shape.dims[2 + i] - 1) * w.strides[i] - w.pads[i] - w.pads[i + ns] + ks[i];
        if (inf[2 + i] < 0)
            return diag_error(d, g, node, "the output extent along spatial axis %d is negative", i);
    }
    Shape infs = shape_make(rank, inf);
    int64_t total;
    if (opu_numel(g, node, d, &infs, &total))
        return -1;
    if (os) {
        if (!os->data)
            return opu_need_const(g, node, d, 2, "output_shape");
        int k = 0;
        if (opu_const_ints(g, node, d, 2, dims, CTVM_MAX_RANK, &k))
            return -1;
        if (k != rank)
            return diag_error(d, g, node, "output_shape must have %d values, got %d", rank, k);
        for (int i = 0; i < rank; i++)
            if (dims[i] < 0)
                return diag_error(d, g, node, "output_shape has a negative extent");
    } else {
        for (int i = 0; i < rank; i++)
            dims[i] = inf[i];
    }
    Shape out = shape_make(rank, dims);
    if (opu_numel(g, node, d, &out, &total))
        return -1;
    for (int i = 0; i < rank; i++)
        g->nodes[node].at.maxunpool.shape[i] = inf[i];
    opu_set_out(g, node, 0, t, out);
    return 0;
}

int compute_maxunpool(ComputeCtx *cx, int node, ComputeDef *def)
{
    LoopBuilder *lb = cx->lb;
    const Node *n = &cx->g->nodes[node];
    const Value *x = &cx->g->values[n->in[0]], *y = &cx->g->values[n->out[0]];
    int64_t nx = 0, ny = 0, nu = 1;
    int rank = y->shape.rank;
    const int64_t *inf = n->at.maxunpool.shape;
    if (!shape_numel(&x->shape, &nx) || !shape_numel(&y->shape, &ny))
        return compute_fail(cx, node, "shapes not static (internal error)");
    int same = 1;
    for (int i = 0; i < rank; i++) {
        nu *= inf[i];
        same &= inf[i] == y->shape.dims[i];
    }
    LBuf *yb = cx->buf_of(cx, n->out[0]);
    LVar *o = lv_new(lb, "o"), *e = lv_new(lb, "e");
    Stmt *zero = ls_for(lb, o, ny, LOOP_SERIAL, ls_store(lb, yb, lx_var(lb, o), lx_zero(lb, lt_of_dtype(y->dtype))));
    Expr *ie = lx_load(lb, cx->buf_of(cx, n->in[1]), lx_var(lb, e));
    Expr *ok = lx_bin(lb, BO_AND, lx_bin(lb, BO_GE, ie, lx_const_i(lb, LT_I64, 0)),
                      lx_bin(lb, BO_LT, ie, lx_const_i(lb, LT_I64, nu)));
    Expr *dst;
    if (same) {
        dst = lx_cast(lb, LT_IDX, ie);
    } else {
        /* Decompose the index in the unpooled shape, keep it if every
         * coordinate lies inside Y, and re-linearise it in Y's shape. */
        Expr *rest = ie, *in_y = NULL;
        Expr *coord[CTVM_MAX_RANK] = {0};
        for (int i = rank - 1; i >= 0; i--) {
            Expr *ext = lx_const_i(lb, LT_I64, inf[i]);
            coord[i] = i ? lx_bin(lb, BO_MOD, rest, ext) : rest;
            if (i)
                rest = lx_bin(lb, BO_DIV, rest, ext);
            Expr *c = lx_bin(lb, BO_LT, coord[i], lx_const_i(lb, LT_I64, y->shape.dims[i]));
            in_y = in_y ? lx_bin(lb, BO_AND, in_y, c) : c;
        }
        ok = lx_bin(lb, BO_AND, ok, in_y);
        Expr *lin = coord[0];
        for (int i = 1; i < rank; i++)
            lin = lx_add(lb, lx_bin(lb, BO_MUL, lin, lx_const_i(lb, LT_I64, y->shape.dims[i])), coord[i]);
        dst = lx_cast(lb, LT_IDX, lin);
    }
    Stmt *put = ls_if(lb, ok, ls_store(lb, yb, dst, lx_load(lb, cx->buf_of(cx, n->in[0]), lx_var(lb, e))));
    def->custom = ls_seq2(lb, zero, ls_for(lb, e, nx, LOOP_SERIAL, put));
    return 0;
}

DEFINE_EVAL_BY_COMPUTE(maxunpool)
