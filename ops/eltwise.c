/* eltwise.c - every elementwise operator: unary math and activations,
 * binary arithmetic, comparisons, logic and bitwise operators, the variadic
 * Max/Min/Sum/Mean, Where, Clip, PRelu.
 *
 * One table row per operator: its arity, the element types it takes, whether
 * its output is bool, and the function that builds the value of one output
 * element from the operand expressions (loop IR). That expression is the
 * operator's only definition: the compute definition is one stage over the
 * broadcast output shape (compute_eltwise), a fused epilogue applies the
 * same expression to its producer's value (schedule/schedule.c), and
 * constant folding runs it in the interpreter.
 *
 * Types: operands are loaded in their compute type (float16 and bfloat16
 * compute in float32, ir/dtype.h) and the result is stored back in the
 * output's type. Integer arithmetic wraps; integer Div truncates toward zero
 * and gives 0 for a zero divisor (ONNX leaves it undefined). Broadcasting is
 * numpy's; operator versions before 7 (Add, Sub, Mul, Div, Pow, And, Or,
 * Xor, Equal, Greater, Less) broadcast only when `broadcast` = 1, the second
 * input aligned at `axis` (infer records the alignment in Node.at.eltwise).
 * The op's float attributes keep their ONNX names and are read with their
 * defaults (alpha, beta, gamma, lambd, bias), as are IsInf detect_* and Mod
 * fmod; typed (Node.at.eltwise): BitShift shift_left, Gelu tanh. */
#include <math.h>
#include <string.h>

#include "ops/compute.h"
#include "ops/op_util.h"
#include "ops/ops.h"

enum { TF = 1, TI = 2, TU = 4, TB = 8, TN = TF | TI | TU, TA = TN | TB };

typedef struct Ew {
    LoopBuilder *lb;
    const Node *n;
    LType t;  /* compute type of the T inputs */
    const Graph *g;
} Ew;

typedef Expr *(*EwFn)(Ew *c, Expr *const *x, int nx);

typedef struct EwDef {
    OpKind op;
    int min_in, max_in; /* max_in -1: any number */
    unsigned types;     /* classes of the T inputs */
    char out;           /* 'T' same as the T inputs, 'B' bool */
    char mixed;         /* 0: all inputs are T; 'w' Where (bool, T, T); 'p' Pow (T, T1) */
    EwFn fn;
} EwDef;

#define L (c->lb)

static Expr *K(Ew *c, double v) { return lx_const_f(L, c->t, v); }
static float ALPHA(Ew *c) { return c->n->at.eltwise.alpha; }
static float BETA(Ew *c) { return c->n->at.eltwise.beta; }
static Expr *call(Ew *c, CallOp f, Expr *x) { return lx_call(L, f, x); }
static Expr *bin(Ew *c, BinOp op, Expr *a, Expr *b) { return lx_bin(L, op, a, b); }
static Expr *sel(Ew *c, Expr *cond, Expr *a, Expr *b) { return lx_select(L, cond, a, b); }
static Expr *clamp01(Ew *c, Expr *e) { return bin(c, BO_MAX, bin(c, BO_MIN, e, K(c, 1)), K(c, 0)); }

/* ---- unary math ---- */
#define CALL1(name, co) \
    static Expr *name(Ew *c, Expr *const *x, int nx) { (void)nx; return call(c, co, x[0]); }
CALL1(ew_exp, CO_EXP)
CALL1(ew_log, CO_LOG)
CALL1(ew_sqrt, CO_SQRT)
CALL1(ew_tanh, CO_TANH)
CALL1(ew_sigmoid, CO_SIGMOID)
CALL1(ew_erf, CO_ERF)
CALL1(ew_sin, CO_SIN)
CALL1(ew_cos, CO_COS)
CALL1(ew_tan, CO_TAN)
CALL1(ew_asin, CO_ASIN)
CALL1(ew_acos, CO_ACOS)
CALL1(ew_atan, CO_ATAN)
CALL1(ew_sinh, CO_SINH)
CALL1(ew_cosh, CO_COSH)
CALL1(ew_asinh, CO_ASINH)
CALL1(ew_acosh, CO_ACOSH)
CALL1(ew_atanh, CO_ATANH)
CALL1(ew_floor, CO_FLOOR)
CALL1(ew_ceil, CO_CEIL)
CALL1(ew_round, CO_ROUND)
CALL1(ew_neg, CO_NEG)
CALL1(ew_not, CO_NOT)
CALL1(ew_isnan, CO_ISNAN)
#undef CALL1

