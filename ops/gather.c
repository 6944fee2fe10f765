/* gather.c - the gathers: Gather (1..13), GatherElements (11, 13) and
 * GatherND (11..13). Every data type; int32 or int64 indices, which may be
 * run-time values. A negative index counts from the end of its axis.
 *
 *   Gather         y[pre, i..., post] = x[pre, ind[i...], post] along "axis".
 *   GatherElements y[i] = x[i with coordinate "axis" replaced by ind[i]];
 *                  indices have the data's rank and no larger dims.
 *   GatherND       the last dim k of the indices addresses the first k dims
 *                  of x after the first "batch_dims" (12+; shared with the
 *                  indices): y[b..., i..., j...] = x[b..., ind[b..., i..., :], j...].
 *
 * Constant indices are checked against the axis at compile time. A
 * run-time index outside [-dim, dim) is clamped into the axis, so generated
 * code never reads outside the data.
 *
 * Normalised attributes after infer: "axis" >= 0 (Gather, GatherElements),
 * "batch_dims" (GatherND, 0 before version 12). */
#include <string.h>

#include "ops/compute.h"
#include "ops/index_util.h"
#include "ops/op_util.h"
#include "ops/ops.h"

static int check_data(Graph *g, int node, Diag *d, DType t)
{
    if (!dtype_supported(t) || t == DT_STRING)
        return diag_error(d, g, node, "data type %s is not supported", dtype_name(t));
    return 0;
}

static int infer_gather(Graph *g, int node, Diag *d)
{
    Value *x = opu_in(g, node, 0), *idx = opu_in(g, node, 1);
    int axis;
    if (idx_read_axis(g, node, d, &axis))
        return -1;
    int r = x->shape.rank + idx->shape.rank - 1;
    if (r > CTVM_MAX_RANK)
        return diag_error(d, g, node, "result rank %d exceeds %d", r, CTVM_MAX_RANK);
    Shape out = shape_make(0, NULL);
    for (int i = 0; i < axis; i++)
        out.dims[out.rank++] = x->shape.dims[i];
    for (int i = 0; i < idx->shape.rank; i++)
        out.dims[out.rank++] = idx->shape.dims[i];
    for (int i = axis + 1; i < x->shape.rank; i++)
        out.dims[out.rank++] = x->shape.dims[i];
    int64_t cnt;
    if (opu_numel(g, node, d, &out, &cnt))
        return -1;
    if (cnt > 0 && x->shape.dims[axis] == 0)
        return diag_error(d, g, node, "gathers from an empty axis");
    node_set_int(g, node, "axis", axis);
    g->nodes[node].at.axis = (AxisAttrs){.axis = axis};
    opu_set_out(g, node, 0, x->dtype, out);
    return 0;
}

static int infer_gather_elements(Graph *g, int node, Diag *d)
{
    Value *x = opu_in(g, node, 0), *idx = opu_in(g, node, 1);
    int axis;
    if (idx_read_axis(g, node, d, &axis))
        return -1;
    if (idx->shape.rank != x->shape.rank)
        return diag_error(d, g, node, "indices %s and data %s differ in rank",
                          opu_shape_str(&idx->shape), opu_shape_str(&x->shape));
    if (idx_check_elements(g, node, d, idx, x, axis, "gathers from an empty axis"))
        return -1;
    node_set_int(g, node, "axis", axis);
    g->nodes[node].at.axis = (AxisAttrs){.axis = axis};
    opu_set_out(g, node, 0, x->dtype, idx->shape);
    return 0;
}

