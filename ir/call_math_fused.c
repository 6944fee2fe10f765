/* call_math_fused.c - templates/ctvm_vec_math.h with ctvm_vfma fused (fmaf),
 * for constant folding on targets with a fused multiply-add (call_math.h). */
#include "call_math.h"

/* only ctvm_vfma fuses: a*b + c elsewhere stays two roundings, as in the
   vector headers (see call_math_plain.c) */
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#elif defined(__GNUC__) && defined(__FP_FAST_FMAF) && !defined(__STRICT_ANSI__)
#error "ir/call_math_fused.c: build with -std=c11 or -ffp-contract=off (gcc would fuse a*b + c)"
#endif

#define CTVM_VFMA_FUSED 1
#include "runtime_min/ctvm_runtime.h"
#include "templates/ctvm_vec_scalar.h"
#include "templates/ctvm_vec_math.h"

#define CALL_MATH_DEFINE(fn) float call_math_##fn##_fused(float x) { return ctvm_##fn##f(x); }
CALL_MATH_FUNCS(CALL_MATH_DEFINE)
