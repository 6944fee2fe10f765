/* schedule_custom.c - the vector and thread decisions for the custom loop
 * nests of compute definitions (ComputeDef.custom; see schedule_custom.h).
 *
 * A definition marks its loops with target-free roles (ir/loop.h LoopRole);
 * here they become loop kinds for the target's vector width and the thread
 * count:
 *   LR_INDEPENDENT loop   parallel when there are threads, more than one
 *                         iteration and enough work, outside any parallel
 *                         loop and any local allocation (emit_c runs those
 *                         blocks on thread 0); else serial
 *   LR_INDEPENDENT seq    its items on the threads at once: a parallel loop
 *                         over the items, each under guards of the index
 *   LR_LANES loop         split into whole vectors (for c { for lane
 *                         vectorized }) and a tail (a vector loop shorter
 *                         than a vector, LR_LANES: lp_vectorize runs it as
 *                         the first lanes of one vector when it can, else a
 *                         scalar loop), for 2 elements or more;
 *                         one-element accumulators updated in it keep
 *                         per-lane partials over the perfect loop nest it
 *                         ends (set to the identity before it, the tail in
 *                         the first lanes, the lanes combined after it), declared
 *                         around the enclosing chain of allocations
 *   LR_PANEL loop         vectorized whole
 *   LR_TILE loop          unrolled */
#include "schedule_custom.h"

#include <string.h>

#include "schedule.h"

/* Work from which an independent loop is shared among the threads (the rows
   of Softmax, attention heads, ...), and an independent sequence, which forks
   once per run inside the loop around it (an RNN step's gate products:
   gru_cls, 256 units, 0.60 -> 0.50 ms at 2 threads). */
#define CUSTOM_PAR_MIN_WORK 32768
#define CUSTOM_PAR_MIN_WORK_SEQ 65536
#define MAX_ACC 8

typedef struct Cs {
    LoopBuilder *lb;
    int vl, threads;
    /* per-lane accumulators waiting to be declared around the enclosing
       chain of allocations */
    LBuf *pending[2 * MAX_ACC];
    int n_pending;
} Cs;

/* ---- accumulators of a LR_LANES loop ---- */

typedef struct Accs {
    int n;
    LBuf *acc[MAX_ACC], *vacc[MAX_ACC];
    BinOp op[MAX_ACC];
} Accs;

static int acc_index(const Accs *a, const LBuf *b)
{
    for (int i = 0; i < a->n; i++)
        if (a->acc[i] == b)
            return i;
    return -1;
}

static int is_zero_index(const Expr *e)
{
    return e && e->kind == EX_INT && e->i == 0;
}

/* Collects the accumulators stored in s: every store into a local buffer
 * must be acc[0] = acc[0] op e with a one-element float32 acc, op + min max,
 * e not reading acc. 0 when some store does not qualify. */
static int find_accs(const Stmt *s, Accs *a)
{
    if (!s)
        return 1;
    switch (s->kind) {
    case ST_FOR:
    case ST_ALLOC: return find_accs(s->body, a);
    case ST_IF: return find_accs(s->body, a) && find_accs(s->else_body, a);
    case ST_SEQ:
        for (int i = 0; i < s->n; i++)
            if (!find_accs(s->items[i], a))
                return 0;
        return 1;
    case ST_CALL: return 0;
    case ST_STORE: {
        if (s->buf->kind != LB_LOCAL)
            return 1;
        const Expr *v = s->value;
        if (s->buf->numel != 1 || s->buf->dtype != DT_FLOAT32 || !is_zero_index(s->index) || v->kind != EX_BIN ||
            (v->op != BO_ADD && v->op != BO_MIN && v->op != BO_MAX) || v->a->kind != EX_LOAD || v->a->buf != s->buf ||
            !is_zero_index(v->a->a) || lx_loads_buf(v->b, s->buf))
            return 0;
        int k = acc_index(a, s->buf);
        if (k < 0) {
            if (a->n == MAX_ACC)
                return 0;
            k = a->n++;
            a->acc[k] = s->buf;
            a->op[k] = v->op;
        }
        return a->op[k] == v->op;
    }
    default: break; /* the loop passes' nodes come after scheduling */
    }
    return 1;
}

