/* loop.c - builders, simplification, substitution and dump of the loop IR. */
#include "loop.h"

#include <string.h>

static Expr *expr_new(LoopBuilder *lb, ExprKind k, LType t)
{
    Expr *e = arena_alloc(lb->arena, sizeof *e);
    e->kind = k;
    e->type = t;
    return e;
}

static Stmt *stmt_new(LoopBuilder *lb, StmtKind k)
{
    Stmt *s = arena_alloc(lb->arena, sizeof *s);
    s->kind = k;
    return s;
}

LVar *lv_new(LoopBuilder *lb, const char *hint)
{
    LVar *v = arena_alloc(lb->arena, sizeof *v);
    v->name = arena_strdup(lb->arena, hint);
    v->id = lb->next_var++;
    return v;
}

LBuf *lbuf_new(LoopBuilder *lb, const char *hint, BufKind kind, int64_t numel)
{
    LBuf *b = arena_alloc(lb->arena, sizeof *b);
    b->name = arena_strdup(lb->arena, hint);
    b->kind = kind;
    b->numel = numel;
    b->io_index = -1;
    b->id = lb->next_buf++;
    return b;
}

Expr *lx_int(LoopBuilder *lb, int64_t v)
{
    Expr *e = expr_new(lb, EX_INT, LT_INT);
    e->i = v;
    return e;
}

Expr *lx_float(LoopBuilder *lb, double v)
{
    Expr *e = expr_new(lb, EX_FLOAT, LT_FLOAT);
    e->f = v;
    return e;
}

Expr *lx_var(LoopBuilder *lb, LVar *v)
{
    Expr *e = expr_new(lb, EX_VAR, LT_INT);
    e->var = v;
    return e;
}

Expr *lx_load(LoopBuilder *lb, LBuf *buf, Expr *index)
{
    Expr *e = expr_new(lb, EX_LOAD, LT_FLOAT);
    e->buf = buf;
    e->a = index;
    return e;
}

static int is_int(const Expr *e, int64_t v)
{
    return e->kind == EX_INT && e->i == v;
}

static int fold_int(BinOp op, int64_t a, int64_t b, int64_t *out)
{
    switch (op) {
    case BO_ADD: *out = a + b; return 1;
    case BO_SUB: *out = a - b; return 1;
    case BO_MUL: *out = a * b; return 1;
    case BO_DIV: if (b == 0) return 0; *out = a / b; return 1;
    case BO_MOD: if (b == 0) return 0; *out = a % b; return 1;
    case BO_MIN: *out = a < b ? a : b; return 1;
    case BO_MAX: *out = a > b ? a : b; return 1;
    case BO_LT: *out = a < b; return 1;
    case BO_LE: *out = a <= b; return 1;
    case BO_GE: *out = a >= b; return 1;
    case BO_EQ: *out = a == b; return 1;
    case BO_AND: *out = a && b; return 1;
    }
    return 0;
}

Expr *lx_bin(LoopBuilder *lb, BinOp op, Expr *a, Expr *b)
{
    int cmp = op == BO_LT || op == BO_LE || op == BO_GE || op == BO_EQ || op == BO_AND;
    if (a->type == LT_INT && b->type == LT_INT) {
        int64_t r;
        if (a->kind == EX_INT && b->kind == EX_INT && fold_int(op, a->i, b->i, &r))
            return lx_int(lb, r);
        switch (op) {
        case BO_ADD:
            if (is_int(a, 0)) return b;
            if (is_int(b, 0)) return a;
            /* (x + c1) + c2 -> x + (c1 + c2) */
            if (b->kind == EX_INT && a->kind == EX_BIN && a->op == BO_ADD && a->b->kind == EX_INT)
                return lx_bin(lb, BO_ADD, a->a, lx_int(lb, a->b->i + b->i));
            if (a->kind == EX_INT) /* constants to the right */
                return lx_bin(lb, BO_ADD, b, a);
            break;
        case BO_SUB:
            if (is_int(b, 0)) return a;
            if (b->kind == EX_INT)
                return lx_bin(lb, BO_ADD, a, lx_int(lb, -b->i));
            break;
        case BO_MUL:
            if (is_int(a, 0) || is_int(b, 0)) return lx_int(lb, 0);
            if (is_int(a, 1)) return b;
            if (is_int(b, 1)) return a;
            if (a->kind == EX_INT)
                return lx_bin(lb, BO_MUL, b, a);
            break;
        case BO_DIV:
            if (is_int(b, 1)) return a;
            break;
        case BO_MOD:
            if (is_int(b, 1)) return lx_int(lb, 0);
            break;
        case BO_AND:
            if (is_int(a, 1)) return b;
            if (is_int(b, 1)) return a;
            break;
        default:
            break;
        }
    } else if (a->type == LT_FLOAT && b->type == LT_FLOAT) {
        if (op == BO_ADD && b->kind == EX_FLOAT && b->f == 0.0)
            return a;
        if (op == BO_MUL && b->kind == EX_FLOAT && b->f == 1.0)
            return a;
    }
    Expr *e = expr_new(lb, EX_BIN, cmp ? LT_INT : a->type);
    e->op = op;
    e->a = a;
    e->b = b;
    return e;
}

