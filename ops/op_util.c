/* op_util.c - helpers shared by the operator families (see op_util.h). */
#include "op_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int opu_check_arity(Graph *g, int node, Diag *d, int min_in, int max_in, int min_out,
                    int max_out)
{
    const Node *n = &g->nodes[node];
    if (n->n_in < min_in || n->n_in > max_in) {
        if (min_in == max_in)
            return diag_error(d, g, node, "expected %d inputs, got %d", min_in, n->n_in);
        return diag_error(d, g, node, "expected %d to %d inputs, got %d", min_in, max_in,
                          n->n_in);
    }
    for (int i = 0; i < min_in; i++)
        if (n->in[i] < 0)
            return diag_error(d, g, node, "required input %d is missing", i);
    if (n->n_out < min_out || n->n_out > max_out)
        return diag_error(d, g, node, "expected %d to %d outputs, got %d", min_out, max_out,
                          n->n_out);
    if (min_out > 0 && n->out[0] < 0)
        return diag_error(d, g, node, "output 0 is missing");
    return 0;
}

int opu_check_all_inputs(Graph *g, int node, Diag *d)
{
    const Node *n = &g->nodes[node];
    for (int i = 0; i < n->n_in; i++)
        if (n->in[i] < 0)
            return diag_error(d, g, node, "input %d is missing (every input of %s is required)", i, n->op_type);
    return 0;
}

Value *opu_in(Graph *g, int node, int i)
{
    return node_input(g, &g->nodes[node], i);
}

Value *opu_out(Graph *g, int node, int i)
{
    const Node *n = &g->nodes[node];
    if (i < 0 || i >= n->n_out || n->out[i] < 0)
        return NULL;
    return &g->values[n->out[i]];
}

void opu_set_out(Graph *g, int node, int i, DType t, Shape s)
{
    Value *v = opu_out(g, node, i);
    if (!v)
        return;
    v->dtype = t;
    v->shape = s;
}

void *opu_alloc_out(Graph *g, int node, int i, Diag *d)
{
    Value *v = opu_out(g, node, i);
    if (!v)
        return NULL;
    int64_t bytes;
    if (!value_bytes(v, &bytes) || (dtype_size(v->dtype) == 0 && !dtype_is_packed(v->dtype))) {
        diag_error(d, g, node, "output %d has no static size", i);
        return NULL;
    }
    if (opu_fold_reserve(g, node, d, bytes) != 0)
        return NULL;
    v->data = arena_alloc(g->arena, bytes ? (size_t)bytes : 1);
    return v->data;
}

int64_t opu_fold_limit(const Graph *g)
{
    if (g->max_fold_bytes > 0)
        return g->max_fold_bytes;
    int64_t scaled, limit;
    if (__builtin_mul_overflow(g->fold_base, (int64_t)CTVM_FOLD_BASE_FACTOR, &scaled) ||
        __builtin_add_overflow(scaled, CTVM_FOLD_MAX_BYTES_DEFAULT, &limit))
        return INT64_MAX;
    return limit;
}

int opu_fold_reserve(Graph *g, int node, Diag *d, int64_t bytes)
{
    int64_t limit = opu_fold_limit(g), total;
    if (bytes >= 0 && !__builtin_add_overflow(g->fold_bytes, bytes, &total) && total <= limit) {
        g->fold_bytes = total;
        return 0;
    }
    char why[160];
    if (g->max_fold_bytes > 0)
        snprintf(why, sizeof why, "set by --max-fold-bytes");
    else
        snprintf(why, sizeof why, "the default: 1 GiB + %d x the model's %lld bytes of constants",
                 CTVM_FOLD_BASE_FACTOR, (long long)g->fold_base);
    return diag_error(d, g, node,
                      "its folded constants take %lld bytes (%lld folded before), over the "
                      "limit of %lld bytes folded per compile (%s); raise it with "
                      "--max-fold-bytes N",
                      (long long)bytes, (long long)g->fold_bytes, (long long)limit, why);
}

int opu_norm_axis(Graph *g, int node, Diag *d, int64_t axis, int rank, const char *what,
                  int *out)
{
    if (axis < -rank || axis >= rank)
        return diag_error(d, g, node, "%s %lld out of range for rank %d", what,
                          (long long)axis, rank);
    *out = (int)(axis < 0 ? axis + rank : axis);
    return 0;
}

/* Graph inputs value vid depends on (through live producers), up to cap. */
static int inputs_behind(const Graph *g, int vid, int *found, int cap)
{
    int n = 0, top = 0;
    int *stack = malloc(sizeof(int) * (size_t)(g->n_values + 1));
    char *seen = calloc((size_t)g->n_values + 1, 1);
    if (!stack || !seen) {
        free(stack);
        free(seen);
        return 0;
    }
    stack[top++] = vid;
    seen[vid] = 1;
    while (top > 0) {
        const Value *v = &g->values[stack[--top]];
        if (v->is_input && !v->data) {
            if (n < cap)
                found[n++] = (int)(v - g->values);
            continue;
        }
        if (v->producer < 0)
            continue;
        const Node *p = &g->nodes[v->producer];
        for (int k = 0; k < p->n_in; k++)
            if (p->in[k] >= 0 && !seen[p->in[k]]) {
                seen[p->in[k]] = 1;
                stack[top++] = p->in[k];
            }
    }
    free(stack);
    free(seen);
    return n;
}

