/* loop_lower.c - unroll expansion and the affine test (see loop_lower.h). */
#include "loop_lower.h"
#include "loop_vec.h"

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
            c->role = s->role; /* LR_LANES tails: lp_vectorize's partial vectors */
            c->work = s->work;
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
    case ST_IF: return ls_if_else(lb, s->cond, loop_expand_unrolled(lb, s->body), loop_expand_unrolled(lb, s->else_body));
    case ST_SEQ: {
        Stmt **items = arena_array(lb->arena, (size_t)(s->n ? s->n : 1), sizeof(Stmt *));
        for (int i = 0; i < s->n; i++)
            items[i] = loop_expand_unrolled(lb, s->items[i]);
        return ls_seq(lb, s->n, items);
    }
    default: return s; /* stores, calls; the passes' nodes come later */
    }
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

int lx_equal(const Expr *a, const Expr *b)
{
    if (a == b)
        return 1;
    if (!a || !b || a->kind != b->kind || a->type != b->type || lx_lanes(a) != lx_lanes(b))
        return 0;
    switch (a->kind) {
    case EX_INT: return a->i == b->i;
    case EX_FLOAT: return a->f == b->f;
    case EX_VAR: return a->var == b->var;
    case EX_LOAD: return a->buf == b->buf && a->partial == b->partial && lx_equal(a->a, b->a);
    case EX_BIN: return a->op == b->op && lx_equal(a->a, b->a) && lx_equal(a->b, b->b);
    case EX_CALL: return a->fn == b->fn && lx_equal(a->a, b->a);
    case EX_SELECT: return lx_equal(a->a, b->a) && lx_equal(a->b, b->b) && lx_equal(a->c, b->c);
    case EX_CAST: return a->i == b->i && lx_equal(a->a, b->a);
    case EX_BCAST: return lx_equal(a->a, b->a);
    case EX_FMA:
    case EX_DOT:
    case EX_MLA16: return lx_equal(a->a, b->a) && lx_equal(a->b, b->b) && lx_equal(a->c, b->c);
    case EX_LANEMASK: return a->i == b->i;
    case EX_HREDUCE: return a->op == b->op && lx_equal(a->a, b->a);
    }
    return 0;
}

#define MAX_TERMS 32
typedef struct Terms {
    int n;
    const Expr *atom[MAX_TERMS];
    int64_t coef[MAX_TERMS];
    int64_t c;
    int overflow;
} Terms;

static void add_term(Terms *t, const Expr *atom, int64_t k)
{
    for (int i = 0; i < t->n; i++)
        if (lx_equal(t->atom[i], atom)) {
            t->coef[i] += k;
            return;
        }
    if (t->n == MAX_TERMS) {
        t->overflow = 1;
        return;
    }
    t->atom[t->n] = atom;
    t->coef[t->n++] = k;
}

static void collect_terms(LoopBuilder *lb, const Expr *e, int64_t k, Terms *t)
{
    if (e->kind == EX_INT) {
        t->c += k * e->i;
    } else if (e->kind == EX_BIN && e->op == BO_ADD) {
        collect_terms(lb, e->a, k, t);
        collect_terms(lb, e->b, k, t);
    } else if (e->kind == EX_BIN && e->op == BO_SUB) {
        collect_terms(lb, e->a, k, t);
        collect_terms(lb, e->b, -k, t);
    } else if (e->kind == EX_BIN && e->op == BO_MUL && e->b->kind == EX_INT) {
        collect_terms(lb, e->a, k * e->b->i, t);
    } else if (e->kind == EX_BIN && e->op == BO_MUL && e->a->kind == EX_INT) {
        collect_terms(lb, e->b, k * e->a->i, t);
    } else if (e->kind == EX_BIN && (e->op == BO_DIV || e->op == BO_MOD)) {
        add_term(t, lx_bin(lb, e->op, lx_canon_index(lb, e->a), e->b), k); /* atom, canonical inside */
    } else {
        add_term(t, e, k);
    }
}

Expr *lx_canon_index(LoopBuilder *lb, Expr *e)
{
    if (!e || e->type != LT_INT || e->kind == EX_INT || e->kind == EX_VAR)
        return e;
    Terms t = {0};
    collect_terms(lb, e, 1, &t);
    if (t.overflow)
        return e;
    Expr *r = lx_int(lb, 0);
    for (int i = 0; i < t.n; i++)
        if (t.coef[i])
            r = lx_add(lb, r, lx_muli(lb, (Expr *)t.atom[i], t.coef[i]));
    return lx_add(lb, r, lx_int(lb, t.c));
}
