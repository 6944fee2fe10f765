/* schedule.c - default lowering of compute stages to loop nests and epilogue
 * composition (see schedule.h). */
#include "schedule.h"

#include <math.h>

/* Apply epilogue node `epi`, whose input `from` is the running value `cur`
 * over stage `st`'s axes (which are the output dims). */
static Expr *apply_epilogue(ComputeCtx *cx, const ComputeStage *st, int epi, int from, Expr *cur)
{
    const Node *n = &cx->g->nodes[epi];
    const Value *y = &cx->g->values[n->out[0]];
    Expr *ops[4] = {0};
    int used = 0;
    for (int i = 0; i < n->n_in && i < 4; i++) {
        if (n->in[i] < 0)
            continue;
        if (n->in[i] == from && !used) {
            ops[i] = cur;
            used = 1;
        } else if (n->op != OP_CLIP) {
            ops[i] = compute_load_broadcast(cx, n->in[i], &y->shape, st->axis);
        }
    }
    return used ? compute_eltwise_expr(cx, epi, ops) : NULL;
}

Stmt *schedule_stage_default(ComputeCtx *cx, const ComputeStage *st)
{
    LoopBuilder *lb = cx->lb;
    Expr *value = st->finalize ? st->finalize : lx_var(lb, st->acc);
    Stmt *s;
    if (st->red == RED_NONE) {
        s = ls_store(lb, st->out, st->out_index, lx_subst(lb, value, st->acc, st->body));
    } else {
        LBuf *acc = lbuf_new(lb, "acc", LB_LOCAL, 1);
        Expr *zero = lx_int(lb, 0), *cur = lx_load(lb, acc, zero);
        Expr *init = lx_float(lb, st->red == RED_SUM ? 0.0 : -INFINITY);
        Expr *upd = st->red == RED_SUM ? lx_add(lb, cur, st->body) : lx_bin(lb, BO_MAX, cur, st->body);
        Stmt *loop = ls_store(lb, acc, zero, upd);
        for (int r = st->n_raxes - 1; r >= 0; r--)
            loop = ls_for(lb, st->raxis[r], st->rextent[r], LOOP_SERIAL, loop);
        Stmt *items[3] = {ls_store(lb, acc, zero, init), loop,
                          ls_store(lb, st->out, st->out_index, lx_subst(lb, value, st->acc, cur))};
        s = ls_alloc(lb, acc, ls_seq(lb, 3, items));
    }
    for (int a = st->n_axes - 1; a >= 0; a--)
        s = ls_for(lb, st->axis[a], st->extent[a], LOOP_SERIAL, s);
    return s;
}

Stmt *schedule_group(ComputeCtx *cx, int anchor)
{
    static ComputeDef def; /* large; one group at a time */
    if (compute_node(cx, anchor, &def) != 0)
        return NULL;
    const Node *a = &cx->g->nodes[anchor];
    if (a->n_epi > 0) {
        if (def.custom || def.n_stages != 1 || !def.stages[0].out_is_node_output) {
            diag_error(cx->d, cx->g, anchor, "cannot fuse epilogues into this operator (internal error)");
            return NULL;
        }
        ComputeStage *st = &def.stages[0];
        Expr *cur = st->finalize ? st->finalize : lx_var(cx->lb, st->acc);
        int from = a->out[0];
        for (int e = 0; e < a->n_epi; e++) {
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
        return def.custom;
    Stmt *items[CTVM_MAX_STAGES];
    for (int i = 0; i < def.n_stages; i++)
        items[i] = schedule_stage_default(cx, &def.stages[i]);
    return def.n_stages == 1 ? items[0] : ls_seq(cx->lb, def.n_stages, items);
}