static int infer_gather_nd(Graph *g, int node, Diag *d)
{
    Node *n = &g->nodes[node];
    Value *x = opu_in(g, node, 0), *idx = opu_in(g, node, 1);
    int64_t b = n->version >= 12 ? attr_int(n, "batch_dims", 0) : 0;
    int q = idx->shape.rank, r = x->shape.rank;
    if (q < 1 || r < 1)
        return diag_error(d, g, node, "data and indices must have rank >= 1");
    if (b < 0 || b >= q || b >= r)
        return diag_error(d, g, node, "batch_dims %lld must be below both ranks", (long long)b);
    int64_t k = idx->shape.dims[q - 1];
    if (k < 1 || k > r - b)
        return diag_error(d, g, node, "indices' last dim %lld must be in [1, %lld]", (long long)k,
                          (long long)(r - b));
    for (int i = 0; i < b; i++)
        if (idx->shape.dims[i] != x->shape.dims[i])
            return diag_error(d, g, node, "batch dim %d differs: indices %s, data %s", i,
                              opu_shape_str(&idx->shape), opu_shape_str(&x->shape));
    if (idx_check(g, node, d, 1, &x->shape.dims[b], (int)k))
        return -1;
    Shape out = shape_make(0, NULL);
    for (int i = 0; i < q - 1; i++)
        out.dims[out.rank++] = idx->shape.dims[i];
    for (int i = (int)(b + k); i < r; i++) {
        if (out.rank >= CTVM_MAX_RANK)
            return diag_error(d, g, node, "result rank exceeds %d", CTVM_MAX_RANK);
        out.dims[out.rank++] = x->shape.dims[i];
    }
    int64_t cnt;
    if (opu_numel(g, node, d, &out, &cnt))
        return -1;
    for (int i = (int)b; cnt > 0 && i < b + k; i++)
        if (x->shape.dims[i] == 0)
            return diag_error(d, g, node, "gathers from an empty axis");
    node_set_int(g, node, "batch_dims", b);
    n->at.axis = (AxisAttrs){.batch_dims = b};
    opu_set_out(g, node, 0, x->dtype, out);
    return 0;
}

int op_gather_infer(Graph *g, int node, Diag *d)
{
    if (opu_check_arity(g, node, d, 2, 2, 1, 1))
        return -1;
    if (check_data(g, node, d, opu_in(g, node, 0)->dtype))
        return -1;
    switch (g->nodes[node].op) {
    case OP_GATHER: return infer_gather(g, node, d);
    case OP_GATHERELEMENTS: return infer_gather_elements(g, node, d);
    case OP_GATHERND: return infer_gather_nd(g, node, d);
    default: return diag_error(d, g, node, "not a gather operator");
    }
}

int compute_gather(ComputeCtx *cx, int node, ComputeDef *def)
{
    LoopBuilder *lb = cx->lb;
    const Node *n = &cx->g->nodes[node];
    const Value *x = &cx->g->values[n->in[0]], *iv = &cx->g->values[n->in[1]];
    const Value *y = &cx->g->values[n->out[0]];
    LBuf *xb = cx->buf_of(cx, n->in[0]), *ib = cx->buf_of(cx, n->in[1]);
    ComputeStage *s = compute_stage_new(cx, def, n->name, cx->buf_of(cx, n->out[0]), &y->shape);
    s->out_is_node_output = 1;
    Expr *xi[CTVM_MAX_RANK], *ii[CTVM_MAX_RANK];
    if (n->op == OP_GATHER) {
        int axis = n->at.axis.axis, q = iv->shape.rank;
        for (int j = 0; j < q; j++)
            ii[j] = lx_var(lb, s->axis[axis + j]);
        for (int a = 0; a < x->shape.rank; a++)
            xi[a] = a < axis ? lx_var(lb, s->axis[a])
                    : a > axis ? lx_var(lb, s->axis[a + q - 1])
                               : idx_load_clamped(lb, ib, compute_flat_index(cx, &iv->shape, ii), x->shape.dims[a]);
    } else if (n->op == OP_GATHERELEMENTS) {
        int axis = n->at.axis.axis;
        for (int a = 0; a < x->shape.rank; a++)
            xi[a] = a == axis ? idx_load_clamped(lb, ib, s->out_index, x->shape.dims[a]) : lx_var(lb, s->axis[a]);
    } else {
        int b = (int)n->at.axis.batch_dims, q = iv->shape.rank;
        int k = (int)iv->shape.dims[q - 1];
        for (int j = 0; j < q - 1; j++)
            ii[j] = lx_var(lb, s->axis[j]);
        for (int a = 0; a < x->shape.rank; a++) {
            if (a < b) {
                xi[a] = lx_var(lb, s->axis[a]);
            } else if (a < b + k) {
                ii[q - 1] = lx_int(lb, a - b);
                xi[a] = idx_load_clamped(lb, ib, compute_flat_index(cx, &iv->shape, ii), x->shape.dims[a]);
            } else {
                xi[a] = lx_var(lb, s->axis[q - 1 + a - b - k]);
            }
        }
    }
    s->body = lx_load(lb, xb, compute_flat_index(cx, &x->shape, xi));
    return 0;
}

DEFINE_EVAL_BY_COMPUTE(gather)
