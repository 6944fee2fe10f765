/* emit_internal.h - pieces of model-file assembly shared by emit_model.c
 * (the file) and emit_team.c (the entry points of a threaded model). */
#ifndef CTVM_EMIT_C_EMIT_INTERNAL_H
#define CTVM_EMIT_C_EMIT_INTERNAL_H

#include <stdio.h>

#include "c_text.h"
#include "emit_loop.h"
#include "emit_weights.h"
#include "ir/graph.h"
#include "emit.h"
#include "ops/compute.h"

/* What scheduling the groups of one graph shares: the compute context, the
   loop builder, a buffer per root value, the weight blob they fill. */
typedef struct EmitCtx {
    ComputeCtx cx;
    LoopBuilder lb;
    LBuf **by_value; /* root value id -> buffer */
    WeightBlob blob;
    int failed;
} EmitCtx;

void emit_ctx_init(EmitCtx *e, Graph *g, Diag *d);
/* The graph's target, or the options' (generic when neither names one);
   NULL after a diagnostic for an unknown name. */
const struct Target *emit_target(const Graph *g, const EmitOptions *o, Diag *d);
/* Floating-point operations of a group's anchor (Conv, Gemm, MatMul; else 0) */
double emit_group_flops(const Graph *g, int anchor);
/* 1 when some value has a storage type without a C type (float16, ...) */
int emit_uses_narrow_types(const Graph *g);

/* How a kernel call passes a buffer: in0, out1, (float *)(ws + 64), weights */
void emit_call_arg(FILE *f, const LBuf *b, const WeightBlob *blob);
/* The parameter list of NAME_run (with_ws 0) or NAME_run_ws (1) */
void emit_params(FILE *f, const Graph *g, int with_ws);
/* first, then "const float *in0, float *out0, int64_t *out0_shape": the
   model's inputs, outputs and data-dependent output dims as parameters,
   comma-separated ("void" when there are none at all) */
void emit_io_params(FILE *f, const Graph *g, const char *first);
/* `if (a NULL pointer) return CTVM_ERR_NULL;` of the entry points */
void emit_null_check(FILE *out, const Graph *g, const char *P);
/* first, then ", in0, .., out0, .., out0_shape, .." */
void emit_pass_args(FILE *out, const Graph *g, const char *first);
/* the same with names prefix+"in0", ...; no comma before the first when
   first is empty */
void emit_pass_args_named(FILE *out, const Graph *g, const char *first, const char *prefix);
/* One kernel call of the run sequence; a team kernel gets ctvm_c last. */
void emit_step_call(FILE *out, const Graph *g, int s, int anchor, const KernelParams *kp, int team,
                    const WeightBlob *blob);
/* 1 when kernels of the SIMD target tg use its vector API: their text
   (ktext) or a runtime kernel they call written on it */
int emit_uses_vec(const struct Target *tg, Stmt *const *kernels, int n, const char *ktext);
/* The embedded files n kernels need before their text, in order: the
   runtime, the narrow types (when used or rounded to), the vector API (the
   target's when uses_vec, else scalar), vector math, the thread team
   (threads > 1), the runtime kernels they call. -1 after a diagnostic. */
int emit_kernel_headers(FILE *out, const Graph *g, const struct Target *tg, Stmt *const *kernels, int n,
                        const char *ktext, int uses_vec, int threads, Diag *d);
/* An embedded runtime_min/ or templates/ file between banners */
void emit_banner_file(FILE *f, const char *path);

/* emit_team.c: threaded models (--threads N > 1, templates/ctvm_team.h) */
/* The API of the caller-owned team: NAME_TEAM_BYTES, NAME_team_init, NAME_run_thread */
void emit_team_api(FILE *f, const Graph *g, const char *P);
/* NAME_team_run, run by every thread: team kernels by all, runs of serial
   kernels by thread 0 then a barrier; team[s]: kernel s is a team kernel */
void emit_team_steps(FILE *out, const Graph *g, const char *P, int steps, const int *order,
                     const KernelParams *params, const int *team, const WeightBlob *blob);
/* Opens the block every thread of the inference's team runs: under OpenMP
   `omp parallel num_threads(CTVM_THREADS)` + clause, else the calling thread
   alone, with `ctvm_ctx c` set for it; the caller writes the body (8
   spaces in) and closes it with "    }\n". */
void emit_team_open(FILE *out, const char *clause);
/* NAME_run_ws on OpenMP's team (or the calling thread alone), NAME_team_init, NAME_run_thread */
void emit_team_entries(FILE *out, const Graph *g, const char *P);
/* Under CTVM_MAIN: ctvm_main_thread(team, tid) for templates/main_team.c */
void emit_team_harness(FILE *f, const Graph *g, const char *P, int arena_caller);

#endif
