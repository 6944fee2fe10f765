/* lp_registers.c - loop pass: a local buffer (ST_ALLOC) whose every access
 * has a constant index, all scalar or all vector (lanes at a multiple of
 * the lanes), becomes register variables, one per slot used: accumulators
 * of unrolled tiles live in registers, not in an array the C compiler
 * might keep in memory. Other locals stay arrays. */
#include "ir/loop_vec.h"
#include "loop_passes.h"

#define MAX_REG_SLOTS 64

typedef struct Scan {
    const LBuf *buf;
    int vec, scal, bad, lanes;
    uint64_t used;
} Scan;

static void access(Scan *st, const Expr *index, int lanes)
{
    if (lanes > 1) {
        if (index->kind != EX_INT || index->i % lanes || index->i / lanes >= MAX_REG_SLOTS ||
            (st->lanes && st->lanes != lanes)) {
            st->bad = 1;
            return;
        }
        st->vec = 1;
        st->lanes = lanes;
        st->used |= 1ull << (index->i / lanes);
    } else {
        if (index->kind != EX_INT || index->i < 0 || index->i >= MAX_REG_SLOTS) {
            st->bad = 1;
            return;
        }
        st->scal = 1;
        st->used |= 1ull << index->i;
    }
}

static void scan_expr(Scan *st, const Expr *e)
{
    if (!e)
        return;
    if (e->kind == EX_LOAD && e->buf == st->buf) {
        access(st, e->a, lx_lanes(e));
    }
    scan_expr(st, e->a);
    scan_expr(st, e->b);
    scan_expr(st, e->c);
}

static void scan_stmt(const Stmt *s, void *arg)
{
    Scan *st = arg;
    const Expr *e[3];
    if (s->kind == ST_STORE && s->buf == st->buf)
        access(st, s->index, lx_lanes(s->value));
    int n = loop_stmt_exprs(s, e);
    for (int i = 0; i < n; i++)
        scan_expr(st, e[i]);
    if (s->kind == ST_CALL)
        for (int i = 0; i < s->n_bufs; i++)
            if (s->bufs[i] == st->buf)
                st->bad = 1;
}

/* The registers of one local: slot -> variable */
typedef struct Regs {
    const LBuf *buf;
    int lanes;
    LVar *slot[MAX_REG_SLOTS];
} Regs;

static Stmt *promote(LoopBuilder *lb, Stmt *s, const Regs *r);

static Expr *promote_node(LoopBuilder *lb, Expr *e, void *arg)
{
    const Regs *r = arg;
    return r && e->kind == EX_LOAD && e->buf == r->buf ? lx_reg(lb, r->slot[e->a->i / lx_lanes(e)]) : NULL;
}

static Expr *promote_expr(LoopBuilder *lb, Expr *e, const Regs *r)
{
    return lx_map(lb, e, promote_node, (void *)r);
}

/* An ST_ALLOC: its local as registers when it can be, its body rewritten. */
static Stmt *alloc(LoopBuilder *lb, Stmt *s)
{
    Scan st = {.buf = s->buf};
    loop_each_stmt(s->body, scan_stmt, &st);
    if (st.bad || st.vec == st.scal)
        return ls_alloc(lb, s->buf, promote(lb, s->body, NULL));
    Regs r = {.buf = s->buf, .lanes = st.vec ? st.lanes : 1};
    LVar *vars[MAX_REG_SLOTS];
    int n = 0;
    for (int k = 0; k < MAX_REG_SLOTS; k++)
        if (st.used >> k & 1) {
            LVar *v = lv_new_reg(lb, s->buf->name, lt_of_dtype(s->buf->dtype), r.lanes);
            v->id = k; /* the slot, until lp_names gives it its C name */
            r.slot[k] = vars[n++] = v;
        }
    return ls_decl(lb, n, vars, promote(lb, s->body, &r));
}

static Stmt *promote(LoopBuilder *lb, Stmt *s, const Regs *r)
{
    if (!s)
        return NULL;
    if (s->kind == ST_ALLOC) {
        Stmt *inner = alloc(lb, s);
        if (!r)
            return inner;
        Stmt *c = ls_clone(lb, inner); /* the enclosing local's accesses inside */
        c->body = promote(lb, inner->body, r);
        return c;
    }
    if (s->kind == ST_STORE && r && s->buf == r->buf)
        return ls_assign(lb, r->slot[s->index->i / lx_lanes(s->value)], promote_expr(lb, s->value, r));
    Stmt *c = ls_clone(lb, s);
    switch (s->kind) {
    case ST_FOR:
    case ST_DECL:
    case ST_SINGLE: c->body = promote(lb, s->body, r); break;
    case ST_IF:
        c->cond = promote_expr(lb, s->cond, r);
        c->body = promote(lb, s->body, r);
        c->else_body = promote(lb, s->else_body, r);
        break;
    case ST_STORE:
        c->index = promote_expr(lb, s->index, r);
        c->value = promote_expr(lb, s->value, r);
        break;
    case ST_ASSIGN: c->value = promote_expr(lb, s->value, r); break;
    case ST_SEQ:
        c->items = arena_array(lb->arena, (size_t)(s->n ? s->n : 1), sizeof(Stmt *));
        for (int i = 0; i < s->n; i++)
            c->items[i] = promote(lb, s->items[i], r);
        break;
    case ST_CALL: c->iexpr = promote_expr(lb, s->iexpr, r); break;
    default: break;
    }
    return c;
}

int lp_registers(Module *m, Kernel *k, Diag *d)
{
    (void)d;
    k->body = promote(&m->lb, k->body, NULL);
    return 0;
}
