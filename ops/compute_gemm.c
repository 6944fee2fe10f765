/* compute_gemm.c - Gemm (alpha, beta, transA/transB, broadcast C) and MatMul
 * (numpy broadcasting of batch dims, 1-D operands) as a sum over k in the
 * inputs' compute type. Large float32 products are scheduled by the
 * register-tiled GEMM schedule (SCHED_GEMM, schedule/schedule_gemm.c). */
#include "ops/compute.h"

/* multiply-adds from which float32 products take the GEMM schedule (below,
 * the default schedule's one-vector loop is as good and its code smaller);
 * -DGEMM_SCHED_MIN_WORK=0 sends every float32 product through it */
#ifndef GEMM_SCHED_MIN_WORK
#define GEMM_SCHED_MIN_WORK 4096
#endif

void compute_pick_gemm_sched(ComputeCtx *cx, int node, ComputeStage *s, int64_t M, int64_t N, int64_t K)
{
    const Node *n = &cx->g->nodes[node];
    const Value *a = &cx->g->values[n->in[0]], *b = &cx->g->values[n->in[1]];
    const Value *y = &cx->g->values[n->out[0]];
    /* one row (a classifier's GEMV) too when it is wide: its tiles of two
       vectors read whole cache lines of a K-major B, where the default
       schedule's one-vector columns fetch every line twice */
    if (a->dtype == DT_FLOAT32 && b->dtype == DT_FLOAT32 && y->dtype == DT_FLOAT32 && (M >= 2 || N >= 64) && N >= 2 &&
        M * N * K >= GEMM_SCHED_MIN_WORK)
        s->sched = SCHED_GEMM;
}

static int compute_gemm_op(ComputeCtx *cx, int node, ComputeDef *def)
{
    LoopBuilder *lb = cx->lb;
    const Node *n = &cx->g->nodes[node];
    const Value *a = &cx->g->values[n->in[0]], *b = &cx->g->values[n->in[1]];
    const Value *y = &cx->g->values[n->out[0]];
    int ta = n->at.gemm.trans_a, tb = n->at.gemm.trans_b;
    float alpha = n->at.gemm.alpha, beta = n->at.gemm.beta;
    if (a->shape.rank != 2 || b->shape.rank != 2)
        return compute_fail(cx, node, "Gemm operands must be 2-D");
    int64_t K = ta ? a->shape.dims[0] : a->shape.dims[1];
    ComputeStage *s = compute_stage_new(cx, def, n->name, cx->buf_of(cx, n->out[0]), &y->shape);
    s->out_is_node_output = 1;
    LVar *k = compute_add_raxis(cx, s, "k", K);
    s->red = RED_SUM;
    Expr *m = lx_var(lb, s->axis[0]), *nn = lx_var(lb, s->axis[1]), *kk = lx_var(lb, k);
    Expr *ai[2] = {ta ? kk : m, ta ? m : kk}, *bi[2] = {tb ? nn : kk, tb ? kk : nn};
    s->body = lx_mul(lb, lx_load(lb, cx->buf_of(cx, n->in[0]), compute_flat_index(cx, &a->shape, ai)),
                     lx_load(lb, cx->buf_of(cx, n->in[1]), compute_flat_index(cx, &b->shape, bi)));
    /* alpha and beta scale in the compute type; integer types scale through
       float64 and truncate, as the reference's numpy arithmetic does */
    LType t = s->body->type, st = lt_is_float(t) ? t : LT_F64;
    Expr *fin = lx_var(lb, s->acc);
    int scaled = alpha != 1.0f || (beta != 1.0f && n->n_in > 2 && n->in[2] >= 0);
    if (scaled && st != t)
        fin = lx_cast(lb, st, fin);
    if (alpha != 1.0f)
        fin = lx_mul(lb, fin, lx_const_f(lb, st, alpha));
    if (n->n_in > 2 && n->in[2] >= 0 && beta != 0.0f) {
        Expr *c = compute_load_broadcast(cx, n->in[2], &y->shape, s->axis);
        if (scaled)
            c = lx_cast(lb, st, c);
        if (beta != 1.0f)
            c = lx_mul(lb, c, lx_const_f(lb, st, beta));
        fin = lx_add(lb, fin, c);
    }
    s->finalize = lx_cast(lb, t, fin);
    compute_pick_gemm_sched(cx, node, s, y->shape.dims[0], y->shape.dims[1], K);
    return 0;
}

