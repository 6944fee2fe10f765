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
 * #error below. exp, tanh and sigmoid are computed here
 * (no libm), with the same algorithm and constants as the other SIMD
 * headers: see ctvm_vexp.
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

/* e^x. x = n*ln2 + r with n = round(x/ln2), |r| <= ln2/2 (ln2 split in a
 * 12-bit high part, so n*hi is exact, and a low part); e^r = 1 + r +
 * r^2*q(r) with q a degree-5 near-minimax fit of (e^r - 1 - r)/r^2;
 * then two multiplications by 2^(n/2) and 2^(n - n/2) built in the exponent
 * bits, so the scale itself never overflows and results in the denormal
 * range round once (armv7: flush to 0). x is clamped to [-104, 89] first
 * (vmaxq/vminq keep NaN): above ln(FLT_MAX) ~ 88.72 the product overflows
 * to +inf, below ~ -103.97 it rounds to 0. Max relative error ~ 1.5e-7 for
 * normal results. */
static CTVM_INLINE ctvm_vf ctvm_vexp(ctvm_vf x)
{
    float32x4_t r, q, p;
    int32x4_t n, n1, n2, bias = vdupq_n_s32(127);
    x = vminq_f32(vmaxq_f32(x, vdupq_n_f32(-104.0f)), vdupq_n_f32(89.0f));
#if defined(__aarch64__)
    n = vcvtnq_s32_f32(vmulq_f32(x, vdupq_n_f32(1.44269502f))); /* round to nearest */
#else
    /* x/ln2 + 0.5 is in (-150, 129): floor = truncation after adding 256 */
    n = vsubq_s32(vcvtq_s32_f32(CTVM_VNEON_FMA(x, vdupq_n_f32(1.44269502f), vdupq_n_f32(256.5f))),
                  vdupq_n_s32(256));
#endif
    {
        float32x4_t nf = vcvtq_f32_s32(n);
#if defined(__aarch64__) || defined(__ARM_FEATURE_FMA)
        r = vfmsq_f32(x, nf, vdupq_n_f32(0.693115234375f)); /* x - nf*hi */
        r = vfmsq_f32(r, nf, vdupq_n_f32(3.19461833e-05f));
#else
        r = vmlsq_f32(x, nf, vdupq_n_f32(0.693115234375f));
        r = vmlsq_f32(r, nf, vdupq_n_f32(3.19461833e-05f));
#endif
    }
    q = vdupq_n_f32(1.98909809e-4f);
    q = CTVM_VNEON_FMA(q, r, vdupq_n_f32(1.39336416e-3f));
    q = CTVM_VNEON_FMA(q, r, vdupq_n_f32(8.33331048e-3f));
    q = CTVM_VNEON_FMA(q, r, vdupq_n_f32(4.16664667e-2f));
    q = CTVM_VNEON_FMA(q, r, vdupq_n_f32(1.66666672e-1f));
    q = CTVM_VNEON_FMA(q, r, vdupq_n_f32(0.5f));
    p = CTVM_VNEON_FMA(q, vmulq_f32(r, r), r);
    p = vaddq_f32(p, vdupq_n_f32(1.0f));
    n1 = vshrq_n_s32(n, 1);
    n2 = vsubq_s32(n, n1);
    p = vmulq_f32(p, vreinterpretq_f32_s32(vshlq_n_s32(vaddq_s32(n1, bias), 23)));
    return vmulq_f32(p, vreinterpretq_f32_s32(vshlq_n_s32(vaddq_s32(n2, bias), 23)));
}

/* tanh: |x| < 0.625: x + x^3*P(x^2), P a degree-4 near-minimax fit (no
 * cancellation near 0; exact for tiny x); else sign(x) * (1 - 2/(e^(2|x|)+1)),
 * which saturates to 1 when e^(2|x|) overflows. Max error ~ 2e-7. */
static CTVM_INLINE ctvm_vf ctvm_vtanh(ctvm_vf x)
{
    float32x4_t one = vdupq_n_f32(1.0f), ax = vabsq_f32(x), z = vmulq_f32(x, x), q, small, big;
    uint32x4_t sign = vandq_u32(vreinterpretq_u32_f32(x), vdupq_n_u32(0x80000000u));
    q = vdupq_n_f32(-6.09671418e-3f);
    q = CTVM_VNEON_FMA(q, z, vdupq_n_f32(2.09971797e-2f));
    q = CTVM_VNEON_FMA(q, z, vdupq_n_f32(-5.38509078e-2f));
    q = CTVM_VNEON_FMA(q, z, vdupq_n_f32(1.33327693e-1f));
    q = CTVM_VNEON_FMA(q, z, vdupq_n_f32(-3.33333284e-1f));
    small = CTVM_VNEON_FMA(vmulq_f32(x, z), q, x);
    big = vsubq_f32(one, CTVM_VNEON_DIV_APPROX(vdupq_n_f32(2.0f), vaddq_f32(ctvm_vexp(vaddq_f32(ax, ax)), one)));
    big = vreinterpretq_f32_u32(vorrq_u32(vreinterpretq_u32_f32(big), sign));
    return vbslq_f32(vcltq_f32(ax, vdupq_n_f32(0.625f)), small, big);
}

/* sigmoid: t = e^-|x| in (0, 1], then 1/(1+t) for x >= 0 and t/(1+t) for
 * x < 0: no overflow, exactly 0 and 1 at -inf and +inf, accurate tails. */
static CTVM_INLINE ctvm_vf ctvm_vsigmoid(ctvm_vf x)
{
    float32x4_t one = vdupq_n_f32(1.0f);
    float32x4_t t = ctvm_vexp(vnegq_f32(vabsq_f32(x))); /* e^-|x| */
    float32x4_t num = vbslq_f32(vcltq_f32(x, vdupq_n_f32(0.0f)), t, one);
    return CTVM_VNEON_DIV_APPROX(num, vaddq_f32(one, t));
}

#if defined(__clang__)
#pragma clang diagnostic pop
#endif

#endif /* ISA */
#endif
