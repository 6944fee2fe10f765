/* quant_util.c - the quantization parameters of DequantizeLinear,
 * QuantizeLinear and the QLinear operators, read and checked for the
 * quant_* passes (see quant_util.h). */
#include "passes/quant_util.h"

#include <math.h>
#include <string.h>

#include "ir/tensor.h"
#include "passes/pass_util.h"

int qc_get(const Graph *g, int v, QConst *c)
{
    if (v < 0)
        return 0;
    const Value *val = &g->values[v];
    if (val->data) {
        c->t = val->dtype;
        c->s = val->shape;
        c->data = val->data;
    } else {
        int p = val->producer;
        if (p < 0 || g->nodes[p].dead || g->nodes[p].op != OP_CONSTANT || g->nodes[p].n_out != 1 ||
            g->nodes[p].out[0] != v)
            return 0;
        const Attr *a = node_attr(&g->nodes[p], "value");
        if (!a || a->kind != ATTR_TENSOR || !a->t)
            return 0;
        c->t = a->t->dtype;
        c->s = a->t->shape;
        c->data = a->t->data;
    }
    return c->data && shape_is_static(&c->s) && shape_numel(&c->s, &c->n);
}

static int int_type(DType t, int allow_i32)
{
    return t == DT_INT8 || t == DT_UINT8 || (allow_i32 && t == DT_INT32);
}

int qp_read(const Graph *g, int node, int s, int z, const Shape *xs, int axis, int allow_i32, QParams *p)
{
    memset(p, 0, sizeof *p);
    p->x = -1;
    p->scale = s;
    p->zp = z;
    p->axis = -1;
    p->qt = DT_UNDEFINED;
    if (!qc_get(g, s, &p->s) || p->s.t != DT_FLOAT32 || p->s.n < 1 || p->s.s.rank > 1)
        return 0;
    for (int64_t k = 0; k < p->s.n; k++) {
        float v = ((const float *)p->s.data)[k];
        if (!isfinite(v) || !(v > 0.0f))
            return 0;
    }
    if (z >= 0) {
        if (!qc_get(g, z, &p->z) || !int_type(p->z.t, allow_i32) || (p->z.n != p->s.n && p->z.n != 1) ||
            p->z.s.rank > 1)
            return 0;
        p->qt = p->z.t;
    }
    if (node >= 0) {
        const Node *n = &g->nodes[node];
        if (n->version >= 21 && attr_int(n, "block_size", 0) != 0)
            return 0;
        if (p->s.n > 1 && n->version < 13)
            return 0;
        axis = (int)attr_int(n, "axis", 1);
    }
    if (p->s.n == 1)
        return 1;
    if (!xs || p->s.s.rank != 1)
        return 0;
    if (axis < 0)
        axis += xs->rank;
    if (axis < 0 || axis >= xs->rank || xs->dims[axis] != p->s.n)
        return 0;
    p->axis = axis;
    return 1;
}

/* The integer type of a QuantizeLinear's output. */
static DType q_out_type(const Graph *g, const Node *q)
{
    QConst z;
    if (q->n_in >= 3 && q->in[2] >= 0)
        return qc_get(g, q->in[2], &z) ? z.t : DT_UNDEFINED;
    int64_t od = q->version >= 21 ? attr_int(q, "output_dtype", 0) : 0;
    return od ? dtype_from_onnx((int)od) : DT_UINT8;
}

