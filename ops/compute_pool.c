/* compute_pool.c - MaxPool, AveragePool (count_include_pad 0/1, ceil_mode
 * reflected in the output shape), GlobalAveragePool and GlobalMaxPool, 2-D
 * NCHW, as reductions over the window. Windows are clipped to the input: max
 * skips padding (reads -inf there), average divides by the count the ONNX
 * spec asks for. Nodes marked "blocked" by pass layout work on
 * [N,Cb,H,W,B] with the channel lanes innermost. */
#include <math.h>

#include "ops/compute.h"

static int compute_global(ComputeCtx *cx, int node, ComputeDef *def, int is_max)
{
    LoopBuilder *lb = cx->lb;
    const Node *n = &cx->g->nodes[node];
    const Value *x = &cx->g->values[n->in[0]], *y = &cx->g->values[n->out[0]];
    if (x->shape.rank < 3)
        return compute_fail(cx, node, "global pooling needs an input of rank >= 3");
    ComputeStage *s = compute_stage_new(cx, def, n->name, cx->buf_of(cx, n->out[0]), &y->shape);
    s->out_is_node_output = 1;
    Expr *idx[CTVM_MAX_RANK];
    idx[0] = lx_var(lb, s->axis[0]);
    idx[1] = lx_var(lb, s->axis[1]);
    int64_t count = 1;
    int blocked = (int)attr_int(n, "blocked", 0); /* [N,Cb,H,W,B]: lanes are channels */
    int end = blocked ? 4 : x->shape.rank;
    for (int i = 2; i < end; i++) {
        idx[i] = lx_var(lb, compute_add_raxis(cx, s, "r", x->shape.dims[i]));
        count *= x->shape.dims[i];
    }
    if (blocked)
        idx[4] = lx_var(lb, s->axis[4]);
    s->red = is_max ? RED_MAX : RED_SUM;
    s->body = lx_load(lb, cx->buf_of(cx, n->in[0]), compute_flat_index(cx, &x->shape, idx));
    s->finalize = lx_var(lb, s->acc);
    if (!is_max)
        s->finalize = lx_mul(lb, s->finalize, lx_float(lb, 1.0 / (double)count));
    return 0;
}

/* Number of window positions along one axis inside [lo, hi). */
static Expr *window_count(ComputeCtx *cx, Expr *o, int64_t stride, int64_t pad, int64_t k,
                          int64_t lo, int64_t hi)
{
    LoopBuilder *lb = cx->lb;
    Expr *start = lx_add(lb, lx_muli(lb, o, stride), lx_int(lb, -pad));
    Expr *end = lx_bin(lb, BO_MIN, lx_add(lb, start, lx_int(lb, k)), lx_int(lb, hi));
    start = lx_bin(lb, BO_MAX, start, lx_int(lb, lo));
    return lx_bin(lb, BO_SUB, end, start);
}

int compute_pool(ComputeCtx *cx, int node, ComputeDef *def)
{
    LoopBuilder *lb = cx->lb;
    const Node *n = &cx->g->nodes[node];
    if (n->op == OP_GLOBALAVGPOOL || n->op == OP_GLOBALMAXPOOL)
        return compute_global(cx, node, def, n->op == OP_GLOBALMAXPOOL);
    const Value *x = &cx->g->values[n->in[0]], *y = &cx->g->values[n->out[0]];
    int blocked = (int)attr_int(n, "blocked", 0); /* [N,Cb,H,W,B]: lanes are channels */
    if (x->shape.rank != 4 + blocked)
        return compute_fail(cx, node, "only 2-D pooling (NCHW) is supported");
    int k;
    const int64_t *ks = attr_ints(n, "kernel_shape", &k), *st = attr_ints(n, "strides", &k),
                  *pd = attr_ints(n, "pads", &k), *dl = attr_ints(n, "dilations", &k);
    if (!ks || !st || !pd)
        return compute_fail(cx, node, "attributes not normalised (internal error)");
    int64_t d0 = dl ? dl[0] : 1, d1 = dl ? dl[1] : 1;
    int64_t H = x->shape.dims[2], W = x->shape.dims[3];
    int is_max = n->op == OP_MAXPOOL;
    if (!is_max && (d0 != 1 || d1 != 1))
        return compute_fail(cx, node, "AveragePool with dilations is not supported");

    ComputeStage *s = compute_stage_new(cx, def, n->name, cx->buf_of(cx, n->out[0]), &y->shape);
    s->out_is_node_output = 1;
    LVar *kh = compute_add_raxis(cx, s, "kh", ks[0]);
    LVar *kw = compute_add_raxis(cx, s, "kw", ks[1]);
    s->red = is_max ? RED_MAX : RED_SUM;
    Expr *oh = lx_var(lb, s->axis[2]), *ow = lx_var(lb, s->axis[3]);
    Expr *ih = lx_add(lb, lx_muli(lb, oh, st[0]), lx_add(lb, lx_muli(lb, lx_var(lb, kh), d0), lx_int(lb, -pd[0])));
    Expr *iw = lx_add(lb, lx_muli(lb, ow, st[1]), lx_add(lb, lx_muli(lb, lx_var(lb, kw), d1), lx_int(lb, -pd[1])));
    Expr *xi[5] = {lx_var(lb, s->axis[0]), lx_var(lb, s->axis[1]), ih, iw, blocked ? lx_var(lb, s->axis[4]) : NULL};
    Expr *load = lx_load(lb, cx->buf_of(cx, n->in[0]), compute_flat_index(cx, &x->shape, xi));
    Expr *cond = lx_bin(lb, BO_AND,
                        lx_bin(lb, BO_AND, lx_bin(lb, BO_GE, ih, lx_int(lb, 0)), lx_bin(lb, BO_LT, ih, lx_int(lb, H))),
                        lx_bin(lb, BO_AND, lx_bin(lb, BO_GE, iw, lx_int(lb, 0)), lx_bin(lb, BO_LT, iw, lx_int(lb, W))));
    s->body = lx_select(lb, cond, load, lx_float(lb, is_max ? -INFINITY : 0.0));
    s->finalize = lx_var(lb, s->acc);
    if (!is_max) {
        int include = (int)attr_int(n, "count_include_pad", 0);
        Expr *ch = window_count(cx, oh, st[0], pd[0], ks[0], include ? -pd[0] : 0, include ? H + pd[2] : H);
        Expr *cw = window_count(cx, ow, st[1], pd[1], ks[1], include ? -pd[1] : 0, include ? W + pd[3] : W);
        s->finalize = lx_bin(lb, BO_DIV, s->finalize, lx_call(lb, CO_ITOF, lx_mul(lb, ch, cw)));
    }
    return 0;
}