static Expr *ew_abs(Ew *c, Expr *const *x, int nx)
{
    (void)nx;
    return lt_is_int(c->t) && !lt_is_signed_int(c->t) ? x[0] : call(c, CO_ABS, x[0]);
}
static Expr *ew_relu(Ew *c, Expr *const *x, int nx) { (void)nx; return bin(c, BO_MAX, x[0], K(c, 0)); }
static Expr *ew_reciprocal(Ew *c, Expr *const *x, int nx) { (void)nx; return bin(c, BO_DIV, K(c, 1), x[0]); }

static Expr *ew_sign(Ew *c, Expr *const *x, int nx)
{
    (void)nx;
    Expr *z = K(c, 0);
    Expr *rest = lt_is_float(c->t) ? x[0] : z; /* +-0 and NaN stay as they are */
    return sel(c, bin(c, BO_GT, x[0], z), K(c, 1), sel(c, bin(c, BO_LT, x[0], z), K(c, -1), rest));
}

static Expr *ew_isinf(Ew *c, Expr *const *x, int nx)
{
    (void)nx;
    int pos = c->n->at.eltwise.detect_pos, neg = c->n->at.eltwise.detect_neg;
    if (pos && neg)
        return call(c, CO_ISINF, x[0]);
    if (pos || neg)
        return call(c, pos ? CO_ISPOSINF : CO_ISNEGINF, x[0]);
    return lx_const_i(L, LT_BOOL, 0);
}

/* ---- activations ---- */

static Expr *ew_leakyrelu(Ew *c, Expr *const *x, int nx)
{
    (void)nx;
    return sel(c, bin(c, BO_LT, x[0], K(c, 0)), bin(c, BO_MUL, x[0], K(c, ALPHA(c))), x[0]);
}

static Expr *ew_prelu(Ew *c, Expr *const *x, int nx)
{
    (void)nx;
    return sel(c, bin(c, BO_LT, x[0], K(c, 0)), bin(c, BO_MUL, x[0], x[1]), x[0]);
}

static Expr *ew_elu(Ew *c, Expr *const *x, int nx)
{
    (void)nx;
    Expr *neg = bin(c, BO_MUL, K(c, ALPHA(c)), call(c, CO_EXPM1, x[0]));
    return sel(c, bin(c, BO_LT, x[0], K(c, 0)), neg, x[0]);
}

static Expr *ew_selu(Ew *c, Expr *const *x, int nx)
{
    (void)nx;
    Expr *neg = bin(c, BO_MUL, K(c, ALPHA(c)), call(c, CO_EXPM1, x[0]));
    Expr *v = sel(c, bin(c, BO_LE, x[0], K(c, 0)), neg, x[0]);
    return bin(c, BO_MUL, K(c, BETA(c)), v);
}

static Expr *ew_celu(Ew *c, Expr *const *x, int nx)
{
    (void)nx;
    float alpha = ALPHA(c);
    Expr *e = bin(c, BO_MUL, K(c, alpha), call(c, CO_EXPM1, bin(c, BO_DIV, x[0], K(c, alpha))));
    return bin(c, BO_ADD, bin(c, BO_MAX, x[0], K(c, 0)), bin(c, BO_MIN, e, K(c, 0)));
}

static Expr *ew_hardsigmoid(Ew *c, Expr *const *x, int nx)
{
    (void)nx;
    Expr *e = bin(c, BO_ADD, bin(c, BO_MUL, x[0], K(c, ALPHA(c))), K(c, BETA(c)));
    return clamp01(c, e);
}

static Expr *ew_hardswish(Ew *c, Expr *const *x, int nx)
{
    (void)nx;
    Expr *e = bin(c, BO_ADD, bin(c, BO_MUL, x[0], K(c, 1.0 / 6.0)), K(c, 0.5));
    return bin(c, BO_MUL, x[0], clamp01(c, e));
}

/* log(1 + e^x) without overflow: max(x, 0) + log1p(e^-|x|) */
static Expr *softplus(Ew *c, Expr *x)
{
    Expr *t = call(c, CO_EXP, call(c, CO_NEG, call(c, CO_ABS, x)));
    return bin(c, BO_ADD, bin(c, BO_MAX, x, K(c, 0)), call(c, CO_LOG1P, t));
}

