/* lp_partition.c - loop pass: index-set splitting of guarded stores.
 *
 * A serial or vector loop whose body is one store of select(cond, a, b),
 * where cond is a conjunction of
 *   bounds    v + k >= c, v + k < c, v + k <= c  (v the loop variable,
 *             k and c constants: what a padding or a cropped window tests),
 *   invariants that do not read v, and
 *   others    that read v in any other way,
 * is cut where the bounds change value and unswitched on the invariants:
 *   for v in 0..E { out[i(v)] = select(bounds(v) && u && o(v), a, b) }
 * -> if (u) { for v in 0..lo { out = b }
 *             for v in lo..hi { out = select(o(v), a, b) }   (a when no o)
 *             for v in hi..E { out = b } }
 *    else   { for v in 0..E { out = b } }
 * so no element tests a bound it could not fail, `a` is still only read
 * where cond holds, and the middle loop is a plain copy that vectorizes
 * (a padding kernel: rows copied, the border filled). Loops of extent 1
 * are simplified away first, so a store nested in them is found. Threaded
 * loops (parallel, team) are left whole: their iterations are the
 * threads' shares. Runs before tail_split, so the middle loop keeps its
 * kind and is split into whole vectors there. */
#include "ir/loop_simplify.h"
#include "ir/loop_vec.h"
#include "loop_passes.h"

#define MAX_CONJ 16

/* e is v + k for a constant k */
static int offset_of(const Expr *e, const LVar *v, int64_t *k)
{
    if (e->kind == EX_VAR && e->var == v) {
        *k = 0;
        return 1;
    }
    if (e->kind != EX_BIN || (e->op != BO_ADD && e->op != BO_SUB))
        return 0;
    int64_t inner;
    if (e->b->kind == EX_INT && offset_of(e->a, v, &inner)) {
        *k = e->op == BO_ADD ? inner + e->b->i : inner - e->b->i;
        return 1;
    }
    if (e->op == BO_ADD && e->a->kind == EX_INT && offset_of(e->b, v, &inner)) {
        *k = inner + e->a->i;
        return 1;
    }
    return 0;
}

/* a bound on v: narrows [*lo, *hi) and returns 1, or returns 0 */
static int bound_of(const Expr *e, const LVar *v, int64_t *lo, int64_t *hi)
{
    if (e->kind != EX_BIN || (e->op != BO_LT && e->op != BO_LE && e->op != BO_GE))
        return 0;
    int64_t k;
    if (e->b->kind == EX_INT && offset_of(e->a, v, &k)) { /* v + k op c */
        int64_t c = e->b->i - k;
        if (e->op == BO_GE)
            *lo = c > *lo ? c : *lo;
        else {
            int64_t h = e->op == BO_LT ? c : c + 1;
            *hi = h < *hi ? h : *hi;
        }
        return 1;
    }
    if (e->a->kind == EX_INT && e->op != BO_GE && offset_of(e->b, v, &k)) { /* c op v + k */
        int64_t l = e->op == BO_LT ? e->a->i - k + 1 : e->a->i - k;
        *lo = l > *lo ? l : *lo;
        return 1;
    }
    return 0;
}

typedef struct Conj {
    const Expr *item[MAX_CONJ];
    int n;
    int ok;
} Conj;

/* a comparison, or a logical combination of them (0 or 1) */
static int is_cond(const Expr *e)
{
    if (e->kind != EX_BIN)
        return 0;
    if (e->op == BO_LT || e->op == BO_LE || e->op == BO_GE || e->op == BO_EQ)
        return 1;
    return (e->op == BO_AND || e->op == BO_OR) && is_cond(e->a) && is_cond(e->b);
}

static void conjuncts(const Expr *e, Conj *c)
{
    if (e->kind == EX_BIN && e->op == BO_AND && is_cond(e->a) && is_cond(e->b)) {
        conjuncts(e->a, c);
        conjuncts(e->b, c);
    } else if (c->n < MAX_CONJ) {
        c->item[c->n++] = e;
    } else {
        c->ok = 0;
    }
}

