/* lower_msquant.c - the dispatch of the com.microsoft rewrites and the
 * checks and builders they share (see lower_msquant.h). */
#include "passes/lower_msquant.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "ops/op_util.h"

MsOpKind msq_kind(const Graph *g, int node)
{
    const Node *n = &g->nodes[node];
    if (n->dead || n->op != OP_UNKNOWN)
        return MS_UNKNOWN;
    return ms_op_kind(n->domain, n->op_type);
}

int msq_lower(Graph *g, int node, Diag *d)
{
    MsOpKind k = msq_kind(g, node);
    Msq m = {g, node, d, {g, node, g->nodes[node].name}};
    switch (k) {
    case MS_QGEMM:
    case MS_MATMULINTEGERTOFLOAT:
    case MS_DYNAMICQUANTIZEMATMUL:
    case MS_DYNAMICQUANTIZELSTM:
        return msq_lower_matmul(&m, k);
    case MS_QATTENTION:
        return msq_lower_attention(&m);
    case MS_UNKNOWN:
        return diag_error(d, g, node, "not a com.microsoft operator ctvm imports");
    default:
        return msq_lower_qlinear(&m, k);
    }
}

const Node *msq_n(const Msq *m)
{
    return &m->g->nodes[m->b.pos]; /* nodes built so far went in before it */
}

int msq_in(const Msq *m, int i)
{
    const Node *n = msq_n(m);
    return i < n->n_in ? n->in[i] : -1;
}

int msq_error(const Msq *m, const char *fmt, ...)
{
    char reason[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(reason, sizeof reason, fmt, ap);
    va_end(ap);
    return diag_error(m->d, m->g, m->b.pos, "%s operator: %s", CTVM_MS_DOMAIN, reason);
}

int msq_need(const Msq *m, int i, const char *what)
{
    int v = msq_in(m, i);
    if (v < 0)
        msq_error(m, "input %d (%s) is required", i, what);
    return v;
}

const Shape *msq_shape(const Msq *m, int i)
{
    return &m->g->values[msq_in(m, i)].shape;
}

int msq_check_q8(const Msq *m, int i, const char *what)
{
    int v = msq_need(m, i, what);
    if (v < 0)
        return -1;
    DType t = m->g->values[v].dtype;
    if (t != DT_UINT8 && t != DT_INT8)
        return msq_error(m, "input %d (%s) must be uint8 or int8, not %s", i, what, dtype_name(t));
    return 0;
}

int msq_check_param(const Msq *m, int i, const char *what, DType t, int64_t per_len, int required)
{
    int v = msq_in(m, i);
    if (v < 0)
        return required ? msq_error(m, "input %d (%s) is required", i, what) : 0;
    const Value *x = &m->g->values[v];
    if (x->dtype != t)
        return msq_error(m, "input %d (%s) must be %s, not %s", i, what, dtype_name(t), dtype_name(x->dtype));
    int64_t cnt = 0;
    shape_numel(&x->shape, &cnt);
    if (cnt == 1 && x->shape.rank <= 1)
        return 0;
    if (per_len > 0 && x->shape.rank == 1 && cnt == per_len)
        return 0;
    if (per_len > 0)
        return msq_error(m, "input %d (%s) must be a scalar or a 1-D tensor of %lld elements, not of shape %s", i,
                         what, (long long)per_len, opu_shape_str(&x->shape));
    return msq_error(m, "input %d (%s) must be a scalar (per-tensor quantization), not of shape %s", i, what,
                     opu_shape_str(&x->shape));
}

int msq_value(Msq *m, const char *what)
{
    return pb_value(&m->b, what);
}

int msq_node(Msq *m, const char *op, int n_in, const int *ins, int n_out, const int *outs)
{
    Graph *g = m->g;
    const char *name = pass_unique_name(g, arena_printf(g->arena, "%s_%s", m->b.base, op));
    int id = pass_insert_node(g, m->b.pos, op, name, n_in, ins, n_out, outs);
    m->b.pos++;
    return id;
}

int msq_dq(Msq *m, int x, int scale, int zp)
{
    int ins[3] = {x, scale, zp}, out = msq_value(m, "dq");
    msq_node(m, "DequantizeLinear", zp >= 0 ? 3 : 2, ins, 1, &out);
    return out;
}

int msq_q(Msq *m, int x, int scale, int zp, DType t, int out)
{
    if (zp < 0) { /* QuantizeLinear's output type is its zero point's */
        int64_t zero = 0;
        zp = graph_add_const(m->g, pass_unique_name(m->g, arena_printf(m->g->arena, "%s_zp0", m->b.base)), t,
                             shape_make(0, NULL), &zero);
    }
    int ins[3] = {x, scale, zp};
    if (out < 0)
        out = msq_value(m, "q");
    msq_node(m, "QuantizeLinear", 3, ins, 1, &out);
    return out;
}

int msq_cast(Msq *m, int x, DType to)
{
    int out = msq_value(m, "cast");
    int id = msq_node(m, "Cast", 1, &x, 1, &out);
    node_set_int(m->g, id, "to", dtype_to_onnx(to));
    return out;
}

int msq_float(Msq *m, const char *what, float v)
{
    return graph_add_const(m->g, pass_unique_name(m->g, arena_printf(m->g->arena, "%s_%s", m->b.base, what)),
                           DT_FLOAT32, shape_make(0, NULL), &v);
}

void msq_copy_attrs(Msq *m, int id, const char *except)
{
    const Node *src = msq_n(m);
    Node *dst = &m->g->nodes[id];
    dst->attrs = arena_array(m->g->arena, (size_t)src->n_attrs + 1, sizeof(Attr));
    dst->n_attrs = 0;
    for (int k = 0; k < src->n_attrs; k++)
        if (!except || strcmp(src->attrs[k].name, except) != 0)
            dst->attrs[dst->n_attrs++] = src->attrs[k];
}

int msq_same_scalar(const Msq *m, int v, int w, DType t)
{
    unsigned char zero[8] = {0};
    const void *a = zero, *b = zero;
    size_t size = dtype_size(t);
    const Value *vals[2] = {v >= 0 ? &m->g->values[v] : NULL, w >= 0 ? &m->g->values[w] : NULL};
    for (int k = 0; k < 2; k++) {
        const Value *x = vals[k];
        int64_t cnt = 0;
        if (!x)
            continue;
        if (x->dtype != t || !x->data || !shape_numel(&x->shape, &cnt) || cnt != 1)
            return 0;
        if (k == 0)
            a = x->data;
        else
            b = x->data;
    }
    return size > 0 && size <= sizeof zero && memcmp(a, b, size) == 0;
}

void msq_done(Msq *m)
{
    m->g->nodes[m->b.pos].dead = 1;
    graph_count_uses(m->g);
}
