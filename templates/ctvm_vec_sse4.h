/* ctvm_vec_sse4.h - the ctvm vector API on SSE4.1 (CTVM_VL 4).
 *
 * Pasted by emit_c into model.c for --target x86_64-sse4. Built without
 * -msse4.1 (or -march=native on such a CPU), it enables SSE4.1 itself
 * for the rest of model.c: gcc by `#pragma GCC target`, clang by a target
 * attribute on every function that follows (`#pragma clang attribute`);
 * model.c closes that region after its entry points with CTVM_ISA_END.
 * Either way the code runs only on a CPU with SSE4.1. Other compilers
 * and compilers for another architecture stop at the #error below (clang
 * -fopenmp is fine: the file's one OpenMP region only calls functions that
 * carry the attribute). SSE4.1 has no
 * fma instruction, so ctvm_vfma is an unfused multiply and add. exp, tanh,
 * sigmoid, log... are templates/ctvm_vec_math.h, on the bit primitives at
 * the end of this file. Assumes
 * runtime_min/ctvm_runtime.h was pasted first (CTVM_INLINE). Every header
 * of the API (templates/ctvm_vec_*.h) defines the same functions with the
 * same semantics; see docs/ARCHITECTURE.md "Vector API". */
#ifndef CTVM_VEC_H
#define CTVM_VEC_H

#if defined(__SSE4_1__)
#define CTVM_ISA_BY 0 /* the command line's flags */
#elif (defined(__x86_64__) || defined(__i386__)) && defined(__clang__)
#define CTVM_ISA_BY 2 /* #pragma clang attribute, after the intrinsics */
#elif (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__) && !defined(__clang__) && !defined(__INTEL_COMPILER)
#define CTVM_ISA_BY 1
#pragma GCC push_options
#pragma GCC target("sse4.1")
#define CTVM_ISA_END _Pragma("GCC pop_options")
#endif

#if !defined(CTVM_ISA_BY) && !defined(__x86_64__) && !defined(__i386__)
#error "ctvm: generated for target x86_64-sse4: this compiler does not build x86 code (emit the file for this machine's --target)"
#elif !defined(CTVM_ISA_BY)
#error "ctvm: generated for target x86_64-sse4: compile with -msse4.1 (or -march=native)"
#else /* the rest only with the ISA, so the #error is the one message */

#include <smmintrin.h>

#if CTVM_ISA_BY == 2
#pragma clang attribute push(__attribute__((target("sse4.1"))), apply_to = function)
#define CTVM_ISA_END _Pragma("clang attribute pop")
#endif

#define CTVM_VL 4
#define CTVM_ISA "sse4"

/* clang, unlike gcc, warns about unused static inline functions of the main
 * file, which is where this API lands in model.c. */
#if defined(__clang__)
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wunused-function"
#endif

typedef __m128 ctvm_vf; /* CTVM_VL floats */
typedef __m128 ctvm_vm; /* lane mask: all ones or all zeros per lane */

static CTVM_INLINE ctvm_vf ctvm_vload(const float *p) { return _mm_loadu_ps(p); }
static CTVM_INLINE void ctvm_vstore(float *p, ctvm_vf v) { _mm_storeu_ps(p, v); }
static CTVM_INLINE ctvm_vf ctvm_vset1(float x) { return _mm_set1_ps(x); }
static CTVM_INLINE ctvm_vf ctvm_vzero(void) { return _mm_setzero_ps(); }

static CTVM_INLINE ctvm_vf ctvm_vadd(ctvm_vf a, ctvm_vf b) { return _mm_add_ps(a, b); }
static CTVM_INLINE ctvm_vf ctvm_vsub(ctvm_vf a, ctvm_vf b) { return _mm_sub_ps(a, b); }
static CTVM_INLINE ctvm_vf ctvm_vmul(ctvm_vf a, ctvm_vf b) { return _mm_mul_ps(a, b); }
static CTVM_INLINE ctvm_vf ctvm_vdiv(ctvm_vf a, ctvm_vf b) { return _mm_div_ps(a, b); }
/* minps/maxps return their second operand when the compare is false
 * (either NaN, or +0 vs -0): exactly a < b ? a : b and a > b ? a : b. */
static CTVM_INLINE ctvm_vf ctvm_vmin(ctvm_vf a, ctvm_vf b) { return _mm_min_ps(a, b); }
static CTVM_INLINE ctvm_vf ctvm_vmax(ctvm_vf a, ctvm_vf b) { return _mm_max_ps(a, b); }
static CTVM_INLINE ctvm_vf ctvm_vfma(ctvm_vf a, ctvm_vf b, ctvm_vf c) { return _mm_add_ps(_mm_mul_ps(a, b), c); }
static CTVM_INLINE ctvm_vf ctvm_vneg(ctvm_vf a) { return _mm_xor_ps(a, _mm_set1_ps(-0.0f)); }
static CTVM_INLINE ctvm_vf ctvm_vabs(ctvm_vf a) { return _mm_andnot_ps(_mm_set1_ps(-0.0f), a); }
static CTVM_INLINE ctvm_vf ctvm_vsqrt(ctvm_vf a) { return _mm_sqrt_ps(a); }

