/* ctvm_team.h - the thread team of a model built for several threads
 * (ctvm-emit --threads N > 1).
 *
 * One inference is one parallel region: every thread of the team runs the
 * whole sequence of kernels. The work comes in phases: a parallel loop cut
 * into a fixed number of chunks (lower/lp_threads.c chose the count at
 * compile time, whatever the team's size), or a serial part (one chunk).
 * Threads take a phase's chunks dynamically (ctvm_take): the chunks are cut
 * into one contiguous range per thread (as a static split would give them),
 * and a thread takes from its own range first, then from the others', so on
 * a quiet machine each thread runs the part of every phase a static split
 * gives it (the data its earlier phases left in its own cache) and on a
 * busy one the others take what a preempted thread has not started. Each
 * range's counter of chunks taken grows over the whole inference; every
 * thread counts where each phase starts (ctvm_ctx.seq and base), so
 * nothing is reset between phases. A thread that finds no chunk left moves
 * on, and counts its chunks done (ctvm_done). Where the next phase reads or writes what
 * this one touches, each thread waits until every chunk so far is done
 * (ctvm_wait) - not until every thread has arrived: a thread that lost its
 * core delays only the chunk it holds, and when it runs again it finds the
 * phases it missed already taken. Independent phases follow each other
 * without a wait (lower/lp_barriers.c). Iterations of a parallel loop are
 * independent and chunk boundaries fixed, so outputs are bit-identical for
 * any team size and whichever thread runs a chunk.
 *
 * Waiting polls CTVM_TEAM_SPINS times, then sleeps (a Linux futex, woken
 * by the thread that completes a chunk or opens the barrier; elsewhere it
 * yields with sched_yield or CTVM_TEAM_YIELD()), so a preempted teammate
 * gets the core. A full barrier (ctvm_sync: all threads arrive) remains
 * where every thread must have read a value (an if's condition) and at the
 * end of NAME_run_thread.
 *
 * The team is either OpenMP's (NAME_run_ws opens `omp parallel` when built
 * with -fopenmp, while that is faster than its thread alone: ctvm_adapt;
 * the full barrier is `omp barrier`) or threads the application owns, each calling NAME_run_thread with one ctvm_team: the
 * full barrier is then the caller's function, or the one below. Atomics
 * are C11's, or GCC's __atomic builtins under an older -std; without
 * either, chunk i goes to thread i mod nth and every wait is the caller's
 * barrier. Without threads the model runs on the calling thread alone and
 * none of this costs more than a counter. */

#ifdef _OPENMP
#include <omp.h>
#endif

#if defined(CTVM_TEAM_NO_ATOMICS) /* as a compiler without atomics (a test) */
typedef unsigned ctvm_atomic;
#elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L && !defined(__STDC_NO_ATOMICS__)
#include <stdatomic.h>
typedef atomic_uint ctvm_atomic;
#define CTVM_ALOAD(p) atomic_load_explicit(p, memory_order_acquire)
#define CTVM_ALOAD_RLX(p) atomic_load_explicit(p, memory_order_relaxed)
#define CTVM_ALOAD_SC(p) atomic_load(p)
#define CTVM_ASTORE(p, v) atomic_store_explicit(p, v, memory_order_release)
#define CTVM_AADD(p, v) atomic_fetch_add(p, v) /* sequentially consistent */
#define CTVM_ACAS(p, e, d) atomic_compare_exchange_weak_explicit(p, e, d, memory_order_relaxed, memory_order_relaxed)
#define CTVM_TEAM_ATOMICS 1
#elif defined(__GNUC__)
typedef unsigned ctvm_atomic;
#define CTVM_ALOAD(p) __atomic_load_n(p, __ATOMIC_ACQUIRE)
#define CTVM_ALOAD_RLX(p) __atomic_load_n(p, __ATOMIC_RELAXED)
#define CTVM_ALOAD_SC(p) __atomic_load_n(p, __ATOMIC_SEQ_CST)
#define CTVM_ASTORE(p, v) __atomic_store_n(p, v, __ATOMIC_RELEASE)
#define CTVM_AADD(p, v) __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST)
#define CTVM_ACAS(p, e, d) __atomic_compare_exchange_n(p, e, d, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED)
#define CTVM_TEAM_ATOMICS 1
#else
typedef unsigned ctvm_atomic; /* no atomics: NAME_run_thread needs the caller's barrier */
#endif

