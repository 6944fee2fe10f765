/* emit_loop.h - loop IR to C99 text.
 *
 * Prints one kernel of a Module (ir/module.h): a `static void` function
 * whose parameters are the buffers its loop nest reads and writes
 * (restrict-qualified; the memory plan guarantees a group's outputs do not
 * overlap its inputs), with local arrays and register variables declared
 * where the nest declares them. Vector nodes (ir/loop_vec.h) print as calls
 * of the target's vector API, a team kernel's phases with the thread
 * team's chunks and waits (templates/ctvm_team.h). Nothing is decided
 * here: what the loop passes of lower/ made is printed as it is. */
#ifndef CTVM_EMIT_C_EMIT_LOOP_H
#define CTVM_EMIT_C_EMIT_LOOP_H

#include <stdio.h>

#include "ir/loop.h"
#include "ir/module.h"

/* `/ * comment * / static void name(params) { body }` (no comment when NULL);
   a team kernel takes a last parameter `ctvm_ctx *ctvm_c`. */
void emit_kernel_text(FILE *f, const char *name, const char *comment, const Stmt *body, const KernelParams *p,
                      int team);
/* An expression or statement as C. */
void emit_expr(FILE *f, const Expr *e);
void emit_stmt(FILE *f, const Stmt *s, int indent);
/* C identifier of a buffer as used inside kernels */
void emit_buf_name(FILE *f, const LBuf *b);

#endif
