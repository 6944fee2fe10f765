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

/* target x86_64-avx512-bf16 is AVX-512F + VNNI + BF16 (every CPU with
   AVX512-BF16 has VNNI: Cooper Lake, Sapphire Rapids, Zen 4) */
#if defined(CTVM_EXT_AVX512BF16) && !defined(CTVM_EXT_AVX512VNNI)
#define CTVM_EXT_AVX512VNNI 1
#endif
#if defined(__AVX512F__) && (!defined(CTVM_EXT_AVX512VNNI) || defined(__AVX512VNNI__)) && \
    (!defined(CTVM_EXT_AVX512BF16) || defined(__AVX512BF16__))
#define CTVM_ISA_BY 0 /* the command line's flags */
#elif (defined(__x86_64__) || defined(__i386__)) && defined(__clang__)
#define CTVM_ISA_BY 2 /* #pragma clang attribute, after the intrinsics */
#elif (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__) && !defined(__clang__) && !defined(__INTEL_COMPILER)
#define CTVM_ISA_BY 1
#pragma GCC push_options
#if defined(CTVM_EXT_AVX512BF16) /* target x86_64-avx512-bf16 */
#pragma GCC target("avx512f,fma,avx512vnni,avx512bf16")
#elif defined(CTVM_EXT_AVX512VNNI) /* target x86_64-avx512-vnni */
#pragma GCC target("avx512f,fma,avx512vnni")
#else
#pragma GCC target("avx512f,fma")
#endif
#define CTVM_ISA_END _Pragma("GCC pop_options")
#endif

#if !defined(CTVM_ISA_BY) && !defined(__x86_64__) && !defined(__i386__)
#error "ctvm: generated for target x86_64-avx512: this compiler does not build x86 code (emit the file for this machine's --target)"
#elif !defined(CTVM_ISA_BY)
#error "ctvm: generated for target x86_64-avx512: compile with -mavx512f (or -march=native)"
#else /* the rest only with the ISA, so the #error is the one message */

#include <immintrin.h>

#if CTVM_ISA_BY == 2 && defined(CTVM_EXT_AVX512BF16)
#pragma clang attribute push(__attribute__((target("avx512f,fma,avx512vnni,avx512bf16"))), apply_to = function)
#define CTVM_ISA_END _Pragma("clang attribute pop")
#elif CTVM_ISA_BY == 2 && defined(CTVM_EXT_AVX512VNNI)
#pragma clang attribute push(__attribute__((target("avx512f,fma,avx512vnni"))), apply_to = function)
#define CTVM_ISA_END _Pragma("clang attribute pop")
#elif CTVM_ISA_BY == 2
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
/* the first n lanes (0 < n <= CTVM_VL) of a vector: a row's tail (lp_vectorize) */
static CTVM_INLINE ctvm_vf ctvm_vload_n(const float *p, int n) { return _mm512_maskz_loadu_ps((__mmask16)((1u << n) - 1u), p); }
static CTVM_INLINE void ctvm_vstore_n(float *p, ctvm_vf v, int n) { _mm512_mask_storeu_ps(p, (__mmask16)((1u << n) - 1u), v); }
static CTVM_INLINE ctvm_vm ctvm_vmask_n(int n) { return (__mmask16)((1u << n) - 1u); }
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