static Expr *and_of(LoopBuilder *lb, Expr *acc, const Expr *e)
{
    return acc ? lx_bin(lb, BO_AND, acc, (Expr *)e) : (Expr *)e;
}

/* the loop v over [from, to) of `store` with its value `value` */
static Stmt *region(LoopBuilder *lb, const Stmt *loop, const Stmt *store, Expr *value, int64_t from, int64_t to,
                    LoopKind kind)
{
    if (to <= from)
        return NULL;
    LVar *r = lv_new(lb, loop->var->name);
    Expr *at = from ? lx_add(lb, lx_var(lb, r), lx_int(lb, from)) : lx_var(lb, r);
    Stmt *body = ls_store(lb, store->buf, lx_subst(lb, store->index, loop->var, at), lx_subst(lb, value, loop->var, at));
    body->store_nosat = store->store_nosat;
    body->store_round = store->store_round;
    Stmt *f = ls_for(lb, r, to - from, kind, body);
    return kind == loop->loop ? ls_role(f, loop->role, loop->work) : f;
}

/* the partitioned loop, or NULL when s is not such a loop */
static Stmt *partition_loop(LoopBuilder *lb, const Stmt *s)
{
    const Stmt *st = s->body;
    if ((s->loop != LOOP_SERIAL && s->loop != LOOP_VECTORIZE) || !st || st->kind != ST_STORE ||
        st->value->kind != EX_SELECT || st->value->lanes > 1)
        return NULL;
    const Expr *sel = st->value;
    Conj c = {.ok = 1};
    conjuncts(sel->c, &c);
    if (!c.ok)
        return NULL;
    int64_t lo = 0, hi = s->extent;
    int n_bounds = 0;
    Expr *inv = NULL, *other = NULL;
    for (int i = 0; i < c.n; i++) {
        if (!lx_uses_var(c.item[i], s->var))
            inv = and_of(lb, inv, c.item[i]);
        else if (bound_of(c.item[i], s->var, &lo, &hi))
            n_bounds++;
        else
            other = and_of(lb, other, c.item[i]);
    }
    if (!n_bounds && !inv)
        return NULL;
    lo = lo < 0 ? 0 : lo > s->extent ? s->extent : lo;
    hi = hi > s->extent ? s->extent : hi < lo ? lo : hi;
    Expr *mid = other ? lx_select(lb, other, sel->a, sel->b) : sel->a;
    Stmt *parts[3] = {region(lb, s, st, sel->b, 0, lo, LOOP_SERIAL), region(lb, s, st, mid, lo, hi, s->loop),
                      region(lb, s, st, sel->b, hi, s->extent, LOOP_SERIAL)};
    Stmt *cut = ls_seq(lb, 3, parts);
    if (!inv)
        return cut;
    return ls_if_else(lb, inv, cut, region(lb, s, st, sel->b, 0, s->extent, s->loop));
}

static Stmt *partition(LoopBuilder *lb, Stmt *s)
{
    if (!s)
        return NULL;
    Stmt *c;
    switch (s->kind) {
    case ST_FOR: {
        Stmt *p = partition_loop(lb, s);
        if (p)
            return p;
        c = ls_clone(lb, s);
        c->body = partition(lb, s->body);
        return c;
    }
    case ST_ALLOC:
    case ST_DECL:
    case ST_SINGLE:
        c = ls_clone(lb, s);
        c->body = partition(lb, s->body);
        return c;
    case ST_IF:
        c = ls_clone(lb, s);
        c->body = partition(lb, s->body);
        c->else_body = partition(lb, s->else_body);
        return c;
    case ST_SEQ:
        c = ls_clone(lb, s);
        c->items = arena_array(lb->arena, (size_t)(s->n ? s->n : 1), sizeof(Stmt *));
        for (int i = 0; i < s->n; i++)
            c->items[i] = partition(lb, s->items[i]);
        return c;
    default: return s;
    }
}

int lp_partition(Module *m, Kernel *k, Diag *d)
{
    (void)d;
    k->body = partition(&m->lb, loop_simplify(&m->lb, k->body));
    return 0;
}
