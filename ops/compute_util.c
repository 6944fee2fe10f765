/* compute_util.c - helpers shared by the compute definitions: stages over an
 * output shape, flat and broadcast indexing, and the elementwise functions
 * used both standalone and as fused epilogues. */
#include "ops/dynprop.h"
#include <float.h>
#include <string.h>

#include "ops/compute.h"

static const char *const AXIS_HINTS[CTVM_MAX_RANK] = {"i0", "i1", "i2", "i3", "i4", "i5", "i6", "i7"};

ComputeStage *compute_stage_new(ComputeCtx *cx, ComputeDef *def, const char *name, LBuf *out,
                                const Shape *shape)
{
    if (def->n_stages >= CTVM_MAX_STAGES)
        return NULL;
    ComputeStage *st = &def->stages[def->n_stages++];
    memset(st, 0, sizeof *st);
    st->name = name;
    st->out = out;
    st->n_axes = shape->rank;
    Expr *idx[CTVM_MAX_RANK];
    for (int i = 0; i < shape->rank; i++) {
        st->axis[i] = lv_new(cx->lb, AXIS_HINTS[i]);
        st->extent[i] = shape->dims[i];
        idx[i] = lx_var(cx->lb, st->axis[i]);
    }
    st->out_index = compute_flat_index(cx, shape, idx);
    st->acc = lv_new_typed(cx->lb, "acc", out ? lt_of_dtype(out->dtype) : LT_F32);
    st->red = RED_NONE;
    return st;
}

LVar *compute_add_raxis(ComputeCtx *cx, ComputeStage *st, const char *hint, int64_t extent)
{
    LVar *v = lv_new(cx->lb, hint);
    st->raxis[st->n_raxes] = v;
    st->rextent[st->n_raxes] = extent;
    st->n_raxes++;
    return v;
}

LVar *compute_kernel_raxis(ComputeCtx *cx, ComputeStage *st, int ns, int i, int64_t extent)
{
    static const char *const KH[] = {"kh", "kw", "kd", "k3", "k4", "k5"};
    return compute_add_raxis(cx, st, ns == 1 ? "kw" : KH[i], extent);
}

Expr *compute_flat_index(ComputeCtx *cx, const Shape *shape, Expr *const *idx)
{
    Expr *flat = lx_int(cx->lb, 0);
    for (int i = 0; i < shape->rank; i++)
        flat = lx_add(cx->lb, lx_muli(cx->lb, flat, shape->dims[i]), idx[i]);
    return flat;
}

Expr *compute_round_to(LoopBuilder *lb, DType dt, Expr *e)
{
    if (dt == DT_FLOAT16 && e->type == LT_F32)
        return lx_call(lb, CO_RND_F16, e);
    if (dt == DT_BFLOAT16 && e->type == LT_F32)
        return lx_call(lb, CO_RND_BF16, e);
    return e;
}

Expr *compute_const_scalar(ComputeCtx *cx, int vid)
{
    const Value *v = &cx->g->values[vid];
    int64_t n = 0;
    if (!v->data || !shape_numel(&v->shape, &n) || n != 1)
        return NULL;
    LType t = lt_of_dtype(v->dtype);
    if (lt_is_float(t))
        return lx_const_f(cx->lb, t, tensor_get_f64(v->dtype, v->data, 0));
    return lx_const_i(cx->lb, t, tensor_get_i64(v->dtype, v->data, 0));
}

Expr *compute_load_aligned(ComputeCtx *cx, int vid, const Shape *shape, LVar *const *axes, int first)
{
    const Value *v = &cx->g->values[vid];
    Expr *k = compute_const_scalar(cx, vid);
    if (k)
        return k;
    Expr *idx[CTVM_MAX_RANK];
    for (int i = 0; i < v->shape.rank; i++)
        idx[i] = v->shape.dims[i] == 1 && shape->dims[i + first] != 1 ? lx_int(cx->lb, 0)
                                                                       : lx_var(cx->lb, axes[i + first]);
    return lx_load(cx->lb, cx->buf_of(cx, vid), compute_flat_index(cx, &v->shape, idx));
}

Expr *compute_load_broadcast(ComputeCtx *cx, int vid, const Shape *shape, LVar *const *axes)
{
    return compute_load_aligned(cx, vid, shape, axes, shape->rank - cx->g->values[vid].shape.rank);
}

int compute_fail(ComputeCtx *cx, int node, const char *reason)
{
    return diag_error(cx->d, cx->g, node, "%s", reason);
}

Expr *compute_window_tap(ComputeCtx *cx, const ComputeStage *s, const WindowAttrs *wa, LVar *kh, LVar *kw,
                         const Shape *xs, const Shape *ys, Expr **ih, Expr **iw)
{
    LoopBuilder *lb = cx->lb;
    const int64_t *pd = wa->pads, *st = wa->strides, *dl = wa->dilations, *ks = wa->kernel;
    *ih = lx_add(lb, lx_add(lb, lx_muli(lb, lx_var(lb, s->axis[2]), st[0]), lx_muli(lb, lx_var(lb, kh), dl[0])),
                 lx_int(lb, -pd[0]));
    *iw = lx_add(lb, lx_add(lb, lx_muli(lb, lx_var(lb, s->axis[3]), st[1]), lx_muli(lb, lx_var(lb, kw), dl[1])),
                 lx_int(lb, -pd[1]));
    int64_t H = xs->dims[2], W = xs->dims[3], OH = ys->dims[2], OW = ys->dims[3];
    Expr *cond = compute_bound(cx, lx_int(lb, 1), *ih, pd[0], (OH - 1) * st[0] + (ks[0] - 1) * dl[0] - pd[0], H);
    return compute_bound(cx, cond, *iw, pd[1], (OW - 1) * st[1] + (ks[1] - 1) * dl[1] - pd[1], W);
}

ComputeStage *compute_sum_stage(ComputeCtx *cx, ComputeDef *def, int node, LType acc, SchedKind sched)
{
    const Node *n = &cx->g->nodes[node];
    ComputeStage *s = compute_stage_new(cx, def, n->name, cx->buf_of(cx, n->out[0]), &cx->g->values[n->out[0]].shape);
    if (!s) {
        compute_fail(cx, node, "too many stages");
        return NULL;
    }
    s->out_is_node_output = 1;
    s->red = RED_SUM;
    s->sched = sched;
    s->acc = lv_new_typed(cx->lb, "acc", acc);
    return s;
}

int compute_node(ComputeCtx *cx, int node, ComputeDef *def)
{
    memset(def, 0, sizeof *def);
    int kind = cx->g->nodes[node].dyn.kind;
    if (kind > DYN_PROG)
        return dyn_compute(cx, node, def);
    switch (cx->g->nodes[node].op) {
#define X(e, name, fam, lo, hi, fl) \
    case OP_##e: return compute_##fam(cx, node, def) || dyn_compute(cx, node, def);
        CTVM_OPS(X)
#undef X
    default:
        return compute_fail(cx, node, "operator not supported by the code generator");
    }
}

Expr *compute_bound(ComputeCtx *cx, Expr *cond, Expr *c, int64_t pad, int64_t max_c, int64_t size)
{
    LoopBuilder *lb = cx->lb;
    if (pad > 0)
        cond = lx_bin(lb, BO_AND, cond, lx_bin(lb, BO_GE, c, lx_int(lb, 0)));
    if (max_c >= size)
        cond = lx_bin(lb, BO_AND, cond, lx_bin(lb, BO_LT, c, lx_int(lb, size)));
    return cond;
}
