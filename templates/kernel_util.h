/* kernel_util.h - what the runtime kernels (templates/kernel_*.h) share:
 * the element type codes they receive and typed element access.
 *
 * Runtime kernels are operators written once in C (sorting, NMS, unique
 * elements, data-dependent selections) rather than as loop nests; see
 * ir/loop_kernels.h for their calling convention. This file is pasted into
 * a generated model before its kernels and compiled into the compiler.
 * Strict C99; no library calls. The codes equal ctvm's DType enum
 * (ir/dtype.h; ir/loop_kernels.c checks they agree). */
#ifndef CTVM_KERNEL_UTIL_H
#define CTVM_KERNEL_UTIL_H

#include <stdint.h>

#define CTVM_DT_F32 1
#define CTVM_DT_I64 2
#define CTVM_DT_I32 3
#define CTVM_DT_I8 4
#define CTVM_DT_U8 5
#define CTVM_DT_F16 6
#define CTVM_DT_BOOL 7
#define CTVM_DT_F64 8
#define CTVM_DT_I16 9
#define CTVM_DT_U16 10
#define CTVM_DT_U32 11
#define CTVM_DT_U64 12
#define CTVM_DT_BF16 13

#if defined(__clang__)
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wunused-function"
#endif

/* bytes of one element of a byte-sized-or-larger type, 0 otherwise */
static CTVM_INLINE int ctvm_kbytes(int dt)
{
    switch (dt) {
    case CTVM_DT_I8: case CTVM_DT_U8: case CTVM_DT_BOOL: return 1;
    case CTVM_DT_I16: case CTVM_DT_U16: case CTVM_DT_F16: case CTVM_DT_BF16: return 2;
    case CTVM_DT_F32: case CTVM_DT_I32: case CTVM_DT_U32: return 4;
    case CTVM_DT_F64: case CTVM_DT_I64: case CTVM_DT_U64: return 8;
    default: return 0;
    }
}

static CTVM_INLINE int ctvm_kis_float(int dt)
{
    return dt == CTVM_DT_F32 || dt == CTVM_DT_F64 || dt == CTVM_DT_F16 || dt == CTVM_DT_BF16;
}

/* element i as a double (floats; 16-bit floats by their bits) */
static CTVM_INLINE double ctvm_kget_f(const void *p, int64_t i, int dt)
{
    union { uint32_t u; float f; } c;
    switch (dt) {
    case CTVM_DT_F32: return ((const float *)p)[i];
    case CTVM_DT_F64: return ((const double *)p)[i];
    case CTVM_DT_BF16: c.u = (uint32_t)((const uint16_t *)p)[i] << 16; return c.f;
    case CTVM_DT_F16: {
        uint32_t h = ((const uint16_t *)p)[i], s = (h >> 15) << 31, e = (h >> 10) & 31, m = h & 1023;
        if (e == 31)
            c.u = s | 0x7f800000u | (m << 13);
        else if (e)
            c.u = s | ((e + 112) << 23) | (m << 13);
        else if (m) {
            e = 113;
            while (!(m & 1024)) {
                m <<= 1;
                e--;
            }
            c.u = s | (e << 23) | ((m & 1023) << 13);
        } else
            c.u = s;
        return c.f;
    }
    default: return 0;
    }
}

/* element i of an integer or bool array (uint64 by its bits) */
static CTVM_INLINE int64_t ctvm_kget_i(const void *p, int64_t i, int dt)
{
    switch (dt) {
    case CTVM_DT_I8: return ((const int8_t *)p)[i];
    case CTVM_DT_U8: case CTVM_DT_BOOL: return ((const uint8_t *)p)[i];
    case CTVM_DT_I16: return ((const int16_t *)p)[i];
    case CTVM_DT_U16: return ((const uint16_t *)p)[i];
    case CTVM_DT_I32: return ((const int32_t *)p)[i];
    case CTVM_DT_U32: return ((const uint32_t *)p)[i];
    case CTVM_DT_I64: return ((const int64_t *)p)[i];
    case CTVM_DT_U64: return (int64_t)((const uint64_t *)p)[i];
    default: return 0;
    }
}

