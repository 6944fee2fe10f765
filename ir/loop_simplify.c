/* loop_simplify.c - interval analysis of index and condition expressions
 * and the rewrites it allows (see loop_simplify.h).
 *
 * Known intervals lie within C int: an operation whose exact result could
 * leave [INT32_MIN, INT32_MAX] (and so wrap) gives FULL, the interval of
 * an unknown value, which is wide enough (+-2^61) to stay sound even for a
 * constant the C compiler would compute in a wider type, and decides
 * nothing but a remainder's bound. Only expressions of type LT_IDX or LT_BOOL get
 * intervals; every other expression is copied with its index and condition
 * sub-expressions simplified, never re-folded. */
#include "loop_simplify.h"

#include <stdint.h>

typedef struct Range {
    int64_t lo, hi;
} Range;

static const Range FULL = {-((int64_t)1 << 61), (int64_t)1 << 61};
static const Range BOOL01 = {0, 1};

/* The values of a loop variable where the walk is; repl replaces the
 * variable of an extent-1 loop. Inner entries shadow outer ones. */
typedef struct Scope {
    const LVar *var;
    Range r;
    Expr *repl;
    const struct Scope *up;
} Scope;

/* Conjuncts of a condition used to narrow ranges (more are ignored). */
#define MAX_REFINE 8

static int cond_type(LType t) { return t == LT_IDX || t == LT_BOOL; }

static Range mk(int64_t lo, int64_t hi)
{
    if (lo < INT32_MIN || hi > INT32_MAX || lo > hi)
        return FULL;
    return (Range){lo, hi};
}

static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }
static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }
static int is_one(Range r, int64_t v) { return r.lo == v && r.hi == v; }
static int nonzero(Range r) { return r.lo > 0 || r.hi < 0; }
static int is01(Range r) { return r.lo >= 0 && r.hi <= 1; }

/* an integer constant within int */
static int small_const(const Expr *e)
{
    return e->kind == EX_INT && e->i >= INT32_MIN && e->i <= INT32_MAX;
}

static int is_cmp(BinOp op)
{
    return op == BO_LT || op == BO_LE || op == BO_GE || op == BO_EQ || op == BO_GT || op == BO_NE;
}

static const Scope *lookup(const Scope *sc, const LVar *v)
{
    for (; sc; sc = sc->up)
        if (sc->var == v)
            return sc;
    return NULL;
}

/* ---- intervals of operations ---- */

static Range cmp_range(BinOp op, Range a, Range b)
{
    int t = -1;
    switch (op) {
    case BO_LT: t = a.hi < b.lo ? 1 : a.lo >= b.hi ? 0 : -1; break;
    case BO_LE: t = a.hi <= b.lo ? 1 : a.lo > b.hi ? 0 : -1; break;
    case BO_GT: t = a.lo > b.hi ? 1 : a.hi <= b.lo ? 0 : -1; break;
    case BO_GE: t = a.lo >= b.hi ? 1 : a.hi < b.lo ? 0 : -1; break;
    case BO_EQ:
    case BO_NE:
        if (a.hi < b.lo || b.hi < a.lo)
            t = 0;
        else if (a.lo == a.hi && b.lo == b.hi)
            t = 1;
        if (op == BO_NE && t >= 0)
            t = !t;
        break;
    default: break;
    }
    return t < 0 ? BOOL01 : (Range){t, t};
}

/* Extremes of a 2x2 grid of products or truncating quotients (both are
 * monotone in each operand over a sign-constant divisor). */
static Range corners(BinOp op, Range a, Range b)
{
    if (a.lo < INT32_MIN || a.hi > INT32_MAX || b.lo < INT32_MIN || b.hi > INT32_MAX)
        return FULL;
    int64_t v[4] = {a.lo, a.lo, a.hi, a.hi}, w[4] = {b.lo, b.hi, b.lo, b.hi};
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (int i = 0; i < 4; i++) {
        int64_t r = op == BO_MUL ? v[i] * w[i] : v[i] / w[i];
        lo = min64(lo, r);
        hi = max64(hi, r);
    }
    return mk(lo, hi);
}

