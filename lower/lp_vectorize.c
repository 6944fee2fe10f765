/* lp_vectorize.c - loop pass: a LOOP_VECTORIZE loop whose extent is the
 * target's vector width and whose body the vector API can express
 * becomes that body on vectors (ir/loop_vec.h): each store one vector
 * store, each load that moves with the loop variable one contiguous
 * vector load, everything that does not move a broadcast, a * b + c one
 * fused multiply-add. Indices are those of the first lane, in canonical
 * form. Other vector loops stay serial loops.
 *
 * What vectorizes: stores and loads contiguous along the variable (or not
 * depending on it), float32 arithmetic the vector API has (+ - * / min
 * max, the calls with a vector form), selects on comparisons of float32
 * and conjunctions of them, ifs whose condition does not depend on the
 * variable. */
#include "ir/loop_lower.h"
#include "ir/loop_vec.h"
#include "ir/target.h"
#include "loop_passes.h"

typedef struct Vec {
    LoopBuilder *lb;
    int vl;
} Vec;

static int contiguous(const Expr *index, const LVar *v)
{
    int64_t c;
    return lx_affine(index, v, &c) && c == 1;
}

/* call with a vector form in the vector API */
static int vcall_ok(CallOp fn)
{
    switch (fn) {
    case CO_EXP: case CO_SQRT: case CO_TANH: case CO_SIGMOID: case CO_NEG: case CO_ABS: case CO_ERF: case CO_EXPM1:
        return 1;
    default: return 0;
    }
}

static int vbin_ok(BinOp op)
{
    return op == BO_ADD || op == BO_SUB || op == BO_MUL || op == BO_DIV || op == BO_MIN || op == BO_MAX;
}

static int expr_ok(const Expr *e, const LVar *v);

static int mask_ok(const Expr *e, const LVar *v)
{
    if (e->kind != EX_BIN)
        return 0;
    if (e->op == BO_AND)
        return mask_ok(e->a, v) && mask_ok(e->b, v);
    if (e->op == BO_LT || e->op == BO_LE || e->op == BO_GE || e->op == BO_EQ || e->op == BO_GT)
        return e->a->type == LT_F32 && expr_ok(e->a, v) && expr_ok(e->b, v);
    return 0;
}

static int expr_ok(const Expr *e, const LVar *v)
{
    if (!lx_uses_var(e, v))
        return e->type == LT_F32; /* uniform: broadcast */
    switch (e->kind) {
    case EX_LOAD: return e->buf->dtype == DT_FLOAT32 && contiguous(e->a, v);
    case EX_BIN: return e->type == LT_F32 && vbin_ok(e->op) && expr_ok(e->a, v) && expr_ok(e->b, v);
    case EX_CALL: return e->type == LT_F32 && vcall_ok(e->fn) && expr_ok(e->a, v);
    case EX_SELECT:
        if (e->type != LT_F32 || (lx_uses_var(e->c, v) && !mask_ok(e->c, v)))
            return 0;
        return expr_ok(e->a, v) && expr_ok(e->b, v);
    default: return 0;
    }
}

static int stmt_ok(const Stmt *s, const LVar *v)
{
    switch (s->kind) {
    case ST_SEQ:
        for (int i = 0; i < s->n; i++)
            if (!stmt_ok(s->items[i], v))
                return 0;
        return 1;
    case ST_STORE:
        return s->buf->dtype == DT_FLOAT32 && s->value->type == LT_F32 && contiguous(s->index, v) &&
               expr_ok(s->value, v);
    case ST_IF: return !s->else_body && !lx_uses_var(s->cond, v) && stmt_ok(s->body, v);
    default: return 0;
    }
}

/* index with v = 0 (the first lane's index), in canonical form */
static Expr *lane0(Vec *c, const Expr *index, const LVar *v)
{
    return lx_canon_index(c->lb, lx_subst(c->lb, (Expr *)index, v, lx_int(c->lb, 0)));
}

