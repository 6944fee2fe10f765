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
/* the first n lanes (0 < n <= CTVM_VL) of a vector: a row's tail (lp_vectorize) */
static CTVM_INLINE ctvm_vf ctvm_vload_n(const float *p, int n) { return n > 0 ? *p : 0.0f; }
static CTVM_INLINE void ctvm_vstore_n(float *p, ctvm_vf v, int n)
{
    if (n > 0)
        *p = v;
}
static CTVM_INLINE ctvm_vm ctvm_vmask_n(int n) { return n > 0; }
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
static CTVM_INLINE float ctvm_vhmin(ctvm_vf v) { return v; }
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

/* ---- typed vectors: integers, float64, conversions, dot products ----
 * Every type has CTVM_VL lanes (here 1, a plain C scalar) except ctvm_vq,
 * 4*CTVM_VL bytes (here 4, in memory order in a uint32_t). Integer
 * arithmetic wraps (computed in unsigned types, no undefined behaviour).
 * See docs/ARCHITECTURE.md "Vector API", typed part. */
#include <string.h>
#define CTVM_HAS_DOT_U8I8 0
#define CTVM_HAS_DOT_I8I8 0

typedef int32_t ctvm_vi;  /* CTVM_VL x 32-bit integer (int32, uint32) */
typedef uint16_t ctvm_vh; /* CTVM_VL x 16-bit (int16, uint16, float16/bfloat16 bits) */
typedef uint8_t ctvm_vb;  /* CTVM_VL x 8-bit (int8, uint8, bool) */
typedef double ctvm_vd;   /* CTVM_VL x float64 */
typedef int64_t ctvm_vl;  /* CTVM_VL x 64-bit integer (int64, uint64) */
typedef uint32_t ctvm_vq; /* 4*CTVM_VL bytes, for the dot products */

static CTVM_INLINE ctvm_vi ctvm_vload_i32(const int32_t *p) { return *p; }
static CTVM_INLINE void ctvm_vstore_i32(int32_t *p, ctvm_vi v) { *p = v; }
static CTVM_INLINE ctvm_vh ctvm_vload_16(const void *p) { return *(const uint16_t *)p; }
static CTVM_INLINE void ctvm_vstore_16(void *p, ctvm_vh v) { *(uint16_t *)p = v; }
static CTVM_INLINE ctvm_vb ctvm_vload_8(const void *p) { return *(const uint8_t *)p; }
static CTVM_INLINE void ctvm_vstore_8(void *p, ctvm_vb v) { *(uint8_t *)p = v; }
static CTVM_INLINE ctvm_vd ctvm_vload_f64(const double *p) { return *p; }
static CTVM_INLINE void ctvm_vstore_f64(double *p, ctvm_vd v) { *p = v; }
static CTVM_INLINE ctvm_vl ctvm_vload_64(const void *p) { return *(const int64_t *)p; }
static CTVM_INLINE void ctvm_vstore_64(void *p, ctvm_vl v) { *(int64_t *)p = v; }
static CTVM_INLINE ctvm_vq ctvm_vload_q(const void *p)
{
    const uint8_t *b = (const uint8_t *)p;
    uint32_t q;
    uint8_t *d = (uint8_t *)&q;
    d[0] = b[0];
    d[1] = b[1];
    d[2] = b[2];
    d[3] = b[3];
    return q;
}

static CTVM_INLINE ctvm_vi ctvm_vset1_i32(int32_t x) { return x; }
/* a register tile's epilogue constants (lower/lp_tile_consts.c): one lane */
static CTVM_INLINE ctvm_vi ctvm_vset1_i32_late(int32_t x) { return x; }
static CTVM_INLINE ctvm_vf ctvm_vset1_late(float x) { return x; }
static CTVM_INLINE ctvm_vh ctvm_vset1_16(int16_t x) { return (uint16_t)x; }
static CTVM_INLINE ctvm_vb ctvm_vset1_8(int8_t x) { return (uint8_t)x; }
static CTVM_INLINE ctvm_vd ctvm_vset1_f64(double x) { return x; }
static CTVM_INLINE ctvm_vl ctvm_vset1_64(int64_t x) { return x; }
static CTVM_INLINE ctvm_vq ctvm_vset1_q(int8_t x) { return (uint32_t)(uint8_t)x * 0x01010101u; }
/* the 4 bytes at p in every 32-bit group (the input side of a dot product) */
static CTVM_INLINE ctvm_vq ctvm_vbcast4_q(const void *p) { return ctvm_vload_q(p); }
/* read where it stands (lower/lp_fresh_bcast.c): the plain form here */
static CTVM_INLINE ctvm_vq ctvm_vbcast4_q_late(const void *p) { return ctvm_vbcast4_q(p); }
static CTVM_INLINE ctvm_vi ctvm_vzero_i32(void) { return 0; }