static Expr *ew_softplus(Ew *c, Expr *const *x, int nx) { (void)nx; return softplus(c, x[0]); }

static Expr *ew_softsign(Ew *c, Expr *const *x, int nx)
{
    (void)nx;
    return bin(c, BO_DIV, x[0], bin(c, BO_ADD, K(c, 1), call(c, CO_ABS, x[0])));
}

/* x tanh(softplus(x)) without a logarithm: with n = e^x, tanh(log(1 + n))
 * = n(n+2) / (n(n+2) + 2); x is capped at 20 in n, where the ratio is
 * already 1 in float and n(n+2) far from overflow. Vectorizes (exp only). */
static Expr *ew_mish(Ew *c, Expr *const *x, int nx)
{
    (void)nx;
    Expr *n = call(c, CO_EXP, bin(c, BO_MIN, x[0], K(c, 20)));
    Expr *q = bin(c, BO_MUL, n, bin(c, BO_ADD, n, K(c, 2)));
    return bin(c, BO_MUL, x[0], bin(c, BO_DIV, q, bin(c, BO_ADD, q, K(c, 2))));
}

static Expr *ew_thresholdedrelu(Ew *c, Expr *const *x, int nx)
{
    (void)nx;
    return sel(c, bin(c, BO_GT, x[0], K(c, ALPHA(c))), x[0], K(c, 0));
}

static Expr *ew_shrink(Ew *c, Expr *const *x, int nx)
{
    (void)nx;
    float lambd = ALPHA(c), bias = BETA(c);
    Expr *lo = sel(c, bin(c, BO_LT, x[0], K(c, -lambd)), bin(c, BO_ADD, x[0], K(c, bias)), K(c, 0));
    return sel(c, bin(c, BO_GT, x[0], K(c, lambd)), bin(c, BO_SUB, x[0], K(c, bias)), lo);
}

static Expr *ew_gelu(Ew *c, Expr *const *x, int nx)
{
    (void)nx;
    Expr *half = bin(c, BO_MUL, K(c, 0.5), x[0]), *inner;
    if (c->n->at.eltwise.tanh) {
        Expr *x3 = bin(c, BO_MUL, bin(c, BO_MUL, x[0], x[0]), x[0]);
        Expr *u = bin(c, BO_MUL, K(c, 0.7978845608028654), bin(c, BO_ADD, x[0], bin(c, BO_MUL, K(c, 0.044715), x3)));
        inner = call(c, CO_TANH, u);
    } else {
        inner = call(c, CO_ERF, bin(c, BO_MUL, x[0], K(c, 0.7071067811865476)));
    }
    return bin(c, BO_MUL, half, bin(c, BO_ADD, K(c, 1), inner));
}

static Expr *ew_swish(Ew *c, Expr *const *x, int nx)
{
    (void)nx;
    return bin(c, BO_MUL, x[0], call(c, CO_SIGMOID, bin(c, BO_MUL, x[0], K(c, ALPHA(c)))));
}

static Expr *ew_clip(Ew *c, Expr *const *x, int nx)
{
    Expr *e = x[0];
    if (c->n->version < 11) {
        const EltwiseAttrs *a = &c->n->at.eltwise;
        if (a->has_min)
            e = bin(c, BO_MAX, e, K(c, a->min));
        if (a->has_max)
            e = bin(c, BO_MIN, e, K(c, a->max));
        return e;
    }
    if (nx > 1 && x[1])
        e = bin(c, BO_MAX, e, x[1]);
    if (nx > 2 && x[2])
        e = bin(c, BO_MIN, e, x[2]);
    return e;
}

/* ---- binary arithmetic ---- */
#define BIN2(name, bo) \
    static Expr *name(Ew *c, Expr *const *x, int nx) { (void)nx; return bin(c, bo, x[0], x[1]); }
BIN2(ew_add, BO_ADD)
BIN2(ew_sub, BO_SUB)
BIN2(ew_mul, BO_MUL)
BIN2(ew_div, BO_DIV)
BIN2(ew_and, BO_AND)
BIN2(ew_or, BO_OR)
BIN2(ew_xor, BO_XOR)
BIN2(ew_equal, BO_EQ)
BIN2(ew_less, BO_LT)
BIN2(ew_greater, BO_GT)
BIN2(ew_lessorequal, BO_LE)
BIN2(ew_greaterorequal, BO_GE)
#undef BIN2

