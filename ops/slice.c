/* slice.c - Slice (versions 1, 10, 11, 13) with per-axis starts, ends,
 * steps; any dtype (packed sub-byte constants fold through the compute
 * definition, compute_copy.c).
 *
 * Version 1: "starts", "ends", "axes" attributes, step 1. Versions >= 10:
 * inputs starts, ends, axes (optional), steps (optional), all constant.
 * Negative starts/ends count from the end; then (ONNX rules) for step > 0
 * start and end are clamped to [0, dim]; for step < 0 start is clamped to
 * [0, dim-1] and end to [-1, dim-1], where end = -1 means "past the first
 * element" and is final (never counted from the end again).
 * After infer "starts", "ends", "steps" hold rank entries each, one per
 * dimension, clamped as above (untouched dimensions: 0, dim, 1), and "axes"
 * is 0..rank-1. Output dim = max(0, ceil((end - start) / step)). */
#include <string.h>

#include "ops/op_util.h"
#include "ops/ops.h"

static int read_list(Graph *g, int node, Diag *d, int input, const char *attr, int64_t *out,
                     int *n)
{
    if (g->nodes[node].version >= 10) {
        if (!opu_in(g, node, input)) {
            *n = -1;
            return 0;
        }
        return opu_const_ints(g, node, d, input, out, CTVM_MAX_RANK, n);
    }
    const int64_t *a = attr_ints(&g->nodes[node], attr, n);
    if (!a) {
        *n = -1;
        return 0;
    }
    if (*n > CTVM_MAX_RANK)
        return diag_error(d, g, node, "%s has too many entries", attr);
    memcpy(out, a, (size_t)*n * sizeof(int64_t));
    return 0;
}

static int64_t clamp(int64_t v, int64_t lo, int64_t hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

int op_slice_infer(Graph *g, int node, Diag *d)
{
    if (opu_check_arity(g, node, d, g->nodes[node].version >= 10 ? 3 : 1, g->nodes[node].version >= 10 ? 5 : 1, 1, 1))
        return -1;
    Value *x = opu_in(g, node, 0);
    if (!dtype_supported(x->dtype) || x->dtype == DT_STRING)
        return diag_error(d, g, node, "input type %s is not supported", dtype_name(x->dtype));
    int rank = x->shape.rank, ns, ne, na, nst;
    int64_t st[CTVM_MAX_RANK], en[CTVM_MAX_RANK], ax[CTVM_MAX_RANK], sp[CTVM_MAX_RANK];
    if (read_list(g, node, d, 1, "starts", st, &ns) || read_list(g, node, d, 2, "ends", en, &ne) ||
        read_list(g, node, d, 3, "axes", ax, &na) || read_list(g, node, d, 4, "steps", sp, &nst))
        return -1;
    if (ns < 0 || ne < 0)
        return diag_error(d, g, node, "starts and ends are required");
    if (ne != ns || (na >= 0 && na != ns) || (nst >= 0 && nst != ns))
        return diag_error(d, g, node, "starts, ends, axes and steps differ in length");
    int64_t S[CTVM_MAX_RANK], E[CTVM_MAX_RANK], P[CTVM_MAX_RANK], A[CTVM_MAX_RANK];
    int seen[CTVM_MAX_RANK] = {0};
    for (int i = 0; i < rank; i++) {
        S[i] = 0;
        E[i] = x->shape.dims[i];
        P[i] = 1;
        A[i] = i;
    }
    Shape out = x->shape;
    for (int i = 0; i < ns; i++) {
        int a;
        if (opu_norm_axis(g, node, d, na >= 0 ? ax[i] : i, rank, "axis", &a))
            return -1;
        if (seen[a]++)
            return diag_error(d, g, node, "axis %d repeated", a);
        int64_t dim = x->shape.dims[a], step = nst >= 0 ? sp[i] : 1, s = st[i], e = en[i];
        if (step == 0)
            return diag_error(d, g, node, "step must not be 0");
        if (step < -INT64_MAX)
            step = -INT64_MAX;
        if (s < 0)
            s += dim;
        if (e < 0)
            e += dim;
        if (step > 0) {
            s = clamp(s, 0, dim);
            e = clamp(e, 0, dim);
        } else {
            s = clamp(s, 0, dim - 1);
            e = clamp(e, -1, dim - 1);
        }
        S[a] = s;
        E[a] = e;
        P[a] = step;
    }
    for (int i = 0; i < rank; i++) {
        if (P[i] > 0)
            out.dims[i] = E[i] > S[i] ? 1 + (E[i] - S[i] - 1) / P[i] : 0;
        else
            out.dims[i] = S[i] > E[i] ? 1 + (S[i] - E[i] - 1) / -P[i] : 0;
    }
    /* opset < 10 reads these back on a second inference: keep them a fixed point */
    node_set_ints(g, node, "starts", S, rank);
    node_set_ints(g, node, "ends", E, rank);
    node_set_ints(g, node, "steps", P, rank);
    node_set_ints(g, node, "axes", A, rank);
    SliceAttrs *sa = &g->nodes[node].at.slice;
    for (int i = 0; i < rank; i++) {
        sa->starts[i] = S[i];
        sa->ends[i] = E[i];
        sa->steps[i] = P[i];
    }
    opu_set_out(g, node, 0, x->dtype, out);
    return 0;
}

int op_slice_eval(Graph *g, int node, Diag *d)
{
    const Node *n = &g->nodes[node];
    Value *x = opu_in(g, node, 0), *yv = opu_out(g, node, 0);
    const int64_t *S = n->at.slice.starts, *P = n->at.slice.steps;
    size_t es = dtype_size(x->dtype);
    if (dtype_is_packed(x->dtype))
        return OPS_EVAL_BY_COMPUTE;
    int64_t total, xs[CTVM_MAX_RANK];
    if (opu_numel(g, node, d, &yv->shape, &total))
        return -1;
    shape_strides(&x->shape, xs);
    char *y = opu_alloc_out(g, node, 0, d);
    if (!y)
        return -1;
    for (int64_t f = 0; f < total; f++) {
        int64_t rem = f, src = 0;
        for (int i = yv->shape.rank - 1; i >= 0; i--) {
            int64_t c = rem % yv->shape.dims[i];
            rem /= yv->shape.dims[i];
            src += (S[i] + c * P[i]) * xs[i];
        }
        memcpy(y + (size_t)f * es, (const char *)x->data + (size_t)src * es, es);
    }
    return 1;
}
