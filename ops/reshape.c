/* reshape.c - operators that keep the bytes and change only the shape:
 * Reshape, Flatten, Squeeze, Unsqueeze, Identity (versions 1..25; later
 * versions only add types, and every tensor type works); any dtype. Eval copies the bytes (the back end turns them into views).
 *
 * Reshape: shape from constant input 1 (the "shape" attribute before opset
 * 5); 0 copies the input dim (unless allowzero = 1), one -1 is inferred.
 * Flatten: "axis" in [0, rank] after infer (default 1, negative allowed).
 * Squeeze/Unsqueeze: axes from the attribute (opset < 13) or constant input
 * 1 (opset >= 13); after infer "axes" holds them >= 0 and sorted (Squeeze
 * without axes removes every dim of size 1; Unsqueeze axes refer to the
 * output rank). */
#include <stdlib.h>
#include <string.h>

#include "ops/op_util.h"
#include "ops/ops.h"

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static int set_checked(Graph *g, int node, Diag *d, const Value *x, Shape out)
{
    int64_t nx, ny;
    if (opu_numel(g, node, d, &x->shape, &nx) || opu_numel(g, node, d, &out, &ny))
        return -1;
    if (nx != ny)
        return diag_error(d, g, node, "cannot reshape %s (%lld elements) to %s",
                          opu_shape_str(&x->shape), (long long)nx, opu_shape_str(&out));
    opu_set_out(g, node, 0, x->dtype, out);
    return 0;
}

static int infer_reshape(Graph *g, int node, Diag *d, Value *x)
{
    Node *n = &g->nodes[node];
    int64_t sh[CTVM_MAX_RANK];
    int ns = 0;
    if (g->nodes[node].version >= 5) {
        if (opu_check_arity(g, node, d, 2, 2, 1, 1) ||
            opu_const_ints(g, node, d, 1, sh, CTVM_MAX_RANK, &ns))
            return -1;
    } else {
        const int64_t *a = attr_ints(n, "shape", &ns);
        if (!a || ns > CTVM_MAX_RANK)
            return diag_error(d, g, node, "attribute shape missing or too long");
        memcpy(sh, a, (size_t)ns * sizeof(int64_t));
    }
    int allowzero = attr_int(n, "allowzero", 0) != 0, infer_at = -1;
    Shape out = shape_unknown();
    out.rank = ns;
    int64_t known = 1, nx;
    if (opu_numel(g, node, d, &x->shape, &nx))
        return -1;
    for (int i = 0; i < ns; i++) {
        int64_t v = sh[i];
        if (v == 0 && !allowzero) {
            if (i >= x->shape.rank)
                return diag_error(d, g, node, "shape entry %d is 0 but the input has rank %d", i,
                                  x->shape.rank);
            v = x->shape.dims[i];
        }
        if (v == -1) {
            if (infer_at >= 0)
                return diag_error(d, g, node, "more than one -1 in shape");
            infer_at = i;
            continue;
        }
        if (v < 0)
            return diag_error(d, g, node, "invalid shape entry %lld", (long long)v);
        out.dims[i] = v;
        if (!i64_mul(known, v, &known))
            return diag_error(d, g, node, "shape overflows");
    }
    if (infer_at >= 0) {
        if (known == 0 || nx % known)
            return diag_error(d, g, node, "cannot infer -1: %lld elements into %lld",
                              (long long)nx, (long long)known);
        out.dims[infer_at] = nx / known;
    }
    return set_checked(g, node, d, x, out);
}

static int infer_flatten(Graph *g, int node, Diag *d, Value *x)
{
    if (opu_check_arity(g, node, d, 1, 1, 1, 1))
        return -1;
    int rank = x->shape.rank;
    int64_t axis = attr_int(&g->nodes[node], "axis", 1);
    if (axis < -rank || axis > rank)
        return diag_error(d, g, node, "axis %lld out of range for rank %d", (long long)axis, rank);
    if (axis < 0)
        axis += rank;
    int64_t dims[2] = {1, 1};
    for (int i = 0; i < rank; i++)
        if (!i64_mul(dims[i >= axis], x->shape.dims[i], &dims[i >= axis]))
            return diag_error(d, g, node, "shape overflows");
    node_set_int(g, node, "axis", axis);
    return set_checked(g, node, d, x, shape_make(2, dims));
}