/* Min of the lanes; unspecified which lane wins if one is NaN. */
static CTVM_INLINE float ctvm_vhmin(ctvm_vf v)
{
    __m256 h = _mm256_min_ps(_mm512_castps512_ps256(v), ctvm_v512_hi(v));
    __m128 s = _mm_min_ps(_mm256_castps256_ps128(h), _mm256_extractf128_ps(h, 1));
    s = _mm_min_ps(s, _mm_movehl_ps(s, s));
    s = _mm_min_ss(s, _mm_shuffle_ps(s, s, 1));
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
/* p * 2^n for an integer n in [-252, 254], rounded once: vscalefps, one
 * instruction where the other ISAs build two scales in the exponent bits
 * (the same value: p * 2^(n>>1) is exact for p in [1, 2), and for the p in
 * [1/2, 1) of ctvm_vexp whose n >= -150) */
static CTVM_INLINE ctvm_vf ctvm_vldexp(ctvm_vf p, ctvm_vf n) { return _mm512_scalef_ps(p, n); }
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

/* ---- typed vectors: integers, float64, conversions, dot products ----
 * Every type has CTVM_VL (16) lanes except ctvm_vq (64 bytes): 16 x 32-bit
 * in an __m512i, 16 x 16-bit in an __m256i, 16 x 8-bit in an __m128i,
 * float64 and 64-bit lanes in two __m512d / __m512i. AVX-512F only (with
 * the AVX2 it implies for the narrow types); masks are __mmask16. Integer
 * arithmetic wraps. vdot_u8i8 is one vpdpbusd when the compiler is told
 * the CPU has AVX-512 VNNI (-mavx512vnni, -march=native) or the file was
 * emitted for x86_64-avx512-vnni (CTVM_EXT_AVX512VNNI: enabled above). See
 * docs/ARCHITECTURE.md "Vector API". */
#if defined(__AVX512VNNI__) || defined(CTVM_EXT_AVX512VNNI)
#define CTVM_HAS_DOT_U8I8 1
#else
#define CTVM_HAS_DOT_U8I8 0
#endif
#define CTVM_HAS_DOT_I8I8 0

typedef __m512i ctvm_vi; /* 16 x 32-bit integer (int32, uint32) */
typedef __m256i ctvm_vh; /* 16 x 16-bit (int16, uint16, float16/bfloat16 bits) */
typedef __m128i ctvm_vb; /* 16 x 8-bit (int8, uint8, bool) */
typedef struct {
    __m512d lo, hi; /* lanes 0-7, 8-15 */
} ctvm_vd;
typedef struct {
    __m512i lo, hi; /* lanes 0-7, 8-15 */
} ctvm_vl;
typedef __m512i ctvm_vq; /* 64 bytes */
static CTVM_INLINE ctvm_vi ctvm_vload_i32(const int32_t *p) { return _mm512_loadu_si512((const void *)p); }
static CTVM_INLINE void ctvm_vstore_i32(int32_t *p, ctvm_vi v) { _mm512_storeu_si512((void *)p, v); }
static CTVM_INLINE ctvm_vh ctvm_vload_16(const void *p) { return _mm256_loadu_si256((const __m256i *)p); }
static CTVM_INLINE void ctvm_vstore_16(void *p, ctvm_vh v) { _mm256_storeu_si256((__m256i *)p, v); }
static CTVM_INLINE ctvm_vb ctvm_vload_8(const void *p) { return _mm_loadu_si128((const __m128i *)p); }
static CTVM_INLINE void ctvm_vstore_8(void *p, ctvm_vb v) { _mm_storeu_si128((__m128i *)p, v); }
static CTVM_INLINE ctvm_vd ctvm_vload_f64(const double *p)
{
    ctvm_vd r;
    r.lo = _mm512_loadu_pd(p);
    r.hi = _mm512_loadu_pd(p + 8);
    return r;
}
static CTVM_INLINE void ctvm_vstore_f64(double *p, ctvm_vd v)
{
    _mm512_storeu_pd(p, v.lo);
    _mm512_storeu_pd(p + 8, v.hi);
}
static CTVM_INLINE ctvm_vl ctvm_vload_64(const void *p)
{
    ctvm_vl r;
    r.lo = _mm512_loadu_si512(p);
    r.hi = _mm512_loadu_si512((const void *)((const char *)p + 64));
    return r;
}
static CTVM_INLINE void ctvm_vstore_64(void *p, ctvm_vl v)
{
    _mm512_storeu_si512(p, v.lo);
    _mm512_storeu_si512((void *)((char *)p + 64), v.hi);
}
static CTVM_INLINE ctvm_vq ctvm_vload_q(const void *p) { return _mm512_loadu_si512(p); }
static CTVM_INLINE ctvm_vi ctvm_vset1_i32(int32_t x) { return _mm512_set1_epi32(x); }
/* a broadcast the compiler cannot hoist out of loops (the volatile asm runs
 * where it stands; its input is a general register or memory): a register
 * tile's epilogue constants (lower/lp_tile_consts.c), which gcc would
 * otherwise hold in vector registers across the tile's reduction */
#if defined(__GNUC__)
static CTVM_INLINE ctvm_vi ctvm_vset1_i32_late(int32_t x)
{
    __m512i r;
    __asm__ volatile("vpbroadcastd %1, %0" : "=v"(r) : "rm"(x));
    return r;
}
#else
static CTVM_INLINE ctvm_vi ctvm_vset1_i32_late(int32_t x) { return _mm512_set1_epi32(x); }
#endif
static CTVM_INLINE ctvm_vf ctvm_vset1_late(float x)
{
    union { float f; int32_t i; } u;
    u.f = x;
    return _mm512_castsi512_ps(ctvm_vset1_i32_late(u.i));
}
static CTVM_INLINE ctvm_vh ctvm_vset1_16(int16_t x) { return _mm256_set1_epi16(x); }
static CTVM_INLINE ctvm_vb ctvm_vset1_8(int8_t x) { return _mm_set1_epi8(x); }
static CTVM_INLINE ctvm_vd ctvm_vset1_f64(double x)
{
    ctvm_vd r;
    r.lo = r.hi = _mm512_set1_pd(x);
    return r;
}
static CTVM_INLINE ctvm_vl ctvm_vset1_64(int64_t x)
{
    ctvm_vl r;
    r.lo = r.hi = _mm512_set1_epi64(x);
    return r;
}
static CTVM_INLINE ctvm_vq ctvm_vset1_q(int8_t x) { return _mm512_set1_epi32((int32_t)((uint8_t)x * 0x01010101u)); }
/* the 4 bytes at p in every 32-bit group (the input side of a dot product) */
static CTVM_INLINE ctvm_vq ctvm_vbcast4_q(const void *p)
{
    int32_t t;
    __builtin_memcpy(&t, p, 4);
    return _mm512_set1_epi32(t);
}
/* the same, read where it stands (lower/lp_fresh_bcast.c): GNU C gets one
   vpbroadcastd from memory it cannot look through. Through the plain form
   gcc 12 carried the bytes a later step of a reduction reads again (a
   strided conv's overlapping columns) in general registers from step to
   step, spilling them and the weights: resnet18_qdq_u8's 7x7 stride-2
   conv1 0.98 -> 0.54 ms (Intel, 1 thread) */
#if defined(__GNUC__)
typedef int32_t ctvm_i32_alias __attribute__((may_alias));
static CTVM_INLINE ctvm_vq ctvm_vbcast4_q_late(const void *p)
{
    __m512i r;
    __asm__("vpbroadcastd %1, %0" : "=v"(r) : "m"(*(const ctvm_i32_alias *)p));
    return r;
}
#else
static CTVM_INLINE ctvm_vq ctvm_vbcast4_q_late(const void *p) { return ctvm_vbcast4_q(p); }
#endif
static CTVM_INLINE ctvm_vi ctvm_vzero_i32(void) { return _mm512_setzero_si512(); }

/* int32 arithmetic, wrapping */
static CTVM_INLINE ctvm_vi ctvm_vadd_i32(ctvm_vi a, ctvm_vi b) { return _mm512_add_epi32(a, b); }
static CTVM_INLINE ctvm_vi ctvm_vsub_i32(ctvm_vi a, ctvm_vi b) { return _mm512_sub_epi32(a, b); }
static CTVM_INLINE ctvm_vi ctvm_vmul_i32(ctvm_vi a, ctvm_vi b) { return _mm512_mullo_epi32(a, b); }
static CTVM_INLINE ctvm_vi ctvm_vmin_i32(ctvm_vi a, ctvm_vi b) { return _mm512_min_epi32(a, b); }
static CTVM_INLINE ctvm_vi ctvm_vmax_i32(ctvm_vi a, ctvm_vi b) { return _mm512_max_epi32(a, b); }
static CTVM_INLINE ctvm_vi ctvm_vmin_u32(ctvm_vi a, ctvm_vi b) { return _mm512_min_epu32(a, b); }
static CTVM_INLINE ctvm_vi ctvm_vmax_u32(ctvm_vi a, ctvm_vi b) { return _mm512_max_epu32(a, b); }
static CTVM_INLINE ctvm_vi ctvm_vand_i32(ctvm_vi a, ctvm_vi b) { return _mm512_and_si512(a, b); }
static CTVM_INLINE ctvm_vi ctvm_vor_i32(ctvm_vi a, ctvm_vi b) { return _mm512_or_si512(a, b); }
static CTVM_INLINE ctvm_vi ctvm_vxor_i32(ctvm_vi a, ctvm_vi b) { return _mm512_xor_si512(a, b); }
static CTVM_INLINE ctvm_vi ctvm_vnot_i32(ctvm_vi a) { return _mm512_xor_si512(a, _mm512_set1_epi32(-1)); }
static CTVM_INLINE ctvm_vi ctvm_vneg_i32(ctvm_vi a) { return _mm512_sub_epi32(_mm512_setzero_si512(), a); }
static CTVM_INLINE ctvm_vi ctvm_vabs_i32(ctvm_vi a) { return _mm512_abs_epi32(a); } /* INT_MIN stays INT_MIN */
static CTVM_INLINE ctvm_vi ctvm_vshl_i32(ctvm_vi a, int n) { return _mm512_sll_epi32(a, _mm_cvtsi32_si128(n)); }
static CTVM_INLINE ctvm_vi ctvm_vshr_i32(ctvm_vi a, int n) { return _mm512_sra_epi32(a, _mm_cvtsi32_si128(n)); }
static CTVM_INLINE ctvm_vi ctvm_vshr_u32(ctvm_vi a, int n) { return _mm512_srl_epi32(a, _mm_cvtsi32_si128(n)); }

/* compares -> ctvm_vm */
static CTVM_INLINE ctvm_vm ctvm_vlt_i32(ctvm_vi a, ctvm_vi b) { return _mm512_cmp_epi32_mask(a, b, _MM_CMPINT_LT); }
static CTVM_INLINE ctvm_vm ctvm_vle_i32(ctvm_vi a, ctvm_vi b) { return _mm512_cmp_epi32_mask(a, b, _MM_CMPINT_LE); }
static CTVM_INLINE ctvm_vm ctvm_vgt_i32(ctvm_vi a, ctvm_vi b) { return _mm512_cmp_epi32_mask(a, b, _MM_CMPINT_NLE); }
static CTVM_INLINE ctvm_vm ctvm_vge_i32(ctvm_vi a, ctvm_vi b) { return _mm512_cmp_epi32_mask(a, b, _MM_CMPINT_NLT); }
static CTVM_INLINE ctvm_vm ctvm_veq_i32(ctvm_vi a, ctvm_vi b) { return _mm512_cmp_epi32_mask(a, b, _MM_CMPINT_EQ); }
static CTVM_INLINE ctvm_vm ctvm_vne_i32(ctvm_vi a, ctvm_vi b) { return _mm512_cmp_epi32_mask(a, b, _MM_CMPINT_NE); }
static CTVM_INLINE ctvm_vm ctvm_vlt_u32(ctvm_vi a, ctvm_vi b) { return _mm512_cmp_epu32_mask(a, b, _MM_CMPINT_LT); }
static CTVM_INLINE ctvm_vm ctvm_vle_u32(ctvm_vi a, ctvm_vi b) { return _mm512_cmp_epu32_mask(a, b, _MM_CMPINT_LE); }
static CTVM_INLINE ctvm_vm ctvm_vgt_u32(ctvm_vi a, ctvm_vi b) { return _mm512_cmp_epu32_mask(a, b, _MM_CMPINT_NLE); }
static CTVM_INLINE ctvm_vm ctvm_vge_u32(ctvm_vi a, ctvm_vi b) { return _mm512_cmp_epu32_mask(a, b, _MM_CMPINT_NLT); }
static CTVM_INLINE ctvm_vm ctvm_vgt(ctvm_vf a, ctvm_vf b) { return _mm512_cmp_ps_mask(a, b, _CMP_GT_OQ); }
static CTVM_INLINE ctvm_vm ctvm_vne(ctvm_vf a, ctvm_vf b) { return _mm512_cmp_ps_mask(a, b, _CMP_NEQ_UQ); } /* true with NaN */
static CTVM_INLINE ctvm_vm ctvm_vmor(ctvm_vm a, ctvm_vm b) { return (ctvm_vm)(a | b); }
static CTVM_INLINE ctvm_vm ctvm_vmxor(ctvm_vm a, ctvm_vm b) { return (ctvm_vm)(a ^ b); }
static CTVM_INLINE ctvm_vm ctvm_vmnot(ctvm_vm a) { return (ctvm_vm)~a; }

/* selects; the narrow ones expand the mask to lanes of all ones (AVX-512F has
 * no byte or word masking) */
static CTVM_INLINE __m512i ctvm_v512_mask_lanes(ctvm_vm m) { return _mm512_maskz_mov_epi32(m, _mm512_set1_epi32(-1)); }
static CTVM_INLINE ctvm_vi ctvm_vselect_i32(ctvm_vm m, ctvm_vi a, ctvm_vi b) { return _mm512_mask_blend_epi32(m, b, a); }
static CTVM_INLINE ctvm_vh ctvm_vselect_16(ctvm_vm m, ctvm_vh a, ctvm_vh b)
{
    return _mm256_blendv_epi8(b, a, _mm512_cvtepi32_epi16(ctvm_v512_mask_lanes(m)));
}
static CTVM_INLINE ctvm_vb ctvm_vselect_8(ctvm_vm m, ctvm_vb a, ctvm_vb b)
{
    return _mm_blendv_epi8(b, a, _mm512_cvtepi32_epi8(ctvm_v512_mask_lanes(m)));
}
static CTVM_INLINE ctvm_vl ctvm_vselect_64(ctvm_vm m, ctvm_vl a, ctvm_vl b)
{
    ctvm_vl r;
    r.lo = _mm512_mask_blend_epi64((__mmask8)m, b.lo, a.lo);
    r.hi = _mm512_mask_blend_epi64((__mmask8)(m >> 8), b.hi, a.hi);
    return r;
}
static CTVM_INLINE ctvm_vd ctvm_vselect_f64(ctvm_vm m, ctvm_vd a, ctvm_vd b)
{
    ctvm_vd r;
    r.lo = _mm512_mask_blend_pd((__mmask8)m, b.lo, a.lo);
    r.hi = _mm512_mask_blend_pd((__mmask8)(m >> 8), b.hi, a.hi);
    return r;
}
static CTVM_INLINE ctvm_vm ctvm_vmask_of_b(ctvm_vb b)
{
    __m512i w = _mm512_cvtepu8_epi32(b);
    return _mm512_test_epi32_mask(w, w);
}
static CTVM_INLINE ctvm_vb ctvm_vb_of_mask(ctvm_vm m) { return _mm512_cvtepi32_epi8(_mm512_maskz_mov_epi32(m, _mm512_set1_epi32(1))); }

/* float64 */
static CTVM_INLINE ctvm_vd ctvm_vadd_f64(ctvm_vd a, ctvm_vd b)
{
    a.lo = _mm512_add_pd(a.lo, b.lo);
    a.hi = _mm512_add_pd(a.hi, b.hi);
    return a;
}
static CTVM_INLINE ctvm_vd ctvm_vsub_f64(ctvm_vd a, ctvm_vd b)
{
    a.lo = _mm512_sub_pd(a.lo, b.lo);
    a.hi = _mm512_sub_pd(a.hi, b.hi);
    return a;
}
static CTVM_INLINE ctvm_vd ctvm_vmul_f64(ctvm_vd a, ctvm_vd b)
{
    a.lo = _mm512_mul_pd(a.lo, b.lo);
    a.hi = _mm512_mul_pd(a.hi, b.hi);
    return a;
}
static CTVM_INLINE ctvm_vd ctvm_vdiv_f64(ctvm_vd a, ctvm_vd b)
{
    a.lo = _mm512_div_pd(a.lo, b.lo);
    a.hi = _mm512_div_pd(a.hi, b.hi);
    return a;
}
/* vminpd/vmaxpd return the second operand when unordered: a < b ? a : b */
static CTVM_INLINE ctvm_vd ctvm_vmin_f64(ctvm_vd a, ctvm_vd b)
{
    a.lo = _mm512_min_pd(a.lo, b.lo);
    a.hi = _mm512_min_pd(a.hi, b.hi);
    return a;
}
static CTVM_INLINE ctvm_vd ctvm_vmax_f64(ctvm_vd a, ctvm_vd b)
{
    a.lo = _mm512_max_pd(a.lo, b.lo);
    a.hi = _mm512_max_pd(a.hi, b.hi);
    return a;
}
static CTVM_INLINE ctvm_vd ctvm_vfma_f64(ctvm_vd a, ctvm_vd b, ctvm_vd c)
{
    a.lo = _mm512_fmadd_pd(a.lo, b.lo, c.lo);
    a.hi = _mm512_fmadd_pd(a.hi, b.hi, c.hi);
    return a;
}
static CTVM_INLINE ctvm_vd ctvm_vsqrt_f64(ctvm_vd a)
{
    a.lo = _mm512_sqrt_pd(a.lo);
    a.hi = _mm512_sqrt_pd(a.hi);
    return a;
}
/* sign-bit operations on the integer view (AVX-512F has no float and/xor) */
#define CTVM_V512_SIGN64 _mm512_set1_epi64((int64_t)-9223372036854775807 - 1)
static CTVM_INLINE __m512d ctvm_v512_xor_pd(__m512d a, __m512i s)
{
    return _mm512_castsi512_pd(_mm512_xor_si512(_mm512_castpd_si512(a), s));
}
static CTVM_INLINE ctvm_vd ctvm_vneg_f64(ctvm_vd a)
{
    a.lo = ctvm_v512_xor_pd(a.lo, CTVM_V512_SIGN64);
    a.hi = ctvm_v512_xor_pd(a.hi, CTVM_V512_SIGN64);
    return a;
}
static CTVM_INLINE ctvm_vd ctvm_vabs_f64(ctvm_vd a)
{
    a.lo = _mm512_castsi512_pd(_mm512_andnot_si512(CTVM_V512_SIGN64, _mm512_castpd_si512(a.lo)));
    a.hi = _mm512_castsi512_pd(_mm512_andnot_si512(CTVM_V512_SIGN64, _mm512_castpd_si512(a.hi)));
    return a;
}
#define CTVM_V512_CMPPD(a, b, pred)                                                                                  \
    (ctvm_vm)(_mm512_cmp_pd_mask(a.lo, b.lo, pred) | ((unsigned)_mm512_cmp_pd_mask(a.hi, b.hi, pred) << 8))
static CTVM_INLINE ctvm_vm ctvm_vlt_f64(ctvm_vd a, ctvm_vd b) { return CTVM_V512_CMPPD(a, b, _CMP_LT_OQ); }
static CTVM_INLINE ctvm_vm ctvm_vle_f64(ctvm_vd a, ctvm_vd b) { return CTVM_V512_CMPPD(a, b, _CMP_LE_OQ); }
static CTVM_INLINE ctvm_vm ctvm_vgt_f64(ctvm_vd a, ctvm_vd b) { return CTVM_V512_CMPPD(a, b, _CMP_GT_OQ); }
static CTVM_INLINE ctvm_vm ctvm_vge_f64(ctvm_vd a, ctvm_vd b) { return CTVM_V512_CMPPD(a, b, _CMP_GE_OQ); }
static CTVM_INLINE ctvm_vm ctvm_veq_f64(ctvm_vd a, ctvm_vd b) { return CTVM_V512_CMPPD(a, b, _CMP_EQ_OQ); }
static CTVM_INLINE ctvm_vm ctvm_vne_f64(ctvm_vd a, ctvm_vd b) { return CTVM_V512_CMPPD(a, b, _CMP_NEQ_UQ); }

/* 64-bit integers, wrapping */
static CTVM_INLINE ctvm_vl ctvm_vadd_64(ctvm_vl a, ctvm_vl b)
{
    a.lo = _mm512_add_epi64(a.lo, b.lo);
    a.hi = _mm512_add_epi64(a.hi, b.hi);
    return a;
}
static CTVM_INLINE ctvm_vl ctvm_vsub_64(ctvm_vl a, ctvm_vl b)
{
    a.lo = _mm512_sub_epi64(a.lo, b.lo);
    a.hi = _mm512_sub_epi64(a.hi, b.hi);
    return a;
}
static CTVM_INLINE ctvm_vl ctvm_vand_64(ctvm_vl a, ctvm_vl b)
{
    a.lo = _mm512_and_si512(a.lo, b.lo);
    a.hi = _mm512_and_si512(a.hi, b.hi);
    return a;
}
static CTVM_INLINE ctvm_vl ctvm_vor_64(ctvm_vl a, ctvm_vl b)
{
    a.lo = _mm512_or_si512(a.lo, b.lo);
    a.hi = _mm512_or_si512(a.hi, b.hi);
    return a;
}
static CTVM_INLINE ctvm_vl ctvm_vxor_64(ctvm_vl a, ctvm_vl b)
{
    a.lo = _mm512_xor_si512(a.lo, b.lo);
    a.hi = _mm512_xor_si512(a.hi, b.hi);
    return a;
}

/* integer widening and narrowing (vpmov*: truncating, signed- or
 * unsigned-saturating; u8/u16 saturation clamps negatives to 0 first) */
static CTVM_INLINE ctvm_vi ctvm_vcvt_i8_i32(ctvm_vb b) { return _mm512_cvtepi8_epi32(b); }
static CTVM_INLINE ctvm_vi ctvm_vcvt_u8_i32(ctvm_vb b) { return _mm512_cvtepu8_epi32(b); }
static CTVM_INLINE ctvm_vi ctvm_vcvt_i16_i32(ctvm_vh h) { return _mm512_cvtepi16_epi32(h); }
static CTVM_INLINE ctvm_vi ctvm_vcvt_u16_i32(ctvm_vh h) { return _mm512_cvtepu16_epi32(h); }
static CTVM_INLINE ctvm_vb ctvm_vcvt_i32_8(ctvm_vi a) { return _mm512_cvtepi32_epi8(a); }
static CTVM_INLINE ctvm_vh ctvm_vcvt_i32_16(ctvm_vi a) { return _mm512_cvtepi32_epi16(a); }
static CTVM_INLINE ctvm_vb ctvm_vcvt_i32_u8_sat(ctvm_vi a)
{
    return _mm512_cvtusepi32_epi8(_mm512_max_epi32(a, _mm512_setzero_si512()));
}
static CTVM_INLINE ctvm_vb ctvm_vcvt_i32_i8_sat(ctvm_vi a) { return _mm512_cvtsepi32_epi8(a); }
static CTVM_INLINE ctvm_vh ctvm_vcvt_i32_u16_sat(ctvm_vi a)
{
    return _mm512_cvtusepi32_epi16(_mm512_max_epi32(a, _mm512_setzero_si512()));
}
static CTVM_INLINE ctvm_vh ctvm_vcvt_i32_i16_sat(ctvm_vi a) { return _mm512_cvtsepi32_epi16(a); }
static CTVM_INLINE ctvm_vl ctvm_vcvt_i32_64(ctvm_vi a)
{
    ctvm_vl r;
    r.lo = _mm512_cvtepi32_epi64(_mm512_castsi512_si256(a));
    r.hi = _mm512_cvtepi32_epi64(_mm512_extracti64x4_epi64(a, 1));
    return r;
}
static CTVM_INLINE ctvm_vl ctvm_vcvt_u32_64(ctvm_vi a)
{
    ctvm_vl r;
    r.lo = _mm512_cvtepu32_epi64(_mm512_castsi512_si256(a));
    r.hi = _mm512_cvtepu32_epi64(_mm512_extracti64x4_epi64(a, 1));
    return r;
}
static CTVM_INLINE ctvm_vi ctvm_vcvt_64_i32(ctvm_vl a)
{
    return _mm512_inserti64x4(_mm512_castsi256_si512(_mm512_cvtepi64_epi32(a.lo)), _mm512_cvtepi64_epi32(a.hi), 1);
}

/* integer <-> float32 and rounding */
static CTVM_INLINE ctvm_vf ctvm_vcvt_i32_f32(ctvm_vi a) { return _mm512_cvtepi32_ps(a); }
static CTVM_INLINE ctvm_vf ctvm_vcvt_u32_f32(ctvm_vi a) { return _mm512_cvtepu32_ps(a); }
/* Toward zero. A lane out of int32 range (cvttps gives INT_MIN) sends the
 * vector through the scalar code's own conversion, (int32_t)(int64_t)x, so
 * it wraps exactly as the generated scalar code does. */
static int32_t ctvm_v512_f32_i32_slow(float x) { return (int32_t)(int64_t)x; }
static CTVM_INLINE ctvm_vi ctvm_vcvt_f32_i32(ctvm_vf x)
{
    __m512i r = _mm512_cvttps_epi32(x);
    if (_mm512_cmpeq_epi32_mask(r, _mm512_set1_epi32(-2147483647 - 1))) {
        float t[16];
        int32_t o[16];
        int l;
        _mm512_storeu_ps(t, x);
        for (l = 0; l < 16; l++)
            o[l] = ctvm_v512_f32_i32_slow(t[l]);
        r = _mm512_loadu_si512((const void *)o);
    }
    return r;
}
/* to the nearest int32, ties to even (QuantizeLinear's rounding), saturating:
 * x >= 2^31 gives INT32_MAX, x < -2^31 INT32_MIN, NaN 0 (as AArch64's
 * FCVTNS).
 * The rounding is the instruction's own (embedded), not MXCSR's. */
static CTVM_INLINE ctvm_vi ctvm_vcvt_f32_i32_rne(ctvm_vf x)
{
    __m512i r = _mm512_cvt_roundps_epi32(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    r = _mm512_mask_mov_epi32(r, _mm512_cmp_ps_mask(x, _mm512_set1_ps(2147483648.0f), _CMP_GE_OQ),
                              _mm512_set1_epi32(2147483647));
    return _mm512_maskz_mov_epi32(_mm512_cmp_ps_mask(x, x, _CMP_ORD_Q), r);
}
/* x rounded to nearest even, for x not NaN and within int32 (a clamped
   value: the requantization; else unspecified) - no fixups */
static CTVM_INLINE ctvm_vi ctvm_vcvt_f32_i32_rne_in(ctvm_vf x)
{
    return _mm512_cvt_roundps_epi32(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
}
static CTVM_INLINE ctvm_vf ctvm_vfloor(ctvm_vf x) { return _mm512_roundscale_ps(x, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC); }
static CTVM_INLINE ctvm_vf ctvm_vceil(ctvm_vf x) { return _mm512_roundscale_ps(x, _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC); }
static CTVM_INLINE ctvm_vf ctvm_vtrunc(ctvm_vf x) { return _mm512_roundscale_ps(x, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC); }
static CTVM_INLINE ctvm_vd ctvm_vcvt_f32_f64(ctvm_vf x)
{
    ctvm_vd r;
    r.lo = _mm512_cvtps_pd(_mm512_castps512_ps256(x));
    r.hi = _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(x), 1)));
    return r;
}
static CTVM_INLINE ctvm_vf ctvm_vcvt_f64_f32(ctvm_vd x)
{
    __m512d lo = _mm512_castps_pd(_mm512_castps256_ps512(_mm512_cvtpd_ps(x.lo)));
    return _mm512_castpd_ps(_mm512_insertf64x4(lo, _mm256_castps_pd(_mm512_cvtpd_ps(x.hi)), 1));
}