static int is_fmul(const Expr *e)
{
    return e->kind == EX_BIN && e->op == BO_MUL && e->type == LT_F32;
}

static Expr *vexpr(Vec *c, Expr *e, const LVar *v);

static Expr *vmask(Vec *c, Expr *e, const LVar *v)
{
    if (e->op == BO_AND)
        return lx_vbin(c->lb, BO_AND, vmask(c, e->a, v), vmask(c, e->b, v));
    if (e->op == BO_GT) /* b < a */
        return lx_vbin(c->lb, BO_LT, vexpr(c, e->b, v), vexpr(c, e->a, v));
    return lx_vbin(c->lb, e->op, vexpr(c, e->a, v), vexpr(c, e->b, v));
}

static Expr *vexpr(Vec *c, Expr *e, const LVar *v)
{
    if (!lx_uses_var(e, v))
        return lx_bcast(c->lb, e, c->vl);
    switch (e->kind) {
    case EX_LOAD: return lx_vload(c->lb, e->buf, lane0(c, e->a, v), c->vl, e->type);
    case EX_BIN:
        if (e->op == BO_ADD && (is_fmul(e->a) || is_fmul(e->b))) {
            Expr *mul = is_fmul(e->b) ? e->b : e->a, *add = mul == e->b ? e->a : e->b;
            return lx_fma(c->lb, vexpr(c, mul->a, v), vexpr(c, mul->b, v), vexpr(c, add, v));
        }
        return lx_vbin(c->lb, e->op, vexpr(c, e->a, v), vexpr(c, e->b, v));
    case EX_CALL: return lx_vcall(c->lb, e->fn, vexpr(c, e->a, v));
    case EX_SELECT:
        return lx_vselect(c->lb, lx_uses_var(e->c, v) ? vmask(c, e->c, v) : e->c, vexpr(c, e->a, v),
                          vexpr(c, e->b, v));
    default: return e; /* excluded by expr_ok */
    }
}

static Stmt *vstmt(Vec *c, Stmt *s, const LVar *v)
{
    switch (s->kind) {
    case ST_SEQ: {
        Stmt **items = arena_array(c->lb->arena, (size_t)(s->n ? s->n : 1), sizeof(Stmt *));
        for (int i = 0; i < s->n; i++)
            items[i] = vstmt(c, s->items[i], v);
        return ls_seq(c->lb, s->n, items);
    }
    case ST_STORE: return ls_vstore(c->lb, s->buf, lane0(c, s->index, v), vexpr(c, s->value, v));
    case ST_IF: return ls_if(c->lb, s->cond, vstmt(c, s->body, v));
    default: return s; /* excluded by stmt_ok */
    }
}

static Stmt *walk(Vec *c, Stmt *s)
{
    if (!s)
        return NULL;
    switch (s->kind) {
    case ST_FOR:
        if (s->loop == LOOP_VECTORIZE) {
            if (c->vl > 1 && s->extent == c->vl && stmt_ok(s->body, s->var))
                return vstmt(c, s->body, s->var);
            return ls_for(c->lb, s->var, s->extent, LOOP_SERIAL, walk(c, s->body));
        }
        return ls_for(c->lb, s->var, s->extent, s->loop, walk(c, s->body));
    case ST_ALLOC: return ls_alloc(c->lb, s->buf, walk(c, s->body));
    case ST_IF: return ls_if_else(c->lb, s->cond, walk(c, s->body), walk(c, s->else_body));
    case ST_SEQ: {
        Stmt **items = arena_array(c->lb->arena, (size_t)(s->n ? s->n : 1), sizeof(Stmt *));
        for (int i = 0; i < s->n; i++)
            items[i] = walk(c, s->items[i]);
        return ls_seq(c->lb, s->n, items);
    }
    default: return s;
    }
}

int lp_vectorize(Module *m, Kernel *k, Diag *d)
{
    (void)d;
    Vec c = {&m->lb, m->target ? m->target->vl : 1};
    k->body = walk(&c, k->body);
    return 0;
}
