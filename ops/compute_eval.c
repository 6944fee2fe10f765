/* compute_eval.c - evaluating a node at compile time by running its compute
 * definition: the stages are lowered to a plain loop nest (no tiling, no
 * vectors) and run by the loop IR interpreter on the constants' bytes. This
 * is how constant folding evaluates every operator that has no hand-written
 * evaluation, so an operator's semantics are written once. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/loop_interp.h"
#include "ops/compute.h"
#include "ops/op_util.h"
#include "ops/ops.h"

Stmt *compute_lower_naive(LoopBuilder *lb, const ComputeStage *st)
{
    Expr *fin = st->finalize ? st->finalize : lx_var(lb, st->acc);
    Stmt *s;
    if (st->red == RED_NONE) {
        s = ls_store(lb, st->out, st->out_index, lx_subst(lb, fin, st->acc, st->body));
    } else {
        LType t = st->body->type;
        LBuf *acc = lbuf_new_typed(lb, "acc", LB_LOCAL, lt_dtype(t), 1);
        Expr *z = lx_int(lb, 0), *cur = lx_load(lb, acc, z);
        Expr *init = st->red == RED_SUM ? lx_zero(lb, t) : st->red == RED_PROD ? lx_one(lb, t)
                   : st->red == RED_MAX ? lx_lowest(lb, t) : lx_highest(lb, t);
        BinOp op = st->red == RED_SUM ? BO_ADD : st->red == RED_PROD ? BO_MUL : st->red == RED_MAX ? BO_MAX : BO_MIN;
        Stmt *upd = ls_store(lb, acc, z, lx_bin(lb, op, cur, st->body));
        for (int r = st->n_raxes - 1; r >= 0; r--)
            upd = ls_for(lb, st->raxis[r], st->rextent[r], LOOP_SERIAL, upd);
        Stmt *items[3] = {ls_store(lb, acc, z, init), upd,
                          ls_store(lb, st->out, st->out_index, lx_subst(lb, fin, st->acc, cur))};
        s = ls_alloc(lb, acc, ls_seq(lb, 3, items));
    }
    for (int i = st->n_axes - 1; i >= 0; i--)
        s = ls_for(lb, st->axis[i], st->extent[i], LOOP_SERIAL, s);
    return s;
}

typedef struct EvalCtx {
    ComputeCtx cx;
    LoopBuilder lb;
    LBuf **by_value; /* value id -> buffer */
    int *value_of;   /* buffer id -> value id */
    int cap_bufs;
} EvalCtx;

static LBuf *eval_buf_of(ComputeCtx *cx, int vid)
{
    EvalCtx *e = cx->user;
    if (e->by_value[vid])
        return e->by_value[vid];
    const Value *v = &cx->g->values[vid];
    int64_t numel = 0;
    shape_numel(&v->shape, &numel);
    LBuf *b = lbuf_new_typed(&e->lb, v->name, v->data ? LB_CONST : LB_ARENA, v->dtype, numel);
    if (b->id >= e->cap_bufs) {
        int cap = b->id * 2 + 16;
        int *nv = realloc(e->value_of, (size_t)cap * sizeof(int));
        if (!nv) {
            fprintf(stderr, "ctvm: out of memory\n");
            exit(1);
        }
        e->value_of = nv;
        e->cap_bufs = cap;
    }
    e->value_of[b->id] = vid;
    return e->by_value[vid] = b;
}

static void *eval_mem(void *user, const LBuf *b)
{
    EvalCtx *e = user;
    if (b->id >= e->cap_bufs)
        return NULL;
    return e->cx.g->values[e->value_of[b->id]].data;
}

int ops_eval_compute(Graph *g, int node, const struct Target *t, Diag *d)
{
    const Node *n = &g->nodes[node];
    for (int k = 0; k < n->n_out; k++) /* outputs first, so buffers find their bytes */
        if (n->out[k] >= 0 && !opu_alloc_out(g, node, k, d))
            return -1;
    EvalCtx e;
    memset(&e, 0, sizeof e);
    Arena *ar = arena_new();
    e.lb.arena = ar;
    e.cx.lb = &e.lb;
    e.cx.g = g;
    e.cx.target = t;
    e.cx.threads = 1;
    e.cx.d = d;
    e.cx.buf_of = eval_buf_of;
    e.cx.user = &e;
    e.by_value = arena_array(ar, (size_t)g->n_values + 1, sizeof(LBuf *));
    static ComputeDef def; /* large; one node at a time */
    int rc = -1;
    if (compute_node(&e.cx, node, &def) != 0)
        goto done;
    Stmt *s = def.custom;
    if (!s) {
        Stmt **items = arena_array(ar, (size_t)def.n_stages + 1, sizeof(Stmt *));
        for (int i = 0; i < def.n_stages; i++)
            items[i] = compute_lower_naive(&e.lb, &def.stages[i]);
        s = ls_seq(&e.lb, def.n_stages, items);
    }
    char err[512];
    if (loop_interp_run_for(s, t, eval_mem, &e, err, sizeof err) != 0) {
        diag_error(d, g, node, "evaluating the constant inputs failed: %s (internal error)", err);
        goto done;
    }
    rc = 1;
done:
    free(e.value_of);
    arena_free(ar);
    return rc;
}