void opu_need_const_msg(const Graph *g, const Node *n, int i, const char *what, char *buf, size_t cap)
{
    const Value *v = i < n->n_in && n->in[i] >= 0 ? &g->values[n->in[i]] : NULL;
    if (!v) {
        snprintf(buf, cap, "input %d (%s) is missing", i, what);
        return;
    }
    int ins[8];
    int k = inputs_behind(g, (int)(v - g->values), ins, 8);
    if (k == 0) {
        snprintf(buf, cap, "input %d ('%s', %s) is computed from data at run time", i, v->name, what);
        return;
    }
    char binds[1024];
    int len = 0;
    for (int j = 0; j < k && len < (int)sizeof binds - 300; j++)
        len += snprintf(binds + len, sizeof binds - (size_t)len, "%s--bind %s=FILE", j ? " " : "",
                        g->values[ins[j]].name);
    snprintf(buf, cap, "input %d ('%s', %s) %s graph input%s: bind %s with %s", i, v->name, what,
             v->is_input ? "is a" : "depends on", k > 1 ? "s" : "", k > 1 ? "them" : "it", binds);
}

int opu_need_const(Graph *g, int node, Diag *d, int i, const char *what)
{
    char why[800];
    opu_need_const_msg(g, &g->nodes[node], i, what, why, sizeof why);
    return diag_error(d, g, node, "%s decides the output shape and must be known at compile time: %s", what, why);
}

int opu_const_ints(Graph *g, int node, Diag *d, int i, int64_t *out, int cap, int *n)
{
    Value *v = opu_in(g, node, i);
    if (!v)
        return diag_error(d, g, node, "input %d is missing", i);
    if (!value_is_const(v))
        return opu_need_const(g, node, d, i, "a shape, axes or sizes input");
    if (v->dtype != DT_INT64 && v->dtype != DT_INT32)
        return diag_error(d, g, node, "input %d must be int64 or int32, not %s", i,
                          dtype_name(v->dtype));
    if (v->shape.rank > 1)
        return diag_error(d, g, node, "input %d must be a scalar or 1-D, got %s", i,
                          opu_shape_str(&v->shape));
    int64_t count;
    if (!shape_numel(&v->shape, &count) || count > cap)
        return diag_error(d, g, node, "input %d has too many elements", i);
    for (int64_t k = 0; k < count; k++)
        out[k] = tensor_get_i64(v->dtype, v->data, k);
    *n = (int)count;
    return 0;
}

int opu_numel(Graph *g, int node, Diag *d, const Shape *s, int64_t *n)
{
    if (!shape_numel(s, n))
        return diag_error(d, g, node, "shape %s is not static or too large", opu_shape_str(s));
    return 0;
}

void opu_bcast_strides(const Shape *in, const Shape *out, int64_t *st)
{
    int64_t acc = 1;
    for (int i = out->rank - 1; i >= 0; i--) {
        int k = i - (out->rank - in->rank);
        if (k < 0) {
            st[i] = 0;
            continue;
        }
        st[i] = in->dims[k] == 1 ? 0 : acc;
        acc *= in->dims[k];
    }
}

int64_t opu_bcast_offset(const Shape *out, const int64_t *st, int64_t flat)
{
    int64_t off = 0;
    for (int i = out->rank - 1; i >= 0; i--) {
        int64_t dim = out->dims[i];
        if (dim <= 0)
            return 0;
        off += (flat % dim) * st[i];
        flat /= dim;
    }
    return off;
}

int opu_is_float(DType t)
{
    return t == DT_FLOAT32 || t == DT_FLOAT64;
}

int opu_is_int(DType t)
{
    return t == DT_INT64 || t == DT_INT32 || t == DT_INT8 || t == DT_UINT8;
}

void opu_set_string(Graph *g, int node, const char *name, const char *s)
{
    Node *n = &g->nodes[node];
    for (int i = 0; i < n->n_attrs; i++)
        if (strcmp(n->attrs[i].name, name) == 0 && n->attrs[i].kind == ATTR_STRING)
            n->attrs[i].s = arena_strdup(g->arena, s);
}

const char *opu_shape_str(const Shape *s)
{
    static char ring[4][128];
    static int next;
    char *buf = ring[next];
    next = (next + 1) % 4;
    return shape_str(s, buf, (int)sizeof ring[0]);
}

void opu_axis_view(const Shape *s, int axis, int64_t *outer, int64_t *len, int64_t *inner)
{
    *outer = 1;
    *len = s->dims[axis];
    *inner = 1;
    for (int i = 0; i < s->rank; i++) {
        if (i < axis)
            *outer *= s->dims[i];
        else if (i > axis)
            *inner *= s->dims[i];
    }
}