/* Three-way order of a[i] and b[j]: numbers by value, NaN after every
 * number and equal to NaN (numpy's sort order). */
static CTVM_INLINE int ctvm_kcmp(const void *a, int64_t i, const void *b, int64_t j, int dt)
{
    if (ctvm_kis_float(dt)) {
        double x = ctvm_kget_f(a, i, dt), y = ctvm_kget_f(b, j, dt);
        int nx = x != x, ny = y != y;
        if (nx || ny)
            return nx - ny;
        return x < y ? -1 : x > y;
    }
    if (dt == CTVM_DT_U64) {
        uint64_t x = (uint64_t)ctvm_kget_i(a, i, dt), y = (uint64_t)ctvm_kget_i(b, j, dt);
        return x < y ? -1 : x > y;
    }
    {
        int64_t x = ctvm_kget_i(a, i, dt), y = ctvm_kget_i(b, j, dt);
        return x < y ? -1 : x > y;
    }
}

/* element i is not zero (-0.0 is zero, NaN is not) */
static CTVM_INLINE int ctvm_knonzero(const void *p, int64_t i, int dt)
{
    if (ctvm_kis_float(dt))
        return ctvm_kget_f(p, i, dt) != 0.0;
    return ctvm_kget_i(p, i, dt) != 0;
}

/* copy n bytes (no library call, also on bare metal) */
static CTVM_INLINE void ctvm_kcopy(void *dst, const void *src, int64_t n)
{
    unsigned char *d = (unsigned char *)dst;
    const unsigned char *s = (const unsigned char *)src;
    for (int64_t k = 0; k < n; k++)
        d[k] = s[k];
}

/* TopK over rows [outer, n (stride: N rows), inner]: the k best of the first
 * n elements of each row (largest or smallest; equal values: lower index
 * first; NaN as the largest), into rows of K (k <= K, k <= n) of y and idx.
 * For k <= 16 each pick scans the row for the best element after the
 * previous pick in the strict total order (value, then index); for larger
 * k a heap of the k best so far lives in idx's row (n log k; ssdlite's
 * per-class top 300 of 3234 boxes) and is sorted in place. Shared by
 * kernel_topk.h (n = N = K) and kernel_dyn.h (run-time n and k). */
static CTVM_INLINE int ctvm_ktopk_before(const void *x, int64_t base, int64_t inner, int64_t a, int64_t b, int dt, int largest)
{
    int c = ctvm_kcmp(x, base + a * inner, x, base + b * inner, dt);
    if (largest)
        c = -c;
    return c < 0 || (c == 0 && a < b);
}

/* the heap of kept row indices h[0..size) (stride inner): every parent
 * comes after its children in the order, so h[0] is the worst kept */
static CTVM_INLINE void ctvm_ktopk_down(const void *x, int64_t base, int64_t inner, int64_t *h, int64_t size, int64_t j,
                                        int dt, int largest)
{
    for (;;) {
        int64_t l = 2 * j + 1, r = l + 1, w = j, t;
        if (l < size && ctvm_ktopk_before(x, base, inner, h[w * inner], h[l * inner], dt, largest))
            w = l;
        if (r < size && ctvm_ktopk_before(x, base, inner, h[w * inner], h[r * inner], dt, largest))
            w = r;
        if (w == j)
            return;
        t = h[j * inner], h[j * inner] = h[w * inner], h[w * inner] = t;
        j = w;
    }
}

