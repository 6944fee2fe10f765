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
static CTVM_INLINE float ctvm_sigmoidf(float x) { return 1.0f / (1.0f + expf(-x)); }
#if defined(__clang__)
#pragma clang diagnostic pop
#endif

#endif