/* 1 when no expression of s reads an accumulator other than as the left
 * operand of its own update (checked by find_accs) */
static int acc_reads_ok(const Stmt *s, const Accs *a)
{
    if (!s)
        return 1;
    switch (s->kind) {
    case ST_FOR:
    case ST_ALLOC: return acc_reads_ok(s->body, a);
    case ST_IF:
        for (int i = 0; i < a->n; i++)
            if (lx_loads_buf(s->cond, a->acc[i]))
                return 0;
        return acc_reads_ok(s->body, a) && acc_reads_ok(s->else_body, a);
    case ST_SEQ:
        for (int i = 0; i < s->n; i++)
            if (!acc_reads_ok(s->items[i], a))
                return 0;
        return 1;
    case ST_CALL: return 0;
    case ST_STORE: {
        int own = acc_index(a, s->buf);
        for (int i = 0; i < a->n; i++) {
            const Expr *v = i == own ? s->value->b : s->value;
            if (lx_loads_buf(s->index, a->acc[i]) || lx_loads_buf(v, a->acc[i]))
                return 0;
        }
        return 1;
    }
    default: break; /* the loop passes' nodes come after scheduling */
    }
    return 1;
}

static int uses_acc(const Expr *e, const Accs *a)
{
    for (int i = 0; i < a->n; i++)
        if (lx_loads_buf(e, a->acc[i]))
            return 1;
    return 0;
}

/* e with every acc[0] read as vacc[slot] */
static Expr *swap_expr(LoopBuilder *lb, const Expr *e, const Accs *a, Expr *slot)
{
    if (!e || !uses_acc(e, a))
        return (Expr *)e;
    switch (e->kind) {
    case EX_LOAD: {
        int k = acc_index(a, e->buf);
        return k >= 0 ? lx_load(lb, a->vacc[k], slot) : lx_load(lb, e->buf, swap_expr(lb, e->a, a, slot));
    }
    case EX_BIN: return lx_bin(lb, e->op, swap_expr(lb, e->a, a, slot), swap_expr(lb, e->b, a, slot));
    case EX_CALL: return lx_call(lb, e->fn, swap_expr(lb, e->a, a, slot));
    case EX_SELECT:
        return lx_select(lb, swap_expr(lb, e->c, a, slot), swap_expr(lb, e->a, a, slot), swap_expr(lb, e->b, a, slot));
    case EX_CAST: return lx_cast(lb, e->type, swap_expr(lb, e->a, a, slot));
    default: return (Expr *)e;
    }
}

/* copy of s with the accumulators swapped for slot `slot` of their partials */
static Stmt *swap_stmt(LoopBuilder *lb, const Stmt *s, const Accs *a, Expr *slot)
{
    if (!s || a->n == 0)
        return (Stmt *)s;
    Stmt *c = ls_seq(lb, 0, NULL);
    *c = *s;
    switch (s->kind) {
    case ST_FOR:
    case ST_ALLOC: c->body = swap_stmt(lb, s->body, a, slot); break;
    case ST_IF:
        c->body = swap_stmt(lb, s->body, a, slot);
        c->else_body = swap_stmt(lb, s->else_body, a, slot);
        break;
    case ST_SEQ: {
        Stmt **items = arena_array(lb->arena, (size_t)(s->n ? s->n : 1), sizeof(Stmt *));
        for (int i = 0; i < s->n; i++)
            items[i] = swap_stmt(lb, s->items[i], a, slot);
        c->items = items;
        break;
    }
    case ST_STORE: {
        int k = acc_index(a, s->buf);
        if (k >= 0) {
            c->buf = a->vacc[k];
            c->index = slot;
        }
        c->value = swap_expr(lb, s->value, a, slot);
        break;
    }
    case ST_CALL: break;
    default: break; /* the loop passes' nodes come after scheduling */
    }
    return c;
}

