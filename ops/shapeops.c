/* shapeops.c - the small operators of shape computations and constants:
 * Constant (1..25), Shape (1..25), Size (1..25), ConstantOfShape (9..25),
 * Range (11..27), Expand.
 *
 * They exist mostly to be folded away (torch exports Shape -> Gather ->
 * Unsqueeze -> Concat -> Reshape chains), so every one handles any dtype
 * (int64/int32 in particular) by typed element access. Attributes after
 * infer: Shape "start"/"end" resolved into [0, rank]. Shape and Size
 * fold whenever the input's shape is static (ops_can_fold). Inputs that
 * determine an output shape (ConstantOfShape's shape, Range's scalars,
 * Expand's shape) must be constant. Element values go through
 * tensor_get/set so every type works, packed 4/2-bit ones included. */
#include <math.h>
#include <string.h>

#include "ops/op_util.h"
#include "ops/ops.h"

/* ---- Constant ---- */

static int infer_constant(Graph *g, int node, Diag *d)
{
    Node *n = &g->nodes[node];
    if (opu_check_arity(g, node, d, 0, 0, 1, 1))
        return -1;
    const Attr *a;
    if (node_attr(n, "sparse_value"))
        return diag_error(d, g, node, "sparse_value constants are not supported (sparse tensors "
                                      "cannot be held); give a dense value instead");
    if ((a = node_attr(n, "value")) && a->kind == ATTR_TENSOR && a->t) {
        opu_set_out(g, node, 0, a->t->dtype, a->t->shape);
    } else if ((a = node_attr(n, "value_float")) && a->kind == ATTR_FLOAT) {
        opu_set_out(g, node, 0, DT_FLOAT32, shape_make(0, NULL));
    } else if ((a = node_attr(n, "value_int")) && a->kind == ATTR_INT) {
        opu_set_out(g, node, 0, DT_INT64, shape_make(0, NULL));
    } else if ((a = node_attr(n, "value_floats")) && a->kind == ATTR_FLOATS) {
        int64_t len = a->n;
        opu_set_out(g, node, 0, DT_FLOAT32, shape_make(1, &len));
    } else if ((a = node_attr(n, "value_ints")) && a->kind == ATTR_INTS) {
        int64_t len = a->n;
        opu_set_out(g, node, 0, DT_INT64, shape_make(1, &len));
    } else {
        return diag_error(d, g, node, "needs a value, value_float(s) or value_int(s) attribute "
                                      "(sparse and string constants are not supported)");
    }
    if (opu_out(g, node, 0)->dtype == DT_UNDEFINED)
        return diag_error(d, g, node, "value has an unsupported dtype");
    n->at.shape.value = a;
    return 0;
}

static int eval_constant(Graph *g, int node, Diag *d)
{
    const Node *n = &g->nodes[node];
    Value *y = opu_out(g, node, 0);
    int64_t bytes;
    if (!value_bytes(y, &bytes))
        return diag_error(d, g, node, "value has no static size");
    void *p = opu_alloc_out(g, node, 0, d);
    if (!p)
        return -1;
    const Attr *a = n->at.shape.value; /* the attribute infer chose */
    if (!a)
        return diag_error(d, g, node, "Constant was not inferred (internal error)");
    if (a->kind == ATTR_TENSOR) {
        if (bytes)
            memcpy(p, a->t->data, (size_t)bytes);
    } else if (a->kind == ATTR_FLOAT) {
        *(float *)p = a->f;
    } else if (a->kind == ATTR_INT) {
        *(int64_t *)p = a->i;
    } else if (a->kind == ATTR_FLOATS) {
        if (a->n)
            memcpy(p, a->floats, (size_t)a->n * sizeof(float));
    } else if (a->kind == ATTR_INTS) {
        if (a->n)
            memcpy(p, a->ints, (size_t)a->n * sizeof(int64_t));
    }
    return 1;
}

/* ---- Shape ---- */