int qp_match_dq(const Graph *g, int v, int allow_i32, QParams *p)
{
    int d = pass_producer(g, v, OP_DEQUANTIZELINEAR);
    if (d < 0)
        return 0;
    const Node *n = &g->nodes[d];
    if (n->n_in < 2 || n->n_in > 3 || n->n_out != 1 || n->in[0] < 0 || n->in[1] < 0)
        return 0;
    int64_t od = n->version >= 23 ? attr_int(n, "output_dtype", 0) : 0;
    if (od && dtype_from_onnx((int)od) != DT_FLOAT32)
        return 0;
    QConst xc;
    int x_const = qc_get(g, n->in[0], &xc);
    if (!qp_read(g, d, n->in[1], n->n_in > 2 ? n->in[2] : -1, x_const ? &xc.s : NULL, 1, allow_i32, p))
        return 0;
    p->x = n->in[0];
    p->x_const = x_const;
    if (x_const)
        p->xc = xc;
    DType xt = x_const ? xc.t : g->values[p->x].dtype;
    if (xt == DT_UNDEFINED) {
        int q = g->values[p->x].producer;
        if (q >= 0 && !g->nodes[q].dead && g->nodes[q].op == OP_QUANTIZELINEAR)
            xt = q_out_type(g, &g->nodes[q]);
    }
    if (p->qt == DT_UNDEFINED)
        p->qt = xt;
    return int_type(p->qt, allow_i32) && (xt == DT_UNDEFINED || xt == p->qt) &&
           (xt != DT_UNDEFINED || p->zp >= 0);
}

int qp_match_q(const Graph *g, int q, QParams *p)
{
    const Node *n = &g->nodes[q];
    if (n->dead || n->op != OP_QUANTIZELINEAR || n->n_in < 2 || n->n_in > 3 || n->n_out != 1 || n->in[1] < 0)
        return 0;
    if (!qp_read(g, q, n->in[1], n->n_in > 2 ? n->in[2] : -1, NULL, 1, 0, p))
        return 0;
    if (n->version >= 23 && attr_int(n, "precision", 0) != 0)
        return 0;
    p->qt = q_out_type(g, n);
    p->x = n->out[0];
    return int_type(p->qt, 0);
}

float qp_scale(const QParams *p, int64_t k)
{
    return ((const float *)p->s.data)[p->s.n == 1 ? 0 : k];
}

int64_t qp_zero(const QParams *p, int64_t k)
{
    if (p->zp < 0)
        return 0;
    return tensor_get_i64(p->z.t, p->z.data, p->z.n == 1 ? 0 : k);
}

int qp_zero_all_zero(const QParams *p)
{
    for (int64_t k = 0; k < p->z.n; k++)
        if (qp_zero(p, k) != 0)
            return 0;
    return 1;
}

int qp_equal(const QParams *a, const QParams *b)
{
    float sa = qp_scale(a, 0), sb = qp_scale(b, 0);
    return a->qt == b->qt && a->s.n == 1 && b->s.n == 1 && memcmp(&sa, &sb, sizeof sa) == 0 &&
           qp_zero(a, 0) == qp_zero(b, 0);
}

void qp_dequantize(const QParams *p, float *out)
{
    int64_t inner = 1, len = 1;
    if (p->axis >= 0) {
        len = p->xc.s.dims[p->axis];
        for (int i = p->axis + 1; i < p->xc.s.rank; i++)
            inner *= p->xc.s.dims[i];
    }
    for (int64_t i = 0; i < p->xc.n; i++) {
        int64_t k = p->axis >= 0 ? (i / inner) % len : 0;
        int64_t q = tensor_get_i64(p->xc.t, p->xc.data, i) - qp_zero(p, k);
        out[i] = p->qt == DT_INT32 ? (float)((double)q * (double)qp_scale(p, k)) : (float)q * qp_scale(p, k);
    }
}

void qp_drop_unread_dq(Graph *g)
{
    graph_count_uses(g);
    for (int i = 0; i < g->n_nodes; i++) {
        Node *n = &g->nodes[i];
        if (n->dead || n->op != OP_DEQUANTIZELINEAR || n->n_out != 1 || n->out[0] < 0)
            continue;
        const Value *y = &g->values[n->out[0]];
        if (y->n_uses == 0 && !y->is_output)
            n->dead = 1;
    }
    graph_count_uses(g);
}

int qp_moving_inputs(const Node *n)
{
    switch (n->op) {
    case OP_MAXPOOL: return n->n_out == 1 ? 1 : 0; /* no Indices */
    case OP_RESHAPE:
    case OP_FLATTEN:
    case OP_TRANSPOSE:
    case OP_SQUEEZE:
    case OP_UNSQUEEZE:
    case OP_IDENTITY:
    case OP_GATHER:
    case OP_SLICE:
    case OP_SPLIT: return 1;
    case OP_CONCAT: return n->n_in;
    default: return 0;
    }
}
