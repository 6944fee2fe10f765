/* loop_vec.c - vector, register and team nodes of the loop IR (loop_vec.h). */
#include "loop_vec.h"

#include <assert.h>

static Expr *node(LoopBuilder *lb, ExprKind k, LType t, int lanes)
{
    Expr *e = arena_alloc(lb->arena, sizeof *e);
    e->kind = k;
    e->type = t;
    e->lanes = lanes;
    return e;
}

static Stmt *stmt(LoopBuilder *lb, StmtKind k)
{
    Stmt *s = arena_alloc(lb->arena, sizeof *s);
    s->kind = k;
    return s;
}

int lx_lanes(const Expr *e)
{
    return e->lanes > 1 ? e->lanes : 1;
}

Expr *lx_vload(LoopBuilder *lb, LBuf *buf, Expr *index0, int lanes, LType t)
{
    Expr *e = node(lb, EX_LOAD, t, lanes);
    e->buf = buf;
    e->a = index0;
    return e;
}

Expr *lx_bcast(LoopBuilder *lb, Expr *scalar, int lanes)
{
    assert(lx_lanes(scalar) == 1);
    Expr *e = node(lb, EX_BCAST, scalar->type, lanes);
    e->a = scalar;
    return e;
}

Expr *lx_bcast_group(LoopBuilder *lb, Expr *group, int lanes)
{
    assert((lx_lanes(group) == 4 || (lx_lanes(group) == 2 && group->type == LT_BF16)) && lanes % lx_lanes(group) == 0);
    Expr *e = node(lb, EX_BCAST, group->type, lanes);
    e->a = group;
    return e;
}

static Expr *widen(LoopBuilder *lb, Expr *e, int lanes)
{
    return lx_lanes(e) == 1 && lanes > 1 ? lx_bcast(lb, e, lanes) : e;
}

static int is_cmp(BinOp op)
{
    return op == BO_LT || op == BO_LE || op == BO_GE || op == BO_EQ || op == BO_GT || op == BO_NE;
}

Expr *lx_vbin(LoopBuilder *lb, BinOp op, Expr *a, Expr *b)
{
    int lanes = lx_lanes(a) > lx_lanes(b) ? lx_lanes(a) : lx_lanes(b);
    Expr *e = node(lb, EX_BIN, is_cmp(op) ? LT_BOOL : a->type, lanes);
    e->op = op;
    e->a = widen(lb, a, lanes);
    e->b = widen(lb, b, lanes);
    return e;
}

Expr *lx_vcall(LoopBuilder *lb, CallOp fn, Expr *a)
{
    Expr *e = node(lb, EX_CALL, a->type, a->lanes);
    e->fn = fn;
    e->a = a;
    return e;
}

Expr *lx_vcast(LoopBuilder *lb, LType t, Expr *a)
{
    if (a->type == t)
        return a;
    Expr *e = node(lb, EX_CAST, t, a->lanes);
    e->a = a;
    return e;
}

Expr *lx_vcvt_rne_in(LoopBuilder *lb, Expr *a)
{
    assert(a->type == LT_F32);
    Expr *e = node(lb, EX_CAST, LT_I32, a->lanes);
    e->a = a;
    e->i = LX_CAST_RNE_IN;
    return e;
}

Expr *lx_vselect(LoopBuilder *lb, Expr *cond, Expr *a, Expr *b)
{
    int lanes = lx_lanes(a) > lx_lanes(b) ? lx_lanes(a) : lx_lanes(b);
    if (lx_lanes(cond) > lanes)
        lanes = lx_lanes(cond);
    Expr *e = node(lb, EX_SELECT, a->type, lanes);
    e->c = cond;
    e->a = widen(lb, a, lanes);
    e->b = widen(lb, b, lanes);
    return e;
}

Expr *lx_fma(LoopBuilder *lb, Expr *a, Expr *b, Expr *c)
{
    int lanes = lx_lanes(a);
    if (lx_lanes(b) > lanes)
        lanes = lx_lanes(b);
    if (lx_lanes(c) > lanes)
        lanes = lx_lanes(c);
    Expr *e = node(lb, EX_FMA, a->type, lanes);
    e->a = widen(lb, a, lanes);
    e->b = widen(lb, b, lanes);
    e->c = widen(lb, c, lanes);
    return e;
}

Expr *lx_dot(LoopBuilder *lb, Expr *acc, Expr *x, Expr *y)
{
    assert((acc->type == LT_I32 && lx_lanes(x) == 4 * lx_lanes(acc)) ||
           (acc->type == LT_F32 && x->type == LT_BF16 && lx_lanes(x) == 2 * lx_lanes(acc)));
    assert(lx_lanes(y) == lx_lanes(x));
    Expr *e = node(lb, EX_DOT, acc->type, lx_lanes(acc));
    e->a = acc;
    e->b = x;
    e->c = y;
    return e;
}

Expr *lx_mla16(LoopBuilder *lb, Expr *acc, Expr *b, Expr *c)
{
    assert(acc->type == LT_I32 && b->type == LT_I32 && c->type == LT_I32 && lx_lanes(b) == lx_lanes(acc) &&
           lx_lanes(c) == lx_lanes(acc));
    Expr *e = node(lb, EX_MLA16, LT_I32, lx_lanes(acc));
    e->a = acc;
    e->b = b;
    e->c = c;
    return e;
}

Expr *lx_lanemask(LoopBuilder *lb, int n, int lanes)
{
    assert(n > 0 && n <= lanes);
    Expr *e = node(lb, EX_LANEMASK, LT_BOOL, lanes);
    e->i = n;
    return e;
}

