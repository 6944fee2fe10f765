/* ctvm_vec_scalar.h - the ctvm vector API with one lane (CTVM_VL 1).
 *
 * Pasted by emit_c into model.c for --target generic and riscv64 (and any
 * target without a SIMD header, e.g. Cortex-M): vectorized loops then
 * become plain scalar C. Strict C99, no extensions. Assumes
 * runtime_min/ctvm_runtime.h was pasted first (CTVM_INLINE, <math.h>).
 * Every header of the API (templates/ctvm_vec_*.h) defines the same
 * functions with the same semantics; see docs/ARCHITECTURE.md "Vector API".
 * exp, tanh, sigmoid, log... are templates/ctvm_vec_math.h, pasted after.
 *
 * ctvm_vfma is fused (fmaf) when CTVM_VFMA_FUSED is 1 and a plain a*b + c
 * when it is 0. emit_c defines it from the target (ir/target.h `fma`), so
 * the math computes what the compiler's constant folding computes; left
 * undefined, it is 1 where the compiler has an fma instruction
 * (__FP_FAST_FMAF) and 0 elsewhere, where a*b + c cannot be fused. */
#ifndef CTVM_VEC_H
#define CTVM_VEC_H

#define CTVM_VL 1
#define CTVM_ISA "scalar"

/* clang, unlike gcc, warns about unused static inline functions of the main
 * file, which is where this API lands in model.c. */
#if defined(__clang__)
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wunused-function"
#endif

typedef float ctvm_vf; /* CTVM_VL floats */
typedef int ctvm_vm;   /* lane mask: 0 or 1 */

static CTVM_INLINE ctvm_vf ctvm_vload(const float *p) { return *p; }
static CTVM_INLINE void ctvm_vstore(float *p, ctvm_vf v) { *p = v; }
static CTVM_INLINE ctvm_vf ctvm_vset1(float x) { return x; }
static CTVM_INLINE ctvm_vf ctvm_vzero(void) { return 0.0f; }

static CTVM_INLINE ctvm_vf ctvm_vadd(ctvm_vf a, ctvm_vf b) { return a + b; }
static CTVM_INLINE ctvm_vf ctvm_vsub(ctvm_vf a, ctvm_vf b) { return a - b; }
static CTVM_INLINE ctvm_vf ctvm_vmul(ctvm_vf a, ctvm_vf b) { return a * b; }
static CTVM_INLINE ctvm_vf ctvm_vdiv(ctvm_vf a, ctvm_vf b) { return a / b; }
static CTVM_INLINE ctvm_vf ctvm_vmin(ctvm_vf a, ctvm_vf b) { return a < b ? a : b; }
static CTVM_INLINE ctvm_vf ctvm_vmax(ctvm_vf a, ctvm_vf b) { return a > b ? a : b; }
#ifndef CTVM_VFMA_FUSED
#if defined(__FP_FAST_FMAF)
#define CTVM_VFMA_FUSED 1
#else
#define CTVM_VFMA_FUSED 0
#endif
#endif
#if CTVM_VFMA_FUSED
static CTVM_INLINE ctvm_vf ctvm_vfma(ctvm_vf a, ctvm_vf b, ctvm_vf c) { return fmaf(a, b, c); }
#else
static CTVM_INLINE ctvm_vf ctvm_vfma(ctvm_vf a, ctvm_vf b, ctvm_vf c) { return a * b + c; }
#endif
static CTVM_INLINE ctvm_vf ctvm_vneg(ctvm_vf a) { return -a; }
static CTVM_INLINE ctvm_vf ctvm_vabs(ctvm_vf a) { return fabsf(a); }
static CTVM_INLINE ctvm_vf ctvm_vsqrt(ctvm_vf a) { return sqrtf(a); }

static CTVM_INLINE ctvm_vm ctvm_vlt(ctvm_vf a, ctvm_vf b) { return a < b; }
static CTVM_INLINE ctvm_vm ctvm_vle(ctvm_vf a, ctvm_vf b) { return a <= b; }
static CTVM_INLINE ctvm_vm ctvm_vge(ctvm_vf a, ctvm_vf b) { return a >= b; }
static CTVM_INLINE ctvm_vm ctvm_veq(ctvm_vf a, ctvm_vf b) { return a == b; }
static CTVM_INLINE ctvm_vm ctvm_vmand(ctvm_vm a, ctvm_vm b) { return a & b; }

