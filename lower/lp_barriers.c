/* lp_barriers.c - loop pass: the waits a team kernel does not need.
 * lp_threads.c ends every phase with a barrier (ctvm_wait: the phases so
 * far are done). Between two phases of one sequence it can go when the
 * later phase neither touches memory that the phases since the last kept
 * barrier write nor writes memory they read: then a thread may start the
 * later phase while others finish the earlier ones (templates/ctvm_team.h
 * hands out their chunks in order from one counter). Buffers are compared
 * by memory: the same buffer, arena buffers whose byte ranges overlap, the
 * same input or output; local buffers are private to a chunk, constants
 * are read-only. Everything else keeps its barrier: one before or after
 * control (a serial loop or an if around phases), any when a phase touches
 * more buffers than counted here. A team kernel's last barrier goes when
 * the next kernel is a team kernel whose buffers (its parameters) do not
 * conflict with those of the kernels since the last barrier kept
 * (lp_barriers_between, after all loop passes: Q, K and V projections
 * that read one input, a residual block's two branches). */
#include "ir/loop_vec.h"
#include "loop_passes.h"

#define MAX_ACCESS 64

typedef struct Access {
    const LBuf *buf[MAX_ACCESS];
    int written[MAX_ACCESS];
    int n, overflow; /* overflow: conflicts with everything */
} Access;

static void add(Access *a, const LBuf *b, int written)
{
    if (!b || b->kind == LB_LOCAL || b->kind == LB_CONST) /* a call's absent optional buffer: NULL */
        return;
    for (int i = 0; i < a->n; i++)
        if (a->buf[i] == b) {
            a->written[i] |= written;
            return;
        }
    if (a->n == MAX_ACCESS) {
        a->overflow = 1;
        return;
    }
    a->buf[a->n] = b;
    a->written[a->n++] = written;
}

static void expr_reads(Access *a, const Expr *e)
{
    if (!e)
        return;
    if (e->kind == EX_LOAD)
        add(a, e->buf, 0);
    expr_reads(a, e->a);
    expr_reads(a, e->b);
    expr_reads(a, e->c);
}

static void collect(Access *a, const Stmt *s)
{
    if (!s)
        return;
    switch (s->kind) {
    case ST_STORE:
        add(a, s->buf, 1);
        expr_reads(a, s->index);
        expr_reads(a, s->value);
        break;
    case ST_SEQ:
        for (int i = 0; i < s->n; i++)
            collect(a, s->items[i]);
        break;
    case ST_IF:
        expr_reads(a, s->cond);
        collect(a, s->body);
        collect(a, s->else_body);
        break;
    case ST_CALL:
        for (int i = 0; i < s->n_bufs; i++)
            add(a, s->bufs[i], s->buf_written ? s->buf_written[i] : 1);
        expr_reads(a, s->iexpr);
        break;
    case ST_ASSIGN: expr_reads(a, s->value); break;
    case ST_FOR:
    case ST_ALLOC:
    case ST_DECL:
    case ST_SINGLE: collect(a, s->body); break;
    case ST_BARRIER: break;
    }
}

static void merge(Access *into, const Access *a)
{
    into->overflow |= a->overflow;
    for (int i = 0; i < a->n; i++)
        add(into, a->buf[i], a->written[i]);
}

/* 1 when x and y may share a byte */
static int overlap(const LBuf *x, const LBuf *y)
{
    if (x == y)
        return 1;
    if (x->kind != y->kind)
        return 0; /* the workspace, each input and each output are separate memory */
    if (x->kind != LB_ARENA)
        return x->io_index == y->io_index;
    int64_t nx, ny;
    if (!dtype_bytes(x->dtype, x->numel, &nx) || !dtype_bytes(y->dtype, y->numel, &ny))
        return 1;
    return x->offset < y->offset + ny && y->offset < x->offset + nx;
}

/* 1 when phases of `a` and `b` may not run at the same time: one writes
   what the other reads or writes */
static int conflict(const Access *a, const Access *b)
{
    if (a->overflow || b->overflow)
        return 1;
    for (int i = 0; i < a->n; i++)
        for (int j = 0; j < b->n; j++)
            if ((a->written[i] || b->written[j]) && overlap(a->buf[i], b->buf[j]))
                return 1;
    return 0;
}

static int is_phase(const Stmt *s)
{
    return s->kind == ST_SINGLE || (s->kind == ST_FOR && s->loop == LOOP_TEAM);
}

/* s's items, nested sequences flattened, appended to out[*n..) */
static void flatten(const Stmt *s, Stmt **out, int *n)
{
    if (s->kind != ST_SEQ) {
        out[(*n)++] = (Stmt *)s;
        return;
    }
    for (int i = 0; i < s->n; i++)
        if (s->items[i])
            flatten(s->items[i], out, n);
}

