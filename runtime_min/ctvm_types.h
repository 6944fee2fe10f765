/* ctvm_types.h - the storage formats of the narrow element types: float16,
 * bfloat16, the float8 formats, float8e8m0, float4e2m1 and the packed
 * 4-bit and 2-bit integers, each converted to and from its compute type
 * (float32, or int32 for the packed integers).
 *
 * Pasted into a generated model.c when the model stores such a type, and
 * included by the compiler itself (ir/tensor.c) so constant folding and the
 * generated code convert identically. Strict C99, no library calls.
 *
 * Rounding is to nearest, ties to even, as numpy/ml_dtypes convert; the
 * float8 formats either saturate (sat != 0: overflow and infinity give the
 * largest finite value, ONNX Cast's default) or overflow to infinity
 * (float8e5m2) or NaN (the formats without infinity). float8e8m0 follows
 * ONNX's to_float8e8m0 (round up, down or to nearest; sign ignored). Packed
 * tensors hold element 0 in the low bits of byte 0; a store keeps the
 * element's low bits (integers wrap, as ml_dtypes does). */
#ifndef CTVM_TYPES_H
#define CTVM_TYPES_H

#include <stdint.h>
#include <string.h>

#ifndef CTVM_INLINE
#if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 199901L
#define CTVM_INLINE inline
#else
#define CTVM_INLINE
#endif
#endif

/* unused static inline functions of the main file warn under clang */
#if defined(__clang__)
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wunused-function"
#endif

/* How a narrow float format encodes NaN and infinity. */
enum {
    CTVM_MF_IEEE = 0, /* all-ones exponent: infinity (mantissa 0) and NaN */
    CTVM_MF_FN = 1,   /* no infinity; only S.1111.111 is NaN (float8e4m3fn) */
    CTVM_MF_FNUZ = 2, /* no infinity, no -0; 0x80 is the only NaN */
    CTVM_MF_FINITE = 3 /* neither infinity nor NaN (float4e2m1) */
};

