/* ctvm_vec_avx2.h - the ctvm vector API on AVX2 + FMA (CTVM_VL 8).
 *
 * Pasted by emit_c into model.c for --target x86_64-avx2. Built without
 * -mavx2 -mfma (or -march=native on such a CPU), it enables AVX2 and FMA itself
 * for the rest of model.c: gcc by `#pragma GCC target`, clang by a target
 * attribute on every function that follows (`#pragma clang attribute`);
 * model.c closes that region after its entry points with CTVM_ISA_END.
 * Either way the code runs only on a CPU with AVX2 and FMA. Other compilers
 * and compilers for another architecture stop at the #error below (clang
 * -fopenmp is fine: the file's one OpenMP region only calls functions that
 * carry the attribute). ctvm_vfma
 * is fused. exp, tanh, sigmoid, log... are templates/ctvm_vec_math.h, on
 * the bit primitives at the end of this file.
 * Assumes runtime_min/ctvm_runtime.h was pasted first (CTVM_INLINE). Every
 * header of the API (templates/ctvm_vec_*.h) defines the same functions
 * with the same semantics; see docs/ARCHITECTURE.md "Vector API". */
#ifndef CTVM_VEC_H
#define CTVM_VEC_H

#if defined(__AVX2__) && defined(__FMA__) && (!defined(CTVM_EXT_AVXVNNI) || defined(__AVXVNNI__))
#define CTVM_ISA_BY 0 /* the command line's flags */
#elif (defined(__x86_64__) || defined(__i386__)) && defined(__clang__)
#define CTVM_ISA_BY 2 /* #pragma clang attribute, after the intrinsics */
#elif (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__) && !defined(__clang__) && !defined(__INTEL_COMPILER)
#define CTVM_ISA_BY 1
#pragma GCC push_options
#if defined(CTVM_EXT_AVXVNNI) /* target x86_64-avx2-vnni */
#pragma GCC target("avx2,fma,avxvnni")
#else
#pragma GCC target("avx2,fma")
#endif
#define CTVM_ISA_END _Pragma("GCC pop_options")
#endif

#if !defined(CTVM_ISA_BY) && !defined(__x86_64__) && !defined(__i386__)
#error "ctvm: generated for target x86_64-avx2: this compiler does not build x86 code (emit the file for this machine's --target)"
#elif !defined(CTVM_ISA_BY)
#error "ctvm: generated for target x86_64-avx2: compile with -mavx2 -mfma (or -march=native)"
#else /* the rest only with the ISA, so the #error is the one message */

#include <immintrin.h>

#if CTVM_ISA_BY == 2 && defined(CTVM_EXT_AVXVNNI)
#pragma clang attribute push(__attribute__((target("avx2,fma,avxvnni"))), apply_to = function)
#define CTVM_ISA_END _Pragma("clang attribute pop")
#elif CTVM_ISA_BY == 2
#pragma clang attribute push(__attribute__((target("avx2,fma"))), apply_to = function)
#define CTVM_ISA_END _Pragma("clang attribute pop")
#endif

#define CTVM_VL 8
#define CTVM_ISA "avx2"

/* clang, unlike gcc, warns about unused static inline functions of the main
 * file, which is where this API lands in model.c. */
#if defined(__clang__)
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wunused-function"
#endif

typedef __m256 ctvm_vf; /* CTVM_VL floats */
typedef __m256 ctvm_vm; /* lane mask: all ones or all zeros per lane */

static CTVM_INLINE ctvm_vf ctvm_vload(const float *p) { return _mm256_loadu_ps(p); }
static CTVM_INLINE void ctvm_vstore(float *p, ctvm_vf v) { _mm256_storeu_ps(p, v); }
/* the first n lanes (0 < n <= CTVM_VL) of a vector: a row's tail (lp_vectorize) */
static CTVM_INLINE __m256i ctvm_vfirst_n_(int n) { return _mm256_cmpgt_epi32(_mm256_set1_epi32(n), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7)); }
static CTVM_INLINE ctvm_vf ctvm_vload_n(const float *p, int n) { return _mm256_maskload_ps(p, ctvm_vfirst_n_(n)); }
static CTVM_INLINE void ctvm_vstore_n(float *p, ctvm_vf v, int n) { _mm256_maskstore_ps(p, ctvm_vfirst_n_(n), v); }
static CTVM_INLINE ctvm_vm ctvm_vmask_n(int n) { return _mm256_castsi256_ps(ctvm_vfirst_n_(n)); }
static CTVM_INLINE ctvm_vf ctvm_vset1(float x) { return _mm256_set1_ps(x); }
static CTVM_INLINE ctvm_vf ctvm_vzero(void) { return _mm256_setzero_ps(); }

static CTVM_INLINE ctvm_vf ctvm_vadd(ctvm_vf a, ctvm_vf b) { return _mm256_add_ps(a, b); }
static CTVM_INLINE ctvm_vf ctvm_vsub(ctvm_vf a, ctvm_vf b) { return _mm256_sub_ps(a, b); }
static CTVM_INLINE ctvm_vf ctvm_vmul(ctvm_vf a, ctvm_vf b) { return _mm256_mul_ps(a, b); }
static CTVM_INLINE ctvm_vf ctvm_vdiv(ctvm_vf a, ctvm_vf b) { return _mm256_div_ps(a, b); }
/* vminps/vmaxps return their second operand when the compare is false
 * (either NaN, or +0 vs -0): exactly a < b ? a : b and a > b ? a : b. */
static CTVM_INLINE ctvm_vf ctvm_vmin(ctvm_vf a, ctvm_vf b) { return _mm256_min_ps(a, b); }
static CTVM_INLINE ctvm_vf ctvm_vmax(ctvm_vf a, ctvm_vf b) { return _mm256_max_ps(a, b); }
static CTVM_INLINE ctvm_vf ctvm_vfma(ctvm_vf a, ctvm_vf b, ctvm_vf c) { return _mm256_fmadd_ps(a, b, c); }
static CTVM_INLINE ctvm_vf ctvm_vneg(ctvm_vf a) { return _mm256_xor_ps(a, _mm256_set1_ps(-0.0f)); }
static CTVM_INLINE ctvm_vf ctvm_vabs(ctvm_vf a) { return _mm256_andnot_ps(_mm256_set1_ps(-0.0f), a); }
static CTVM_INLINE ctvm_vf ctvm_vsqrt(ctvm_vf a) { return _mm256_sqrt_ps(a); }