/* int32 arithmetic, wrapping */
static CTVM_INLINE ctvm_vi ctvm_vadd_i32(ctvm_vi a, ctvm_vi b) { return (int32_t)((uint32_t)a + (uint32_t)b); }
static CTVM_INLINE ctvm_vi ctvm_vsub_i32(ctvm_vi a, ctvm_vi b) { return (int32_t)((uint32_t)a - (uint32_t)b); }
static CTVM_INLINE ctvm_vi ctvm_vmul_i32(ctvm_vi a, ctvm_vi b) { return (int32_t)((uint32_t)a * (uint32_t)b); }
static CTVM_INLINE ctvm_vi ctvm_vmin_i32(ctvm_vi a, ctvm_vi b) { return a < b ? a : b; }
static CTVM_INLINE ctvm_vi ctvm_vmax_i32(ctvm_vi a, ctvm_vi b) { return a > b ? a : b; }
static CTVM_INLINE ctvm_vi ctvm_vmin_u32(ctvm_vi a, ctvm_vi b) { return (uint32_t)a < (uint32_t)b ? a : b; }
static CTVM_INLINE ctvm_vi ctvm_vmax_u32(ctvm_vi a, ctvm_vi b) { return (uint32_t)a > (uint32_t)b ? a : b; }
static CTVM_INLINE ctvm_vi ctvm_vand_i32(ctvm_vi a, ctvm_vi b) { return a & b; }
static CTVM_INLINE ctvm_vi ctvm_vor_i32(ctvm_vi a, ctvm_vi b) { return a | b; }
static CTVM_INLINE ctvm_vi ctvm_vxor_i32(ctvm_vi a, ctvm_vi b) { return a ^ b; }
static CTVM_INLINE ctvm_vi ctvm_vnot_i32(ctvm_vi a) { return ~a; }
static CTVM_INLINE ctvm_vi ctvm_vneg_i32(ctvm_vi a) { return (int32_t)(0u - (uint32_t)a); }
static CTVM_INLINE ctvm_vi ctvm_vabs_i32(ctvm_vi a) { return a < 0 ? (int32_t)(0u - (uint32_t)a) : a; }
static CTVM_INLINE ctvm_vi ctvm_vshl_i32(ctvm_vi a, int n) { return (int32_t)((uint32_t)a << n); }
static CTVM_INLINE ctvm_vi ctvm_vshr_i32(ctvm_vi a, int n) { return a < 0 ? ~(int32_t)((uint32_t)~a >> n) : (int32_t)((uint32_t)a >> n); }
static CTVM_INLINE ctvm_vi ctvm_vshr_u32(ctvm_vi a, int n) { return (int32_t)((uint32_t)a >> n); }