static Expr *ew_mod(Ew *c, Expr *const *x, int nx)
{
    (void)nx;
    Expr *r = bin(c, BO_MOD, x[0], x[1]);
    if (!lt_is_signed_int(c->t) && !lt_is_float(c->t))
        return r;
    if (c->n->at.eltwise.fmod)
        return r; /* C fmod / remainder: the sign of the dividend */
    /* fmod = 0: a - floor(a/b)*b, the sign of the divisor, as Python's % */
    Expr *z = K(c, 0);
    Expr *fix = bin(c, BO_AND, bin(c, BO_NE, r, z), bin(c, BO_NE, bin(c, BO_LT, r, z), bin(c, BO_LT, x[1], z)));
    Expr *m = sel(c, fix, bin(c, BO_ADD, r, x[1]), r);
    if (lt_is_float(c->t)) /* a zero result takes the divisor's sign */
        m = sel(c, bin(c, BO_EQ, m, z), sel(c, bin(c, BO_LT, x[1], z), K(c, -0.0), z), m);
    return m;
}

static Expr *ew_bitshift(Ew *c, Expr *const *x, int nx)
{
    (void)nx;
    return bin(c, c->n->at.eltwise.shift_left ? BO_SHL : BO_SHR, x[0], x[1]);
}

/* Pow(T, T1): float bases raise to the exponent in their own type; integer
 * bases with an integer exponent multiply exactly (BO_POW on integers: a
 * negative exponent gives 0 unless the base is 1 or -1); integer bases with
 * a float exponent go through double and truncate, as numpy's astype does. */
/* 1 when input i of the node is a one-element float32/float64 constant equal to v */
static int const_is(Ew *c, int i, double v)
{
    const Value *cv = i < c->n->n_in && c->n->in[i] >= 0 ? &c->g->values[c->n->in[i]] : NULL;
    int64_t cnt = 0;
    if (!cv || !cv->data || !shape_numel(&cv->shape, &cnt) || cnt != 1)
        return 0;
    if (cv->dtype == DT_FLOAT32)
        return *(const float *)cv->data == (float)v;
    return cv->dtype == DT_FLOAT64 && *(const double *)cv->data == v;
}

static Expr *ew_pow(Ew *c, Expr *const *x, int nx)
{
    (void)nx;
    Expr *b = x[0], *e = x[1];
    /* a constant exponent 1..4 (x^2 of an exported LayerNorm, x^3 of the
       tanh GELU) as products: vectorizes; x^2 is exact, x^3 and x^4 are
       within an ulp or two of pow */
    for (int k = 1; k <= 4 && lt_is_float(c->t); k++)
        if (const_is(c, 1, (double)k)) {
            Expr *r = b;
            for (int j = 1; j < k; j++)
                r = bin(c, BO_MUL, r, b);
            return r;
        }
    if (lt_is_float(c->t))
        return bin(c, BO_POW, b, lx_cast(L, c->t, e));
    if (lt_is_float(e->type))
        return lx_cast(L, c->t, bin(c, BO_POW, lx_cast(L, LT_F64, b), lx_cast(L, LT_F64, e)));
    return lx_cast(L, c->t, bin(c, BO_POW, lx_cast(L, LT_I64, b), lx_cast(L, LT_I64, e)));
}

/* ---- variadic ---- */

/* Max/Min propagate NaN as numpy's maximum/minimum do */
static Expr *fold_minmax(Ew *c, Expr *const *x, int nx, BinOp op)
{
    Expr *r = x[0];
    for (int i = 1; i < nx; i++) {
        Expr *m = bin(c, op, r, x[i]);
        if (lt_is_float(c->t))
            m = sel(c, call(c, CO_ISNAN, r), r, m);
        r = m;
    }
    return r;
}

static Expr *ew_max(Ew *c, Expr *const *x, int nx) { return fold_minmax(c, x, nx, BO_MAX); }
static Expr *ew_min(Ew *c, Expr *const *x, int nx) { return fold_minmax(c, x, nx, BO_MIN); }