/* a op b for operands of condition types (values within int) */
static Range bin_range(BinOp op, LType t, Range a, Range b)
{
    if (is_cmp(op))
        return cmp_range(op, a, b);
    switch (op) {
    case BO_AND: /* logical on condition types */
        return is_one(a, 0) || is_one(b, 0) ? (Range){0, 0} : nonzero(a) && nonzero(b) ? (Range){1, 1} : BOOL01;
    case BO_OR:
        return nonzero(a) || nonzero(b) ? (Range){1, 1} : is_one(a, 0) && is_one(b, 0) ? (Range){0, 0} : BOOL01;
    case BO_XOR: return BOOL01;
    default: break;
    }
    if (t == LT_BOOL)
        return BOOL01;
    switch (op) {
    case BO_ADD: return mk(a.lo + b.lo, a.hi + b.hi);
    case BO_SUB: return mk(a.lo - b.hi, a.hi - b.lo);
    case BO_MUL: return corners(BO_MUL, a, b);
    case BO_DIV: return nonzero(b) ? corners(BO_DIV, a, b) : FULL;
    case BO_MOD: {
        if (!nonzero(b))
            return FULL;
        int64_t m = max64(b.hi < 0 ? -b.lo : b.hi, b.lo < 0 ? -b.lo : 0) - 1; /* |a % b| <= m */
        return mk(a.lo >= 0 ? 0 : max64(a.lo, -m), a.hi <= 0 ? 0 : min64(a.hi, m));
    }
    case BO_MIN: return mk(min64(a.lo, b.lo), min64(a.hi, b.hi));
    case BO_MAX: return mk(max64(a.lo, b.lo), max64(a.hi, b.hi));
    case BO_SHR:
        if (a.lo >= 0 && b.lo == b.hi && b.lo >= 0 && b.lo < 31)
            return mk(a.lo >> b.lo, a.hi >> b.lo);
        return FULL;
    default: return FULL;
    }
}

static Range cast_range(LType to, LType from, Range a)
{
    if (to == LT_BOOL)
        return !cond_type(from) ? BOOL01 : nonzero(a) ? (Range){1, 1} : is_one(a, 0) ? (Range){0, 0} : BOOL01;
    switch (from) {
    case LT_IDX:
    case LT_BOOL: return a;
    case LT_I8: return (Range){INT8_MIN, INT8_MAX};
    case LT_U8: return (Range){0, UINT8_MAX};
    case LT_I16: return (Range){INT16_MIN, INT16_MAX};
    case LT_U16: return (Range){0, UINT16_MAX};
    default: return FULL;
    }
}

/* The interval of e (of a condition type) given its operands' intervals. */
static Range node_range(const Scope *sc, const Expr *e, Range ra, Range rb, Range rc)
{
    Range r = FULL;
    switch (e->kind) {
    case EX_INT: r = mk(e->i, e->i); break;
    case EX_FLOAT: break;
    case EX_VAR: {
        const Scope *s = e->type == LT_IDX ? lookup(sc, e->var) : NULL;
        r = s ? s->r : FULL;
        break;
    }
    case EX_LOAD: break;
    case EX_BIN:
        if (cond_type(e->a->type) && cond_type(e->b->type))
            r = bin_range(e->op, e->type, ra, rb);
        else if (is_cmp(e->op))
            r = BOOL01;
        break;
    case EX_CALL:
        if (e->fn == CO_NOT && cond_type(e->a->type))
            r = nonzero(ra) ? (Range){0, 0} : is_one(ra, 0) ? (Range){1, 1} : BOOL01;
        else if (e->fn == CO_NEG && e->a->type == LT_IDX)
            r = mk(-ra.hi, -ra.lo);
        break;
    case EX_SELECT:
        r = nonzero(rc) ? ra : is_one(rc, 0) ? rb : mk(min64(ra.lo, rb.lo), max64(ra.hi, rb.hi));
        break;
    case EX_CAST: r = cast_range(e->type, e->a->type, ra); break;
    default: break; /* the loop passes' nodes come after simplification */
    }
    if (e->type == LT_BOOL && !is01(r))
        r = BOOL01;
    return r;
}

