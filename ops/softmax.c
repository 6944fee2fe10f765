/* softmax.c - Softmax, float32.
 *
 * Opset >= 13: softmax along one axis (default -1). Opset < 13: the input is
 * coerced to 2-D [prod(dims[:axis]), prod(dims[axis:])] (axis default 1) and
 * softmax runs along the second dimension. After infer "axis" >= 0 and
 * "coerce2d" is 1 for the opset < 13 semantics, 0 otherwise. The reference
 * subtracts the maximum before exponentiating. */
#include <math.h>

#include "ops/op_util.h"
#include "ops/ops.h"

int op_softmax_infer(Graph *g, int node, Diag *d)
{
    Node *n = &g->nodes[node];
    if (opu_check_arity(g, node, d, 1, 1, 1, 1))
        return -1;
    Value *x = opu_in(g, node, 0);
    if (x->dtype != DT_FLOAT32)
        return diag_error(d, g, node, "only float32 is supported");
    int coerce = g->nodes[node].version < 13, axis;
    if (x->shape.rank < 1)
        return diag_error(d, g, node, "input must have rank >= 1");
    if (opu_norm_axis(g, node, d, attr_int(n, "axis", coerce ? 1 : -1), x->shape.rank, "axis",
                      &axis))
        return -1;
    node_set_int(g, node, "axis", axis);
    node_set_int(g, node, "coerce2d", coerce);
    opu_set_out(g, node, 0, DT_FLOAT32, x->shape);
    return 0;
}

int op_softmax_eval(Graph *g, int node, Diag *d)
{
    const Node *n = &g->nodes[node];
    Value *xv = opu_in(g, node, 0);
    int axis = (int)attr_int(n, "axis", 0), coerce = attr_int(n, "coerce2d", 0) != 0;
    /* view the data as [outer, len, inner]; softmax along len */
    int64_t outer = 1, len = 1, inner = 1;
    for (int i = 0; i < xv->shape.rank; i++) {
        int64_t dim = xv->shape.dims[i];
        if (i < axis)
            outer *= dim;
        else if (i == axis || coerce)
            len *= dim;
        else
            inner *= dim;
    }
    float *y = opu_alloc_out(g, node, 0, d);
    if (!y)
        return -1;
    const float *x = xv->data;
    for (int64_t o = 0; o < outer; o++)
        for (int64_t i = 0; i < inner; i++) {
            const float *px = x + o * len * inner + i;
            float *py = y + o * len * inner + i;
            float mx = -INFINITY;
            for (int64_t l = 0; l < len; l++)
                mx = px[l * inner] > mx ? px[l * inner] : mx;
            double sum = 0;
            for (int64_t l = 0; l < len; l++) {
                py[l * inner] = expf(px[l * inner] - mx);
                sum += py[l * inner];
            }
            for (int64_t l = 0; l < len; l++)
                py[l * inner] = (float)(py[l * inner] / sum);
        }
    return 1;
}
