/* tile.c - Tile: versions 1 (inputs "tiles" and "axis", scalars: repeat the
 * whole tensor `tiles` times along `axis`), 6 and 13 (input "repeats", one
 * count per dimension). Every data type. The repeat counts decide the output
 * shape, so they must be constant.
 *
 *   y[i...] = x[i_0 mod dim_0, ..., i_{r-1} mod dim_{r-1}]
 * The output shape is all the compute definition needs. */
#include "ops/compute.h"
#include "ops/op_util.h"
#include "ops/ops.h"

int op_tile_infer(Graph *g, int node, Diag *d)
{
    int v = g->nodes[node].version;
    if (opu_check_arity(g, node, d, v == 1 ? 3 : 2, v == 1 ? 3 : 2, 1, 1))
        return -1;
    Value *x = opu_in(g, node, 0);
    if (!dtype_supported(x->dtype) || x->dtype == DT_STRING)
        return diag_error(d, g, node, "data type %s is not supported", dtype_name(x->dtype));
    int r = x->shape.rank, nr;
    int64_t rep[CTVM_MAX_RANK];
    if (v == 1) {
        int64_t t, a;
        int n1, n2;
        if (!value_is_const(opu_in(g, node, 1)))
            return opu_need_const(g, node, d, 1, "tiles");
        if (!value_is_const(opu_in(g, node, 2)))
            return opu_need_const(g, node, d, 2, "axis");
        if (opu_const_ints(g, node, d, 1, &t, 1, &n1) || opu_const_ints(g, node, d, 2, &a, 1, &n2))
            return -1;
        if (n1 != 1 || n2 != 1)
            return diag_error(d, g, node, "tiles and axis must be scalars");
        int ax;
        if (opu_norm_axis(g, node, d, a, r, "axis", &ax))
            return -1;
        for (int i = 0; i < r; i++)
            rep[i] = i == ax ? t : 1;
        nr = r;
    } else {
        if (!value_is_const(opu_in(g, node, 1)))
            return opu_need_const(g, node, d, 1, "repeats");
        if (opu_const_ints(g, node, d, 1, rep, CTVM_MAX_RANK, &nr))
            return -1;
    }
    if (nr != r)
        return diag_error(d, g, node, "%d repeats for an input of rank %d", nr, r);
    Shape out = x->shape;
    for (int i = 0; i < r; i++) {
        if (rep[i] < 0)
            return diag_error(d, g, node, "repeat count %lld is negative", (long long)rep[i]);
        if (rep[i] > 0 && out.dims[i] > INT64_MAX / rep[i])
            return diag_error(d, g, node, "output dimension %d overflows", i);
        out.dims[i] *= rep[i];
    }
    int64_t cnt;
    if (opu_numel(g, node, d, &out, &cnt))
        return -1;
    opu_set_out(g, node, 0, x->dtype, out);
    return 0;
}

int compute_tile(ComputeCtx *cx, int node, ComputeDef *def)
{
    LoopBuilder *lb = cx->lb;
    const Node *n = &cx->g->nodes[node];
    const Value *x = &cx->g->values[n->in[0]], *y = &cx->g->values[n->out[0]];
    ComputeStage *s = compute_stage_new(cx, def, n->name, cx->buf_of(cx, n->out[0]), &y->shape);
    s->out_is_node_output = 1;
    Expr *xi[CTVM_MAX_RANK];
    for (int a = 0; a < x->shape.rank; a++) {
        xi[a] = lx_var(lb, s->axis[a]);
        if (y->shape.dims[a] > x->shape.dims[a] && x->shape.dims[a] > 0)
            xi[a] = lx_bin(lb, BO_MOD, xi[a], lx_int(lb, x->shape.dims[a]));
    }
    s->body = lx_load(lb, cx->buf_of(cx, n->in[0]), compute_flat_index(cx, &x->shape, xi));
    return 0;
}

DEFINE_EVAL_BY_COMPUTE(tile)