/* The LR_LANES loop that the perfect nest from s ends in, or NULL; *parent
 * receives the loop whose body it is (NULL when it is s). */
static Stmt *lanes_of_chain(Stmt *s, Stmt **parent)
{
    *parent = NULL;
    while (s && s->kind == ST_FOR) {
        if (s->role == LR_LANES)
            return s;
        if (!s->body || s->body->kind != ST_FOR)
            return NULL;
        *parent = s;
        s = s->body;
    }
    return NULL;
}

/* How many groups of partials a LR_LANES loop of nv whole vectors keeps
 * (ACC_GROUPS at most, and ACC_REGS vector partials in all): one chain of
 * vaddps / vmaxps per accumulator makes every vector wait for the one
 * before it (4 cycles each); groups taken in turn run side by side and are
 * combined once after the nest (LayerNorm 197x768: 0.040 -> 0.028 ms). */
#define ACC_GROUPS 4
#define ACC_REGS 8
static int acc_groups(const Cs *c, int nacc, int64_t nv)
{
    int u = nacc == 0 ? 1 : nv < ACC_GROUPS ? (int)nv : ACC_GROUPS;
    while (u > 1 && (nacc * u > ACC_REGS || c->n_pending + nacc * u > 2 * MAX_ACC))
        u--;
    return u < 1 ? 1 : u;
}

/* ln's body for the element var = v * vl + lane, in vector v, with the
 * partials of group `grp` */
static Stmt *vector_body(LoopBuilder *lb, const Stmt *ln, const Accs *grp, Expr *v, int64_t vl)
{
    LVar *lane = lv_new(lb, "l");
    Expr *vi = lx_add(lb, lx_muli(lb, v, vl), lx_var(lb, lane));
    return ls_for(lb, lane, vl, LOOP_VECTORIZE, swap_stmt(lb, ls_subst(lb, ln->body, ln->var, vi), grp, lx_var(lb, lane)));
}

/* LR_LANES loop `ln` (ending the perfect nest from `scope`, inside `parent`)
 * in vectors of vl lanes; 0 when it stays a serial loop. The whole vectors
 * go U at a time, each of the U with its own group of partials, then the
 * vectors left over and the tail with group 0. */
