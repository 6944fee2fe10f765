/* index_util.c - index tensors shared by the gathers and the scatters:
 * compile-time checks of constant indices and the clamped run-time index
 * load (see index_util.h). */
#include "ops/index_util.h"

#include "ops/op_util.h"

int idx_check(Graph *g, int node, Diag *d, int in, const int64_t *dims, int row)
{
    Value *iv = opu_in(g, node, in);
    if (iv->dtype != DT_INT64 && iv->dtype != DT_INT32)
        return diag_error(d, g, node, "indices must be int64 or int32, not %s", dtype_name(iv->dtype));
    if (!value_is_const(iv))
        return 0;
    int64_t cnt;
    if (opu_numel(g, node, d, &iv->shape, &cnt))
        return -1;
    for (int64_t k = 0; k < cnt; k++) {
        int64_t j = tensor_get_i64(iv->dtype, iv->data, k), dim = dims[row > 1 ? k % row : 0];
        if (j < -dim || j >= dim)
            return diag_error(d, g, node, "index %lld out of range for an axis of size %lld",
                              (long long)j, (long long)dim);
    }
    return 0;
}

int idx_read_axis(Graph *g, int node, Diag *d, int *axis)
{
    Value *x = opu_in(g, node, 0);
    if (opu_norm_axis(g, node, d, attr_int(&g->nodes[node], "axis", 0), x->shape.rank, "axis", axis))
        return -1;
    return idx_check(g, node, d, 1, &x->shape.dims[*axis], 1);
}

int idx_check_elements(Graph *g, int node, Diag *d, const Value *iv, const Value *x, int axis,
                       const char *empty_msg)
{
    for (int i = 0; i < x->shape.rank; i++)
        if (i != axis && iv->shape.dims[i] > x->shape.dims[i])
            return diag_error(d, g, node, "indices %s exceed data %s on axis %d",
                              opu_shape_str(&iv->shape), opu_shape_str(&x->shape), i);
    int64_t cnt;
    if (opu_numel(g, node, d, &iv->shape, &cnt))
        return -1;
    if (cnt > 0 && x->shape.dims[axis] == 0)
        return diag_error(d, g, node, "%s", empty_msg);
    return 0;
}

Expr *idx_load_clamped(LoopBuilder *lb, LBuf *ib, Expr *flat, int64_t dim)
{
    Expr *k = lx_cast(lb, LT_I64, lx_load(lb, ib, flat));
    k = lx_select(lb, lx_bin(lb, BO_LT, k, lx_const_i(lb, LT_I64, 0)),
                  lx_add(lb, k, lx_const_i(lb, LT_I64, dim)), k);
    k = lx_bin(lb, BO_MIN, lx_bin(lb, BO_MAX, k, lx_const_i(lb, LT_I64, 0)),
               lx_const_i(lb, LT_I64, dim > 0 ? dim - 1 : 0));
    return lx_cast(lb, LT_IDX, k);
}