/* ordered, non-signalling compares: false when either lane is NaN */
static CTVM_INLINE ctvm_vm ctvm_vlt(ctvm_vf a, ctvm_vf b) { return _mm256_cmp_ps(a, b, _CMP_LT_OQ); }
static CTVM_INLINE ctvm_vm ctvm_vle(ctvm_vf a, ctvm_vf b) { return _mm256_cmp_ps(a, b, _CMP_LE_OQ); }
static CTVM_INLINE ctvm_vm ctvm_vge(ctvm_vf a, ctvm_vf b) { return _mm256_cmp_ps(a, b, _CMP_GE_OQ); }
static CTVM_INLINE ctvm_vm ctvm_veq(ctvm_vf a, ctvm_vf b) { return _mm256_cmp_ps(a, b, _CMP_EQ_OQ); }
static CTVM_INLINE ctvm_vm ctvm_vmand(ctvm_vm a, ctvm_vm b) { return _mm256_and_ps(a, b); }
static CTVM_INLINE ctvm_vf ctvm_vselect(ctvm_vm m, ctvm_vf a, ctvm_vf b) { return _mm256_blendv_ps(b, a, m); }

static CTVM_INLINE float ctvm_vhsum(ctvm_vf v)
{
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_shuffle_ps(s, s, 1));
    return _mm_cvtss_f32(s);
}
/* Max of the lanes; unspecified which lane wins if one is NaN. */
static CTVM_INLINE float ctvm_vhmax(ctvm_vf v)
{
    __m128 s = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_max_ps(s, _mm_movehl_ps(s, s));
    s = _mm_max_ss(s, _mm_shuffle_ps(s, s, 1));
    return _mm_cvtss_f32(s);
}

/* Min of the lanes; unspecified which lane wins if one is NaN. */
static CTVM_INLINE float ctvm_vhmin(ctvm_vf v)
{
    __m128 s = _mm_min_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_min_ps(s, _mm_movehl_ps(s, s));
    s = _mm_min_ss(s, _mm_shuffle_ps(s, s, 1));
    return _mm_cvtss_f32(s);
}
static CTVM_INLINE float ctvm_vfirst(ctvm_vf v) { return _mm256_cvtss_f32(v); }

/* the bit primitives templates/ctvm_vec_math.h is written on */
/* a/b for b in [1, 2^126) (tanh, sigmoid): exact here */
static CTVM_INLINE ctvm_vf ctvm_vdiv_fast(ctvm_vf a, ctvm_vf b) { return _mm256_div_ps(a, b); }
/* to the nearest integer, ties to even */
static CTVM_INLINE ctvm_vf ctvm_vround(ctvm_vf a)
{
    return _mm256_round_ps(a, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
}
/* bitwise and / or of the lanes' bits (signs: x | -0.0f is -|x|) */
static CTVM_INLINE ctvm_vf ctvm_vbitand(ctvm_vf a, ctvm_vf b) { return _mm256_and_ps(a, b); }
static CTVM_INLINE ctvm_vf ctvm_vbitor(ctvm_vf a, ctvm_vf b) { return _mm256_or_ps(a, b); }
/* p * 2^(n>>1) * 2^(n - (n>>1)) for an integer n in [-252, 254]: both
 * scales built in the exponent bits, so the scale never overflows and a
 * result in the denormal range rounds once (p in [1/2, 2]) */
static CTVM_INLINE ctvm_vf ctvm_vldexp(ctvm_vf p, ctvm_vf n)
{
    __m256i k = _mm256_cvttps_epi32(n), k1 = _mm256_srai_epi32(k, 1), bias = _mm256_set1_epi32(127);
    p = _mm256_mul_ps(p, _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(k1, bias), 23)));
    return _mm256_mul_ps(p, _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(_mm256_sub_epi32(k, k1), bias), 23)));
}
/* the exponent field of a minus 127: floor(log2 |a|) for normal a */
static CTVM_INLINE ctvm_vf ctvm_vgetexp(ctvm_vf a)
{
    __m256i e = _mm256_and_si256(_mm256_srli_epi32(_mm256_castps_si256(a), 23), _mm256_set1_epi32(255));
    return _mm256_cvtepi32_ps(_mm256_sub_epi32(e, _mm256_set1_epi32(127)));
}
/* |a| with the exponent field 127: in [1, 2) for normal a */
static CTVM_INLINE ctvm_vf ctvm_vgetmant(ctvm_vf a)
{
    __m256i m = _mm256_and_si256(_mm256_castps_si256(a), _mm256_set1_epi32(0x007fffff));
    return _mm256_castsi256_ps(_mm256_or_si256(m, _mm256_set1_epi32(0x3f800000)));
}

/* ---- typed vectors: integers, float64, conversions, dot products ----
 * Every type has CTVM_VL (8) lanes except ctvm_vq (32 bytes): 8 x 16-bit
 * in an __m128i, 8 x 8-bit in the low 64 bits of an __m128i, float64 and
 * 64-bit lanes in two __m256d / __m256i. Integer arithmetic wraps.
 * float16 conversions use F16C where the compiler is told the CPU has it
 * (-mf16c, -march=native, or the header's own target pragma: every AVX2 +
 * FMA CPU has F16C), exact integer code otherwise. The dot products use
 * AVX-VNNI or AVX-512 VNNI (+VL) when enabled (AVX-VNNI also by the file
 * itself for target x86_64-avx2-vnni, CTVM_EXT_AVXVNNI), pmaddwd otherwise.
 * See docs/ARCHITECTURE.md "Vector API". */
#if defined(__AVXVNNI__) || defined(CTVM_EXT_AVXVNNI) || (defined(__AVX512VNNI__) && defined(__AVX512VL__))
#define CTVM_HAS_DOT_U8I8 1
#else
#define CTVM_HAS_DOT_U8I8 0
#endif
#define CTVM_HAS_DOT_I8I8 0