/* float16 / bfloat16 bits <-> float32, bit for bit as ctvm_types.h:
 * vcvtph2ps / vcvtps2ph (AVX-512F) round to nearest even; a NaN becomes the
 * quiet NaN 0x7fc00000 / 0x7e00 with the input's sign (the instructions
 * would keep payload bits) */
static CTVM_INLINE __m512 ctvm_v512_nan_canon(__m512 x)
{
    __m512i q = _mm512_or_si512(_mm512_and_si512(_mm512_castps_si512(x), _mm512_set1_epi32(-2147483647 - 1)),
                                _mm512_set1_epi32(0x7fc00000));
    return _mm512_mask_mov_ps(x, _mm512_cmp_ps_mask(x, x, _CMP_UNORD_Q), _mm512_castsi512_ps(q));
}
static CTVM_INLINE ctvm_vf ctvm_vcvt_f16_f32(ctvm_vh h) { return ctvm_v512_nan_canon(_mm512_cvtph_ps(h)); }
static CTVM_INLINE ctvm_vh ctvm_vcvt_f32_f16(ctvm_vf x)
{
    return _mm512_cvtps_ph(ctvm_v512_nan_canon(x), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
}
static CTVM_INLINE ctvm_vf ctvm_vcvt_bf16_f32(ctvm_vh h)
{
    return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16));
}
static CTVM_INLINE ctvm_vh ctvm_vcvt_f32_bf16(ctvm_vf x)
{
    __m512i b = _mm512_castps_si512(x), hi = _mm512_srli_epi32(b, 16);
    __m512i r = _mm512_srli_epi32(_mm512_add_epi32(_mm512_add_epi32(b, _mm512_set1_epi32(0x7fff)),
                                                   _mm512_and_si512(hi, _mm512_set1_epi32(1))), 16);
    __mmask16 nan = _mm512_cmp_epi32_mask(_mm512_and_si512(b, _mm512_set1_epi32(0x7fffffff)),
                                          _mm512_set1_epi32(0x7f800000), _MM_CMPINT_NLE);
    r = _mm512_mask_mov_epi32(r, nan, _mm512_or_si512(hi, _mm512_set1_epi32(0x40))); /* NaN stays a quiet NaN */
    return _mm512_cvtepi32_epi16(r);
}

