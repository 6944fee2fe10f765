/* schedule_tile.c - register tiles and fused parallel loops (see schedule_tile.h). */
#include "schedule_tile.h"

#include "schedule.h"

#include <math.h>

static Expr *subst_axes(ComputeCtx *cx, const ComputeStage *st, Expr *e, Expr *const *ax)
{
    for (int i = 0; i < st->n_axes; i++)
        e = lx_subst(cx->lb, e, st->axis[i], ax[i]);
    return e;
}

/* for j unroll T { for u unroll U { for lane vectorize L { s } } }: a value
 * that depends on j only (the broadcast input of a convolution) is used by
 * the U updates right after it is loaded, and the U values that depend on u
 * only (weight vectors) stay in registers across j. */
static Stmt *wrap_tile(ComputeCtx *cx, const Tile *t, LVar *r, LVar *u, LVar *j, LVar *lane, Stmt *s)
{
    LoopBuilder *lb = cx->lb;
    if (t->vax >= 0)
        s = ls_for(lb, lane, t->L, LOOP_VECTORIZE, s);
    if (t->uax >= 0)
        s = ls_for(lb, u, t->U, LOOP_UNROLL, s);
    if (t->tax >= 0)
        s = ls_for(lb, j, t->T, LOOP_UNROLL, s);
    if (t->R > 1)
        s = ls_for(lb, r, t->R, LOOP_UNROLL, s);
    return s;
}