typedef __m256i ctvm_vi; /* 8 x 32-bit integer (int32, uint32) */
typedef __m128i ctvm_vh; /* 8 x 16-bit (int16, uint16, float16/bfloat16 bits) */
typedef __m128i ctvm_vb; /* 8 x 8-bit in the low 64 bits (int8, uint8, bool) */
typedef struct {
    __m256d lo, hi; /* lanes 0-3, 4-7 */
} ctvm_vd;
typedef struct {
    __m256i lo, hi; /* lanes 0-3, 4-7 */
} ctvm_vl;
typedef __m256i ctvm_vq; /* 32 bytes */
static CTVM_INLINE ctvm_vi ctvm_vload_i32(const int32_t *p) { return _mm256_loadu_si256((const __m256i *)p); }
static CTVM_INLINE void ctvm_vstore_i32(int32_t *p, ctvm_vi v) { _mm256_storeu_si256((__m256i *)p, v); }
static CTVM_INLINE ctvm_vh ctvm_vload_16(const void *p) { return _mm_loadu_si128((const __m128i *)p); }
static CTVM_INLINE void ctvm_vstore_16(void *p, ctvm_vh v) { _mm_storeu_si128((__m128i *)p, v); }
static CTVM_INLINE ctvm_vb ctvm_vload_8(const void *p) { return _mm_loadl_epi64((const __m128i *)p); }
static CTVM_INLINE void ctvm_vstore_8(void *p, ctvm_vb v) { _mm_storel_epi64((__m128i *)p, v); }
static CTVM_INLINE ctvm_vd ctvm_vload_f64(const double *p)
{
    ctvm_vd r;
    r.lo = _mm256_loadu_pd(p);
    r.hi = _mm256_loadu_pd(p + 4);
    return r;
}
static CTVM_INLINE void ctvm_vstore_f64(double *p, ctvm_vd v)
{
    _mm256_storeu_pd(p, v.lo);
    _mm256_storeu_pd(p + 4, v.hi);
}
static CTVM_INLINE ctvm_vl ctvm_vload_64(const void *p)
{
    ctvm_vl r;
    r.lo = _mm256_loadu_si256((const __m256i *)p);
    r.hi = _mm256_loadu_si256((const __m256i *)p + 1);
    return r;
}
static CTVM_INLINE void ctvm_vstore_64(void *p, ctvm_vl v)
{
    _mm256_storeu_si256((__m256i *)p, v.lo);
    _mm256_storeu_si256((__m256i *)p + 1, v.hi);
}
static CTVM_INLINE ctvm_vq ctvm_vload_q(const void *p) { return _mm256_loadu_si256((const __m256i *)p); }
static CTVM_INLINE ctvm_vi ctvm_vset1_i32(int32_t x) { return _mm256_set1_epi32(x); }
/* a broadcast the compiler cannot hoist out of loops (the volatile asm runs
 * where it stands; its input is a general register or memory): a register
 * tile's epilogue constants (lower/lp_tile_consts.c), which gcc would
 * otherwise hold in vector registers across the tile's reduction */
#if defined(__GNUC__)
static CTVM_INLINE ctvm_vi ctvm_vset1_i32_late(int32_t x)
{
    __m256i r;
    __asm__ volatile("vmovd %1, %x0\n\tvpbroadcastd %x0, %0" : "=x"(r) : "rm"(x));
    return r;
}
#else
static CTVM_INLINE ctvm_vi ctvm_vset1_i32_late(int32_t x) { return _mm256_set1_epi32(x); }
#endif
static CTVM_INLINE ctvm_vf ctvm_vset1_late(float x)
{
    union { float f; int32_t i; } u;
    u.f = x;
    return _mm256_castsi256_ps(ctvm_vset1_i32_late(u.i));
}
static CTVM_INLINE ctvm_vh ctvm_vset1_16(int16_t x) { return _mm_set1_epi16(x); }
static CTVM_INLINE ctvm_vb ctvm_vset1_8(int8_t x) { return _mm_set1_epi8(x); }
static CTVM_INLINE ctvm_vd ctvm_vset1_f64(double x)
{
    ctvm_vd r;
    r.lo = r.hi = _mm256_set1_pd(x);
    return r;
}
static CTVM_INLINE ctvm_vl ctvm_vset1_64(int64_t x)
{
    ctvm_vl r;
    r.lo = r.hi = _mm256_set1_epi64x(x);
    return r;
}
static CTVM_INLINE ctvm_vq ctvm_vset1_q(int8_t x) { return _mm256_set1_epi8(x); }
/* the 4 bytes at p in every 32-bit group (the input side of a dot product) */
static CTVM_INLINE ctvm_vq ctvm_vbcast4_q(const void *p)
{
    int32_t t;
    __builtin_memcpy(&t, p, 4);
    return _mm256_set1_epi32(t);
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
    __m256i r;
    __asm__("vpbroadcastd %1, %0" : "=x"(r) : "m"(*(const ctvm_i32_alias *)p));
    return r;
}
#else
static CTVM_INLINE ctvm_vq ctvm_vbcast4_q_late(const void *p) { return ctvm_vbcast4_q(p); }
#endif
static CTVM_INLINE ctvm_vi ctvm_vzero_i32(void) { return _mm256_setzero_si256(); }

/* int32 arithmetic, wrapping */
#define CTVM_VAVX2_ONES _mm256_set1_epi32(-1)
static CTVM_INLINE ctvm_vi ctvm_vadd_i32(ctvm_vi a, ctvm_vi b) { return _mm256_add_epi32(a, b); }
static CTVM_INLINE ctvm_vi ctvm_vsub_i32(ctvm_vi a, ctvm_vi b) { return _mm256_sub_epi32(a, b); }
static CTVM_INLINE ctvm_vi ctvm_vmul_i32(ctvm_vi a, ctvm_vi b) { return _mm256_mullo_epi32(a, b); }
static CTVM_INLINE ctvm_vi ctvm_vmin_i32(ctvm_vi a, ctvm_vi b) { return _mm256_min_epi32(a, b); }
static CTVM_INLINE ctvm_vi ctvm_vmax_i32(ctvm_vi a, ctvm_vi b) { return _mm256_max_epi32(a, b); }
static CTVM_INLINE ctvm_vi ctvm_vmin_u32(ctvm_vi a, ctvm_vi b) { return _mm256_min_epu32(a, b); }
static CTVM_INLINE ctvm_vi ctvm_vmax_u32(ctvm_vi a, ctvm_vi b) { return _mm256_max_epu32(a, b); }
static CTVM_INLINE ctvm_vi ctvm_vand_i32(ctvm_vi a, ctvm_vi b) { return _mm256_and_si256(a, b); }
static CTVM_INLINE ctvm_vi ctvm_vor_i32(ctvm_vi a, ctvm_vi b) { return _mm256_or_si256(a, b); }
static CTVM_INLINE ctvm_vi ctvm_vxor_i32(ctvm_vi a, ctvm_vi b) { return _mm256_xor_si256(a, b); }
static CTVM_INLINE ctvm_vi ctvm_vnot_i32(ctvm_vi a) { return _mm256_xor_si256(a, CTVM_VAVX2_ONES); }
static CTVM_INLINE ctvm_vi ctvm_vneg_i32(ctvm_vi a) { return _mm256_sub_epi32(_mm256_setzero_si256(), a); }
static CTVM_INLINE ctvm_vi ctvm_vabs_i32(ctvm_vi a) { return _mm256_abs_epi32(a); } /* INT_MIN stays INT_MIN */
static CTVM_INLINE ctvm_vi ctvm_vshl_i32(ctvm_vi a, int n) { return _mm256_sll_epi32(a, _mm_cvtsi32_si128(n)); }
static CTVM_INLINE ctvm_vi ctvm_vshr_i32(ctvm_vi a, int n) { return _mm256_sra_epi32(a, _mm_cvtsi32_si128(n)); }
static CTVM_INLINE ctvm_vi ctvm_vshr_u32(ctvm_vi a, int n) { return _mm256_srl_epi32(a, _mm_cvtsi32_si128(n)); }