static int split_lanes(Cs *c, Stmt *scope, Stmt *parent, Stmt *ln)
{
    LoopBuilder *lb = c->lb;
    int64_t L = c->vl, E = ln->extent, nv = E / L, t0 = nv * L;
    Accs a = {0};
    if (L <= 1 || E < 2 || !find_accs(ln->body, &a) || !acc_reads_ok(ln->body, &a) ||
        c->n_pending + a.n > 2 * MAX_ACC)
        return 0;
    int U = acc_groups(c, a.n, nv);
    Accs grp[ACC_GROUPS];
    for (int u = 0; u < U; u++) {
        grp[u] = a;
        for (int i = 0; i < a.n; i++) {
            size_t len = strlen(a.acc[i]->name);
            char *nm = arena_alloc(lb->arena, len + 2);
            nm[0] = 'v';
            memcpy(nm + 1, a.acc[i]->name, len + 1);
            grp[u].vacc[i] = lbuf_new_typed(lb, nm, LB_LOCAL, DT_FLOAT32, L);
        }
    }
    /* nv = nu * U + rest vectors */
    int64_t nu = nv / U, rest = nv - nu * U;
    Stmt *vec = NULL, *left = NULL;
    if (nu > 0) {
        LVar *cv = lv_new(lb, "c");
        Stmt *each[ACC_GROUPS];
        for (int u = 0; u < U; u++)
            each[u] = vector_body(lb, ln, &grp[u], U == 1 ? lx_var(lb, cv) : lx_add(lb, lx_muli(lb, lx_var(lb, cv), U), lx_int(lb, u)), L);
        vec = nu == 1 && U > 1 ? ls_subst(lb, ls_seq(lb, U, each), cv, lx_int(lb, 0)) : ls_for(lb, cv, nu, LOOP_SERIAL, ls_seq(lb, U, each));
    }
    if (rest == 1) {
        left = vector_body(lb, ln, &grp[0], lx_int(lb, nu * U), L);
    } else if (rest > 1) {
        LVar *rv = lv_new(lb, "c");
        left = ls_for(lb, rv, rest, LOOP_SERIAL, vector_body(lb, ln, &grp[0], lx_add(lb, lx_var(lb, rv), lx_int(lb, nu * U)), L));
    }
    Stmt *tail = NULL;
    if (E > t0) { /* the first lanes of one more vector (lp_vectorize's partial vectors) */
        LVar *tv = lv_new(lb, "t");
        tail = ls_role(ls_for(lb, tv, E - t0, LOOP_VECTORIZE,
                              swap_stmt(lb, ls_subst(lb, ln->body, ln->var, lx_add(lb, lx_var(lb, tv), lx_int(lb, t0))),
                                        &grp[0], lx_var(lb, tv))),
                       LR_LANES, 0);
    }
    Stmt *parts[3] = {vec, left, tail}, *split = ls_seq(lb, 3, parts);
    if (parent)
        parent->body = split;
    else
        *scope = *split;
    if (a.n == 0)
        return 1;
    /* partials from the reduction's identity before the nest; after it the
       groups fold into group 0 pairwise, then its lanes into the scalar */
    Stmt *pre[MAX_ACC * ACC_GROUPS], *post[MAX_ACC * (ACC_GROUPS + 1)];
    int npre = 0, npost = 0;
    Expr *zero = lx_int(lb, 0);
    for (int i = 0; i < a.n; i++) {
        Expr *id = a.op[i] == BO_ADD ? lx_zero(lb, LT_F32) : a.op[i] == BO_MAX ? lx_lowest(lb, LT_F32) : lx_highest(lb, LT_F32);
        for (int u = 0; u < U; u++) {
            LVar *z = lv_new(lb, "l");
            pre[npre++] = ls_for(lb, z, L, LOOP_VECTORIZE, ls_store(lb, grp[u].vacc[i], lx_var(lb, z), id));
            c->pending[c->n_pending++] = grp[u].vacc[i];
        }
        for (int step = 1; step < U; step *= 2)
            for (int u = 0; u + step < U; u += 2 * step) {
                LVar *z = lv_new(lb, "l");
                LBuf *to = grp[u].vacc[i], *from = grp[u + step].vacc[i];
                post[npost++] = ls_for(lb, z, L, LOOP_VECTORIZE,
                                       ls_store(lb, to, lx_var(lb, z),
                                                lx_bin(lb, a.op[i], lx_load(lb, to, lx_var(lb, z)), lx_load(lb, from, lx_var(lb, z)))));
            }
        LVar *r = lv_new(lb, "l");
        post[npost++] = ls_role(ls_for(lb, r, L, LOOP_VECTORIZE, /* lp_vectorize: one horizontal reduction */
                                       ls_store(lb, a.acc[i], zero,
                                                lx_bin(lb, a.op[i], lx_load(lb, a.acc[i], zero),
                                                       lx_load(lb, grp[0].vacc[i], lx_var(lb, r))))),
                                LR_LANES, 0);
    }
    Stmt *nest = ls_seq(lb, 0, NULL);
    *nest = *scope;
    Stmt *three[3] = {ls_seq(lb, npre, pre), nest, ls_seq(lb, npost, post)};
    *scope = *ls_seq(lb, 3, three);
    return 1;
}

/* ---- the walk ---- */

