/* msquant_attention.c - com.microsoft QAttention in standard operators.
 *
 * QAttention (input, weight, bias, input_scale, weight_scale, mask_index,
 * input_zero_point, weight_zero_point, past; num_heads, unidirectional,
 * scale, mask_filter_value) is multi-head self attention whose input
 * projection is quantized. It becomes the contract's integer core and
 * float epilogue for the projection, then float32 attention:
 *
 *   QKV = MatMulInteger(input, weight, input_zp, weight_zp) -> Cast(float32)
 *         -> Mul(input_scale * weight_scale) -> Add(bias)          [B, S, 3H]
 *   Q, K, V = QKV[..., 0:H], [H:2H], [2H:3H], each [B, S, N, D] -> [B, N, S, D]
 *   K, V = Concat(past[0], K), Concat(past[1], V) on the sequence axis (past)
 *   P = Softmax(MatMul(Q, K^T) * scale + mask [+ causal])         [B, N, S, T]
 *   output = MatMul(P, V) -> [B, S, N, D] -> [B, S, H]
 *   present = Concat(K[None], V[None])                            [2, B, N, T, D]
 *
 * with H = N * D, T = past length + S, scale 1/sqrt(D) unless given. The
 * mask is additive, mask_filter_value (default -10000) where a position is
 * masked: mask_index [B] holds each batch's valid length (keys t < length
 * attend), [B, T] or [B, S, T] is 1 to attend and 0 to mask; unidirectional
 * masks keys after the query (t > past length + s). Refused with a reason:
 * the left-padding ([2B]) and other index forms, do_rotary,
 * past_present_share_buffer, non-float32 bias/scales/past. */
#include <math.h>
#include <stdlib.h>

#include "ops/op_util.h"
#include "passes/lower_msquant.h"

static int slice_last(Msq *m, int x, int64_t lo, int64_t hi)
{
    int64_t axis = -1;
    int ins[4] = {x, pb_ints(&m->b, "starts", 1, &lo), pb_ints(&m->b, "ends", 1, &hi), pb_ints(&m->b, "axes", 1, &axis)};
    int out = msq_value(m, "slice");
    msq_node(m, "Slice", 4, ins, 1, &out);
    return out;
}

/* [B, S, H] -> [B, N, S, D] */
static int heads(Msq *m, int x, int64_t nh, int64_t d)
{
    int64_t shape[4] = {0, 0, nh, d}, perm[4] = {0, 2, 1, 3};
    return pb_transpose(&m->b, pb_reshape(&m->b, x, 4, shape, -1), 4, perm, -1);
}

static int concat(Msq *m, int a, int b, int64_t axis, int out)
{
    int ins[2] = {a, b};
    if (out < 0)
        out = msq_value(m, "concat");
    int id = msq_node(m, "Concat", 2, ins, 1, &out);
    node_set_int(m->g, id, "axis", axis);
    return out;
}

/* past[i] as [B, N, P, D] */
static int past_part(Msq *m, int past, int64_t i)
{
    int ins[2] = {past, graph_add_const(m->g, pass_unique_name(m->g, "qattention_index"), DT_INT64,
                                        shape_make(0, NULL), &i)};
    int out = msq_value(m, "past");
    msq_node(m, "Gather", 2, ins, 1, &out);
    return out;
}

/* The additive float32 mask from mask_index, broadcasting on [B, N, S, T]
 * (-1: none, or an error after msq_error). */