static CTVM_INLINE ctvm_vm ctvm_vlt(ctvm_vf a, ctvm_vf b) { return _mm_cmplt_ps(a, b); }
static CTVM_INLINE ctvm_vm ctvm_vle(ctvm_vf a, ctvm_vf b) { return _mm_cmple_ps(a, b); }
static CTVM_INLINE ctvm_vm ctvm_vge(ctvm_vf a, ctvm_vf b) { return _mm_cmpge_ps(a, b); }
static CTVM_INLINE ctvm_vm ctvm_veq(ctvm_vf a, ctvm_vf b) { return _mm_cmpeq_ps(a, b); }
static CTVM_INLINE ctvm_vm ctvm_vmand(ctvm_vm a, ctvm_vm b) { return _mm_and_ps(a, b); }
static CTVM_INLINE ctvm_vf ctvm_vselect(ctvm_vm m, ctvm_vf a, ctvm_vf b) { return _mm_blendv_ps(b, a, m); }

static CTVM_INLINE float ctvm_vhsum(ctvm_vf v)
{
    __m128 s = _mm_add_ps(v, _mm_movehl_ps(v, v)); /* lanes 0+2, 1+3 */
    s = _mm_add_ss(s, _mm_shuffle_ps(s, s, 1));
    return _mm_cvtss_f32(s);
}
/* Max of the lanes; unspecified which lane wins if one is NaN. */
static CTVM_INLINE float ctvm_vhmax(ctvm_vf v)
{
    __m128 s = _mm_max_ps(v, _mm_movehl_ps(v, v));
    s = _mm_max_ss(s, _mm_shuffle_ps(s, s, 1));
    return _mm_cvtss_f32(s);
}

static CTVM_INLINE float ctvm_vfirst(ctvm_vf v) { return _mm_cvtss_f32(v); }

/* the bit primitives templates/ctvm_vec_math.h is written on */
/* a/b for b in [1, 2^126) (tanh, sigmoid): exact here */
static CTVM_INLINE ctvm_vf ctvm_vdiv_fast(ctvm_vf a, ctvm_vf b) { return _mm_div_ps(a, b); }
/* to the nearest integer, ties to even */
static CTVM_INLINE ctvm_vf ctvm_vround(ctvm_vf a) { return _mm_round_ps(a, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC); }
/* bitwise and / or of the lanes' bits (signs: x | -0.0f is -|x|) */
static CTVM_INLINE ctvm_vf ctvm_vbitand(ctvm_vf a, ctvm_vf b) { return _mm_and_ps(a, b); }
static CTVM_INLINE ctvm_vf ctvm_vbitor(ctvm_vf a, ctvm_vf b) { return _mm_or_ps(a, b); }
/* p * 2^(n>>1) * 2^(n - (n>>1)) for an integer n in [-252, 254]: both
 * scales built in the exponent bits, so the scale never overflows and a
 * result in the denormal range rounds once (p in [1/2, 2]) */
static CTVM_INLINE ctvm_vf ctvm_vldexp(ctvm_vf p, ctvm_vf n)
{
    __m128i k = _mm_cvttps_epi32(n), k1 = _mm_srai_epi32(k, 1), bias = _mm_set1_epi32(127);
    p = _mm_mul_ps(p, _mm_castsi128_ps(_mm_slli_epi32(_mm_add_epi32(k1, bias), 23)));
    return _mm_mul_ps(p, _mm_castsi128_ps(_mm_slli_epi32(_mm_add_epi32(_mm_sub_epi32(k, k1), bias), 23)));
}
/* the exponent field of a minus 127: floor(log2 |a|) for normal a */
static CTVM_INLINE ctvm_vf ctvm_vgetexp(ctvm_vf a)
{
    __m128i e = _mm_and_si128(_mm_srli_epi32(_mm_castps_si128(a), 23), _mm_set1_epi32(255));
    return _mm_cvtepi32_ps(_mm_sub_epi32(e, _mm_set1_epi32(127)));
}
/* |a| with the exponent field 127: in [1, 2) for normal a */
static CTVM_INLINE ctvm_vf ctvm_vgetmant(ctvm_vf a)
{
    __m128i m = _mm_and_si128(_mm_castps_si128(a), _mm_set1_epi32(0x007fffff));
    return _mm_castsi128_ps(_mm_or_si128(m, _mm_set1_epi32(0x3f800000)));
}

#if defined(__clang__)
#pragma clang diagnostic pop
#endif

#endif /* ISA */
#endif