Expr *lx_call(LoopBuilder *lb, CallOp fn, Expr *a)
{
    Expr *e = expr_new(lb, EX_CALL, LT_FLOAT);
    e->fn = fn;
    e->a = a;
    return e;
}

Expr *lx_select(LoopBuilder *lb, Expr *cond, Expr *a, Expr *b)
{
    if (cond->kind == EX_INT)
        return cond->i ? a : b;
    Expr *e = expr_new(lb, EX_SELECT, a->type);
    e->c = cond;
    e->a = a;
    e->b = b;
    return e;
}

Expr *lx_add(LoopBuilder *lb, Expr *a, Expr *b) { return lx_bin(lb, BO_ADD, a, b); }
Expr *lx_mul(LoopBuilder *lb, Expr *a, Expr *b) { return lx_bin(lb, BO_MUL, a, b); }
Expr *lx_muli(LoopBuilder *lb, Expr *a, int64_t k) { return lx_bin(lb, BO_MUL, a, lx_int(lb, k)); }

int lx_uses_var(const Expr *e, const LVar *var)
{
    if (!e)
        return 0;
    if (e->kind == EX_VAR)
        return e->var == var;
    return lx_uses_var(e->a, var) || lx_uses_var(e->b, var) || lx_uses_var(e->c, var);
}

Expr *lx_subst(LoopBuilder *lb, Expr *e, const LVar *var, Expr *r)
{
    if (!e || !lx_uses_var(e, var))
        return e;
    switch (e->kind) {
    case EX_VAR: return r;
    case EX_LOAD: return lx_load(lb, e->buf, lx_subst(lb, e->a, var, r));
    case EX_BIN: return lx_bin(lb, e->op, lx_subst(lb, e->a, var, r), lx_subst(lb, e->b, var, r));
    case EX_CALL: return lx_call(lb, e->fn, lx_subst(lb, e->a, var, r));
    case EX_SELECT:
        return lx_select(lb, lx_subst(lb, e->c, var, r), lx_subst(lb, e->a, var, r),
                         lx_subst(lb, e->b, var, r));
    default: return e;
    }
}

Stmt *ls_for(LoopBuilder *lb, LVar *var, int64_t extent, LoopKind kind, Stmt *body)
{
    Stmt *s = stmt_new(lb, ST_FOR);
    s->var = var;
    s->extent = extent;
    s->loop = kind;
    s->body = body;
    return s;
}

Stmt *ls_store(LoopBuilder *lb, LBuf *buf, Expr *index, Expr *value)
{
    Stmt *s = stmt_new(lb, ST_STORE);
    s->buf = buf;
    s->index = index;
    s->value = value;
    return s;
}

Stmt *ls_seq(LoopBuilder *lb, int n, Stmt **items)
{
    Stmt *s = stmt_new(lb, ST_SEQ);
    s->items = arena_array(lb->arena, (size_t)(n ? n : 1), sizeof(Stmt *));
    for (int i = 0; i < n; i++)
        if (items[i])
            s->items[s->n++] = items[i];
    return s;
}

Stmt *ls_seq2(LoopBuilder *lb, Stmt *a, Stmt *b)
{
    Stmt *items[2] = {a, b};
    return ls_seq(lb, 2, items);
}

Stmt *ls_if(LoopBuilder *lb, Expr *cond, Stmt *then_s)
{
    Stmt *s = stmt_new(lb, ST_IF);
    s->cond = cond;
    s->body = then_s;
    return s;
}

