/* ctvm_vec_scalar.h - the ctvm vector API with one lane (CTVM_VL 1).
 *
 * Pasted by emit_c into model.c for --target generic and riscv64 (and any
 * target without a SIMD header, e.g. Cortex-M): vectorized loops then
 * become plain scalar C. Strict C99, no extensions; exp, tanh and sigmoid
 * call libm (expf, tanhf). Assumes runtime_min/ctvm_runtime.h was pasted
 * first (CTVM_INLINE, ctvm_sigmoidf, <math.h>). Every header of the API
 * (templates/ctvm_vec_*.h) defines the same functions with the same
 * semantics; see docs/ARCHITECTURE.md "Vector API". */
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
/* a*b + c; contracted to one fma only if the compiler chooses to (fmaf is a
 * slow library call on targets without an fma instruction). */
static CTVM_INLINE ctvm_vf ctvm_vfma(ctvm_vf a, ctvm_vf b, ctvm_vf c) { return a * b + c; }
static CTVM_INLINE ctvm_vf ctvm_vneg(ctvm_vf a) { return -a; }
static CTVM_INLINE ctvm_vf ctvm_vabs(ctvm_vf a) { return fabsf(a); }
static CTVM_INLINE ctvm_vf ctvm_vsqrt(ctvm_vf a) { return sqrtf(a); }

static CTVM_INLINE ctvm_vf ctvm_vexp(ctvm_vf a) { return expf(a); }
static CTVM_INLINE ctvm_vf ctvm_vtanh(ctvm_vf a) { return tanhf(a); }
static CTVM_INLINE ctvm_vf ctvm_vsigmoid(ctvm_vf a) { return ctvm_sigmoidf(a); }

static CTVM_INLINE ctvm_vm ctvm_vlt(ctvm_vf a, ctvm_vf b) { return a < b; }
static CTVM_INLINE ctvm_vm ctvm_vle(ctvm_vf a, ctvm_vf b) { return a <= b; }
static CTVM_INLINE ctvm_vm ctvm_vge(ctvm_vf a, ctvm_vf b) { return a >= b; }
static CTVM_INLINE ctvm_vm ctvm_veq(ctvm_vf a, ctvm_vf b) { return a == b; }
static CTVM_INLINE ctvm_vm ctvm_vmand(ctvm_vm a, ctvm_vm b) { return a & b; }
static CTVM_INLINE ctvm_vf ctvm_vselect(ctvm_vm m, ctvm_vf a, ctvm_vf b) { return m ? a : b; }

static CTVM_INLINE float ctvm_vhsum(ctvm_vf v) { return v; }
static CTVM_INLINE float ctvm_vhmax(ctvm_vf v) { return v; }

#if defined(__clang__)
#pragma clang diagnostic pop
#endif

#endif
