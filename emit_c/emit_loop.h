/* emit_loop.h - loop IR to C99 text.
 *
 * Prints one kernel: a `static void` function whose parameters are the
 * buffers its loop nest reads and writes (restrict-qualified; the memory plan
 * guarantees a group's outputs do not overlap its inputs), with local
 * accumulators declared where ST_ALLOC stands. */
#ifndef CTVM_EMIT_C_EMIT_LOOP_H
#define CTVM_EMIT_C_EMIT_LOOP_H

#include <stdio.h>

#include "ir/loop.h"

#define EMIT_MAX_PARAMS 256

typedef struct KernelParams {
    int n;
    LBuf *buf[EMIT_MAX_PARAMS];
    int written[EMIT_MAX_PARAMS];
} KernelParams;

/* The non-local buffers of s in order of first appearance; -1 if too many. */
int emit_collect_params(const Stmt *s, KernelParams *p);
/* How kernels are printed: vector width of the target's vector API (1: no
 * vectorization), thread count (> 1: kernels with parallel loops are run by
 * the whole team, see emit_kernel_is_team) and a builder for the rewrites before printing (unroll expansion,
 * lane-0 indices); lb NULL prints the nest as written, scalar. */
typedef struct EmitCfg {
    int vl;
    int threads;
    LoopBuilder *lb;
} EmitCfg;

/* `static void name(params) { body }`: LOOP_UNROLL loops expanded; a
 * LOOP_VECTORIZE loop of extent vl whose body is stores of expressions that
 * read contiguously (or not at all) along its variable becomes one
 * statement per store on vectors of the target's API (ctvm_vf), others stay
 * scalar loops. Local buffers indexed only by constants become registers. */
void emit_kernel_cfg(FILE *f, const char *name, const char *comment, const Stmt *body, const KernelParams *p,
                     const EmitCfg *cfg);
/* 1 when the kernel of body is run by every thread of the team
 * (templates/ctvm_team.h): cfg->threads > 1 and body has a parallel loop.
 * Such a kernel takes a last parameter `const ctvm_ctx *ctvm_c`, splits its
 * parallel loops among the threads, runs its serial statements on thread 0
 * and ends every phase with a barrier, its last one included; other kernels
 * are called by thread 0 alone. */
int emit_kernel_is_team(const Stmt *body, const EmitCfg *cfg);
/* 1 when s has a LOOP_PARALLEL loop outside any ST_ALLOC. */
int emit_has_parallel(const Stmt *s);
/* The same, scalar (no rewrites). */
void emit_kernel(FILE *f, const char *name, const char *comment, const Stmt *body, const KernelParams *p);
/* Scalar printing of an expression or statement, as written. */
void emit_expr(FILE *f, const Expr *e);
void emit_stmt(FILE *f, const Stmt *s, int indent);
/* Adds the runtime kernels s calls (ST_CALL function names) to names[0..n)
 * if not there yet; returns the new count (at most cap). */
int emit_collect_calls(const Stmt *s, const char **names, int n, int cap);
/* 1 when s rounds to float16/bfloat16 (CO_RND_F16/BF16): the generated file
 * then needs ctvm_types.h even if no tensor has a narrow type */
int emit_uses_rounding(const Stmt *s);
/* C identifier of a buffer as used inside kernels */
void emit_buf_name(FILE *f, const LBuf *b);

#endif
