/* reduce.c - the Reduce* operators: Sum, Mean, Max, Min, Prod, L1, L2,
 * LogSum, LogSumExp, SumSquare, every version, every type the spec allows.
 *
 * Axes come from the "axes" attribute, or from the optional input 1 from
 * the version that moved them there (ReduceSum 13, the others 18); that
 * input must be constant (it decides the output shape). Absent or empty
 * axes reduce every axis unless noop_with_empty_axes = 1 (13+/18+), which
 * makes the op an identity. Reducing a zero-size axis gives the reduction's
 * identity as the reference does: 0 (Sum, L1, L2, SumSquare), 1 (Prod),
 * the lowest / highest value of the type (Max / Min: -inf/+inf, false/true
 * for bool), log(0) = -inf (LogSum, LogSumExp), 0/0 (Mean: NaN for floats).
 *
 * One reduction stage per node (the default schedule vectorizes float32
 * over the innermost output axis): body and reducer per operator, and a
 * finalize (Mean divides by the count, L2 takes the square root, LogSum the
 * log). Integers accumulate in their own type (wrapping, as numpy does when
 * the result is cast back); Mean divides with truncation, L2/LogSum go
 * through float64. ReduceLogSumExp follows the reference: the maximum of
 * the finite values is subtracted before exponentiating, so it is a loop
 * nest of two passes per output element.
 *
 * Normalised attributes: "axes" ints >= 0, sorted and unique (empty only
 * for the identity case), "keepdims" and "noop_with_empty_axes" 0/1. */
#include <math.h>
#include <string.h>

#include "ops/compute.h"
#include "ops/op_util.h"
#include "ops/ops.h"

static int axes_from_input(const Node *n)
{
    return n->op == OP_REDUCESUM ? n->version >= 13 : n->version >= 18;
}

static int type_ok(const Node *n, DType t)
{
    switch (t) {
    case DT_FLOAT32: case DT_FLOAT64: case DT_FLOAT16: case DT_BFLOAT16:
        return 1;
    case DT_INT32: case DT_INT64: case DT_UINT32: case DT_UINT64:
        /* integer types were removed from LogSum / LogSumExp at 28 */
        return !((n->op == OP_REDUCELOGSUM || n->op == OP_REDUCELOGSUMEXP) && n->version >= 28);
    case DT_INT8: case DT_UINT8:
        return n->op == OP_REDUCEMAX || n->op == OP_REDUCEMIN;
    case DT_BOOL:
        return (n->op == OP_REDUCEMAX || n->op == OP_REDUCEMIN) && n->version >= 20;
    default:
        return 0;
    }
}

int op_reduce_infer(Graph *g, int node, Diag *d)
{
    Node *n = &g->nodes[node];
    int from_input = axes_from_input(n);
    if (opu_check_arity(g, node, d, 1, from_input ? 2 : 1, 1, 1))
        return -1;
    Value *x = opu_in(g, node, 0);
    if (!type_ok(n, x->dtype))
        return diag_error(d, g, node, "input type %s is not supported by version %d", dtype_name(x->dtype),
                          n->version);
    int rank = x->shape.rank, na = 0;
    int64_t raw[CTVM_MAX_RANK * 2];
    if (from_input) {
        Value *av = opu_in(g, node, 1);
        if (av && !av->data)
            return opu_need_const(g, node, d, 1, "axes");
        if (av && opu_const_ints(g, node, d, 1, raw, CTVM_MAX_RANK * 2, &na))
            return -1;
    } else {
        const int64_t *a = attr_ints(n, "axes", &na);
        if (a && na > CTVM_MAX_RANK * 2)
            return diag_error(d, g, node, "too many axes");
        for (int i = 0; a && i < na; i++)
            raw[i] = a[i];
        if (!a)
            na = 0;
    }
    int64_t keep = attr_int(n, "keepdims", 1) != 0;
    int64_t noop = from_input && attr_int(n, "noop_with_empty_axes", 0) != 0;
    int mark[CTVM_MAX_RANK] = {0};
    for (int i = 0; i < na; i++) {
        int a;
        if (opu_norm_axis(g, node, d, raw[i], rank, "axis", &a))
            return -1;
        mark[a] = 1;
    }
    if (na == 0 && !noop)
        for (int i = 0; i < rank; i++)
            mark[i] = 1;
    int64_t axes[CTVM_MAX_RANK];
    int nax = 0;
    Shape out = shape_unknown();
    out.rank = 0;
    for (int i = 0; i < rank; i++) {
        if (mark[i])
            axes[nax++] = i;
        if (!mark[i])
            out.dims[out.rank++] = x->shape.dims[i];
        else if (keep)
            out.dims[out.rank++] = 1;
    }
    node_set_ints(g, node, "axes", axes, nax);
    node_set_int(g, node, "keepdims", keep);
    node_set_int(g, node, "noop_with_empty_axes", noop);
    ReduceAttrs *ra = &g->nodes[node].at.reduce;
    *ra = (ReduceAttrs){.n_axes = nax, .keepdims = (int)keep, .noop = (int)noop};
    memcpy(ra->axes, axes, (size_t)nax * sizeof axes[0]);
    opu_set_out(g, node, 0, x->dtype, out);
    return 0;
}

