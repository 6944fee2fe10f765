/* emit_internal.h - pieces of model-file assembly shared by emit_model.c
 * (the file), emit_team.c (the entry points of a threaded model) and
 * emit_bench.c (ctvm-tune's candidate programs). */
#ifndef CTVM_EMIT_C_EMIT_INTERNAL_H
#define CTVM_EMIT_C_EMIT_INTERNAL_H

#include <stdio.h>

#include "emit.h"
#include "emit_loop.h"
#include "emit_weights.h"
#include "ir/c_text.h"
#include "ir/module.h"

/* How a kernel call passes a buffer: in0, out1, (float *)(ws + 64), weights */
void emit_call_arg(FILE *f, const LBuf *b, const WeightBlob *blob);
/* The parameter list of NAME_run (with_ws 0) or NAME_run_ws (1) */
void emit_params(FILE *f, const Module *m, int with_ws);
/* first, then "const float *in0, float *out0, int64_t *out0_shape": the
   model's inputs, outputs and data-dependent output dims as parameters,
   comma-separated ("void" when there are none at all) */
void emit_io_params(FILE *f, const Module *m, const char *first);
/* `if (a NULL pointer) return CTVM_ERR_NULL;` of the entry points */
void emit_null_check(FILE *out, const Module *m, const char *P);
/* first, then ", in0, .., out0, .., out0_shape, .." */
void emit_pass_args(FILE *out, const Module *m, const char *first);
/* the same with names prefix+"in0", ...; no comma before the first when
   first is empty */
void emit_pass_args_named(FILE *out, const Module *m, const char *first, const char *prefix);
/* 1 when a kernel call passes a buffer in the workspace */
int emit_uses_ws(const Module *m);
/* One kernel call of the run sequence; a team kernel gets ctvm_c last. */
void emit_step_call(FILE *out, const Module *m, int s);
/* Every kernel of m as C, in order */
void emit_kernels(FILE *out, const Module *m);
/* The embedded files m's kernels need before their text, in order: the
   runtime, the narrow types (when used or rounded to), the vector API (the
   target's when used, else scalar), vector math, the thread team
   (threads > 1), the runtime kernels they call. -1 after a diagnostic. */
int emit_kernel_headers(FILE *out, const Module *m, Diag *d);
/* An embedded runtime_min/ or templates/ file between banners */
void emit_banner_file(FILE *f, const char *path);

/* emit_team.c: threaded models (--threads N > 1, templates/ctvm_team.h) */
/* The API of the caller-owned team: NAME_TEAM_BYTES, NAME_team_init, NAME_run_thread */
void emit_team_api(FILE *f, const Module *m, const char *P);
/* NAME_team_run, run by every thread: team kernels by all, runs of serial
   kernels as one phase of one chunk then a wait */
void emit_team_steps(FILE *out, const Module *m, const char *P);
/* Opens the block every thread of the inference's team runs: under OpenMP
   `omp parallel num_threads(CTVM_THREADS)` + clause, else the calling thread
   alone, with `ctvm_ctx c` set for it on a fresh ctvm_team (this
   inference's chunk counters); the caller writes the body (8
   spaces in) and closes it with "    }\n". */
void emit_team_open(FILE *out, const char *clause);
/* NAME_run_ws on OpenMP's team (or the calling thread alone), NAME_team_init, NAME_run_thread */
void emit_team_entries(FILE *out, const Module *m, const char *P);
/* Under CTVM_MAIN: ctvm_main_thread(team, tid) for templates/main_team.c */
void emit_team_harness(FILE *f, const Module *m, const char *P, int arena_caller);

#endif