/* compares -> ctvm_vm (all-ones lanes); unsigned ones flip the sign bits */
#define CTVM_VAVX2_M(x) _mm256_castsi256_ps(x)
#define CTVM_VAVX2_FLIP(x) _mm256_xor_si256(x, _mm256_set1_epi32(-2147483647 - 1))
static CTVM_INLINE ctvm_vm ctvm_vlt_i32(ctvm_vi a, ctvm_vi b) { return CTVM_VAVX2_M(_mm256_cmpgt_epi32(b, a)); }
static CTVM_INLINE ctvm_vm ctvm_vgt_i32(ctvm_vi a, ctvm_vi b) { return CTVM_VAVX2_M(_mm256_cmpgt_epi32(a, b)); }
static CTVM_INLINE ctvm_vm ctvm_veq_i32(ctvm_vi a, ctvm_vi b) { return CTVM_VAVX2_M(_mm256_cmpeq_epi32(a, b)); }
static CTVM_INLINE ctvm_vm ctvm_vle_i32(ctvm_vi a, ctvm_vi b)
{
    return CTVM_VAVX2_M(ctvm_vnot_i32(_mm256_cmpgt_epi32(a, b)));
}
static CTVM_INLINE ctvm_vm ctvm_vge_i32(ctvm_vi a, ctvm_vi b)
{
    return CTVM_VAVX2_M(ctvm_vnot_i32(_mm256_cmpgt_epi32(b, a)));
}
static CTVM_INLINE ctvm_vm ctvm_vne_i32(ctvm_vi a, ctvm_vi b)
{
    return CTVM_VAVX2_M(ctvm_vnot_i32(_mm256_cmpeq_epi32(a, b)));
}
static CTVM_INLINE ctvm_vm ctvm_vlt_u32(ctvm_vi a, ctvm_vi b)
{
    return ctvm_vlt_i32(CTVM_VAVX2_FLIP(a), CTVM_VAVX2_FLIP(b));
}
static CTVM_INLINE ctvm_vm ctvm_vle_u32(ctvm_vi a, ctvm_vi b)
{
    return ctvm_vle_i32(CTVM_VAVX2_FLIP(a), CTVM_VAVX2_FLIP(b));
}
static CTVM_INLINE ctvm_vm ctvm_vgt_u32(ctvm_vi a, ctvm_vi b)
{
    return ctvm_vgt_i32(CTVM_VAVX2_FLIP(a), CTVM_VAVX2_FLIP(b));
}
static CTVM_INLINE ctvm_vm ctvm_vge_u32(ctvm_vi a, ctvm_vi b)
{
    return ctvm_vge_i32(CTVM_VAVX2_FLIP(a), CTVM_VAVX2_FLIP(b));
}
static CTVM_INLINE ctvm_vm ctvm_vgt(ctvm_vf a, ctvm_vf b) { return _mm256_cmp_ps(a, b, _CMP_GT_OQ); }
static CTVM_INLINE ctvm_vm ctvm_vne(ctvm_vf a, ctvm_vf b) { return _mm256_cmp_ps(a, b, _CMP_NEQ_UQ); } /* true with NaN */
static CTVM_INLINE ctvm_vm ctvm_vmor(ctvm_vm a, ctvm_vm b) { return _mm256_or_ps(a, b); }
static CTVM_INLINE ctvm_vm ctvm_vmxor(ctvm_vm a, ctvm_vm b) { return _mm256_xor_ps(a, b); }
static CTVM_INLINE ctvm_vm ctvm_vmnot(ctvm_vm a) { return _mm256_xor_ps(a, CTVM_VAVX2_M(CTVM_VAVX2_ONES)); }

/* the 8 x 32-bit mask as 8 x 16 bits (__m128i) */
static CTVM_INLINE __m128i ctvm_vavx2_mask16(ctvm_vm m)
{
    __m256i mi = _mm256_castps_si256(m);
    return _mm_packs_epi32(_mm256_castsi256_si128(mi), _mm256_extracti128_si256(mi, 1));
}
static CTVM_INLINE ctvm_vi ctvm_vselect_i32(ctvm_vm m, ctvm_vi a, ctvm_vi b)
{
    return _mm256_blendv_epi8(b, a, _mm256_castps_si256(m));
}
static CTVM_INLINE ctvm_vh ctvm_vselect_16(ctvm_vm m, ctvm_vh a, ctvm_vh b)
{
    return _mm_blendv_epi8(b, a, ctvm_vavx2_mask16(m));
}
static CTVM_INLINE ctvm_vb ctvm_vselect_8(ctvm_vm m, ctvm_vb a, ctvm_vb b)
{
    __m128i m16 = ctvm_vavx2_mask16(m);
    return _mm_blendv_epi8(b, a, _mm_packs_epi16(m16, m16));
}
static CTVM_INLINE ctvm_vl ctvm_vselect_64(ctvm_vm m, ctvm_vl a, ctvm_vl b)
{
    __m256i mi = _mm256_castps_si256(m);
    ctvm_vl r;
    r.lo = _mm256_blendv_epi8(b.lo, a.lo, _mm256_cvtepi32_epi64(_mm256_castsi256_si128(mi)));
    r.hi = _mm256_blendv_epi8(b.hi, a.hi, _mm256_cvtepi32_epi64(_mm256_extracti128_si256(mi, 1)));
    return r;
}
static CTVM_INLINE ctvm_vd ctvm_vselect_f64(ctvm_vm m, ctvm_vd a, ctvm_vd b)
{
    __m256i mi = _mm256_castps_si256(m);
    ctvm_vd r;
    r.lo = _mm256_blendv_pd(b.lo, a.lo, _mm256_castsi256_pd(_mm256_cvtepi32_epi64(_mm256_castsi256_si128(mi))));
    r.hi = _mm256_blendv_pd(b.hi, a.hi, _mm256_castsi256_pd(_mm256_cvtepi32_epi64(_mm256_extracti128_si256(mi, 1))));
    return r;
}
static CTVM_INLINE ctvm_vm ctvm_vmask_of_b(ctvm_vb b)
{
    __m256i zero = _mm256_cvtepi8_epi32(_mm_cmpeq_epi8(b, _mm_setzero_si128()));
    return CTVM_VAVX2_M(ctvm_vnot_i32(zero));
}
static CTVM_INLINE ctvm_vb ctvm_vb_of_mask(ctvm_vm m)
{
    __m128i m16 = ctvm_vavx2_mask16(m);
    return _mm_and_si128(_mm_packs_epi16(m16, m16), _mm_set1_epi8(1));
}

