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
/* `static void name(params) { body }` */
void emit_kernel(FILE *f, const char *name, const char *comment, const Stmt *body, const KernelParams *p);
void emit_expr(FILE *f, const Expr *e);
void emit_stmt(FILE *f, const Stmt *s, int indent);
/* C identifier of a buffer as used inside kernels */
void emit_buf_name(FILE *f, const LBuf *b);

#endif
