/* main_team.c - the CTVM_MAIN harness running a threaded model on threads
 * it owns, through NAME_team_init / NAME_run_thread instead of OpenMP.
 *
 * Build the model file with -DCTVM_MAIN_TEAM=N -pthread (no -fopenmp): N
 * threads (N - 1 started once, plus the main thread) each run
 * ctvm_main_thread(team, tid) for every inference; -DCTVM_MAIN_TEAM_PBARRIER
 * passes a pthread barrier as the model's barrier instead of its own;
 * -DCTVM_MAIN_TEAM_LATE=US makes threads start late (tid 0 in odd
 * inferences, the others in even ones, each US microseconds), so other
 * threads take the chunks (a test of outputs that do not depend on it). The
 * model file provides ctvm_main_thread, CTVM_MAIN_TEAM_BYTES and
 * CTVM_MAIN_TEAM_INIT (emit_c/emit_team.c). */
#ifdef CTVM_MAIN_TEAM
#include <pthread.h>
#include <stdint.h>

static int64_t ctvm_main_team_mem[CTVM_MAIN_TEAM_BYTES / 8 + 1];
static pthread_barrier_t ctvm_main_go, ctvm_main_done;
static int ctvm_main_team_rc[CTVM_MAIN_TEAM];
#ifdef CTVM_MAIN_TEAM_PBARRIER
static pthread_barrier_t ctvm_main_pbarrier;
static void ctvm_main_pbarrier_wait(void *arg)
{
    pthread_barrier_wait((pthread_barrier_t *)arg);
}
#endif

#ifdef CTVM_MAIN_TEAM_LATE
#include <time.h>
/* thread tid of inference n starts late: tid 0 in odd ones, others in even */
static void ctvm_main_late(int tid, unsigned n)
{
    struct timespec ts;
    if ((tid == 0) != (n % 2u == 1u))
        return;
    ts.tv_sec = 0;
    ts.tv_nsec = (long)(CTVM_MAIN_TEAM_LATE) * 1000L * (tid ? tid : 1);
    nanosleep(&ts, 0);
}
#else
#define ctvm_main_late(tid, n) ((void)(tid), (void)(n))
#endif

/* a worker: one inference per round of the go/done barriers */
static void *ctvm_main_worker(void *arg)
{
    int tid = (int)(intptr_t)arg;
    unsigned n = 0;
    for (;; n++) {
        pthread_barrier_wait(&ctvm_main_go);
        ctvm_main_late(tid, n);
        ctvm_main_team_rc[tid] = ctvm_main_thread(ctvm_main_team_mem, tid);
        pthread_barrier_wait(&ctvm_main_done);
    }
    return 0;
}

static int ctvm_main_team_invoke(void)
{
    static int started;
    static unsigned n;
    if (!started) {
        int rc;
#ifdef CTVM_MAIN_TEAM_PBARRIER
        if (pthread_barrier_init(&ctvm_main_pbarrier, 0, CTVM_MAIN_TEAM) != 0)
            return 1;
        rc = CTVM_MAIN_TEAM_INIT(ctvm_main_team_mem, CTVM_MAIN_TEAM, ctvm_main_pbarrier_wait, &ctvm_main_pbarrier);
#else
        rc = CTVM_MAIN_TEAM_INIT(ctvm_main_team_mem, CTVM_MAIN_TEAM, 0, 0);
#endif
        if (rc != 0 || pthread_barrier_init(&ctvm_main_go, 0, CTVM_MAIN_TEAM) != 0 ||
            pthread_barrier_init(&ctvm_main_done, 0, CTVM_MAIN_TEAM) != 0)
            return 1;
        for (int t = 1; t < CTVM_MAIN_TEAM; t++) {
            pthread_t th;
            if (pthread_create(&th, 0, ctvm_main_worker, (void *)(intptr_t)t) != 0 || pthread_detach(th) != 0)
                return 1;
        }
        started = 1;
    }
    pthread_barrier_wait(&ctvm_main_go);
    ctvm_main_late(0, n);
    n++;
    ctvm_main_team_rc[0] = ctvm_main_thread(ctvm_main_team_mem, 0);
    pthread_barrier_wait(&ctvm_main_done);
    for (int t = 0; t < CTVM_MAIN_TEAM; t++)
        if (ctvm_main_team_rc[t] != 0)
            return ctvm_main_team_rc[t];
    return 0;
}
#endif