DEFINE_EVAL_BY_COMPUTE(reduce)

/* f(v) computed in float64 for integer types (the result is cast back). */
static Expr *float_call(LoopBuilder *lb, CallOp fn, Expr *v)
{
    if (lt_is_float(v->type))
        return lx_call(lb, fn, v);
    return lx_cast(lb, v->type, lx_call(lb, fn, lx_cast(lb, LT_F64, v)));
}

/* ReduceLogSumExp: per output element, m = max of the finite values, then
 * log(sum(exp(x - m))) + m. Output loops over the stage's axes, two passes
 * over the reduction axes. */
static int logsumexp_nest(ComputeCtx *cx, ComputeStage *s, LBuf *in, const Shape *xs, Expr *const *idx,
                          ComputeDef *def)
{
    LoopBuilder *lb = cx->lb;
    LType t = s->body->type;
    LType ft = lt_is_float(t) ? t : LT_F64;
    LBuf *acc = lbuf_new_typed(lb, "acc", LB_LOCAL, lt_dtype(ft), 2); /* max, sum */
    Expr *z = lx_int(lb, 0), *one = lx_int(lb, 1);
    Expr *xv = lx_cast(lb, ft, lx_load(lb, in, compute_flat_index(cx, xs, idx)));
    Expr *m = lx_load(lb, acc, z), *sum = lx_load(lb, acc, one);
    Expr *fin = lx_select(lb, lx_call(lb, CO_ISINF, xv), lx_lowest(lb, ft), xv);
    Stmt *p1 = ls_store(lb, acc, z, lx_bin(lb, BO_MAX, m, fin));
    /* the second pass needs fresh reduction variables */
    LVar *r2[CTVM_MAX_RANK];
    Expr *xv2 = xv;
    for (int r = 0; r < s->n_raxes; r++) {
        r2[r] = lv_new(lb, "r");
        xv2 = lx_subst(lb, xv2, s->raxis[r], lx_var(lb, r2[r]));
    }
    Stmt *p2 = ls_store(lb, acc, one, lx_add(lb, sum, lx_call(lb, CO_EXP, lx_sub(lb, xv2, m))));
    for (int r = s->n_raxes - 1; r >= 0; r--) {
        p1 = ls_for(lb, s->raxis[r], s->rextent[r], LOOP_SERIAL, p1);
        p2 = ls_for(lb, r2[r], s->rextent[r], LOOP_SERIAL, p2);
    }
    Expr *res = lx_add(lb, lx_call(lb, CO_LOG, sum), m);
    Stmt *items[5] = {ls_store(lb, acc, z, lx_lowest(lb, ft)), p1, ls_store(lb, acc, one, lx_zero(lb, ft)), p2,
                      ls_store(lb, s->out, s->out_index, lx_cast(lb, t, res))};
    Stmt *body = ls_alloc(lb, acc, ls_seq(lb, 5, items));
    for (int i = s->n_axes - 1; i >= 0; i--)
        body = ls_for(lb, s->axis[i], s->extent[i], LOOP_SERIAL, body);
    def->n_stages = 0;
    def->custom = body;
    return 0;
}

