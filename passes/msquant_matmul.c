/* msquant_matmul.c - com.microsoft QGemm, MatMulIntegerToFloat,
 * DynamicQuantizeMatMul and DynamicQuantizeLSTM in standard operators.
 *
 * The products take the contract's canonical form: MatMulInteger (int32)
 * -> Cast(float32) -> Mul(a_scale * b_scale [* alpha]) [-> Add(bias)]
 * [-> QuantizeLinear(y_scale, y_zero_point)], the scale product a separate
 * Mul that constant folding turns into the per-tensor or per-column
 * constant (with DynamicQuantizeMatMul, whose A is quantized at run time by
 * a leading DynamicQuantizeLinear to uint8, it stays a product of the
 * run-time scale).
 * - QGemm (A, a_scale, a_zero_point, B, b_scale, b_zero_point, C, y_scale,
 *   y_zero_point; transA, transB, alpha): A and B 2-D (Transposed when
 *   transA / transB), a per tensor, b per tensor or per column (N). C is
 *   int32 with zero point 0 and scale alpha * a_scale * b_scale, so it
 *   adds Cast(C) * that scale. Without y_scale the output is float32;
 *   with it, QuantizeLinear to y_zero_point's type (required then).
 * - MatMulIntegerToFloat (A, B, a_scale, b_scale, a_zero_point,
 *   b_zero_point, bias): numpy-style MatMul of any rank; a per tensor,
 *   b per tensor or per column; bias float32 of B's last dim.
 * - DynamicQuantizeMatMul (A float32, B, b_scale, b_zero_point, bias).
 * - DynamicQuantizeLSTM: ONNX's LSTM (gates i, o, f, c) with W as
 *   [num_directions, input_size, 4*hidden] and R as [num_directions,
 *   hidden, 4*hidden], int8/uint8, dequantized per direction (scale and
 *   zero point [D]) or per direction and gate column ([D, 4*hidden]).
 *   ONNX Runtime runs it with X quantized to uint8 once (min/max over all
 *   steps) and h at every step, u8 x s8 products in int32. So does the
 *   int8 form of ops/rnn.c's LSTM that it becomes when W and R are
 *   constant, input and hidden sizes are multiples of 4 and every w - zero
 *   point fits int8: DynamicQuantizeLinear(X) (with sequence_lens: its
 *   range over the first max(len) steps, as ORT's) -> LSTM(xq, W - wz, R - rz
 *   as int8 in ONNX's [D, 4H, rows] layout, B, sequence_lens, initial_h,
 *   initial_c, P, x_scale, x_zero_point, W's scales [D, 4H], W's column
 *   sums [D, 4H] int32, R's scales, R's column sums). Otherwise a float32
 *   LSTM over the dequantized, transposed weights (constants folded at
 *   compile time), within ONNX Runtime's own quantization error of it
 *   (tests/quant/msquant_check.py measures both against ORT). */
#include <stdlib.h>

#include "ops/op_util.h"
#include "passes/lower_msquant.h"

/* A scale/zero point pair for B: per tensor, or per column (n > 0). */
static int check_b_params(Msq *m, int s, int z, int b, int64_t n)
{
    if (msq_check_param(m, s, "b_scale", DT_FLOAT32, n, 1) ||
        msq_check_param(m, z, "b_zero_point", m->g->values[msq_in(m, b)].dtype, n, 0))
        return -1;
    return 0;
}

static int check_bias(Msq *m, int i, int64_t n)
{
    int v = msq_in(m, i);
    if (v < 0)
        return 0;
    const Value *x = &m->g->values[v];
    if (x->dtype != DT_FLOAT32 || x->shape.rank != 1 || x->shape.dims[0] != n)
        return msq_error(m, "input %d (bias) must be float32 of shape [%lld], not %s %s", i, (long long)n,
                         dtype_name(x->dtype), opu_shape_str(&x->shape));
    return 0;
}

/* MatMulInteger(a, b, az, bz) -> Cast -> Mul(scale) [-> Add(bias)], into
 * out (a new value when -1); the float32 result. */