static CTVM_INLINE float ctvm_vhsum(ctvm_vf v) { return v; }
static CTVM_INLINE float ctvm_vhmax(ctvm_vf v) { return v; }
static CTVM_INLINE float ctvm_vfirst(ctvm_vf v) { return v; }

/* the bit primitives templates/ctvm_vec_math.h is written on */
/* a/b for b in [1, 2^126) (tanh, sigmoid): exact here */
static CTVM_INLINE ctvm_vf ctvm_vdiv_fast(ctvm_vf a, ctvm_vf b) { return a / b; }
/* to the nearest integer, ties to even (as rintf in the default mode):
 * |a| + 2^23 - 2^23 rounds |a| < 2^23 so, larger |a| are integers */
static CTVM_INLINE ctvm_vf ctvm_vround(ctvm_vf a)
{
    float t = fabsf(a), r = (t + 8388608.0f) - 8388608.0f;
    return copysignf(t < 8388608.0f ? r : t, a); /* keeps -0 and NaN */
}
/* the lanes' bits (C99 allows reading a union member other than the last written) */
typedef union ctvm_vbits_ {
    float f;
    uint32_t u;
} ctvm_vbits_;
/* m ? a : b on the bits, without a branch (the math selects on the sign of
   its argument, which a branch would mispredict half of the time) */
static CTVM_INLINE ctvm_vf ctvm_vselect(ctvm_vm m, ctvm_vf a, ctvm_vf b)
{
    ctvm_vbits_ x, y;
    uint32_t k = 0u - (uint32_t)m;
    x.f = a;
    y.f = b;
    x.u = (x.u & k) | (y.u & ~k);
    return x.f;
}
/* bitwise and / or of the lanes' bits (signs: x | -0.0f is -|x|) */
static CTVM_INLINE ctvm_vf ctvm_vbitand(ctvm_vf a, ctvm_vf b)
{
    ctvm_vbits_ x, y;
    x.f = a;
    y.f = b;
    x.u &= y.u;
    return x.f;
}
static CTVM_INLINE ctvm_vf ctvm_vbitor(ctvm_vf a, ctvm_vf b)
{
    ctvm_vbits_ x, y;
    x.f = a;
    y.f = b;
    x.u |= y.u;
    return x.f;
}
/* p * 2^(n>>1) * 2^(n - (n>>1)) for an integer n in [-252, 254]: both
 * scales built in the exponent bits, so the scale never overflows and a
 * result in the denormal range rounds once (p in [1/2, 2]) */
static CTVM_INLINE ctvm_vf ctvm_vldexp(ctvm_vf p, ctvm_vf n)
{
    ctvm_vbits_ s1, s2;
    float c = n > -252.0f ? (n < 254.0f ? n : 254.0f) : -252.0f; /* NaN: -252, no undefined conversion */
    int32_t k = (int32_t)c, k1 = (int32_t)(((uint32_t)k + 0x80000000u) >> 1) - 0x40000000; /* k >> 1 */
    s1.u = (uint32_t)(k1 + 127) << 23;
    s2.u = (uint32_t)(k - k1 + 127) << 23;
    return p * s1.f * s2.f;
}
/* the exponent field of a minus 127: floor(log2 |a|) for normal a */
static CTVM_INLINE ctvm_vf ctvm_vgetexp(ctvm_vf a)
{
    ctvm_vbits_ b;
    b.f = a;
    return (float)((int)((b.u >> 23) & 255u) - 127);
}
/* |a| with the exponent field 127: in [1, 2) for normal a */
static CTVM_INLINE ctvm_vf ctvm_vgetmant(ctvm_vf a)
{
    ctvm_vbits_ b;
    b.f = a;
    b.u = (b.u & 0x007fffffu) | 0x3f800000u;
    return b.f;
}

#if defined(__clang__)
#pragma clang diagnostic pop
#endif

#endif