static int64_t clamp_rank(int64_t v, int rank)
{
    if (v < 0)
        v += rank;
    return v < 0 ? 0 : v > rank ? rank : v;
}

static int infer_shape(Graph *g, int node, Diag *d)
{
    Node *n = &g->nodes[node];
    if (opu_check_arity(g, node, d, 1, 1, 1, 1))
        return -1;
    int rank = opu_in(g, node, 0)->shape.rank;
    int64_t s = clamp_rank(attr_int(n, "start", 0), rank);
    int64_t e = clamp_rank(attr_int(n, "end", rank), rank);
    int64_t len = e > s ? e - s : 0;
    n->at.shape.start = s;
    n->at.shape.end = e > s ? e : s;
    if (n->version >= 15) {
        node_set_int(g, node, "start", s);
        node_set_int(g, node, "end", n->at.shape.end);
    }
    opu_set_out(g, node, 0, DT_INT64, shape_make(1, &len));
    return 0;
}

static int eval_shape(Graph *g, int node, Diag *d)
{
    const Node *n = &g->nodes[node];
    Value *x = opu_in(g, node, 0);
    if (!shape_is_static(&x->shape) || x->dyn)
        return 0;
    int64_t s = n->at.shape.start, e = n->at.shape.end;
    int64_t *y = opu_alloc_out(g, node, 0, d);
    if (!y)
        return -1;
    for (int64_t i = s; i < e; i++)
        y[i - s] = x->shape.dims[i];
    return 1;
}

/* ---- Size: the element count as an int64 scalar ---- */

static int infer_size(Graph *g, int node, Diag *d)
{
    if (opu_check_arity(g, node, d, 1, 1, 1, 1))
        return -1;
    opu_set_out(g, node, 0, DT_INT64, shape_make(0, NULL));
    return 0;
}

static int eval_size(Graph *g, int node, Diag *d)
{
    Value *x = opu_in(g, node, 0);
    if (!shape_is_static(&x->shape))
        return 0;
    int64_t cnt;
    if (opu_numel(g, node, d, &x->shape, &cnt))
        return -1;
    int64_t *y = opu_alloc_out(g, node, 0, d);
    if (!y)
        return -1;
    *y = cnt;
    return 1;
}

/* ---- ConstantOfShape ---- */

static int infer_cos(Graph *g, int node, Diag *d)
{
    if (opu_check_arity(g, node, d, 1, 1, 1, 1))
        return -1;
    int64_t dims[CTVM_MAX_RANK];
    int n;
    const Value *sv = opu_in(g, node, 0);
    if (!sv->data && sv->producer >= 0 && g->nodes[sv->producer].op == OP_SHAPE && sv->shape.rank == 1) {
        /* the run-time dims of a data-dependent value: bounded by its bound
         * (ops/dynprop.c writes the actual dims) */
        const Node *sn = &g->nodes[sv->producer];
        const Value *src = &g->values[sn->in[0]];
        int64_t s = sn->at.shape.start, e = sn->at.shape.end;
        n = 0;
        for (int64_t i = s; i < e && n < CTVM_MAX_RANK; i++)
            dims[n++] = src->shape.dims[i];
        g->nodes[node].at.shape.shape_runtime = 1;
    } else if (opu_const_ints(g, node, d, 0, dims, CTVM_MAX_RANK, &n))
        return -1;
    for (int i = 0; i < n; i++)
        if (dims[i] < 0)
            return diag_error(d, g, node, "negative dimension %lld", (long long)dims[i]);
    const Attr *a = node_attr(&g->nodes[node], "value");
    DType t = DT_FLOAT32;
    if (a && a->kind == ATTR_TENSOR && a->t) {
        int64_t cnt;
        if (!shape_numel(&a->t->shape, &cnt) || cnt != 1)
            return diag_error(d, g, node, "value must hold one element");
        t = a->t->dtype;
    }
    g->nodes[node].at.shape.value = a && a->kind == ATTR_TENSOR && a->t ? a : NULL;
    Shape out = shape_make(n, dims);
    int64_t cnt;
    if (opu_numel(g, node, d, &out, &cnt))
        return -1;
    opu_set_out(g, node, 0, t, out);
    return 0;
}

