/* loop_simplify.h - the range-aware simplification of a lowered loop nest.
 *
 * A loop `for v in 0..E` gives v the range [0, E-1] inside its body (for
 * every loop kind). From these ranges the pass computes an interval for
 * every index and condition expression (LT_IDX, LT_BOOL) and rewrites what
 * the intervals decide:
 *   - loops of extent 1 become their body with v = 0; loops of extent 0,
 *     ifs whose condition is false (without else) and empty bodies vanish;
 *   - an expression whose interval is one value becomes that constant
 *     (x/N with 0 <= x < N, decided comparisons, (p/64)*4096 with p < 64);
 *   - x%N -> x when 0 <= x < N; (a*N + b)/N -> a and (a*N + b)%N -> b when
 *     a >= 0 and 0 <= b < N; (x/N)/M -> x/(N*M); min/max decided by the
 *     intervals -> the operand; c && 1 -> c for a 0/1 condition c;
 *   - an if or select whose condition is decided becomes the chosen side;
 *     inside `if (c)` and the first branch of `c ? a : b`, the simple bounds
 *     of c (v < k, v + k >= 0, ...) narrow v's range.
 * Float arithmetic and typed integer arithmetic are never rewritten (only
 * the index and condition expressions inside them); runtime kernel calls
 * keep everything but their run-time argument expression. */
#ifndef CTVM_IR_LOOP_SIMPLIFY_H
#define CTVM_IR_LOOP_SIMPLIFY_H

#include "loop.h"

/* A simplified copy of s; s and the nodes it shares are never modified
 * (unchanged sub-trees are returned as they are). */
Stmt *loop_simplify(LoopBuilder *lb, Stmt *s);

/* e simplified with no loop variable's range known (tests, folding). */
Expr *loop_simplify_expr(LoopBuilder *lb, Expr *e);

#endif