/* compares -> ctvm_vm */
static CTVM_INLINE ctvm_vm ctvm_vlt_i32(ctvm_vi a, ctvm_vi b) { return a < b; }
static CTVM_INLINE ctvm_vm ctvm_vle_i32(ctvm_vi a, ctvm_vi b) { return a <= b; }
static CTVM_INLINE ctvm_vm ctvm_vgt_i32(ctvm_vi a, ctvm_vi b) { return a > b; }
static CTVM_INLINE ctvm_vm ctvm_vge_i32(ctvm_vi a, ctvm_vi b) { return a >= b; }
static CTVM_INLINE ctvm_vm ctvm_veq_i32(ctvm_vi a, ctvm_vi b) { return a == b; }
static CTVM_INLINE ctvm_vm ctvm_vne_i32(ctvm_vi a, ctvm_vi b) { return a != b; }
static CTVM_INLINE ctvm_vm ctvm_vlt_u32(ctvm_vi a, ctvm_vi b) { return (uint32_t)a < (uint32_t)b; }
static CTVM_INLINE ctvm_vm ctvm_vle_u32(ctvm_vi a, ctvm_vi b) { return (uint32_t)a <= (uint32_t)b; }
static CTVM_INLINE ctvm_vm ctvm_vgt_u32(ctvm_vi a, ctvm_vi b) { return (uint32_t)a > (uint32_t)b; }
static CTVM_INLINE ctvm_vm ctvm_vge_u32(ctvm_vi a, ctvm_vi b) { return (uint32_t)a >= (uint32_t)b; }
static CTVM_INLINE ctvm_vm ctvm_vgt(ctvm_vf a, ctvm_vf b) { return a > b; }
static CTVM_INLINE ctvm_vm ctvm_vne(ctvm_vf a, ctvm_vf b) { return !(a == b); } /* true with NaN */
static CTVM_INLINE ctvm_vi ctvm_vselect_i32(ctvm_vm m, ctvm_vi a, ctvm_vi b) { return m ? a : b; }
static CTVM_INLINE ctvm_vd ctvm_vselect_f64(ctvm_vm m, ctvm_vd a, ctvm_vd b) { return m ? a : b; }
static CTVM_INLINE ctvm_vl ctvm_vselect_64(ctvm_vm m, ctvm_vl a, ctvm_vl b) { return m ? a : b; }
static CTVM_INLINE ctvm_vh ctvm_vselect_16(ctvm_vm m, ctvm_vh a, ctvm_vh b) { return m ? a : b; }
static CTVM_INLINE ctvm_vb ctvm_vselect_8(ctvm_vm m, ctvm_vb a, ctvm_vb b) { return m ? a : b; }
static CTVM_INLINE ctvm_vm ctvm_vmor(ctvm_vm a, ctvm_vm b) { return a | b; }
static CTVM_INLINE ctvm_vm ctvm_vmxor(ctvm_vm a, ctvm_vm b) { return a ^ b; }
static CTVM_INLINE ctvm_vm ctvm_vmnot(ctvm_vm a) { return !a; }
static CTVM_INLINE ctvm_vm ctvm_vmask_of_b(ctvm_vb b) { return b != 0; }
static CTVM_INLINE ctvm_vb ctvm_vb_of_mask(ctvm_vm m) { return (uint8_t)(m != 0); }

/* float64 */
static CTVM_INLINE ctvm_vd ctvm_vadd_f64(ctvm_vd a, ctvm_vd b) { return a + b; }
static CTVM_INLINE ctvm_vd ctvm_vsub_f64(ctvm_vd a, ctvm_vd b) { return a - b; }
static CTVM_INLINE ctvm_vd ctvm_vmul_f64(ctvm_vd a, ctvm_vd b) { return a * b; }
static CTVM_INLINE ctvm_vd ctvm_vdiv_f64(ctvm_vd a, ctvm_vd b) { return a / b; }
static CTVM_INLINE ctvm_vd ctvm_vmin_f64(ctvm_vd a, ctvm_vd b) { return a < b ? a : b; }
static CTVM_INLINE ctvm_vd ctvm_vmax_f64(ctvm_vd a, ctvm_vd b) { return a > b ? a : b; }
static CTVM_INLINE ctvm_vd ctvm_vfma_f64(ctvm_vd a, ctvm_vd b, ctvm_vd c) { return a * b + c; }
static CTVM_INLINE ctvm_vd ctvm_vsqrt_f64(ctvm_vd a) { return sqrt(a); }
static CTVM_INLINE ctvm_vd ctvm_vneg_f64(ctvm_vd a) { return -a; }
static CTVM_INLINE ctvm_vd ctvm_vabs_f64(ctvm_vd a) { return fabs(a); }
static CTVM_INLINE ctvm_vm ctvm_vlt_f64(ctvm_vd a, ctvm_vd b) { return a < b; }
static CTVM_INLINE ctvm_vm ctvm_vle_f64(ctvm_vd a, ctvm_vd b) { return a <= b; }
static CTVM_INLINE ctvm_vm ctvm_vgt_f64(ctvm_vd a, ctvm_vd b) { return a > b; }
static CTVM_INLINE ctvm_vm ctvm_vge_f64(ctvm_vd a, ctvm_vd b) { return a >= b; }
static CTVM_INLINE ctvm_vm ctvm_veq_f64(ctvm_vd a, ctvm_vd b) { return a == b; }
static CTVM_INLINE ctvm_vm ctvm_vne_f64(ctvm_vd a, ctvm_vd b) { return !(a == b); }