static Range range_of(const Scope *sc, const Expr *e)
{
    if (!e || !cond_type(e->type))
        return FULL;
    Range ra = FULL, rb = FULL, rc = FULL;
    if (e->kind != EX_LOAD) { /* a load's operand is its index */
        ra = range_of(sc, e->a);
        rb = range_of(sc, e->b);
        rc = range_of(sc, e->c);
    }
    return node_range(sc, e, ra, rb, rc);
}

/* ---- narrowing ranges by a condition ---- */

/* v, or v + k, of a variable whose range is known: 1 with *var, *k */
static int var_plus_const(const Scope *sc, const Expr *e, const Scope **var, int64_t *k)
{
    *k = 0;
    if (e->kind == EX_BIN && e->op == BO_ADD && e->type == LT_IDX && small_const(e->b)) {
        *k = e->b->i;
        e = e->a;
    }
    if (e->kind != EX_VAR || e->type != LT_IDX)
        return 0;
    *var = lookup(sc, e->var);
    return *var && !(*var)->repl;
}

/* Pushes onto *sc (entries from buf[*n]) the bounds each conjunct
 * `v + k OP c` of cond sets on v. */
static void refine(const Scope **sc, const Expr *cond, Scope *buf, int *n)
{
    if (cond->kind == EX_BIN && cond->op == BO_AND && cond_type(cond->type)) {
        refine(sc, cond->a, buf, n);
        refine(sc, cond->b, buf, n);
        return;
    }
    if (*n >= MAX_REFINE || cond->kind != EX_BIN || !is_cmp(cond->op) || cond->a->type != LT_IDX ||
        cond->b->type != LT_IDX)
        return;
    BinOp op = cond->op;
    const Expr *side = cond->a, *lim = cond->b;
    if (side->kind == EX_INT) { /* c OP v + k  ->  v + k OP' c */
        side = cond->b;
        lim = cond->a;
        op = op == BO_LT ? BO_GT : op == BO_LE ? BO_GE : op == BO_GT ? BO_LT : op == BO_GE ? BO_LE : op;
    }
    const Scope *v;
    int64_t k;
    if (lim->kind != EX_INT || !var_plus_const(*sc, side, &v, &k))
        return;
    if (mk(v->r.lo + k, v->r.hi + k).lo == FULL.lo || lim->i < INT32_MIN || lim->i > INT32_MAX)
        return; /* v + k might wrap: the bound would not be v's */
    int64_t c = lim->i - k, lo = v->r.lo, hi = v->r.hi; /* v OP c */
    switch (op) {
    case BO_LT: hi = min64(hi, c - 1); break;
    case BO_LE: hi = min64(hi, c); break;
    case BO_GT: lo = max64(lo, c + 1); break;
    case BO_GE: lo = max64(lo, c); break;
    case BO_EQ: lo = max64(lo, c); hi = min64(hi, c); break;
    default: return;
    }
    if (lo > hi) /* the branch never runs: leave the ranges as they are */
        return;
    buf[*n] = (Scope){v->var, {lo, hi}, NULL, *sc};
    *sc = &buf[(*n)++];
}

/* ---- rewriting expressions ---- */

static Expr *sx(LoopBuilder *lb, const Scope *sc, Expr *e, Range *out);

static Expr *copy_with(LoopBuilder *lb, const Expr *e, Expr *a, Expr *b, Expr *c)
{
    if (a == e->a && b == e->b && c == e->c)
        return (Expr *)e;
    Expr *n = arena_alloc(lb->arena, sizeof *n);
    *n = *e;
    n->a = a;
    n->b = b;
    n->c = c;
    return n;
}

#define MAX_TERMS 16
typedef struct Terms {
    int n, bad;
    Expr *atom[MAX_TERMS];
    int64_t k[MAX_TERMS];
    int64_t c;
} Terms;