Expr *lx_hreduce(LoopBuilder *lb, BinOp op, Expr *v)
{
    assert(v->type == LT_F32 && lx_lanes(v) > 1 && (op == BO_ADD || op == BO_MIN || op == BO_MAX));
    Expr *e = node(lb, EX_HREDUCE, LT_F32, 1);
    e->op = op;
    e->a = v;
    return e;
}

LVar *lv_new_reg(LoopBuilder *lb, const char *name, LType t, int lanes)
{
    LVar *v = lv_new_typed(lb, name, t);
    v->lanes = lanes;
    return v;
}

Expr *lx_reg(LoopBuilder *lb, LVar *v)
{
    Expr *e = node(lb, EX_VAR, v->type, v->lanes);
    e->var = v;
    return e;
}

Stmt *ls_vstore(LoopBuilder *lb, LBuf *buf, Expr *index0, Expr *value)
{
    Stmt *s = stmt(lb, ST_STORE);
    s->buf = buf;
    s->index = index0;
    s->value = value;
    return s;
}

Stmt *ls_assign(LoopBuilder *lb, LVar *var, Expr *value)
{
    Stmt *s = stmt(lb, ST_ASSIGN);
    s->var = var;
    s->value = value;
    return s;
}

Stmt *ls_decl(LoopBuilder *lb, int n, LVar *const *vars, Stmt *body)
{
    Stmt *s = stmt(lb, ST_DECL);
    s->n_vars = n;
    s->vars = arena_array(lb->arena, (size_t)(n ? n : 1), sizeof(LVar *));
    for (int i = 0; i < n; i++)
        s->vars[i] = vars[i];
    s->body = body;
    return s;
}

Stmt *ls_single(LoopBuilder *lb, Stmt *body)
{
    Stmt *s = stmt(lb, ST_SINGLE);
    s->body = body;
    return s;
}

Stmt *ls_barrier(LoopBuilder *lb)
{
    return stmt(lb, ST_BARRIER);
}

Expr *lx_clone(LoopBuilder *lb, const Expr *e)
{
    Expr *c = arena_alloc(lb->arena, sizeof *c);
    *c = *e;
    return c;
}

Stmt *ls_clone(LoopBuilder *lb, const Stmt *s)
{
    Stmt *c = arena_alloc(lb->arena, sizeof *c);
    *c = *s;
    return c;
}

Expr *lx_map(LoopBuilder *lb, Expr *e, LxMapFn fn, void *arg)
{
    if (!e)
        return NULL;
    Expr *r = fn(lb, e, arg);
    if (r)
        return r;
    Expr *a = lx_map(lb, e->a, fn, arg), *b = lx_map(lb, e->b, fn, arg), *c = lx_map(lb, e->c, fn, arg);
    if (a == e->a && b == e->b && c == e->c)
        return e;
    Expr *n = lx_clone(lb, e);
    n->a = a;
    n->b = b;
    n->c = c;
    return n;
}

Stmt *ls_map_exprs(LoopBuilder *lb, Stmt *s, LxMapFn fn, void *arg)
{
    if (!s)
        return NULL;
    Stmt *c = ls_clone(lb, s);
    switch (s->kind) {
    case ST_FOR:
    case ST_ALLOC:
    case ST_DECL:
    case ST_SINGLE: c->body = ls_map_exprs(lb, s->body, fn, arg); break;
    case ST_IF:
        c->cond = lx_map(lb, s->cond, fn, arg);
        c->body = ls_map_exprs(lb, s->body, fn, arg);
        c->else_body = ls_map_exprs(lb, s->else_body, fn, arg);
        break;
    case ST_STORE:
        c->index = lx_map(lb, s->index, fn, arg);
        c->value = lx_map(lb, s->value, fn, arg);
        break;
    case ST_ASSIGN: c->value = lx_map(lb, s->value, fn, arg); break;
    case ST_SEQ:
        c->items = arena_array(lb->arena, (size_t)(s->n ? s->n : 1), sizeof(Stmt *));
        for (int i = 0; i < s->n; i++)
            c->items[i] = ls_map_exprs(lb, s->items[i], fn, arg);
        break;
    case ST_CALL: c->iexpr = lx_map(lb, s->iexpr, fn, arg); break;
    case ST_BARRIER: break;
    }
    return c;
}

void loop_print_vec_expr(FILE *f, const Expr *e)
{
    static const char *const K[] = {[EX_BCAST] = "bcast", [EX_FMA] = "fma", [EX_DOT] = "dot", [EX_MLA16] = "mla16",
                                    [EX_HREDUCE] = "hreduce"};
    if (e->kind == EX_LOAD) {
        fprintf(f, "%s[", e->buf->name);
        loop_print_expr(f, e->a);
        if (e->partial)
            fprintf(f, " +: %d of %d]", e->partial, e->lanes);
        else
            fprintf(f, " +: %d]", e->lanes);
        return;
    }
    if (e->kind == EX_LANEMASK) {
        fprintf(f, "lanemask<%d of %d>", (int)e->i, e->lanes);
        return;
    }
    if (e->kind == EX_HREDUCE)
        fprintf(f, "%s ", lx_bin_name(e->op));
    fprintf(f, "%s%s%s<%s x %d>(", e->kind == EX_VAR ? "reg " : "", e->kind == EX_VAR ? e->var->name : K[e->kind],
            e->kind == EX_BCAST && e->i == LX_BCAST_LATE ? "_late" : "", lt_name(e->type), lx_lanes(e));
    if (e->kind != EX_VAR) {
        loop_print_expr(f, e->a);
        if (e->b) {
            fputs(", ", f);
            loop_print_expr(f, e->b);
        }
        if (e->c) {
            fputs(", ", f);
            loop_print_expr(f, e->c);
        }
    }
    fputc(')', f);
}