/* 64-bit integers, wrapping */
static CTVM_INLINE ctvm_vl ctvm_vadd_64(ctvm_vl a, ctvm_vl b) { return (int64_t)((uint64_t)a + (uint64_t)b); }
static CTVM_INLINE ctvm_vl ctvm_vsub_64(ctvm_vl a, ctvm_vl b) { return (int64_t)((uint64_t)a - (uint64_t)b); }
static CTVM_INLINE ctvm_vl ctvm_vand_64(ctvm_vl a, ctvm_vl b) { return a & b; }
static CTVM_INLINE ctvm_vl ctvm_vor_64(ctvm_vl a, ctvm_vl b) { return a | b; }
static CTVM_INLINE ctvm_vl ctvm_vxor_64(ctvm_vl a, ctvm_vl b) { return a ^ b; }

/* integer widening and narrowing */
static CTVM_INLINE ctvm_vi ctvm_vcvt_i8_i32(ctvm_vb b) { return (int32_t)b - (b & 0x80 ? 256 : 0); }
static CTVM_INLINE ctvm_vi ctvm_vcvt_u8_i32(ctvm_vb b) { return b; }
static CTVM_INLINE ctvm_vi ctvm_vcvt_i16_i32(ctvm_vh h) { return (int32_t)h - (h & 0x8000 ? 65536 : 0); }
static CTVM_INLINE ctvm_vi ctvm_vcvt_u16_i32(ctvm_vh h) { return h; }
static CTVM_INLINE ctvm_vb ctvm_vcvt_i32_8(ctvm_vi a) { return (uint8_t)(uint32_t)a; }
static CTVM_INLINE ctvm_vh ctvm_vcvt_i32_16(ctvm_vi a) { return (uint16_t)(uint32_t)a; }
static CTVM_INLINE ctvm_vb ctvm_vcvt_i32_u8_sat(ctvm_vi a) { return (uint8_t)(a < 0 ? 0 : a > 255 ? 255 : a); }
static CTVM_INLINE ctvm_vb ctvm_vcvt_i32_i8_sat(ctvm_vi a) { return (uint8_t)(uint32_t)(a < -128 ? -128 : a > 127 ? 127 : a); }
static CTVM_INLINE ctvm_vh ctvm_vcvt_i32_u16_sat(ctvm_vi a) { return (uint16_t)(a < 0 ? 0 : a > 65535 ? 65535 : a); }
static CTVM_INLINE ctvm_vh ctvm_vcvt_i32_i16_sat(ctvm_vi a) { return (uint16_t)(uint32_t)(a < -32768 ? -32768 : a > 32767 ? 32767 : a); }
static CTVM_INLINE ctvm_vl ctvm_vcvt_i32_64(ctvm_vi a) { return a; }
static CTVM_INLINE ctvm_vl ctvm_vcvt_u32_64(ctvm_vi a) { return (int64_t)(uint32_t)a; }
static CTVM_INLINE ctvm_vi ctvm_vcvt_64_i32(ctvm_vl a) { return (int32_t)(uint32_t)(uint64_t)a; }

/* integer <-> float32 and rounding */
static CTVM_INLINE ctvm_vf ctvm_vcvt_i32_f32(ctvm_vi a) { return (float)a; }
static CTVM_INLINE ctvm_vf ctvm_vcvt_u32_f32(ctvm_vi a) { return (float)(uint32_t)a; }
/* toward zero; out of range exactly as the scalar code's (int32_t)(int64_t)x */
static CTVM_INLINE ctvm_vi ctvm_vcvt_f32_i32(ctvm_vf x) { return (int32_t)(int64_t)x; }
/* to the nearest int32, ties to even (QuantizeLinear's rounding), saturating:
 * x >= 2^31 gives INT32_MAX, x < -2^31 INT32_MIN, NaN 0 (as AArch64's
 * FCVTNS) */
static CTVM_INLINE ctvm_vi ctvm_vcvt_f32_i32_rne(ctvm_vf x)
{
    /* float compares and one in-range conversion: no libgcc call on a
       single-precision FPU (Cortex-M), no undefined conversion */
    return x >= 2147483648.0f ? INT32_MAX : x >= -2147483648.0f ? (int32_t)ctvm_vround(x) : x == x ? INT32_MIN : 0;
}
/* x rounded to nearest even, for x not NaN and within int32 (a clamped
   value: the requantization; else unspecified) - no fixups */