static Expr *ew_sum(Ew *c, Expr *const *x, int nx)
{
    Expr *r = x[0];
    for (int i = 1; i < nx; i++)
        r = bin(c, BO_ADD, r, x[i]);
    return r;
}

static Expr *ew_mean(Ew *c, Expr *const *x, int nx)
{
    return bin(c, BO_DIV, ew_sum(c, x, nx), K(c, nx));
}

static Expr *ew_where(Ew *c, Expr *const *x, int nx)
{
    (void)nx;
    return sel(c, x[0], x[1], x[2]);
}

static const EwDef DEFS[] = {
    {OP_ABS, 1, 1, TN, 'T', 0, ew_abs},
    {OP_NEG, 1, 1, TF | TI, 'T', 0, ew_neg},
    {OP_RELU, 1, 1, TF | TI, 'T', 0, ew_relu},
    {OP_EXP, 1, 1, TF, 'T', 0, ew_exp},
    {OP_LOG, 1, 1, TF, 'T', 0, ew_log},
    {OP_SQRT, 1, 1, TF, 'T', 0, ew_sqrt},
    {OP_TANH, 1, 1, TF, 'T', 0, ew_tanh},
    {OP_SIGMOID, 1, 1, TF, 'T', 0, ew_sigmoid},
    {OP_ERF, 1, 1, TF, 'T', 0, ew_erf},
    {OP_SIN, 1, 1, TF, 'T', 0, ew_sin},
    {OP_COS, 1, 1, TF, 'T', 0, ew_cos},
    {OP_TAN, 1, 1, TF, 'T', 0, ew_tan},
    {OP_ASIN, 1, 1, TF, 'T', 0, ew_asin},
    {OP_ACOS, 1, 1, TF, 'T', 0, ew_acos},
    {OP_ATAN, 1, 1, TF, 'T', 0, ew_atan},
    {OP_SINH, 1, 1, TF, 'T', 0, ew_sinh},
    {OP_COSH, 1, 1, TF, 'T', 0, ew_cosh},
    {OP_ASINH, 1, 1, TF, 'T', 0, ew_asinh},
    {OP_ACOSH, 1, 1, TF, 'T', 0, ew_acosh},
    {OP_ATANH, 1, 1, TF, 'T', 0, ew_atanh},
    {OP_FLOOR, 1, 1, TF, 'T', 0, ew_floor},
    {OP_CEIL, 1, 1, TF, 'T', 0, ew_ceil},
    {OP_ROUND, 1, 1, TF, 'T', 0, ew_round},
    {OP_RECIPROCAL, 1, 1, TF, 'T', 0, ew_reciprocal},
    {OP_SIGN, 1, 1, TN, 'T', 0, ew_sign},
    {OP_NOT, 1, 1, TB, 'T', 0, ew_not},
    {OP_BITWISENOT, 1, 1, TI | TU, 'T', 0, ew_not},
    {OP_ISNAN, 1, 1, TF, 'B', 0, ew_isnan},
    {OP_ISINF, 1, 1, TF, 'B', 0, ew_isinf},
    {OP_LEAKYRELU, 1, 1, TF, 'T', 0, ew_leakyrelu},
    {OP_PRELU, 2, 2, TF | TI | TU, 'T', 0, ew_prelu},
    {OP_ELU, 1, 1, TF, 'T', 0, ew_elu},
    {OP_SELU, 1, 1, TF, 'T', 0, ew_selu},
    {OP_CELU, 1, 1, TF, 'T', 0, ew_celu},
    {OP_HARDSIGMOID, 1, 1, TF, 'T', 0, ew_hardsigmoid},
    {OP_HARDSWISH, 1, 1, TF, 'T', 0, ew_hardswish},
    {OP_SOFTPLUS, 1, 1, TF, 'T', 0, ew_softplus},
    {OP_SOFTSIGN, 1, 1, TF, 'T', 0, ew_softsign},
    {OP_MISH, 1, 1, TF, 'T', 0, ew_mish},
    {OP_THRESHOLDEDRELU, 1, 1, TF, 'T', 0, ew_thresholdedrelu},
    {OP_SHRINK, 1, 1, TN, 'T', 0, ew_shrink},
    {OP_GELU, 1, 1, TF, 'T', 0, ew_gelu},
    {OP_SWISH, 1, 1, TF, 'T', 0, ew_swish},
    {OP_CLIP, 1, 3, TN, 'T', 0, ew_clip},
    {OP_ADD, 2, 2, TN, 'T', 0, ew_add},
    {OP_SUB, 2, 2, TN, 'T', 0, ew_sub},
    {OP_MUL, 2, 2, TN, 'T', 0, ew_mul},
    {OP_DIV, 2, 2, TN, 'T', 0, ew_div},
    {OP_MOD, 2, 2, TN, 'T', 0, ew_mod},
    {OP_POW, 2, 2, TN, 'T', 'p', ew_pow},
    {OP_AND, 2, 2, TB, 'T', 0, ew_and},
    {OP_OR, 2, 2, TB, 'T', 0, ew_or},
    {OP_XOR, 2, 2, TB, 'T', 0, ew_xor},
    {OP_BITWISEAND, 2, 2, TI | TU, 'T', 0, ew_and},
    {OP_BITWISEOR, 2, 2, TI | TU, 'T', 0, ew_or},
    {OP_BITWISEXOR, 2, 2, TI | TU, 'T', 0, ew_xor},
    {OP_BITSHIFT, 2, 2, TI | TU, 'T', 0, ew_bitshift},
    {OP_EQUAL, 2, 2, TA, 'B', 0, ew_equal},
    {OP_LESS, 2, 2, TN, 'B', 0, ew_less},
    {OP_GREATER, 2, 2, TN, 'B', 0, ew_greater},
    {OP_LESSOREQUAL, 2, 2, TN, 'B', 0, ew_lessorequal},
    {OP_GREATEROREQUAL, 2, 2, TN, 'B', 0, ew_greaterorequal},
    {OP_MAX, 1, -1, TN, 'T', 0, ew_max},
    {OP_MIN, 1, -1, TN, 'T', 0, ew_min},
    {OP_SUM, 1, -1, TF, 'T', 0, ew_sum},
    {OP_MEAN, 1, -1, TF, 'T', 0, ew_mean},
    {OP_WHERE, 3, 3, TA, 'T', 'w', ew_where},
};

