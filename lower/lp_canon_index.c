/* lp_canon_index.c - loop pass: the index of every scalar load and store
 * as a sum of terms plus one constant last (lx_canon_index): indices that
 * differ by a constant (unrolled neighbours) then print as the same sum
 * and a different displacement, which the C compiler turns into one base
 * register. Vector indices got that form when they were vectorized. */
#include "ir/loop_lower.h"
#include "ir/loop_vec.h"
#include "loop_passes.h"

static Expr *canon_node(LoopBuilder *lb, Expr *e, void *arg);

static Expr *canon_expr(LoopBuilder *lb, Expr *e)
{
    return lx_map(lb, e, canon_node, NULL);
}

/* a scalar load whose index changes form: the canonical index, its own
   loads rewritten too; other nodes as lx_map takes them */
static Expr *canon_node(LoopBuilder *lb, Expr *e, void *arg)
{
    (void)arg;
    if (e->kind != EX_LOAD || lx_lanes(e) != 1)
        return NULL;
    Expr *a = canon_expr(lb, lx_canon_index(lb, e->a));
    if (a == e->a)
        return e;
    Expr *n = lx_clone(lb, e);
    n->a = a;
    return n;
}

static Stmt *canon_stmt(LoopBuilder *lb, Stmt *s)
{
    if (!s)
        return NULL;
    Stmt *c = ls_clone(lb, s);
    switch (s->kind) {
    case ST_FOR:
    case ST_ALLOC:
    case ST_DECL:
    case ST_SINGLE: c->body = canon_stmt(lb, s->body); break;
    case ST_IF:
        c->cond = canon_expr(lb, s->cond);
        c->body = canon_stmt(lb, s->body);
        c->else_body = canon_stmt(lb, s->else_body);
        break;
    case ST_STORE:
        c->index = canon_expr(lb, lx_lanes(s->value) == 1 ? lx_canon_index(lb, s->index) : s->index);
        c->value = canon_expr(lb, s->value);
        break;
    case ST_ASSIGN: c->value = canon_expr(lb, s->value); break;
    case ST_SEQ:
        c->items = arena_array(lb->arena, (size_t)(s->n ? s->n : 1), sizeof(Stmt *));
        for (int i = 0; i < s->n; i++)
            c->items[i] = canon_stmt(lb, s->items[i]);
        break;
    case ST_CALL: c->iexpr = canon_expr(lb, s->iexpr); break;
    case ST_BARRIER: break;
    }
    return c;
}

int lp_canon_index(Module *m, Kernel *k, Diag *d)
{
    (void)d;
    k->body = canon_stmt(&m->lb, k->body);
    return 0;
}
