/* call_prims.c - the table of call primitives (see call_prims.h). */
#include "call_prims.h"

#include <math.h>
#include <string.h>

#include "call_math.h"
#include "runtime_min/ctvm_runtime.h" /* ctvm_sigmoid: float64 sigmoid, one definition */
#include "runtime_min/ctvm_types.h"   /* float16 / bfloat16 rounding */

static float neg_f32(float x) { return -x; }
static double neg_f64(double x) { return -x; }
static float rnd_f16(float x) { return ctvm_f16_to_f32(ctvm_f32_to_f16(x)); }
static float rnd_bf16(float x) { return ctvm_bf16_to_f32(ctvm_f32_to_bf16(x)); }
static double sigmoid_f64(double x) { return ctvm_sigmoid(x); }

/* a libm function f (float32 fname##f, float64 fname) on both sides */
#define LIBM(OP, name, fn) [OP] = {OP, name, #fn "f", #fn, NULL, 0, {fn##f, fn##f}, fn}
/* ... that the vector API also has */
#define LIBM_V(OP, name, fn, vec) [OP] = {OP, name, #fn "f", #fn, vec, 0, {fn##f, fn##f}, fn}
/* written in templates/ctvm_vec_math.h: ctvm_vNAME on lanes, ctvm_NAMEf on scalars */
#define MATH(OP, f, f64) \
    [OP] = {OP, #f, "ctvm_" #f "f", #f64, "ctvm_v" #f, 1, {call_math_##f##_plain, call_math_##f##_fused}, f64}

static const CallPrim TABLE[CO_COUNT] = {
    MATH(CO_EXP, exp, exp),
    LIBM_V(CO_SQRT, "sqrt", sqrt, "ctvm_vsqrt"),
    MATH(CO_TANH, tanh, tanh),
    [CO_SIGMOID] = {CO_SIGMOID, "sigmoid", "ctvm_sigmoidf", "ctvm_sigmoid", "ctvm_vsigmoid", 1,
                    {call_math_sigmoid_plain, call_math_sigmoid_fused}, sigmoid_f64},
    [CO_NEG] = {CO_NEG, "neg", NULL, NULL, "ctvm_vneg", 0, {neg_f32, neg_f32}, neg_f64},
    LIBM_V(CO_ABS, "abs", fabs, "ctvm_vabs"),
    [CO_ITOF] = {CO_ITOF, "float", NULL, NULL, NULL, 0, {NULL, NULL}, NULL}, /* a cast by now */
    MATH(CO_LOG, log, log),
    MATH(CO_ERF, erf, erf),
    LIBM(CO_SIN, "sin", sin),
    LIBM(CO_COS, "cos", cos),
    LIBM(CO_TAN, "tan", tan),
    LIBM(CO_ASIN, "asin", asin),
    LIBM(CO_ACOS, "acos", acos),
    LIBM(CO_ATAN, "atan", atan),
    LIBM(CO_SINH, "sinh", sinh),
    LIBM(CO_COSH, "cosh", cosh),
    LIBM(CO_ASINH, "asinh", asinh),
    LIBM(CO_ACOSH, "acosh", acosh),
    LIBM(CO_ATANH, "atanh", atanh),
    LIBM(CO_FLOOR, "floor", floor),
    LIBM(CO_CEIL, "ceil", ceil),
    LIBM_V(CO_ROUND, "round", rint, "ctvm_vround"), /* ties to even in the default rounding mode */
    MATH(CO_LOG1P, log1p, log1p),
    MATH(CO_EXPM1, expm1, expm1),
    [CO_NOT] = {CO_NOT, "not", NULL, NULL, NULL, 0, {NULL, NULL}, NULL},
    [CO_ISNAN] = {CO_ISNAN, "isnan", NULL, NULL, NULL, 0, {NULL, NULL}, NULL},
    [CO_ISINF] = {CO_ISINF, "isinf", NULL, NULL, NULL, 0, {NULL, NULL}, NULL},
    [CO_ISPOSINF] = {CO_ISPOSINF, "isposinf", NULL, NULL, NULL, 0, {NULL, NULL}, NULL},
    [CO_ISNEGINF] = {CO_ISNEGINF, "isneginf", NULL, NULL, NULL, 0, {NULL, NULL}, NULL},
    [CO_RND_F16] = {CO_RND_F16, "rnd_f16", NULL, NULL, NULL, 0, {rnd_f16, rnd_f16}, NULL},
    [CO_RND_BF16] = {CO_RND_BF16, "rnd_bf16", NULL, NULL, NULL, 0, {rnd_bf16, rnd_bf16}, NULL},
};

static const CallPrim UNKNOWN = {CO_COUNT, "?", NULL, NULL, NULL, 0, {NULL, NULL}, NULL};

const CallPrim *call_prim(CallOp op)
{
    return (unsigned)op < CO_COUNT && TABLE[op].name ? &TABLE[op] : &UNKNOWN;
}

const char *call_prim_c_name(CallOp op, LType t)
{
    const CallPrim *p = call_prim(op);
    return t == LT_F64 ? p->c_f64 : t == LT_F32 ? p->c_f32 : NULL;
}

float call_prim_f32(CallOp op, float x, int fma)
{
    CallF32 f = call_prim(op)->f32[fma != 0];
    return f ? f(x) : NAN;
}

static int has_call(const char *text, const char *fn)
{
    size_t n = strlen(fn);
    for (const char *p = text; (p = strstr(p, fn)) != NULL; p += n)
        if (p[n] == '(')
            return 1;
    return 0;
}

int call_prims_text_uses_math(const char *text)
{
    for (int i = 0; i < CO_COUNT; i++)
        if (TABLE[i].math && (has_call(text, TABLE[i].vec) || has_call(text, TABLE[i].c_f32)))
            return 1;
    return 0;
}
