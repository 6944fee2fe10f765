/* loop_lower.h - rewrites of a scheduled loop nest just before printing.
 *
 * Unrolling is a schedule primitive (LOOP_UNROLL); it is carried out here,
 * once the nest is final, by copying the body with the loop variable
 * replaced by each constant, so register accumulators indexed by unrolled
 * variables get constant indices. The affine test tells the vectorizer how
 * an index moves with a loop variable. */
#ifndef CTVM_IR_LOOP_LOWER_H
#define CTVM_IR_LOOP_LOWER_H

#include "loop.h"

/* Longest loop fully unrolled; longer LOOP_UNROLL loops stay serial loops. */
#define LOOP_MAX_UNROLL 64

/* Copy of s with every LOOP_UNROLL loop (extent <= LOOP_MAX_UNROLL) expanded,
 * and every LOOP_VECTORIZE loop of extent 1 replaced by its body at 0. */
Stmt *loop_expand_unrolled(LoopBuilder *lb, Stmt *s);

/* 1 when e (an int expression) is c*v + (terms without v) with a constant
 * c, stored in *coef (0 when e does not use v); 0 otherwise. */
int lx_affine(const Expr *e, const LVar *v, int64_t *coef);

/* Structural equality of two expressions. */
int lx_equal(const Expr *a, const Expr *b);
/* An int index as a sum of terms (variable or div/mod sub-expression times
 * a constant) plus one constant last, equal terms merged: indices that
 * differ by a constant (unrolled neighbours) then print as the same sum and
 * a different displacement, which the C compiler turns into one base
 * register. Comparisons and other non-index expressions are returned as is. */
Expr *lx_canon_index(LoopBuilder *lb, Expr *e);

#endif
