/* schedule.c - default lowering of compute stages to loop nests and epilogue
 * composition (see schedule.h). */
#include "schedule.h"

#include <string.h>

#include "ir/loop_lower.h"
#include "ir/target.h"
#include "schedule_conv.h"
#include "schedule_custom.h"
#include "schedule_gemm.h"
#include "schedule_key.h"
#include "schedule_tile.h"

/* Work (output elements times reduction steps) from which the default
   schedule shares a stage among the threads. With one thread team per
   inference a shared stage costs no fork, and a stage on thread 0 alone
   leaves the others waiting at the next barrier anyway: 32768 (the
   fork/join era) -> 4096 took shufflenet_v2 at 2 threads 2.46-2.70 ->
   2.30 ms (slices, concats and pads of its branches now shared). */
#ifndef CTVM_PAR_MIN_WORK
#define CTVM_PAR_MIN_WORK 4096
#endif

int sched_vl(const ComputeCtx *cx)
{
    return cx->target ? cx->target->vl : 1;
}

int sched_threads(const ComputeCtx *cx)
{
    return cx->threads > 1 ? cx->threads : 1;
}

void sched_reg_tile(const ComputeCtx *cx, int64_t rows, int64_t cols, int64_t lanes, int64_t *mr, int64_t *nr)
{
    int64_t regs = cx->target && cx->target->n_vregs > 0 ? cx->target->n_vregs : 16, m, n;
    if (lanes > 1) {
        /* NR vectors by MR rows, with the registers left after NR values of
           w and a broadcast of a. Enough rows: 2 vectors by as many rows as
           registers allow; a few (a matrix-vector product when there is one
           row): more vectors per row, so that several sums are in flight */
        int64_t ncols = cols / lanes;
        n = rows >= 4 ? 2 : rows == 1 ? 8 : (regs - 1) / (rows + 1);
        n = n > ncols ? ncols : n;
        n = n < 1 ? 1 : n;
        m = rows >= 4 ? (regs - n - 1) / n : rows;
    } else {
        n = 4;
        m = 3;
    }
    *nr = n;
    *mr = m > 8 ? 8 : m < 1 ? 1 : m;
}

/* Apply epilogue node `epi`, whose input `from` is the running value `cur`
 * over stage `st`'s axes (which are the output dims). */
static Expr *apply_epilogue(ComputeCtx *cx, const ComputeStage *st, int epi, int from, Expr *cur)
{
    const Node *n = &cx->g->nodes[epi];
    const Value *y = &cx->g->values[n->out[0]];
    Expr *ops[64] = {0};
    int used = 0;
    if (n->n_in > 64)
        return NULL;
    if (n->op == OP_QUANTIZELINEAR) /* a DequantizeLinear alone may follow: pass fuse */
        return n->in[0] == from ? compute_quantize_expr(cx, epi, cur, &y->shape, st->axis) : NULL;
    if (n->op == OP_DEQUANTIZELINEAR)
        return n->in[0] == from ? compute_dequantize_expr(cx, epi, cur, &y->shape, st->axis) : NULL;
    for (int i = 0; i < n->n_in; i++) {
        if (n->in[i] < 0)
            continue;
        if (n->in[i] == from && !used) {
            ops[i] = cur;
            used = 1;
        } else if (i == 1 && n->at.eltwise.legacy) { /* opset < 7 broadcast at an axis */
            ops[i] = compute_load_aligned(cx, n->in[i], &y->shape, st->axis, (int)n->at.eltwise.legacy_axis);
        } else {
            ops[i] = compute_load_broadcast(cx, n->in[i], &y->shape, st->axis);
        }
    }
    return used ? compute_eltwise_expr(cx, epi, ops) : NULL;
}

/* Inner part of the default schedule: serial loops over the axes in
 * [first, n_axes-1), then the last axis vectorized in lanes of the target's
 * width with a scalar tail. */
typedef struct DefaultPlan {
    int first;
    int64_t L;
} DefaultPlan;