Stmt *sched_tile(ComputeCtx *cx, const ComputeStage *st, Expr *const *at, const Tile *t)
{
    LoopBuilder *lb = cx->lb;
    LVar *u = lv_new(lb, "u"), *j = lv_new(lb, "j"), *lane = lv_new(lb, "l"), *r = lv_new(lb, "r");
    int64_t U = t->uax >= 0 ? t->U : 1, T = t->tax >= 0 ? t->T : 1, L = t->vax >= 0 ? t->L : 1;
    int64_t R = t->R > 1 ? t->R : 1;
    Expr *ax[CTVM_MAX_RANK];
    for (int i = 0; i < st->n_axes; i++)
        ax[i] = at[i];
    if (t->tax >= 0)
        ax[t->tax] = lx_add(lb, at[t->tax], lx_var(lb, j));
    if (t->uax >= 0)
        ax[t->uax] = lx_add(lb, at[t->uax], lx_var(lb, u));
    if (t->vax >= 0 && t->vax == t->uax) /* U vectors side by side along one axis */
        ax[t->vax] = lx_add(lb, at[t->vax], lx_add(lb, lx_muli(lb, lx_var(lb, u), L), lx_var(lb, lane)));
    else if (t->vax >= 0)
        ax[t->vax] = lx_add(lb, at[t->vax], lx_var(lb, lane));
    if (R > 1)
        ax[t->rax] = lx_add(lb, at[t->rax], lx_var(lb, r));
    Expr *body = subst_axes(cx, st, st->body, ax);
    Expr *fin = subst_axes(cx, st, st->finalize ? st->finalize : lx_var(lb, st->acc), ax);
    Expr *oidx = subst_axes(cx, st, st->out_index, ax);
    if (st->red == RED_NONE)
        return wrap_tile(cx, t, r, u, j, lane, ls_store(lb, st->out, oidx, lx_subst(lb, fin, st->acc, body)));

    LType acc_t = st->body->type; /* accumulate in the body's type */
    LBuf *acc = lbuf_new_typed(lb, "acc", LB_LOCAL, lt_dtype(acc_t), R * U * T * L);
    /* slot ((r*U + u)*T + j)*L + lane */
    Expr *ue = t->uax >= 0 ? lx_var(lb, u) : lx_int(lb, 0), *je = t->tax >= 0 ? lx_var(lb, j) : lx_int(lb, 0);
    Expr *le = t->vax >= 0 ? lx_var(lb, lane) : lx_int(lb, 0), *re = R > 1 ? lx_var(lb, r) : lx_int(lb, 0);
    Expr *slot = lx_add(lb, lx_muli(lb, lx_add(lb, lx_muli(lb, lx_add(lb, lx_muli(lb, re, U), ue), T), je), L), le);
    Expr *cur = lx_load(lb, acc, slot);
    Expr *init = st->red == RED_SUM ? lx_zero(lb, acc_t) : st->red == RED_PROD ? lx_one(lb, acc_t)
               : st->red == RED_MAX ? lx_lowest(lb, acc_t) : lx_highest(lb, acc_t);
    BinOp rop = st->red == RED_SUM ? BO_ADD : st->red == RED_PROD ? BO_MUL : st->red == RED_MAX ? BO_MAX : BO_MIN;
    int chunked = t->nK > 1 && st->red == RED_SUM;
    if (chunked) { /* the chunked axis: kvar*Kc + its own loop over 0..Kc-1 */
        LVar *ka = st->raxis[t->kax];
        body = lx_subst(lb, body, ka, lx_add(lb, lx_muli(lb, lx_var(lb, t->kvar), t->Kc), lx_var(lb, ka)));
    }
    Expr *upd = lx_bin(lb, rop, cur, body);
    Stmt *loop = wrap_tile(cx, t, r, u, j, lane, ls_store(lb, acc, slot, upd));
    for (int r = st->n_raxes - 1; r >= 0; r--)
        loop = ls_for(lb, st->raxis[r], chunked && r == t->kax ? t->Kc : st->rextent[r],
                      t->unroll_r && r == st->n_raxes - 1 ? LOOP_UNROLL : LOOP_SERIAL, loop);
    Stmt *first = wrap_tile(cx, t, r, u, j, lane, ls_store(lb, acc, slot, init));
    Stmt *last = wrap_tile(cx, t, r, u, j, lane, ls_store(lb, st->out, oidx, lx_subst(lb, fin, st->acc, cur)));
    if (chunked) { /* partial sums live in the output between chunks */
        /* (kv < 1, kv >= nK - 1: an == in the emitted if's double parentheses
           is a clang -Wparentheses-equality warning) */
        Expr *kv = lx_var(lb, t->kvar), *k1 = lx_int(lb, 1), *kl = lx_int(lb, t->nK - 1);
        Stmt *resume = wrap_tile(cx, t, r, u, j, lane, ls_store(lb, acc, slot, lx_load(lb, st->out, oidx)));
        Stmt *part = wrap_tile(cx, t, r, u, j, lane, ls_store(lb, st->out, oidx, cur));
        first = ls_if_else(lb, lx_bin(lb, BO_LT, kv, k1), first, resume);
        last = ls_if_else(lb, lx_bin(lb, BO_GE, kv, kl), last, part);
    }
    Stmt *items[3] = {first, loop, last};
    return ls_alloc(lb, acc, ls_seq(lb, 3, items));
}