static int int_product(Msq *m, int a, int b, int az, int bz, int scale, int bias, int out)
{
    int ins[4] = {a, b, az, bz};
    int n_in = bz >= 0 ? 4 : az >= 0 ? 3 : 2;
    int acc = msq_value(m, "acc");
    msq_node(m, "MatMulInteger", n_in, ins, 1, &acc);
    int mul[2] = {msq_cast(m, acc, DT_FLOAT32), scale};
    int y = bias < 0 && out >= 0 ? out : msq_value(m, "Mul");
    msq_node(m, "Mul", 2, mul, 1, &y);
    if (bias < 0)
        return y;
    int add[2] = {y, bias};
    if (out < 0)
        out = msq_value(m, "Add");
    msq_node(m, "Add", 2, add, 1, &out);
    return out;
}

static int lower_qgemm(Msq *m)
{
    const Node *n = msq_n(m);
    int trans_a = attr_int(n, "transA", 0) != 0, trans_b = attr_int(n, "transB", 0) != 0;
    float alpha = attr_float(n, "alpha", 1.0f);
    if (msq_check_q8(m, 0, "A") || msq_check_q8(m, 3, "B"))
        return -1;
    const Shape *sa = msq_shape(m, 0), *sb = msq_shape(m, 3);
    if (sa->rank != 2 || sb->rank != 2)
        return msq_error(m, "A and B must be 2-D, not %s and %s", opu_shape_str(sa), opu_shape_str(sb));
    int64_t ka = sa->dims[trans_a ? 0 : 1], kb = sb->dims[trans_b ? 1 : 0], nn = sb->dims[trans_b ? 0 : 1];
    if (ka != kb)
        return msq_error(m, "A %s%s and B %s%s do not agree on K", opu_shape_str(sa), trans_a ? " (transA)" : "",
                         opu_shape_str(sb), trans_b ? " (transB)" : "");
    if (msq_check_param(m, 1, "a_scale", DT_FLOAT32, 0, 1) ||
        msq_check_param(m, 2, "a_zero_point", m->g->values[msq_in(m, 0)].dtype, 0, 0) ||
        check_b_params(m, 4, 5, 3, nn))
        return -1;
    int c = msq_in(m, 6), ys = msq_in(m, 7), yz = msq_in(m, 8);
    if (c >= 0 && m->g->values[c].dtype != DT_INT32)
        return msq_error(m, "input 6 (C) must be int32, not %s", dtype_name(m->g->values[c].dtype));
    if (ys >= 0 && yz < 0)
        return msq_error(m, "y_scale without y_zero_point: the quantized output's type is not defined");
    if (yz >= 0 && ys < 0)
        return msq_error(m, "y_zero_point without y_scale");
    if (ys >= 0 && (msq_check_param(m, 7, "y_scale", DT_FLOAT32, 0, 1) || msq_check_q8(m, 8, "y_zero_point") ||
                    msq_check_param(m, 8, "y_zero_point", m->g->values[yz].dtype, 0, 1)))
        return -1;
    DType yt = ys >= 0 ? m->g->values[yz].dtype : DT_FLOAT32;
    int a = msq_in(m, 0), b = msq_in(m, 3), out = n->out[0];
    int64_t perm[2] = {1, 0};
    if (trans_a)
        a = pb_transpose(&m->b, a, 2, perm, -1);
    if (trans_b)
        b = pb_transpose(&m->b, b, 2, perm, -1);
    int scale = pb_binary(&m->b, "Mul", msq_in(m, 1), msq_in(m, 4));
    if (alpha != 1.0f)
        scale = pb_binary(&m->b, "Mul", scale, msq_float(m, "alpha", alpha));
    int bias = c >= 0 ? pb_binary(&m->b, "Mul", msq_cast(m, c, DT_FLOAT32), scale) : -1;
    int y = int_product(m, a, b, msq_in(m, 2), msq_in(m, 5), scale, bias, ys >= 0 ? -1 : out);
    if (ys >= 0)
        msq_q(m, y, ys, yz, yt, out);
    return 0;
}

/* The column count of B for MatMul's numpy rules (B of rank >= 1). */
static int64_t b_columns(const Shape *sb)
{
    return sb->rank >= 2 ? sb->dims[sb->rank - 1] : 1;
}

static int lower_mm_to_float(Msq *m)
{
    if (msq_check_q8(m, 0, "A") || msq_check_q8(m, 1, "B"))
        return -1;
    int64_t nn = b_columns(msq_shape(m, 1));
    if (msq_check_param(m, 2, "a_scale", DT_FLOAT32, 0, 1) ||
        msq_check_param(m, 4, "a_zero_point", m->g->values[msq_in(m, 0)].dtype, 0, 0) ||
        check_b_params(m, 3, 5, 1, nn) || check_bias(m, 6, nn))
        return -1;
    int scale = pb_binary(&m->b, "Mul", msq_in(m, 2), msq_in(m, 3));
    int_product(m, msq_in(m, 0), msq_in(m, 1), msq_in(m, 4), msq_in(m, 5), scale, msq_in(m, 6), msq_n(m)->out[0]);
    return 0;
}