/* e * k as a sum of atoms times constants plus a constant */
static void terms_of(Expr *e, int64_t k, Terms *t)
{
    if (t->bad || k > INT32_MAX || k < -(int64_t)INT32_MAX) {
        t->bad = 1;
        return;
    }
    if (e->kind == EX_INT) {
        if (e->i > INT32_MAX || e->i < INT32_MIN) {
            t->bad = 1;
            return;
        }
        t->c += k * e->i;
        if (t->c > ((int64_t)1 << 40) || t->c < -((int64_t)1 << 40))
            t->bad = 1;
    } else if (e->kind == EX_BIN && e->type == LT_IDX && (e->op == BO_ADD || e->op == BO_SUB)) {
        terms_of(e->a, k, t);
        terms_of(e->b, e->op == BO_ADD ? k : -k, t);
    } else if (e->kind == EX_BIN && e->type == LT_IDX && e->op == BO_MUL && small_const(e->b)) {
        terms_of(e->a, k * e->b->i, t);
    } else if (e->kind == EX_BIN && e->type == LT_IDX && e->op == BO_MUL && small_const(e->a)) {
        terms_of(e->b, k * e->a->i, t);
    } else if (t->n == MAX_TERMS) {
        t->bad = 1;
    } else {
        t->atom[t->n] = e;
        t->k[t->n++] = k;
    }
}

/* x = n*q + r with q >= 0 and 0 <= r < n (n > 0), from x's terms:
 * q gathers the terms whose factor n divides, r the others. 1 when it
 * holds (and something moved into q), with *q and *r. */
static int split_multiple(LoopBuilder *lb, const Scope *sc, Expr *x, int64_t n, Expr **q, Expr **r)
{
    Terms t = {0};
    terms_of(x, 1, &t);
    if (t.bad)
        return 0;
    int moved = 0;
    *q = lx_int(lb, 0);
    *r = lx_int(lb, 0);
    for (int i = 0; i < t.n; i++) {
        if (t.k[i] % n == 0) {
            *q = lx_add(lb, *q, lx_muli(lb, t.atom[i], t.k[i] / n));
            moved = 1;
        } else {
            *r = lx_add(lb, *r, lx_muli(lb, t.atom[i], t.k[i]));
        }
    }
    int64_t cq = t.c >= 0 ? t.c / n : -((-t.c + n - 1) / n); /* floor */
    moved |= cq != 0;
    *q = lx_add(lb, *q, lx_int(lb, cq));
    *r = lx_add(lb, *r, lx_int(lb, t.c - cq * n));
    if (!moved)
        return 0;
    Range rq = range_of(sc, *q), rr = range_of(sc, *r);
    /* x's value is n*q + r exactly (no wrap) when that sum fits in int */
    return rq.lo >= 0 && rq.hi <= INT32_MAX && rr.lo >= 0 && rr.hi < n && rq.hi * n + rr.hi <= INT32_MAX;
}

/* Rewrites of a op b (condition types) that the intervals allow; NULL when none. */
static Expr *rewrite_bin(LoopBuilder *lb, const Scope *sc, const Expr *e, Expr *a, Expr *b, Range ra, Range rb)
{
    LType t = e->type;
    Expr *q, *r;
    switch (e->op) {
    case BO_MOD:
        if (t != LT_IDX || rb.lo <= 0)
            return NULL;
        if (ra.lo >= 0 && ra.hi < rb.lo)
            return a;
        if (small_const(b) && split_multiple(lb, sc, a, b->i, &q, &r))
            return r;
        return NULL;
    case BO_DIV:
        if (t != LT_IDX || !small_const(b) || b->i <= 0)
            return NULL;
        if (a->kind == EX_BIN && a->op == BO_DIV && a->type == LT_IDX && small_const(a->b) && a->b->i > 0 &&
            a->b->i * b->i <= INT32_MAX) {
            Expr *d = lx_bin(lb, BO_DIV, a->a, lx_int(lb, a->b->i * b->i));
            if (split_multiple(lb, sc, a->a, a->b->i * b->i, &q, &r))
                return q;
            return d;
        }
        if (split_multiple(lb, sc, a, b->i, &q, &r))
            return q;
        return NULL;
    case BO_MIN:
        if (t != LT_IDX)
            return NULL;
        return ra.hi <= rb.lo ? a : rb.hi <= ra.lo ? b : NULL;
    case BO_MAX:
        if (t != LT_IDX)
            return NULL;
        return ra.lo >= rb.hi ? a : rb.lo >= ra.hi ? b : NULL;
    case BO_AND: /* c && 1 -> c for a 0/1 value c of the same type */
        if (nonzero(rb) && is01(ra) && a->type == t)
            return a;
        if (nonzero(ra) && is01(rb) && b->type == t)
            return b;
        return NULL;
    case BO_OR:
        if (is_one(rb, 0) && is01(ra) && a->type == t)
            return a;
        if (is_one(ra, 0) && is01(rb) && b->type == t)
            return b;
        return NULL;
    default: return NULL;
    }
}

