/* call_math.h - templates/ctvm_vec_math.h compiled into the compiler: its
 * scalar forms (ctvm_expf, ...) on templates/ctvm_vec_scalar.h, once with
 * ctvm_vfma unfused (call_math_plain.c: a*b + c rounded twice, as SSE4 and
 * the generic target compute it) and once fused (call_math_fused.c: one
 * rounding, as AVX2, AVX-512, NEON and the FMA-capable scalar targets).
 * ir/call_prims.c hands them to the interpreter; constant folding then
 * computes exactly what generated code computes on the target. */
#ifndef CTVM_IR_CALL_MATH_H
#define CTVM_IR_CALL_MATH_H

/* the functions of templates/ctvm_vec_math.h, by the stem of their names */
#define CALL_MATH_FUNCS(X) X(exp) X(tanh) X(sigmoid) X(log) X(log1p) X(erf) X(expm1)

#define CALL_MATH_DECLARE(f) float call_math_##f##_plain(float x); float call_math_##f##_fused(float x);
CALL_MATH_FUNCS(CALL_MATH_DECLARE)
#undef CALL_MATH_DECLARE

#endif