static int lower_dyn_matmul(Msq *m)
{
    int a = msq_need(m, 0, "A");
    if (a < 0 || msq_check_q8(m, 1, "B"))
        return -1;
    if (m->g->values[a].dtype != DT_FLOAT32)
        return msq_error(m, "input 0 (A) must be float32, not %s", dtype_name(m->g->values[a].dtype));
    int64_t nn = b_columns(msq_shape(m, 1));
    if (check_b_params(m, 2, 3, 1, nn) || check_bias(m, 4, nn))
        return -1;
    int q[3] = {msq_value(m, "aq"), msq_value(m, "a_scale"), msq_value(m, "a_zp")};
    msq_node(m, "DynamicQuantizeLinear", 1, &a, 3, q);
    int scale = pb_binary(&m->b, "Mul", q[1], msq_in(m, 2));
    int_product(m, q[0], msq_in(m, 1), q[2], msq_in(m, 3), scale, msq_in(m, 4), msq_n(m)->out[0]);
    return 0;
}

/* W or R [D, rows, 4H]: its scale and zero point are [D] or [D, 4H], of
 * float32 and of the weights' type; the count of either, or -1. */
static int64_t lstm_param_check(Msq *m, int w, int s, int z, const char *what)
{
    const Value *wv = &m->g->values[w];
    int64_t d = wv->shape.dims[0], cols = wv->shape.dims[2], cnt = 0;
    for (int k = 0; k < 2; k++) {
        const Value *p = &m->g->values[k ? z : s];
        DType want = k ? wv->dtype : DT_FLOAT32;
        if (p->dtype != want || !shape_numel(&p->shape, &cnt) || (cnt != d && cnt != d * cols) ||
            p->shape.rank > 2 || (p->shape.rank >= 1 && p->shape.dims[0] != d))
            return msq_error(m, "%s's %s must be %s of shape [%lld] or [%lld, %lld], not %s %s", what,
                             k ? "zero point" : "scale", dtype_name(want), (long long)d, (long long)d,
                             (long long)cols, dtype_name(p->dtype), opu_shape_str(&p->shape));
    }
    return cnt;
}

/* W or R [D, rows, 4H] dequantized with scale/zero point [D] or [D, 4H]
 * and transposed to ONNX's [D, 4H, rows]. */
static int lstm_weight(Msq *m, int w, int s, int z)
{
    const Value *wv = &m->g->values[w];
    int64_t d = wv->shape.dims[0], cnt = 0;
    shape_numel(&m->g->values[s].shape, &cnt);
    int64_t pd[3] = {d, 1, cnt / d}, perm[3] = {0, 2, 1};
    int sv = pb_reshape(&m->b, s, 3, pd, -1), zv = pb_reshape(&m->b, msq_cast(m, z, DT_FLOAT32), 3, pd, -1);
    int wf = pb_binary(&m->b, "Sub", msq_cast(m, w, DT_FLOAT32), zv);
    return pb_transpose(&m->b, pb_binary(&m->b, "Mul", wf, sv), 3, perm, -1);
}

/* The int8 form's weight: constant W or R [D, rows, C] (int8 or uint8,
 * scale and zero point [D] or [D, C], constant) as w - zero point in int8,
 * transposed to ONNX's [D, C, rows], its column sums (int32 [D, C]) and
 * scales (float32 [D, C]) into out[0..2]; 0 when something is not constant
 * or a difference leaves int8 (then the float32 form), -1 out of memory. */
