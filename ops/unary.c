/* unary.c - elementwise one-input operators: Relu, Clip, Sigmoid, Tanh, Exp,
 * Sqrt, Neg, Abs, LeakyRelu, HardSigmoid, HardSwish.
 *
 * The output has the input's dtype and shape. Every op takes float32 (and
 * float64); Relu, Clip, Neg and Abs also take int64/int32/int8 so that shape
 * arithmetic folds. Normalised attributes after infer: Clip "min"/"max"
 * floats (attributes before opset 11, constant inputs 1 and 2 from opset 11,
 * -FLT_MAX/FLT_MAX when absent); LeakyRelu "alpha" (0.01); HardSigmoid
 * "alpha" (0.2) and "beta" (0.5). */
#include <float.h>
#include <math.h>

#include "ops/op_util.h"
#include "ops/ops.h"

static int allows_int(OpKind k)
{
    return k == OP_RELU || k == OP_CLIP || k == OP_NEG || k == OP_ABS;
}

static int clip_bound(Graph *g, int node, Diag *d, int i, float def, float *out)
{
    Value *v = opu_in(g, node, i);
    *out = def;
    if (!v)
        return 0;
    if (!value_is_const(v))
        return diag_error(d, g, node, "input %d (%s) must be constant", i, i == 1 ? "min" : "max");
    int64_t n;
    if (!shape_numel(&v->shape, &n) || n != 1)
        return diag_error(d, g, node, "input %d (%s) must be a scalar, got %s", i,
                          i == 1 ? "min" : "max", opu_shape_str(&v->shape));
    *out = (float)tensor_get_f64(v->dtype, v->data, 0);
    return 0;
}

int op_unary_infer(Graph *g, int node, Diag *d)
{
    Node *n = &g->nodes[node];
    int max_in = n->op == OP_CLIP && g->nodes[node].version >= 11 ? 3 : 1;
    if (opu_check_arity(g, node, d, 1, max_in, 1, 1))
        return -1;
    Value *x = opu_in(g, node, 0);
    if (!opu_is_float(x->dtype) && !(allows_int(n->op) && opu_is_int(x->dtype)))
        return diag_error(d, g, node, "dtype %s not supported", dtype_name(x->dtype));
    switch (n->op) {
    case OP_CLIP: {
        float lo, hi;
        if (g->nodes[node].version >= 11) {
            if (clip_bound(g, node, d, 1, -FLT_MAX, &lo) || clip_bound(g, node, d, 2, FLT_MAX, &hi))
                return -1;
        } else {
            lo = attr_float(n, "min", -FLT_MAX);
            hi = attr_float(n, "max", FLT_MAX);
        }
        node_set_float(g, node, "min", lo);
        node_set_float(g, node, "max", hi);
        break;
    }
    case OP_LEAKYRELU:
        node_set_float(g, node, "alpha", attr_float(n, "alpha", 0.01f));
        break;
    case OP_HARDSIGMOID:
        node_set_float(g, node, "alpha", attr_float(n, "alpha", 0.2f));
        node_set_float(g, node, "beta", attr_float(n, "beta", 0.5f));
        break;
    default:
        break;
    }
    opu_set_out(g, node, 0, x->dtype, x->shape);
    return 0;
}

static double apply_f(OpKind k, const Node *n, double x)
{
    switch (k) {
    case OP_RELU: return x > 0 ? x : 0;
    case OP_CLIP: {
        double lo = attr_float(n, "min", -FLT_MAX), hi = attr_float(n, "max", FLT_MAX);
        return x < lo ? lo : x > hi ? hi : x;
    }
    case OP_SIGMOID: return 1.0 / (1.0 + exp(-x));
    case OP_TANH: return tanh(x);
    case OP_EXP: return exp(x);
    case OP_SQRT: return sqrt(x);
    case OP_NEG: return -x;
    case OP_ABS: return fabs(x);
    case OP_LEAKYRELU: return x >= 0 ? x : x * attr_float(n, "alpha", 0.01f);
    case OP_HARDSIGMOID: {
        double y = attr_float(n, "alpha", 0.2f) * x + attr_float(n, "beta", 0.5f);
        return y < 0 ? 0 : y > 1 ? 1 : y;
    }
    case OP_HARDSWISH: {
        double y = x / 6.0 + 0.5;
        return x * (y < 0 ? 0 : y > 1 ? 1 : y);
    }
    default: return 0;
    }
}

/* float32 in float arithmetic, so folded values match float kernels. */
static float apply_f32(OpKind k, const Node *n, float x)
{
    switch (k) {
    case OP_SIGMOID: return 1.0f / (1.0f + expf(-x));
    case OP_TANH: return tanhf(x);
    case OP_EXP: return expf(x);
    case OP_SQRT: return sqrtf(x);
    case OP_LEAKYRELU: return x >= 0 ? x : x * attr_float(n, "alpha", 0.01f);
    case OP_HARDSIGMOID: {
        float y = attr_float(n, "alpha", 0.2f) * x + attr_float(n, "beta", 0.5f);
        return y < 0 ? 0 : y > 1 ? 1 : y;
    }
    case OP_HARDSWISH: {
        float y = x / 6.0f + 0.5f;
        return x * (y < 0 ? 0 : y > 1 ? 1 : y);
    }
    case OP_CLIP: {
        float lo = attr_float(n, "min", -FLT_MAX), hi = attr_float(n, "max", FLT_MAX);
        return x < lo ? lo : x > hi ? hi : x;
    }
    default: return (float)apply_f(k, n, x);
    }
}

static int64_t apply_i(OpKind k, const Node *n, int64_t x)
{
    switch (k) {
    case OP_RELU: return x > 0 ? x : 0;
    case OP_NEG: return -x;
    case OP_ABS: return x < 0 ? -x : x;
    case OP_CLIP: {
        double lo = attr_float(n, "min", -FLT_MAX), hi = attr_float(n, "max", FLT_MAX);
        return (double)x < lo ? (int64_t)ceil(lo) : (double)x > hi ? (int64_t)floor(hi) : x;
    }
    default: return x;
    }
}

int op_unary_eval(Graph *g, int node, Diag *d)
{
    const Node *n = &g->nodes[node];
    Value *x = opu_in(g, node, 0);
    int64_t count;
    if (opu_numel(g, node, d, &x->shape, &count))
        return -1;
    void *y = opu_alloc_out(g, node, 0, d);
    if (!y)
        return -1;
    for (int64_t i = 0; i < count; i++) {
        if (x->dtype == DT_FLOAT32)
            ((float *)y)[i] = apply_f32(n->op, n, ((const float *)x->data)[i]);
        else if (opu_is_float(x->dtype))
            tensor_set_f64(x->dtype, y, i, apply_f(n->op, n, tensor_get_f64(x->dtype, x->data, i)));
        else
            tensor_set_i64(x->dtype, y, i, apply_i(n->op, n, tensor_get_i64(x->dtype, x->data, i)));
    }
    return 1;
}