Stmt *ls_alloc(LoopBuilder *lb, LBuf *local, Stmt *body)
{
    Stmt *s = stmt_new(lb, ST_ALLOC);
    s->buf = local;
    s->body = body;
    return s;
}

Stmt *ls_subst(LoopBuilder *lb, Stmt *s, const LVar *var, Expr *r)
{
    if (!s)
        return NULL;
    Stmt *c = stmt_new(lb, s->kind);
    *c = *s;
    switch (s->kind) {
    case ST_FOR:
    case ST_ALLOC: c->body = ls_subst(lb, s->body, var, r); break;
    case ST_IF:
        c->cond = lx_subst(lb, s->cond, var, r);
        c->body = ls_subst(lb, s->body, var, r);
        break;
    case ST_STORE:
        c->index = lx_subst(lb, s->index, var, r);
        c->value = lx_subst(lb, s->value, var, r);
        break;
    case ST_SEQ:
        c->items = arena_array(lb->arena, (size_t)(s->n ? s->n : 1), sizeof(Stmt *));
        for (int i = 0; i < s->n; i++)
            c->items[i] = ls_subst(lb, s->items[i], var, r);
        break;
    }
    return c;
}

static const char *bin_sym(BinOp op)
{
    static const char *const S[] = {"+", "-", "*", "/", "%", "min", "max", "<", "<=", ">=", "==", "&&"};
    return S[op];
}

void loop_print_expr(FILE *f, const Expr *e)
{
    static const char *const FN[] = {"exp", "sqrt", "tanh", "sigmoid", "neg", "abs", "float"};
    switch (e->kind) {
    case EX_INT: fprintf(f, "%lld", (long long)e->i); break;
    case EX_FLOAT: fprintf(f, "%.9gf", e->f); break;
    case EX_VAR: fprintf(f, "%s_%d", e->var->name, e->var->id); break;
    case EX_LOAD:
        fprintf(f, "%s[", e->buf->name);
        loop_print_expr(f, e->a);
        fprintf(f, "]");
        break;
    case EX_BIN:
        if (e->op == BO_MIN || e->op == BO_MAX) {
            fprintf(f, "%s(", bin_sym(e->op));
            loop_print_expr(f, e->a);
            fprintf(f, ", ");
            loop_print_expr(f, e->b);
            fprintf(f, ")");
        } else {
            fprintf(f, "(");
            loop_print_expr(f, e->a);
            fprintf(f, " %s ", bin_sym(e->op));
            loop_print_expr(f, e->b);
            fprintf(f, ")");
        }
        break;
    case EX_CALL:
        fprintf(f, "%s(", FN[e->fn]);
        loop_print_expr(f, e->a);
        fprintf(f, ")");
        break;
    case EX_SELECT:
        fprintf(f, "select(");
        loop_print_expr(f, e->c);
        fprintf(f, ", ");
        loop_print_expr(f, e->a);
        fprintf(f, ", ");
        loop_print_expr(f, e->b);
        fprintf(f, ")");
        break;
    }
}

void loop_print(FILE *f, const Stmt *s, int indent)
{
    static const char *const KIND[] = {"for", "unroll", "vectorize", "parallel"};
    if (!s)
        return;
    switch (s->kind) {
    case ST_FOR:
        fprintf(f, "%*s%s %s_%d in 0..%lld {\n", indent, "", KIND[s->loop], s->var->name, s->var->id,
                (long long)s->extent);
        loop_print(f, s->body, indent + 2);
        fprintf(f, "%*s}\n", indent, "");
        break;
    case ST_STORE:
        fprintf(f, "%*s%s[", indent, "", s->buf->name);
        loop_print_expr(f, s->index);
        fprintf(f, "] = ");
        loop_print_expr(f, s->value);
        fprintf(f, "\n");
        break;
    case ST_SEQ:
        for (int i = 0; i < s->n; i++)
            loop_print(f, s->items[i], indent);
        break;
    case ST_IF:
        fprintf(f, "%*sif ", indent, "");
        loop_print_expr(f, s->cond);
        fprintf(f, " {\n");
        loop_print(f, s->body, indent + 2);
        fprintf(f, "%*s}\n", indent, "");
        break;
    case ST_ALLOC:
        fprintf(f, "%*salloc %s[%lld] {\n", indent, "", s->buf->name, (long long)s->buf->numel);
        loop_print(f, s->body, indent + 2);
        fprintf(f, "%*s}\n", indent, "");
        break;
    }
}
