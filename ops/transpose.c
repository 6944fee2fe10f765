/* transpose.c - Transpose (versions 1..25) by a permutation (default:
 * reversed axes); any dtype, the packed 4- and 2-bit ones included (their
 * constants fold through the compute definition, compute_copy.c). After infer "perm" is explicit: output dim i = input dim perm[i]. */
#include <string.h>

#include "ops/op_util.h"
#include "ops/ops.h"

int op_transpose_infer(Graph *g, int node, Diag *d)
{
    Node *n = &g->nodes[node];
    if (opu_check_arity(g, node, d, 1, 1, 1, 1))
        return -1;
    Value *x = opu_in(g, node, 0);
    if (!dtype_supported(x->dtype) || x->dtype == DT_STRING)
        return diag_error(d, g, node, "input type %s is not supported", dtype_name(x->dtype));
    int rank = x->shape.rank, np = 0, seen[CTVM_MAX_RANK] = {0};
    int64_t perm[CTVM_MAX_RANK];
    const int64_t *p = attr_ints(n, "perm", &np);
    if (p && np != rank)
        return diag_error(d, g, node, "perm has %d entries for rank %d", np, rank);
    Shape out = x->shape;
    for (int i = 0; i < rank; i++) {
        int64_t a = p ? p[i] : rank - 1 - i;
        if (a < 0 || a >= rank || seen[a]++)
            return diag_error(d, g, node, "perm is not a permutation of 0..%d", rank - 1);
        perm[i] = a;
        out.dims[i] = x->shape.dims[a];
    }
    node_set_ints(g, node, "perm", perm, rank);
    memcpy(n->at.transpose.perm, perm, (size_t)rank * sizeof perm[0]);
    opu_set_out(g, node, 0, x->dtype, out);
    return 0;
}

int op_transpose_eval(Graph *g, int node, Diag *d)
{
    const Node *n = &g->nodes[node];
    Value *x = opu_in(g, node, 0), *yv = opu_out(g, node, 0);
    const int64_t *perm = n->at.transpose.perm;
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
            src += (rem % yv->shape.dims[i]) * xs[perm[i]];
            rem /= yv->shape.dims[i];
        }
        memcpy(y + (size_t)f * es, (const char *)x->data + (size_t)src * es, es);
    }
    return 1;
}
