/* lp_tile_consts.c - loop pass: the constants of a crowded register
 * tile's epilogue are broadcast once after the tile's reduction (EX_BCAST
 * with i = LX_BCAST_LATE: ctvm_vset1_late, into register variables the
 * epilogue reads), not held in vector registers across the reduction.
 *
 * A register tile is an ST_DECL of vector register variables (the
 * accumulators lp_registers made) whose body runs a reduction loop and then
 * the statements that finish the tile: bias, requantization, residual adds,
 * stores. Their constants are loop-invariant, so the C compiler hoists them
 * above the reduction and keeps each in a register it then lacks there:
 * gcc 12 held a QDQ residual epilogue's 8 constants beside 14 int32
 * accumulators and kept a weight vector on the stack inside the
 * multiply-add loop (resnet18_qdq_u8's layer3.1 conv2: 0.59 ms against
 * 0.36 with the constants broadcast late). The broadcasts cost one
 * instruction per constant and tile, against the reduction's thousands of
 * multiply-adds; tiles whose registers are not crowded, or whose reduction
 * is short, are left as they are. */
#include "ir/loop_lower.h"
#include "ir/loop_vec.h"
#include "ir/target.h"
#include "loop_passes.h"

/* fewer vector registers than this are no tile worth protecting */
#define TILE_MIN_REGS 4
#define MAX_INV 64
/* reductions of fewer steps per accumulator keep their constants hoisted */
#define TILE_MIN_STEPS 128

/* The vector values the epilogue would hold across the reduction once the
 * compiler hoists them: distinct constant broadcasts and distinct vector
 * loads not indexed by the innermost loop around the tile (bias, scale:
 * indexed by the channel alone, hoisted out of the loop over a row's
 * column tiles). */
typedef struct Inv {
    const Expr *e[MAX_INV];
    int n;
    const LVar *inner; /* the innermost loop around the tile: what it indexes is not hoisted */
} Inv;

static void count_inv(const Expr *e, Inv *v)
{
    if (!e)
        return;
    int bc = e->kind == EX_BCAST && lx_lanes(e) > 1 && (e->a->kind == EX_FLOAT || e->a->kind == EX_INT);
    if (bc || (e->kind == EX_LOAD && lx_lanes(e) > 1 && e->buf->kind != LB_LOCAL &&
               !(v->inner && lx_uses_var(e->a, v->inner)))) {
        for (int i = 0; i < v->n; i++)
            if (v->e[i]->kind == e->kind && v->e[i]->type == e->type && v->e[i]->buf == e->buf && lx_equal(v->e[i]->a, e->a))
                return;
        if (v->n < MAX_INV)
            v->e[v->n++] = e;
        return;
    }
    count_inv(e->a, v);
    count_inv(e->b, v);
    count_inv(e->c, v);
}

static void count_stmt(const Stmt *s, void *arg)
{
    const Expr *e[3];
    int n = loop_stmt_exprs(s, e);
    for (int i = 0; i < n; i++)
        count_inv(e[i], arg);
}

/* The epilogue's constants, each broadcast once into a register variable
 * at the start of the epilogue */
typedef struct Late {
    const Expr *c[MAX_INV]; /* the EX_BCAST of a constant */
    LVar *var[MAX_INV];
    int n;
} Late;

static int late_kind(const Expr *e)
{
    return e->kind == EX_BCAST && lx_lanes(e) > 1 && (e->a->kind == EX_FLOAT || e->a->kind == EX_INT) &&
           (e->type == LT_F32 || e->type == LT_I32 || e->type == LT_U32);
}

static Expr *late_node(LoopBuilder *lb, Expr *e, void *arg)
{
    Late *l = arg;
    if (!late_kind(e))
        return NULL;
    for (int i = 0; i < l->n; i++)
        if (l->c[i]->type == e->type && lx_lanes(l->c[i]) == lx_lanes(e) && lx_equal(l->c[i]->a, e->a))
            return lx_reg(lb, l->var[i]);
    if (l->n == MAX_INV) { /* not expected: a late broadcast at the use */
        Expr *n = lx_clone(lb, e);
        n->i = LX_BCAST_LATE;
        return n;
    }
    l->c[l->n] = e;
    l->var[l->n] = lv_new_reg(lb, "k", e->type, lx_lanes(e));
    return lx_reg(lb, l->var[l->n++]);
}

/* items[from..n) of a tile's body with their constants broadcast late, once
 * each, into registers declared around them */
static Stmt *late_epilogue(LoopBuilder *lb, Stmt *const *items, int n)
{
    Late l = {.n = 0};
    Stmt **body = arena_array(lb->arena, (size_t)(MAX_INV + n), sizeof(Stmt *));
    for (int i = 0; i < n; i++)
        body[MAX_INV + i] = ls_map_exprs(lb, items[i], late_node, &l);
    for (int i = 0; i < l.n; i++) {
        Expr *b = lx_clone(lb, l.c[i]);
        b->i = LX_BCAST_LATE;
        body[MAX_INV - l.n + i] = ls_assign(lb, l.var[i], b);
    }
    Stmt *seq = ls_seq(lb, l.n + n, body + MAX_INV - l.n);
    return l.n ? ls_decl(lb, l.n, l.var, seq) : seq;
}