static int index_mask(Msq *m, int mi, int64_t b, int64_t s, int64_t t, float filter, int *err)
{
    *err = 0;
    if (mi < 0)
        return -1;
    const Value *v = &m->g->values[mi];
    const Shape *ms = &v->shape;
    if (v->dtype != DT_INT32) {
        *err = msq_error(m, "input 5 (mask_index) must be int32, not %s", dtype_name(v->dtype));
        return -1;
    }
    int zero = msq_float(m, "zero", 0.0f), fv = msq_float(m, "filter", filter), cond;
    int64_t view[4] = {b, 1, 1, t};
    if (ms->rank == 1 && ms->dims[0] == b) { /* valid lengths: keys t < length[b] attend */
        int32_t *ar = malloc((size_t)t * sizeof(int32_t) + 1);
        if (!ar) {
            *err = msq_error(m, "out of memory");
            return -1;
        }
        for (int64_t i = 0; i < t; i++)
            ar[i] = (int32_t)i;
        int64_t ad[2] = {1, t}, ld[2] = {b, 1};
        int arange = graph_add_const(m->g, pass_unique_name(m->g, "qattention_positions"), DT_INT32,
                                     shape_make(2, ad), ar);
        free(ar);
        cond = pb_binary(&m->b, "Less", arange, pb_reshape(&m->b, mi, 2, ld, -1));
    } else if ((ms->rank == 2 && ms->dims[0] == b && ms->dims[1] == t) ||
               (ms->rank == 3 && ms->dims[0] == b && ms->dims[1] == s && ms->dims[2] == t)) {
        int32_t z = 0;
        int zi = graph_add_const(m->g, pass_unique_name(m->g, "qattention_mask_zero"), DT_INT32, shape_make(0, NULL), &z);
        cond = pb_binary(&m->b, "Greater", mi, zi); /* 1: attend, 0: masked */
        if (ms->rank == 3)
            view[2] = s;
    } else {
        *err = msq_error(m, "input 5 (mask_index) of shape %s: only [batch] (valid lengths), [batch, total_sequence] "
                            "and [batch, sequence, total_sequence] (1/0) masks are supported",
                         opu_shape_str(ms));
        return -1;
    }
    int ins[3] = {cond, zero, fv}, out = msq_value(m, "mask");
    msq_node(m, "Where", 3, ins, 1, &out);
    return pb_reshape(&m->b, out, 4, view, -1);
}

/* [S, T] float32 constant: filter where key t comes after query s (t > p + s). */
static int causal_mask(Msq *m, int64_t s, int64_t t, int64_t p, float filter)
{
    float *c = malloc((size_t)(s * t) * sizeof(float) + 1);
    if (!c)
        return msq_error(m, "out of memory");
    for (int64_t i = 0; i < s; i++)
        for (int64_t j = 0; j < t; j++)
            c[i * t + j] = j > p + i ? filter : 0.0f;
    int64_t d[2] = {s, t};
    int v = graph_add_const(m->g, pass_unique_name(m->g, "qattention_causal"), DT_FLOAT32, shape_make(2, d), c);
    free(c);
    return v;
}

