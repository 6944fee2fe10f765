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
/* the first n lanes (0 < n <= CTVM_VL) of a vector: a row's tail (lp_vectorize) */
static CTVM_INLINE ctvm_vf ctvm_vload_n(const float *p, int n)
{
    float t[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    for (int i = 0; i < n; i++)
        t[i] = p[i];
    return _mm_loadu_ps(t);
}
static CTVM_INLINE void ctvm_vstore_n(float *p, ctvm_vf v, int n)
{
    float t[4];
    _mm_storeu_ps(t, v);
    for (int i = 0; i < n; i++)
        p[i] = t[i];
}
static CTVM_INLINE ctvm_vm ctvm_vmask_n(int n) { return _mm_castsi128_ps(_mm_cmpgt_epi32(_mm_set1_epi32(n), _mm_setr_epi32(0, 1, 2, 3))); }
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

/* Min of the lanes; unspecified which lane wins if one is NaN. */
static CTVM_INLINE float ctvm_vhmin(ctvm_vf v)
{
    __m128 s = _mm_min_ps(v, _mm_movehl_ps(v, v));
    s = _mm_min_ss(s, _mm_shuffle_ps(s, s, 1));
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

/* ---- typed vectors: integers, float64, conversions, dot products ----
 * Every type has CTVM_VL (4) lanes except ctvm_vq (16 bytes); narrow lanes
 * sit in the low bits of an __m128i, float64 and 64-bit lanes in two
 * registers. Integer arithmetic wraps. float16 conversions use F16C when
 * the compiler is told the CPU has it (-mf16c, -march=native), exact
 * integer code otherwise. See docs/ARCHITECTURE.md "Vector API". */
#define CTVM_HAS_DOT_U8I8 0
#define CTVM_HAS_DOT_I8I8 0

typedef __m128i ctvm_vi; /* 4 x 32-bit integer (int32, uint32) */
typedef __m128i ctvm_vh; /* 4 x 16-bit in the low 64 bits (int16, uint16, float16/bfloat16 bits) */
typedef __m128i ctvm_vb; /* 4 x 8-bit in the low 32 bits (int8, uint8, bool) */
typedef struct {
    __m128d lo, hi; /* lanes 0-1, 2-3 */
} ctvm_vd;
typedef struct {
    __m128i lo, hi; /* lanes 0-1, 2-3 */
} ctvm_vl;
typedef __m128i ctvm_vq; /* 16 bytes */
static CTVM_INLINE ctvm_vi ctvm_vload_i32(const int32_t *p) { return _mm_loadu_si128((const __m128i *)p); }
static CTVM_INLINE void ctvm_vstore_i32(int32_t *p, ctvm_vi v) { _mm_storeu_si128((__m128i *)p, v); }
static CTVM_INLINE ctvm_vh ctvm_vload_16(const void *p) { return _mm_loadl_epi64((const __m128i *)p); }
static CTVM_INLINE void ctvm_vstore_16(void *p, ctvm_vh v) { _mm_storel_epi64((__m128i *)p, v); }
static CTVM_INLINE ctvm_vb ctvm_vload_8(const void *p)
{
    int t;
    __builtin_memcpy(&t, p, 4);
    return _mm_cvtsi32_si128(t);
}
static CTVM_INLINE void ctvm_vstore_8(void *p, ctvm_vb v)
{
    int t = _mm_cvtsi128_si32(v);
    __builtin_memcpy(p, &t, 4);
}
static CTVM_INLINE ctvm_vd ctvm_vload_f64(const double *p)
{
    ctvm_vd r;
    r.lo = _mm_loadu_pd(p);
    r.hi = _mm_loadu_pd(p + 2);
    return r;
}
static CTVM_INLINE void ctvm_vstore_f64(double *p, ctvm_vd v)
{
    _mm_storeu_pd(p, v.lo);
    _mm_storeu_pd(p + 2, v.hi);
}
static CTVM_INLINE ctvm_vl ctvm_vload_64(const void *p)
{
    ctvm_vl r;
    r.lo = _mm_loadu_si128((const __m128i *)p);
    r.hi = _mm_loadu_si128((const __m128i *)p + 1);
    return r;
}
static CTVM_INLINE void ctvm_vstore_64(void *p, ctvm_vl v)
{
    _mm_storeu_si128((__m128i *)p, v.lo);
    _mm_storeu_si128((__m128i *)p + 1, v.hi);
}
static CTVM_INLINE ctvm_vq ctvm_vload_q(const void *p) { return _mm_loadu_si128((const __m128i *)p); }
static CTVM_INLINE ctvm_vi ctvm_vset1_i32(int32_t x) { return _mm_set1_epi32(x); }
/* a register tile's epilogue constants (lower/lp_tile_consts.c): plain
   broadcasts here (the late form is measured on AVX2 and AVX-512 only) */
static CTVM_INLINE ctvm_vi ctvm_vset1_i32_late(int32_t x) { return _mm_set1_epi32(x); }
static CTVM_INLINE ctvm_vf ctvm_vset1_late(float x) { return _mm_set1_ps(x); }
static CTVM_INLINE ctvm_vh ctvm_vset1_16(int16_t x) { return _mm_set1_epi16(x); }
static CTVM_INLINE ctvm_vb ctvm_vset1_8(int8_t x) { return _mm_set1_epi8(x); }
static CTVM_INLINE ctvm_vd ctvm_vset1_f64(double x)
{
    ctvm_vd r;
    r.lo = r.hi = _mm_set1_pd(x);
    return r;
}
static CTVM_INLINE ctvm_vl ctvm_vset1_64(int64_t x)
{
    ctvm_vl r;
    r.lo = r.hi = _mm_set1_epi64x(x);
    return r;
}
static CTVM_INLINE ctvm_vq ctvm_vset1_q(int8_t x) { return _mm_set1_epi8(x); }
/* the 4 bytes at p in every 32-bit group (the input side of a dot product) */
static CTVM_INLINE ctvm_vq ctvm_vbcast4_q(const void *p)
{
    int32_t t;
    __builtin_memcpy(&t, p, 4);
    return _mm_set1_epi32(t);
}
/* read where it stands (lower/lp_fresh_bcast.c): the plain form here */
static CTVM_INLINE ctvm_vq ctvm_vbcast4_q_late(const void *p) { return ctvm_vbcast4_q(p); }
static CTVM_INLINE ctvm_vi ctvm_vzero_i32(void) { return _mm_setzero_si128(); }

/* int32 arithmetic, wrapping */
#define CTVM_VSSE4_ONES _mm_set1_epi32(-1)
static CTVM_INLINE ctvm_vi ctvm_vadd_i32(ctvm_vi a, ctvm_vi b) { return _mm_add_epi32(a, b); }
static CTVM_INLINE ctvm_vi ctvm_vsub_i32(ctvm_vi a, ctvm_vi b) { return _mm_sub_epi32(a, b); }
static CTVM_INLINE ctvm_vi ctvm_vmul_i32(ctvm_vi a, ctvm_vi b) { return _mm_mullo_epi32(a, b); }
static CTVM_INLINE ctvm_vi ctvm_vmin_i32(ctvm_vi a, ctvm_vi b) { return _mm_min_epi32(a, b); }
static CTVM_INLINE ctvm_vi ctvm_vmax_i32(ctvm_vi a, ctvm_vi b) { return _mm_max_epi32(a, b); }
static CTVM_INLINE ctvm_vi ctvm_vmin_u32(ctvm_vi a, ctvm_vi b) { return _mm_min_epu32(a, b); }
static CTVM_INLINE ctvm_vi ctvm_vmax_u32(ctvm_vi a, ctvm_vi b) { return _mm_max_epu32(a, b); }
static CTVM_INLINE ctvm_vi ctvm_vand_i32(ctvm_vi a, ctvm_vi b) { return _mm_and_si128(a, b); }
static CTVM_INLINE ctvm_vi ctvm_vor_i32(ctvm_vi a, ctvm_vi b) { return _mm_or_si128(a, b); }
static CTVM_INLINE ctvm_vi ctvm_vxor_i32(ctvm_vi a, ctvm_vi b) { return _mm_xor_si128(a, b); }
static CTVM_INLINE ctvm_vi ctvm_vnot_i32(ctvm_vi a) { return _mm_xor_si128(a, CTVM_VSSE4_ONES); }
static CTVM_INLINE ctvm_vi ctvm_vneg_i32(ctvm_vi a) { return _mm_sub_epi32(_mm_setzero_si128(), a); }
static CTVM_INLINE ctvm_vi ctvm_vabs_i32(ctvm_vi a) { return _mm_abs_epi32(a); } /* INT_MIN stays INT_MIN */
static CTVM_INLINE ctvm_vi ctvm_vshl_i32(ctvm_vi a, int n) { return _mm_sll_epi32(a, _mm_cvtsi32_si128(n)); }
static CTVM_INLINE ctvm_vi ctvm_vshr_i32(ctvm_vi a, int n) { return _mm_sra_epi32(a, _mm_cvtsi32_si128(n)); }
static CTVM_INLINE ctvm_vi ctvm_vshr_u32(ctvm_vi a, int n) { return _mm_srl_epi32(a, _mm_cvtsi32_si128(n)); }

/* compares -> ctvm_vm (all-ones lanes); unsigned ones flip the sign bits */
#define CTVM_VSSE4_M(x) _mm_castsi128_ps(x)
#define CTVM_VSSE4_FLIP(x) _mm_xor_si128(x, _mm_set1_epi32(-2147483647 - 1))
static CTVM_INLINE ctvm_vm ctvm_vlt_i32(ctvm_vi a, ctvm_vi b) { return CTVM_VSSE4_M(_mm_cmplt_epi32(a, b)); }
static CTVM_INLINE ctvm_vm ctvm_vgt_i32(ctvm_vi a, ctvm_vi b) { return CTVM_VSSE4_M(_mm_cmpgt_epi32(a, b)); }
static CTVM_INLINE ctvm_vm ctvm_veq_i32(ctvm_vi a, ctvm_vi b) { return CTVM_VSSE4_M(_mm_cmpeq_epi32(a, b)); }
static CTVM_INLINE ctvm_vm ctvm_vle_i32(ctvm_vi a, ctvm_vi b) { return CTVM_VSSE4_M(ctvm_vnot_i32(_mm_cmpgt_epi32(a, b))); }
static CTVM_INLINE ctvm_vm ctvm_vge_i32(ctvm_vi a, ctvm_vi b) { return CTVM_VSSE4_M(ctvm_vnot_i32(_mm_cmplt_epi32(a, b))); }
static CTVM_INLINE ctvm_vm ctvm_vne_i32(ctvm_vi a, ctvm_vi b) { return CTVM_VSSE4_M(ctvm_vnot_i32(_mm_cmpeq_epi32(a, b))); }
static CTVM_INLINE ctvm_vm ctvm_vlt_u32(ctvm_vi a, ctvm_vi b) { return ctvm_vlt_i32(CTVM_VSSE4_FLIP(a), CTVM_VSSE4_FLIP(b)); }
static CTVM_INLINE ctvm_vm ctvm_vle_u32(ctvm_vi a, ctvm_vi b) { return ctvm_vle_i32(CTVM_VSSE4_FLIP(a), CTVM_VSSE4_FLIP(b)); }
static CTVM_INLINE ctvm_vm ctvm_vgt_u32(ctvm_vi a, ctvm_vi b) { return ctvm_vgt_i32(CTVM_VSSE4_FLIP(a), CTVM_VSSE4_FLIP(b)); }
static CTVM_INLINE ctvm_vm ctvm_vge_u32(ctvm_vi a, ctvm_vi b) { return ctvm_vge_i32(CTVM_VSSE4_FLIP(a), CTVM_VSSE4_FLIP(b)); }
static CTVM_INLINE ctvm_vm ctvm_vgt(ctvm_vf a, ctvm_vf b) { return _mm_cmpgt_ps(a, b); }
static CTVM_INLINE ctvm_vm ctvm_vne(ctvm_vf a, ctvm_vf b) { return _mm_cmpneq_ps(a, b); } /* true with NaN */
static CTVM_INLINE ctvm_vm ctvm_vmor(ctvm_vm a, ctvm_vm b) { return _mm_or_ps(a, b); }
static CTVM_INLINE ctvm_vm ctvm_vmxor(ctvm_vm a, ctvm_vm b) { return _mm_xor_ps(a, b); }
static CTVM_INLINE ctvm_vm ctvm_vmnot(ctvm_vm a) { return _mm_xor_ps(a, CTVM_VSSE4_M(CTVM_VSSE4_ONES)); }

/* selects: the 32-bit lane mask widened or narrowed to the lane width */
static CTVM_INLINE ctvm_vi ctvm_vselect_i32(ctvm_vm m, ctvm_vi a, ctvm_vi b)
{
    return _mm_blendv_epi8(b, a, _mm_castps_si128(m));
}
static CTVM_INLINE ctvm_vh ctvm_vselect_16(ctvm_vm m, ctvm_vh a, ctvm_vh b)
{
    __m128i m16 = _mm_packs_epi32(_mm_castps_si128(m), _mm_castps_si128(m));
    return _mm_blendv_epi8(b, a, m16);
}
static CTVM_INLINE ctvm_vb ctvm_vselect_8(ctvm_vm m, ctvm_vb a, ctvm_vb b)
{
    __m128i m16 = _mm_packs_epi32(_mm_castps_si128(m), _mm_castps_si128(m));
    return _mm_blendv_epi8(b, a, _mm_packs_epi16(m16, m16));
}
static CTVM_INLINE ctvm_vl ctvm_vselect_64(ctvm_vm m, ctvm_vl a, ctvm_vl b)
{
    __m128i mi = _mm_castps_si128(m);
    ctvm_vl r;
    r.lo = _mm_blendv_epi8(b.lo, a.lo, _mm_cvtepi32_epi64(mi));
    r.hi = _mm_blendv_epi8(b.hi, a.hi, _mm_cvtepi32_epi64(_mm_srli_si128(mi, 8)));
    return r;
}
static CTVM_INLINE ctvm_vd ctvm_vselect_f64(ctvm_vm m, ctvm_vd a, ctvm_vd b)
{
    __m128i mi = _mm_castps_si128(m);
    ctvm_vd r;
    r.lo = _mm_blendv_pd(b.lo, a.lo, _mm_castsi128_pd(_mm_cvtepi32_epi64(mi)));
    r.hi = _mm_blendv_pd(b.hi, a.hi, _mm_castsi128_pd(_mm_cvtepi32_epi64(_mm_srli_si128(mi, 8))));
    return r;
}
static CTVM_INLINE ctvm_vm ctvm_vmask_of_b(ctvm_vb b)
{
    __m128i zero = _mm_cvtepi8_epi32(_mm_cmpeq_epi8(b, _mm_setzero_si128()));
    return CTVM_VSSE4_M(ctvm_vnot_i32(zero));
}
static CTVM_INLINE ctvm_vb ctvm_vb_of_mask(ctvm_vm m)
{
    __m128i m16 = _mm_packs_epi32(_mm_castps_si128(m), _mm_castps_si128(m));
    return _mm_and_si128(_mm_packs_epi16(m16, m16), _mm_set1_epi8(1));
}

/* float64 (no fma instruction in SSE4.1: an unfused multiply and add) */
static CTVM_INLINE ctvm_vd ctvm_vadd_f64(ctvm_vd a, ctvm_vd b)
{
    ctvm_vd r;
    r.lo = _mm_add_pd(a.lo, b.lo);
    r.hi = _mm_add_pd(a.hi, b.hi);
    return r;
}
static CTVM_INLINE ctvm_vd ctvm_vsub_f64(ctvm_vd a, ctvm_vd b)
{
    ctvm_vd r;
    r.lo = _mm_sub_pd(a.lo, b.lo);
    r.hi = _mm_sub_pd(a.hi, b.hi);
    return r;
}
static CTVM_INLINE ctvm_vd ctvm_vmul_f64(ctvm_vd a, ctvm_vd b)
{
    ctvm_vd r;
    r.lo = _mm_mul_pd(a.lo, b.lo);
    r.hi = _mm_mul_pd(a.hi, b.hi);
    return r;
}
static CTVM_INLINE ctvm_vd ctvm_vdiv_f64(ctvm_vd a, ctvm_vd b)
{
    ctvm_vd r;
    r.lo = _mm_div_pd(a.lo, b.lo);
    r.hi = _mm_div_pd(a.hi, b.hi);
    return r;
}
/* second operand when unordered: a < b ? a : b */
static CTVM_INLINE ctvm_vd ctvm_vmin_f64(ctvm_vd a, ctvm_vd b)
{
    ctvm_vd r;
    r.lo = _mm_min_pd(a.lo, b.lo);
    r.hi = _mm_min_pd(a.hi, b.hi);
    return r;
}
static CTVM_INLINE ctvm_vd ctvm_vmax_f64(ctvm_vd a, ctvm_vd b)
{
    ctvm_vd r;
    r.lo = _mm_max_pd(a.lo, b.lo);
    r.hi = _mm_max_pd(a.hi, b.hi);
    return r;
}
static CTVM_INLINE ctvm_vd ctvm_vfma_f64(ctvm_vd a, ctvm_vd b, ctvm_vd c)
{
    return ctvm_vadd_f64(ctvm_vmul_f64(a, b), c);
}
static CTVM_INLINE ctvm_vd ctvm_vsqrt_f64(ctvm_vd a)
{
    a.lo = _mm_sqrt_pd(a.lo);
    a.hi = _mm_sqrt_pd(a.hi);
    return a;
}
static CTVM_INLINE ctvm_vd ctvm_vneg_f64(ctvm_vd a)
{
    a.lo = _mm_xor_pd(a.lo, _mm_set1_pd(-0.0));
    a.hi = _mm_xor_pd(a.hi, _mm_set1_pd(-0.0));
    return a;
}
static CTVM_INLINE ctvm_vd ctvm_vabs_f64(ctvm_vd a)
{
    a.lo = _mm_andnot_pd(_mm_set1_pd(-0.0), a.lo);
    a.hi = _mm_andnot_pd(_mm_set1_pd(-0.0), a.hi);
    return a;
}
/* two 2-lane 64-bit masks -> one 4-lane 32-bit mask */
static CTVM_INLINE ctvm_vm ctvm_vsse4_mask_of_pd(__m128d lo, __m128d hi)
{
    return _mm_shuffle_ps(_mm_castpd_ps(lo), _mm_castpd_ps(hi), _MM_SHUFFLE(2, 0, 2, 0));
}
static CTVM_INLINE ctvm_vm ctvm_vlt_f64(ctvm_vd a, ctvm_vd b)
{
    return ctvm_vsse4_mask_of_pd(_mm_cmplt_pd(a.lo, b.lo), _mm_cmplt_pd(a.hi, b.hi));
}
static CTVM_INLINE ctvm_vm ctvm_vle_f64(ctvm_vd a, ctvm_vd b)
{
    return ctvm_vsse4_mask_of_pd(_mm_cmple_pd(a.lo, b.lo), _mm_cmple_pd(a.hi, b.hi));
}
static CTVM_INLINE ctvm_vm ctvm_vgt_f64(ctvm_vd a, ctvm_vd b)
{
    return ctvm_vsse4_mask_of_pd(_mm_cmpgt_pd(a.lo, b.lo), _mm_cmpgt_pd(a.hi, b.hi));
}
static CTVM_INLINE ctvm_vm ctvm_vge_f64(ctvm_vd a, ctvm_vd b)
{
    return ctvm_vsse4_mask_of_pd(_mm_cmpge_pd(a.lo, b.lo), _mm_cmpge_pd(a.hi, b.hi));
}
static CTVM_INLINE ctvm_vm ctvm_veq_f64(ctvm_vd a, ctvm_vd b)
{
    return ctvm_vsse4_mask_of_pd(_mm_cmpeq_pd(a.lo, b.lo), _mm_cmpeq_pd(a.hi, b.hi));
}
/* unordered or not equal: true with NaN */
static CTVM_INLINE ctvm_vm ctvm_vne_f64(ctvm_vd a, ctvm_vd b)
{
    return ctvm_vsse4_mask_of_pd(_mm_cmpneq_pd(a.lo, b.lo), _mm_cmpneq_pd(a.hi, b.hi));
}

/* 64-bit integers, wrapping */
static CTVM_INLINE ctvm_vl ctvm_vadd_64(ctvm_vl a, ctvm_vl b)
{
    a.lo = _mm_add_epi64(a.lo, b.lo);
    a.hi = _mm_add_epi64(a.hi, b.hi);
    return a;
}
static CTVM_INLINE ctvm_vl ctvm_vsub_64(ctvm_vl a, ctvm_vl b)
{
    a.lo = _mm_sub_epi64(a.lo, b.lo);
    a.hi = _mm_sub_epi64(a.hi, b.hi);
    return a;
}
static CTVM_INLINE ctvm_vl ctvm_vand_64(ctvm_vl a, ctvm_vl b)
{
    a.lo = _mm_and_si128(a.lo, b.lo);
    a.hi = _mm_and_si128(a.hi, b.hi);
    return a;
}
static CTVM_INLINE ctvm_vl ctvm_vor_64(ctvm_vl a, ctvm_vl b)
{
    a.lo = _mm_or_si128(a.lo, b.lo);
    a.hi = _mm_or_si128(a.hi, b.hi);
    return a;
}
static CTVM_INLINE ctvm_vl ctvm_vxor_64(ctvm_vl a, ctvm_vl b)
{
    a.lo = _mm_xor_si128(a.lo, b.lo);
    a.hi = _mm_xor_si128(a.hi, b.hi);
    return a;
}

/* integer widening and narrowing */
static CTVM_INLINE ctvm_vi ctvm_vcvt_i8_i32(ctvm_vb b) { return _mm_cvtepi8_epi32(b); }
static CTVM_INLINE ctvm_vi ctvm_vcvt_u8_i32(ctvm_vb b) { return _mm_cvtepu8_epi32(b); }
static CTVM_INLINE ctvm_vi ctvm_vcvt_i16_i32(ctvm_vh h) { return _mm_cvtepi16_epi32(h); }
static CTVM_INLINE ctvm_vi ctvm_vcvt_u16_i32(ctvm_vh h) { return _mm_cvtepu16_epi32(h); }
static CTVM_INLINE ctvm_vb ctvm_vcvt_i32_8(ctvm_vi a)
{
    return _mm_shuffle_epi8(a, _mm_setr_epi8(0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1));
}
static CTVM_INLINE ctvm_vh ctvm_vcvt_i32_16(ctvm_vi a)
{
    return _mm_shuffle_epi8(a, _mm_setr_epi8(0, 1, 4, 5, 8, 9, 12, 13, -1, -1, -1, -1, -1, -1, -1, -1));
}
static CTVM_INLINE ctvm_vb ctvm_vcvt_i32_u8_sat(ctvm_vi a)
{
    __m128i s = _mm_packs_epi32(a, a);
    return _mm_packus_epi16(s, s);
}
static CTVM_INLINE ctvm_vb ctvm_vcvt_i32_i8_sat(ctvm_vi a)
{
    __m128i s = _mm_packs_epi32(a, a);
    return _mm_packs_epi16(s, s);
}
static CTVM_INLINE ctvm_vh ctvm_vcvt_i32_u16_sat(ctvm_vi a) { return _mm_packus_epi32(a, a); }
static CTVM_INLINE ctvm_vh ctvm_vcvt_i32_i16_sat(ctvm_vi a) { return _mm_packs_epi32(a, a); }
static CTVM_INLINE ctvm_vl ctvm_vcvt_i32_64(ctvm_vi a)
{
    ctvm_vl r;
    r.lo = _mm_cvtepi32_epi64(a);
    r.hi = _mm_cvtepi32_epi64(_mm_srli_si128(a, 8));
    return r;
}
static CTVM_INLINE ctvm_vl ctvm_vcvt_u32_64(ctvm_vi a)
{
    ctvm_vl r;
    r.lo = _mm_cvtepu32_epi64(a);
    r.hi = _mm_cvtepu32_epi64(_mm_srli_si128(a, 8));
    return r;
}
static CTVM_INLINE ctvm_vi ctvm_vcvt_64_i32(ctvm_vl a)
{
    return _mm_castps_si128(_mm_shuffle_ps(_mm_castsi128_ps(a.lo), _mm_castsi128_ps(a.hi), _MM_SHUFFLE(2, 0, 2, 0)));
}

/* integer <-> float32 and rounding */
static CTVM_INLINE ctvm_vf ctvm_vcvt_i32_f32(ctvm_vi a) { return _mm_cvtepi32_ps(a); }
/* (float)uint32: the high and low halves are exact floats, the sum rounds once */
static CTVM_INLINE ctvm_vf ctvm_vcvt_u32_f32(ctvm_vi a)
{
    __m128 hi = _mm_cvtepi32_ps(_mm_srli_epi32(a, 16));
    __m128 lo = _mm_cvtepi32_ps(_mm_and_si128(a, _mm_set1_epi32(0xffff)));
    return _mm_add_ps(_mm_mul_ps(hi, _mm_set1_ps(65536.0f)), lo);
}
/* Toward zero. A lane out of int32 range (cvttps gives INT_MIN) sends the
 * vector through the scalar code's own conversion, (int32_t)(int64_t)x, so
 * it wraps exactly as the generated scalar code does. */
static int32_t ctvm_vsse4_f32_i32_slow(float x) { return (int32_t)(int64_t)x; }
static CTVM_INLINE ctvm_vi ctvm_vcvt_f32_i32(ctvm_vf x)
{
    __m128i r = _mm_cvttps_epi32(x);
    if (_mm_movemask_epi8(_mm_cmpeq_epi32(r, _mm_set1_epi32(-2147483647 - 1)))) {
        float t[4];
        int32_t o[4];
        int l;
        _mm_storeu_ps(t, x);
        for (l = 0; l < 4; l++)
            o[l] = ctvm_vsse4_f32_i32_slow(t[l]);
        r = _mm_loadu_si128((const __m128i *)o);
    }
    return r;
}
/* to the nearest int32, ties to even (QuantizeLinear's rounding), saturating:
 * x >= 2^31 gives INT32_MAX, x < -2^31 INT32_MIN, NaN 0 (as AArch64's
 * FCVTNS).
 * cvtps2dq rounds by MXCSR: to nearest even in the default mode, which the
 * generated code assumes throughout; it gives INT_MIN out of range and for
 * NaN, fixed up here. */
static CTVM_INLINE ctvm_vi ctvm_vcvt_f32_i32_rne(ctvm_vf x)
{
    __m128i r = _mm_cvtps_epi32(x);
    r = _mm_xor_si128(r, _mm_castps_si128(_mm_cmpge_ps(x, _mm_set1_ps(2147483648.0f)))); /* INT_MIN -> INT_MAX */
    return _mm_and_si128(r, _mm_castps_si128(_mm_cmpord_ps(x, x)));                       /* NaN -> 0 */
}
/* x rounded to nearest even, for x not NaN and within int32 (a clamped
   value: the requantization; else unspecified) - no fixups */
static CTVM_INLINE ctvm_vi ctvm_vcvt_f32_i32_rne_in(ctvm_vf x) { return _mm_cvtps_epi32(x); }
static CTVM_INLINE ctvm_vf ctvm_vfloor(ctvm_vf x) { return _mm_round_ps(x, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC); }
static CTVM_INLINE ctvm_vf ctvm_vceil(ctvm_vf x) { return _mm_round_ps(x, _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC); }
static CTVM_INLINE ctvm_vf ctvm_vtrunc(ctvm_vf x) { return _mm_round_ps(x, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC); }
static CTVM_INLINE ctvm_vd ctvm_vcvt_f32_f64(ctvm_vf x)
{
    ctvm_vd r;
    r.lo = _mm_cvtps_pd(x);
    r.hi = _mm_cvtps_pd(_mm_movehl_ps(x, x));
    return r;
}
static CTVM_INLINE ctvm_vf ctvm_vcvt_f64_f32(ctvm_vd x) { return _mm_movelh_ps(_mm_cvtpd_ps(x.lo), _mm_cvtpd_ps(x.hi)); }

/* float16 / bfloat16 bits <-> float32, bit for bit as ctvm_types.h (round to
 * nearest even; a NaN becomes the quiet NaN 0x7fc00000 / 0x7e00 with the
 * input's sign, where F16C would keep payload bits) */
static CTVM_INLINE __m128i ctvm_vsse4_nan_canon(__m128 x, int32_t qnan)
{
    __m128i sign = _mm_and_si128(_mm_castps_si128(x), _mm_set1_epi32(-2147483647 - 1));
    return _mm_blendv_epi8(_mm_castps_si128(x), _mm_or_si128(sign, _mm_set1_epi32(qnan)),
                           _mm_castps_si128(_mm_cmpunord_ps(x, x)));
}
#if defined(__F16C__)
#include <immintrin.h>
static CTVM_INLINE ctvm_vf ctvm_vcvt_f16_f32(ctvm_vh h)
{
    return _mm_castsi128_ps(ctvm_vsse4_nan_canon(_mm_cvtph_ps(h), 0x7fc00000));
}
static CTVM_INLINE ctvm_vh ctvm_vcvt_f32_f16(ctvm_vf x)
{
    return _mm_cvtps_ph(_mm_castsi128_ps(ctvm_vsse4_nan_canon(x, 0x7fc00000)), _MM_FROUND_TO_NEAREST_INT);
}
#else
static CTVM_INLINE ctvm_vf ctvm_vcvt_f16_f32(ctvm_vh h)
{
    __m128i h32 = _mm_cvtepu16_epi32(h), em = _mm_and_si128(h32, _mm_set1_epi32(0x7fff));
    __m128i sign = _mm_slli_epi32(_mm_xor_si128(h32, em), 16);
    __m128i r = _mm_add_epi32(_mm_slli_epi32(em, 13), _mm_set1_epi32(0x38000000)); /* normal */
    __m128 sub = _mm_mul_ps(_mm_cvtepi32_ps(em), _mm_set1_ps(5.9604644775390625e-8f)); /* m * 2^-24, exact */
    r = _mm_blendv_epi8(r, _mm_castps_si128(sub), _mm_cmplt_epi32(em, _mm_set1_epi32(0x400)));
    r = _mm_blendv_epi8(r, _mm_set1_epi32(0x7f800000), _mm_cmpgt_epi32(em, _mm_set1_epi32(0x7bff)));
    r = _mm_blendv_epi8(r, _mm_set1_epi32(0x7fc00000), _mm_cmpgt_epi32(em, _mm_set1_epi32(0x7c00)));
    return _mm_castsi128_ps(_mm_or_si128(r, sign));
}
static CTVM_INLINE ctvm_vh ctvm_vcvt_f32_f16(ctvm_vf x)
{
    __m128i b = _mm_castps_si128(x), a = _mm_and_si128(b, _mm_set1_epi32(0x7fffffff));
    __m128i sign = _mm_and_si128(_mm_srli_epi32(b, 16), _mm_set1_epi32(0x8000));
    __m128i t = _mm_sub_epi32(a, _mm_set1_epi32(0x38000000)), r;
    /* subnormal or zero result: round(|x| * 2^24) by adding 2^23 */
    __m128 s = _mm_add_ps(_mm_mul_ps(_mm_castsi128_ps(a), _mm_set1_ps(16777216.0f)), _mm_set1_ps(8388608.0f));
    r = _mm_sub_epi32(_mm_castps_si128(s), _mm_set1_epi32(0x4b000000));
    /* normal: drop 13 mantissa bits, to nearest even */
    t = _mm_srli_epi32(_mm_add_epi32(_mm_add_epi32(t, _mm_set1_epi32(0xfff)),
                                     _mm_and_si128(_mm_srli_epi32(t, 13), _mm_set1_epi32(1))), 13);
    r = _mm_blendv_epi8(r, t, _mm_cmpgt_epi32(a, _mm_set1_epi32(0x387fffff)));
    r = _mm_blendv_epi8(r, _mm_set1_epi32(0x7c00), _mm_cmpgt_epi32(a, _mm_set1_epi32(0x477fefff))); /* inf */
    r = _mm_blendv_epi8(r, _mm_set1_epi32(0x7e00), _mm_cmpgt_epi32(a, _mm_set1_epi32(0x7f800000))); /* NaN */
    r = _mm_or_si128(r, sign);
    return _mm_packus_epi32(r, r);
}
#endif
static CTVM_INLINE ctvm_vf ctvm_vcvt_bf16_f32(ctvm_vh h) { return _mm_castsi128_ps(_mm_slli_epi32(_mm_cvtepu16_epi32(h), 16)); }
static CTVM_INLINE ctvm_vh ctvm_vcvt_f32_bf16(ctvm_vf x)
{
    __m128i b = _mm_castps_si128(x), hi = _mm_srli_epi32(b, 16);
    __m128i r = _mm_srli_epi32(_mm_add_epi32(_mm_add_epi32(b, _mm_set1_epi32(0x7fff)),
                                             _mm_and_si128(hi, _mm_set1_epi32(1))), 16);
    __m128i nan = _mm_cmpgt_epi32(_mm_and_si128(b, _mm_set1_epi32(0x7fffffff)), _mm_set1_epi32(0x7f800000));
    r = _mm_blendv_epi8(r, _mm_or_si128(hi, _mm_set1_epi32(0x40)), nan); /* NaN stays a quiet NaN */
    return _mm_packus_epi32(r, r);
}

/* dot products: bytes 0,2 and 1,3 of each lane widened to 16 bits, then
 * pmaddwd (exact: no product pair reaches the int16 x int16 overflow) */
static CTVM_INLINE ctvm_vi ctvm_vdot_u8i8(ctvm_vi acc, ctvm_vq a, ctvm_vq b)
{
    __m128i ae = _mm_and_si128(a, _mm_set1_epi16(0xff)), ao = _mm_srli_epi16(a, 8);
    __m128i be = _mm_srai_epi16(_mm_slli_epi16(b, 8), 8), bo = _mm_srai_epi16(b, 8);
    return _mm_add_epi32(acc, _mm_add_epi32(_mm_madd_epi16(ae, be), _mm_madd_epi16(ao, bo)));
}
static CTVM_INLINE ctvm_vi ctvm_vdot_i8i8(ctvm_vi acc, ctvm_vq a, ctvm_vq b)
{
    __m128i ae = _mm_srai_epi16(_mm_slli_epi16(a, 8), 8), ao = _mm_srai_epi16(a, 8);
    __m128i be = _mm_srai_epi16(_mm_slli_epi16(b, 8), 8), bo = _mm_srai_epi16(b, 8);
    return _mm_add_epi32(acc, _mm_add_epi32(_mm_madd_epi16(ae, be), _mm_madd_epi16(ao, bo)));
}
/* acc + a*b for a in [0, 32767], b in [-32768, 32767]: a's high half is 0,
   so pmaddwd's pair sum is the one product; wraps */
static CTVM_INLINE ctvm_vi ctvm_vmla16_i32(ctvm_vi acc, ctvm_vi a, ctvm_vi b) { return _mm_add_epi32(acc, _mm_madd_epi16(a, b)); }

/* bfloat16 dot product: ctvm_vq holds 2*CTVM_VL bfloat16 values (element
 * 2l in the low half of 32-bit group l, 2l+1 in the high half). Lane l:
 * acc[l] + a[2l+1]*b[2l+1], rounded, then + a[2l]*b[2l], rounded (each
 * product of two bfloat16 values is exact in float32, so this is two fused
 * multiply-adds, odd pair first: AVX512-BF16's vdpbf16ps, bit for bit on
 * normal numbers; it flushes denormal inputs and results to zero, which
 * the fallbacks do not). */
/* (SSE4.1 has no fused multiply-add; the products are exact, so a multiply
 * and an add round as the FMA does, except for products below FLT_MIN) */
#define CTVM_HAS_DOT_BF16 0
static CTVM_INLINE ctvm_vf ctvm_vdot_bf16(ctvm_vf acc, ctvm_vq a, ctvm_vq b)
{
    __m128i hi = _mm_set1_epi32((int32_t)0xffff0000u);
    acc = _mm_add_ps(_mm_mul_ps(_mm_castsi128_ps(_mm_and_si128(a, hi)), _mm_castsi128_ps(_mm_and_si128(b, hi))), acc);
    return _mm_add_ps(_mm_mul_ps(_mm_castsi128_ps(_mm_slli_epi32(a, 16)), _mm_castsi128_ps(_mm_slli_epi32(b, 16))), acc);
}

#if defined(__clang__)
#pragma clang diagnostic pop
#endif

#endif /* ISA */
#endif
