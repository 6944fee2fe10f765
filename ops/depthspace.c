/* depthspace.c - DepthToSpace (1..28) and SpaceToDepth (1..28) on
 * [N, C, H, W] tensors of any data type, block size b.
 *
 *   DepthToSpace  y[n, c, h*b+i, w*b+j] = x[n, ch, h, w] with
 *                 ch = (i*b + j)*C/b^2 + c  in mode DCR (the default, and
 *                 the only one before version 11), ch = c*b^2 + i*b + j in CRD.
 *   SpaceToDepth  y[n, ch, h, w] = x[n, c, h*b+i, w*b+j] with
 *                 ch = (i*b + j)*C + c  in mode DCR (the default, the only
 *                 one before version 28), ch = c*b^2 + i*b + j in CRD.
 *
 * Normalised attributes after infer: "blocksize" >= 1, "crd" 0 or 1. */
#include <string.h>

#include "ops/compute.h"
#include "ops/op_util.h"
#include "ops/ops.h"

int op_depthspace_infer(Graph *g, int node, Diag *d)
{
    Node *n = &g->nodes[node];
    if (opu_check_arity(g, node, d, 1, 1, 1, 1))
        return -1;
    Value *x = opu_in(g, node, 0);
    if (!dtype_supported(x->dtype) || x->dtype == DT_STRING)
        return diag_error(d, g, node, "data type %s is not supported", dtype_name(x->dtype));
    if (x->shape.rank != 4)
        return diag_error(d, g, node, "input must be 4-D [N,C,H,W], not %s", opu_shape_str(&x->shape));
    int d2s = n->op == OP_DEPTHTOSPACE;
    int has_mode = d2s ? n->version >= 11 : n->version >= 28;
    const char *mode = has_mode ? attr_string(n, "mode", "DCR") : "DCR";
    if (strcmp(mode, "DCR") && strcmp(mode, "CRD"))
        return diag_error(d, g, node, "mode '%s' is neither DCR nor CRD", mode);
    if (!node_attr(n, "blocksize"))
        return diag_error(d, g, node, "attribute blocksize is required");
    int64_t b = attr_int(n, "blocksize", 0);
    if (b < 1 || b > 65536)
        return diag_error(d, g, node, "blocksize %lld must be in [1, 65536]", (long long)b);
    Shape out = x->shape;
    if (d2s) {
        if (x->shape.dims[1] % (b * b))
            return diag_error(d, g, node, "channels %lld do not divide by blocksize^2 = %lld",
                              (long long)x->shape.dims[1], (long long)(b * b));
        out.dims[1] /= b * b;
        if (out.dims[2] > INT64_MAX / b || out.dims[3] > INT64_MAX / b)
            return diag_error(d, g, node, "output size overflows");
        out.dims[2] *= b;
        out.dims[3] *= b;
    } else {
        if (x->shape.dims[2] % b || x->shape.dims[3] % b)
            return diag_error(d, g, node, "height and width %lldx%lld do not divide by blocksize %lld",
                              (long long)x->shape.dims[2], (long long)x->shape.dims[3], (long long)b);
        if (out.dims[1] > INT64_MAX / (b * b))
            return diag_error(d, g, node, "output size overflows");
        out.dims[1] *= b * b;
        out.dims[2] /= b;
        out.dims[3] /= b;
    }
    int64_t cnt;
    if (opu_numel(g, node, d, &out, &cnt))
        return -1;
    node_set_int(g, node, "blocksize", b);
    g->nodes[node].at.depthspace.blocksize = b;
    g->nodes[node].at.depthspace.crd = !strcmp(mode, "CRD");
    opu_set_out(g, node, 0, x->dtype, out);
    return 0;
}

int compute_depthspace(ComputeCtx *cx, int node, ComputeDef *def)
{
    LoopBuilder *lb = cx->lb;
    const Node *n = &cx->g->nodes[node];
    const Value *x = &cx->g->values[n->in[0]], *y = &cx->g->values[n->out[0]];
    int64_t b = n->at.depthspace.blocksize;
    int crd = n->at.depthspace.crd;
    ComputeStage *s = compute_stage_new(cx, def, n->name, cx->buf_of(cx, n->out[0]), &y->shape);
    s->out_is_node_output = 1;
    Expr *xi[4], *B = lx_int(lb, b);
    xi[0] = lx_var(lb, s->axis[0]);
    if (n->op == OP_DEPTHTOSPACE) {
        Expr *c = lx_var(lb, s->axis[1]), *h = lx_var(lb, s->axis[2]), *w = lx_var(lb, s->axis[3]);
        Expr *i = lx_bin(lb, BO_MOD, h, B), *j = lx_bin(lb, BO_MOD, w, B);
        Expr *ij = lx_add(lb, lx_muli(lb, i, b), j);
        xi[1] = crd ? lx_add(lb, lx_muli(lb, c, b * b), ij) : lx_add(lb, lx_muli(lb, ij, y->shape.dims[1]), c);
        xi[2] = lx_div(lb, h, B);
        xi[3] = lx_div(lb, w, B);
    } else {
        /* channel ch of y splits into (block i, j) and input channel c */
        Expr *ch = lx_var(lb, s->axis[1]), *h = lx_var(lb, s->axis[2]), *w = lx_var(lb, s->axis[3]);
        int64_t C = x->shape.dims[1];
        Expr *ij, *c;
        if (crd) {
            c = lx_div(lb, ch, lx_int(lb, b * b));
            ij = lx_bin(lb, BO_MOD, ch, lx_int(lb, b * b));
        } else {
            c = lx_bin(lb, BO_MOD, ch, lx_int(lb, C > 0 ? C : 1));
            ij = lx_div(lb, ch, lx_int(lb, C > 0 ? C : 1));
        }
        xi[1] = c;
        xi[2] = lx_add(lb, lx_muli(lb, h, b), lx_div(lb, ij, B));
        xi[3] = lx_add(lb, lx_muli(lb, w, b), lx_bin(lb, BO_MOD, ij, B));
    }
    s->body = lx_load(lb, cx->buf_of(cx, n->in[0]), compute_flat_index(cx, &x->shape, xi));
    return 0;
}

DEFINE_EVAL_BY_COMPUTE(depthspace)