/* A waiting thread polls this many times, then sleeps (or yields). */
#ifndef CTVM_TEAM_SPINS
#define CTVM_TEAM_SPINS 20000u
#endif
#ifndef CTVM_TEAM_RELAX
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__SSE2__))
#define CTVM_TEAM_RELAX() __builtin_ia32_pause()
#else
#define CTVM_TEAM_RELAX() ((void)0)
#endif
#endif
/* Sleep while *p == v / wake every sleeper on p: a Linux futex, or define
   both for another system; without them waiting threads yield. */
#if defined(CTVM_TEAM_ATOMICS) && defined(__linux__) && !defined(CTVM_TEAM_BLOCK) && !defined(CTVM_TEAM_NO_FUTEX)
#include <sys/syscall.h>
#ifdef SYS_futex
long syscall(long number, ...);
#define CTVM_TEAM_BLOCK(p, v) ((void)syscall(SYS_futex, (void *)(p), 128 /* FUTEX_WAIT_PRIVATE */, (v), (void *)0))
#define CTVM_TEAM_WAKE(p) ((void)syscall(SYS_futex, (void *)(p), 129 /* FUTEX_WAKE_PRIVATE */, 0x7fffffff))
#endif
#endif
#ifndef CTVM_TEAM_YIELD
#if defined(__unix__) || defined(__APPLE__)
#include <sched.h>
#define CTVM_TEAM_YIELD() ((void)sched_yield())
#else
#define CTVM_TEAM_YIELD() ((void)0)
#endif
#endif

/* A phase's chunks are cut into CTVM_TEAM_RANGES (or the team's size, if
   fewer) contiguous ranges, range r the home of threads r, r + R, ... */
#ifndef CTVM_TEAM_RANGES
#define CTVM_TEAM_RANGES 8
#endif
typedef struct ctvm_range {
    ctvm_atomic taken; /* chunks of this range taken, over the inference (only grows) */
    char pad[64 - sizeof(ctvm_atomic)]; /* one cache line each */
} ctvm_range;

typedef struct ctvm_team {
    ctvm_range range[CTVM_TEAM_RANGES];
    ctvm_atomic done;         /* chunks done (only grows) */
    ctvm_atomic arrived, gen; /* full barrier: threads arrived; barriers passed */
    ctvm_atomic sleepers;     /* threads asleep in a wait */
    ctvm_atomic start;        /* the next inference's first chunk (NAME_run_thread) */
    unsigned start_range[CTVM_TEAM_RANGES]; /* and each range's first chunk */
    int nth;
    void (*barrier)(void *arg); /* the caller's full barrier, or NULL */
    void *arg;
} ctvm_team;

typedef struct ctvm_ctx {
    int tid, nth;    /* this thread, threads in the team */
    int omp;         /* full barriers are OpenMP's */
    int k;           /* without atomics: this thread's next chunk */
    unsigned seq;    /* chunks of the phases before the current one */
    unsigned base[CTVM_TEAM_RANGES]; /* each range's first chunk of the current phase */
    ctvm_team *team;
} ctvm_ctx;

static CTVM_INLINE void ctvm_team_setup(ctvm_team *t, int nth, void (*barrier)(void *arg), void *arg)
{
#ifdef CTVM_TEAM_ATOMICS
    for (int r = 0; r < CTVM_TEAM_RANGES; r++) {
        CTVM_ASTORE(&t->range[r].taken, 0u);
        t->start_range[r] = 0u;
    }
    CTVM_ASTORE(&t->done, 0u);
    CTVM_ASTORE(&t->arrived, 0u);
    CTVM_ASTORE(&t->gen, 0u);
    CTVM_ASTORE(&t->sleepers, 0u);
    CTVM_ASTORE(&t->start, 0u);
#endif
    t->nth = nth;
    t->barrier = barrier;
    t->arg = arg;
}

