/* split.c - Split one tensor into n_out parts along an axis; any dtype.
 *
 * Versions 1..18. Part sizes come from the "split" attribute (versions 1,
 * 2, 11), the optional constant input 1 (version 1, and 13 on); without
 * them the axis is divided equally, and from version 18 ("num_outputs",
 * which must match the outputs) an uneven axis gets ceil-sized parts with
 * a smaller last one. Constant inputs fold by byte copies (packed types
 * through the compute definition, compute_copy.c).
 * After infer "axis" >= 0 and "split" holds every part's size. */
#include <string.h>

#include "ops/op_util.h"
#include "ops/ops.h"

enum { MAX_PARTS = 1024 };

int op_split_infer(Graph *g, int node, Diag *d)
{
    Node *n = &g->nodes[node];
    int v = n->version;
    if (opu_check_arity(g, node, d, 1, v >= 13 || v == 1 ? 2 : 1, 1, MAX_PARTS))
        return -1;
    Value *x = opu_in(g, node, 0);
    if (!dtype_supported(x->dtype) || x->dtype == DT_STRING)
        return diag_error(d, g, node, "input type %s is not supported", dtype_name(x->dtype));
    const Attr *no = v >= 18 ? node_attr(n, "num_outputs") : NULL;
    if (no && no->i != n->n_out)
        return diag_error(d, g, node, "num_outputs is %lld but the node has %d outputs",
                          (long long)no->i, n->n_out);
    int axis, ns = 0, parts = n->n_out;
    if (opu_norm_axis(g, node, d, attr_int(n, "axis", 0), x->shape.rank, "axis", &axis))
        return -1;
    int64_t dim = x->shape.dims[axis];
    int64_t sizes[MAX_PARTS];
    if (v >= 13 || (v == 1 && opu_in(g, node, 1))) {
        if (opu_in(g, node, 1) && opu_const_ints(g, node, d, 1, sizes, MAX_PARTS, &ns))
            return -1;
        if (no && opu_in(g, node, 1))
            return diag_error(d, g, node, "num_outputs and the split input are exclusive");
    } else {
        const int64_t *s = attr_ints(n, "split", &ns);
        if (s && ns <= MAX_PARTS)
            memcpy(sizes, s, (size_t)ns * sizeof(int64_t));
        if (!s)
            ns = 0;
    }
    if (ns == 0) {
        int64_t chunk = (dim + parts - 1) / parts;
        if (dim % parts && v < 18)
            return diag_error(d, g, node, "axis of size %lld does not split into %d equal parts",
                              (long long)dim, parts);
        for (int i = 0; i < parts; i++) {
            int64_t left = dim - chunk * i;
            sizes[i] = left < 0 ? 0 : left < chunk ? left : chunk;
        }
        ns = parts;
    }
    if (ns != parts)
        return diag_error(d, g, node, "split has %d sizes for %d outputs", ns, parts);
    int64_t sum = 0;
    for (int i = 0; i < ns; i++) {
        if (sizes[i] < 0)
            return diag_error(d, g, node, "negative split size %lld", (long long)sizes[i]);
        if (__builtin_add_overflow(sum, sizes[i], &sum))
            return diag_error(d, g, node, "split sizes add up to more than 2^63, axis has %lld", (long long)dim);
    }
    if (sum != dim)
        return diag_error(d, g, node, "split sizes add up to %lld, axis has %lld",
                          (long long)sum, (long long)dim);
    node_set_int(g, node, "axis", axis);
    node_set_ints(g, node, "split", sizes, ns);
    int64_t *kept = arena_array(g->arena, (size_t)ns, sizeof *kept);
    if (!kept)
        return diag_error(d, g, node, "out of memory");
    memcpy(kept, sizes, (size_t)ns * sizeof *kept);
    g->nodes[node].at.axis = (AxisAttrs){.axis = axis, .n_split = ns, .split = kept};
    for (int i = 0; i < parts; i++) {
        Shape s = x->shape;
        s.dims[axis] = sizes[i];
        opu_set_out(g, node, i, x->dtype, s);
    }
    return 0;
}

int op_split_eval(Graph *g, int node, Diag *d)
{
    const Node *n = &g->nodes[node];
    Value *x = opu_in(g, node, 0);
    int axis = n->at.axis.axis;
    const int64_t *sizes = n->at.axis.split;
    size_t es = dtype_size(x->dtype);
    if (dtype_is_packed(x->dtype))
        return OPS_EVAL_BY_COMPUTE;
    int64_t outer = 1, inner = 1;
    for (int k = 0; k < x->shape.rank; k++) {
        if (k < axis)
            outer *= x->shape.dims[k];
        if (k > axis)
            inner *= x->shape.dims[k];
    }
    int64_t row = x->shape.dims[axis] * inner, at = 0;
    for (int i = 0; i < n->n_out; i++) {
        int64_t chunk = sizes[i] * inner;
        char *y = NULL;
        if (opu_out(g, node, i) && !(y = opu_alloc_out(g, node, i, d)))
            return -1;
        for (int64_t o = 0; y && o < outer; o++)
            memcpy(y + (size_t)(o * chunk) * es, (const char *)x->data + (size_t)(o * row + at) * es,
                   (size_t)chunk * es);
        at += chunk;
    }
    return 1;
}
