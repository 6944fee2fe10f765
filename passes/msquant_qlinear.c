/* msquant_qlinear.c - com.microsoft QLinearAdd, QLinearMul, QLinearSigmoid,
 * QLinearLeakyRelu, QLinearSoftmax, QLinearConcat, QLinearAveragePool and
 * QLinearGlobalAveragePool as DequantizeLinear -> the float32 operator ->
 * QuantizeLinear (ONNX Runtime's documented meaning: each computes on the
 * dequantized values and quantizes with round half to even and saturation;
 * its lookup tables and integer sums are implementations of that).
 *
 * Inputs are per-tensor: every scale is a float32 scalar, every zero point
 * a scalar of the data's type (uint8 or int8), absent meaning 0. Details:
 * - QLinearSoftmax: "opset" < 13 means Softmax-1..11's coercion of the
 *   input to 2-D at "axis" (default -1); done as Flatten, Softmax over the
 *   rows and Reshape back.
 * - QLinearConcat: inputs (Y_scale, Y_zero_point, then X, scale, zero point
 *   per operand); when every operand's scale and zero point are constants
 *   equal to the output's, a plain Concat of the integers.
 * - QLinearAveragePool, QLinearGlobalAveragePool: channels_last = 1 reads
 *   and writes N x D1.. x C, done as Transposes around the NCHW pooling. */
#include <string.h>

#include "ops/op_util.h"
#include "passes/lower_msquant.h"

/* X (uint8/int8), its scale and zero point at x, x+1, x+2 checked per
 * tensor, the zero point of X's type. */
static int check_operand(Msq *m, int x, const char *name, const char *scale, const char *zp)
{
    if (msq_check_q8(m, x, name) || msq_check_param(m, x + 1, scale, DT_FLOAT32, 0, 1))
        return -1;
    return msq_check_param(m, x + 2, zp, m->g->values[msq_in(m, x)].dtype, 0, 0);
}

/* QLinearAdd / QLinearMul: A, A_scale, A_zp, B, B_scale, B_zp, C_scale, C_zp */
static int lower_binary(Msq *m, const char *op)
{
    if (check_operand(m, 0, "A", "A_scale", "A_zero_point") || check_operand(m, 3, "B", "B_scale", "B_zero_point"))
        return -1;
    DType t = m->g->values[msq_in(m, 0)].dtype;
    if (m->g->values[msq_in(m, 3)].dtype != t)
        return msq_error(m, "A and B must have the same type (%s and %s)", dtype_name(t),
                         dtype_name(m->g->values[msq_in(m, 3)].dtype));
    if (msq_check_param(m, 6, "C_scale", DT_FLOAT32, 0, 1) || msq_check_param(m, 7, "C_zero_point", t, 0, 0))
        return -1;
    int a = msq_dq(m, msq_in(m, 0), msq_in(m, 1), msq_in(m, 2));
    int b = msq_dq(m, msq_in(m, 3), msq_in(m, 4), msq_in(m, 5));
    int y = pb_binary(&m->b, op, a, b);
    msq_q(m, y, msq_in(m, 6), msq_in(m, 7), t, msq_n(m)->out[0]);
    return 0;
}

/* X, X_scale, X_zp, Y_scale, Y_zp around a float operator of one input:
 * the DequantizeLinear of X, or -1 after an error. */
static int unary_in(Msq *m, DType *t)
{
    if (check_operand(m, 0, "X", "X_scale", "X_zero_point"))
        return -1;
    *t = m->g->values[msq_in(m, 0)].dtype;
    if (msq_check_param(m, 3, "Y_scale", DT_FLOAT32, 0, 1) || msq_check_param(m, 4, "Y_zero_point", *t, 0, 0))
        return -1;
    return msq_dq(m, msq_in(m, 0), msq_in(m, 1), msq_in(m, 2));
}

static int unary_out(Msq *m, int y, DType t)
{
    msq_q(m, y, msq_in(m, 3), msq_in(m, 4), t, msq_n(m)->out[0]);
    return 0;
}

static int lower_unary(Msq *m, const char *op, int with_alpha)
{
    DType t;
    float alpha = attr_float(msq_n(m), "alpha", 0.01f); /* before any node goes in */
    int x = unary_in(m, &t);
    if (x < 0)
        return -1;
    int y = msq_value(m, op);
    int id = msq_node(m, op, 1, &x, 1, &y);
    if (with_alpha)
        node_set_float(m->g, id, "alpha", alpha);
    return unary_out(m, y, t);
}

static int lower_softmax(Msq *m)
{
    const Node *n = msq_n(m);
    if (!node_attr(n, "opset"))
        return msq_error(m, "attribute 'opset' (the Softmax version whose axis rule applies) is required");
    int64_t opset = attr_int(n, "opset", 13), axis = attr_int(n, "axis", -1);
    if (msq_in(m, 0) < 0)
        return msq_need(m, 0, "X");
    Shape s = *msq_shape(m, 0);
    if (axis < -s.rank || axis >= s.rank || s.rank < 1)
        return msq_error(m, "axis %lld is out of range for an input of rank %d", (long long)axis, s.rank);
    if (axis < 0)
        axis += s.rank;
    DType t;
    int x = unary_in(m, &t);
    if (x < 0)
        return -1;
    int old_rule = opset < 13 && axis != s.rank - 1; /* the rules differ only there */
    if (old_rule) { /* Softmax-1..11: over everything from axis on, as rows */
        int f = msq_value(m, "rows");
        int id = msq_node(m, "Flatten", 1, &x, 1, &f);
        node_set_int(m->g, id, "axis", axis);
        x = f;
    }
    int y = msq_value(m, "Softmax");
    int id = msq_node(m, "Softmax", 1, &x, 1, &y);
    node_set_int(m->g, id, "axis", old_rule ? 1 : axis);
    if (old_rule)
        y = pb_reshape(&m->b, y, s.rank, s.dims, -1);
    return unary_out(m, y, t);
}