static int count_items(const Stmt *s)
{
    if (s->kind != ST_SEQ)
        return 1;
    int n = 0;
    for (int i = 0; i < s->n; i++)
        if (s->items[i])
            n += count_items(s->items[i]);
    return n;
}

static Stmt *thin(LoopBuilder *lb, Stmt *s, int *dropped);

/* 1 when s holds a phase or a barrier */
static int has_phase(const Stmt *s)
{
    if (!s)
        return 0;
    switch (s->kind) {
    case ST_SINGLE:
    case ST_BARRIER: return 1;
    case ST_FOR: return s->loop == LOOP_TEAM || has_phase(s->body);
    case ST_SEQ:
        for (int i = 0; i < s->n; i++)
            if (has_phase(s->items[i]))
                return 1;
        return 0;
    case ST_IF: return has_phase(s->body) || has_phase(s->else_body);
    case ST_ALLOC:
    case ST_DECL: return has_phase(s->body);
    default: return 0;
    }
}

/* control around phases: its inner sequences thinned, itself unchanged */
static Stmt *thin_inside(LoopBuilder *lb, Stmt *s, int *dropped)
{
    if (!has_phase(s))
        return s;
    Stmt *c = ls_clone(lb, s);
    if (s->kind == ST_FOR || s->kind == ST_ALLOC || s->kind == ST_DECL)
        c->body = thin(lb, s->body, dropped);
    else if (s->kind == ST_IF) {
        c->body = thin(lb, s->body, dropped);
        c->else_body = s->else_body ? thin(lb, s->else_body, dropped) : NULL;
    }
    return c;
}

static Stmt *thin(LoopBuilder *lb, Stmt *s, int *dropped)
{
    if (!s)
        return NULL;
    if (s->kind != ST_SEQ)
        return thin_inside(lb, s, dropped);
    int n = 0, total = count_items(s);
    Stmt **items = arena_array(lb->arena, (size_t)total, sizeof(Stmt *));
    Stmt **out = arena_array(lb->arena, (size_t)total, sizeof(Stmt *));
    flatten(s, items, &n);
    Access open = {0};    /* the phases since the last barrier kept */
    int have_open = 0;    /* they are phases of this sequence, nothing else */
    Stmt *pending = NULL; /* a barrier not yet known to be needed */
    int m = 0;
    for (int i = 0; i < n; i++) {
        Stmt *it = items[i];
        if (it->kind == ST_BARRIER) {
            if (!pending)
                pending = it;
            continue;
        }
        if (is_phase(it)) {
            Access a = {0};
            collect(&a, it);
            if (pending && have_open && !conflict(&open, &a)) {
                ++*dropped; /* independent: no wait between them */
                merge(&open, &a);
            } else {
                if (pending)
                    out[m++] = pending;
                if (pending || !have_open)
                    open = a;
                else
                    merge(&open, &a);
                have_open = 1;
            }
            pending = NULL;
            out[m++] = it;
            continue;
        }
        if (pending)
            out[m++] = pending;
        pending = NULL;
        have_open = 0;
        out[m++] = thin_inside(lb, it, dropped);
    }
    if (pending)
        out[m++] = pending;
    return ls_seq(lb, m, out);
}

int lp_barriers(Module *m, Kernel *k, Diag *d)
{
    (void)d;
    if (!k->team)
        return 0;
    int dropped = 0;
    k->body = thin(&m->lb, k->body, &dropped);
    return 0;
}

static void params_access(Access *a, const Kernel *k)
{
    for (int i = 0; i < k->params.n; i++)
        add(a, k->params.buf[i], k->params.written[i]);
}

/* the body without its last item when that is a barrier after a phase */
static Stmt *without_last_barrier(LoopBuilder *lb, Stmt *body)
{
    if (!body || body->kind != ST_SEQ || body->n < 2 || body->items[body->n - 1]->kind != ST_BARRIER ||
        !is_phase(body->items[body->n - 2]))
        return NULL;
    return ls_seq(lb, body->n - 1, body->items);
}

void lp_barriers_between(Module *m)
{
    Access open = {0}; /* the kernels since the last barrier kept */
    int have_open = 0;
    for (int i = 0; i + 1 < m->n_kernels; i++) {
        Kernel *k = &m->kernels[i], *next = &m->kernels[i + 1];
        Access a = {0}, b = {0};
        params_access(&a, k);
        if (have_open)
            merge(&open, &a);
        else
            open = a;
        have_open = 1;
        Stmt *thinned = k->team && next->team ? without_last_barrier(&m->lb, k->body) : NULL;
        params_access(&b, next);
        if (!thinned || conflict(&open, &b)) {
            have_open = 0;
            continue;
        }
        k->body = thinned;
    }
}