static int lower_qattention(Msq *m)
{
    const Node *n = msq_n(m);
    int64_t nh = attr_int(n, "num_heads", 0);
    int uni = attr_int(n, "unidirectional", 0) != 0;
    float filter = attr_float(n, "mask_filter_value", -10000.0f);
    if (attr_int(n, "do_rotary", 0))
        return msq_error(m, "do_rotary=1 is not supported");
    if (attr_int(n, "past_present_share_buffer", 0))
        return msq_error(m, "past_present_share_buffer=1 is not supported");
    if (msq_check_q8(m, 0, "input") || msq_check_q8(m, 1, "weight") || msq_need(m, 2, "bias") < 0)
        return -1;
    const Shape *si = msq_shape(m, 0), *sw = msq_shape(m, 1), *sb = msq_shape(m, 2);
    if (si->rank != 3 || sw->rank != 2 || sw->dims[0] != si->dims[2] || sw->dims[1] % 3)
        return msq_error(m, "input must be [batch, sequence, input_hidden] and weight [input_hidden, 3*hidden], "
                            "not %s and %s", opu_shape_str(si), opu_shape_str(sw));
    int64_t b = si->dims[0], s = si->dims[1], h = sw->dims[1] / 3;
    if (nh <= 0 || h % nh)
        return msq_error(m, "num_heads (%lld) must be positive and divide hidden size %lld", (long long)nh,
                         (long long)h);
    int64_t d = h / nh;
    if (m->g->values[msq_in(m, 2)].dtype != DT_FLOAT32 || sb->rank != 1 || sb->dims[0] != 3 * h)
        return msq_error(m, "input 2 (bias) must be float32 of shape [%lld], not %s %s", (long long)(3 * h),
                         dtype_name(m->g->values[msq_in(m, 2)].dtype), opu_shape_str(sb));
    if (msq_check_param(m, 3, "input_scale", DT_FLOAT32, 0, 1) ||
        msq_check_param(m, 4, "weight_scale", DT_FLOAT32, 3 * h, 1) ||
        msq_check_param(m, 6, "input_zero_point", m->g->values[msq_in(m, 0)].dtype, 0, 0) ||
        msq_check_param(m, 7, "weight_zero_point", m->g->values[msq_in(m, 1)].dtype, 3 * h, 0))
        return -1;
    int past = msq_in(m, 8);
    int64_t p = 0;
    if (past >= 0) {
        const Value *pv = &m->g->values[past];
        if (pv->dtype != DT_FLOAT32 || pv->shape.rank != 5 || pv->shape.dims[0] != 2 || pv->shape.dims[1] != b ||
            pv->shape.dims[2] != nh || pv->shape.dims[4] != d)
            return msq_error(m, "input 8 (past) must be float32 [2, %lld, %lld, past_sequence, %lld], not %s %s",
                             (long long)b, (long long)nh, (long long)d, dtype_name(pv->dtype),
                             opu_shape_str(&pv->shape));
        p = pv->shape.dims[3];
    }
    int64_t t = p + s;
    int y = n->out[0], present = n->n_out > 1 ? n->out[1] : -1;
    if (n->n_out > 2)
        return msq_error(m, "has at most 2 outputs (output, present), not %d", n->n_out);
    float scale = attr_float(n, "scale", 0.0f);
    if (scale == 0.0f)
        scale = 1.0f / sqrtf((float)d);
    int err;
    int mask = index_mask(m, msq_in(m, 5), b, s, t, filter, &err);
    if (err)
        return -1;

    /* the quantized projection: the contract's integer core and float epilogue */
    int ins[4] = {msq_in(m, 0), msq_in(m, 1), msq_in(m, 6), msq_in(m, 7)};
    int acc = msq_value(m, "acc");
    msq_node(m, "MatMulInteger", ins[3] >= 0 ? 4 : ins[2] >= 0 ? 3 : 2, ins, 1, &acc);
    int qs = pb_binary(&m->b, "Mul", msq_in(m, 3), msq_in(m, 4));
    int qkv = pb_binary(&m->b, "Add", pb_binary(&m->b, "Mul", msq_cast(m, acc, DT_FLOAT32), qs), msq_in(m, 2));

    int q = heads(m, slice_last(m, qkv, 0, h), nh, d);
    int k = heads(m, slice_last(m, qkv, h, 2 * h), nh, d);
    int v = heads(m, slice_last(m, qkv, 2 * h, 3 * h), nh, d);
    if (past >= 0) {
        k = concat(m, past_part(m, past, 0), k, 2, -1);
        v = concat(m, past_part(m, past, 1), v, 2, -1);
    }
    if (present >= 0) {
        int64_t one[5] = {1, b, nh, t, d};
        concat(m, pb_reshape(&m->b, k, 5, one, -1), pb_reshape(&m->b, v, 5, one, -1), 0, present);
    }
    int64_t tr[4] = {0, 1, 3, 2};
    int sc = pb_binary(&m->b, "MatMul", q, pb_transpose(&m->b, k, 4, tr, -1));
    sc = pb_binary(&m->b, "Mul", sc, msq_float(m, "scale", scale));
    if (mask >= 0)
        sc = pb_binary(&m->b, "Add", sc, mask);
    if (uni) {
        int c = causal_mask(m, s, t, p, filter);
        if (c < 0)
            return -1;
        sc = pb_binary(&m->b, "Add", sc, c);
    }
    int pr = msq_value(m, "probs");
    int id = msq_node(m, "Softmax", 1, &sc, 1, &pr);
    node_set_int(m->g, id, "axis", -1);
    int64_t back[4] = {0, 2, 1, 3}, flat[3] = {0, 0, h};
    int o = pb_transpose(&m->b, pb_binary(&m->b, "MatMul", pr, v), 4, back, -1);
    pb_reshape(&m->b, o, 3, flat, y);
    return 0;
}

int msq_lower_attention(Msq *m)
{
    const Node *n = msq_n(m);
    if (n->n_out < 1 || n->out[0] < 0)
        return msq_error(m, "the output is required");
    int r = lower_qattention(m);
    if (r == 0)
        msq_done(m);
    return r;
}