static int lstm_int8_weight(Msq *m, int w, int s, int z, int out[3])
{
    Graph *g = m->g;
    const Value *wv = &g->values[w], *sv = &g->values[s], *zv = &g->values[z];
    int64_t D = wv->shape.dims[0], R = wv->shape.dims[1], C = wv->shape.dims[2], ns = 0, nz = 0;
    if (!wv->data || !sv->data || !zv->data || !shape_numel(&sv->shape, &ns) || !shape_numel(&zv->shape, &nz))
        return 0;
    int8_t *q = malloc((size_t)(D * R * C) + 1);
    int32_t *sum = calloc((size_t)(D * C) + 1, sizeof(int32_t));
    float *sc = malloc((size_t)(D * C + 1) * sizeof(float));
    int ok = q && sum && sc;
    int s8 = wv->dtype == DT_INT8;
    const float *sd = sv->data;
    for (int64_t d = 0; ok && d < D; d++)
        for (int64_t c = 0; ok && c < C; c++) {
            int64_t zi = nz == D ? d : d * C + c;
            int zp = s8 ? ((const int8_t *)zv->data)[zi] : ((const uint8_t *)zv->data)[zi];
            sc[d * C + c] = sd[ns == D ? d : d * C + c];
            for (int64_t r = 0; ok && r < R; r++) {
                int64_t i = (d * R + r) * C + c;
                int v = (s8 ? ((const int8_t *)wv->data)[i] : ((const uint8_t *)wv->data)[i]) - zp;
                ok = v >= -128 && v <= 127;
                q[(d * C + c) * R + r] = (int8_t)v;
                sum[d * C + c] += v;
            }
        }
    if (ok) {
        const char *base = wv->name;
        int64_t qd[3] = {D, C, R}, pd[2] = {D, C};
        out[0] = graph_add_const(g, pass_unique_name(g, arena_printf(g->arena, "%s_s8", base)), DT_INT8,
                                 shape_make(3, qd), q);
        out[1] = graph_add_const(g, pass_unique_name(g, arena_printf(g->arena, "%s_sum", base)), DT_INT32,
                                 shape_make(2, pd), sum);
        out[2] = graph_add_const(g, pass_unique_name(g, arena_printf(g->arena, "%s_scales", base)), DT_FLOAT32,
                                 shape_make(2, pd), sc);
    }
    int oom = !q || !sum || !sc;
    free(q);
    free(sum);
    free(sc);
    return oom ? -1 : ok;
}

/* X [T, B, I] quantized to uint8 as ONNX Runtime's projection does it:
 * DynamicQuantizeLinear's range and arithmetic over the steps it runs, all
 * of them, or with sequence_lens only the first max(len) (the rows past them
 * count as 0, which the range holds anyway: Where(step < max(len), X, 0)),
 * then every row quantized with that scale and zero point. q: xq, scale,
 * zero point. */
static void lstm_quantize_x(Msq *m, int x, int seq, int q[3])
{
    Graph *g = m->g;
    for (int i = 0; i < 3; i++)
        q[i] = msq_value(m, i == 0 ? "xq" : i == 1 ? "x_scale" : "x_zero_point");
    if (seq < 0) {
        msq_node(m, "DynamicQuantizeLinear", 1, &x, 3, q);
        return;
    }
    int64_t T = g->values[x].shape.dims[0], one[3] = {T, 1, 1};
    DType st = g->values[seq].dtype;
    int64_t *steps = malloc((size_t)T * sizeof(int64_t) + 1);
    int32_t *steps32 = malloc((size_t)T * sizeof(int32_t) + 1);
    if (!steps || !steps32) { /* (out of memory: the range of all of X) */
        free(steps);
        free(steps32);
        msq_node(m, "DynamicQuantizeLinear", 1, &x, 3, q);
        return;
    }
    for (int64_t t = 0; t < T; t++)
        steps[t] = t, steps32[t] = (int32_t)t;
    int sv = graph_add_const(g, pass_unique_name(g, arena_printf(g->arena, "%s_steps", m->b.base)), st,
                             shape_make(1, &T), st == DT_INT64 ? (void *)steps : (void *)steps32);
    free(steps);
    free(steps32);
    int mx = msq_value(m, "max_len");
    int id = msq_node(m, "ReduceMax", 1, &seq, 1, &mx);
    node_set_int(g, id, "keepdims", 0);
    int where[3] = {pb_reshape(&m->b, pb_binary(&m->b, "Less", sv, mx), 3, one, -1), x, msq_float(m, "zero", 0.0f)};
    int xm = msq_value(m, "x_ran");
    msq_node(m, "Where", 3, where, 1, &xm);
    int dq[3] = {msq_value(m, "x_ran_q"), q[1], q[2]};
    msq_node(m, "DynamicQuantizeLinear", 1, &xm, 3, dq);
    msq_q(m, x, q[1], q[2], DT_UINT8, q[0]);
}