static Stmt *default_inner(ComputeCtx *cx, const ComputeStage *st, Expr **at, void *user)
{
    const DefaultPlan *p = user;
    LoopBuilder *lb = cx->lb;
    int last = st->n_axes - 1;
    LVar *vars[CTVM_MAX_RANK];
    for (int i = p->first; i < last; i++) {
        vars[i] = lv_new(lb, st->axis[i]->name);
        at[i] = lx_var(lb, vars[i]);
    }
    Stmt *s;
    if (last < 0) {
        Tile t = {.tax = -1, .uax = -1, .vax = -1, .T = 1, .U = 1, .L = 1};
        s = sched_tile(cx, st, at, &t);
    } else {
        int64_t E = st->extent[last], L = p->L, full = L > 1 ? E / L : 0;
        Stmt *items[2] = {NULL, NULL};
        if (full > 0) {
            LVar *a = lv_new(lb, st->axis[last]->name);
            at[last] = lx_muli(lb, lx_var(lb, a), L);
            Tile t = {.tax = -1, .uax = -1, .vax = last, .T = 1, .U = 1, .L = L};
            items[0] = ls_for(lb, a, full, LOOP_SERIAL, sched_tile(cx, st, at, &t));
        }
        if (E - full * L > 0) {
            LVar *a = lv_new(lb, st->axis[last]->name);
            at[last] = lx_add(lb, lx_var(lb, a), lx_int(lb, full * L));
            Tile t = {.tax = -1, .uax = -1, .vax = -1, .T = 1, .U = 1, .L = 1};
            LoopKind k = st->unroll_last && full == 0 && E <= 8 ? LOOP_UNROLL : LOOP_SERIAL;
            items[1] = ls_for(lb, a, E - full * L, k, sched_tile(cx, st, at, &t));
        }
        s = ls_seq(lb, 2, items);
    }
    for (int i = last - 1; i >= p->first; i--)
        s = ls_for(lb, vars[i], st->extent[i], st->unroll_inner && i == last - 1 ? LOOP_UNROLL : LOOP_SERIAL, s);
    return s;
}

/* 1 when every load in e that reads along v does so contiguously (index
 * affine in v with coefficient 1) and at least one does; *any is set when
 * some load reads along v at all. */
static int loads_contiguous(const Expr *e, const LVar *v, int *any)
{
    if (!e)
        return 1;
    if (e->kind == EX_LOAD && lx_uses_var(e->a, v)) {
        int64_t coef = 0;
        *any = 1;
        if (!lx_affine(e->a, v, &coef) || coef != 1)
            return 0;
    }
    return loads_contiguous(e->a, v, any) && loads_contiguous(e->b, v, any) && loads_contiguous(e->c, v, any);
}

/* A float32 reduction whose innermost reduction axis is read contiguously
 * and at least one vector long, while the last output axis is not (a row
 * sum, a spatial mean, keepdims or not): its lanes go along the reduction. */
static int reduce_along_lanes(const ComputeStage *st, int vl)
{
    if (vl <= 1 || st->red == RED_NONE || st->n_raxes < 1 || !st->body || st->body->type != LT_F32)
        return 0;
    if (st->rextent[st->n_raxes - 1] < vl)
        return 0;
    int any = 0;
    if (!loads_contiguous(st->body, st->raxis[st->n_raxes - 1], &any) || !any)
        return 0;
    if (st->n_axes == 0)
        return 1;
    int last = st->n_axes - 1, along = 0;
    return st->extent[last] < vl || !loads_contiguous(st->body, st->axis[last], &along) || !along;
}

static Stmt *lanes_inner(ComputeCtx *cx, const ComputeStage *st, Expr **at, void *user)
{
    return sched_reduce_lanes(cx, st, at, *(const int64_t *)user);
}

/* knob[0] = 1 on a stage [A, B, C] that reads a [B, A, C] input (a large
 * Transpose, compute_transpose): blocks of TR_ROWS rows of A, shared among
 * the threads; in a block, B outer and the rows inner, so every read is a
 * contiguous TR_ROWS x C piece of the input and every write TR_ROWS pieces
 * of rows of C: the tiled transpose, with the last axis vectorized. */
#define TR_ROWS 8
typedef struct RowBlockPlan {
    DefaultPlan d;
    int64_t M;
} RowBlockPlan;

static Stmt *rowblock_inner(ComputeCtx *cx, const ComputeStage *st, Expr **at, void *user)
{
    const RowBlockPlan *bp = user;
    LoopBuilder *lb = cx->lb;
    Expr *blk = at[0];
    int64_t full = bp->M / TR_ROWS, rows[2] = {full > 0 ? TR_ROWS : 0, bp->M % TR_ROWS};
    Stmt *c[2] = {NULL, NULL};
    for (int k = 0; k < 2; k++) {
        if (rows[k] == 0)
            continue;
        LVar *bv = lv_new(lb, st->axis[1]->name), *rv = lv_new(lb, st->axis[0]->name);
        at[1] = lx_var(lb, bv);
        at[0] = lx_add(lb, lx_muli(lb, blk, TR_ROWS), lx_var(lb, rv));
        Stmt *s = default_inner(cx, st, at, (void *)&bp->d);
        c[k] = ls_for(lb, bv, st->extent[1], LOOP_SERIAL, ls_for(lb, rv, rows[k], LOOP_SERIAL, s));
    }
    at[0] = blk;
    if (!c[0] || !c[1])
        return c[0] ? c[0] : c[1];
    return sched_split_case(lb, blk, full, c[0], c[1]);
}

