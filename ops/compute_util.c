/* compute_util.c - helpers shared by the compute definitions: stages over an
 * output shape, flat and broadcast indexing, and the elementwise functions
 * used both standalone and as fused epilogues. */
#include <float.h>
#include <string.h>

#include "ops/compute.h"
#include "ir/target.h"

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

Expr *compute_flat_index(ComputeCtx *cx, const Shape *shape, Expr *const *idx)
{
    Expr *flat = lx_int(cx->lb, 0);
    for (int i = 0; i < shape->rank; i++)
        flat = lx_add(cx->lb, lx_muli(cx->lb, flat, shape->dims[i]), idx[i]);
    return flat;
}

Expr *compute_load_broadcast(ComputeCtx *cx, int vid, const Shape *shape, LVar *const *axes)
{
    const Value *v = &cx->g->values[vid];
    int off = shape->rank - v->shape.rank;
    Expr *idx[CTVM_MAX_RANK];
    for (int i = 0; i < v->shape.rank; i++)
        idx[i] = v->shape.dims[i] == 1 ? lx_int(cx->lb, 0) : lx_var(cx->lb, axes[i + off]);
    return lx_load(cx->lb, cx->buf_of(cx, vid), compute_flat_index(cx, &v->shape, idx));
}

Expr *compute_eltwise_expr(ComputeCtx *cx, int node, Expr *const *x)
{
    LoopBuilder *lb = cx->lb;
    const Node *n = &cx->g->nodes[node];
    Expr *zero = lx_float(lb, 0.0), *one = lx_float(lb, 1.0);
    switch (n->op) {
    case OP_RELU: return lx_bin(lb, BO_MAX, x[0], zero);
    case OP_CLIP: {
        float lo = attr_float(n, "min", -FLT_MAX), hi = attr_float(n, "max", FLT_MAX);
        Expr *e = x[0];
        if (lo > -FLT_MAX)
            e = lx_bin(lb, BO_MAX, e, lx_float(lb, lo));
        if (hi < FLT_MAX)
            e = lx_bin(lb, BO_MIN, e, lx_float(lb, hi));
        return e;
    }
    case OP_SIGMOID: return lx_call(lb, CO_SIGMOID, x[0]);
    case OP_TANH: return lx_call(lb, CO_TANH, x[0]);
    case OP_EXP: return lx_call(lb, CO_EXP, x[0]);
    case OP_SQRT: return lx_call(lb, CO_SQRT, x[0]);
    case OP_NEG: return lx_call(lb, CO_NEG, x[0]);
    case OP_ABS: return lx_call(lb, CO_ABS, x[0]);
    case OP_LEAKYRELU:
        return lx_select(lb, lx_bin(lb, BO_LT, x[0], zero),
                         lx_mul(lb, x[0], lx_float(lb, attr_float(n, "alpha", 0.01f))), x[0]);
    case OP_HARDSIGMOID: {
        Expr *e = lx_add(lb, lx_mul(lb, x[0], lx_float(lb, attr_float(n, "alpha", 0.2f))),
                         lx_float(lb, attr_float(n, "beta", 0.5f)));
        return lx_bin(lb, BO_MAX, lx_bin(lb, BO_MIN, e, one), zero);
    }
    case OP_HARDSWISH: {
        Expr *e = lx_add(lb, lx_mul(lb, x[0], lx_float(lb, 1.0 / 6.0)), lx_float(lb, 0.5));
        return lx_mul(lb, x[0], lx_bin(lb, BO_MAX, lx_bin(lb, BO_MIN, e, one), zero));
    }
    case OP_ADD: return lx_bin(lb, BO_ADD, x[0], x[1]);
    case OP_SUB: return lx_bin(lb, BO_SUB, x[0], x[1]);
    case OP_MUL: return lx_bin(lb, BO_MUL, x[0], x[1]);
    case OP_DIV: return lx_bin(lb, BO_DIV, x[0], x[1]);
    default: return NULL;
    }
}

int compute_fail(ComputeCtx *cx, int node, const char *reason)
{
    return diag_error(cx->d, cx->g, node, "%s", reason);
}

/* Elementwise operators standalone: one stage over the output, operands
 * loaded with broadcasting. */
static int compute_eltwise(ComputeCtx *cx, int node, ComputeDef *def)
{
    const Node *n = &cx->g->nodes[node];
    const Value *out = &cx->g->values[n->out[0]];
    ComputeStage *st = compute_stage_new(cx, def, n->name, cx->buf_of(cx, n->out[0]), &out->shape);
    Expr *ops[4] = {0};
    int n_ops = n->op == OP_CLIP ? 1 : n->n_in;
    for (int i = 0; i < n_ops && i < 4; i++)
        if (n->in[i] >= 0)
            ops[i] = compute_load_broadcast(cx, n->in[i], &out->shape, st->axis);
    st->body = compute_eltwise_expr(cx, node, ops);
    if (!st->body)
        return compute_fail(cx, node, "not an elementwise operator");
    st->out_is_node_output = 1;
    return 0;
}

int compute_unary(ComputeCtx *cx, int node, ComputeDef *def) { return compute_eltwise(cx, node, def); }
int compute_binary(ComputeCtx *cx, int node, ComputeDef *def) { return compute_eltwise(cx, node, def); }

int compute_node(ComputeCtx *cx, int node, ComputeDef *def)
{
    memset(def, 0, sizeof *def);
    switch (cx->g->nodes[node].op) {
#define X(e, name, fam, lo, hi, fl) \
    case OP_##e: return compute_##fam(cx, node, def);
        CTVM_OPS(X)
#undef X
    default:
        return compute_fail(cx, node, "operator not supported by the code generator");
    }
}

int compute_vl(const ComputeCtx *cx)
{
    return cx->g->target ? cx->g->target->vl : 1;
}

int compute_threads(const ComputeCtx *cx)
{
    return cx->g->threads > 1 ? cx->g->threads : 1;
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
