/* ctvm_vec_neon.h - the ctvm vector API on ARM NEON (CTVM_VL 4).
 *
 * Pasted by emit_c into model.c for --target aarch64 and armv7-neon. On
 * aarch64 NEON is always there (gcc given +nosimd gets it back by
 * `#pragma GCC target("+simd")`); armv7 takes -mfpu=neon-vfpv4 (or
 * -mfpu=neon) -mfloat-abi=hard (or softfp), and without a NEON -mfpu gcc
 * enables NEON + VFPv4 itself by `#pragma GCC target("fpu=neon-vfpv4")` on
 * an ARMv7-A (or later) with a hardware FPU ABI (Debian armhf's default
 * -mfpu=vfpv3-d16, for instance). model.c closes such a pragma region after
 * its entry points with CTVM_ISA_END, and the code then runs only on a CPU
 * with NEON (and VFPv4). Soft-float, pre-v7 or M-profile builds, clang
 * without NEON (its arm_neon.h refuses) and other compilers stop at the
 * #error below. exp, tanh, sigmoid, log... are templates/ctvm_vec_math.h,
 * on the bit primitives at the end of this file.
 *
 * armv7 differences: there is no vector divide, square root, fused
 * multiply-add without VFPv4, round-to-nearest conversion or across-lane
 * add/max. ctvm_vdiv and ctvm_vsqrt then work lane by lane with the scalar
 * VFP instructions, so they stay exactly rounded (a reciprocal estimate +
 * Newton steps would be faster but is off by an ulp and wrong for divisors
 * beyond 2^126; tanh and sigmoid, which need only 2e-6, do use it);
 * ctvm_vfma is fused (vfma) with VFPv4 and an unfused vmla
 * with plain -mfpu=neon. armv7 NEON arithmetic also always flushes
 * denormal inputs and results to zero (the FPSCR setting does not apply).
 *
 * Assumes runtime_min/ctvm_runtime.h was pasted first (CTVM_INLINE,
 * <math.h>). Every header of the API (templates/ctvm_vec_*.h) defines the
 * same functions with the same semantics; see docs/ARCHITECTURE.md
 * "Vector API". */
#ifndef CTVM_VEC_H
#define CTVM_VEC_H

#if defined(__ARM_NEON)
#define CTVM_ISA_BY 0 /* the command line's flags */
#elif defined(__aarch64__) && defined(__ARM_FP) && defined(__GNUC__) && !defined(__clang__)
#define CTVM_ISA_BY 1
#pragma GCC push_options
#pragma GCC target("+simd")
#define CTVM_ISA_END _Pragma("GCC pop_options")
#elif defined(__arm__) && defined(__ARM_ARCH) && __ARM_ARCH >= 7 && defined(__ARM_ARCH_PROFILE) && \
    __ARM_ARCH_PROFILE == 'A' && defined(__ARM_FP) && !defined(__SOFTFP__) && defined(__GNUC__) && !defined(__clang__)
#define CTVM_ISA_BY 1
#pragma GCC push_options
#pragma GCC target("fpu=neon-vfpv4")
#define CTVM_ISA_END _Pragma("GCC pop_options")
#endif

#ifndef CTVM_ISA_BY
#error "ctvm: generated for target aarch64/armv7-neon: compile for ARM with NEON (aarch64, or armv7 with -mfpu=neon-vfpv4 -mfloat-abi=hard)"
#else /* the rest only with NEON, so the #error is the one message */

#include <arm_neon.h>

#define CTVM_VL 4
#define CTVM_ISA "neon"

/* clang, unlike gcc, warns about unused static inline functions of the main
 * file, which is where this API lands in model.c. */
#if defined(__clang__)
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wunused-function"
#endif

typedef float32x4_t ctvm_vf; /* CTVM_VL floats */
typedef uint32x4_t ctvm_vm;  /* lane mask: all ones or all zeros per lane */

