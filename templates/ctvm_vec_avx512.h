/* ctvm_vec_avx512.h - placeholder AVX-512 vector API (VL 16). */
#ifndef CTVM_VEC_H
#define CTVM_VEC_H
#ifndef __AVX512F__
#error "ctvm: generated for target x86_64-avx512: compile with -mavx512f (or -march=native)"
#endif
#include <immintrin.h>
#define CTVM_VL 16
#define CTVM_ISA "avx512"
typedef __m512 ctvm_vf;
typedef __mmask16 ctvm_vm;
static CTVM_INLINE ctvm_vf ctvm_vload(const float *p) { return _mm512_loadu_ps(p); }
static CTVM_INLINE void ctvm_vstore(float *p, ctvm_vf v) { _mm512_storeu_ps(p, v); }
static CTVM_INLINE ctvm_vf ctvm_vset1(float x) { return _mm512_set1_ps(x); }
static CTVM_INLINE ctvm_vf ctvm_vzero(void) { return _mm512_setzero_ps(); }
static CTVM_INLINE ctvm_vf ctvm_vadd(ctvm_vf a, ctvm_vf b) { return _mm512_add_ps(a, b); }
static CTVM_INLINE ctvm_vf ctvm_vsub(ctvm_vf a, ctvm_vf b) { return _mm512_sub_ps(a, b); }
static CTVM_INLINE ctvm_vf ctvm_vmul(ctvm_vf a, ctvm_vf b) { return _mm512_mul_ps(a, b); }
static CTVM_INLINE ctvm_vf ctvm_vdiv(ctvm_vf a, ctvm_vf b) { return _mm512_div_ps(a, b); }
static CTVM_INLINE ctvm_vf ctvm_vmin(ctvm_vf a, ctvm_vf b) { return _mm512_mask_blend_ps(_mm512_cmp_ps_mask(a, b, _CMP_LT_OQ), b, a); }
static CTVM_INLINE ctvm_vf ctvm_vmax(ctvm_vf a, ctvm_vf b) { return _mm512_mask_blend_ps(_mm512_cmp_ps_mask(a, b, _CMP_GT_OQ), b, a); }
static CTVM_INLINE ctvm_vf ctvm_vfma(ctvm_vf a, ctvm_vf b, ctvm_vf c) { return _mm512_fmadd_ps(a, b, c); }
static CTVM_INLINE ctvm_vf ctvm_vneg(ctvm_vf a) { return _mm512_sub_ps(_mm512_setzero_ps(), a); }
static CTVM_INLINE ctvm_vf ctvm_vabs(ctvm_vf a) { return _mm512_abs_ps(a); }
static CTVM_INLINE ctvm_vf ctvm_vsqrt(ctvm_vf a) { return _mm512_sqrt_ps(a); }
#define CTVM_LANEWISE(name, fn) static CTVM_INLINE ctvm_vf name(ctvm_vf a) { float t[16]; int i; _mm512_storeu_ps(t, a); for (i = 0; i < 16; i++) t[i] = fn(t[i]); return _mm512_loadu_ps(t); }
CTVM_LANEWISE(ctvm_vexp, expf)
CTVM_LANEWISE(ctvm_vtanh, tanhf)
CTVM_LANEWISE(ctvm_vsigmoid, ctvm_sigmoidf)
static CTVM_INLINE ctvm_vm ctvm_vlt(ctvm_vf a, ctvm_vf b) { return _mm512_cmp_ps_mask(a, b, _CMP_LT_OQ); }
static CTVM_INLINE ctvm_vm ctvm_vle(ctvm_vf a, ctvm_vf b) { return _mm512_cmp_ps_mask(a, b, _CMP_LE_OQ); }
static CTVM_INLINE ctvm_vm ctvm_vge(ctvm_vf a, ctvm_vf b) { return _mm512_cmp_ps_mask(a, b, _CMP_GE_OQ); }
static CTVM_INLINE ctvm_vm ctvm_veq(ctvm_vf a, ctvm_vf b) { return _mm512_cmp_ps_mask(a, b, _CMP_EQ_OQ); }
static CTVM_INLINE ctvm_vm ctvm_vmand(ctvm_vm a, ctvm_vm b) { return (ctvm_vm)(a & b); }
static CTVM_INLINE ctvm_vf ctvm_vselect(ctvm_vm m, ctvm_vf a, ctvm_vf b) { return _mm512_mask_blend_ps(m, b, a); }
static CTVM_INLINE float ctvm_vhsum(ctvm_vf v) { return _mm512_reduce_add_ps(v); }
static CTVM_INLINE float ctvm_vhmax(ctvm_vf v) { return _mm512_reduce_max_ps(v); }
#endif