/* thread tid of nth; it starts where the team's last inference ended */
static CTVM_INLINE void ctvm_ctx_setup(ctvm_ctx *c, int tid, int nth, ctvm_team *t, int omp)
{
    c->tid = tid;
    c->nth = nth;
    c->omp = omp;
    c->k = tid;
    c->team = t;
#ifdef CTVM_TEAM_ATOMICS
    c->seq = CTVM_ALOAD(&t->start);
    for (int r = 0; r < CTVM_TEAM_RANGES; r++)
        c->base[r] = t->start_range[r];
#else
    c->seq = 0u;
#endif
}

/* ranges of a team of nth */
static CTVM_INLINE int ctvm_ranges(int nth)
{
    return nth < CTVM_TEAM_RANGES ? nth : CTVM_TEAM_RANGES;
}

/* The next chunk of the current phase of n chunks this thread runs, or -1
   when none is left (the thread then moves to the next phase). */
static CTVM_INLINE int ctvm_take(ctvm_ctx *c, int n)
{
#ifdef CTVM_TEAM_ATOMICS
    if (c->nth > 1) { /* the home range first, then the others' in turn */
        int R = ctvm_ranges(c->nth), home = c->tid % R;
        for (int i = 0; i < R; i++) {
            int r = home + i < R ? home + i : home + i - R;
            int lo = (int)((long long)n * r / R), size = (int)((long long)n * (r + 1) / R) - lo;
            ctvm_atomic *p = &c->team->range[r].taken;
            unsigned cur = CTVM_ALOAD_RLX(p);
            while (cur - c->base[r] < (unsigned)size) /* taken past the phase's: another phase's */
                if (CTVM_ACAS(p, &cur, cur + 1u))
                    return lo + (int)(cur - c->base[r]);
        }
        for (int r = 0; r < R; r++)
            c->base[r] += (unsigned)((long long)n * (r + 1) / R - (long long)n * r / R);
        c->seq += (unsigned)n;
        return -1;
    }
#endif
    if (c->k < n) { /* one thread, or chunk i to thread i mod nth */
        int k = c->k;
        c->k += c->nth;
        return k;
    }
    c->k = c->tid;
    c->seq += (unsigned)n;
    return -1;
}

/* Until *p - target (wrapping) >= 0: poll, then sleep until woken. */
static CTVM_INLINE void ctvm_team_until(ctvm_team *t, ctvm_atomic *p, unsigned target)
{
#ifdef CTVM_TEAM_ATOMICS
    unsigned polls = 0;
    while ((int)(CTVM_ALOAD(p) - target) < 0) {
        if (polls < CTVM_TEAM_SPINS) {
            polls++;
            CTVM_TEAM_RELAX();
            continue;
        }
#ifdef CTVM_TEAM_BLOCK
        CTVM_AADD(&t->sleepers, 1u);
        {
            unsigned v = CTVM_ALOAD_SC(p);
            if ((int)(v - target) < 0)
                CTVM_TEAM_BLOCK(p, v); /* returns at once if *p is no longer v */
        }
        CTVM_AADD(&t->sleepers, ~0u);
#else
        CTVM_TEAM_YIELD();
#endif
    }
#endif
    (void)t;
    (void)p;
    (void)target;
}

/* wake the threads asleep on p (after changing it) */
static CTVM_INLINE void ctvm_team_wake(ctvm_team *t, ctvm_atomic *p)
{
#if defined(CTVM_TEAM_ATOMICS) && defined(CTVM_TEAM_BLOCK)
    if (CTVM_ALOAD_SC(&t->sleepers))
        CTVM_TEAM_WAKE(p);
#endif
    (void)t;
    (void)p;
}

/* One chunk taken by ctvm_take is done. */
static CTVM_INLINE void ctvm_done(ctvm_ctx *c)
{
#ifdef CTVM_TEAM_ATOMICS
    if (c->nth > 1) {
        CTVM_AADD(&c->team->done, 1u);
        ctvm_team_wake(c->team, &c->team->done);
    }
#else
    (void)c;
#endif
}

/* Sense-by-generation barrier: the last thread to arrive resets the count
   and releases the others by advancing the generation they wait on. */
static CTVM_INLINE void ctvm_team_wait(ctvm_team *t)
{
#ifdef CTVM_TEAM_ATOMICS
    unsigned gen = CTVM_ALOAD(&t->gen);
    if (CTVM_AADD(&t->arrived, 1u) + 1u == (unsigned)t->nth) {
        CTVM_ASTORE(&t->arrived, 0u);
        CTVM_AADD(&t->gen, 1u);
        ctvm_team_wake(t, &t->gen);
        return;
    }
    ctvm_team_until(t, &t->gen, gen + 1u);
#else
    (void)t;
#endif
}