/* float64 */
static CTVM_INLINE ctvm_vd ctvm_vadd_f64(ctvm_vd a, ctvm_vd b)
{
    a.lo = _mm256_add_pd(a.lo, b.lo);
    a.hi = _mm256_add_pd(a.hi, b.hi);
    return a;
}
static CTVM_INLINE ctvm_vd ctvm_vsub_f64(ctvm_vd a, ctvm_vd b)
{
    a.lo = _mm256_sub_pd(a.lo, b.lo);
    a.hi = _mm256_sub_pd(a.hi, b.hi);
    return a;
}
static CTVM_INLINE ctvm_vd ctvm_vmul_f64(ctvm_vd a, ctvm_vd b)
{
    a.lo = _mm256_mul_pd(a.lo, b.lo);
    a.hi = _mm256_mul_pd(a.hi, b.hi);
    return a;
}
static CTVM_INLINE ctvm_vd ctvm_vdiv_f64(ctvm_vd a, ctvm_vd b)
{
    a.lo = _mm256_div_pd(a.lo, b.lo);
    a.hi = _mm256_div_pd(a.hi, b.hi);
    return a;
}
/* vminpd/vmaxpd return the second operand when unordered: a < b ? a : b */
static CTVM_INLINE ctvm_vd ctvm_vmin_f64(ctvm_vd a, ctvm_vd b)
{
    a.lo = _mm256_min_pd(a.lo, b.lo);
    a.hi = _mm256_min_pd(a.hi, b.hi);
    return a;
}
static CTVM_INLINE ctvm_vd ctvm_vmax_f64(ctvm_vd a, ctvm_vd b)
{
    a.lo = _mm256_max_pd(a.lo, b.lo);
    a.hi = _mm256_max_pd(a.hi, b.hi);
    return a;
}
static CTVM_INLINE ctvm_vd ctvm_vfma_f64(ctvm_vd a, ctvm_vd b, ctvm_vd c)
{
    a.lo = _mm256_fmadd_pd(a.lo, b.lo, c.lo);
    a.hi = _mm256_fmadd_pd(a.hi, b.hi, c.hi);
    return a;
}
static CTVM_INLINE ctvm_vd ctvm_vsqrt_f64(ctvm_vd a)
{
    a.lo = _mm256_sqrt_pd(a.lo);
    a.hi = _mm256_sqrt_pd(a.hi);
    return a;
}
static CTVM_INLINE ctvm_vd ctvm_vneg_f64(ctvm_vd a)
{
    a.lo = _mm256_xor_pd(a.lo, _mm256_set1_pd(-0.0));
    a.hi = _mm256_xor_pd(a.hi, _mm256_set1_pd(-0.0));
    return a;
}
static CTVM_INLINE ctvm_vd ctvm_vabs_f64(ctvm_vd a)
{
    a.lo = _mm256_andnot_pd(_mm256_set1_pd(-0.0), a.lo);
    a.hi = _mm256_andnot_pd(_mm256_set1_pd(-0.0), a.hi);
    return a;
}
/* the low 32 bits of the 64-bit lanes of lo and hi, in lane order */
static CTVM_INLINE __m256 ctvm_vavx2_narrow64(__m256 lo, __m256 hi)
{
    __m256 s = _mm256_shuffle_ps(lo, hi, _MM_SHUFFLE(2, 0, 2, 0)); /* lo0 lo1 hi0 hi1 | lo2 lo3 hi2 hi3 */
    return _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(s), _MM_SHUFFLE(3, 1, 2, 0)));
}
#define CTVM_VAVX2_CMPPD(a, b, pred)                                                                                 \
    ctvm_vavx2_narrow64(_mm256_castpd_ps(_mm256_cmp_pd(a.lo, b.lo, pred)),                                           \
                        _mm256_castpd_ps(_mm256_cmp_pd(a.hi, b.hi, pred)))
static CTVM_INLINE ctvm_vm ctvm_vlt_f64(ctvm_vd a, ctvm_vd b) { return CTVM_VAVX2_CMPPD(a, b, _CMP_LT_OQ); }
static CTVM_INLINE ctvm_vm ctvm_vle_f64(ctvm_vd a, ctvm_vd b) { return CTVM_VAVX2_CMPPD(a, b, _CMP_LE_OQ); }
static CTVM_INLINE ctvm_vm ctvm_vgt_f64(ctvm_vd a, ctvm_vd b) { return CTVM_VAVX2_CMPPD(a, b, _CMP_GT_OQ); }
static CTVM_INLINE ctvm_vm ctvm_vge_f64(ctvm_vd a, ctvm_vd b) { return CTVM_VAVX2_CMPPD(a, b, _CMP_GE_OQ); }
static CTVM_INLINE ctvm_vm ctvm_veq_f64(ctvm_vd a, ctvm_vd b) { return CTVM_VAVX2_CMPPD(a, b, _CMP_EQ_OQ); }
static CTVM_INLINE ctvm_vm ctvm_vne_f64(ctvm_vd a, ctvm_vd b) { return CTVM_VAVX2_CMPPD(a, b, _CMP_NEQ_UQ); }

/* 64-bit integers, wrapping */
static CTVM_INLINE ctvm_vl ctvm_vadd_64(ctvm_vl a, ctvm_vl b)
{
    a.lo = _mm256_add_epi64(a.lo, b.lo);
    a.hi = _mm256_add_epi64(a.hi, b.hi);
    return a;
}
static CTVM_INLINE ctvm_vl ctvm_vsub_64(ctvm_vl a, ctvm_vl b)
{
    a.lo = _mm256_sub_epi64(a.lo, b.lo);
    a.hi = _mm256_sub_epi64(a.hi, b.hi);
    return a;
}
static CTVM_INLINE ctvm_vl ctvm_vand_64(ctvm_vl a, ctvm_vl b)
{
    a.lo = _mm256_and_si256(a.lo, b.lo);
    a.hi = _mm256_and_si256(a.hi, b.hi);
    return a;
}
static CTVM_INLINE ctvm_vl ctvm_vor_64(ctvm_vl a, ctvm_vl b)
{
    a.lo = _mm256_or_si256(a.lo, b.lo);
    a.hi = _mm256_or_si256(a.hi, b.hi);
    return a;
}
static CTVM_INLINE ctvm_vl ctvm_vxor_64(ctvm_vl a, ctvm_vl b)
{
    a.lo = _mm256_xor_si256(a.lo, b.lo);
    a.hi = _mm256_xor_si256(a.hi, b.hi);
    return a;
}