/* perm of an N x D1.. x C tensor to N x C x D1.. (back = 0) or back */
static void channels_perm(int rank, int back, int64_t *perm)
{
    perm[0] = 0;
    for (int k = 1; k < rank; k++)
        perm[k] = back ? (k == rank - 1 ? 1 : k + 1) : (k == 1 ? rank - 1 : k - 1);
}

static int lower_pool(Msq *m, const char *op)
{
    const Node *n = msq_n(m);
    int channels_last = attr_int(n, "channels_last", 0) != 0;
    if (msq_in(m, 0) < 0)
        return msq_need(m, 0, "X");
    int rank = msq_shape(m, 0)->rank;
    if (rank < 3)
        return msq_error(m, "X must have rank 3 or more (N, C and spatial axes), not %d", rank);
    DType t;
    int x = unary_in(m, &t);
    if (x < 0)
        return -1;
    int64_t perm[CTVM_MAX_RANK];
    if (channels_last) {
        channels_perm(rank, 0, perm);
        x = pb_transpose(&m->b, x, rank, perm, -1);
    }
    int y = msq_value(m, op);
    int id = msq_node(m, op, 1, &x, 1, &y);
    msq_copy_attrs(m, id, "channels_last");
    if (channels_last) {
        channels_perm(rank, 1, perm);
        y = pb_transpose(&m->b, y, rank, perm, -1);
    }
    return unary_out(m, y, t);
}

/* Y_scale, Y_zero_point, then (X, X_scale, X_zero_point) per operand */
static int lower_concat(Msq *m)
{
    const Node *n = msq_n(m);
    if (!node_attr(n, "axis"))
        return msq_error(m, "attribute 'axis' is required");
    int n_in = n->n_in;
    if (n_in < 5 || (n_in - 2) % 3 != 0)
        return msq_error(m, "expects Y_scale, Y_zero_point and a (tensor, scale, zero point) triple per operand "
                            "(2 + 3k inputs, k >= 1), not %d inputs", n_in);
    int k = (n_in - 2) / 3;
    if (msq_check_q8(m, 1, "Y_zero_point") || msq_check_param(m, 0, "Y_scale", DT_FLOAT32, 0, 1))
        return -1;
    DType t = m->g->values[msq_in(m, 1)].dtype;
    if (msq_check_param(m, 1, "Y_zero_point", t, 0, 1))
        return -1;
    int same = 1;
    for (int j = 0; j < k; j++) {
        int x = 2 + 3 * j;
        if (check_operand(m, x, "an operand", "its scale", "its zero point"))
            return -1;
        if (m->g->values[msq_in(m, x)].dtype != t)
            return msq_error(m, "operand %d is %s, the output %s", j, dtype_name(m->g->values[msq_in(m, x)].dtype),
                             dtype_name(t));
        same = same && msq_same_scalar(m, msq_in(m, x + 1), msq_in(m, 0), DT_FLOAT32) &&
               msq_same_scalar(m, msq_in(m, x + 2), msq_in(m, 1), t);
    }
    int64_t axis = attr_int(n, "axis", 0);
    int *ins = arena_array(m->g->arena, (size_t)k, sizeof(int));
    for (int j = 0; j < k; j++) {
        int x = 2 + 3 * j;
        ins[j] = same ? msq_in(m, x) : msq_dq(m, msq_in(m, x), msq_in(m, x + 1), msq_in(m, x + 2));
    }
    int ys = msq_in(m, 0), yz = msq_in(m, 1), out = msq_n(m)->out[0];
    int y = same ? out : msq_value(m, "Concat");
    int id = msq_node(m, "Concat", k, ins, 1, &y);
    node_set_int(m->g, id, "axis", axis);
    if (!same)
        msq_q(m, y, ys, yz, t, out);
    return 0;
}

int msq_lower_qlinear(Msq *m, MsOpKind k)
{
    const Node *n = msq_n(m);
    if (n->n_out < 1 || n->out[0] < 0)
        return msq_error(m, "the output is required");
    for (int i = 1; i < n->n_out; i++)
        if (n->out[i] >= 0)
            return msq_error(m, "has one output, not %d", n->n_out);
    int r;
    switch (k) {
    case MS_QLINEARADD: r = lower_binary(m, "Add"); break;
    case MS_QLINEARMUL: r = lower_binary(m, "Mul"); break;
    case MS_QLINEARSIGMOID: r = lower_unary(m, "Sigmoid", 0); break;
    case MS_QLINEARLEAKYRELU: r = lower_unary(m, "LeakyRelu", 1); break;
    case MS_QLINEARSOFTMAX: r = lower_softmax(m); break;
    case MS_QLINEARCONCAT: r = lower_concat(m); break;
    case MS_QLINEARAVERAGEPOOL: r = lower_pool(m, "AveragePool"); break;
    case MS_QLINEARGLOBALAVERAGEPOOL: r = lower_pool(m, "GlobalAveragePool"); break;
    default: return msq_error(m, "not a QLinear operator");
    }
    if (r == 0)
        msq_done(m);
    return r;
}