Stmt *schedule_stage_default(ComputeCtx *cx, const ComputeStage *st)
{
    int last = st->n_axes - 1, vl = sched_vl(cx);
    int64_t coef = 0;
    if (reduce_along_lanes(st, vl)) { /* every output point on its own, fused over all axes */
        int axes[CTVM_MAX_RANK];
        int64_t L = vl, work = 1;
        for (int i = 0; i < st->n_axes; i++) {
            axes[i] = i;
            work *= st->extent[i];
        }
        for (int r = 0; r < st->n_raxes; r++)
            work *= st->rextent[r];
        Expr *at[CTVM_MAX_RANK] = {0};
        return sched_fused_outer(cx, st, axes, st->extent, st->n_axes, work >= CTVM_PAR_MIN_WORK, at, lanes_inner, &L);
    }
    DefaultPlan p = {0, 1};
    if (vl > 1 && last >= 0 && st->extent[last] >= vl && lx_affine(st->out_index, st->axis[last], &coef) &&
        coef == 1)
        p.L = vl;
    if (st->knob[0] == 1 && st->n_axes == 3 && st->n_raxes == 0 && st->extent[last] >= vl) {
        RowBlockPlan bp = {{2, p.L}, st->extent[0]};
        int ax0 = 0;
        int64_t nblk = (bp.M + TR_ROWS - 1) / TR_ROWS, work = st->extent[0] * st->extent[1] * st->extent[2];
        Expr *at[CTVM_MAX_RANK] = {0};
        return sched_fused_outer(cx, st, &ax0, &nblk, 1, work >= CTVM_PAR_MIN_WORK, at, rowblock_inner, &bp);
    }
    /* outer axes fused into one loop until there are enough iterations to share */
    int64_t work = 1, outer = 1;
    for (int i = 0; i < st->n_axes; i++)
        work *= st->extent[i];
    for (int r = 0; r < st->n_raxes; r++)
        work *= st->rextent[r];
    int axes[CTVM_MAX_RANK];
    int64_t ext[CTVM_MAX_RANK];
    while (p.first < last - (st->unroll_inner ? 1 : 0) && outer < 64) {
        axes[p.first] = p.first;
        ext[p.first] = st->extent[p.first];
        outer *= st->extent[p.first];
        p.first++;
    }
    Expr *at[CTVM_MAX_RANK] = {0};
    return sched_fused_outer(cx, st, axes, ext, p.first, work >= CTVM_PAR_MIN_WORK, at, default_inner, &p);
}

/* The knobs of the stage's workload, when the tuning has them. */
static void apply_tuning(ComputeCtx *cx, ComputeStage *st)
{
    SchedTuning *t = cx->tuning;
    char key[256];
    if (!t || !schedule_workload(st, key, sizeof key))
        return;
    for (int i = 0; i < t->n; i++)
        if (strcmp(t->workload[i], key) == 0) {
            /* 0 = the schedule's own choice: a knob the compute
               definition set stays unless the record sets it */
            for (int k = 0; k < (int)(sizeof st->knob / sizeof st->knob[0]); k++)
                if (t->knobs[i][k] != 0)
                    st->knob[k] = t->knobs[i][k];
            t->used[i]++;
            return;
        }
    if (t->record && t->n < t->cap) {
        t->workload[t->n] = arena_strdup(cx->g->arena, key);
        memset(t->knobs[t->n], 0, sizeof t->knobs[t->n]);
        t->used[t->n++] = 1;
    }
}

/* rows [h0, h0 + nh) x columns [w0, w0 + nw) of every plane of y set to v */
static Stmt *fill_rect(ComputeCtx *cx, LBuf *yb, const Shape *ys, Expr *v, int64_t h0, int64_t nh, int64_t w0,
                       int64_t nw)
{
    LoopBuilder *lb = cx->lb;
    if (nh <= 0 || nw <= 0)
        return NULL;
    int64_t planes = ys->dims[0] * ys->dims[1], lanes = ys->rank == 5 ? ys->dims[4] : 1;
    LVar *o = lv_new(lb, "o"), *h = lv_new(lb, "h"), *w = lv_new(lb, "w"), *l = lv_new(lb, "l");
    Expr *row = lx_add(lb, lx_muli(lb, lx_var(lb, o), ys->dims[2]), lx_add(lb, lx_var(lb, h), lx_int(lb, h0)));
    Expr *px = lx_add(lb, lx_muli(lb, row, ys->dims[3]), lx_add(lb, lx_var(lb, w), lx_int(lb, w0)));
    Expr *at = lx_add(lb, lx_muli(lb, px, lanes), lx_var(lb, l));
    Stmt *s = ls_for(lb, l, lanes, LOOP_VECTORIZE, ls_store(lb, yb, at, v));
    return ls_for(lb, o, planes, LOOP_SERIAL, ls_for(lb, h, nh, LOOP_SERIAL, ls_for(lb, w, nw, LOOP_SERIAL, s)));
}

