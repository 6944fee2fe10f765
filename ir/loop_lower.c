/* loop_lower.c - unroll expansion and the affine test (see loop_lower.h). */
#include "loop_lower.h"

Stmt *loop_expand_unrolled(LoopBuilder *lb, Stmt *s)
{
    if (!s)
        return NULL;
    switch (s->kind) {
    case ST_FOR: {
        Stmt *body = loop_expand_unrolled(lb, s->body);
        int expand = (s->loop == LOOP_UNROLL && s->extent <= LOOP_MAX_UNROLL) ||
                     (s->loop == LOOP_VECTORIZE && s->extent == 1);
        if (!expand) {
            Stmt *c = ls_for(lb, s->var, s->extent, s->loop == LOOP_UNROLL ? LOOP_SERIAL : s->loop, body);
            return c;
        }
        if (s->extent <= 0)
            return ls_seq(lb, 0, NULL);
        Stmt **items = arena_array(lb->arena, (size_t)s->extent, sizeof(Stmt *));
        for (int64_t i = 0; i < s->extent; i++)
            items[i] = ls_subst(lb, body, s->var, lx_int(lb, i));
        return s->extent == 1 ? items[0] : ls_seq(lb, (int)s->extent, items);
    }
    case ST_ALLOC: return ls_alloc(lb, s->buf, loop_expand_unrolled(lb, s->body));
    case ST_IF: return ls_if(lb, s->cond, loop_expand_unrolled(lb, s->body));
    case ST_SEQ: {
        Stmt **items = arena_array(lb->arena, (size_t)(s->n ? s->n : 1), sizeof(Stmt *));
        for (int i = 0; i < s->n; i++)
            items[i] = loop_expand_unrolled(lb, s->items[i]);
        return ls_seq(lb, s->n, items);
    }
    case ST_STORE: return s;
    }
    return s;
}

int lx_affine(const Expr *e, const LVar *v, int64_t *coef)
{
    if (!lx_uses_var(e, v)) {
        *coef = 0;
        return 1;
    }
    int64_t ca, cb;
    switch (e->kind) {
    case EX_VAR: *coef = 1; return 1;
    case EX_BIN:
        if (e->type != LT_INT)
            return 0;
        if (e->op == BO_ADD || e->op == BO_SUB) {
            if (!lx_affine(e->a, v, &ca) || !lx_affine(e->b, v, &cb))
                return 0;
            *coef = e->op == BO_ADD ? ca + cb : ca - cb;
            return 1;
        }
        if (e->op == BO_MUL) {
            if (e->b->kind == EX_INT && lx_affine(e->a, v, &ca)) {
                *coef = ca * e->b->i;
                return 1;
            }
            if (e->a->kind == EX_INT && lx_affine(e->b, v, &cb)) {
                *coef = cb * e->a->i;
                return 1;
            }
        }
        return 0;
    default: return 0;
    }
}
