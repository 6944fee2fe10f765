/* compute_pool.c - MaxPool (with its Indices output), AveragePool
 * (count_include_pad 0/1, ceil_mode reflected in the output shape, dilations),
 * LpPool and the global pools, any number of spatial axes and any float type
 * (MaxPool: int8/uint8 too), as reductions over the window. Windows are
 * clipped to the input: max skips padding (reads the type's lowest value
 * there), sums read zero, average divides by the count the ONNX spec asks
 * for. Nodes marked "blocked" by pass layout (float32 2-D) work on
 * [N,Cb,H,W,B] with the channel lanes innermost. */
#include <math.h>

#include "ops/compute.h"

/* |v|^p, with the common p spelled out. */
static Expr *lp_pow(LoopBuilder *lb, Expr *v, double p)
{
    Expr *a = lx_call(lb, CO_ABS, v);
    if (p == 1.0)
        return a;
    if (p == 2.0)
        return lx_mul(lb, v, v);
    return lx_bin(lb, BO_POW, a, lx_const_f(lb, v->type, p));
}

/* acc^(1/p). */
static Expr *lp_root(LoopBuilder *lb, Expr *acc, double p)
{
    if (p == 1.0)
        return acc;
    if (p == 2.0)
        return lx_call(lb, CO_SQRT, acc);
    return lx_bin(lb, BO_POW, acc, lx_const_f(lb, acc->type, 1.0 / p));
}

static int compute_global(ComputeCtx *cx, int node, ComputeDef *def)
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
    int blocked = n->at.pool.blocked; /* [N,Cb,H,W,B]: lanes are channels */
    int end = blocked ? 4 : x->shape.rank;
    for (int i = 2; i < end; i++) {
        idx[i] = lx_var(lb, compute_add_raxis(cx, s, "r", x->shape.dims[i]));
        count *= x->shape.dims[i];
    }
    if (blocked)
        idx[4] = lx_var(lb, s->axis[4]);
    Expr *load = lx_load(lb, cx->buf_of(cx, n->in[0]), compute_flat_index(cx, &x->shape, idx));
    s->finalize = lx_var(lb, s->acc);
    if (n->op == OP_GLOBALMAXPOOL) {
        s->red = RED_MAX;
        s->body = load;
    } else if (n->op == OP_GLOBALLPPOOL) {
        double p = n->at.pool.p;
        s->red = RED_SUM;
        s->body = lp_pow(lb, load, p);
        s->finalize = lp_root(lb, s->finalize, p);
    } else {
        s->red = RED_SUM;
        s->body = load;
        s->finalize = lx_div(lb, s->finalize, lx_const_f(lb, s->acc->type, (double)count));
    }
    return 0;
}

/* Number of taps start + k*d (k < K) inside [lo, hi), start = o*stride - pad. */
static Expr *window_count(ComputeCtx *cx, Expr *o, int64_t stride, int64_t pad, int64_t K, int64_t d,
                          int64_t lo, int64_t hi)
{
    LoopBuilder *lb = cx->lb;
    Expr *start = lx_add(lb, lx_muli(lb, o, stride), lx_int(lb, -pad));
    if (d == 1) {
        Expr *end = lx_bin(lb, BO_MIN, lx_add(lb, start, lx_int(lb, K)), lx_int(lb, hi));
        start = lx_bin(lb, BO_MAX, start, lx_int(lb, lo));
        return lx_bin(lb, BO_SUB, end, start);
    }
    /* first k: ceil(max(lo - start, 0) / d); end k: min(K, ceil(max(hi - start, 0) / d)) */
    Expr *zero = lx_int(lb, 0);
    Expr *a = lx_bin(lb, BO_MAX, lx_sub(lb, lx_int(lb, lo), start), zero);
    Expr *kmin = lx_bin(lb, BO_DIV, lx_add(lb, a, lx_int(lb, d - 1)), lx_int(lb, d));
    Expr *b = lx_bin(lb, BO_MAX, lx_sub(lb, lx_int(lb, hi), start), zero);
    Expr *kend = lx_bin(lb, BO_MIN, lx_bin(lb, BO_DIV, lx_add(lb, b, lx_int(lb, d - 1)), lx_int(lb, d)),
                        lx_int(lb, K));
    return lx_bin(lb, BO_MAX, lx_sub(lb, kend, kmin), zero);
}

