/* call_prims.h - the one table of the loop IR's call primitives (CallOp,
 * ir/loop.h): for each, its IR name, the C functions generated scalar code
 * calls for float32 and float64, the vector API function that computes it on
 * float32 lanes (templates/ctvm_vec_*.h, ctvm_vec_math.h) and the functions
 * the loop interpreter (constant folding) computes it with.
 *
 * The transcendental functions written in templates/ctvm_vec_math.h (exp,
 * tanh, sigmoid, log, log1p, erf, expm1) are `math` rows: generated code
 * calls their ctvm_*f scalar forms, and the interpreter runs the same source
 * compiled into the compiler (ir/call_math.h), fused or not as the target's
 * ctvm_vfma, so folding and generated code agree bit for bit. The other
 * float32 rows call libm on both sides (the same libm when the compiler runs
 * on the target); float64 calls libm everywhere.
 *
 * Adding a primitive: a CallOp in ir/loop.h and a row here (and its math in
 * templates/ctvm_vec_math.h plus ir/call_math.h when it is vectorized). */
#ifndef CTVM_IR_CALL_PRIMS_H
#define CTVM_IR_CALL_PRIMS_H

#include "loop.h"

typedef float (*CallF32)(float);
typedef double (*CallF64)(double);

typedef struct CallPrim {
    CallOp op;
    const char *name;  /* IR name, as the loop IR prints it: "exp" */
    const char *c_f32; /* C function of generated scalar code on float32: "ctvm_expf", "sqrtf";
                          NULL: the printer writes it itself (neg, not, isnan, rounding...) */
    const char *c_f64; /* the same on float64: "exp" */
    const char *vec;   /* vector API function on float32 lanes ("ctvm_vexp"), or NULL */
    int math;          /* written in templates/ctvm_vec_math.h */
    CallF32 f32[2];    /* the interpreter on float32: [0] where ctvm_vfma is unfused, [1] fused;
                          NULL: not a float function (or the interpreter's own case) */
    CallF64 f64;       /* the interpreter on float64 */
} CallPrim;

/* The row of op (a row named "?" with no functions past CO_COUNT). */
const CallPrim *call_prim(CallOp op);

/* The C function generated scalar code calls for op on float type t
 * (LT_F32 or LT_F64), or NULL when the printer writes op itself. */
const char *call_prim_c_name(CallOp op, LType t);

/* op on float32 x as generated code computes it on a target whose
 * ctvm_vfma is fused (fma = 1) or not (0); NaN for a row without one. */
float call_prim_f32(CallOp op, float x, int fma);

/* 1 when C text calls a function of templates/ctvm_vec_math.h (vector or
 * scalar form): generated code then needs that file. */
int call_prims_text_uses_math(const char *text);

#endif