static int read_axes(Graph *g, int node, Diag *d, int64_t *ax, int *na)
{
    *na = -1;
    if (g->nodes[node].version >= 13) {
        if (!opu_in(g, node, 1))
            return 0;
        return opu_const_ints(g, node, d, 1, ax, CTVM_MAX_RANK, na);
    }
    const int64_t *a = attr_ints(&g->nodes[node], "axes", na);
    if (!a) {
        *na = -1;
        return 0;
    }
    if (*na > CTVM_MAX_RANK)
        return diag_error(d, g, node, "too many axes");
    memcpy(ax, a, (size_t)*na * sizeof(int64_t));
    return 0;
}

static int infer_squeeze(Graph *g, int node, Diag *d, Value *x, int unsqueeze)
{
    if (opu_check_arity(g, node, d, 1, g->nodes[node].version >= 13 ? 2 : 1, 1, 1))
        return -1;
    int64_t ax[CTVM_MAX_RANK];
    int na, rank = x->shape.rank;
    if (read_axes(g, node, d, ax, &na))
        return -1;
    int out_rank = unsqueeze ? rank + (na > 0 ? na : 0) : rank;
    if (unsqueeze && na < 0)
        return diag_error(d, g, node, "axes are required");
    if (out_rank > CTVM_MAX_RANK)
        return diag_error(d, g, node, "result rank %d exceeds %d", out_rank, CTVM_MAX_RANK);
    int mark[CTVM_MAX_RANK] = {0};
    if (na < 0) {
        na = 0;
        for (int i = 0; i < rank; i++)
            if (x->shape.dims[i] == 1)
                ax[na++] = i;
    }
    for (int i = 0; i < na; i++) {
        int a;
        if (opu_norm_axis(g, node, d, ax[i], out_rank, "axis", &a))
            return -1;
        if (mark[a]++)
            return diag_error(d, g, node, "axis %d repeated", a);
        if (!unsqueeze && x->shape.dims[a] != 1)
            return diag_error(d, g, node, "cannot squeeze axis %d of size %lld", a,
                              (long long)x->shape.dims[a]);
        ax[i] = a;
    }
    qsort(ax, (size_t)na, sizeof(int64_t), cmp_i64);
    Shape out = shape_unknown();
    out.rank = 0;
    if (unsqueeze) {
        for (int i = 0, k = 0; i < out_rank; i++)
            out.dims[out.rank++] = mark[i] ? 1 : x->shape.dims[k++];
    } else {
        for (int i = 0; i < rank; i++)
            if (!mark[i])
                out.dims[out.rank++] = x->shape.dims[i];
    }
    node_set_ints(g, node, "axes", ax, na);
    return set_checked(g, node, d, x, out);
}

int op_reshape_infer(Graph *g, int node, Diag *d)
{
    Node *n = &g->nodes[node];
    if (n->n_in < 1 || n->in[0] < 0)
        return diag_error(d, g, node, "input 0 is missing");
    Value *x = opu_in(g, node, 0);
    switch (n->op) {
    case OP_RESHAPE: return infer_reshape(g, node, d, x);
    case OP_FLATTEN: return infer_flatten(g, node, d, x);
    case OP_SQUEEZE: return infer_squeeze(g, node, d, x, 0);
    case OP_UNSQUEEZE: return infer_squeeze(g, node, d, x, 1);
    default:
        if (opu_check_arity(g, node, d, 1, 1, 1, 1))
            return -1;
        opu_set_out(g, node, 0, x->dtype, x->shape);
        return 0;
    }
}

int op_reshape_eval(Graph *g, int node, Diag *d)
{
    Value *x = opu_in(g, node, 0);
    int64_t bytes;
    if (!value_bytes(x, &bytes))
        return diag_error(d, g, node, "input has no static size");
    void *y = opu_alloc_out(g, node, 0, d);
    if (!y)
        return -1;
    memcpy(y, x->data, (size_t)bytes);
    return 1;
}
