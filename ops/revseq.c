/* revseq.c - ReverseSequence (10, 28): reverses the first seq_lens[b]
 * elements along "time_axis" of every batch entry b along "batch_axis"
 * (the two axes are 0 and 1, in either order); any data type. The lengths
 * (int64) may be run-time values: a length is clamped into [0, time dim].
 *
 *   y[.., b, .., t, ..] = x[.., b, .., t < L ? L-1-t : t, ..], L = seq_lens[b]
 *
 * Normalised attributes after infer: "batch_axis", "time_axis" in {0, 1}. */
#include "ops/compute.h"
#include "ops/op_util.h"
#include "ops/ops.h"

int op_revseq_infer(Graph *g, int node, Diag *d)
{
    Node *n = &g->nodes[node];
    if (opu_check_arity(g, node, d, 2, 2, 1, 1))
        return -1;
    Value *x = opu_in(g, node, 0), *l = opu_in(g, node, 1);
    if (!dtype_supported(x->dtype) || x->dtype == DT_STRING)
        return diag_error(d, g, node, "data type %s is not supported", dtype_name(x->dtype));
    if (x->shape.rank < 2)
        return diag_error(d, g, node, "input must have rank >= 2");
    int ba, ta;
    if (opu_norm_axis(g, node, d, attr_int(n, "batch_axis", 1), x->shape.rank, "batch_axis", &ba) ||
        opu_norm_axis(g, node, d, attr_int(n, "time_axis", 0), x->shape.rank, "time_axis", &ta))
        return -1;
    if (ba > 1 || ta > 1 || ba == ta)
        return diag_error(d, g, node, "batch_axis and time_axis must be 0 and 1");
    if (l->dtype != DT_INT64 && l->dtype != DT_INT32)
        return diag_error(d, g, node, "sequence_lens must be int64, not %s", dtype_name(l->dtype));
    if (l->shape.rank != 1 || l->shape.dims[0] != x->shape.dims[ba])
        return diag_error(d, g, node, "sequence_lens %s must have shape [%lld]", opu_shape_str(&l->shape),
                          (long long)x->shape.dims[ba]);
    node_set_int(g, node, "batch_axis", ba);
    node_set_int(g, node, "time_axis", ta);
    n->at.axis = (AxisAttrs){.axis = ta, .batch_axis = ba};
    opu_set_out(g, node, 0, x->dtype, x->shape);
    return 0;
}

int compute_revseq(ComputeCtx *cx, int node, ComputeDef *def)
{
    LoopBuilder *lb = cx->lb;
    const Node *n = &cx->g->nodes[node];
    const Value *x = &cx->g->values[n->in[0]];
    int ba = n->at.axis.batch_axis, ta = n->at.axis.axis;
    int64_t T = x->shape.dims[ta];
    ComputeStage *s = compute_stage_new(cx, def, n->name, cx->buf_of(cx, n->out[0]), &x->shape);
    s->out_is_node_output = 1;
    Expr *L = lx_cast(lb, LT_I64, lx_load(lb, cx->buf_of(cx, n->in[1]), lx_var(lb, s->axis[ba])));
    L = lx_bin(lb, BO_MIN, lx_bin(lb, BO_MAX, L, lx_const_i(lb, LT_I64, 0)), lx_const_i(lb, LT_I64, T));
    L = lx_cast(lb, LT_IDX, L);
    Expr *t = lx_var(lb, s->axis[ta]);
    Expr *xi[CTVM_MAX_RANK];
    for (int a = 0; a < x->shape.rank; a++)
        xi[a] = lx_var(lb, s->axis[a]);
    xi[ta] = lx_select(lb, lx_bin(lb, BO_LT, t, L), lx_sub(lb, lx_sub(lb, L, lx_int(lb, 1)), t), t);
    s->body = lx_load(lb, cx->buf_of(cx, n->in[0]), compute_flat_index(cx, &x->shape, xi));
    return 0;
}

DEFINE_EVAL_BY_COMPUTE(revseq)