static const EwDef *find_def(OpKind k)
{
    for (size_t i = 0; i < sizeof DEFS / sizeof DEFS[0]; i++)
        if (DEFS[i].op == k)
            return &DEFS[i];
    return NULL;
}

static unsigned type_class(DType t)
{
    if (t == DT_BOOL)
        return TB;
    if (dtype_is_float(t))
        return TF;
    if (dtype_is_int(t))
        return dtype_is_signed(t) ? TI : TU;
    return 0;
}

/* Input 1 of a version < 7 operator broadcasts at axis (Node.at.eltwise). */
static void set_legacy(Node *n, int64_t axis)
{
    n->at.eltwise.legacy = 1;
    n->at.eltwise.legacy_axis = axis;
}

/* The versions before 7 of these broadcast only on request, input 1 at `axis`. */
static int legacy_broadcast(const Node *n)
{
    if (n->version >= 7)
        return 0;
    switch (n->op) {
    case OP_ADD: case OP_SUB: case OP_MUL: case OP_DIV: case OP_POW: case OP_AND: case OP_OR:
    case OP_XOR: case OP_EQUAL: case OP_GREATER: case OP_LESS:
    case OP_PRELU:
        return 1;
    default:
        return 0;
    }
}

/* The parameters of the activations, IsInf, Mod and Clip < 11 into
 * Node.at.eltwise, with their ONNX defaults. */
static void read_params(Node *n)
{
    EltwiseAttrs *a = &n->at.eltwise;
    switch (n->op) {
    case OP_LEAKYRELU: a->alpha = attr_float(n, "alpha", 0.01f); break;
    case OP_ELU: case OP_CELU: case OP_THRESHOLDEDRELU: case OP_SWISH: a->alpha = attr_float(n, "alpha", 1.0f); break;
    case OP_SELU:
        a->alpha = attr_float(n, "alpha", 1.67326319217681884765625f);
        a->beta = attr_float(n, "gamma", 1.05070102214813232421875f);
        break;
    case OP_HARDSIGMOID:
        a->alpha = attr_float(n, "alpha", 0.2f);
        a->beta = attr_float(n, "beta", 0.5f);
        break;
    case OP_SHRINK:
        a->alpha = attr_float(n, "lambd", 0.5f);
        a->beta = attr_float(n, "bias", 0.0f);
        break;
    case OP_ISINF:
        a->detect_pos = attr_int(n, "detect_positive", 1) != 0;
        a->detect_neg = attr_int(n, "detect_negative", 1) != 0;
        break;
    case OP_MOD: a->fmod = attr_int(n, "fmod", 0) != 0; break;
    case OP_CLIP: {
        const Attr *lo = n->version < 11 ? node_attr(n, "min") : NULL;
        const Attr *hi = n->version < 11 ? node_attr(n, "max") : NULL;
        a->has_min = lo != NULL, a->has_max = hi != NULL;
        a->min = lo ? lo->f : 0.0f, a->max = hi ? hi->f : 0.0f;
        break;
    }
    default: break;
    }
}

