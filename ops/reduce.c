/* reduce.c - ReduceMean, ReduceSum, ReduceMax over a set of axes.
 *
 * Axes come from the "axes" attribute, or from constant input 1 where the
 * opset moved them there (ReduceSum >= 13, ReduceMean/ReduceMax >= 18).
 * Absent or empty axes reduce every axis unless noop_with_empty_axes = 1,
 * which makes the op an identity. After infer: "axes" ints >= 0, sorted and
 * unique (empty only for the identity case), "keepdims" and
 * "noop_with_empty_axes" explicit. float32/float64 for all three; integer
 * types for ReduceSum and ReduceMax (shape arithmetic). */
#include <float.h>
#include <stdlib.h>

#include "ops/op_util.h"
#include "ops/ops.h"

static int axes_from_input(const Node *n)
{
    return n->op == OP_REDUCESUM ? n->version >= 13 : n->version >= 18;
}

int op_reduce_infer(Graph *g, int node, Diag *d)
{
    Node *n = &g->nodes[node];
    int from_input = axes_from_input(n);
    if (opu_check_arity(g, node, d, 1, from_input ? 2 : 1, 1, 1))
        return -1;
    Value *x = opu_in(g, node, 0);
    if (!opu_is_float(x->dtype) && !(n->op != OP_REDUCEMEAN && opu_is_int(x->dtype)))
        return diag_error(d, g, node, "dtype %s not supported", dtype_name(x->dtype));
    int rank = x->shape.rank, na = 0;
    int64_t raw[CTVM_MAX_RANK * 2];
    if (from_input) {
        if (opu_in(g, node, 1) &&
            opu_const_ints(g, node, d, 1, raw, CTVM_MAX_RANK * 2, &na))
            return -1;
    } else {
        const int64_t *a = attr_ints(n, "axes", &na);
        if (a && na > CTVM_MAX_RANK * 2)
            return diag_error(d, g, node, "too many axes");
        for (int i = 0; a && i < na; i++)
            raw[i] = a[i];
        if (!a)
            na = 0;
    }
    int64_t keep = attr_int(n, "keepdims", 1) != 0;
    int64_t noop = attr_int(n, "noop_with_empty_axes", 0) != 0;
    int mark[CTVM_MAX_RANK] = {0};
    for (int i = 0; i < na; i++) {
        int a;
        if (opu_norm_axis(g, node, d, raw[i], rank, "axis", &a))
            return -1;
        mark[a] = 1;
    }
    if (na == 0 && !noop)
        for (int i = 0; i < rank; i++)
            mark[i] = 1;
    int64_t axes[CTVM_MAX_RANK];
    int nax = 0;
    Shape out = shape_unknown();
    out.rank = 0;
    for (int i = 0; i < rank; i++) {
        if (mark[i])
            axes[nax++] = i;
        if (!mark[i])
            out.dims[out.rank++] = x->shape.dims[i];
        else if (keep)
            out.dims[out.rank++] = 1;
        if (mark[i] && x->shape.dims[i] == 0 && n->op == OP_REDUCEMAX)
            return diag_error(d, g, node, "ReduceMax over an empty axis");
    }
    node_set_ints(g, node, "axes", axes, nax);
    node_set_int(g, node, "keepdims", keep);
    node_set_int(g, node, "noop_with_empty_axes", noop);
    opu_set_out(g, node, 0, x->dtype, out);
    return 0;
}

int op_reduce_eval(Graph *g, int node, Diag *d)
{
    const Node *n = &g->nodes[node];
    Value *xv = opu_in(g, node, 0);
    int nax = 0;
    const int64_t *axes = attr_ints(n, "axes", &nax);
    int mark[CTVM_MAX_RANK] = {0};
    for (int i = 0; i < nax; i++)
        mark[axes[i]] = 1;
    int rank = xv->shape.rank;
    int64_t total, ostride[CTVM_MAX_RANK], acc = 1, red = 1;
    if (opu_numel(g, node, d, &xv->shape, &total))
        return -1;
    /* output index of an input element: drop the reduced coordinates */
    for (int i = rank - 1; i >= 0; i--) {
        ostride[i] = mark[i] ? 0 : acc;
        if (!mark[i])
            acc *= xv->shape.dims[i];
        else
            red *= xv->shape.dims[i];
    }
    int64_t nout = acc;
    double *sum = calloc((size_t)(nout ? nout : 1), sizeof(double));
    char *seen = calloc((size_t)(nout ? nout : 1), 1);
    if (!sum || !seen) {
        free(sum);
        free(seen);
        return diag_error(d, g, node, "out of memory");
    }
    int is_max = n->op == OP_REDUCEMAX;
    for (int64_t f = 0; f < total; f++) {
        int64_t rem = f, o = 0;
        for (int i = rank - 1; i >= 0; i--) {
            o += (rem % xv->shape.dims[i]) * ostride[i];
            rem /= xv->shape.dims[i];
        }
        double v = tensor_get_f64(xv->dtype, xv->data, f);
        if (is_max)
            sum[o] = !seen[o] || v > sum[o] ? v : sum[o];
        else
            sum[o] += v;
        seen[o] = 1;
    }
    void *y = opu_alloc_out(g, node, 0, d);
    if (y)
        for (int64_t o = 0; o < nout; o++) {
            double v = n->op == OP_REDUCEMEAN ? (red ? sum[o] / (double)red : 0) : sum[o];
            tensor_set_f64(xv->dtype, y, o, v);
        }
    free(sum);
    free(seen);
    return y ? 1 : -1;
}