/* integer widening and narrowing */
static CTVM_INLINE ctvm_vi ctvm_vcvt_i8_i32(ctvm_vb b) { return _mm256_cvtepi8_epi32(b); }
static CTVM_INLINE ctvm_vi ctvm_vcvt_u8_i32(ctvm_vb b) { return _mm256_cvtepu8_epi32(b); }
static CTVM_INLINE ctvm_vi ctvm_vcvt_i16_i32(ctvm_vh h) { return _mm256_cvtepi16_epi32(h); }
static CTVM_INLINE ctvm_vi ctvm_vcvt_u16_i32(ctvm_vh h) { return _mm256_cvtepu16_epi32(h); }
#define CTVM_VAVX2_LO(a) _mm256_castsi256_si128(a)
#define CTVM_VAVX2_HI(a) _mm256_extracti128_si256(a, 1)
static CTVM_INLINE ctvm_vh ctvm_vcvt_i32_16(ctvm_vi a)
{
    a = _mm256_and_si256(a, _mm256_set1_epi32(0xffff));
    return _mm_packus_epi32(CTVM_VAVX2_LO(a), CTVM_VAVX2_HI(a));
}
static CTVM_INLINE ctvm_vb ctvm_vcvt_i32_8(ctvm_vi a)
{
    __m128i h;
    a = _mm256_and_si256(a, _mm256_set1_epi32(0xff));
    h = _mm_packus_epi32(CTVM_VAVX2_LO(a), CTVM_VAVX2_HI(a));
    return _mm_packus_epi16(h, h);
}
static CTVM_INLINE ctvm_vb ctvm_vcvt_i32_u8_sat(ctvm_vi a)
{
    __m128i s = _mm_packs_epi32(CTVM_VAVX2_LO(a), CTVM_VAVX2_HI(a));
    return _mm_packus_epi16(s, s);
}
static CTVM_INLINE ctvm_vb ctvm_vcvt_i32_i8_sat(ctvm_vi a)
{
    __m128i s = _mm_packs_epi32(CTVM_VAVX2_LO(a), CTVM_VAVX2_HI(a));
    return _mm_packs_epi16(s, s);
}
static CTVM_INLINE ctvm_vh ctvm_vcvt_i32_u16_sat(ctvm_vi a) { return _mm_packus_epi32(CTVM_VAVX2_LO(a), CTVM_VAVX2_HI(a)); }
static CTVM_INLINE ctvm_vh ctvm_vcvt_i32_i16_sat(ctvm_vi a) { return _mm_packs_epi32(CTVM_VAVX2_LO(a), CTVM_VAVX2_HI(a)); }
static CTVM_INLINE ctvm_vl ctvm_vcvt_i32_64(ctvm_vi a)
{
    ctvm_vl r;
    r.lo = _mm256_cvtepi32_epi64(CTVM_VAVX2_LO(a));
    r.hi = _mm256_cvtepi32_epi64(CTVM_VAVX2_HI(a));
    return r;
}
static CTVM_INLINE ctvm_vl ctvm_vcvt_u32_64(ctvm_vi a)
{
    ctvm_vl r;
    r.lo = _mm256_cvtepu32_epi64(CTVM_VAVX2_LO(a));
    r.hi = _mm256_cvtepu32_epi64(CTVM_VAVX2_HI(a));
    return r;
}
static CTVM_INLINE ctvm_vi ctvm_vcvt_64_i32(ctvm_vl a)
{
    return _mm256_castps_si256(ctvm_vavx2_narrow64(_mm256_castsi256_ps(a.lo), _mm256_castsi256_ps(a.hi)));
}

/* integer <-> float32 and rounding */
static CTVM_INLINE ctvm_vf ctvm_vcvt_i32_f32(ctvm_vi a) { return _mm256_cvtepi32_ps(a); }
/* (float)uint32: hi*65536 + lo with one rounding */
static CTVM_INLINE ctvm_vf ctvm_vcvt_u32_f32(ctvm_vi a)
{
    __m256 hi = _mm256_cvtepi32_ps(_mm256_srli_epi32(a, 16));
    __m256 lo = _mm256_cvtepi32_ps(_mm256_and_si256(a, _mm256_set1_epi32(0xffff)));
    return _mm256_fmadd_ps(hi, _mm256_set1_ps(65536.0f), lo);
}
/* Toward zero. A lane out of int32 range (cvttps gives INT_MIN) sends the
 * vector through the scalar code's own conversion, (int32_t)(int64_t)x, so
 * it wraps exactly as the generated scalar code does. */
static int32_t ctvm_vavx2_f32_i32_slow(float x) { return (int32_t)(int64_t)x; }
static CTVM_INLINE ctvm_vi ctvm_vcvt_f32_i32(ctvm_vf x)
{
    __m256i r = _mm256_cvttps_epi32(x);
    if (_mm256_movemask_epi8(_mm256_cmpeq_epi32(r, _mm256_set1_epi32(-2147483647 - 1)))) {
        float t[8];
        int32_t o[8];
        int l;
        _mm256_storeu_ps(t, x);
        for (l = 0; l < 8; l++)
            o[l] = ctvm_vavx2_f32_i32_slow(t[l]);
        r = _mm256_loadu_si256((const __m256i *)o);
    }
    return r;
}
/* to the nearest int32, ties to even (QuantizeLinear's rounding), saturating:
 * x >= 2^31 gives INT32_MAX, x < -2^31 INT32_MIN, NaN 0 (as AArch64's
 * FCVTNS).
 * vcvtps2dq rounds by MXCSR: to nearest even in the default mode, which the
 * generated code assumes throughout; it gives INT_MIN out of range and for
 * NaN, fixed up here. */
static CTVM_INLINE ctvm_vi ctvm_vcvt_f32_i32_rne(ctvm_vf x)
{
    __m256i r = _mm256_cvtps_epi32(x);
    r = _mm256_xor_si256(r, _mm256_castps_si256(_mm256_cmp_ps(x, _mm256_set1_ps(2147483648.0f), _CMP_GE_OQ)));
    return _mm256_and_si256(r, _mm256_castps_si256(_mm256_cmp_ps(x, x, _CMP_ORD_Q)));
}
/* x rounded to nearest even, for x not NaN and within int32 (a clamped
   value: the requantization; else unspecified) - no fixups */
