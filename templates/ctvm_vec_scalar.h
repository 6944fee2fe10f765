/* ctvm_vec_scalar.h - placeholder scalar vector API (VL 1). */
#ifndef CTVM_VEC_H
#define CTVM_VEC_H
#define CTVM_VL 1
#define CTVM_ISA "scalar"
typedef float ctvm_vf;
typedef int ctvm_vm;
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
static CTVM_INLINE ctvm_vm ctvm_vmand(ctvm_vm a, ctvm_vm b) { return a && b; }
static CTVM_INLINE ctvm_vf ctvm_vselect(ctvm_vm m, ctvm_vf a, ctvm_vf b) { return m ? a : b; }
static CTVM_INLINE float ctvm_vhsum(ctvm_vf v) { return v; }
static CTVM_INLINE float ctvm_vhmax(ctvm_vf v) { return v; }
#endif
