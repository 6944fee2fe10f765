/* batchnorm.c - BatchNormalization in inference mode:
 *   y = scale[c] * (x - mean[c]) / sqrt(var[c] + epsilon) + bias[c]
 * with c the axis-1 channel of an [N, C, ...] float32 input.
 *
 * After infer "epsilon" is explicit (default 1e-5). The optional training
 * outputs (running/saved mean and var) get shape [C]; they are not computed:
 * eval declines (returns 0) when any of them is present, and
 * pass_fold_batchnorm rejects a BatchNormalization whose extra outputs are
 * used. */
#include <math.h>

#include "ops/op_util.h"
#include "ops/ops.h"

int op_batchnorm_infer(Graph *g, int node, Diag *d)
{
    Node *n = &g->nodes[node];
    if (opu_check_arity(g, node, d, 5, 5, 1, 5))
        return -1;
    Value *x = opu_in(g, node, 0);
    if (x->dtype != DT_FLOAT32)
        return diag_error(d, g, node, "only float32 is supported");
    if (x->shape.rank < 2)
        return diag_error(d, g, node, "input must have rank >= 2, got %s", opu_shape_str(&x->shape));
    int64_t c = x->shape.dims[1];
    static const char *const names[5] = {"X", "scale", "B", "mean", "var"};
    for (int i = 1; i < 5; i++) {
        Value *p = opu_in(g, node, i);
        int64_t cnt;
        if (p->dtype != DT_FLOAT32)
            return diag_error(d, g, node, "%s must be float32", names[i]);
        if (!shape_numel(&p->shape, &cnt) || p->shape.rank != 1 || cnt != c)
            return diag_error(d, g, node, "%s must be [%lld], got %s", names[i], (long long)c,
                              opu_shape_str(&p->shape));
    }
    node_set_float(g, node, "epsilon", attr_float(n, "epsilon", 1e-5f));
    opu_set_out(g, node, 0, DT_FLOAT32, x->shape);
    Shape pc = shape_make(1, &c);
    for (int i = 1; i < n->n_out; i++)
        opu_set_out(g, node, i, DT_FLOAT32, pc);
    return 0;
}

int op_batchnorm_eval(Graph *g, int node, Diag *d)
{
    const Node *n = &g->nodes[node];
    for (int i = 1; i < n->n_out; i++)
        if (n->out[i] >= 0)
            return 0;
    Value *xv = opu_in(g, node, 0);
    const float *x = xv->data, *sc = opu_in(g, node, 1)->data, *bi = opu_in(g, node, 2)->data,
                *mu = opu_in(g, node, 3)->data, *var = opu_in(g, node, 4)->data;
    float eps = attr_float(n, "epsilon", 1e-5f);
    int64_t total, N = xv->shape.dims[0], C = xv->shape.dims[1];
    if (opu_numel(g, node, d, &xv->shape, &total))
        return -1;
    int64_t inner = (N * C) != 0 ? total / (N * C) : 0;
    float *y = opu_alloc_out(g, node, 0, d);
    if (!y)
        return -1;
    for (int64_t b = 0; b < N; b++)
        for (int64_t c = 0; c < C; c++) {
            float s = sc[c] / sqrtf(var[c] + eps);
            for (int64_t i = 0; i < inner; i++) {
                int64_t at = (b * C + c) * inner + i;
                y[at] = (x[at] - mu[c]) * s + bi[c];
            }
        }
    return 1;
}