static Expr *sx_bin(LoopBuilder *lb, const Scope *sc, Expr *e, Range *out)
{
    Range ra, rb;
    Expr *a = sx(lb, sc, e->a, &ra), *b = sx(lb, sc, e->b, &rb);
    if (!cond_type(e->type) || !cond_type(a->type) || !cond_type(b->type)) {
        *out = node_range(sc, e, ra, rb, FULL);
        return copy_with(lb, e, a, b, NULL);
    }
    *out = bin_range(e->op, e->type, ra, rb);
    if (e->type == LT_BOOL && !is01(*out))
        *out = BOOL01;
    Expr *w = rewrite_bin(lb, sc, e, a, b, ra, rb);
    if (w)
        return w;
    /* the builder turns c && 1 into c whatever c's values: not for us */
    if (e->op == BO_AND || e->op == BO_OR)
        return copy_with(lb, e, a, b, NULL);
    return a == e->a && b == e->b ? e : lx_bin(lb, e->op, a, b);
}

static Expr *sx_select(LoopBuilder *lb, const Scope *sc, Expr *e, Range *out)
{
    Range rc, ra, rb;
    Expr *c = sx(lb, sc, e->c, &rc);
    if (nonzero(rc))
        return sx(lb, sc, e->a, out);
    if (is_one(rc, 0))
        return sx(lb, sc, e->b, out);
    Scope buf[MAX_REFINE];
    int n = 0;
    const Scope *in = sc;
    refine(&in, c, buf, &n);
    Expr *a = sx(lb, in, e->a, &ra), *b = sx(lb, sc, e->b, &rb);
    *out = mk(min64(ra.lo, rb.lo), max64(ra.hi, rb.hi));
    return copy_with(lb, e, a, b, c);
}

/* e simplified where the loop variables have the ranges of sc; *out gets
 * its interval (FULL for types other than LT_IDX and LT_BOOL). */
static Expr *sx(LoopBuilder *lb, const Scope *sc, Expr *e, Range *out)
{
    Range ra = FULL;
    Expr *r = e;
    *out = FULL;
    switch (e->kind) {
    case EX_INT:
    case EX_FLOAT: break;
    case EX_VAR: {
        const Scope *s = lookup(sc, e->var);
        if (s && s->repl)
            r = s->repl;
        break;
    }
    case EX_LOAD: r = copy_with(lb, e, sx(lb, sc, e->a, &ra), NULL, NULL); break;
    case EX_BIN: r = sx_bin(lb, sc, e, out); break;
    case EX_CALL: {
        Expr *a = sx(lb, sc, e->a, &ra);
        r = a != e->a && cond_type(e->type) && cond_type(a->type) ? lx_call(lb, e->fn, a) : copy_with(lb, e, a, NULL, NULL);
        break;
    }
    case EX_CAST: {
        Expr *a = sx(lb, sc, e->a, &ra);
        r = a != e->a && cond_type(e->type) && cond_type(a->type) ? lx_cast(lb, e->type, a) : copy_with(lb, e, a, NULL, NULL);
        break;
    }
    case EX_SELECT: r = sx_select(lb, sc, e, out); break;
    default: break; /* the loop passes' nodes come after simplification */
    }
    if (!cond_type(e->type)) {
        *out = FULL;
        return r;
    }
    if (e->kind != EX_BIN && e->kind != EX_SELECT)
        *out = node_range(sc, e, ra, FULL, FULL);
    if (out->lo == out->hi && r->kind != EX_INT)
        r = lx_const_i(lb, e->type, out->lo);
    return r;
}