/* dot products. vpdpbusd (AVX-512 VNNI) is exact and wraps; signed x signed
 * is (a^0x80) x b - 128 x b with it. Otherwise, per 256-bit half (AVX-512F
 * has no 16-bit operations), bytes 0,2 and 1,3 of each lane are widened to
 * 16 bits and summed by pmaddwd (exact: no product pair reaches its one
 * overflow). */
#if defined(__AVX512VNNI__) || defined(CTVM_EXT_AVX512VNNI)
/* gcc 12 moves the accumulator of _mm512_dpbusd_epi32 into a fresh register
 * and back around every call in a loop-carried sum (two copies per dot; the
 * int8 resnet18 ran 1.7x slower, 47 -> 27 ms on Zen 4); the asm form keeps
 * the sum in one register and may read b from memory. */
#if defined(__GNUC__)
static CTVM_INLINE __m512i ctvm_v512_dpbusd(__m512i acc, __m512i a, __m512i b)
{
    __asm__("vpdpbusd %2, %1, %0" : "+v"(acc) : "v"(a), "vm"(b));
    return acc;
}
#else
static CTVM_INLINE __m512i ctvm_v512_dpbusd(__m512i acc, __m512i a, __m512i b) { return _mm512_dpbusd_epi32(acc, a, b); }
#endif
static CTVM_INLINE ctvm_vi ctvm_vdot_u8i8(ctvm_vi acc, ctvm_vq a, ctvm_vq b) { return ctvm_v512_dpbusd(acc, a, b); }
/* acc + a*b for a in [0, 32767], b in [-32768, 32767] (a's high half is 0,
   so the pair sum of vpdpwssd is the one product; the sum wraps) */