static CTVM_INLINE ctvm_vi ctvm_vcvt_f32_i32_rne_in(ctvm_vf x) { return _mm256_cvtps_epi32(x); }
static CTVM_INLINE ctvm_vf ctvm_vfloor(ctvm_vf x) { return _mm256_round_ps(x, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC); }
static CTVM_INLINE ctvm_vf ctvm_vceil(ctvm_vf x) { return _mm256_round_ps(x, _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC); }
static CTVM_INLINE ctvm_vf ctvm_vtrunc(ctvm_vf x) { return _mm256_round_ps(x, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC); }
static CTVM_INLINE ctvm_vd ctvm_vcvt_f32_f64(ctvm_vf x)
{
    ctvm_vd r;
    r.lo = _mm256_cvtps_pd(_mm256_castps256_ps128(x));
    r.hi = _mm256_cvtps_pd(_mm256_extractf128_ps(x, 1));
    return r;
}
static CTVM_INLINE ctvm_vf ctvm_vcvt_f64_f32(ctvm_vd x)
{
    return _mm256_insertf128_ps(_mm256_castps128_ps256(_mm256_cvtpd_ps(x.lo)), _mm256_cvtpd_ps(x.hi), 1);
}

/* float16 / bfloat16 bits <-> float32, bit for bit as ctvm_types.h (round to
 * nearest even; a NaN becomes the quiet NaN 0x7fc00000 / 0x7e00 with the
 * input's sign, where F16C would keep payload bits) */
static CTVM_INLINE __m256i ctvm_vavx2_nan_canon(__m256 x)
{
    __m256i sign = _mm256_and_si256(_mm256_castps_si256(x), _mm256_set1_epi32(-2147483647 - 1));
    return _mm256_blendv_epi8(_mm256_castps_si256(x), _mm256_or_si256(sign, _mm256_set1_epi32(0x7fc00000)),
                              _mm256_castps_si256(_mm256_cmp_ps(x, x, _CMP_UNORD_Q)));
}
#if defined(__F16C__)
static CTVM_INLINE ctvm_vf ctvm_vcvt_f16_f32(ctvm_vh h) { return _mm256_castsi256_ps(ctvm_vavx2_nan_canon(_mm256_cvtph_ps(h))); }
static CTVM_INLINE ctvm_vh ctvm_vcvt_f32_f16(ctvm_vf x)
{
    return _mm256_cvtps_ph(_mm256_castsi256_ps(ctvm_vavx2_nan_canon(x)), _MM_FROUND_TO_NEAREST_INT);
}
#else
static CTVM_INLINE ctvm_vf ctvm_vcvt_f16_f32(ctvm_vh h)
{
    __m256i h32 = _mm256_cvtepu16_epi32(h), em = _mm256_and_si256(h32, _mm256_set1_epi32(0x7fff));
    __m256i sign = _mm256_slli_epi32(_mm256_xor_si256(h32, em), 16);
    __m256i r = _mm256_add_epi32(_mm256_slli_epi32(em, 13), _mm256_set1_epi32(0x38000000)); /* normal */
    __m256 sub = _mm256_mul_ps(_mm256_cvtepi32_ps(em), _mm256_set1_ps(5.9604644775390625e-8f)); /* m * 2^-24 */
    r = _mm256_blendv_epi8(r, _mm256_castps_si256(sub), _mm256_cmpgt_epi32(_mm256_set1_epi32(0x400), em));
    r = _mm256_blendv_epi8(r, _mm256_set1_epi32(0x7f800000), _mm256_cmpgt_epi32(em, _mm256_set1_epi32(0x7bff)));
    r = _mm256_blendv_epi8(r, _mm256_set1_epi32(0x7fc00000), _mm256_cmpgt_epi32(em, _mm256_set1_epi32(0x7c00)));
    return _mm256_castsi256_ps(_mm256_or_si256(r, sign));
}
static CTVM_INLINE ctvm_vh ctvm_vcvt_f32_f16(ctvm_vf x)
{
    __m256i b = _mm256_castps_si256(x), a = _mm256_and_si256(b, _mm256_set1_epi32(0x7fffffff));
    __m256i sign = _mm256_and_si256(_mm256_srli_epi32(b, 16), _mm256_set1_epi32(0x8000));
    __m256i t = _mm256_sub_epi32(a, _mm256_set1_epi32(0x38000000)), r;
    /* subnormal or zero result: round(|x| * 2^24) by adding 2^23 */
    __m256 s = _mm256_fmadd_ps(_mm256_castsi256_ps(a), _mm256_set1_ps(16777216.0f), _mm256_set1_ps(8388608.0f));
    r = _mm256_sub_epi32(_mm256_castps_si256(s), _mm256_set1_epi32(0x4b000000));
    /* normal: drop 13 mantissa bits, to nearest even */
    t = _mm256_srli_epi32(_mm256_add_epi32(_mm256_add_epi32(t, _mm256_set1_epi32(0xfff)),
                                           _mm256_and_si256(_mm256_srli_epi32(t, 13), _mm256_set1_epi32(1))), 13);
    r = _mm256_blendv_epi8(r, t, _mm256_cmpgt_epi32(a, _mm256_set1_epi32(0x387fffff)));
    r = _mm256_blendv_epi8(r, _mm256_set1_epi32(0x7c00), _mm256_cmpgt_epi32(a, _mm256_set1_epi32(0x477fefff)));
    r = _mm256_blendv_epi8(r, _mm256_set1_epi32(0x7e00), _mm256_cmpgt_epi32(a, _mm256_set1_epi32(0x7f800000)));
    r = _mm256_or_si256(r, sign);
    return _mm_packus_epi32(CTVM_VAVX2_LO(r), CTVM_VAVX2_HI(r));
}
#endif
static CTVM_INLINE ctvm_vf ctvm_vcvt_bf16_f32(ctvm_vh h)
{
    return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16));
}
static CTVM_INLINE ctvm_vh ctvm_vcvt_f32_bf16(ctvm_vf x)
{
    __m256i b = _mm256_castps_si256(x), hi = _mm256_srli_epi32(b, 16);
    __m256i r = _mm256_srli_epi32(_mm256_add_epi32(_mm256_add_epi32(b, _mm256_set1_epi32(0x7fff)),
                                                   _mm256_and_si256(hi, _mm256_set1_epi32(1))), 16);
    __m256i nan = _mm256_cmpgt_epi32(_mm256_and_si256(b, _mm256_set1_epi32(0x7fffffff)), _mm256_set1_epi32(0x7f800000));
    r = _mm256_blendv_epi8(r, _mm256_or_si256(hi, _mm256_set1_epi32(0x40)), nan); /* NaN stays a quiet NaN */
    return _mm_packus_epi32(CTVM_VAVX2_LO(r), CTVM_VAVX2_HI(r));
}

