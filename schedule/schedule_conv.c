/* schedule_conv.c - register-blocked schedule of ctvm.ConvNCHWc (see
 * schedule_conv.h). */
#include "schedule_conv.h"

#include "ir/target.h"
#include "schedule.h"
#include "schedule_tile.h"

typedef struct ConvPlan {
    int64_t T, U, L, OCb, OW, full_u;
} ConvPlan;

/* the tiles of one output row: full tiles of T columns, then the rest */
static Stmt *row(ComputeCtx *cx, const ComputeStage *st, Expr **at, const ConvPlan *p, int64_t U)
{
    LoopBuilder *lb = cx->lb;
    Stmt *items[2] = {NULL, NULL};
    int64_t full = p->OW / p->T, rest = p->OW - full * p->T;
    at[4] = lx_int(lb, 0);
    if (full > 0) {
        LVar *to = lv_new(lb, "owo");
        at[3] = lx_muli(lb, lx_var(lb, to), p->T);
        Tile t = {3, 1, 4, p->T, U, p->L};
        items[0] = ls_for(lb, to, full, LOOP_SERIAL, sched_tile(cx, st, at, &t));
    }
    if (rest > 0) {
        at[3] = lx_int(lb, full * p->T);
        Tile t = {3, 1, 4, rest, U, p->L};
        items[1] = sched_tile(cx, st, at, &t);
    }
    return ls_seq(lb, 2, items);
}

static Stmt *inner(ComputeCtx *cx, const ComputeStage *st, Expr **at, void *user)
{
    const ConvPlan *p = user;
    LoopBuilder *lb = cx->lb;
    /* at[1] holds the tile index ocb/U; channel block base = that * U */
    Expr *tile = at[1];
    at[1] = lx_muli(lb, tile, p->U);
    if (p->OCb % p->U == 0)
        return row(cx, st, at, p, p->U);
    Expr *save[CTVM_MAX_RANK];
    for (int i = 0; i < st->n_axes; i++)
        save[i] = at[i];
    Stmt *a = row(cx, st, at, p, p->U);
    for (int i = 0; i < st->n_axes; i++)
        at[i] = save[i];
    Stmt *b = row(cx, st, at, p, p->OCb % p->U);
    Expr *is_full = lx_bin(lb, BO_LT, tile, lx_int(lb, p->full_u));
    Expr *is_last = lx_bin(lb, BO_GE, tile, lx_int(lb, p->full_u));
    return ls_seq2(lb, ls_if(lb, is_full, a), ls_if(lb, is_last, b));
}

Stmt *schedule_conv(ComputeCtx *cx, const ComputeStage *st)
{
    int vl = compute_vl(cx);
    int regs = cx->g->target ? cx->g->target->n_vregs : 16;
    if (st->n_axes != 5 || st->extent[4] != (vl > 1 ? vl : st->extent[4]))
        return schedule_stage_default(cx, st);
    ConvPlan p = {.L = st->extent[4], .OCb = st->extent[1], .OW = st->extent[3]};
    int depthwise = st->n_raxes == 2;
    if (vl == 1) {
        /* scalar: the "vector" is one channel; block channels by U instead */
        p.L = 1;
        p.U = depthwise ? 1 : (p.OCb >= 4 ? 4 : p.OCb);
    } else {
        p.U = depthwise ? 1 : (p.OCb >= 2 ? 2 : 1);
    }
    if (st->knob[1] > 0)
        p.U = st->knob[1] < p.OCb ? st->knob[1] : p.OCb;
    int64_t tmax = (regs - p.U - 2) / p.U;
    if (tmax > 16)
        tmax = 16;
    if (tmax < 1)
        tmax = 1;
    p.T = st->knob[0] > 0 ? st->knob[0] : sched_pick_tile(p.OW, (tmax + 1) / 2, tmax);
    if (p.T > p.OW)
        p.T = p.OW;
    p.full_u = p.OCb / p.U;
    int64_t tiles_u = (p.OCb + p.U - 1) / p.U;
    int axes[3] = {0, 1, 2};
    int64_t ext[3] = {st->extent[0], tiles_u, st->extent[2]};
    Expr *at[CTVM_MAX_RANK] = {0};
    return sched_fused_outer(cx, st, axes, ext, 3, 1, at, inner, &p);
}