#if defined(__GNUC__)
static CTVM_INLINE ctvm_vi ctvm_vmla16_i32(ctvm_vi acc, ctvm_vi a, ctvm_vi b)
{
    __asm__("vpdpwssd %2, %1, %0" : "+v"(acc) : "v"(a), "vm"(b));
    return acc;
}
#else
static CTVM_INLINE ctvm_vi ctvm_vmla16_i32(ctvm_vi acc, ctvm_vi a, ctvm_vi b) { return _mm512_dpwssd_epi32(acc, a, b); }
#endif
static CTVM_INLINE ctvm_vi ctvm_vdot_i8i8(ctvm_vi acc, ctvm_vq a, ctvm_vq b)
{
    __m512i bias = _mm512_set1_epi32((int32_t)0x80808080u);
    return _mm512_sub_epi32(ctvm_v512_dpbusd(acc, _mm512_xor_si512(a, bias), b),
                            ctvm_v512_dpbusd(_mm512_setzero_si512(), bias, b));
}
#else
static CTVM_INLINE __m256i ctvm_v512_dot_half(__m256i ae, __m256i ao, __m256i b)
{
    __m256i be = _mm256_srai_epi16(_mm256_slli_epi16(b, 8), 8), bo = _mm256_srai_epi16(b, 8);
    return _mm256_add_epi32(_mm256_madd_epi16(ae, be), _mm256_madd_epi16(ao, bo));
}
static CTVM_INLINE ctvm_vi ctvm_v512_join(__m256i lo, __m256i hi)
{
    return _mm512_inserti64x4(_mm512_castsi256_si512(lo), hi, 1);
}
static CTVM_INLINE ctvm_vi ctvm_vdot_u8i8(ctvm_vi acc, ctvm_vq a, ctvm_vq b)
{
    __m256i alo = _mm512_castsi512_si256(a), ahi = _mm512_extracti64x4_epi64(a, 1), m = _mm256_set1_epi16(0xff);
    __m256i lo = ctvm_v512_dot_half(_mm256_and_si256(alo, m), _mm256_srli_epi16(alo, 8), _mm512_castsi512_si256(b));
    __m256i hi = ctvm_v512_dot_half(_mm256_and_si256(ahi, m), _mm256_srli_epi16(ahi, 8), _mm512_extracti64x4_epi64(b, 1));
    return _mm512_add_epi32(acc, ctvm_v512_join(lo, hi));
}
static CTVM_INLINE ctvm_vi ctvm_vdot_i8i8(ctvm_vi acc, ctvm_vq a, ctvm_vq b)
{
    __m256i alo = _mm512_castsi512_si256(a), ahi = _mm512_extracti64x4_epi64(a, 1);
    __m256i lo = ctvm_v512_dot_half(_mm256_srai_epi16(_mm256_slli_epi16(alo, 8), 8), _mm256_srai_epi16(alo, 8),
                                    _mm512_castsi512_si256(b));
    __m256i hi = ctvm_v512_dot_half(_mm256_srai_epi16(_mm256_slli_epi16(ahi, 8), 8), _mm256_srai_epi16(ahi, 8),
                                    _mm512_extracti64x4_epi64(b, 1));
    return _mm512_add_epi32(acc, ctvm_v512_join(lo, hi));
}
/* acc + a*b (a in [0, 32767], b in [-32768, 32767]): AVX-512F has no
   16-bit multiply-add on 512 bits, so the 32-bit one */
