/* binary.c - elementwise two-input arithmetic with numpy broadcasting: Add,
 * Sub, Mul, Div.
 *
 * Both inputs must have the same dtype (float32/float64 or an integer type,
 * so shape arithmetic folds); the output has the broadcast shape. Integer Div
 * truncates toward zero like C (and ONNX Runtime); an integer division by
 * zero is not folded. No attributes. */
#include "ops/op_util.h"
#include "ops/ops.h"

int op_binary_infer(Graph *g, int node, Diag *d)
{
    if (opu_check_arity(g, node, d, 2, 2, 1, 1))
        return -1;
    Value *a = opu_in(g, node, 0), *b = opu_in(g, node, 1);
    if (a->dtype != b->dtype)
        return diag_error(d, g, node, "input dtypes %s and %s differ", dtype_name(a->dtype),
                          dtype_name(b->dtype));
    if (!opu_is_float(a->dtype) && !opu_is_int(a->dtype))
        return diag_error(d, g, node, "dtype %s not supported", dtype_name(a->dtype));
    Shape out;
    if (!shape_broadcast(&a->shape, &b->shape, &out))
        return diag_error(d, g, node, "shapes %s and %s do not broadcast",
                          opu_shape_str(&a->shape), opu_shape_str(&b->shape));
    opu_set_out(g, node, 0, a->dtype, out);
    return 0;
}

int op_binary_eval(Graph *g, int node, Diag *d)
{
    const Node *n = &g->nodes[node];
    Value *a = opu_in(g, node, 0), *b = opu_in(g, node, 1), *y = opu_out(g, node, 0);
    int64_t count, sa[CTVM_MAX_RANK], sb[CTVM_MAX_RANK];
    if (opu_numel(g, node, d, &y->shape, &count))
        return -1;
    opu_bcast_strides(&a->shape, &y->shape, sa);
    opu_bcast_strides(&b->shape, &y->shape, sb);
    DType t = a->dtype;
    if (n->op == OP_DIV && opu_is_int(t))
        for (int64_t i = 0; i < count; i++)
            if (tensor_get_i64(t, b->data, opu_bcast_offset(&y->shape, sb, i)) == 0)
                return 0;
    void *out = opu_alloc_out(g, node, 0, d);
    if (!out)
        return -1;
    for (int64_t i = 0; i < count; i++) {
        int64_t ia = opu_bcast_offset(&y->shape, sa, i), ib = opu_bcast_offset(&y->shape, sb, i);
        if (t == DT_FLOAT32) {
            float x = ((const float *)a->data)[ia], z = ((const float *)b->data)[ib], r;
            switch (n->op) {
            case OP_ADD: r = x + z; break;
            case OP_SUB: r = x - z; break;
            case OP_MUL: r = x * z; break;
            default: r = x / z; break;
            }
            ((float *)out)[i] = r;
        } else if (opu_is_float(t)) {
            double x = tensor_get_f64(t, a->data, ia), z = tensor_get_f64(t, b->data, ib), r;
            switch (n->op) {
            case OP_ADD: r = x + z; break;
            case OP_SUB: r = x - z; break;
            case OP_MUL: r = x * z; break;
            default: r = x / z; break;
            }
            tensor_set_f64(t, out, i, r);
        } else {
            int64_t x = tensor_get_i64(t, a->data, ia), z = tensor_get_i64(t, b->data, ib), r;
            switch (n->op) {
            case OP_ADD: r = (int64_t)((uint64_t)x + (uint64_t)z); break;
            case OP_SUB: r = (int64_t)((uint64_t)x - (uint64_t)z); break;
            case OP_MUL: r = (int64_t)((uint64_t)x * (uint64_t)z); break;
            default: r = (x == INT64_MIN && z == -1) ? x : x / z; break;
            }
            tensor_set_i64(t, out, i, r);
        }
    }
    return 1;
}
