/* ctvm_runtime.h - the minimal runtime pasted into every generated model.c.
 *
 * Status codes returned by NAME_run and the small scalar helpers generated
 * kernels call. Compiled and tested on its own (tests/unit/test_runtime.c)
 * and pasted verbatim between fenced banners by emit_c. Strict C99: no
 * library calls besides <math.h>, no malloc, no I/O. Helpers are
 * `static inline` so unused ones cost nothing and raise no warning, and
 * several generated models link into one program. */
#ifndef CTVM_RUNTIME_H
#define CTVM_RUNTIME_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#define CTVM_OK 0       /* success */
#define CTVM_ERR_NULL 1 /* a required pointer (input, output, workspace) was NULL */

/* Workspaces must be aligned for float access; 64 bytes is best for SIMD. */
#define CTVM_WORKSPACE_ALIGN 64

#if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 199901L
#define CTVM_RESTRICT restrict
#define CTVM_INLINE inline
#else
#define CTVM_RESTRICT
#define CTVM_INLINE
#endif

/* clang, unlike gcc, warns about unused static inline functions of the main
   file, which this header becomes once pasted into model.c */
#if defined(__clang__)
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wunused-function"
#endif
static CTVM_INLINE float ctvm_minf(float a, float b) { return a < b ? a : b; }
static CTVM_INLINE float ctvm_maxf(float a, float b) { return a > b ? a : b; }
static CTVM_INLINE int ctvm_mini(int a, int b) { return a < b ? a : b; }
static CTVM_INLINE int ctvm_maxi(int a, int b) { return a > b ? a : b; }
/* typed helpers: float64 min/max/sigmoid (float32 sigmoid is
   templates/ctvm_vec_math.h), and integer min/max/abs/division
   without undefined behaviour (x/0 = x%0 = 0, INT64_MIN/-1 wraps); narrower
   integers are computed through these and converted back */
static CTVM_INLINE double ctvm_mind(double a, double b) { return a < b ? a : b; }
static CTVM_INLINE double ctvm_maxd(double a, double b) { return a > b ? a : b; }
static CTVM_INLINE double ctvm_sigmoid(double x) { return 1.0 / (1.0 + exp(-x)); }
static CTVM_INLINE int64_t ctvm_min_i64(int64_t a, int64_t b) { return a < b ? a : b; }
static CTVM_INLINE int64_t ctvm_max_i64(int64_t a, int64_t b) { return a > b ? a : b; }
static CTVM_INLINE uint64_t ctvm_min_u64(uint64_t a, uint64_t b) { return a < b ? a : b; }
static CTVM_INLINE uint64_t ctvm_max_u64(uint64_t a, uint64_t b) { return a > b ? a : b; }
static CTVM_INLINE int64_t ctvm_abs_i64(int64_t a) { return a < 0 ? (int64_t)(0u - (uint64_t)a) : a; }
static CTVM_INLINE int64_t ctvm_div_i64(int64_t a, int64_t b)
{
    return b == 0 ? 0 : b == -1 ? (int64_t)(0u - (uint64_t)a) : a / b;
}
static CTVM_INLINE uint64_t ctvm_div_u64(uint64_t a, uint64_t b) { return b ? a / b : 0; }
static CTVM_INLINE int64_t ctvm_mod_i64(int64_t a, int64_t b) { return b == 0 || b == -1 ? 0 : a % b; }
static CTVM_INLINE uint64_t ctvm_mod_u64(uint64_t a, uint64_t b) { return b ? a % b : 0; }
/* exact integer power, wrapping; a negative exponent gives 0 unless |a| == 1 */
static CTVM_INLINE uint64_t ctvm_pow_u64(uint64_t a, uint64_t e)
{
    uint64_t r = 1;
    for (; e; e >>= 1, a *= a)
        if (e & 1)
            r *= a;
    return r;
}
static CTVM_INLINE int64_t ctvm_pow_i64(int64_t a, int64_t e)
{
    if (e < 0)
        return a == 1 ? 1 : a == -1 ? ((e & 1) ? -1 : 1) : 0;
    return (int64_t)ctvm_pow_u64((uint64_t)a, (uint64_t)e);
}
#if defined(__clang__)
#pragma clang diagnostic pop
#endif

#endif