static int eval_cos(Graph *g, int node, Diag *d)
{
    Value *yv = opu_out(g, node, 0);
    const Attr *a = g->nodes[node].at.shape.value;
    int64_t cnt;
    if (opu_numel(g, node, d, &yv->shape, &cnt))
        return -1;
    char *y = opu_alloc_out(g, node, 0, d);
    if (!y)
        return -1;
    if (!(a && a->kind == ATTR_TENSOR && a->t))
        return 1; /* default: float32 zeros, already zeroed */
    if (dtype_is_packed(yv->dtype)) {
        int64_t v = tensor_get_i64(yv->dtype, a->t->data, 0);
        if (yv->dtype == DT_FLOAT4E2M1) /* copy the 4-bit code, not a value */
            v = ((const uint8_t *)a->t->data)[0] & 15;
        for (int64_t i = 0; i < cnt; i++) {
            if (yv->dtype == DT_FLOAT4E2M1)
                ((uint8_t *)y)[i / 2] |= (uint8_t)(v << (4 * (i % 2)));
            else
                tensor_set_i64(yv->dtype, y, i, v);
        }
        return 1;
    }
    size_t es = dtype_size(yv->dtype);
    for (int64_t i = 0; i < cnt; i++)
        memcpy(y + (size_t)i * es, a->t->data, es);
    return 1;
}

/* ---- Range ---- */

static int infer_range(Graph *g, int node, Diag *d)
{
    if (opu_check_arity(g, node, d, 3, 3, 1, 1))
        return -1;
    Value *v[3];
    for (int i = 0; i < 3; i++) {
        v[i] = opu_in(g, node, i);
        int64_t cnt;
        if (!value_is_const(v[i]))
            return opu_need_const(g, node, d, i, i == 0 ? "start" : i == 1 ? "limit" : "delta");
        if (!shape_numel(&v[i]->shape, &cnt) || cnt != 1)
            return diag_error(d, g, node, "input %d must be a scalar", i);
        if (v[i]->dtype != v[0]->dtype)
            return diag_error(d, g, node, "inputs differ in dtype");
    }
    DType t = v[0]->dtype;
    int64_t len;
    if (dtype_is_int(t)) {
        int64_t s = tensor_get_i64(t, v[0]->data, 0), l = tensor_get_i64(t, v[1]->data, 0),
                dl = tensor_get_i64(t, v[2]->data, 0);
        if (dl == 0)
            return diag_error(d, g, node, "delta must not be 0");
        /* ceil(|l - s| / |dl|) in uint64: no signed overflow for any int64 bounds */
        uint64_t span = dl > 0 ? (l > s ? (uint64_t)l - (uint64_t)s : 0) : (s > l ? (uint64_t)s - (uint64_t)l : 0);
        uint64_t step = dl > 0 ? (uint64_t)dl : 0 - (uint64_t)dl;
        uint64_t n = span / step + (span % step != 0);
        if (n > (uint64_t)INT64_MAX)
            return diag_error(d, g, node, "the range has 2^63 elements or more; the generated C indexes "
                                          "tensors with int, so at most %lld", (long long)CTVM_MAX_NUMEL);
        len = (int64_t)n;
    } else if (dtype_is_float(t)) {
        double s = tensor_get_f64(t, v[0]->data, 0), l = tensor_get_f64(t, v[1]->data, 0),
               dl = tensor_get_f64(t, v[2]->data, 0);
        if (dl == 0)
            return diag_error(d, g, node, "delta must not be 0");
        double n = ceil((l - s) / dl);
        if (!(n < 1e12))
            return diag_error(d, g, node, "range is too long");
        len = n > 0 ? (int64_t)n : 0;
    } else {
        return diag_error(d, g, node, "dtype %s not supported", dtype_name(t));
    }
    opu_set_out(g, node, 0, t, shape_make(1, &len));
    return 0;
}