static CTVM_INLINE ctvm_vi ctvm_vmla16_i32(ctvm_vi acc, ctvm_vi a, ctvm_vi b)
{
    return _mm512_add_epi32(acc, _mm512_mullo_epi32(a, b));
}
#endif

/* bfloat16 dot product: ctvm_vq holds 2*CTVM_VL bfloat16 values (element
 * 2l in the low half of 32-bit group l, 2l+1 in the high half). Lane l:
 * acc[l] + a[2l+1]*b[2l+1], rounded, then + a[2l]*b[2l], rounded (each
 * product of two bfloat16 values is exact in float32, so this is two fused
 * multiply-adds, odd pair first: AVX512-BF16's vdpbf16ps, bit for bit on
 * normal numbers; it flushes denormal inputs and results to zero, which
 * the fallbacks do not). */
#if defined(__AVX512BF16__) || defined(CTVM_EXT_AVX512BF16)
#define CTVM_HAS_DOT_BF16 1
#if defined(__GNUC__)
/* one register for the sum, as for vpdpbusd above */
static CTVM_INLINE ctvm_vf ctvm_vdot_bf16(ctvm_vf acc, ctvm_vq a, ctvm_vq b)
{
    __asm__("vdpbf16ps %2, %1, %0" : "+v"(acc) : "v"(a), "vm"(b));
    return acc;
}
#else
static CTVM_INLINE ctvm_vf ctvm_vdot_bf16(ctvm_vf acc, ctvm_vq a, ctvm_vq b)
{
    return _mm512_dpbf16_ps(acc, (__m512bh)a, (__m512bh)b);
}
#endif
#else
#define CTVM_HAS_DOT_BF16 0
static CTVM_INLINE ctvm_vf ctvm_vdot_bf16(ctvm_vf acc, ctvm_vq a, ctvm_vq b)
{
    __m512i hi = _mm512_set1_epi32((int32_t)0xffff0000u);
    acc = _mm512_fmadd_ps(_mm512_castsi512_ps(_mm512_and_si512(a, hi)), _mm512_castsi512_ps(_mm512_and_si512(b, hi)), acc);
    return _mm512_fmadd_ps(_mm512_castsi512_ps(_mm512_slli_epi32(a, 16)), _mm512_castsi512_ps(_mm512_slli_epi32(b, 16)),
                           acc);
}
#endif

#if defined(__clang__)
#pragma clang diagnostic pop
#endif

#endif /* ISA */
#endif