/* ---- statements ---- */

static int is_empty(const Stmt *s)
{
    return !s || (s->kind == ST_SEQ && s->n == 0);
}

static Stmt *copy_stmt(LoopBuilder *lb, const Stmt *s)
{
    Stmt *c = arena_alloc(lb->arena, sizeof *c);
    *c = *s;
    return c;
}

static Stmt *ss(LoopBuilder *lb, const Scope *sc, Stmt *s)
{
    if (!s)
        return NULL;
    Range r;
    switch (s->kind) {
    case ST_FOR: {
        if (s->extent <= 0)
            return ls_seq(lb, 0, NULL);
        Scope in = {s->var, {0, s->extent - 1}, NULL, sc};
        if (s->extent == 1)
            in.repl = lx_const_i(lb, s->var->type, 0);
        else if (s->extent - 1 > INT32_MAX)
            in.r = FULL;
        Stmt *body = ss(lb, &in, s->body);
        if (s->extent == 1 || is_empty(body))
            return body ? body : ls_seq(lb, 0, NULL);
        if (body == s->body)
            return s;
        Stmt *f = ls_for(lb, s->var, s->extent, s->loop, body);
        f->role = s->role; /* LR_LANES tails: lp_vectorize's partial vectors */
        f->work = s->work;
        return f;
    }
    case ST_IF: {
        Expr *c = sx(lb, sc, s->cond, &r);
        if (nonzero(r))
            return ss(lb, sc, s->body);
        if (is_one(r, 0))
            return s->else_body ? ss(lb, sc, s->else_body) : ls_seq(lb, 0, NULL);
        Scope buf[MAX_REFINE];
        int n = 0;
        const Scope *in = sc;
        refine(&in, c, buf, &n);
        Stmt *body = ss(lb, in, s->body), *els = ss(lb, sc, s->else_body);
        if (is_empty(els))
            els = NULL;
        if (is_empty(body) && !els)
            return ls_seq(lb, 0, NULL);
        if (c == s->cond && body == s->body && els == s->else_body)
            return s;
        Stmt *o = copy_stmt(lb, s);
        o->cond = c;
        o->body = body ? body : ls_seq(lb, 0, NULL);
        o->else_body = els;
        return o;
    }
    case ST_SEQ: {
        Stmt **items = arena_array(lb->arena, (size_t)(s->n ? s->n : 1), sizeof(Stmt *));
        int n = 0, changed = 0;
        for (int i = 0; i < s->n; i++) {
            Stmt *it = ss(lb, sc, s->items[i]);
            changed |= it != s->items[i];
            if (!is_empty(it))
                items[n++] = it;
            else
                changed |= !is_empty(s->items[i]) || s->items[i]->kind == ST_SEQ;
        }
        if (!changed)
            return s;
        return n == 1 ? items[0] : ls_seq(lb, n, items);
    }
    case ST_ALLOC: {
        Stmt *body = ss(lb, sc, s->body);
        if (is_empty(body))
            return ls_seq(lb, 0, NULL);
        return body == s->body ? s : ls_alloc(lb, s->buf, body);
    }
    case ST_STORE: {
        Expr *index = sx(lb, sc, s->index, &r), *value = sx(lb, sc, s->value, &r);
        if (index == s->index && value == s->value)
            return s;
        Stmt *o = copy_stmt(lb, s);
        o->index = index;
        o->value = value;
        return o;
    }
    case ST_CALL: {
        if (!s->iexpr)
            return s;
        Expr *e = sx(lb, sc, s->iexpr, &r);
        return e == s->iexpr ? s : ls_call_iarg(lb, s, s->iexpr_at, e);
    }
    default: break; /* the loop passes' nodes come after simplification */
    }
    return s;
}

Stmt *loop_simplify(LoopBuilder *lb, Stmt *s)
{
    return ss(lb, NULL, s);
}

Expr *loop_simplify_expr(LoopBuilder *lb, Expr *e)
{
    Range r;
    return e ? sx(lb, NULL, e, &r) : NULL;
}
