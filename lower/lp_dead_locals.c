/* lp_dead_locals.c - loop pass: a register variable or local array that
 * nothing reads is dropped with the assignments to it (values are pure
 * expressions, so nothing else changes), repeated while that frees more.
 * The printed C then declares no variable it only sets: no `(void)x;`
 * lines to silence the compiler. */
#include <stdlib.h>

#include "ir/loop_vec.h"
#include "loop_passes.h"

#define MAX_READ 4096

typedef struct Reads {
    const void *p[MAX_READ];
    int n, overflow;
} Reads;

static void mark(Reads *r, const void *p)
{
    for (int i = 0; i < r->n; i++)
        if (r->p[i] == p)
            return;
    if (r->n < MAX_READ)
        r->p[r->n++] = p;
    else
        r->overflow = 1;
}

static int is_read(const Reads *r, const void *p)
{
    if (r->overflow)
        return 1;
    for (int i = 0; i < r->n; i++)
        if (r->p[i] == p)
            return 1;
    return 0;
}

static void reads_expr(Reads *r, const Expr *e)
{
    if (!e)
        return;
    if (e->kind == EX_VAR)
        mark(r, e->var);
    if (e->kind == EX_LOAD && e->buf->kind == LB_LOCAL)
        mark(r, e->buf);
    reads_expr(r, e->a);
    reads_expr(r, e->b);
    reads_expr(r, e->c);
}

static void reads_stmt(const Stmt *s, void *arg)
{
    Reads *r = arg;
    const Expr *e[3];
    int n = loop_stmt_exprs(s, e);
    for (int i = 0; i < n; i++)
        reads_expr(r, e[i]);
    if (s->kind == ST_CALL) /* a runtime kernel may read any buffer it is given */
        for (int i = 0; i < s->n_bufs; i++)
            if (s->bufs[i])
                mark(r, s->bufs[i]);
}

static Stmt *drop(LoopBuilder *lb, Stmt *s, const Reads *r, int *changed)
{
    if (!s)
        return NULL;
    switch (s->kind) {
    case ST_ASSIGN:
        if (!is_read(r, s->var)) {
            *changed = 1;
            return NULL;
        }
        return s;
    case ST_STORE:
        if (s->buf->kind == LB_LOCAL && !is_read(r, s->buf)) {
            *changed = 1;
            return NULL;
        }
        return s;
    case ST_ALLOC: {
        Stmt *body = drop(lb, s->body, r, changed);
        if (!is_read(r, s->buf)) {
            *changed = 1;
            return body;
        }
        return ls_alloc(lb, s->buf, body);
    }
    case ST_DECL: {
        LVar *keep[64];
        int n = 0;
        for (int i = 0; i < s->n_vars; i++)
            if (is_read(r, s->vars[i]) && n < 64)
                keep[n++] = s->vars[i];
            else
                *changed = 1;
        Stmt *body = drop(lb, s->body, r, changed);
        return n ? ls_decl(lb, n, keep, body) : body;
    }
    case ST_FOR:
    case ST_SINGLE: {
        Stmt *c = ls_clone(lb, s);
        c->body = drop(lb, s->body, r, changed);
        if (!c->body)
            c->body = ls_seq(lb, 0, NULL);
        return c;
    }
    case ST_IF: {
        Stmt *c = ls_clone(lb, s);
        c->body = drop(lb, s->body, r, changed);
        if (!c->body)
            c->body = ls_seq(lb, 0, NULL);
        c->else_body = drop(lb, s->else_body, r, changed);
        return c;
    }
    case ST_SEQ: {
        Stmt **items = arena_array(lb->arena, (size_t)(s->n ? s->n : 1), sizeof(Stmt *));
        for (int i = 0; i < s->n; i++)
            items[i] = drop(lb, s->items[i], r, changed);
        return ls_seq(lb, s->n, items);
    }
    default: return s;
    }
}

int lp_dead_locals(Module *m, Kernel *k, Diag *d)
{
    for (int round = 0; round < 8; round++) {
        Reads *r = calloc(1, sizeof *r);
        if (!r)
            return diag_error(d, NULL, -1, "out of memory");
        loop_each_stmt(k->body, reads_stmt, r);
        int changed = 0;
        Stmt *b = drop(&m->lb, k->body, r, &changed);
        free(r);
        k->body = b ? b : ls_seq(&m->lb, 0, NULL);
        if (!changed)
            break;
    }
    return 0;
}