/* dot products. vpdpbusd (AVX-VNNI, or AVX-512 VNNI with VL) is exact and
 * wraps; signed x signed is (a^0x80) x b - 128 x b with it. Otherwise bytes
 * 0,2 and 1,3 of each lane are widened to 16 bits and summed by pmaddwd
 * (exact: no product pair reaches pmaddwd's one overflow). */
#if defined(__AVXVNNI__) || defined(CTVM_EXT_AVXVNNI) /* the latter: target x86_64-avx2-vnni */
#define CTVM_VAVX2_DPBUSD(acc, a, b) _mm256_dpbusd_avx_epi32(acc, a, b)
#define CTVM_VAVX2_DPWSSD(acc, a, b) _mm256_dpwssd_avx_epi32(acc, a, b)
#elif defined(__AVX512VNNI__) && defined(__AVX512VL__) && defined(__GNUC__)
/* one register for the sum, as in ctvm_vec_avx512.h (gcc 12 copies it
   around every _mm256_dpbusd_epi32) */
static CTVM_INLINE __m256i ctvm_vavx2_dpbusd(__m256i acc, __m256i a, __m256i b)
{
    __asm__("vpdpbusd %2, %1, %0" : "+v"(acc) : "v"(a), "vm"(b));
    return acc;
}
#define CTVM_VAVX2_DPBUSD(acc, a, b) ctvm_vavx2_dpbusd(acc, a, b)
static CTVM_INLINE __m256i ctvm_vavx2_dpwssd(__m256i acc, __m256i a, __m256i b)
{
    __asm__("vpdpwssd %2, %1, %0" : "+v"(acc) : "v"(a), "vm"(b));
    return acc;
}
#define CTVM_VAVX2_DPWSSD(acc, a, b) ctvm_vavx2_dpwssd(acc, a, b)
#elif defined(__AVX512VNNI__) && defined(__AVX512VL__)
#define CTVM_VAVX2_DPBUSD(acc, a, b) _mm256_dpbusd_epi32(acc, a, b)
#define CTVM_VAVX2_DPWSSD(acc, a, b) _mm256_dpwssd_epi32(acc, a, b)
#endif
/* acc + a*b for a in [0, 32767], b in [-32768, 32767]: a's high half is 0,
   so pmaddwd's pair sum is the one product (vpdpwssd with VNNI); wraps */
#ifdef CTVM_VAVX2_DPWSSD
static CTVM_INLINE ctvm_vi ctvm_vmla16_i32(ctvm_vi acc, ctvm_vi a, ctvm_vi b) { return CTVM_VAVX2_DPWSSD(acc, a, b); }
#else
static CTVM_INLINE ctvm_vi ctvm_vmla16_i32(ctvm_vi acc, ctvm_vi a, ctvm_vi b)
{
    return _mm256_add_epi32(acc, _mm256_madd_epi16(a, b));
}
#endif
#ifdef CTVM_VAVX2_DPBUSD
static CTVM_INLINE ctvm_vi ctvm_vdot_u8i8(ctvm_vi acc, ctvm_vq a, ctvm_vq b) { return CTVM_VAVX2_DPBUSD(acc, a, b); }
static CTVM_INLINE ctvm_vi ctvm_vdot_i8i8(ctvm_vi acc, ctvm_vq a, ctvm_vq b)
{
    __m256i bias = _mm256_set1_epi8(-128);
    return _mm256_sub_epi32(CTVM_VAVX2_DPBUSD(acc, _mm256_xor_si256(a, bias), b),
                            CTVM_VAVX2_DPBUSD(_mm256_setzero_si256(), bias, b));
}
#else
static CTVM_INLINE ctvm_vi ctvm_vdot_u8i8(ctvm_vi acc, ctvm_vq a, ctvm_vq b)
{
    __m256i ae = _mm256_and_si256(a, _mm256_set1_epi16(0xff)), ao = _mm256_srli_epi16(a, 8);
    __m256i be = _mm256_srai_epi16(_mm256_slli_epi16(b, 8), 8), bo = _mm256_srai_epi16(b, 8);
    return _mm256_add_epi32(acc, _mm256_add_epi32(_mm256_madd_epi16(ae, be), _mm256_madd_epi16(ao, bo)));
}
static CTVM_INLINE ctvm_vi ctvm_vdot_i8i8(ctvm_vi acc, ctvm_vq a, ctvm_vq b)
{
    __m256i ae = _mm256_srai_epi16(_mm256_slli_epi16(a, 8), 8), ao = _mm256_srai_epi16(a, 8);
    __m256i be = _mm256_srai_epi16(_mm256_slli_epi16(b, 8), 8), bo = _mm256_srai_epi16(b, 8);
    return _mm256_add_epi32(acc, _mm256_add_epi32(_mm256_madd_epi16(ae, be), _mm256_madd_epi16(ao, bo)));
}
#endif

/* bfloat16 dot product: ctvm_vq holds 2*CTVM_VL bfloat16 values (element
 * 2l in the low half of 32-bit group l, 2l+1 in the high half). Lane l:
 * acc[l] + a[2l+1]*b[2l+1], rounded, then + a[2l]*b[2l], rounded (each
 * product of two bfloat16 values is exact in float32, so this is two fused
 * multiply-adds, odd pair first: AVX512-BF16's vdpbf16ps, bit for bit on
 * normal numbers; it flushes denormal inputs and results to zero, which
 * the fallbacks do not). */
#define CTVM_HAS_DOT_BF16 0
static CTVM_INLINE ctvm_vf ctvm_vdot_bf16(ctvm_vf acc, ctvm_vq a, ctvm_vq b)
{
    __m256i hi = _mm256_set1_epi32((int32_t)0xffff0000u);
    acc = _mm256_fmadd_ps(_mm256_castsi256_ps(_mm256_and_si256(a, hi)), _mm256_castsi256_ps(_mm256_and_si256(b, hi)), acc);
    return _mm256_fmadd_ps(_mm256_castsi256_ps(_mm256_slli_epi32(a, 16)), _mm256_castsi256_ps(_mm256_slli_epi32(b, 16)),
                           acc);
}

#if defined(__clang__)
#pragma clang diagnostic pop
#endif

#endif /* ISA */
#endif
