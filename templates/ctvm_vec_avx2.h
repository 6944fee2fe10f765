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
 * is fused. exp, tanh and sigmoid are computed here (no libm), with the
 * same algorithm and constants as the other SIMD headers: see ctvm_vexp.
 * Assumes runtime_min/ctvm_runtime.h was pasted first (CTVM_INLINE). Every
 * header of the API (templates/ctvm_vec_*.h) defines the same functions
 * with the same semantics; see docs/ARCHITECTURE.md "Vector API". */
#ifndef CTVM_VEC_H
#define CTVM_VEC_H

#if defined(__AVX2__) && defined(__FMA__)
#define CTVM_ISA_BY 0 /* the command line's flags */
#elif (defined(__x86_64__) || defined(__i386__)) && defined(__clang__)
#define CTVM_ISA_BY 2 /* #pragma clang attribute, after the intrinsics */
#elif (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__) && !defined(__clang__) && !defined(__INTEL_COMPILER)
#define CTVM_ISA_BY 1
#pragma GCC push_options
#pragma GCC target("avx2,fma")
#define CTVM_ISA_END _Pragma("GCC pop_options")
#endif

#if !defined(CTVM_ISA_BY) && !defined(__x86_64__) && !defined(__i386__)
#error "ctvm: generated for target x86_64-avx2: this compiler does not build x86 code (emit the file for this machine's --target)"
#elif !defined(CTVM_ISA_BY)
#error "ctvm: generated for target x86_64-avx2: compile with -mavx2 -mfma (or -march=native)"
#else /* the rest only with the ISA, so the #error is the one message */

#include <immintrin.h>

#if CTVM_ISA_BY == 2
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

/* e^x. x = n*ln2 + r with n = round(x/ln2), |r| <= ln2/2 (ln2 split in a
 * 12-bit high part, so n*hi is exact, and a low part); e^r = 1 + r +
 * r^2*q(r) with q a degree-5 near-minimax fit of (e^r - 1 - r)/r^2;
 * then two multiplications by 2^(n/2) and 2^(n - n/2) built in the exponent
 * bits, so the scale itself never overflows and results in the denormal
 * range round once. x is clamped to [-104, 89] first (NaN passes the clamp):
 * above ln(FLT_MAX) ~ 88.72 the product overflows to +inf, below ~ -103.97
 * it rounds to 0. Max relative error ~ 1.5e-7 for normal results. */
static CTVM_INLINE ctvm_vf ctvm_vexp(ctvm_vf x)
{
    __m256 nf, r, q, p;
    __m256i n, n1, n2, bias = _mm256_set1_epi32(127);
    x = _mm256_max_ps(_mm256_set1_ps(-104.0f), x); /* NaN: second operand */
    x = _mm256_min_ps(_mm256_set1_ps(89.0f), x);
    nf = _mm256_round_ps(_mm256_mul_ps(x, _mm256_set1_ps(1.44269502f)), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    r = _mm256_fnmadd_ps(nf, _mm256_set1_ps(0.693115234375f), x);
    r = _mm256_fnmadd_ps(nf, _mm256_set1_ps(3.19461833e-05f), r);
    q = _mm256_set1_ps(1.98909809e-4f);
    q = _mm256_fmadd_ps(q, r, _mm256_set1_ps(1.39336416e-3f));
    q = _mm256_fmadd_ps(q, r, _mm256_set1_ps(8.33331048e-3f));
    q = _mm256_fmadd_ps(q, r, _mm256_set1_ps(4.16664667e-2f));
    q = _mm256_fmadd_ps(q, r, _mm256_set1_ps(1.66666672e-1f));
    q = _mm256_fmadd_ps(q, r, _mm256_set1_ps(0.5f));
    p = _mm256_fmadd_ps(q, _mm256_mul_ps(r, r), r);
    p = _mm256_add_ps(p, _mm256_set1_ps(1.0f));
    n = _mm256_cvttps_epi32(nf); /* nf is integral, in [-150, 128] */
    n1 = _mm256_srai_epi32(n, 1);
    n2 = _mm256_sub_epi32(n, n1);
    p = _mm256_mul_ps(p, _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(n1, bias), 23)));
    return _mm256_mul_ps(p, _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(n2, bias), 23)));
}

/* tanh: |x| < 0.625: x + x^3*P(x^2), P a degree-4 near-minimax fit (no
 * cancellation near 0; exact for tiny x); else sign(x) * (1 - 2/(e^(2|x|)+1)),
 * which saturates to 1 when e^(2|x|) overflows. Max error ~ 2e-7. */
static CTVM_INLINE ctvm_vf ctvm_vtanh(ctvm_vf x)
{
    __m256 sign = _mm256_set1_ps(-0.0f), one = _mm256_set1_ps(1.0f);
    __m256 ax = _mm256_andnot_ps(sign, x), z = _mm256_mul_ps(x, x), q, small, e, big;
    q = _mm256_set1_ps(-6.09671418e-3f);
    q = _mm256_fmadd_ps(q, z, _mm256_set1_ps(2.09971797e-2f));
    q = _mm256_fmadd_ps(q, z, _mm256_set1_ps(-5.38509078e-2f));
    q = _mm256_fmadd_ps(q, z, _mm256_set1_ps(1.33327693e-1f));
    q = _mm256_fmadd_ps(q, z, _mm256_set1_ps(-3.33333284e-1f));
    small = _mm256_fmadd_ps(_mm256_mul_ps(x, z), q, x);
    e = ctvm_vexp(_mm256_add_ps(ax, ax));
    big = _mm256_sub_ps(one, _mm256_div_ps(_mm256_set1_ps(2.0f), _mm256_add_ps(e, one)));
    big = _mm256_or_ps(big, _mm256_and_ps(x, sign));
    return _mm256_blendv_ps(big, small, _mm256_cmp_ps(ax, _mm256_set1_ps(0.625f), _CMP_LT_OQ));
}

/* sigmoid: t = e^-|x| in (0, 1], then 1/(1+t) for x >= 0 and t/(1+t) for
 * x < 0: no overflow, exactly 0 and 1 at -inf and +inf, accurate tails. */
static CTVM_INLINE ctvm_vf ctvm_vsigmoid(ctvm_vf x)
{
    __m256 one = _mm256_set1_ps(1.0f);
    __m256 t = ctvm_vexp(_mm256_or_ps(x, _mm256_set1_ps(-0.0f))); /* e^-|x| */
    __m256 num = _mm256_blendv_ps(one, t, _mm256_cmp_ps(x, _mm256_setzero_ps(), _CMP_LT_OQ));
    return _mm256_div_ps(num, _mm256_add_ps(one, t));
}

#if defined(__clang__)
#pragma clang diagnostic pop
#endif

#endif /* ISA */
#endif