/* The border of fused ctvm.PadHW `node`'s output (its interior is the
 * group's stores): top and bottom rows, then the left and right columns. */
static Stmt *pad_border(ComputeCtx *cx, int node)
{
    const Node *n = &cx->g->nodes[node];
    const Shape *ys = &cx->g->values[n->out[0]].shape;
    const int64_t *p = n->at.layout.pads;
    int64_t H = ys->dims[2], W = ys->dims[3], h_in = H - p[0] - p[2];
    LBuf *yb = cx->buf_of(cx, n->out[0]);
    Expr *v = compute_pad_value(cx, node);
    Stmt *items[4] = {fill_rect(cx, yb, ys, v, 0, p[0], 0, W), fill_rect(cx, yb, ys, v, H - p[2], p[2], 0, W),
                      fill_rect(cx, yb, ys, v, p[0], h_in, 0, p[1]),
                      fill_rect(cx, yb, ys, v, p[0], h_in, W - p[3], p[3])};
    return ls_seq(cx->lb, 4, items);
}

Stmt *schedule_group(ComputeCtx *cx, int anchor)
{
    static ComputeDef def; /* large; one group at a time */
    Stmt *border = NULL;   /* a fused PadHW's border stores */
    if (compute_node(cx, anchor, &def) != 0)
        return NULL;
    const Node *a = &cx->g->nodes[anchor];
    if (a->n_epi > 0) {
        /* into the last stage, when it writes the node's output (earlier
           stages write scratch values it reads: ctvm.WinogradConv) */
        if (def.custom || def.n_stages < 1 || !def.stages[def.n_stages - 1].out_is_node_output) {
            diag_error(cx->d, cx->g, anchor, "cannot fuse epilogues into this operator (internal error)");
            return NULL;
        }
        ComputeStage *st = &def.stages[def.n_stages - 1];
        Expr *cur = st->finalize ? st->finalize : lx_var(cx->lb, st->acc);
        int from = a->out[0];
        for (int e = 0; e < a->n_epi; e++) {
            const Node *en = &cx->g->nodes[a->epi[e]];
            if (en->op == OP_PADHW && e == a->n_epi - 1 && en->in[0] == from) {
                /* the padded tensor's interior is stored, its border filled */
                st->out_index = compute_pad_index(cx, a->epi[e], st->axis);
                border = pad_border(cx, a->epi[e]);
                from = en->out[0];
                break;
            }
            cur = apply_epilogue(cx, st, a->epi[e], from, cur);
            if (!cur) {
                diag_error(cx->d, cx->g, a->epi[e], "epilogue does not consume its producer (internal error)");
                return NULL;
            }
            from = cx->g->nodes[a->epi[e]].out[0];
        }
        st->finalize = cur;
        st->out = cx->buf_of(cx, from);
    }
    if (def.custom)
        schedule_custom(cx, def.custom);
    if (def.custom && def.n_stages == 0)
        return def.custom;
    Stmt *items[CTVM_MAX_STAGES + 2];
    for (int i = 0; i < def.n_stages; i++) {
        ComputeStage *st = &def.stages[i];
        if (cx->naive) {
            items[i] = compute_lower_naive(cx->lb, st);
            continue;
        }
        if (st->sched_vector_only && sched_vl(cx) <= 1)
            st->sched = SCHED_DEFAULT;
        apply_tuning(cx, st);
        items[i] = st->sched == SCHED_CONV ? schedule_conv(cx, st)
                 : st->sched == SCHED_GEMM ? schedule_gemm(cx, st)
                                           : schedule_stage_default(cx, st);
    }
    int ni = def.n_stages;
    if (def.custom) /* stages, then the custom nest that reads them */
        items[ni++] = def.custom;
    if (border)
        items[ni++] = border;
    return ni == 1 ? items[0] : ls_seq(cx->lb, ni, items);
}