int compute_reduce(ComputeCtx *cx, int node, ComputeDef *def)
{
    LoopBuilder *lb = cx->lb;
    const Node *n = &cx->g->nodes[node];
    const Value *x = &cx->g->values[n->in[0]], *y = &cx->g->values[n->out[0]];
    int n_axes = n->at.reduce.n_axes;
    const int64_t *axes = n->at.reduce.axes;
    int keep = n->at.reduce.keepdims;
    int reduced[CTVM_MAX_RANK] = {0};
    if (n_axes == 0 && n->at.reduce.noop)
        return compute_reshape(cx, node, def); /* identity */
    if (n_axes == 0) { /* reduce over everything */
        for (int i = 0; i < x->shape.rank; i++)
            reduced[i] = 1;
    } else {
        for (int i = 0; i < n_axes; i++)
            if (axes[i] >= 0 && axes[i] < x->shape.rank)
                reduced[axes[i]] = 1;
    }
    ComputeStage *s = compute_stage_new(cx, def, n->name, cx->buf_of(cx, n->out[0]), &y->shape);
    s->out_is_node_output = 1;
    /* the input as xs: a run of adjacent reduced axes is one axis (one
       reduction loop over contiguous elements: ReduceMean over H, W of
       56 x 56 runs 196 whole vectors instead of 56 rows of 3 and a
       scalar tail of 8) */
    Shape xs = {.rank = 0};
    int xred[CTVM_MAX_RANK] = {0};
    for (int i = 0; i < x->shape.rank; i++) {
        if (reduced[i] && i > 0 && reduced[i - 1]) {
            xs.dims[xs.rank - 1] *= x->shape.dims[i];
            continue;
        }
        xred[xs.rank] = reduced[i];
        xs.dims[xs.rank++] = x->shape.dims[i];
    }
    Expr *idx[CTVM_MAX_RANK];
    int64_t count = 1;
    for (int i = 0, oa = 0, xi = 0; i < xs.rank; i++) {
        if (xred[i]) {
            idx[i] = lx_var(lb, compute_add_raxis(cx, s, "r", xs.dims[i]));
            count *= xs.dims[i];
            for (; xi < x->shape.rank && reduced[xi]; xi++) /* the input axes of the run */
                oa += keep; /* each keeps an output axis of 1 */
        } else {
            idx[i] = lx_var(lb, s->axis[oa++]);
            xi++;
        }
    }
    LBuf *in = cx->buf_of(cx, n->in[0]);
    Expr *v = lx_load(lb, in, compute_flat_index(cx, &xs, idx));
    LType t = v->type;
    if (t == LT_BOOL) /* Max / Min of bool: or / and, reduced as uint8 0/1 */
        v = lx_cast(lb, LT_U8, v);
    s->red = RED_SUM;
    s->body = v;
    s->finalize = lx_var(lb, s->acc);
    switch (n->op) {
    case OP_REDUCEMAX: s->red = RED_MAX; break;
    case OP_REDUCEMIN: s->red = RED_MIN; break;
    case OP_REDUCEPROD: s->red = RED_PROD; break;
    case OP_REDUCEL1: s->body = lt_is_signed_int(t) || lt_is_float(t) ? lx_call(lb, CO_ABS, v) : v; break;
    case OP_REDUCEL2:
        s->body = lx_mul(lb, v, v);
        s->finalize = float_call(lb, CO_SQRT, s->finalize);
        break;
    case OP_REDUCESUMSQUARE: s->body = lx_mul(lb, v, v); break;
    case OP_REDUCELOGSUM: s->finalize = float_call(lb, CO_LOG, s->finalize); break;
    case OP_REDUCEMEAN:
        if (lt_is_float(t))
            s->finalize = lx_div(lb, s->finalize, lx_const_f(lb, t, (double)count));
        else if (count > 0)
            s->finalize = lx_div(lb, s->finalize, lx_const_i(lb, t, count));
        else /* integer mean of nothing: 0 rather than a division by zero */
            s->finalize = lx_const_i(lb, t, 0);
        break;
    case OP_REDUCELOGSUMEXP: return logsumexp_nest(cx, s, in, &xs, idx, def);
    default: break;
    }
    if (t == LT_BOOL)
        s->finalize = lx_cast(lb, LT_BOOL, s->finalize);
    return 0;
}
