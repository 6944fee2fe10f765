/* loop_interp.h - running a loop nest on host memory.
 *
 * Constant folding evaluates an operator by running its compute definition,
 * lowered to a plain loop nest, here: the operator's semantics are written
 * once (as loop IR) and serve both the generated C and the compiler's own
 * evaluation. Every expression is evaluated in its LType with the same
 * rules the generated C follows (float32 rounded after every operation,
 * integers wrapping, integer division by zero giving 0); loads and stores
 * convert storage formats as generated code does (ir/tensor.h), and calls
 * compute what generated code computes on the target (ir/call_prims.h:
 * exp, tanh, sigmoid, log... bit for bit). Loop kinds
 * (unroll, vectorize, parallel) are ignored. Out-of-bounds indices are
 * reported, not executed. */
#ifndef CTVM_IR_LOOP_INTERP_H
#define CTVM_IR_LOOP_INTERP_H

#include <stddef.h>

#include "loop.h"
#include "target.h"

/* Host memory of a non-local buffer (NULL: not available -> error). */
typedef void *(*LoopMemFn)(void *user, const LBuf *b);

/* Runs s as generated code for target tg computes it (NULL: the generic
 * target). 0 on success; -1 with a message in err (cap bytes) otherwise. */
int loop_interp_run_for(const Stmt *s, const Target *tg, LoopMemFn mem, void *user, char *err, size_t cap);
/* The same for the generic target (index arithmetic and the like, where
 * no target-dependent call is evaluated). */
int loop_interp_run(const Stmt *s, LoopMemFn mem, void *user, char *err, size_t cap);

#endif
