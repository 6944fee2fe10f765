/* lp_threads.c - loop pass: the thread partition. With more than one
 * thread, a kernel with a parallel loop (outside any local buffer's block)
 * is run by every thread of the team (templates/ctvm_team.h) as a
 * sequence of phases: each parallel loop becomes a LOOP_TEAM loop cut into
 * a fixed number of chunks (team_chunks: a few per thread, fixed here so
 * that which thread runs a chunk never changes a result), which the
 * threads take at run time; statements without parallel loops become one
 * phase of one chunk (ST_SINGLE, consecutive ones together). Every phase
 * is followed by a barrier (a wait until the phases so far are done);
 * lp_barriers.c then drops those the next phase does not need. Control
 * around parallel loops runs on every thread: loop extents are constants,
 * and an if's condition is evaluated by all before any phase may change it
 * (ST_IF.team_if). Every other kernel runs on one thread, and its parallel
 * loops are plain loops. */
#include "ir/loop_vec.h"
#include "loop_passes.h"

/* s with every LOOP_PARALLEL loop serial */
static Stmt *serial(LoopBuilder *lb, Stmt *s)
{
    if (!s)
        return NULL;
    Stmt *c = ls_clone(lb, s);
    switch (s->kind) {
    case ST_FOR:
        if (c->loop == LOOP_PARALLEL)
            c->loop = LOOP_SERIAL;
        c->body = serial(lb, s->body);
        break;
    case ST_ALLOC:
    case ST_DECL:
    case ST_SINGLE: c->body = serial(lb, s->body); break;
    case ST_IF:
        c->body = serial(lb, s->body);
        c->else_body = serial(lb, s->else_body);
        break;
    case ST_SEQ:
        c->items = arena_array(lb->arena, (size_t)(s->n ? s->n : 1), sizeof(Stmt *));
        for (int i = 0; i < s->n; i++)
            c->items[i] = serial(lb, s->items[i]);
        break;
    default: break;
    }
    return c;
}

/* statements s[0..n) as one phase of one chunk, then a barrier */
static Stmt *single(LoopBuilder *lb, Stmt *const *s, int n)
{
    Stmt *items[2] = {ls_single(lb, serial(lb, ls_seq(lb, n, (Stmt **)s))), ls_barrier(lb)};
    return ls_seq(lb, 2, items);
}

/* Chunks of a parallel loop of n iterations for a team sized for threads:
   TEAM_CHUNKS_PER_THREAD each, so that a thread that loses its core holds
   up only a small part of the phase, but no more (each costs an atomic
   CAS); a loop with fewer iterations keeps one per chunk. Depends only
   on the compile-time thread count, never on the team at run time. */
#define TEAM_CHUNKS_PER_THREAD 4
static int team_chunks(int64_t n, int threads)
{
    int64_t c = (int64_t)TEAM_CHUNKS_PER_THREAD * threads;
    return (int)(n < c ? n : c);
}

static Stmt *team(LoopBuilder *lb, Stmt *s, int threads, int *n_if)
{
    if (!loop_has_parallel(s))
        return single(lb, &s, 1);
    switch (s->kind) {
    case ST_FOR:
        if (s->loop == LOOP_PARALLEL) {
            Stmt *items[2] = {ls_for(lb, s->var, s->extent, LOOP_TEAM, serial(lb, s->body)), ls_barrier(lb)};
            items[0]->chunks = team_chunks(s->extent, threads);
            return ls_seq(lb, 2, items);
        }
        return ls_for(lb, s->var, s->extent, LOOP_SERIAL, team(lb, s->body, threads, n_if));
    case ST_SEQ: {
        Stmt **items = arena_array(lb->arena, (size_t)s->n + 1, sizeof(Stmt *));
        int n = 0;
        for (int i = 0; i < s->n;) {
            int j = i;
            while (j < s->n && !loop_has_parallel(s->items[j]))
                j++;
            if (j > i)
                items[n++] = single(lb, s->items + i, j - i);
            else
                items[n++] = team(lb, s->items[j++], threads, n_if);
            i = j;
        }
        return ls_seq(lb, n, items);
    }
    case ST_IF: {
        Stmt *c = ls_clone(lb, s);
        c->team_if = ++*n_if;
        c->body = team(lb, s->body, threads, n_if);
        c->else_body = s->else_body ? team(lb, s->else_body, threads, n_if) : NULL;
        return c;
    }
    default: return single(lb, &s, 1); /* without parallel loops: above */
    }
}

int lp_threads(Module *m, Kernel *k, Diag *d)
{
    (void)d;
    k->team = m->threads > 1 && loop_has_parallel(k->body);
    int n_if = 0;
    k->body = k->team ? team(&m->lb, k->body, m->threads, &n_if) : serial(&m->lb, k->body);
    return 0;
}
