/* lp_tail_split.c - loop pass: a LOOP_VECTORIZE loop longer than the
 * vector width whose body vectorizes (lp_vector_legal) becomes a serial
 * loop over whole vectors, each a vector loop of the width, then a serial
 * loop over the remaining iterations (the tail):
 *     for v in 0..E vectorize { S(v) }
 *  -> for vo in 0..E/W { for vi in 0..W vectorize { S(vo*W + vi) } }
 *     for vt in 0..E%W { S(E/W*W + vt) }
 * Schedules then need not split every vectorizable axis by the width
 * themselves; a loop of extent 1 left behind goes in the simplify pass. */
#include "ir/loop_vec.h"
#include "ir/target.h"
#include "loop_passes.h"

static Stmt *split(LoopBuilder *lb, Stmt *s, int vl)
{
    if (!s)
        return NULL;
    Stmt *c;
    switch (s->kind) {
    case ST_FOR:
        if (s->loop == LOOP_VECTORIZE && vl > 1 && s->extent > vl && lp_vector_legal(s->body, s->var)) {
            int64_t whole = s->extent / vl, rest = s->extent % vl;
            LVar *vo = lv_new(lb, "vo"), *vi = lv_new(lb, "vi"), *vt = lv_new(lb, "vt");
            Expr *at = lx_add(lb, lx_muli(lb, lx_var(lb, vo), vl), lx_var(lb, vi));
            Stmt *items[2] = {ls_for(lb, vo, whole, LOOP_SERIAL,
                                     ls_for(lb, vi, vl, LOOP_VECTORIZE, ls_subst(lb, s->body, s->var, at))),
                              NULL};
            if (rest)
                items[1] = ls_for(lb, vt, rest, LOOP_SERIAL,
                                  ls_subst(lb, s->body, s->var, lx_add(lb, lx_int(lb, whole * vl), lx_var(lb, vt))));
            return ls_seq(lb, 2, items);
        }
        c = ls_clone(lb, s);
        c->body = split(lb, s->body, vl);
        return c;
    case ST_ALLOC:
    case ST_DECL:
    case ST_SINGLE:
        c = ls_clone(lb, s);
        c->body = split(lb, s->body, vl);
        return c;
    case ST_IF:
        c = ls_clone(lb, s);
        c->body = split(lb, s->body, vl);
        c->else_body = split(lb, s->else_body, vl);
        return c;
    case ST_SEQ:
        c = ls_clone(lb, s);
        c->items = arena_array(lb->arena, (size_t)(s->n ? s->n : 1), sizeof(Stmt *));
        for (int i = 0; i < s->n; i++)
            c->items[i] = split(lb, s->items[i], vl);
        return c;
    default: return s;
    }
}

int lp_tail_split(Module *m, Kernel *k, Diag *d)
{
    (void)d;
    k->body = split(&m->lb, k->body, m->target ? m->target->vl : 1);
    return 0;
}
