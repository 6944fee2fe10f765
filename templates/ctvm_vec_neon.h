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

#if defined(__clang__)
#pragma clang diagnostic pop
#endif

#endif /* ISA */
#endif