static CTVM_INLINE void ctvm_ktopk_rows(const unsigned char *x, unsigned char *y, int64_t *idx, int dt, int largest,
                                        int64_t outer, int64_t N, int64_t n, int64_t inner, int64_t k, int64_t K)
{
    int64_t es = ctvm_kbytes(dt);
    for (int64_t o = 0; o < outer; o++)
        for (int64_t i = 0; i < inner; i++) {
            int64_t base = o * N * inner + i, obase = o * K * inner + i, prev = -1, *h = idx + obase;
            if (k > 16) { /* a heap of the k best so far: n log k */
                int64_t size = 0;
                for (int64_t m = 0; m < n; m++) {
                    if (size < k) {
                        int64_t j = size++;
                        h[j * inner] = m;
                        while (j > 0 && ctvm_ktopk_before(x, base, inner, h[(j - 1) / 2 * inner], h[j * inner], dt, largest)) {
                            int64_t p = (j - 1) / 2, t = h[p * inner];
                            h[p * inner] = h[j * inner], h[j * inner] = t;
                            j = p;
                        }
                    } else if (ctvm_ktopk_before(x, base, inner, m, h[0], dt, largest)) {
                        h[0] = m;
                        ctvm_ktopk_down(x, base, inner, h, size, 0, dt, largest);
                    }
                }
                for (int64_t end = size - 1; end > 0; end--) { /* worst to the back: best first */
                    int64_t t = h[0];
                    h[0] = h[end * inner], h[end * inner] = t;
                    ctvm_ktopk_down(x, base, inner, h, end, 0, dt, largest);
                }
                for (int64_t j = 0; j < k; j++)
                    ctvm_kcopy(y + (obase + j * inner) * es, x + (base + h[j * inner] * inner) * es, es);
                continue;
            }
            for (int64_t j = 0; j < k; j++) { /* small k: k scans, no reordering */
                int64_t best = -1;
                for (int64_t m = 0; m < n; m++) {
                    if (prev >= 0 && !ctvm_ktopk_before(x, base, inner, prev, m, dt, largest))
                        continue;
                    if (best < 0 || ctvm_ktopk_before(x, base, inner, m, best, dt, largest))
                        best = m;
                }
                if (best < 0)
                    best = 0; /* not reached: k <= n */
                ctvm_kcopy(y + (obase + j * inner) * es, x + (base + best * inner) * es, es);
                idx[obase + j * inner] = best;
                prev = best;
            }
        }
}

/* stores v as element i of a float array (float16/bfloat16 rounded to
 * nearest even, overflow to infinity, NaN stays NaN) */
static CTVM_INLINE void ctvm_kset_f(void *p, int64_t i, int dt, double v)
{
    union { uint32_t u; float f; } c;
    c.f = (float)v;
    uint32_t u = c.u, s = (u >> 16) & 0x8000u, a = u & 0x7fffffffu, r, rem, half;
    switch (dt) {
    case CTVM_DT_F32: ((float *)p)[i] = (float)v; return;
    case CTVM_DT_F64: ((double *)p)[i] = v; return;
    case CTVM_DT_BF16:
        if (a > 0x7f800000u)
            r = (u >> 16) | 0x40u;
        else
            r = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
        ((uint16_t *)p)[i] = (uint16_t)r;
        return;
    case CTVM_DT_F16:
        if (a > 0x7f800000u) {
            r = 0x7e00u;
        } else if (a >= 0x477ff000u) { /* 65520 and above round to infinity */
            r = 0x7c00u;
        } else if (a < 0x33000000u) {  /* at most 2^-25: zero */
            r = 0;
        } else if (a < 0x38800000u) {  /* subnormal: round(v * 2^24) */
            uint32_t e = a >> 23, m = (a & 0x7fffffu) | 0x800000u, sh = 126u - e;
            r = m >> sh, rem = m & ((1u << sh) - 1u), half = 1u << (sh - 1u);
            r += rem > half || (rem == half && (r & 1u));
        } else {
            r = (a - 0x38000000u) >> 13, rem = a & 0x1fffu;
            r += rem > 0x1000u || (rem == 0x1000u && (r & 1u));
        }
        ((uint16_t *)p)[i] = (uint16_t)(s | r);
        return;
    default: return;
    }
}

#if defined(__clang__)
#pragma clang diagnostic pop
#endif

#endif