static int is_tile(const Stmt *s)
{
    if (s->kind != ST_DECL || !s->body || s->body->kind != ST_SEQ)
        return 0;
    int vec = 0;
    for (int i = 0; i < s->n_vars; i++)
        vec += s->vars[i]->lanes > 1;
    return vec >= TILE_MIN_REGS;
}

/* times the innermost statements of s run (at most TRIPS_CAP) */
#define TRIPS_CAP ((int64_t)1 << 40)
static int64_t trips(const Stmt *s)
{
    if (!s)
        return 0;
    switch (s->kind) {
    case ST_FOR: {
        int64_t t = trips(s->body);
        return t > TRIPS_CAP / (s->extent > 0 ? s->extent : 1) ? TRIPS_CAP : s->extent * t;
    }
    case ST_SEQ: {
        int64_t t = 0;
        for (int i = 0; i < s->n; i++)
            t += trips(s->items[i]);
        return t < TRIPS_CAP ? t : TRIPS_CAP;
    }
    case ST_IF: {
        int64_t a = trips(s->body), b = trips(s->else_body);
        return a > b ? a : b;
    }
    case ST_ALLOC:
    case ST_DECL:
    case ST_SINGLE: return trips(s->body);
    default: return 1;
    }
}

/* 1 when the tile's accumulators, the reduction's operands (a weight
 * vector or two and a broadcast: 3) and the epilogue's hoistable values,
 * the constants counted twice (gcc 12 keeps a constant and a copy of it
 * for the requantization's clamp and its shifted form), overflow the
 * target's vector registers */
static int crowded(const Stmt *s, int first_epi, int nregs, const LVar *inner)
{
    Inv v = {.n = 0, .inner = inner};
    for (int i = first_epi; i < s->body->n; i++)
        if (s->body->items[i])
            loop_each_stmt(s->body->items[i], count_stmt, &v);
    int acc = 0, need = 3;
    for (int i = 0; i < s->n_vars; i++)
        acc += s->vars[i]->lanes > 1;
    for (int i = 0; i < v.n; i++)
        need += v.e[i]->kind == EX_BCAST ? 2 : 1;
    /* a short reduction (a few steps per accumulator) leaves the epilogue
       most of the work: there the hoisted constants pay for themselves
       (bert_mini_qdq_u8's Q x K^T, 16 steps under a 14-constant chain of
       requantizations: 18% slower with them late) */
    int64_t steps = acc ? trips(s->body->items[first_epi - 1]) / acc : 0;
    return acc + need > nregs && steps >= TILE_MIN_STEPS;
}

static Stmt *walk(LoopBuilder *lb, Stmt *s, int nregs, const LVar *inner)
{
    if (!s)
        return NULL;
    int first_epi = 0; /* the items after the first one with a loop in it finish the tile */
    if (is_tile(s)) {
        while (first_epi < s->body->n && !loop_has_for(s->body->items[first_epi]))
            first_epi++;
        first_epi++;
    }
    if (first_epi && first_epi < s->body->n && crowded(s, first_epi, nregs, inner)) {
        /* the reduction and what precedes it, then the epilogue */
        Stmt *c = ls_clone(lb, s), **items = arena_array(lb->arena, (size_t)first_epi + 1, sizeof(Stmt *));
        for (int i = 0; i < first_epi; i++)
            items[i] = walk(lb, s->body->items[i], nregs, inner);
        items[first_epi] = late_epilogue(lb, s->body->items + first_epi, s->body->n - first_epi);
        c->body = ls_seq(lb, first_epi + 1, items);
        return c;
    }
    Stmt *c = ls_clone(lb, s);
    switch (s->kind) {
    case ST_FOR:
    case ST_ALLOC:
    case ST_DECL:
    case ST_SINGLE: c->body = walk(lb, s->body, nregs, s->kind == ST_FOR ? s->var : inner); break;
    case ST_IF:
        c->body = walk(lb, s->body, nregs, inner);
        c->else_body = walk(lb, s->else_body, nregs, inner);
        break;
    case ST_SEQ:
        c->items = arena_array(lb->arena, (size_t)(s->n ? s->n : 1), sizeof(Stmt *));
        for (int i = 0; i < s->n; i++)
            c->items[i] = walk(lb, s->items[i], nregs, inner);
        break;
    default: break;
    }
    return c;
}

int lp_tile_consts(Module *m, Kernel *k, Diag *d)
{
    (void)d;
    k->body = walk(&m->lb, k->body, m->target ? m->target->n_vregs : 16, NULL);
    return 0;
}