static int infer_legacy(Graph *g, int node, Diag *d, const Value *a, const Value *b, Shape *out)
{
    const Node *n = &g->nodes[node];
    *out = a->shape;
    int64_t numel_b = 1;
    shape_numel(&b->shape, &numel_b);
    if (n->op == OP_PRELU) {
        /* PRelu 1 and 6: a slope of one element is shared, one of C elements
           is per channel (axis 1); otherwise the shapes must match */
        int64_t axis = 0;
        if (numel_b == 1 && b->shape.rank <= 1)
            axis = a->shape.rank - b->shape.rank;
        else if (b->shape.rank == 1 && a->shape.rank >= 2 && b->shape.dims[0] == a->shape.dims[1])
            axis = 1;
        else if (!shape_equal(&a->shape, &b->shape))
            return diag_error(d, g, node, "slope %s is neither one value, one per channel nor the shape of %s "
                              "(PRelu version %d)", opu_shape_str(&b->shape), opu_shape_str(&a->shape), n->version);
        set_legacy(&g->nodes[node], axis);
        return 0;
    }
    if (!attr_int(n, "broadcast", 0)) {
        if (!shape_equal(&a->shape, &b->shape))
            return diag_error(d, g, node, "shapes %s and %s differ and broadcast is 0 (opset %d semantics)",
                              opu_shape_str(&a->shape), opu_shape_str(&b->shape), n->version);
        set_legacy(&g->nodes[node], 0);
        return 0;
    }
    int64_t axis = attr_int(n, "axis", a->shape.rank - b->shape.rank);
    if (numel_b == 1 && b->shape.rank <= 1)
        axis = a->shape.rank - b->shape.rank; /* a scalar goes anywhere */
    if (axis < 0 || axis + b->shape.rank > a->shape.rank)
        return diag_error(d, g, node, "broadcast axis %lld does not fit shapes %s and %s", (long long)axis,
                          opu_shape_str(&a->shape), opu_shape_str(&b->shape));
    for (int i = 0; i < b->shape.rank; i++)
        if (b->shape.dims[i] != 1 && b->shape.dims[i] != a->shape.dims[axis + i])
            return diag_error(d, g, node, "shape %s does not broadcast into %s at axis %lld",
                              opu_shape_str(&b->shape), opu_shape_str(&a->shape), (long long)axis);
    set_legacy(&g->nodes[node], axis);
    return 0;
}