static int eval_range(Graph *g, int node, Diag *d)
{
    Value *s = opu_in(g, node, 0), *dl = opu_in(g, node, 2), *yv = opu_out(g, node, 0);
    void *y = opu_alloc_out(g, node, 0, d);
    if (!y)
        return -1;
    DType t = yv->dtype;
    for (int64_t i = 0; i < yv->shape.dims[0]; i++) {
        if (dtype_is_int(t))
            tensor_set_i64(t, y, i, (int64_t)((uint64_t)tensor_get_i64(t, s->data, 0) + /* wraps: no UB */
                                               (uint64_t)i * (uint64_t)tensor_get_i64(t, dl->data, 0)));
        else
            tensor_set_f64(t, y, i, tensor_get_f64(t, s->data, 0) + (double)i * tensor_get_f64(t, dl->data, 0));
    }
    return 1;
}

/* ---- Expand: broadcasting ---- */

static int infer_expand(Graph *g, int node, Diag *d)
{
    if (opu_check_arity(g, node, d, 2, 2, 1, 1))
        return -1;
    Value *x = opu_in(g, node, 0);
    int64_t dims[CTVM_MAX_RANK];
    int n;
    if (opu_const_ints(g, node, d, 1, dims, CTVM_MAX_RANK, &n))
        return -1;
    Shape s = shape_make(n, dims), out;
    if (!shape_broadcast(&x->shape, &s, &out))
        return diag_error(d, g, node, "shapes %s and %s do not broadcast",
                          opu_shape_str(&x->shape), opu_shape_str(&s));
    int64_t cnt;
    if (opu_numel(g, node, d, &out, &cnt))
        return -1;
    opu_set_out(g, node, 0, x->dtype, out);
    return 0;
}

static int eval_expand(Graph *g, int node, Diag *d)
{
    Value *x = opu_in(g, node, 0), *ov = opu_out(g, node, 0);
    int64_t cnt, st[CTVM_MAX_RANK];
    if (opu_numel(g, node, d, &ov->shape, &cnt))
        return -1;
    opu_bcast_strides(&x->shape, &ov->shape, st);
    char *o = opu_alloc_out(g, node, 0, d);
    if (!o)
        return -1;
    size_t es = dtype_size(ov->dtype);
    for (int64_t i = 0; i < cnt; i++)
        memcpy(o + (size_t)i * es,
               (const char *)x->data + (size_t)opu_bcast_offset(&ov->shape, st, i) * es, es);
    return 1;
}

int op_shapeops_infer(Graph *g, int node, Diag *d)
{
    switch (g->nodes[node].op) {
    case OP_CONSTANT: return infer_constant(g, node, d);
    case OP_SHAPE: return infer_shape(g, node, d);
    case OP_SIZE: return infer_size(g, node, d);
    case OP_CONSTANTOFSHAPE: return infer_cos(g, node, d);
    case OP_RANGE: return infer_range(g, node, d);
    case OP_EXPAND: return infer_expand(g, node, d);
    default: return diag_error(d, g, node, "not a shape operator");
    }
}

int op_shapeops_eval(Graph *g, int node, Diag *d)
{
    switch (g->nodes[node].op) {
    case OP_CONSTANT: return eval_constant(g, node, d);
    case OP_SHAPE: return eval_shape(g, node, d);
    case OP_SIZE: return eval_size(g, node, d);
    case OP_CONSTANTOFSHAPE: return eval_cos(g, node, d);
    case OP_RANGE: return eval_range(g, node, d);
    case OP_EXPAND: return eval_expand(g, node, d);
    default: return diag_error(d, g, node, "not a shape operator");
    }
}
