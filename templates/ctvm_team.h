/* ctvm_team.h - the thread team of a model built for several threads
 * (ctvm-emit --threads N > 1).
 *
 * One inference is one parallel region: every thread of the team runs the
 * whole sequence of kernels; a kernel's parallel loops give each thread an
 * even share of their iterations (ctvm_split), its serial parts run on
 * thread 0, and a barrier (ctvm_sync) separates every phase from the next.
 * The team is either OpenMP's (NAME_run_ws opens `omp parallel` when built
 * with -fopenmp; the barrier is `omp barrier`) or threads the application
 * owns, each calling NAME_run_thread with one ctvm_team: then the barrier
 * is the caller's function, or the one below on C11 atomics (GCC's
 * __atomic builtins under an older -std). Without either, the model runs
 * on the calling thread alone. Correct for any thread count: the split is
 * computed at run time; --threads N only sized the schedules and scratch. */
typedef struct ctvm_ctx {
    int tid, nth;   /* this thread, threads in the team */
    void *team;     /* ctvm_team of NAME_run_thread, NULL under OpenMP */
} ctvm_ctx;

/* [*lo, *hi): thread tid's share of n iterations, shares differing by at
 * most one iteration */
static CTVM_INLINE void ctvm_split(int n, const ctvm_ctx *c, int *lo, int *hi)
{
    *lo = (int)((long long)n * c->tid / c->nth);
    *hi = (int)((long long)n * (c->tid + 1) / c->nth);
}

#ifdef _OPENMP
#include <omp.h>
#endif

#if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L && !defined(__STDC_NO_ATOMICS__)
#include <stdatomic.h>
typedef atomic_uint ctvm_atomic;
#define CTVM_ALOAD(p) atomic_load_explicit(p, memory_order_acquire)
#define CTVM_ASTORE(p, v) atomic_store_explicit(p, v, memory_order_release)
#define CTVM_AINC(p) atomic_fetch_add_explicit(p, 1u, memory_order_acq_rel)
#define CTVM_TEAM_ATOMICS 1
#elif defined(__GNUC__)
typedef unsigned ctvm_atomic;
#define CTVM_ALOAD(p) __atomic_load_n(p, __ATOMIC_ACQUIRE)
#define CTVM_ASTORE(p, v) __atomic_store_n(p, v, __ATOMIC_RELEASE)
#define CTVM_AINC(p) __atomic_fetch_add(p, 1u, __ATOMIC_ACQ_REL)
#define CTVM_TEAM_ATOMICS 1
#else
typedef unsigned ctvm_atomic; /* no atomics: NAME_run_thread needs the caller's barrier */
#endif

/* After this many polls a waiting thread yields its core (more threads
   than cores); define CTVM_TEAM_YIELD() for a system without sched_yield. */
#ifndef CTVM_TEAM_SPINS
#define CTVM_TEAM_SPINS 4000u
#endif
#ifndef CTVM_TEAM_YIELD
#if defined(__unix__) || defined(__APPLE__)
#include <sched.h>
#define CTVM_TEAM_YIELD() ((void)sched_yield())
#else
#define CTVM_TEAM_YIELD() ((void)0)
#endif
#endif

typedef struct ctvm_team {
    ctvm_atomic arrived, gen; /* threads at the barrier; barriers passed */
    int nth;
    void (*barrier)(void *arg); /* the caller's barrier, or NULL */
    void *arg;
} ctvm_team;

/* Sense-by-generation barrier: the last thread to arrive resets the count
   and releases the others by advancing the generation they wait on. */
static CTVM_INLINE void ctvm_team_wait(ctvm_team *t)
{
#ifdef CTVM_TEAM_ATOMICS
    unsigned gen = CTVM_ALOAD(&t->gen), polls = 0;
    if (CTVM_AINC(&t->arrived) + 1u == (unsigned)t->nth) {
        CTVM_ASTORE(&t->arrived, 0u);
        CTVM_ASTORE(&t->gen, gen + 1u);
        return;
    }
    while (CTVM_ALOAD(&t->gen) == gen)
        if (++polls > CTVM_TEAM_SPINS)
            CTVM_TEAM_YIELD();
#else
    (void)t;
#endif
}

/* Every thread of the team waits here until all have arrived. */
static CTVM_INLINE void ctvm_sync(const ctvm_ctx *c)
{
    if (c->nth <= 1)
        return;
    if (c->team) {
        ctvm_team *t = (ctvm_team *)c->team;
        if (t->barrier)
            t->barrier(t->arg);
        else
            ctvm_team_wait(t);
        return;
    }
#ifdef _OPENMP
#pragma omp barrier
#endif
}
