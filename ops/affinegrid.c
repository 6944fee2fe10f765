/* affinegrid.c - AffineGrid (20): the sampling grid of an affine transform,
 * for GridSample. theta [N, 2, 3] (2-D) or [N, 3, 4] (3-D); size (int64,
 * constant: it decides the shape) [N, C, H, W] or [N, C, D, H, W]. The
 * output [N, H, W, 2] or [N, D, H, W, 3] is
 *   grid[n, s..., r] = sum_j theta[n, r, j] * base_j + theta[n, r, k]
 * where base_j is the normalised coordinate of spatial axis k-1-j (x =
 * width first) at index s: -1 + i * 2 / (d - 1) with align_corners (-1 when
 * d = 1), else -1 + (2 i + 1) / d. Computed in float64 as the reference
 * does, stored in theta's type.
 *
 * Normalised attributes (after infer): "align_corners" (0 or 1). */
#include "ops/compute.h"
#include "ops/op_util.h"
#include "ops/ops.h"

int op_affinegrid_infer(Graph *g, int node, Diag *d)
{
    Node *n = &g->nodes[node];
    if (opu_check_arity(g, node, d, 2, 2, 1, 1))
        return -1;
    Value *th = opu_in(g, node, 0), *sz = opu_in(g, node, 1);
    DType t = th->dtype;
    if (!(t == DT_FLOAT32 || t == DT_FLOAT64 || t == DT_FLOAT16 || t == DT_BFLOAT16))
        return diag_error(d, g, node, "theta type %s is not supported", dtype_name(t));
    if (!sz->data)
        return opu_need_const(g, node, d, 1, "size");
    int64_t s[CTVM_MAX_RANK];
    int ns = 0;
    if (opu_const_ints(g, node, d, 1, s, CTVM_MAX_RANK, &ns))
        return -1;
    if (ns != 4 && ns != 5)
        return diag_error(d, g, node, "size must have 4 (2-D) or 5 (3-D) values, got %d", ns);
    int k = ns - 2;
    if (th->shape.rank != 3 || th->shape.dims[0] != s[0] || th->shape.dims[1] != k || th->shape.dims[2] != k + 1)
        return diag_error(d, g, node, "theta must have shape [%lld, %d, %d], got %s", (long long)s[0], k, k + 1,
                          opu_shape_str(&th->shape));
    int64_t dims[CTVM_MAX_RANK], tot;
    dims[0] = s[0];
    for (int i = 0; i < k; i++) {
        if (s[2 + i] < 0)
            return diag_error(d, g, node, "size must not be negative");
        dims[1 + i] = s[2 + i];
    }
    dims[k + 1] = k;
    Shape out = shape_make(k + 2, dims);
    if (opu_numel(g, node, d, &out, &tot))
        return -1;
    n->at.gridsample = (GridSampleAttrs){.align_corners = attr_int(n, "align_corners", 0) != 0};
    node_set_int(g, node, "align_corners", n->at.gridsample.align_corners);
    opu_set_out(g, node, 0, t, out);
    return 0;
}

int compute_affinegrid(ComputeCtx *cx, int node, ComputeDef *def)
{
    LoopBuilder *lb = cx->lb;
    const Node *n = &cx->g->nodes[node];
    const Value *y = &cx->g->values[n->out[0]];
    int k = y->shape.rank - 2, align = n->at.gridsample.align_corners;
    LBuf *tb = cx->buf_of(cx, n->in[0]);
    ComputeStage *s = compute_stage_new(cx, def, n->name, cx->buf_of(cx, n->out[0]), &y->shape);
    s->out_is_node_output = 1;
    /* theta row (n, r) starts at (n * k + r) * (k + 1) */
    Expr *rowst = lx_muli(lb, lx_add(lb, lx_muli(lb, lx_var(lb, s->axis[0]), k), lx_var(lb, s->axis[k + 1])), k + 1);
    Expr *sum = lx_cast(lb, LT_F64, lx_load(lb, tb, lx_add(lb, rowst, lx_int(lb, k))));
    for (int j = 0; j < k; j++) {
        int a = k - 1 - j; /* spatial axis */
        int64_t dim = y->shape.dims[1 + a];
        Expr *iv = lx_cast(lb, LT_F64, lx_var(lb, s->axis[1 + a]));
        Expr *base;
        if (align)
            base = dim > 1 ? lx_add(lb, lx_const_f(lb, LT_F64, -1.0), lx_mul(lb, iv, lx_const_f(lb, LT_F64, 2.0 / (double)(dim - 1))))
                           : lx_const_f(lb, LT_F64, -1.0);
        else
            base = lx_add(lb, lx_const_f(lb, LT_F64, -1.0 + 1.0 / (double)dim),
                          lx_mul(lb, iv, lx_const_f(lb, LT_F64, 2.0 / (double)dim)));
        Expr *tv = lx_cast(lb, LT_F64, lx_load(lb, tb, lx_add(lb, rowst, lx_int(lb, j))));
        sum = lx_add(lb, sum, lx_mul(lb, tv, base));
    }
    s->body = sum;
    s->acc = lv_new_typed(lb, "acc", LT_F64);
    s->finalize = lx_var(lb, s->acc);
    return 0;
}

DEFINE_EVAL_BY_COMPUTE(affinegrid)