static CTVM_INLINE ctvm_vi ctvm_vcvt_f32_i32_rne_in(ctvm_vf x) { return (int32_t)ctvm_vround(x); }
static CTVM_INLINE ctvm_vf ctvm_vfloor(ctvm_vf x) { return floorf(x); }
static CTVM_INLINE ctvm_vf ctvm_vceil(ctvm_vf x) { return ceilf(x); }
static CTVM_INLINE ctvm_vf ctvm_vtrunc(ctvm_vf x) { return truncf(x); }
static CTVM_INLINE ctvm_vd ctvm_vcvt_f32_f64(ctvm_vf x) { return (double)x; }
static CTVM_INLINE ctvm_vf ctvm_vcvt_f64_f32(ctvm_vd x) { return (float)x; }

/* float16 / bfloat16 bits <-> float32, as ctvm_types.h converts (round to
 * nearest even; NaN becomes the quiet NaN with the input's sign) */
static CTVM_INLINE ctvm_vf ctvm_vcvt_f16_f32(ctvm_vh h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu, u;
    float f;
    if (e == 0x1fu)
        u = m ? 0x7fc00000u : 0x7f800000u;
    else if (e)
        u = ((uint32_t)(h & 0x7fffu) << 13) + 0x38000000u;
    else { /* zero or subnormal: m * 2^-24, exact */
        f = (float)m * 5.9604644775390625e-8f;
        memcpy(&u, &f, sizeof u);
    }
    u |= sign;
    memcpy(&f, &u, sizeof f);
    return f;
}
static CTVM_INLINE ctvm_vh ctvm_vcvt_f32_f16(ctvm_vf x)
{
    uint32_t b, a, sign, r;
    memcpy(&b, &x, sizeof b);
    a = b & 0x7fffffffu;
    sign = (b >> 16) & 0x8000u;
    if (a > 0x7f800000u)
        r = 0x7e00u; /* NaN */
    else if (a >= 0x477ff000u) /* 65520 and up round to inf */
        r = 0x7c00u;
    else if (a >= 0x38800000u) { /* normal: drop 13 bits, to nearest even */
        a -= 0x38000000u;
        r = (a + 0xfffu + ((a >> 13) & 1u)) >> 13;
    } else { /* subnormal or zero: round(|x| * 2^24), ties to even */
        float f;
        memcpy(&f, &a, sizeof f);
        f = f * 16777216.0f + 8388608.0f;
        memcpy(&r, &f, sizeof r);
        r -= 0x4b000000u;
    }
    return (uint16_t)(sign | r);
}
static CTVM_INLINE ctvm_vf ctvm_vcvt_bf16_f32(ctvm_vh h)
{
    uint32_t u = (uint32_t)h << 16;
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}
static CTVM_INLINE ctvm_vh ctvm_vcvt_f32_bf16(ctvm_vf x)
{
    uint32_t b;
    memcpy(&b, &x, sizeof b);
    if ((b & 0x7fffffffu) > 0x7f800000u) /* NaN stays a quiet NaN */
        return (uint16_t)((b >> 16) | 0x40u);
    return (uint16_t)((b + 0x7fffu + ((b >> 16) & 1u)) >> 16);
}

/* acc + sum over the lane's 4 bytes of a[j] * b[j], exact, wrapping in int32:
 * a unsigned and b signed (u8i8), or both signed (i8i8).
 * On an Arm core with the DSP extension (Cortex-M4/M7/M33/M55, and any
 * ARMv6+ A/R core: __ARM_FEATURE_DSP and the SIMD32 intrinsics of ACLE's
 * arm_acle.h), little-endian: bytes 0,2 and 1,3 (rotated down by 8) are
 * extended to halfword pairs by UXTB16 / SXTB16 and multiplied and summed
 * into acc by two SMLADs (exact: each product fits int16, SMLAD adds the two
 * and acc modulo 2^32; it only sets the Q flag on overflow). Elsewhere, plain
 * C on the bytes. */
#if defined(__ARM_FEATURE_DSP) && defined(__ARM_FEATURE_SIMD32) && !defined(__ARM_BIG_ENDIAN)
#include <arm_acle.h>
#define CTVM_SCALAR_SMLAD 1
/* bytes 1,3 of x extended to halfwords: SXTB16 / UXTB16 of x rotated by 8
 * (ACLE intrinsics only, nothing but ISO C in the generic file) */
