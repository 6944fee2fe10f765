/* emit_team.c - the entry points of a model built for several threads
 * (--threads N > 1): one parallel region per inference, run by OpenMP's
 * team or by threads the application owns (templates/ctvm_team.h says how
 * the generated code splits work and waits). */
#include "emit_internal.h"

#include "ir/dtype.h"

void emit_team_api(FILE *f, const Module *m, const char *P)
{
    fprintf(f, "/* Threads the application owns (no OpenMP): set up a team once with\n"
               "   %s_team_init(team, nthreads, barrier, arg), team being %s_TEAM_BYTES bytes\n"
               "   aligned to 8 (e.g. static int64_t team[%s_TEAM_BYTES / 8]); then each of the\n"
               "   nthreads threads calls %s_run_thread(team, tid, ...) with its tid in\n"
               "   [0, nthreads) and the same workspace, inputs and outputs; each returns\n"
               "   when the inference is done. barrier(arg) is called by every thread at\n"
               "   each full barrier and must return once all nthreads have called it; NULL\n"
               "   uses the model's own (C11 atomics; spins briefly, then sleeps). Work is\n"
               "   handed out in chunks to whichever thread comes: a late thread delays\n"
               "   only a chunk it holds, not every phase.\n"
               "   Returns 0, or 1 for a NULL pointer or a tid out of range (every thread\n"
               "   returns the same). Any nthreads >= 1 gives the same outputs. */\n"
               "#define %s_TEAM_BYTES 1024\n",
            P, P, P, P, P);
    fprintf(f, "int %s_team_init(void *team, int nthreads, void (*barrier)(void *arg), void *arg);\n", P);
    fprintf(f, "int %s_run_thread(", P);
    emit_io_params(f, m, "void *team, int tid, void *workspace");
    fputs(");\n", f);
}

void emit_team_steps(FILE *out, const Module *m, const char *P)
{
    fprintf(out, "static void %s_team_run(", P);
    emit_io_params(out, m, "ctvm_ctx *ctvm_c, char *ws");
    fputs(emit_uses_ws(m) ? ")\n{\n" : ")\n{\n    (void)ws; /* no buffer in the workspace */\n", out);
    for (int s = 0; s < m->n_kernels;) {
        if (m->kernels[s].team) {
            emit_step_call(out, m, s);
            s++;
            continue;
        }
        /* kernels without parallel loops: one phase of one chunk */
        fputs("    while (ctvm_take(ctvm_c, 1) >= 0) {\n", out);
        for (; s < m->n_kernels && !m->kernels[s].team; s++) {
            fputs("    ", out);
            emit_step_call(out, m, s);
        }
        fputs("        ctvm_done(ctvm_c);\n    }\n    ctvm_wait(ctvm_c);\n", out);
    }
    fputs("}\n\n", out);
}

void emit_team_open(FILE *out, const char *clause)
{
    fprintf(out, "    ctvm_team ctvm_t0; /* this inference's chunk counters */\n"
                 "    ctvm_team_setup(&ctvm_t0, CTVM_THREADS, 0, 0);\n"
                 "#ifdef _OPENMP\n#pragma omp parallel num_threads(CTVM_THREADS)%s\n    {\n        ctvm_ctx c;\n"
                 "        ctvm_ctx_setup(&c, omp_get_thread_num(), omp_get_num_threads(), &ctvm_t0, 1);\n"
                 "#else\n    {\n        ctvm_ctx c;\n        ctvm_ctx_setup(&c, 0, 1, &ctvm_t0, 0);\n#endif\n",
            clause);
}

/* `NAME_team_run(&c, (char *)workspace, in0, ...);` */
static void team_run_call(FILE *out, const Module *m, const char *P)
{
    fprintf(out, "        %s_team_run(", P);
    emit_pass_args(out, m, "&c, (char *)workspace");
    fputs(");\n", out);
}

void emit_team_entries(FILE *out, const Module *m, const char *P)
{
    fprintf(out, "int %s_run_ws", P);
    emit_params(out, m, 1);
    fputs("\n{\n", out);
    emit_null_check(out, m, P);
    /* the team, or this thread alone when that has been faster (ctvm_adapt) */
    fputs("#ifdef _OPENMP\n    static ctvm_adapt ctvm_ad;\n    int ctvm_use = ctvm_adapt_begin(&ctvm_ad);\n"
          "    double ctvm_t = omp_get_wtime();\n#endif\n",
          out);
    emit_team_open(out, " if(ctvm_use)");
    team_run_call(out, m, P);
    fputs("    }\n#ifdef _OPENMP\n    ctvm_adapt_end(&ctvm_ad, ctvm_use, omp_get_wtime() - ctvm_t);\n#endif\n"
          "    return CTVM_OK;\n}\n\n",
          out);

    fprintf(out, "typedef char %s_team_fits[sizeof(ctvm_team) <= %s_TEAM_BYTES ? 1 : -1];\n\n", P, P);
    fprintf(out, "int %s_team_init(void *team, int nthreads, void (*barrier)(void *arg), void *arg)\n{\n"
                 "    ctvm_team *t = (ctvm_team *)team;\n"
                 "    if (!t || nthreads < 1)\n        return CTVM_ERR_NULL;\n"
                 "#ifndef CTVM_TEAM_ATOMICS\n    if (!barrier && nthreads > 1)\n        return CTVM_ERR_NULL;\n#endif\n"
                 "    ctvm_team_setup(t, nthreads, barrier, arg);\n    return CTVM_OK;\n}\n\n",
            P);
    fprintf(out, "int %s_run_thread(", P);
    emit_io_params(out, m, "void *team, int tid, void *workspace");
    fputs(")\n{\n    if (!team || tid < 0 || tid >= ((ctvm_team *)team)->nth)\n        return CTVM_ERR_NULL;\n", out);
    emit_null_check(out, m, P);
    fputs("    {\n        ctvm_ctx c;\n        ctvm_ctx_setup(&c, tid, ((ctvm_team *)team)->nth, (ctvm_team *)team, 0);\n",
          out);
    team_run_call(out, m, P);
    fputs("        ctvm_team_end(&c);\n    }\n    return CTVM_OK;\n}\n\n", out);
}

void emit_team_harness(FILE *f, const Module *m, const char *P, int arena_caller)
{
    fprintf(f, "#ifdef CTVM_MAIN_TEAM\nstatic int ctvm_main_thread(void *team, int tid)\n{\n    return %s_run_thread(team, tid, ", P);
    emit_pass_args_named(f, m, arena_caller ? "ctvm_main_ws" : "&ctvm_arena", "ctvm_main_");
    fprintf(f, ");\n}\n#endif\n#define CTVM_MAIN_TEAM_BYTES %s_TEAM_BYTES\n#define CTVM_MAIN_TEAM_INIT %s_team_init\n", P, P);
    emit_banner_file(f, "templates/main_team.c");
}