int op_eltwise_infer(Graph *g, int node, Diag *d)
{
    const Node *n = &g->nodes[node];
    const EwDef *def = find_def(n->op);
    if (!def)
        return diag_error(d, g, node, "not an elementwise operator (internal error)");
    int max_in = def->max_in < 0 ? (1 << 30) : def->max_in;
    if (n->op == OP_CLIP && n->version < 11)
        max_in = 1;
    if (opu_check_arity(g, node, d, def->min_in, max_in, 1, 1) ||
        (def->max_in < 0 && opu_check_all_inputs(g, node, d)))
        return -1;
    int first_t = def->mixed == 'w' ? 1 : 0;
    const Value *t0 = opu_in(g, node, first_t);
    if (!(type_class(t0->dtype) & def->types))
        return diag_error(d, g, node, "input type %s is not supported by %s", dtype_name(t0->dtype), n->op_type);
    for (int i = 0; i < n->n_in; i++) {
        const Value *v = opu_in(g, node, i);
        if (!v)
            continue;
        int is_t = !(def->mixed == 'w' && i == 0) && !(def->mixed == 'p' && i == 1);
        if (is_t && v->dtype != t0->dtype)
            return diag_error(d, g, node, "input %d is %s, input %d is %s; they must have the same type", first_t,
                              dtype_name(t0->dtype), i, dtype_name(v->dtype));
        if (def->mixed == 'w' && i == 0 && v->dtype != DT_BOOL)
            return diag_error(d, g, node, "condition must be bool, got %s", dtype_name(v->dtype));
        if (def->mixed == 'p' && i == 1 && !(type_class(v->dtype) & TN))
            return diag_error(d, g, node, "exponent type %s is not supported", dtype_name(v->dtype));
    }
    Shape out;
    if (legacy_broadcast(n) && n->n_in == 2) {
        if (infer_legacy(g, node, d, opu_in(g, node, 0), opu_in(g, node, 1), &out))
            return -1;
    } else {
        out = opu_in(g, node, 0)->shape;
        for (int i = 1; i < n->n_in; i++) {
            const Value *v = opu_in(g, node, i);
            if (v && !shape_broadcast(&out, &v->shape, &out))
                return diag_error(d, g, node, "input shapes %s and %s do not broadcast", opu_shape_str(&out),
                                  opu_shape_str(&v->shape));
        }
    }
    /* attribute normalisation */
    read_params(&g->nodes[node]);
    if (n->op == OP_BITSHIFT) {
        const char *dir = attr_string(n, "direction", "");
        if (strcmp(dir, "LEFT") && strcmp(dir, "RIGHT"))
            return diag_error(d, g, node, "direction must be LEFT or RIGHT, got '%s'", dir);
        g->nodes[node].at.eltwise.shift_left = strcmp(dir, "LEFT") == 0;
    }
    if (n->op == OP_GELU) {
        const char *ap = attr_string(n, "approximate", "none");
        if (strcmp(ap, "none") && strcmp(ap, "tanh"))
            return diag_error(d, g, node, "approximate must be none or tanh, got '%s'", ap);
        g->nodes[node].at.eltwise.tanh = strcmp(ap, "tanh") == 0;
    }
    opu_set_out(g, node, 0, def->out == 'B' ? DT_BOOL : t0->dtype, out);
    return 0;
}

Expr *compute_eltwise_expr(ComputeCtx *cx, int node, Expr *const *x)
{
    const Node *n = &cx->g->nodes[node];
    const EwDef *def = find_def(n->op);
    if (!def)
        return NULL;
    int first_t = def->mixed == 'w' ? 1 : 0;
    const Value *t0 = &cx->g->values[n->in[first_t]];
    Ew c = {cx->lb, n, lt_of_dtype(t0->dtype), cx->g};
    Expr *ops[64];
    int nx = n->n_in < 64 ? n->n_in : 64;
    for (int i = 0; i < nx; i++) {
        ops[i] = x[i];
        /* a fused epilogue's running value may be wider than the input's compute type */
        if (ops[i] && i >= first_t && !(def->mixed == 'p' && i == 1))
            ops[i] = lx_cast(cx->lb, c.t, ops[i]);
    }
    return def->fn(&c, ops, nx);
}

int compute_eltwise(ComputeCtx *cx, int node, ComputeDef *def)
{
    const Node *n = &cx->g->nodes[node];
    const Value *out = &cx->g->values[n->out[0]];
    ComputeStage *st = compute_stage_new(cx, def, n->name, cx->buf_of(cx, n->out[0]), &out->shape);
    Expr *ops[64] = {0};
    if (n->n_in > 64)
        return compute_fail(cx, node, "more than 64 inputs");
    int legacy = legacy_broadcast(n) && n->at.eltwise.legacy;
    for (int i = 0; i < n->n_in; i++) {
        if (n->in[i] < 0)
            continue;
        if (legacy && i == 1)
            ops[i] = compute_load_aligned(cx, n->in[i], &out->shape, st->axis, (int)n->at.eltwise.legacy_axis);
        else
            ops[i] = compute_load_broadcast(cx, n->in[i], &out->shape, st->axis);
    }
    st->body = compute_eltwise_expr(cx, node, ops);
    if (!st->body)
        return compute_fail(cx, node, "not an elementwise operator (internal error)");
    st->out_is_node_output = 1;
    return 0;
}

DEFINE_EVAL_BY_COMPUTE(eltwise)