ComputeStage *compute_matmul_stage(ComputeCtx *cx, int node, ComputeDef *def, int a_vid, int b_vid,
                                   Expr **a_load, Expr **b_load)
{
    LoopBuilder *lb = cx->lb;
    const Node *n = &cx->g->nodes[node];
    const Value *a = &cx->g->values[a_vid], *b = &cx->g->values[b_vid];
    const Value *y = &cx->g->values[n->out[0]];
    int ra = a->shape.rank, rb = b->shape.rank, ry = y->shape.rank;
    if (ra < 1 || rb < 1) {
        compute_fail(cx, node, "MatMul operands must have rank >= 1");
        return NULL;
    }
    int64_t K = a->shape.dims[ra - 1];
    ComputeStage *s = compute_stage_new(cx, def, n->name, cx->buf_of(cx, n->out[0]), &y->shape);
    if (!s) {
        compute_fail(cx, node, "too many stages");
        return NULL;
    }
    s->out_is_node_output = 1;
    LVar *k = compute_add_raxis(cx, s, "k", K);
    s->red = RED_SUM;
    /* Output axes: batch..., [m if ra > 1], [n if rb > 1] */
    int has_m = ra > 1, has_n = rb > 1;
    int n_batch = ry - has_m - has_n;
    Expr *m = has_m ? lx_var(lb, s->axis[n_batch]) : NULL;
    Expr *nn = has_n ? lx_var(lb, s->axis[ry - 1]) : NULL;
    Expr *ai[CTVM_MAX_RANK], *bi[CTVM_MAX_RANK];
    int ba = ra - 2, bb = rb - 2; /* batch dims of each operand */
    for (int i = 0; i < ba; i++) {
        int oa = n_batch - ba + i;
        ai[i] = a->shape.dims[i] == 1 ? lx_int(lb, 0) : lx_var(lb, s->axis[oa]);
    }
    for (int i = 0; i < bb; i++) {
        int ob = n_batch - bb + i;
        bi[i] = b->shape.dims[i] == 1 ? lx_int(lb, 0) : lx_var(lb, s->axis[ob]);
    }
    if (ra > 1) {
        ai[ra - 2] = m;
        ai[ra - 1] = lx_var(lb, k);
    } else {
        ai[0] = lx_var(lb, k);
    }
    if (rb > 1) {
        bi[rb - 2] = lx_var(lb, k);
        bi[rb - 1] = nn;
    } else {
        bi[0] = lx_var(lb, k);
    }
    *a_load = lx_load(lb, cx->buf_of(cx, a_vid), compute_flat_index(cx, &a->shape, ai));
    *b_load = lx_load(lb, cx->buf_of(cx, b_vid), compute_flat_index(cx, &b->shape, bi));
    return s;
}

static int compute_matmul(ComputeCtx *cx, int node, ComputeDef *def)
{
    const Node *n = &cx->g->nodes[node];
    Expr *a, *b;
    ComputeStage *s = compute_matmul_stage(cx, node, def, n->in[0], n->in[1], &a, &b);
    if (!s)
        return -1;
    s->body = lx_mul(cx->lb, a, b);
    s->finalize = lx_var(cx->lb, s->acc);
    const Shape *as = &cx->g->values[n->in[0]].shape, *bs = &cx->g->values[n->in[1]].shape;
    const Shape *ys = &cx->g->values[n->out[0]].shape;
    if (as->rank > 1 && bs->rank > 1) { /* rows: m and the batch dims (the schedule may tile along a batch dim) */
        int64_t rows = 1;
        for (int i = 0; i < ys->rank - 1; i++)
            rows *= ys->dims[i];
        compute_pick_gemm_sched(cx, node, s, rows, ys->dims[ys->rank - 1], as->dims[as->rank - 1]);
    }
    return 0;
}

int compute_gemm(ComputeCtx *cx, int node, ComputeDef *def)
{
    if (cx->g->nodes[node].op == OP_GEMM)
        return compute_gemm_op(cx, node, def);
    return compute_matmul(cx, node, def);
}