int compute_pool(ComputeCtx *cx, int node, ComputeDef *def)
{
    LoopBuilder *lb = cx->lb;
    const Node *n = &cx->g->nodes[node];
    if (n->op == OP_GLOBALAVGPOOL || n->op == OP_GLOBALMAXPOOL || n->op == OP_GLOBALLPPOOL)
        return compute_global(cx, node, def);
    if (n->out[0] < 0)
        return compute_fail(cx, node, "the pooled output Y is required");
    const Value *x = &cx->g->values[n->in[0]], *y = &cx->g->values[n->out[0]];
    int blocked = n->at.pool.blocked; /* [N,Cb,H,W,B]: lanes are channels */
    int ns = x->shape.rank - 2 - blocked;
    const WindowAttrs *wa = &n->at.pool.win;
    const int64_t *ks = wa->kernel, *st = wa->strides, *dl = wa->dilations, *pd = wa->pads;
    if (ns < 1 || wa->n != ns || (blocked && ns != 2))
        return compute_fail(cx, node, "attributes not normalised (internal error)");
    int is_max = n->op == OP_MAXPOOL, is_lp = n->op == OP_LPPOOL;

    ComputeStage *s = compute_stage_new(cx, def, n->name, cx->buf_of(cx, n->out[0]), &y->shape);
    s->out_is_node_output = 1;
    /* blocked 2-D windows are a depthwise convolution's loop nest: the
     * blocked-conv schedule's register tiles of output columns and rows */
    if (blocked)
        s->sched = SCHED_CONV;
    Expr *xi[CTVM_MAX_RANK] = {lx_var(lb, s->axis[0]), lx_var(lb, s->axis[1])};
    if (blocked)
        xi[4] = lx_var(lb, s->axis[4]);
    Expr *cond = lx_int(lb, 1);
    for (int i = 0; i < ns; i++) {
        LVar *k = compute_kernel_raxis(cx, s, ns, i, ks[i]);
        xi[2 + i] = lx_add(lb, lx_muli(lb, lx_var(lb, s->axis[2 + i]), st[i]),
                           lx_add(lb, lx_muli(lb, lx_var(lb, k), dl[i]), lx_int(lb, -pd[i])));
        int64_t D = x->shape.dims[2 + i];
        cond = lx_bin(lb, BO_AND, cond,
                      lx_bin(lb, BO_AND, lx_bin(lb, BO_GE, xi[2 + i], lx_int(lb, 0)),
                             lx_bin(lb, BO_LT, xi[2 + i], lx_int(lb, D))));
    }
    Expr *xflat = compute_flat_index(cx, &x->shape, xi);
    Expr *load = lx_load(lb, cx->buf_of(cx, n->in[0]), xflat);
    LType t = load->type;
    s->red = is_max ? RED_MAX : RED_SUM;
    s->body = lx_select(lb, cond, is_lp ? lp_pow(lb, load, n->at.pool.p) : load,
                        is_max ? lx_lowest(lb, t) : lx_zero(lb, t));
    s->finalize = lx_var(lb, s->acc);
    if (is_max && (t == LT_U8 || t == LT_I8)) {
        /* an int32 accumulator: each tap is one widening load and one max,
         * where a byte accumulator would narrow and widen again per tap, a
         * dependent chain of three conversions (the max is exact either way) */
        s->acc = lv_new_typed(lb, "acc", LT_I32);
        s->body = lx_cast(lb, LT_I32, s->body);
        s->finalize = lx_cast(lb, t, lx_var(lb, s->acc));
    }
    if (is_lp)
        s->finalize = lp_root(lb, s->finalize, n->at.pool.p);
    if (n->op == OP_AVGPOOL) {
        int include = n->at.pool.count_include_pad;
        Expr *cnt = NULL;
        for (int i = 0; i < ns; i++) {
            int64_t D = x->shape.dims[2 + i];
            Expr *c = window_count(cx, lx_var(lb, s->axis[2 + i]), st[i], pd[i], ks[i], dl[i],
                                   include ? -pd[i] : 0, include ? D + pd[i + ns] : D);
            cnt = cnt ? lx_mul(lb, cnt, c) : c;
        }
        s->finalize = lx_bin(lb, BO_DIV, s->finalize, lx_cast(lb, s->acc->type, cnt));
    }
    /* MaxPool's Indices: the lowest flat index of a tap equal to the maximum */
    if (is_max && n->n_out > 1 && n->out[1] >= 0) {
        const Value *iv = &cx->g->values[n->out[1]];
        ComputeStage *s2 = compute_stage_new(cx, def, n->name, cx->buf_of(cx, n->out[1]), &iv->shape);
        s2->out_is_node_output = 0;
        Expr *ci = lx_int(lb, 1);
        Expr *x2[CTVM_MAX_RANK] = {lx_var(lb, s2->axis[0]), lx_var(lb, s2->axis[1])};
        for (int i = 0; i < ns; i++) {
            LVar *k = compute_kernel_raxis(cx, s2, ns, i, ks[i]);
            x2[2 + i] = lx_add(lb, lx_muli(lb, lx_var(lb, s2->axis[2 + i]), st[i]),
                               lx_add(lb, lx_muli(lb, lx_var(lb, k), dl[i]), lx_int(lb, -pd[i])));
            ci = lx_bin(lb, BO_AND, ci,
                        lx_bin(lb, BO_AND, lx_bin(lb, BO_GE, x2[2 + i], lx_int(lb, 0)),
                               lx_bin(lb, BO_LT, x2[2 + i], lx_int(lb, x->shape.dims[2 + i]))));
        }
        Expr *xv = lx_load(lb, cx->buf_of(cx, n->in[0]), compute_flat_index(cx, &x->shape, x2));
        Expr *yv = lx_load(lb, cx->buf_of(cx, n->out[0]), s2->out_index);
        Expr *flat;
        if (n->at.pool.storage_order) {
            int64_t plane = 1;
            for (int i = 0; i < ns; i++)
                plane *= x->shape.dims[2 + i];
            flat = lx_muli(lb, lx_add(lb, lx_muli(lb, x2[0], x->shape.dims[1]), x2[1]), plane);
            int64_t stride = 1;
            for (int i = 0; i < ns; i++) {
                flat = lx_add(lb, flat, lx_muli(lb, x2[2 + i], stride));
                stride *= x->shape.dims[2 + i];
            }
        } else {
            flat = compute_flat_index(cx, &x->shape, x2);
        }
        Expr *big = lx_highest(lb, LT_I64);
        s2->red = RED_MIN;
        s2->body = lx_select(lb, ci, lx_select(lb, lx_bin(lb, BO_EQ, xv, yv), lx_cast(lb, LT_I64, flat), big), big);
        s2->finalize = lx_var(lb, s2->acc);
    }
    return 0;
}