static CTVM_INLINE int16x2_t ctvm_vscalar_sxtb16_ror8(uint32_t x)
{
    return __sxtb16((int8x4_t)((x >> 8) | (x << 24)));
}
static CTVM_INLINE int16x2_t ctvm_vscalar_uxtb16_ror8(uint32_t x)
{
    return (int16x2_t)__uxtb16((uint8x4_t)((x >> 8) | (x << 24)));
}
static CTVM_INLINE ctvm_vi ctvm_vdot_u8i8(ctvm_vi acc, ctvm_vq a, ctvm_vq b)
{
    int16x2_t a02 = (int16x2_t)__uxtb16(a), a13 = ctvm_vscalar_uxtb16_ror8(a);
    int16x2_t b02 = __sxtb16((int8x4_t)b), b13 = ctvm_vscalar_sxtb16_ror8(b);
    return __smlad(a13, b13, __smlad(a02, b02, acc));
}
static CTVM_INLINE ctvm_vi ctvm_vdot_i8i8(ctvm_vi acc, ctvm_vq a, ctvm_vq b)
{
    int16x2_t a02 = __sxtb16((int8x4_t)a), a13 = ctvm_vscalar_sxtb16_ror8(a);
    int16x2_t b02 = __sxtb16((int8x4_t)b), b13 = ctvm_vscalar_sxtb16_ror8(b);
    return __smlad(a13, b13, __smlad(a02, b02, acc));
}
#else
#define CTVM_SCALAR_SMLAD 0
static CTVM_INLINE ctvm_vi ctvm_vdot_u8i8(ctvm_vi acc, ctvm_vq a, ctvm_vq b)
{
    const uint8_t *pa = (const uint8_t *)&a, *pb = (const uint8_t *)&b;
    uint32_t s = (uint32_t)acc;
    int j;
    for (j = 0; j < 4; j++)
        s += (uint32_t)((int32_t)pa[j] * ((int32_t)pb[j] - (pb[j] & 0x80 ? 256 : 0)));
    return (int32_t)s;
}
static CTVM_INLINE ctvm_vi ctvm_vdot_i8i8(ctvm_vi acc, ctvm_vq a, ctvm_vq b)
{
    const uint8_t *pa = (const uint8_t *)&a, *pb = (const uint8_t *)&b;
    uint32_t s = (uint32_t)acc;
    int j;
    for (j = 0; j < 4; j++)
        s += (uint32_t)(((int32_t)pa[j] - (pa[j] & 0x80 ? 256 : 0)) * ((int32_t)pb[j] - (pb[j] & 0x80 ? 256 : 0)));
    return (int32_t)s;
}
#endif
/* acc + a*b for a in [0, 32767], b in [-32768, 32767] (the product is exact
   in int32; the sum wraps) */
static CTVM_INLINE ctvm_vi ctvm_vmla16_i32(ctvm_vi acc, ctvm_vi a, ctvm_vi b)
{
    return (int32_t)((uint32_t)acc + (uint32_t)(a * b));
}

/* bfloat16 dot product: ctvm_vq holds 2*CTVM_VL bfloat16 values (element
 * 2l in the low half of 32-bit group l, 2l+1 in the high half). Lane l:
 * acc[l] + a[2l+1]*b[2l+1], rounded, then + a[2l]*b[2l], rounded (each
 * product of two bfloat16 values is exact in float32, so this is two fused
 * multiply-adds, odd pair first: AVX512-BF16's vdpbf16ps, bit for bit on
 * normal numbers; it flushes denormal inputs and results to zero, which
 * the fallbacks do not). Here one lane: the uint32_t's bytes in memory
 * order. */
#define CTVM_HAS_DOT_BF16 0
static CTVM_INLINE ctvm_vf ctvm_vdot_bf16(ctvm_vf acc, ctvm_vq a, ctvm_vq b)
{
    uint16_t pa[2], pb[2];
    memcpy(pa, &a, 4);
    memcpy(pb, &b, 4);
    acc = ctvm_vfma(ctvm_vcvt_bf16_f32(pa[1]), ctvm_vcvt_bf16_f32(pb[1]), acc);
    return ctvm_vfma(ctvm_vcvt_bf16_f32(pa[0]), ctvm_vcvt_bf16_f32(pb[0]), acc);
}

#if defined(__clang__)
#pragma clang diagnostic pop
#endif

#endif