Stmt *sched_reduce_lanes(ComputeCtx *cx, const ComputeStage *st, Expr *const *at, int64_t L)
{
    LoopBuilder *lb = cx->lb;
    int ri = st->n_raxes - 1;
    LVar *rv = st->raxis[ri];
    int64_t E = st->rextent[ri], nv = E / L, t0 = nv * L;
    LType t = st->body->type;
    Expr *body = subst_axes(cx, st, st->body, at);
    Expr *fin = subst_axes(cx, st, st->finalize ? st->finalize : lx_var(lb, st->acc), at);
    Expr *oidx = subst_axes(cx, st, st->out_index, at);
    BinOp rop = st->red == RED_SUM ? BO_ADD : st->red == RED_PROD ? BO_MUL : st->red == RED_MAX ? BO_MAX : BO_MIN;
    Expr *init = st->red == RED_SUM ? lx_zero(lb, t) : st->red == RED_PROD ? lx_one(lb, t)
               : st->red == RED_MAX ? lx_lowest(lb, t) : lx_highest(lb, t);
    LBuf *acc = lbuf_new_typed(lb, "acc", LB_LOCAL, lt_dtype(t), L), *one = lbuf_new_typed(lb, "red", LB_LOCAL, lt_dtype(t), 1);
    LVar *l0 = lv_new(lb, "l"), *c = lv_new(lb, "c"), *l1 = lv_new(lb, "l"), *tv = lv_new(lb, "t"), *l2 = lv_new(lb, "l");
    Expr *z = lx_int(lb, 0);
    /* partials: lanes over c*L + lane, the tail into lane 0 */
    Expr *vb = lx_subst(lb, body, rv, lx_add(lb, lx_muli(lb, lx_var(lb, c), L), lx_var(lb, l1)));
    Stmt *vec = ls_for(lb, c, nv, LOOP_SERIAL,
                       ls_for(lb, l1, L, LOOP_VECTORIZE,
                              ls_store(lb, acc, lx_var(lb, l1), lx_bin(lb, rop, lx_load(lb, acc, lx_var(lb, l1)), vb))));
    Stmt *tail = NULL;
    if (E > t0) {
        Expr *tb = lx_subst(lb, body, rv, lx_add(lb, lx_var(lb, tv), lx_int(lb, t0)));
        tail = ls_for(lb, tv, E - t0, LOOP_SERIAL, ls_store(lb, acc, z, lx_bin(lb, rop, lx_load(lb, acc, z), tb)));
    }
    Stmt *red = ls_seq2(lb, vec, tail);
    for (int r = ri - 1; r >= 0; r--)
        red = ls_for(lb, st->raxis[r], st->rextent[r], LOOP_SERIAL, red);
    Stmt *items[5] = {
        ls_for(lb, l0, L, LOOP_VECTORIZE, ls_store(lb, acc, lx_var(lb, l0), init)),
        red,
        ls_store(lb, one, z, lx_load(lb, acc, z)),
        ls_for(lb, l2, L - 1, LOOP_SERIAL,
               ls_store(lb, one, z, lx_bin(lb, rop, lx_load(lb, one, z), lx_load(lb, acc, lx_add(lb, lx_var(lb, l2), lx_int(lb, 1)))))),
        ls_store(lb, st->out, oidx, lx_subst(lb, fin, st->acc, lx_load(lb, one, z))),
    };
    return ls_alloc(lb, acc, ls_alloc(lb, one, ls_seq(lb, 5, items)));
}

Stmt *sched_fused_outer(ComputeCtx *cx, const ComputeStage *st, const int *axes, const int64_t *extents,
                        int n, int parallel, Expr **at, InnerFn inner, void *user)
{
    LoopBuilder *lb = cx->lb;
    int64_t total = 1;
    for (int i = 0; i < n; i++)
        total *= extents[i];
    if (n == 0)
        return inner(cx, st, at, user);
    if (total == 0)
        return ls_seq(lb, 0, NULL); /* an empty tensor: nothing to compute */
    LVar *f = lv_new(lb, "p");
    int64_t stride = total;
    for (int i = 0; i < n; i++) {
        stride /= extents[i];
        Expr *e = lx_var(lb, f);
        if (stride > 1)
            e = lx_bin(lb, BO_DIV, e, lx_int(lb, stride));
        if (i > 0)
            e = lx_bin(lb, BO_MOD, e, lx_int(lb, extents[i]));
        at[axes[i]] = e;
    }
    Stmt *body = inner(cx, st, at, user);
    int par = parallel && sched_threads(cx) > 1 && total > 1;
    return ls_for(lb, f, total, par ? LOOP_PARALLEL : LOOP_SERIAL, body);
}

Stmt *sched_split_case(LoopBuilder *lb, Expr *tile, int64_t full, Stmt *a, Stmt *b)
{
    return ls_seq2(lb, ls_if(lb, lx_bin(lb, BO_LT, tile, lx_int(lb, full)), a),
                   ls_if(lb, lx_bin(lb, BO_GE, tile, lx_int(lb, full)), b));
}

int64_t sched_pick_tile(int64_t n, int64_t lo, int64_t hi)
{
    if (n <= hi)
        return n;
    for (int64_t t = hi; t >= lo && t >= 1; t--)
        if (n % t == 0)
            return t;
    return hi;
}