static CTVM_INLINE ctvm_vf ctvm_vload(const float *p) { return vld1q_f32(p); }
static CTVM_INLINE void ctvm_vstore(float *p, ctvm_vf v) { vst1q_f32(p, v); }
/* the first n lanes (0 < n <= CTVM_VL) of a vector: a row's tail (lp_vectorize) */
static CTVM_INLINE ctvm_vf ctvm_vload_n(const float *p, int n)
{
    float t[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    for (int i = 0; i < n; i++)
        t[i] = p[i];
    return vld1q_f32(t);
}
static CTVM_INLINE void ctvm_vstore_n(float *p, ctvm_vf v, int n)
{
    float t[4];
    vst1q_f32(t, v);
    for (int i = 0; i < n; i++)
        p[i] = t[i];
}
static CTVM_INLINE ctvm_vm ctvm_vmask_n(int n)
{
    static const uint32_t lane[4] = {0, 1, 2, 3};
    return vcltq_u32(vld1q_u32(lane), vdupq_n_u32((uint32_t)n));
}
static CTVM_INLINE ctvm_vf ctvm_vset1(float x) { return vdupq_n_f32(x); }
static CTVM_INLINE ctvm_vf ctvm_vzero(void) { return vdupq_n_f32(0.0f); }

static CTVM_INLINE ctvm_vf ctvm_vadd(ctvm_vf a, ctvm_vf b) { return vaddq_f32(a, b); }
static CTVM_INLINE ctvm_vf ctvm_vsub(ctvm_vf a, ctvm_vf b) { return vsubq_f32(a, b); }
static CTVM_INLINE ctvm_vf ctvm_vmul(ctvm_vf a, ctvm_vf b) { return vmulq_f32(a, b); }
#if defined(__aarch64__)
static CTVM_INLINE ctvm_vf ctvm_vdiv(ctvm_vf a, ctvm_vf b) { return vdivq_f32(a, b); }
static CTVM_INLINE ctvm_vf ctvm_vsqrt(ctvm_vf a) { return vsqrtq_f32(a); }
#else
static CTVM_INLINE ctvm_vf ctvm_vdiv(ctvm_vf a, ctvm_vf b)
{
    float ta[4], tb[4];
    vst1q_f32(ta, a);
    vst1q_f32(tb, b);
    ta[0] /= tb[0];
    ta[1] /= tb[1];
    ta[2] /= tb[2];
    ta[3] /= tb[3];
    return vld1q_f32(ta);
}
static CTVM_INLINE ctvm_vf ctvm_vsqrt(ctvm_vf a)
{
    float t[4];
    vst1q_f32(t, a);
    t[0] = sqrtf(t[0]);
    t[1] = sqrtf(t[1]);
    t[2] = sqrtf(t[2]);
    t[3] = sqrtf(t[3]);
    return vld1q_f32(t);
}
#endif
/* a/b inside tanh and sigmoid, where b is in [1, inf] and 2e-6 is enough:
 * armv7 uses a reciprocal estimate and two Newton steps (~1 ulp; b = inf
 * gives 0) instead of four scalar divisions. */
#if defined(__aarch64__)
#define CTVM_VNEON_DIV_APPROX(a, b) vdivq_f32(a, b)
#else
static CTVM_INLINE float32x4_t ctvm_vneon_div_approx(float32x4_t a, float32x4_t b)
{
    float32x4_t r = vrecpeq_f32(b);
    r = vmulq_f32(vrecpsq_f32(b, r), r);
    r = vmulq_f32(vrecpsq_f32(b, r), r);
    return vmulq_f32(a, r);
}
#define CTVM_VNEON_DIV_APPROX(a, b) ctvm_vneon_div_approx(a, b)
#endif
/* vminq/vmaxq return NaN for a NaN lane; the API wants a < b ? a : b */
static CTVM_INLINE ctvm_vf ctvm_vmin(ctvm_vf a, ctvm_vf b) { return vbslq_f32(vcltq_f32(a, b), a, b); }
static CTVM_INLINE ctvm_vf ctvm_vmax(ctvm_vf a, ctvm_vf b) { return vbslq_f32(vcgtq_f32(a, b), a, b); }
#if defined(__aarch64__) || defined(__ARM_FEATURE_FMA)
#define CTVM_VNEON_FMA(a, b, c) vfmaq_f32(c, a, b) /* fused a*b + c */
#else
#define CTVM_VNEON_FMA(a, b, c) vmlaq_f32(c, a, b) /* unfused a*b + c */
#endif
static CTVM_INLINE ctvm_vf ctvm_vfma(ctvm_vf a, ctvm_vf b, ctvm_vf c) { return CTVM_VNEON_FMA(a, b, c); }
static CTVM_INLINE ctvm_vf ctvm_vneg(ctvm_vf a) { return vnegq_f32(a); }
static CTVM_INLINE ctvm_vf ctvm_vabs(ctvm_vf a) { return vabsq_f32(a); }

/* ordered compares: false when either lane is NaN */
static CTVM_INLINE ctvm_vm ctvm_vlt(ctvm_vf a, ctvm_vf b) { return vcltq_f32(a, b); }
static CTVM_INLINE ctvm_vm ctvm_vle(ctvm_vf a, ctvm_vf b) { return vcleq_f32(a, b); }
static CTVM_INLINE ctvm_vm ctvm_vge(ctvm_vf a, ctvm_vf b) { return vcgeq_f32(a, b); }
static CTVM_INLINE ctvm_vm ctvm_veq(ctvm_vf a, ctvm_vf b) { return vceqq_f32(a, b); }
static CTVM_INLINE ctvm_vm ctvm_vmand(ctvm_vm a, ctvm_vm b) { return vandq_u32(a, b); }
static CTVM_INLINE ctvm_vf ctvm_vselect(ctvm_vm m, ctvm_vf a, ctvm_vf b) { return vbslq_f32(m, a, b); }

#if defined(__aarch64__)
static CTVM_INLINE float ctvm_vhsum(ctvm_vf v) { return vaddvq_f32(v); }
/* Max of the lanes; a NaN lane gives NaN here (unspecified by the API). */
static CTVM_INLINE float ctvm_vhmax(ctvm_vf v) { return vmaxvq_f32(v); }
#else
static CTVM_INLINE float ctvm_vhsum(ctvm_vf v)
{
    float32x2_t s = vadd_f32(vget_low_f32(v), vget_high_f32(v));
    return vget_lane_f32(vpadd_f32(s, s), 0);
}
static CTVM_INLINE float ctvm_vhmax(ctvm_vf v)
{
    float32x2_t s = vpmax_f32(vget_low_f32(v), vget_high_f32(v));
    return vget_lane_f32(vpmax_f32(s, s), 0);
}
#endif

/* Min of the lanes; unspecified which lane wins if one is NaN. */
#if defined(__aarch64__)
static CTVM_INLINE float ctvm_vhmin(ctvm_vf v) { return vminvq_f32(v); }
#else
static CTVM_INLINE float ctvm_vhmin(ctvm_vf v)
{
    float32x2_t s = vpmin_f32(vget_low_f32(v), vget_high_f32(v));
    return vget_lane_f32(vpmin_f32(s, s), 0);
}
#endif
static CTVM_INLINE float ctvm_vfirst(ctvm_vf v) { return vgetq_lane_f32(v, 0); }

/* the bit primitives templates/ctvm_vec_math.h is written on */
/* a/b for b in [1, 2^126) (tanh, sigmoid): armv7 takes CTVM_VNEON_DIV_APPROX */
static CTVM_INLINE ctvm_vf ctvm_vdiv_fast(ctvm_vf a, ctvm_vf b) { return CTVM_VNEON_DIV_APPROX(a, b); }
/* to the nearest integer, ties to even; armv7: |a| + 2^23 - 2^23 rounds
 * |a| < 2^23 so (NEON rounds to nearest even), larger |a| are integers */
#if defined(__aarch64__)
static CTVM_INLINE ctvm_vf ctvm_vround(ctvm_vf a) { return vrndnq_f32(a); }
#else
static CTVM_INLINE ctvm_vf ctvm_vround(ctvm_vf a)
{
    float32x4_t two23 = vdupq_n_f32(8388608.0f), ax = vabsq_f32(a);
    float32x4_t r = vsubq_f32(vaddq_f32(ax, two23), two23);
    uint32x4_t sign = vandq_u32(vreinterpretq_u32_f32(a), vdupq_n_u32(0x80000000u));
    r = vreinterpretq_f32_u32(vorrq_u32(vreinterpretq_u32_f32(r), sign));
    return vbslq_f32(vcltq_f32(ax, two23), r, a); /* NaN: a */
}
#endif
/* bitwise and / or of the lanes' bits (signs: x | -0.0f is -|x|) */
static CTVM_INLINE ctvm_vf ctvm_vbitand(ctvm_vf a, ctvm_vf b)
{
    return vreinterpretq_f32_u32(vandq_u32(vreinterpretq_u32_f32(a), vreinterpretq_u32_f32(b)));
}
static CTVM_INLINE ctvm_vf ctvm_vbitor(ctvm_vf a, ctvm_vf b)
{
    return vreinterpretq_f32_u32(vorrq_u32(vreinterpretq_u32_f32(a), vreinterpretq_u32_f32(b)));
}
/* p * 2^(n>>1) * 2^(n - (n>>1)) for an integer n in [-252, 254]: both
 * scales built in the exponent bits, so the scale never overflows and a
 * result in the denormal range rounds once (p in [1/2, 2]) */
static CTVM_INLINE ctvm_vf ctvm_vldexp(ctvm_vf p, ctvm_vf n)
{
    int32x4_t k = vcvtq_s32_f32(n), k1 = vshrq_n_s32(k, 1), bias = vdupq_n_s32(127);
    p = vmulq_f32(p, vreinterpretq_f32_s32(vshlq_n_s32(vaddq_s32(k1, bias), 23)));
    return vmulq_f32(p, vreinterpretq_f32_s32(vshlq_n_s32(vaddq_s32(vsubq_s32(k, k1), bias), 23)));
}
/* the exponent field of a minus 127: floor(log2 |a|) for normal a */
static CTVM_INLINE ctvm_vf ctvm_vgetexp(ctvm_vf a)
{
    uint32x4_t e = vandq_u32(vshrq_n_u32(vreinterpretq_u32_f32(a), 23), vdupq_n_u32(255));
    return vcvtq_f32_s32(vsubq_s32(vreinterpretq_s32_u32(e), vdupq_n_s32(127)));
}
/* |a| with the exponent field 127: in [1, 2) for normal a */
static CTVM_INLINE ctvm_vf ctvm_vgetmant(ctvm_vf a)
{
    uint32x4_t m = vandq_u32(vreinterpretq_u32_f32(a), vdupq_n_u32(0x007fffffu));
    return vreinterpretq_f32_u32(vorrq_u32(m, vdupq_n_u32(0x3f800000u)));
}

/* ---- typed vectors: integers, float64, conversions, dot products ----
 * Every type has CTVM_VL (4) lanes except ctvm_vq (16 bytes): 4 x 16-bit
 * in a uint16x4_t, 4 x 8-bit in the low half of a uint8x8_t, 64-bit lanes
 * in two int64x2_t, float64 in two float64x2_t (aarch64) or four doubles
 * computed by the scalar VFP (armv7 NEON has no float64). Integer
 * arithmetic wraps. float16 uses vcvt_f32_f16 / vcvt_f16_f32 on aarch64
 * (NaN made canonical as ctvm_types.h does), exact integer code on armv7,
 * where NEON would flush and default NaNs. The dot products are one
 * SDOT / USDOT with the dotprod / i8mm extensions (-march=armv8.2-a+dotprod,
 * +i8mm), widening multiplies and pairwise adds otherwise. See
 * docs/ARCHITECTURE.md "Vector API". */
#if defined(__aarch64__) && defined(__ARM_FEATURE_DOTPROD)
#define CTVM_HAS_DOT_I8I8 1
#else
#define CTVM_HAS_DOT_I8I8 0
#endif
#if defined(__aarch64__) && defined(__ARM_FEATURE_MATMUL_INT8)
#define CTVM_HAS_DOT_U8I8 1
#else
#define CTVM_HAS_DOT_U8I8 0
#endif

typedef int32x4_t ctvm_vi;  /* 4 x 32-bit integer (int32, uint32) */
typedef uint16x4_t ctvm_vh; /* 4 x 16-bit (int16, uint16, float16/bfloat16 bits) */
typedef uint8x8_t ctvm_vb;  /* 4 x 8-bit in lanes 0-3 (int8, uint8, bool) */
#if defined(__aarch64__)
typedef struct {
    float64x2_t lo, hi; /* lanes 0-1, 2-3 */
} ctvm_vd;
#else
typedef struct {
    double v[4];
} ctvm_vd;
#endif
typedef struct {
    int64x2_t lo, hi; /* lanes 0-1, 2-3 */
} ctvm_vl;
typedef int8x16_t ctvm_vq; /* 16 bytes */

#define CTVM_VNEON_U(x) vreinterpretq_u32_s32(x)
#define CTVM_VNEON_S(x) vreinterpretq_s32_u32(x)
static CTVM_INLINE ctvm_vi ctvm_vload_i32(const int32_t *p) { return vld1q_s32(p); }
static CTVM_INLINE void ctvm_vstore_i32(int32_t *p, ctvm_vi v) { vst1q_s32(p, v); }
static CTVM_INLINE ctvm_vh ctvm_vload_16(const void *p) { return vld1_u16((const uint16_t *)p); }
static CTVM_INLINE void ctvm_vstore_16(void *p, ctvm_vh v) { vst1_u16((uint16_t *)p, v); }
static CTVM_INLINE ctvm_vb ctvm_vload_8(const void *p)
{
    uint32_t t;
    __builtin_memcpy(&t, p, 4);
    return vreinterpret_u8_u32(vdup_n_u32(t));
}
static CTVM_INLINE void ctvm_vstore_8(void *p, ctvm_vb v)
{
    uint32_t t = vget_lane_u32(vreinterpret_u32_u8(v), 0);
    __builtin_memcpy(p, &t, 4);
}
static CTVM_INLINE ctvm_vd ctvm_vload_f64(const double *p)
{
    ctvm_vd r;
#if defined(__aarch64__)
    r.lo = vld1q_f64(p);
    r.hi = vld1q_f64(p + 2);
#else
    __builtin_memcpy(r.v, p, sizeof r.v);
#endif
    return r;
}
static CTVM_INLINE void ctvm_vstore_f64(double *p, ctvm_vd v)
{
#if defined(__aarch64__)
    vst1q_f64(p, v.lo);
    vst1q_f64(p + 2, v.hi);
#else
    __builtin_memcpy(p, v.v, sizeof v.v);
#endif
}
static CTVM_INLINE ctvm_vl ctvm_vload_64(const void *p)
{
    ctvm_vl r;
    r.lo = vld1q_s64((const int64_t *)p);
    r.hi = vld1q_s64((const int64_t *)p + 2);
    return r;
}
static CTVM_INLINE void ctvm_vstore_64(void *p, ctvm_vl v)
{
    vst1q_s64((int64_t *)p, v.lo);
    vst1q_s64((int64_t *)p + 2, v.hi);
}
static CTVM_INLINE ctvm_vq ctvm_vload_q(const void *p) { return vld1q_s8((const int8_t *)p); }
static CTVM_INLINE ctvm_vi ctvm_vset1_i32(int32_t x) { return vdupq_n_s32(x); }
/* a register tile's epilogue constants (lower/lp_tile_consts.c): plain
   broadcasts here (the late form is measured on AVX2 and AVX-512 only) */
static CTVM_INLINE ctvm_vi ctvm_vset1_i32_late(int32_t x) { return vdupq_n_s32(x); }
static CTVM_INLINE ctvm_vf ctvm_vset1_late(float x) { return vdupq_n_f32(x); }
static CTVM_INLINE ctvm_vh ctvm_vset1_16(int16_t x) { return vreinterpret_u16_s16(vdup_n_s16(x)); }
static CTVM_INLINE ctvm_vb ctvm_vset1_8(int8_t x) { return vreinterpret_u8_s8(vdup_n_s8(x)); }
static CTVM_INLINE ctvm_vd ctvm_vset1_f64(double x)
{
    ctvm_vd r;
#if defined(__aarch64__)
    r.lo = r.hi = vdupq_n_f64(x);
#else
    r.v[0] = r.v[1] = r.v[2] = r.v[3] = x;
#endif
    return r;
}
static CTVM_INLINE ctvm_vl ctvm_vset1_64(int64_t x)
{
    ctvm_vl r;
    r.lo = r.hi = vdupq_n_s64(x);
    return r;
}
static CTVM_INLINE ctvm_vq ctvm_vset1_q(int8_t x) { return vdupq_n_s8(x); }
/* the 4 bytes at p in every 32-bit group (the input side of a dot product) */
static CTVM_INLINE ctvm_vq ctvm_vbcast4_q(const void *p)
{
    int32_t t;
    __builtin_memcpy(&t, p, 4);
    return vreinterpretq_s8_s32(vdupq_n_s32(t));
}
/* read where it stands (lower/lp_fresh_bcast.c): the plain form here */
static CTVM_INLINE ctvm_vq ctvm_vbcast4_q_late(const void *p) { return ctvm_vbcast4_q(p); }
static CTVM_INLINE ctvm_vi ctvm_vzero_i32(void) { return vdupq_n_s32(0); }

/* int32 arithmetic, wrapping (vneg and vabs of INT_MIN give INT_MIN) */
static CTVM_INLINE ctvm_vi ctvm_vadd_i32(ctvm_vi a, ctvm_vi b) { return vaddq_s32(a, b); }
static CTVM_INLINE ctvm_vi ctvm_vsub_i32(ctvm_vi a, ctvm_vi b) { return vsubq_s32(a, b); }
static CTVM_INLINE ctvm_vi ctvm_vmul_i32(ctvm_vi a, ctvm_vi b) { return vmulq_s32(a, b); }
static CTVM_INLINE ctvm_vi ctvm_vmin_i32(ctvm_vi a, ctvm_vi b) { return vminq_s32(a, b); }
static CTVM_INLINE ctvm_vi ctvm_vmax_i32(ctvm_vi a, ctvm_vi b) { return vmaxq_s32(a, b); }
static CTVM_INLINE ctvm_vi ctvm_vmin_u32(ctvm_vi a, ctvm_vi b) { return CTVM_VNEON_S(vminq_u32(CTVM_VNEON_U(a), CTVM_VNEON_U(b))); }
static CTVM_INLINE ctvm_vi ctvm_vmax_u32(ctvm_vi a, ctvm_vi b) { return CTVM_VNEON_S(vmaxq_u32(CTVM_VNEON_U(a), CTVM_VNEON_U(b))); }
static CTVM_INLINE ctvm_vi ctvm_vand_i32(ctvm_vi a, ctvm_vi b) { return vandq_s32(a, b); }
static CTVM_INLINE ctvm_vi ctvm_vor_i32(ctvm_vi a, ctvm_vi b) { return vorrq_s32(a, b); }
static CTVM_INLINE ctvm_vi ctvm_vxor_i32(ctvm_vi a, ctvm_vi b) { return veorq_s32(a, b); }
static CTVM_INLINE ctvm_vi ctvm_vnot_i32(ctvm_vi a) { return vmvnq_s32(a); }
static CTVM_INLINE ctvm_vi ctvm_vneg_i32(ctvm_vi a) { return vnegq_s32(a); }
static CTVM_INLINE ctvm_vi ctvm_vabs_i32(ctvm_vi a) { return vabsq_s32(a); }
/* shifts by a register count (vshlq; a negative count shifts right) */
static CTVM_INLINE ctvm_vi ctvm_vshl_i32(ctvm_vi a, int n) { return vshlq_s32(a, vdupq_n_s32(n)); }
static CTVM_INLINE ctvm_vi ctvm_vshr_i32(ctvm_vi a, int n) { return vshlq_s32(a, vdupq_n_s32(-n)); }
static CTVM_INLINE ctvm_vi ctvm_vshr_u32(ctvm_vi a, int n) { return CTVM_VNEON_S(vshlq_u32(CTVM_VNEON_U(a), vdupq_n_s32(-n))); }

/* compares -> ctvm_vm */
static CTVM_INLINE ctvm_vm ctvm_vlt_i32(ctvm_vi a, ctvm_vi b) { return vcltq_s32(a, b); }
static CTVM_INLINE ctvm_vm ctvm_vle_i32(ctvm_vi a, ctvm_vi b) { return vcleq_s32(a, b); }
static CTVM_INLINE ctvm_vm ctvm_vgt_i32(ctvm_vi a, ctvm_vi b) { return vcgtq_s32(a, b); }
static CTVM_INLINE ctvm_vm ctvm_vge_i32(ctvm_vi a, ctvm_vi b) { return vcgeq_s32(a, b); }
static CTVM_INLINE ctvm_vm ctvm_veq_i32(ctvm_vi a, ctvm_vi b) { return vceqq_s32(a, b); }
static CTVM_INLINE ctvm_vm ctvm_vne_i32(ctvm_vi a, ctvm_vi b) { return vmvnq_u32(vceqq_s32(a, b)); }
static CTVM_INLINE ctvm_vm ctvm_vlt_u32(ctvm_vi a, ctvm_vi b) { return vcltq_u32(CTVM_VNEON_U(a), CTVM_VNEON_U(b)); }
static CTVM_INLINE ctvm_vm ctvm_vle_u32(ctvm_vi a, ctvm_vi b) { return vcleq_u32(CTVM_VNEON_U(a), CTVM_VNEON_U(b)); }
static CTVM_INLINE ctvm_vm ctvm_vgt_u32(ctvm_vi a, ctvm_vi b) { return vcgtq_u32(CTVM_VNEON_U(a), CTVM_VNEON_U(b)); }
static CTVM_INLINE ctvm_vm ctvm_vge_u32(ctvm_vi a, ctvm_vi b) { return vcgeq_u32(CTVM_VNEON_U(a), CTVM_VNEON_U(b)); }
static CTVM_INLINE ctvm_vm ctvm_vgt(ctvm_vf a, ctvm_vf b) { return vcgtq_f32(a, b); }
static CTVM_INLINE ctvm_vm ctvm_vne(ctvm_vf a, ctvm_vf b) { return vmvnq_u32(vceqq_f32(a, b)); } /* true with NaN */
static CTVM_INLINE ctvm_vm ctvm_vmor(ctvm_vm a, ctvm_vm b) { return vorrq_u32(a, b); }
static CTVM_INLINE ctvm_vm ctvm_vmxor(ctvm_vm a, ctvm_vm b) { return veorq_u32(a, b); }
static CTVM_INLINE ctvm_vm ctvm_vmnot(ctvm_vm a) { return vmvnq_u32(a); }

/* selects: the 32-bit lane mask narrowed or widened to the lane width */
static CTVM_INLINE ctvm_vi ctvm_vselect_i32(ctvm_vm m, ctvm_vi a, ctvm_vi b) { return vbslq_s32(m, a, b); }
static CTVM_INLINE ctvm_vh ctvm_vselect_16(ctvm_vm m, ctvm_vh a, ctvm_vh b) { return vbsl_u16(vmovn_u32(m), a, b); }
static CTVM_INLINE uint8x8_t ctvm_vneon_mask8(ctvm_vm m)
{
    uint16x4_t m16 = vmovn_u32(m);
    return vmovn_u16(vcombine_u16(m16, m16));
}
static CTVM_INLINE ctvm_vb ctvm_vselect_8(ctvm_vm m, ctvm_vb a, ctvm_vb b) { return vbsl_u8(ctvm_vneon_mask8(m), a, b); }
static CTVM_INLINE uint64x2_t ctvm_vneon_mask64(uint32x2_t m) { return vreinterpretq_u64_s64(vmovl_s32(vreinterpret_s32_u32(m))); }
static CTVM_INLINE ctvm_vl ctvm_vselect_64(ctvm_vm m, ctvm_vl a, ctvm_vl b)
{
    ctvm_vl r;
    r.lo = vbslq_s64(ctvm_vneon_mask64(vget_low_u32(m)), a.lo, b.lo);
    r.hi = vbslq_s64(ctvm_vneon_mask64(vget_high_u32(m)), a.hi, b.hi);
    return r;
}
static CTVM_INLINE ctvm_vd ctvm_vselect_f64(ctvm_vm m, ctvm_vd a, ctvm_vd b)
{
#if defined(__aarch64__)
    a.lo = vbslq_f64(ctvm_vneon_mask64(vget_low_u32(m)), a.lo, b.lo);
    a.hi = vbslq_f64(ctvm_vneon_mask64(vget_high_u32(m)), a.hi, b.hi);
#else
    uint32_t t[4];
    int l;
    vst1q_u32(t, m);
    for (l = 0; l < 4; l++)
        a.v[l] = t[l] ? a.v[l] : b.v[l];
#endif
    return a;
}
static CTVM_INLINE ctvm_vm ctvm_vmask_of_b(ctvm_vb b)
{
    int8x8_t t = vreinterpret_s8_u8(vtst_u8(b, b)); /* -1 where nonzero */
    return vreinterpretq_u32_s32(vmovl_s16(vget_low_s16(vmovl_s8(t))));
}
static CTVM_INLINE ctvm_vb ctvm_vb_of_mask(ctvm_vm m) { return vand_u8(ctvm_vneon_mask8(m), vdup_n_u8(1)); }

/* float64 */
#if defined(__aarch64__)
#define CTVM_VNEON_F64_2(a, b, op)                                                                                   \
    do {                                                                                                             \
        a.lo = op(a.lo, b.lo);                                                                                       \
        a.hi = op(a.hi, b.hi);                                                                                       \
    } while (0)
#define CTVM_VNEON_F64_M(a, b, op) vcombine_u32(vmovn_u64(op(a.lo, b.lo)), vmovn_u64(op(a.hi, b.hi)))
#else
#define CTVM_VNEON_F64_2(a, b, op)                                                                                   \
    do {                                                                                                             \
        int l_;                                                                                                      \
        for (l_ = 0; l_ < 4; l_++)                                                                                   \
            a.v[l_] = a.v[l_] op b.v[l_];                                                                            \
    } while (0)
static CTVM_INLINE ctvm_vm ctvm_vneon_mask_of(int m0, int m1, int m2, int m3)
{
    uint32_t t[4];
    t[0] = m0 ? 0xffffffffu : 0;
    t[1] = m1 ? 0xffffffffu : 0;
    t[2] = m2 ? 0xffffffffu : 0;
    t[3] = m3 ? 0xffffffffu : 0;
    return vld1q_u32(t);
}
#define CTVM_VNEON_F64_M(a, b, op)                                                                                   \
    ctvm_vneon_mask_of(a.v[0] op b.v[0], a.v[1] op b.v[1], a.v[2] op b.v[2], a.v[3] op b.v[3])
#endif
#if defined(__aarch64__)
static CTVM_INLINE ctvm_vd ctvm_vadd_f64(ctvm_vd a, ctvm_vd b) { CTVM_VNEON_F64_2(a, b, vaddq_f64); return a; }
static CTVM_INLINE ctvm_vd ctvm_vsub_f64(ctvm_vd a, ctvm_vd b) { CTVM_VNEON_F64_2(a, b, vsubq_f64); return a; }
static CTVM_INLINE ctvm_vd ctvm_vmul_f64(ctvm_vd a, ctvm_vd b) { CTVM_VNEON_F64_2(a, b, vmulq_f64); return a; }
static CTVM_INLINE ctvm_vd ctvm_vdiv_f64(ctvm_vd a, ctvm_vd b) { CTVM_VNEON_F64_2(a, b, vdivq_f64); return a; }
/* fmin/fmax return NaN for a NaN lane; the API wants a < b ? a : b */
static CTVM_INLINE ctvm_vd ctvm_vmin_f64(ctvm_vd a, ctvm_vd b)
{
    a.lo = vbslq_f64(vcltq_f64(a.lo, b.lo), a.lo, b.lo);
    a.hi = vbslq_f64(vcltq_f64(a.hi, b.hi), a.hi, b.hi);
    return a;
}
static CTVM_INLINE ctvm_vd ctvm_vmax_f64(ctvm_vd a, ctvm_vd b)
{
    a.lo = vbslq_f64(vcgtq_f64(a.lo, b.lo), a.lo, b.lo);
    a.hi = vbslq_f64(vcgtq_f64(a.hi, b.hi), a.hi, b.hi);
    return a;
}
static CTVM_INLINE ctvm_vd ctvm_vfma_f64(ctvm_vd a, ctvm_vd b, ctvm_vd c)
{
    a.lo = vfmaq_f64(c.lo, a.lo, b.lo);
    a.hi = vfmaq_f64(c.hi, a.hi, b.hi);
    return a;
}
static CTVM_INLINE ctvm_vd ctvm_vsqrt_f64(ctvm_vd a)
{
    a.lo = vsqrtq_f64(a.lo);
    a.hi = vsqrtq_f64(a.hi);
    return a;
}
static CTVM_INLINE ctvm_vd ctvm_vneg_f64(ctvm_vd a)
{
    a.lo = vnegq_f64(a.lo);
    a.hi = vnegq_f64(a.hi);
    return a;
}
static CTVM_INLINE ctvm_vd ctvm_vabs_f64(ctvm_vd a)
{
    a.lo = vabsq_f64(a.lo);
    a.hi = vabsq_f64(a.hi);
    return a;
}
static CTVM_INLINE ctvm_vm ctvm_vlt_f64(ctvm_vd a, ctvm_vd b) { return CTVM_VNEON_F64_M(a, b, vcltq_f64); }
static CTVM_INLINE ctvm_vm ctvm_vle_f64(ctvm_vd a, ctvm_vd b) { return CTVM_VNEON_F64_M(a, b, vcleq_f64); }
static CTVM_INLINE ctvm_vm ctvm_vgt_f64(ctvm_vd a, ctvm_vd b) { return CTVM_VNEON_F64_M(a, b, vcgtq_f64); }
static CTVM_INLINE ctvm_vm ctvm_vge_f64(ctvm_vd a, ctvm_vd b) { return CTVM_VNEON_F64_M(a, b, vcgeq_f64); }
static CTVM_INLINE ctvm_vm ctvm_veq_f64(ctvm_vd a, ctvm_vd b) { return CTVM_VNEON_F64_M(a, b, vceqq_f64); }
static CTVM_INLINE ctvm_vm ctvm_vne_f64(ctvm_vd a, ctvm_vd b) { return vmvnq_u32(CTVM_VNEON_F64_M(a, b, vceqq_f64)); }
#else
static CTVM_INLINE ctvm_vd ctvm_vadd_f64(ctvm_vd a, ctvm_vd b) { CTVM_VNEON_F64_2(a, b, +); return a; }
static CTVM_INLINE ctvm_vd ctvm_vsub_f64(ctvm_vd a, ctvm_vd b) { CTVM_VNEON_F64_2(a, b, -); return a; }
static CTVM_INLINE ctvm_vd ctvm_vmul_f64(ctvm_vd a, ctvm_vd b) { CTVM_VNEON_F64_2(a, b, *); return a; }
static CTVM_INLINE ctvm_vd ctvm_vdiv_f64(ctvm_vd a, ctvm_vd b) { CTVM_VNEON_F64_2(a, b, /); return a; }
static CTVM_INLINE ctvm_vd ctvm_vmin_f64(ctvm_vd a, ctvm_vd b)
{
    int l;
    for (l = 0; l < 4; l++)
        a.v[l] = a.v[l] < b.v[l] ? a.v[l] : b.v[l];
    return a;
}
static CTVM_INLINE ctvm_vd ctvm_vmax_f64(ctvm_vd a, ctvm_vd b)
{
    int l;
    for (l = 0; l < 4; l++)
        a.v[l] = a.v[l] > b.v[l] ? a.v[l] : b.v[l];
    return a;
}
static CTVM_INLINE ctvm_vd ctvm_vfma_f64(ctvm_vd a, ctvm_vd b, ctvm_vd c)
{
    int l;
    for (l = 0; l < 4; l++)
        a.v[l] = a.v[l] * b.v[l] + c.v[l];
    return a;
}
static CTVM_INLINE ctvm_vd ctvm_vsqrt_f64(ctvm_vd a)
{
    int l;
    for (l = 0; l < 4; l++)
        a.v[l] = sqrt(a.v[l]);
    return a;
}
static CTVM_INLINE ctvm_vd ctvm_vneg_f64(ctvm_vd a)
{
    int l;
    for (l = 0; l < 4; l++)
        a.v[l] = -a.v[l];
    return a;
}
static CTVM_INLINE ctvm_vd ctvm_vabs_f64(ctvm_vd a)
{
    int l;
    for (l = 0; l < 4; l++)
        a.v[l] = fabs(a.v[l]);
    return a;
}
static CTVM_INLINE ctvm_vm ctvm_vlt_f64(ctvm_vd a, ctvm_vd b) { return CTVM_VNEON_F64_M(a, b, <); }
static CTVM_INLINE ctvm_vm ctvm_vle_f64(ctvm_vd a, ctvm_vd b) { return CTVM_VNEON_F64_M(a, b, <=); }
static CTVM_INLINE ctvm_vm ctvm_vgt_f64(ctvm_vd a, ctvm_vd b) { return CTVM_VNEON_F64_M(a, b, >); }
static CTVM_INLINE ctvm_vm ctvm_vge_f64(ctvm_vd a, ctvm_vd b) { return CTVM_VNEON_F64_M(a, b, >=); }
static CTVM_INLINE ctvm_vm ctvm_veq_f64(ctvm_vd a, ctvm_vd b) { return CTVM_VNEON_F64_M(a, b, ==); }
static CTVM_INLINE ctvm_vm ctvm_vne_f64(ctvm_vd a, ctvm_vd b) { return vmvnq_u32(CTVM_VNEON_F64_M(a, b, ==)); }
#endif

/* 64-bit integers, wrapping */
static CTVM_INLINE ctvm_vl ctvm_vadd_64(ctvm_vl a, ctvm_vl b)
{
    a.lo = vaddq_s64(a.lo, b.lo);
    a.hi = vaddq_s64(a.hi, b.hi);
    return a;
}
static CTVM_INLINE ctvm_vl ctvm_vsub_64(ctvm_vl a, ctvm_vl b)
{
    a.lo = vsubq_s64(a.lo, b.lo);
    a.hi = vsubq_s64(a.hi, b.hi);
    return a;
}
static CTVM_INLINE ctvm_vl ctvm_vand_64(ctvm_vl a, ctvm_vl b)
{
    a.lo = vandq_s64(a.lo, b.lo);
    a.hi = vandq_s64(a.hi, b.hi);
    return a;
}
static CTVM_INLINE ctvm_vl ctvm_vor_64(ctvm_vl a, ctvm_vl b)
{
    a.lo = vorrq_s64(a.lo, b.lo);
    a.hi = vorrq_s64(a.hi, b.hi);
    return a;
}
static CTVM_INLINE ctvm_vl ctvm_vxor_64(ctvm_vl a, ctvm_vl b)
{
    a.lo = veorq_s64(a.lo, b.lo);
    a.hi = veorq_s64(a.hi, b.hi);
    return a;
}

/* integer widening and narrowing (vqmovn / vqmovun saturate) */
static CTVM_INLINE ctvm_vi ctvm_vcvt_i8_i32(ctvm_vb b) { return vmovl_s16(vget_low_s16(vmovl_s8(vreinterpret_s8_u8(b)))); }
static CTVM_INLINE ctvm_vi ctvm_vcvt_u8_i32(ctvm_vb b) { return CTVM_VNEON_S(vmovl_u16(vget_low_u16(vmovl_u8(b)))); }
static CTVM_INLINE ctvm_vi ctvm_vcvt_i16_i32(ctvm_vh h) { return vmovl_s16(vreinterpret_s16_u16(h)); }
static CTVM_INLINE ctvm_vi ctvm_vcvt_u16_i32(ctvm_vh h) { return CTVM_VNEON_S(vmovl_u16(h)); }
static CTVM_INLINE ctvm_vh ctvm_vcvt_i32_16(ctvm_vi a) { return vmovn_u32(CTVM_VNEON_U(a)); }
static CTVM_INLINE ctvm_vb ctvm_vcvt_i32_8(ctvm_vi a)
{
    uint16x4_t h = vmovn_u32(CTVM_VNEON_U(a));
    return vmovn_u16(vcombine_u16(h, h));
}
static CTVM_INLINE ctvm_vb ctvm_vcvt_i32_u8_sat(ctvm_vi a)
{
    uint16x4_t h = vqmovun_s32(a);
    return vqmovn_u16(vcombine_u16(h, h));
}
static CTVM_INLINE ctvm_vb ctvm_vcvt_i32_i8_sat(ctvm_vi a)
{
    int16x4_t h = vqmovn_s32(a);
    return vreinterpret_u8_s8(vqmovn_s16(vcombine_s16(h, h)));
}
static CTVM_INLINE ctvm_vh ctvm_vcvt_i32_u16_sat(ctvm_vi a) { return vqmovun_s32(a); }
static CTVM_INLINE ctvm_vh ctvm_vcvt_i32_i16_sat(ctvm_vi a) { return vreinterpret_u16_s16(vqmovn_s32(a)); }
static CTVM_INLINE ctvm_vl ctvm_vcvt_i32_64(ctvm_vi a)
{
    ctvm_vl r;
    r.lo = vmovl_s32(vget_low_s32(a));
    r.hi = vmovl_s32(vget_high_s32(a));
    return r;
}
static CTVM_INLINE ctvm_vl ctvm_vcvt_u32_64(ctvm_vi a)
{
    ctvm_vl r;
    r.lo = vreinterpretq_s64_u64(vmovl_u32(vget_low_u32(CTVM_VNEON_U(a))));
    r.hi = vreinterpretq_s64_u64(vmovl_u32(vget_high_u32(CTVM_VNEON_U(a))));
    return r;
}
static CTVM_INLINE ctvm_vi ctvm_vcvt_64_i32(ctvm_vl a) { return vcombine_s32(vmovn_s64(a.lo), vmovn_s64(a.hi)); }

/* integer <-> float32 and rounding */
static CTVM_INLINE ctvm_vf ctvm_vcvt_i32_f32(ctvm_vi a) { return vcvtq_f32_s32(a); }
static CTVM_INLINE ctvm_vf ctvm_vcvt_u32_f32(ctvm_vi a) { return vcvtq_f32_u32(CTVM_VNEON_U(a)); }
/* Toward zero. A lane out of int32 range (or NaN) sends the vector through
 * the scalar code's own conversion, (int32_t)(int64_t)x, so it behaves
 * exactly as the generated scalar code does on this machine. */
static int32_t ctvm_vneon_f32_i32_slow(float x) { return (int32_t)(int64_t)x; }
static CTVM_INLINE ctvm_vi ctvm_vcvt_f32_i32(ctvm_vf x)
{
    uint32x4_t ok = vcaltq_f32(x, vdupq_n_f32(2147483648.0f)); /* |x| < 2^31, false for NaN */
#if defined(__aarch64__)
    if (vminvq_u32(ok) == 0) {
#else
    uint32x2_t o2 = vpmin_u32(vget_low_u32(ok), vget_high_u32(ok));
    if (vget_lane_u32(vpmin_u32(o2, o2), 0) == 0) {
#endif
        float t[4];
        int32_t o[4];
        int l;
        vst1q_f32(t, x);
        for (l = 0; l < 4; l++)
            o[l] = ctvm_vneon_f32_i32_slow(t[l]);
        return vld1q_s32(o);
    }
    return vcvtq_s32_f32(x);
}
/* to the nearest int32, ties to even (QuantizeLinear's rounding), saturating:
 * x >= 2^31 gives INT32_MAX, x < -2^31 INT32_MIN, NaN 0 (as AArch64's
 * FCVTNS).
 * AArch64: FCVTNS is exactly that; ARMv7: VCVT (toward zero, saturating,
 * NaN 0) of ctvm_vround's integer. */
#if defined(__aarch64__)
static CTVM_INLINE ctvm_vi ctvm_vcvt_f32_i32_rne(ctvm_vf x) { return vcvtnq_s32_f32(x); }
#else
static CTVM_INLINE ctvm_vi ctvm_vcvt_f32_i32_rne(ctvm_vf x) { return vcvtq_s32_f32(ctvm_vround(x)); }
#endif
/* x rounded to nearest even, for x not NaN and within int32 (a clamped
   value: the requantization; else unspecified) - no fixups */
static CTVM_INLINE ctvm_vi ctvm_vcvt_f32_i32_rne_in(ctvm_vf x) { return ctvm_vcvt_f32_i32_rne(x); }
#if defined(__aarch64__)
static CTVM_INLINE ctvm_vf ctvm_vfloor(ctvm_vf x) { return vrndmq_f32(x); }
static CTVM_INLINE ctvm_vf ctvm_vceil(ctvm_vf x) { return vrndpq_f32(x); }
static CTVM_INLINE ctvm_vf ctvm_vtrunc(ctvm_vf x) { return vrndq_f32(x); }
#else
/* armv7 has no vrnd: for |x| < 2^23, (|x| + 2^23) - 2^23 rounds to nearest
 * even (NEON always rounds to nearest); floor and ceil step from there;
 * larger |x|, inf and NaN are already integral. The sign of x is put back
 * last, so -0.3 gives -0 like the libm functions. */
static CTVM_INLINE ctvm_vf ctvm_vneon_round_fix(ctvm_vf x, ctvm_vf r)
{
    uint32x4_t small = vcaltq_f32(x, vdupq_n_f32(8388608.0f));
    uint32x4_t sign = vandq_u32(vreinterpretq_u32_f32(x), vdupq_n_u32(0x80000000u));
    return vreinterpretq_f32_u32(vorrq_u32(vreinterpretq_u32_f32(vbslq_f32(small, r, x)), sign));
}
static CTVM_INLINE ctvm_vf ctvm_vneon_rne_abs(ctvm_vf x)
{
    float32x4_t big = vdupq_n_f32(8388608.0f);
    return vsubq_f32(vaddq_f32(vabsq_f32(x), big), big);
}
/* ctvm_vround (ties to even) is with the bit primitives above */
static CTVM_INLINE ctvm_vf ctvm_vfloor(ctvm_vf x)
{
    float32x4_t r = ctvm_vround(x);
    r = vsubq_f32(r, vbslq_f32(vcgtq_f32(r, x), vdupq_n_f32(1.0f), vdupq_n_f32(0.0f)));
    return ctvm_vneon_round_fix(x, r);
}
static CTVM_INLINE ctvm_vf ctvm_vceil(ctvm_vf x)
{
    float32x4_t r = ctvm_vround(x);
    r = vaddq_f32(r, vbslq_f32(vcltq_f32(r, x), vdupq_n_f32(1.0f), vdupq_n_f32(0.0f)));
    return ctvm_vneon_round_fix(x, r);
}
static CTVM_INLINE ctvm_vf ctvm_vtrunc(ctvm_vf x) { return ctvm_vneon_round_fix(x, vabsq_f32(vcvtq_f32_s32(vcvtq_s32_f32(x)))); }
#endif
static CTVM_INLINE ctvm_vd ctvm_vcvt_f32_f64(ctvm_vf x)
{
    ctvm_vd r;
#if defined(__aarch64__)
    r.lo = vcvt_f64_f32(vget_low_f32(x));
    r.hi = vcvt_high_f64_f32(x);
#else
    float t[4];
    int l;
    vst1q_f32(t, x);
    for (l = 0; l < 4; l++)
        r.v[l] = t[l];
#endif
    return r;
}
static CTVM_INLINE ctvm_vf ctvm_vcvt_f64_f32(ctvm_vd x)
{
#if defined(__aarch64__)
    return vcvt_high_f32_f64(vcvt_f32_f64(x.lo), x.hi);
#else
    float t[4];
    int l;
    for (l = 0; l < 4; l++)
        t[l] = (float)x.v[l];
    return vld1q_f32(t);
#endif
}

/* float16 / bfloat16 bits <-> float32, bit for bit as ctvm_types.h (round to
 * nearest even; a NaN becomes the quiet NaN 0x7fc00000 / 0x7e00 with the
 * input's sign) */
#if defined(__aarch64__)
static CTVM_INLINE ctvm_vf ctvm_vneon_nan_canon(ctvm_vf x)
{
    uint32x4_t q = vorrq_u32(vandq_u32(vreinterpretq_u32_f32(x), vdupq_n_u32(0x80000000u)), vdupq_n_u32(0x7fc00000u));
    return vbslq_f32(vceqq_f32(x, x), x, vreinterpretq_f32_u32(q));
}
static CTVM_INLINE ctvm_vf ctvm_vcvt_f16_f32(ctvm_vh h) { return ctvm_vneon_nan_canon(vcvt_f32_f16(vreinterpret_f16_u16(h))); }
static CTVM_INLINE ctvm_vh ctvm_vcvt_f32_f16(ctvm_vf x) { return vreinterpret_u16_f16(vcvt_f16_f32(ctvm_vneon_nan_canon(x))); }
#else
static CTVM_INLINE ctvm_vf ctvm_vcvt_f16_f32(ctvm_vh h)
{
    uint32x4_t h32 = vmovl_u16(h), em = vandq_u32(h32, vdupq_n_u32(0x7fff));
    uint32x4_t sign = vshlq_n_u32(veorq_u32(h32, em), 16);
    uint32x4_t r = vaddq_u32(vshlq_n_u32(em, 13), vdupq_n_u32(0x38000000u)); /* normal */
    float32x4_t sub = vmulq_f32(vcvtq_f32_u32(em), vdupq_n_f32(5.9604644775390625e-8f)); /* m * 2^-24, normal */
    r = vbslq_u32(vcltq_u32(em, vdupq_n_u32(0x400)), vreinterpretq_u32_f32(sub), r);
    r = vbslq_u32(vcgtq_u32(em, vdupq_n_u32(0x7bff)), vdupq_n_u32(0x7f800000u), r);
    r = vbslq_u32(vcgtq_u32(em, vdupq_n_u32(0x7c00)), vdupq_n_u32(0x7fc00000u), r);
    return vreinterpretq_f32_u32(vorrq_u32(r, sign));
}
static CTVM_INLINE ctvm_vh ctvm_vcvt_f32_f16(ctvm_vf x)
{
    uint32x4_t b = vreinterpretq_u32_f32(x), a = vandq_u32(b, vdupq_n_u32(0x7fffffffu));
    uint32x4_t sign = vandq_u32(vshrq_n_u32(b, 16), vdupq_n_u32(0x8000));
    uint32x4_t t = vsubq_u32(a, vdupq_n_u32(0x38000000u)), r;
    /* subnormal or zero result: round(|x| * 2^24) by adding 2^23 (an input
       below 2^-126 is flushed to 0 here, and its result is 0 anyway) */
    float32x4_t s = vmlaq_f32(vdupq_n_f32(8388608.0f), vreinterpretq_f32_u32(a), vdupq_n_f32(16777216.0f));
    r = vsubq_u32(vreinterpretq_u32_f32(s), vdupq_n_u32(0x4b000000u));
    /* normal: drop 13 mantissa bits, to nearest even */
    t = vshrq_n_u32(vaddq_u32(vaddq_u32(t, vdupq_n_u32(0xfff)), vandq_u32(vshrq_n_u32(t, 13), vdupq_n_u32(1))), 13);
    r = vbslq_u32(vcgtq_u32(a, vdupq_n_u32(0x387fffffu)), t, r);
    r = vbslq_u32(vcgtq_u32(a, vdupq_n_u32(0x477fefffu)), vdupq_n_u32(0x7c00), r); /* inf */
    r = vbslq_u32(vcgtq_u32(a, vdupq_n_u32(0x7f800000u)), vdupq_n_u32(0x7e00), r); /* NaN */
    return vmovn_u32(vorrq_u32(r, sign));
}
#endif
static CTVM_INLINE ctvm_vf ctvm_vcvt_bf16_f32(ctvm_vh h) { return vreinterpretq_f32_u32(vshlq_n_u32(vmovl_u16(h), 16)); }
static CTVM_INLINE ctvm_vh ctvm_vcvt_f32_bf16(ctvm_vf x)
{
    uint32x4_t b = vreinterpretq_u32_f32(x), hi = vshrq_n_u32(b, 16);
    uint32x4_t r = vshrq_n_u32(vaddq_u32(vaddq_u32(b, vdupq_n_u32(0x7fff)), vandq_u32(hi, vdupq_n_u32(1))), 16);
    uint32x4_t nan = vcgtq_u32(vandq_u32(b, vdupq_n_u32(0x7fffffffu)), vdupq_n_u32(0x7f800000u));
    return vmovn_u32(vbslq_u32(nan, vorrq_u32(hi, vdupq_n_u32(0x40)), r)); /* NaN stays a quiet NaN */
}

/* dot products: SDOT (dotprod) and USDOT (i8mm); u8 x i8 with SDOT only is
 * (a^0x80) x b + 128 x b. Otherwise 16-bit products (exact: |u8 x i8| and
 * |i8 x i8| fit int16), summed by pairwise widening adds. */
static CTVM_INLINE int32x4_t ctvm_vneon_sum4(int16x8_t plo, int16x8_t phi)
{
    int32x4_t slo = vpaddlq_s16(plo), shi = vpaddlq_s16(phi); /* pairs */
#if defined(__aarch64__)
    return vpaddq_s32(slo, shi);
#else
    return vcombine_s32(vpadd_s32(vget_low_s32(slo), vget_high_s32(slo)),
                        vpadd_s32(vget_low_s32(shi), vget_high_s32(shi)));
#endif
}
#if CTVM_HAS_DOT_I8I8
static CTVM_INLINE ctvm_vi ctvm_vdot_i8i8(ctvm_vi acc, ctvm_vq a, ctvm_vq b) { return vdotq_s32(acc, a, b); }
#else
static CTVM_INLINE ctvm_vi ctvm_vdot_i8i8(ctvm_vi acc, ctvm_vq a, ctvm_vq b)
{
    int16x8_t plo = vmull_s8(vget_low_s8(a), vget_low_s8(b)), phi = vmull_s8(vget_high_s8(a), vget_high_s8(b));
    return vaddq_s32(acc, ctvm_vneon_sum4(plo, phi));
}
#endif
#if CTVM_HAS_DOT_U8I8
static CTVM_INLINE ctvm_vi ctvm_vdot_u8i8(ctvm_vi acc, ctvm_vq a, ctvm_vq b)
{
    return vusdotq_s32(acc, vreinterpretq_u8_s8(a), b);
}
#elif CTVM_HAS_DOT_I8I8
static CTVM_INLINE ctvm_vi ctvm_vdot_u8i8(ctvm_vi acc, ctvm_vq a, ctvm_vq b)
{
    int8x16_t bias = vdupq_n_s8(-128);
    return vsubq_s32(vdotq_s32(acc, veorq_s8(a, bias), b), vdotq_s32(vdupq_n_s32(0), bias, b));
}
#else
static CTVM_INLINE ctvm_vi ctvm_vdot_u8i8(ctvm_vi acc, ctvm_vq a, ctvm_vq b)
{
    uint8x16_t au = vreinterpretq_u8_s8(a);
    int16x8_t plo = vmulq_s16(vreinterpretq_s16_u16(vmovl_u8(vget_low_u8(au))), vmovl_s8(vget_low_s8(b)));
    int16x8_t phi = vmulq_s16(vreinterpretq_s16_u16(vmovl_u8(vget_high_u8(au))), vmovl_s8(vget_high_s8(b)));
    return vaddq_s32(acc, ctvm_vneon_sum4(plo, phi));
}
#endif

/* bfloat16 dot product: ctvm_vq holds 2*CTVM_VL bfloat16 values (element
 * 2l in the low half of 32-bit group l, 2l+1 in the high half). Lane l:
 * acc[l] + a[2l+1]*b[2l+1], rounded, then + a[2l]*b[2l], rounded (each
 * product of two bfloat16 values is exact in float32, so this is two fused
 * multiply-adds, odd pair first: AVX512-BF16's vdpbf16ps, bit for bit on
 * normal numbers; it flushes denormal inputs and results to zero, which
 * the fallbacks do not). */
/* (ctvm_vfma: fused with VFPv4 and on aarch64; armv7 NEON flushes denormals) */
#define CTVM_HAS_DOT_BF16 0
static CTVM_INLINE ctvm_vf ctvm_vdot_bf16(ctvm_vf acc, ctvm_vq a, ctvm_vq b)
{
    uint32x4_t au = vreinterpretq_u32_s8(a), bu = vreinterpretq_u32_s8(b), hi = vdupq_n_u32(0xffff0000u);
    acc = ctvm_vfma(vreinterpretq_f32_u32(vandq_u32(au, hi)), vreinterpretq_f32_u32(vandq_u32(bu, hi)), acc);
    return ctvm_vfma(vreinterpretq_f32_u32(vshlq_n_u32(au, 16)), vreinterpretq_f32_u32(vshlq_n_u32(bu, 16)), acc);
}

/* acc + a*b for a in [0, 32767], b in [-32768, 32767] (one multiply-accumulate; wraps) */
static CTVM_INLINE ctvm_vi ctvm_vmla16_i32(ctvm_vi acc, ctvm_vi a, ctvm_vi b) { return vmlaq_s32(acc, a, b); }

#if defined(__clang__)
#pragma clang diagnostic pop
#endif

#endif /* ISA */
#endif
