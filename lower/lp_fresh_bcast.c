/* lp_fresh_bcast.c - loop pass: in an innermost loop where one iteration's
 * group broadcast (the 4 input bytes of a dot product, ctvm_vbcast4_q)
 * reads bytes another iteration reads too, every group broadcast of the
 * loop is marked read where it stands (EX_BCAST with i = LX_BCAST_LATE:
 * ctvm_vbcast4_q_late).
 *
 * A strided convolution's register tile has such loops: resnet18's conv1
 * (7x7, stride 2, one 4-channel group) runs its innermost loop over kw, and
 * column t at kw + 2 reads what column t + 1 read at kw. gcc 12's PRE then
 * carries the bytes from one iteration to the next in general registers,
 * more of them than there are, and spills them and the weight vectors:
 * resnet18_qdq_u8's conv1 ran 0.98 ms, 0.54 with the broadcasts read where
 * they stand (Intel, 1 thread). Loops without the overlap keep the plain
 * broadcast, which gcc schedules better there (mobilenet_v2_qdq_u8's 1x1
 * expansion convs, 4 steps: 10% slower with every broadcast fresh). */
#include "ir/loop_lower.h"
#include "ir/loop_vec.h"
#include "loop_passes.h"

#define MAX_BC 64

static int is_group_bcast(const Expr *e)
{
    return e->kind == EX_BCAST && e->a && e->a->kind == EX_LOAD && lx_lanes(e->a) > 1;
}

/* an index as base + constant (the canonical form puts the constant last) */
static const Expr *split_index(const Expr *e, int64_t *off)
{
    if (e->kind == EX_BIN && e->op == BO_ADD && e->b->kind == EX_INT) {
        *off = e->b->i;
        return e->a;
    }
    *off = 0;
    return e;
}

typedef struct Bcasts {
    const Expr *e[MAX_BC];
    int n, overflow;
} Bcasts;

static void collect_expr(const Expr *e, Bcasts *b)
{
    if (!e)
        return;
    if (is_group_bcast(e)) {
        if (b->n < MAX_BC)
            b->e[b->n++] = e;
        else
            b->overflow = 1;
        return;
    }
    collect_expr(e->a, b);
    collect_expr(e->b, b);
    collect_expr(e->c, b);
}

static void collect_stmt(const Stmt *s, void *arg)
{
    const Expr *e[3];
    int n = loop_stmt_exprs(s, e);
    for (int i = 0; i < n; i++)
        collect_expr(e[i], arg);
}

/* 1 when two group broadcasts of the body of loop f read the same bytes in
   different iterations: same buffer and base, offsets a multiple k of the
   loop's step with 0 < |k| < its extent */
static int overlaps(const Stmt *f)
{
    Bcasts b = {.n = 0};
    loop_each_stmt(f->body, collect_stmt, &b);
    for (int i = 0; i < b.n; i++)
        for (int j = i + 1; j < b.n; j++) {
            const Expr *x = b.e[i]->a, *y = b.e[j]->a;
            int64_t ox, oy, step;
            const Expr *bx = split_index(x->a, &ox), *by = split_index(y->a, &oy);
            if (x->buf != y->buf || ox == oy || !lx_equal(bx, by) || !lx_affine(bx, f->var, &step) || step == 0)
                continue;
            int64_t d = ox - oy, k = d / step;
            if (d % step == 0 && (k < 0 ? -k : k) < f->extent)
                return 1;
        }
    return 0;
}

static Expr *fresh_node(LoopBuilder *lb, Expr *e, void *arg)
{
    (void)arg;
    if (!is_group_bcast(e))
        return NULL;
    Expr *n = lx_clone(lb, e);
    n->i = LX_BCAST_LATE;
    return n;
}

/* s with the group broadcasts of each innermost loop that overlaps read in place */
static Stmt *walk(LoopBuilder *lb, Stmt *s)
{
    if (!s)
        return NULL;
    if (s->kind == ST_FOR && !loop_has_for(s->body) && overlaps(s))
        return ls_map_exprs(lb, s, fresh_node, NULL);
    Stmt *c = ls_clone(lb, s);
    switch (s->kind) {
    case ST_FOR:
    case ST_ALLOC:
    case ST_DECL:
    case ST_SINGLE: c->body = walk(lb, s->body); break;
    case ST_IF:
        c->body = walk(lb, s->body);
        c->else_body = walk(lb, s->else_body);
        break;
    case ST_SEQ:
        c->items = arena_array(lb->arena, (size_t)(s->n ? s->n : 1), sizeof(Stmt *));
        for (int i = 0; i < s->n; i++)
            c->items[i] = walk(lb, s->items[i]);
        break;
    default: break;
    }
    return c;
}

int lp_fresh_bcast(Module *m, Kernel *k, Diag *d)
{
    (void)d;
    k->body = walk(&m->lb, k->body);
    return 0;
}
