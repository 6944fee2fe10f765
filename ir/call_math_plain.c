/* call_math_plain.c - templates/ctvm_vec_math.h with ctvm_vfma unfused, for
 * constant folding on targets without a fused multiply-add (call_math.h). */
#include "call_math.h"

/* a*b + c must stay two roundings: clang contracts it by default unless
   told; gcc does not in ISO C mode (-std=c11, as the Makefile builds), and
   in GNU mode only where it has an fma instruction, which is refused here */
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#elif defined(__GNUC__) && defined(__FP_FAST_FMAF) && !defined(__STRICT_ANSI__)
#error "ir/call_math_plain.c: build with -std=c11 or -ffp-contract=off (gcc would fuse a*b + c)"
#endif

#define CTVM_VFMA_FUSED 0
#include "runtime_min/ctvm_runtime.h"
#include "templates/ctvm_vec_scalar.h"
#include "templates/ctvm_vec_math.h"

#define CALL_MATH_DEFINE(fn) float call_math_##fn##_plain(float x) { return ctvm_##fn##f(x); }
CALL_MATH_FUNCS(CALL_MATH_DEFINE)