static int lower_dyn_lstm(Msq *m)
{
    const Node *n = msq_n(m);
    int x = msq_need(m, 0, "X");
    if (x < 0 || msq_check_q8(m, 1, "W") || msq_check_q8(m, 2, "R"))
        return -1;
    for (int i = 8; i < 12; i++)
        if (msq_need(m, i, i % 2 ? "a zero point" : "a scale") < 0)
            return -1;
    const Shape *sw = msq_shape(m, 1), *sr = msq_shape(m, 2);
    int64_t hidden = attr_int(n, "hidden_size", 0);
    if (sw->rank != 3 || sr->rank != 3 || sw->dims[0] != sr->dims[0] || sw->dims[2] != sr->dims[2] ||
        sr->dims[1] * 4 != sr->dims[2] || (hidden > 0 && hidden != sr->dims[1]))
        return msq_error(m, "W must be [num_directions, input_size, 4*hidden] and R [num_directions, hidden, "
                            "4*hidden], not %s and %s", opu_shape_str(sw), opu_shape_str(sr));
    if (m->g->values[x].dtype != DT_FLOAT32)
        return msq_error(m, "input 0 (X) must be float32, not %s", dtype_name(m->g->values[x].dtype));
    if (lstm_param_check(m, msq_in(m, 1), msq_in(m, 8), msq_in(m, 9), "W") < 0 ||
        lstm_param_check(m, msq_in(m, 2), msq_in(m, 10), msq_in(m, 11), "R") < 0)
        return -1;
    int ins[14] = {x, -1, -1};
    for (int i = 3; i < 8; i++)
        ins[i] = msq_in(m, i);
    /* the int8 form (ops/rnn.c): X quantized by DynamicQuantizeLinear as
       ONNX Runtime does, W and R int8 with their zero points subtracted,
       when the input and hidden sizes are whole 4-byte groups */
    int wi[3], ri[3], rc = 0, n_in = 8;
    if (sw->dims[1] % 4 == 0 && sr->dims[1] % 4 == 0 &&
        (rc = lstm_int8_weight(m, msq_in(m, 1), msq_in(m, 8), msq_in(m, 9), wi)) > 0 &&
        (rc = lstm_int8_weight(m, msq_in(m, 2), msq_in(m, 10), msq_in(m, 11), ri)) > 0) {
        int q[3];
        lstm_quantize_x(m, x, msq_in(m, 4), q);
        ins[0] = q[0], ins[1] = wi[0], ins[2] = ri[0];
        ins[8] = q[1], ins[9] = q[2];
        ins[10] = wi[2], ins[11] = wi[1], ins[12] = ri[2], ins[13] = ri[1];
        n_in = 14;
    } else if (rc < 0) {
        return msq_error(m, "out of memory converting the weights");
    } else {
        ins[1] = lstm_weight(m, msq_in(m, 1), msq_in(m, 8), msq_in(m, 9));
        ins[2] = lstm_weight(m, msq_in(m, 2), msq_in(m, 10), msq_in(m, 11));
        while (n_in > 3 && ins[n_in - 1] < 0)
            n_in--;
    }
    n = msq_n(m);
    int outs[3] = {-1, -1, -1};
    for (int i = 0; i < n->n_out && i < 3; i++)
        outs[i] = n->out[i];
    int id = msq_node(m, "LSTM", n_in, ins, 3, outs);
    msq_copy_attrs(m, id, NULL);
    m->g->nodes[id].at.rnn.q8 = n_in == 14; /* the int8 form (ops/rnn.c) */
    return 0;
}

int msq_lower_matmul(Msq *m, MsOpKind k)
{
    const Node *n = msq_n(m);
    if (n->n_out < 1 || (k != MS_DYNAMICQUANTIZELSTM && n->out[0] < 0))
        return msq_error(m, "the output is required");
    if (k != MS_DYNAMICQUANTIZELSTM && n->n_out > 1)
        return msq_error(m, "has one output, not %d", n->n_out);
    if (k == MS_DYNAMICQUANTIZELSTM && n->n_out > 3)
        return msq_error(m, "has at most 3 outputs (Y, Y_h, Y_c), not %d", n->n_out);
    int r;
    switch (k) {
    case MS_QGEMM: r = lower_qgemm(m); break;
    case MS_MATMULINTEGERTOFLOAT: r = lower_mm_to_float(m); break;
    case MS_DYNAMICQUANTIZEMATMUL: r = lower_dyn_matmul(m); break;
    case MS_DYNAMICQUANTIZELSTM: r = lower_dyn_lstm(m); break;
    default: return msq_error(m, "not a matrix-product operator");
    }
    if (r == 0)
        msq_done(m);
    return r;
}