/* Full barrier: every thread of the team waits here until all have
   arrived. */
static CTVM_INLINE void ctvm_sync(const ctvm_ctx *c)
{
    if (c->nth <= 1)
        return;
#ifdef _OPENMP
    if (c->omp) {
#pragma omp barrier
        return;
    }
#endif
    if (c->team->barrier)
        c->team->barrier(c->team->arg);
    else
        ctvm_team_wait(c->team);
}

/* Every chunk of the phases so far is done. */
static CTVM_INLINE void ctvm_wait(ctvm_ctx *c)
{
    if (c->nth <= 1)
        return;
#ifdef CTVM_TEAM_ATOMICS
    ctvm_team_until(c->team, &c->team->done, c->seq);
#else
    ctvm_sync(c);
#endif
}

/* End of NAME_run_thread's inference: once every thread is past its last
   chunk, the next inference starts where this one ended. */
static CTVM_INLINE void ctvm_team_end(ctvm_ctx *c)
{
    if (c->nth <= 1)
        return;
    ctvm_sync(c);
#ifdef CTVM_TEAM_ATOMICS
    for (int r = 0; r < CTVM_TEAM_RANGES; r++)
        c->team->start_range[r] = c->base[r];
    CTVM_ASTORE(&c->team->start, c->seq);
#endif
}

/* NAME_run_ws on OpenMP's team: whether this inference opens the team or
   runs on the calling thread alone. libgomp's threads spin between regions
   and the region's end waits for every thread, so on a machine whose cores
   are taken by other processes the team can be slower than one thread.
   Both are timed as they run (omp_get_wtime, smoothed); the fifth
   inference runs alone, then the other form is used only while at least
   10% faster, and tried again after 4 inferences, then 8, up to every 64
   while it stays slower. Outputs are the same either way. Off by default
   (the team always opens): a short-lived process that starts beside
   spinning threads can settle on running alone on a quiet machine;
   -DCTVM_TEAM_ADAPT=1 turns it on for a machine shared with busy processes. */
#ifndef CTVM_TEAM_ADAPT
#define CTVM_TEAM_ADAPT 0
#endif
typedef struct ctvm_adapt {
    double t[2];   /* seconds of an inference: alone, with the team */
    int seen[2];
    int mode;      /* the faster so far: 1 the team */
    int warm;      /* the first inference (the team starts its threads) was not timed */
    unsigned count, next_probe, every;
} ctvm_adapt;

static CTVM_INLINE int ctvm_adapt_begin(ctvm_adapt *a)
{
    int use = 1;
#if defined(_OPENMP) && CTVM_TEAM_ADAPT
#pragma omp critical(ctvm_adapt)
    {
        if (a->every == 0) { /* first call: the team 4 times (the first starts its threads), then alone */
            a->mode = 1;
            a->every = 8;
            a->next_probe = 4;
        }
        use = a->count++ == a->next_probe ? !a->mode : a->mode;
    }
#else
    (void)a;
#endif
    return use;
}

static CTVM_INLINE void ctvm_adapt_end(ctvm_adapt *a, int use, double seconds)
{
#if defined(_OPENMP) && CTVM_TEAM_ADAPT
#pragma omp critical(ctvm_adapt)
    {
        int probe = use != a->mode;
        if (!a->warm)
            a->warm = 1; /* not timed: it started the threads */
        else {
            a->t[use] = probe || !a->seen[use] ? seconds : 0.75 * a->t[use] + 0.25 * seconds;
            a->seen[use] = 1;
        }
        if (probe && a->seen[0] && a->seen[1]) {
            if (a->t[use] < 0.9 * a->t[a->mode]) { /* clearly faster: switch */
                a->mode = use;
                a->every = 4;
            } else if (a->every < 64) {
                a->every *= 2;
            }
            a->next_probe = a->count + a->every;
        } else if (probe) {
            a->next_probe = a->count + 1u; /* nothing to compare yet: again next time */
        }
    }
#else
    (void)a;
    (void)use;
    (void)seconds;
#endif
}
