/* ctvm_vec_avx512.h - the ctvm vector API on AVX-512F (CTVM_VL 16).
 *
 * Pasted by emit_c into model.c for --target x86_64-avx512. Built without
 * -mavx512f (or -march=native on such a CPU), it enables AVX-512F itself
 * for the rest of model.c: gcc by `#pragma GCC target`, clang by a target
 * attribute on every function that follows (`#pragma clang attribute`);
 * model.c closes that region after its entry points with CTVM_ISA_END.
 * Either way the code runs only on a CPU with AVX-512F. Other compilers
 * and compilers for another architecture stop at the #error below (clang
 * -fopenmp is fine: the file's one OpenMP region only calls functions that
 * carry the attribute). Only
 * AVX-512F instructions are used (bitwise float operations go through the
 * integer forms, as and/xor on __m512 need AVX-512DQ). Masks are
 * __mmask16. ctvm_vfma is fused. exp, tanh, sigmoid, log... are
 * templates/ctvm_vec_math.h, on the bit primitives at the end of this
 * file. Assumes runtime_min/ctvm_runtime.h was pasted
 * first (CTVM_INLINE). Every header of the API (templates/ctvm_vec_*.h)
 * defines the same functions with the same semantics; see
 * docs/ARCHITECTURE.md "Vector API". */
#ifndef CTVM_VEC_H
#define CTVM_VEC_H

#if defined(__AVX512F__)
#define CTVM_ISA_BY 0 /* the command line's flags */
#elif (defined(__x86_64__) || defined(__i386__)) && defined(__clang__)
#define CTVM_ISA_BY 2 /* #pragma clang attribute, after the intrinsics */
#elif (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__) && !defined(__clang__) && !defined(__INTEL_COMPILER)
#define CTVM_ISA_BY 1
#pragma GCC push_options
#pragma GCC target("avx512f,fma")
#define CTVM_ISA_END _Pragma("GCC pop_options")
#endif

#if !defined(CTVM_ISA_BY) && !defined(__x86_64__) && !defined(__i386__)
#error "ctvm: generated for target x86_64-avx512: this compiler does not build x86 code (emit the file for this machine's --target)"
#elif !defined(CTVM_ISA_BY)
#error "ctvm: generated for target x86_64-avx512: compile with -mavx512f (or -march=native)"
#else /* the rest only with the ISA, so the #error is the one message */

#include <immintrin.h>

#if CTVM_ISA_BY == 2
#pragma clang attribute push(__attribute__((target("avx512f,fma"))), apply_to = function)
#define CTVM_ISA_END _Pragma("clang attribute pop")
#endif

#define CTVM_VL 16
#define CTVM_ISA "avx512"

/* clang, unlike gcc, warns about unused static inline functions of the main
 * file, which is where this API lands in model.c. */
#if defined(__clang__)
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wunused-function"
#endif

typedef __m512 ctvm_vf;    /* CTVM_VL floats */
typedef __mmask16 ctvm_vm; /* lane mask: bit i for lane i */

static CTVM_INLINE ctvm_vf ctvm_vload(const float *p) { return _mm512_loadu_ps(p); }
static CTVM_INLINE void ctvm_vstore(float *p, ctvm_vf v) { _mm512_storeu_ps(p, v); }
static CTVM_INLINE ctvm_vf ctvm_vset1(float x) { return _mm512_set1_ps(x); }
static CTVM_INLINE ctvm_vf ctvm_vzero(void) { return _mm512_setzero_ps(); }

static CTVM_INLINE ctvm_vf ctvm_vadd(ctvm_vf a, ctvm_vf b) { return _mm512_add_ps(a, b); }
static CTVM_INLINE ctvm_vf ctvm_vsub(ctvm_vf a, ctvm_vf b) { return _mm512_sub_ps(a, b); }
static CTVM_INLINE ctvm_vf ctvm_vmul(ctvm_vf a, ctvm_vf b) { return _mm512_mul_ps(a, b); }
static CTVM_INLINE ctvm_vf ctvm_vdiv(ctvm_vf a, ctvm_vf b) { return _mm512_div_ps(a, b); }
/* vminps/vmaxps return their second operand when the compare is false
 * (either NaN, or +0 vs -0): exactly a < b ? a : b and a > b ? a : b. */
static CTVM_INLINE ctvm_vf ctvm_vmin(ctvm_vf a, ctvm_vf b) { return _mm512_min_ps(a, b); }
static CTVM_INLINE ctvm_vf ctvm_vmax(ctvm_vf a, ctvm_vf b) { return _mm512_max_ps(a, b); }
static CTVM_INLINE ctvm_vf ctvm_vfma(ctvm_vf a, ctvm_vf b, ctvm_vf c) { return _mm512_fmadd_ps(a, b, c); }
/* sign-bit operations on the integer view (AVX-512F has no float and/xor) */
#define CTVM_V512_SIGN _mm512_set1_epi32(-2147483647 - 1)
static CTVM_INLINE ctvm_vf ctvm_vneg(ctvm_vf a)
{
    return _mm512_castsi512_ps(_mm512_xor_si512(_mm512_castps_si512(a), CTVM_V512_SIGN));
}
static CTVM_INLINE ctvm_vf ctvm_vabs(ctvm_vf a)
{
    return _mm512_castsi512_ps(_mm512_andnot_si512(CTVM_V512_SIGN, _mm512_castps_si512(a)));
}
static CTVM_INLINE ctvm_vf ctvm_vsqrt(ctvm_vf a) { return _mm512_sqrt_ps(a); }

