/* module.c - walks over a lowered module's kernels (module.h). */
#include "module.h"

#include <stdlib.h>
#include <string.h>

#include "call_prims.h"
#include "loop_vec.h"

static void add_param(KernelParams *p, LBuf *b, int written)
{
    if (b->kind == LB_LOCAL)
        return;
    for (int i = 0; i < p->n && i < KERNEL_MAX_PARAMS; i++) /* n counts on past the cap: an error later */
        if (p->buf[i] == b) {
            p->written[i] |= written;
            return;
        }
    if (p->n < KERNEL_MAX_PARAMS) {
        p->buf[p->n] = b;
        p->written[p->n] = written;
    }
    p->n++;
}

static void collect_expr(const Expr *e, KernelParams *p)
{
    if (!e)
        return;
    if (e->kind == EX_LOAD)
        add_param(p, e->buf, 0);
    collect_expr(e->a, p);
    collect_expr(e->b, p);
    collect_expr(e->c, p);
}

static void collect_stmt(const Stmt *s, void *arg)
{
    KernelParams *p = arg;
    const Expr *e[3];
    int n = loop_stmt_exprs(s, e);
    for (int i = 0; i < n; i++)
        collect_expr(e[i], p);
    if (s->kind == ST_STORE)
        add_param(p, s->buf, 1);
    if (s->kind == ST_CALL)
        for (int i = 0; i < s->n_bufs; i++)
            if (s->bufs[i])
                add_param(p, s->bufs[i], s->buf_written[i]);
}

int kernel_collect_params(const Stmt *s, KernelParams *p)
{
    memset(p, 0, sizeof *p);
    loop_each_stmt(s, collect_stmt, p);
    return p->n > KERNEL_MAX_PARAMS ? -1 : 0;
}

/* Calls on_stmt on s and every statement inside it, outermost first. */
void loop_each_stmt(const Stmt *s, void (*on_stmt)(const Stmt *, void *), void *arg)
{
    if (!s)
        return;
    on_stmt(s, arg);
    switch (s->kind) {
    case ST_FOR:
    case ST_ALLOC:
    case ST_DECL:
    case ST_SINGLE: loop_each_stmt(s->body, on_stmt, arg); break;
    case ST_IF:
        loop_each_stmt(s->body, on_stmt, arg);
        loop_each_stmt(s->else_body, on_stmt, arg);
        break;
    case ST_SEQ:
        for (int i = 0; i < s->n; i++)
            loop_each_stmt(s->items[i], on_stmt, arg);
        break;
    default: break;
    }
}

static void find_for(const Stmt *s, void *arg)
{
    if (s->kind == ST_FOR)
        *(int *)arg = 1;
}

int loop_has_for(const Stmt *s)
{
    int found = 0;
    loop_each_stmt(s, find_for, &found);
    return found;
}

int loop_stmt_exprs(const Stmt *s, const Expr **e)
{
    int n = 0;
    switch (s->kind) {
    case ST_IF: e[n++] = s->cond; break;
    case ST_STORE:
        e[n++] = s->index;
        e[n++] = s->value;
        break;
    case ST_ASSIGN: e[n++] = s->value; break;
    case ST_CALL:
        if (s->iexpr)
            e[n++] = s->iexpr;
        break;
    default: break;
    }
    return n;
}

/* any_expr: whether visit(e) holds for an expression of a statement (not
   into sub-expressions: visit recurses itself) */
typedef struct AnyExpr {
    int (*visit)(const Expr *, void *);
    void *arg;
    int found;
} AnyExpr;

static void any_stmt(const Stmt *s, void *arg)
{
    AnyExpr *a = arg;
    const Expr *e[3];
    int n = loop_stmt_exprs(s, e);
    for (int i = 0; i < n && !a->found; i++)
        a->found = a->visit(e[i], a->arg);
}

static int any_expr(const Stmt *s, int (*visit)(const Expr *, void *), void *arg)
{
    AnyExpr a = {visit, arg, 0};
    loop_each_stmt(s, any_stmt, &a);
    return a.found;
}