static int worth_threads(const Cs *c, int64_t parts, int64_t work, int64_t min_work)
{
    return c->threads > 1 && parts > 1 && (work < 0 || work >= min_work);
}

/* the items of independent sequence s, one per index of a parallel loop */
static void share_items(Cs *c, Stmt *s)
{
    LoopBuilder *lb = c->lb;
    LVar *v = lv_new(lb, "part");
    Stmt **each = arena_array(lb->arena, (size_t)s->n, sizeof(Stmt *));
    for (int q = 0; q < s->n; q++) { /* q <= part < q + 1, without ==: clang's -Wparentheses-equality */
        Stmt *it = s->items[q];
        if (q < s->n - 1)
            it = ls_if(lb, lx_bin(lb, BO_LT, lx_var(lb, v), lx_int(lb, q + 1)), it);
        if (q > 0)
            it = ls_if(lb, lx_bin(lb, BO_GE, lx_var(lb, v), lx_int(lb, q)), it);
        each[q] = it;
    }
    *s = *ls_for(lb, v, s->n, LOOP_PARALLEL, ls_seq(lb, s->n, each));
}

/* pending partials made from `first` on, declared around s */
static void declare_pending(Cs *c, Stmt *s, int first)
{
    if (c->n_pending == first)
        return;
    Stmt *in = ls_seq(c->lb, 0, NULL);
    *in = *s;
    for (int i = c->n_pending - 1; i >= first; i--)
        in = ls_alloc(c->lb, c->pending[i], in);
    *s = *in;
    c->n_pending = first;
}

/* in_alloc: inside a local allocation (no parallel loops there, and the
 * partials go to the head of the nearest chain of allocations); chained:
 * s is the body of an allocation */
static void walk(Cs *c, Stmt *s, int no_par, int in_alloc, int chained)
{
    if (!s)
        return;
    switch (s->kind) {
    case ST_FOR: {
        Stmt *parent, *ln = lanes_of_chain(s, &parent);
        if (ln) {
            int first = c->n_pending;
            if (split_lanes(c, s, parent, ln) && !in_alloc)
                declare_pending(c, s, first);
            return;
        }
        int par = 0;
        if (s->role == LR_INDEPENDENT) {
            par = !no_par && worth_threads(c, s->extent, s->work, CUSTOM_PAR_MIN_WORK);
            s->loop = par ? LOOP_PARALLEL : LOOP_SERIAL;
        } else if (s->role == LR_TILE) {
            s->loop = LOOP_UNROLL;
        } else if (s->role == LR_PANEL) {
            s->loop = c->vl > 1 ? LOOP_VECTORIZE : LOOP_SERIAL;
        }
        walk(c, s->body, no_par || par, in_alloc, 0);
        return;
    }
    case ST_SEQ: {
        int par = s->role == LR_INDEPENDENT && !no_par && worth_threads(c, s->n, s->work, CUSTOM_PAR_MIN_WORK_SEQ);
        for (int i = 0; i < s->n; i++)
            walk(c, s->items[i], no_par || par, in_alloc, 0);
        if (par)
            share_items(c, s);
        return;
    }
    case ST_IF:
        walk(c, s->body, no_par, in_alloc, 0);
        walk(c, s->else_body, no_par, in_alloc, 0);
        return;
    case ST_ALLOC: {
        /* emit_c runs a block with locals on thread 0: no parallel loops in it */
        int first = c->n_pending;
        walk(c, s->body, 1, 1, 1);
        if (!chained)
            declare_pending(c, s, first);
        return;
    }
    case ST_STORE:
    case ST_CALL: return;
    default: break; /* the loop passes' nodes come after scheduling */
    }
}

Stmt *schedule_custom(ComputeCtx *cx, Stmt *s)
{
    Cs c = {.lb = cx->lb, .vl = sched_vl(cx), .threads = sched_threads(cx)};
    walk(&c, s, 0, 0, 0);
    return s;
}