/* ordered, non-signalling compares: false when either lane is NaN */
static CTVM_INLINE ctvm_vm ctvm_vlt(ctvm_vf a, ctvm_vf b) { return _mm512_cmp_ps_mask(a, b, _CMP_LT_OQ); }
static CTVM_INLINE ctvm_vm ctvm_vle(ctvm_vf a, ctvm_vf b) { return _mm512_cmp_ps_mask(a, b, _CMP_LE_OQ); }
static CTVM_INLINE ctvm_vm ctvm_vge(ctvm_vf a, ctvm_vf b) { return _mm512_cmp_ps_mask(a, b, _CMP_GE_OQ); }
static CTVM_INLINE ctvm_vm ctvm_veq(ctvm_vf a, ctvm_vf b) { return _mm512_cmp_ps_mask(a, b, _CMP_EQ_OQ); }
static CTVM_INLINE ctvm_vm ctvm_vmand(ctvm_vm a, ctvm_vm b) { return (ctvm_vm)(a & b); }
static CTVM_INLINE ctvm_vf ctvm_vselect(ctvm_vm m, ctvm_vf a, ctvm_vf b) { return _mm512_mask_blend_ps(m, b, a); }

/* the upper 256 bits (AVX-512F has no extractf32x8, use the f64x4 form) */
static CTVM_INLINE __m256 ctvm_v512_hi(ctvm_vf v)
{
    return _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v), 1));
}
static CTVM_INLINE float ctvm_vhsum(ctvm_vf v)
{
    __m256 h = _mm256_add_ps(_mm512_castps512_ps256(v), ctvm_v512_hi(v));
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(h), _mm256_extractf128_ps(h, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_shuffle_ps(s, s, 1));
    return _mm_cvtss_f32(s);
}
/* Max of the lanes; unspecified which lane wins if one is NaN. */
static CTVM_INLINE float ctvm_vhmax(ctvm_vf v)
{
    __m256 h = _mm256_max_ps(_mm512_castps512_ps256(v), ctvm_v512_hi(v));
    __m128 s = _mm_max_ps(_mm256_castps256_ps128(h), _mm256_extractf128_ps(h, 1));
    s = _mm_max_ps(s, _mm_movehl_ps(s, s));
    s = _mm_max_ss(s, _mm_shuffle_ps(s, s, 1));
    return _mm_cvtss_f32(s);
}

static CTVM_INLINE float ctvm_vfirst(ctvm_vf v) { return _mm_cvtss_f32(_mm512_castps512_ps128(v)); }

/* the bit primitives templates/ctvm_vec_math.h is written on */
/* a/b for b in [1, 2^126) (tanh, sigmoid): exact here */
static CTVM_INLINE ctvm_vf ctvm_vdiv_fast(ctvm_vf a, ctvm_vf b) { return _mm512_div_ps(a, b); }
/* to the nearest integer, ties to even */
static CTVM_INLINE ctvm_vf ctvm_vround(ctvm_vf a)
{
    return _mm512_roundscale_ps(a, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
}
/* bitwise and / or of the lanes' bits (signs: x | -0.0f is -|x|) */
static CTVM_INLINE ctvm_vf ctvm_vbitand(ctvm_vf a, ctvm_vf b)
{
    return _mm512_castsi512_ps(_mm512_and_si512(_mm512_castps_si512(a), _mm512_castps_si512(b)));
}
static CTVM_INLINE ctvm_vf ctvm_vbitor(ctvm_vf a, ctvm_vf b)
{
    return _mm512_castsi512_ps(_mm512_or_si512(_mm512_castps_si512(a), _mm512_castps_si512(b)));
}
/* p * 2^(n>>1) * 2^(n - (n>>1)) for an integer n in [-252, 254]: both
 * scales built in the exponent bits, so the scale never overflows and a
 * result in the denormal range rounds once (p in [1/2, 2]) */
static CTVM_INLINE ctvm_vf ctvm_vldexp(ctvm_vf p, ctvm_vf n)
{
    __m512i k = _mm512_cvttps_epi32(n), k1 = _mm512_srai_epi32(k, 1), bias = _mm512_set1_epi32(127);
    p = _mm512_mul_ps(p, _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_add_epi32(k1, bias), 23)));
    return _mm512_mul_ps(p, _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_add_epi32(_mm512_sub_epi32(k, k1), bias), 23)));
}
/* the exponent field of a minus 127: floor(log2 |a|) for normal a */
static CTVM_INLINE ctvm_vf ctvm_vgetexp(ctvm_vf a)
{
    __m512i e = _mm512_and_si512(_mm512_srli_epi32(_mm512_castps_si512(a), 23), _mm512_set1_epi32(255));
    return _mm512_cvtepi32_ps(_mm512_sub_epi32(e, _mm512_set1_epi32(127)));
}
/* |a| with the exponent field 127: in [1, 2) for normal a */
static CTVM_INLINE ctvm_vf ctvm_vgetmant(ctvm_vf a)
{
    __m512i m = _mm512_and_si512(_mm512_castps_si512(a), _mm512_set1_epi32(0x007fffff));
    return _mm512_castsi512_ps(_mm512_or_si512(m, _mm512_set1_epi32(0x3f800000)));
}

#if defined(__clang__)
#pragma clang diagnostic pop
#endif

#endif /* ISA */
#endif