static int rounds(const Expr *e, void *arg)
{
    if (!e)
        return 0;
    if (e->kind == EX_CALL && (e->fn == CO_RND_F16 || e->fn == CO_RND_BF16))
        return 1;
    return rounds(e->a, arg) || rounds(e->b, arg) || rounds(e->c, arg);
}

int loop_uses_rounding(const Stmt *s)
{
    return any_expr(s, rounds, NULL);
}

static int vector(const Expr *e, void *arg)
{
    if (!e)
        return 0;
    if (lx_lanes(e) > 1)
        return 1;
    return vector(e->a, arg) || vector(e->b, arg) || vector(e->c, arg);
}

int loop_uses_vectors(const Stmt *s)
{
    return any_expr(s, vector, NULL);
}

static int vcall(const Expr *e, void *arg)
{
    if (!e)
        return 0;
    if (e->kind == EX_CALL && lx_lanes(e) > 1 && e->fn == *(const CallOp *)arg)
        return 1;
    return vcall(e->a, arg) || vcall(e->b, arg) || vcall(e->c, arg);
}

int loop_uses_vcall(const Stmt *s, CallOp fn)
{
    return any_expr(s, vcall, &fn);
}

static int math(const Expr *e, void *arg)
{
    if (!e)
        return 0;
    if (e->kind == EX_CALL && lt_is_float(e->a->type) && e->a->type == LT_F32 && call_prim(e->fn)->math)
        return 1;
    return math(e->a, arg) || math(e->b, arg) || math(e->c, arg);
}

int loop_uses_math(const Stmt *s)
{
    return any_expr(s, math, NULL);
}

typedef struct Calls {
    const char **names;
    int n, cap;
} Calls;

static void collect_call(const Stmt *s, void *arg)
{
    Calls *c = arg;
    if (s->kind != ST_CALL)
        return;
    for (int i = 0; i < c->n; i++)
        if (strcmp(c->names[i], s->fn) == 0)
            return;
    if (c->n < c->cap)
        c->names[c->n++] = s->fn;
}

int loop_collect_calls(const Stmt *s, const char **names, int n, int cap)
{
    Calls c = {names, n, cap};
    loop_each_stmt(s, collect_call, &c);
    return c.n;
}

int loop_has_parallel(const Stmt *s)
{
    if (!s)
        return 0;
    switch (s->kind) {
    case ST_FOR: return s->loop == LOOP_PARALLEL || loop_has_parallel(s->body);
    case ST_IF: return loop_has_parallel(s->body) || loop_has_parallel(s->else_body);
    case ST_SEQ:
        for (int i = 0; i < s->n; i++)
            if (loop_has_parallel(s->items[i]))
                return 1;
        return 0;
    default: return 0; /* a local declared outside a parallel loop would be each
                          thread's own: an ST_ALLOC block runs on thread 0 */
    }
}

static void dump_io(FILE *f, const char *what, int i, const ModuleIO *io)
{
    fprintf(f, "%s %d '%s' %s [", what, i, io->name, dtype_name(io->dtype));
    for (int d = 0; d < io->shape.rank; d++)
        fprintf(f, "%s%lld", d ? ", " : "", (long long)io->shape.dims[d]);
    fprintf(f, "]%s\n", io->dyn ? " dynamic" : "");
}

void module_dump(const Module *m, FILE *f)
{
    for (int i = 0; i < m->n_inputs; i++)
        dump_io(f, "input", i, &m->inputs[i]);
    for (int i = 0; i < m->n_outputs; i++)
        dump_io(f, "output", i, &m->outputs[i]);
    fprintf(f, "workspace %lld bytes, weights %lld bytes, %d kernels\n", (long long)m->workspace_bytes,
            (long long)m->blob.size, m->n_kernels);
    for (int k = 0; k < m->n_kernels; k++) {
        const Kernel *kn = &m->kernels[k];
        fprintf(f, "kernel %s%s (%.0f flop):", kn->name, kn->team ? " team" : "", kn->flops);
        for (int o = 0; o < kn->n_origin; o++)
            fprintf(f, "%s %s '%s'", o ? " +" : "", kn->origin[o].op_type, kn->origin[o].name);
        fputc('\n', f);
        loop_print(f, kn->body, 2);
    }
}

void module_free(Module *m)
{
    if (m)
        weights_free(&m->blob);
}