static CTVM_INLINE float ctvm_bits_f32(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static CTVM_INLINE uint32_t ctvm_f32_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

/* float32 to a narrow float of `nbits` bits (sign, exponent, m mantissa
 * bits, exponent bias `bias`); maxcode is the largest finite magnitude's
 * code, nan its NaN (without sign), inf its infinity (IEEE only). */
static CTVM_INLINE uint32_t ctvm_to_minifloat(float x, int nbits, int m, int bias, int kind,
                                                 uint32_t maxcode, uint32_t nan, uint32_t inf,
                                                 int sat)
{
    uint32_t b = ctvm_f32_bits(x);
    uint32_t sign = (b >> 31) << (nbits - 1);
    uint32_t fexp = (b >> 23) & 0xffu, frac = b & 0x7fffffu;
    uint32_t code;
    if (fexp == 0xffu) {
        if (frac) /* NaN */
            return kind == CTVM_MF_FNUZ ? 1u << (nbits - 1) : sign | nan;
        if (sat)
            return sign | maxcode;
        return kind == CTVM_MF_IEEE ? sign | inf : (kind == CTVM_MF_FNUZ ? 1u << (nbits - 1) : sign | nan);
    }
    {
        int ue = fexp ? (int)fexp - 127 : -126; /* unbiased exponent */
        uint64_t mant = fexp ? (frac | 0x800000u) : frac;
        int shift = 23 - m; /* bits dropped in the normal range */
        int normal = ue >= 1 - bias;
        uint64_t r;
        if (!normal)
            shift += (1 - bias) - ue;
        if (shift > 40) {
            r = 0;
        } else {
            uint64_t rem = mant & ((UINT64_C(1) << shift) - 1), half = UINT64_C(1) << (shift - 1);
            r = mant >> shift;
            if (rem > half || (rem == half && (r & 1)))
                r++;
        }
        if (normal) {
            int64_t c = (int64_t)(ue + bias - 1) * ((int64_t)1 << m) + (int64_t)r;
            code = c > (int64_t)maxcode ? maxcode + 1 : (uint32_t)c;
        } else {
            code = (uint32_t)r;
        }
    }
    if (code > maxcode) {
        if (sat)
            code = maxcode;
        else if (kind == CTVM_MF_IEEE)
            code = inf;
        else
            return kind == CTVM_MF_FNUZ ? 1u << (nbits - 1) : sign | nan;
    }
    if (code == 0 && kind == CTVM_MF_FNUZ)
        return 0;
    return sign | code;
}

/* A narrow float's code to float32 (every narrow value is exact in float32). */
static CTVM_INLINE float ctvm_from_minifloat(uint32_t c, int nbits, int m, int bias, int kind)
{
    int ebits = nbits - 1 - m;
    uint32_t emax = (1u << ebits) - 1;
    uint32_t sign = (c >> (nbits - 1)) & 1u, e = (c >> m) & emax, man = c & ((1u << m) - 1);
    float v;
    if (kind == CTVM_MF_FNUZ && c == (1u << (nbits - 1)))
        return ctvm_bits_f32(0x7fc00000u);
    if (kind == CTVM_MF_IEEE && e == emax)
        return ctvm_bits_f32((sign << 31) | (man ? 0x7fc00000u : 0x7f800000u));
    if (kind == CTVM_MF_FN && e == emax && man == (1u << m) - 1)
        return ctvm_bits_f32((sign << 31) | 0x7fc00000u);
    if (e == 0) /* subnormal: man * 2^(1 - bias - m), exact */
        v = (float)man * ctvm_bits_f32((uint32_t)(127 + 1 - bias - m) << 23);
    else
        return ctvm_bits_f32((sign << 31) | ((e - (uint32_t)bias + 127u) << 23) | (man << (23 - m)));
    return sign ? -v : v;
}

/* ---- float16 (IEEE binary16) and bfloat16 ---- */
static CTVM_INLINE float ctvm_f16_to_f32(uint16_t h)
{
    return ctvm_from_minifloat(h, 16, 10, 15, CTVM_MF_IEEE);
}
static CTVM_INLINE uint16_t ctvm_f32_to_f16(float x)
{
    return (uint16_t)ctvm_to_minifloat(x, 16, 10, 15, CTVM_MF_IEEE, 0x7bffu, 0x7e00u, 0x7c00u, 0);
}
static CTVM_INLINE float ctvm_bf16_to_f32(uint16_t h)
{
    return ctvm_bits_f32((uint32_t)h << 16);
}
static CTVM_INLINE uint16_t ctvm_f32_to_bf16(float x)
{
    uint32_t b = ctvm_f32_bits(x);
    if ((b & 0x7fffffffu) > 0x7f800000u) /* NaN stays a quiet NaN */
        return (uint16_t)((b >> 16) | 0x40u);
    return (uint16_t)((b + 0x7fffu + ((b >> 16) & 1u)) >> 16);
}

/* ---- float8 ---- */
static CTVM_INLINE float ctvm_f8e4m3fn_to_f32(uint8_t c)
{
    return ctvm_from_minifloat(c, 8, 3, 7, CTVM_MF_FN);
}
static CTVM_INLINE uint8_t ctvm_f32_to_f8e4m3fn(float x, int sat)
{
    return (uint8_t)ctvm_to_minifloat(x, 8, 3, 7, CTVM_MF_FN, 0x7eu, 0x7fu, 0, sat);
}
static CTVM_INLINE float ctvm_f8e4m3fnuz_to_f32(uint8_t c)
{
    return ctvm_from_minifloat(c, 8, 3, 8, CTVM_MF_FNUZ);
}
static CTVM_INLINE uint8_t ctvm_f32_to_f8e4m3fnuz(float x, int sat)
{
    return (uint8_t)ctvm_to_minifloat(x, 8, 3, 8, CTVM_MF_FNUZ, 0x7fu, 0, 0, sat);
}
static CTVM_INLINE float ctvm_f8e5m2_to_f32(uint8_t c)
{
    return ctvm_from_minifloat(c, 8, 2, 15, CTVM_MF_IEEE);
}
static CTVM_INLINE uint8_t ctvm_f32_to_f8e5m2(float x, int sat)
{
    return (uint8_t)ctvm_to_minifloat(x, 8, 2, 15, CTVM_MF_IEEE, 0x7bu, 0x7eu, 0x7cu, sat);
}
static CTVM_INLINE float ctvm_f8e5m2fnuz_to_f32(uint8_t c)
{
    return ctvm_from_minifloat(c, 8, 2, 16, CTVM_MF_FNUZ);
}
static CTVM_INLINE uint8_t ctvm_f32_to_f8e5m2fnuz(float x, int sat)
{
    return (uint8_t)ctvm_to_minifloat(x, 8, 2, 16, CTVM_MF_FNUZ, 0x7fu, 0, 0, sat);
}

/* float8e8m0: 2^(c - 127), 0xff is NaN, no zero and no sign. */
enum { CTVM_ROUND_UP = 0, CTVM_ROUND_DOWN = 1, CTVM_ROUND_NEAREST = 2 };
static CTVM_INLINE float ctvm_f8e8m0_to_f32(uint8_t c)
{
    if (c == 0xffu)
        return ctvm_bits_f32(0x7fc00000u);
    return c ? ctvm_bits_f32((uint32_t)c << 23) : ctvm_bits_f32(0x00400000u);
}
static CTVM_INLINE uint8_t ctvm_f32_to_f8e8m0(float x, int sat, int round_mode)
{
    uint32_t b = ctvm_f32_bits(x), e = (b >> 23) & 0xffu;
    int up = 0;
    if (e == 0xffu)
        return 0xffu;
    if (round_mode == CTVM_ROUND_NEAREST) {
        uint32_t g = (b >> 22) & 1u, r = (b >> 21) & 1u, s = (b & 0x1fffffu) != 0;
        up = g && (r || s || e > 0);
    } else if (round_mode == CTVM_ROUND_UP) {
        up = (b & 0x7fffffu) != 0;
    }
    if (up && sat && e == 0xfeu)
        up = 0;
    return (uint8_t)(e + (uint32_t)up);
}

/* ---- float4e2m1: finite only, saturating; NaN becomes -0 as in ml_dtypes ---- */
static CTVM_INLINE float ctvm_f4e2m1_to_f32(uint8_t c)
{
    return ctvm_from_minifloat(c & 0xfu, 4, 1, 1, CTVM_MF_FINITE);
}
static CTVM_INLINE uint8_t ctvm_f32_to_f4e2m1(float x)
{
    uint32_t b = ctvm_f32_bits(x);
    if ((b & 0x7fffffffu) > 0x7f800000u)
        return 0x8u;
    return (uint8_t)ctvm_to_minifloat(x, 4, 1, 1, CTVM_MF_FINITE, 0x7u, 0, 0, 1);
}

/* ---- packed sub-byte elements: element i of the array at p ---- */
static CTVM_INLINE uint32_t ctvm_ld_bits(const uint8_t *p, int64_t i, int bits)
{
    int per = 8 / bits;
    return (uint32_t)(p[i / per] >> ((i % per) * bits)) & ((1u << bits) - 1);
}
static CTVM_INLINE void ctvm_st_bits(uint8_t *p, int64_t i, int bits, uint32_t v)
{
    int per = 8 / bits, sh = (int)(i % per) * bits;
    uint32_t mask = ((1u << bits) - 1) << sh;
    p[i / per] = (uint8_t)((p[i / per] & ~mask) | ((v << sh) & mask));
}
static CTVM_INLINE int32_t ctvm_ld_i4(const uint8_t *p, int64_t i)
{
    return (int32_t)((ctvm_ld_bits(p, i, 4) ^ 8u)) - 8;
}
static CTVM_INLINE int32_t ctvm_ld_u4(const uint8_t *p, int64_t i)
{
    return (int32_t)ctvm_ld_bits(p, i, 4);
}
static CTVM_INLINE int32_t ctvm_ld_i2(const uint8_t *p, int64_t i)
{
    return (int32_t)((ctvm_ld_bits(p, i, 2) ^ 2u)) - 2;
}
static CTVM_INLINE int32_t ctvm_ld_u2(const uint8_t *p, int64_t i)
{
    return (int32_t)ctvm_ld_bits(p, i, 2);
}
static CTVM_INLINE void ctvm_st_4(uint8_t *p, int64_t i, int64_t v)
{
    ctvm_st_bits(p, i, 4, (uint32_t)((uint64_t)v & 0xfu));
}
static CTVM_INLINE void ctvm_st_2(uint8_t *p, int64_t i, int64_t v)
{
    ctvm_st_bits(p, i, 2, (uint32_t)((uint64_t)v & 0x3u));
}
static CTVM_INLINE float ctvm_ld_f4e2m1(const uint8_t *p, int64_t i)
{
    return ctvm_f4e2m1_to_f32((uint8_t)ctvm_ld_bits(p, i, 4));
}
static CTVM_INLINE void ctvm_st_f4e2m1(uint8_t *p, int64_t i, float v)
{
    ctvm_st_bits(p, i, 4, ctvm_f32_to_f4e2m1(v));
}

#if defined(__clang__)
#pragma clang diagnostic pop
#endif

#endif /* CTVM_TYPES_H */
