/* convtranspose.c - ConvTranspose (versions 1, 11, 22): the transpose
 * (gradient) of Conv over channel-first input X [N, C, D1..Dn] with weights
 * W [C, M/group, k1..kn] and optional bias B [M]; strides, dilations, pads,
 * output_padding, output_shape, auto_pad and group; float16, float32,
 * float64, and bfloat16 from version 22.
 *
 * Geometry (as the ONNX reference computes it): with ek = (k-1)*d + 1,
 *   - pads given (or auto_pad NOTSET/VALID, pads default 0): the begin pads
 *     are used as given; the output extent is output_shape when given, else
 *     s*(D-1) + output_padding + ek - pb - pe;
 *   - auto_pad SAME_UPPER/SAME_LOWER: the extent is output_shape when
 *     given, else D*s; total = s*(D-1) + output_padding + ek - extent,
 *     SAME_UPPER puts floor(total/2) at the begin, SAME_LOWER the rest.
 * output_shape may list the spatial extents or the whole output shape.
 *
 * Normalised attributes after infer: kernel_shape[n], strides[n],
 * dilations[n], pads[2n] (begins then ends; only the begins matter for the
 * compute, the output extent is the output value's shape), group; auto_pad
 * becomes "NOTSET"; typed: Node.at.conv. Output element (b, m, o1..on) with g = m / (M/group):
 *   B[m] + sum over c < C/group, k1..kn of X[b, g*C/group + c, i..] * W[g*C/group + c, m % (M/group), k..]
 * where o_j + pb_j - k_j*d_j = i_j*s_j with 0 <= i_j < D_j (other taps
 * contribute nothing). */
#include <string.h>

#include "ops/compute.h"
#include "ops/op_util.h"
#include "ops/ops.h"
#include "ops/window.h"

static int read_opt(Graph *g, int node, Diag *d, const char *name, int n, int64_t *out)
{
    int k = 0;
    const int64_t *v = attr_ints(&g->nodes[node], name, &k);
    for (int i = 0; i < n; i++)
        out[i] = 0;
    if (!v || k == 0)
        return 0;
    if (k != n && k != n + 2)
        return diag_error(d, g, node, "%s must have %d values, got %d", name, n, k);
    for (int i = 0; i < n; i++)
        out[i] = v[k - n + i];
    return 1;
}

int op_convtranspose_infer(Graph *g, int node, Diag *d)
{
    Node *n = &g->nodes[node];
    if (opu_check_arity(g, node, d, 2, 3, 1, 1))
        return -1;
    Value *x = opu_in(g, node, 0), *w = opu_in(g, node, 1), *b = opu_in(g, node, 2);
    int rank = x->shape.rank, ns = rank - 2;
    if (window_spatial_axes(g, node, d, x, &ns))
        return -1;
    DType t = x->dtype;
    if (!window_float_type_ok(t, n->version))
        return diag_error(d, g, node, "input type %s not supported by ConvTranspose-%d", dtype_name(t),
                          n->version);
    if (w->dtype != t || (b && b->dtype != t))
        return diag_error(d, g, node, "weights and bias must have the input's type %s", dtype_name(t));
    if (w->shape.rank != rank)
        return diag_error(d, g, node, "weights must have rank %d, got %s", rank, opu_shape_str(&w->shape));
    int64_t group = attr_int(n, "group", 1), C = x->shape.dims[1];
    if (group < 1 || C % group)
        return diag_error(d, g, node, "group %lld does not divide %lld input channels", (long long)group,
                          (long long)C);
    if (w->shape.dims[0] != C)
        return diag_error(d, g, node, "weights %s do not match %lld input channels", opu_shape_str(&w->shape),
                          (long long)C);
    int64_t M;
    if (!i64_mul(w->shape.dims[1], group, &M))
        return diag_error(d, g, node, "too many output channels");
    if (b && (b->shape.rank != 1 || b->shape.dims[0] != M))
        return diag_error(d, g, node, "bias must be [%lld], got %s", (long long)M, opu_shape_str(&b->shape));
    if (window_read_kernel_match(g, node, d, w, ns))
        return -1;
    Window win;
    if (window_read(g, node, d, ns, &win))
        return -1;
    int64_t opad[WINDOW_MAX_AXES], oshape[WINDOW_MAX_AXES];
    int has_os;
    if (read_opt(g, node, d, "output_padding", ns, opad) < 0 || (has_os = read_opt(g, node, d, "output_shape", ns, oshape)) < 0)
        return -1;
    const char *ap = attr_string(n, "auto_pad", "NOTSET");
    int upper = !strcmp(ap, "SAME_UPPER"), same = upper || !strcmp(ap, "SAME_LOWER");
    if (!same && strcmp(ap, "NOTSET") && strcmp(ap, "VALID"))
        return diag_error(d, g, node, "unknown auto_pad '%s'", ap);
    if (!strcmp(ap, "VALID"))
        memset(win.pads, 0, sizeof win.pads);
    int64_t dims[CTVM_MAX_RANK] = {x->shape.dims[0], M};
    for (int i = 0; i < ns; i++) {
        int64_t D = x->shape.dims[2 + i], s = win.strides[i], k = w->shape.dims[2 + i];
        int64_t ek = (k - 1) * win.dilations[i] + 1, o;
        if (k < 1)
            return diag_error(d, g, node, "kernel size must be positive");
        if (opad[i] < 0)
            return diag_error(d, g, node, "output_padding must be non-negative");
        win.kernel[i] = k;
        if (same) {
            o = has_os ? oshape[i] : D * s;
            int64_t total = s * (D - 1) + opad[i] + ek - o;
            int64_t half = total >= 0 ? total / 2 : -((-total + 1) / 2); /* floor */
            win.pads[i] = upper ? half : total - half;
            win.pads[i + ns] = upper ? total - half : half;
        } else {
            o = has_os ? oshape[i] : s * (D - 1) + opad[i] + ek - win.pads[i] - win.pads[i + ns];
        }
        if (o < 1)
            return diag_error(d, g, node, "output extent %lld along spatial axis %d is not positive", (long long)o, i);
        dims[2 + i] = o;
    }
    node_set_ints(g, node, "kernel_shape", win.kernel, ns);
    node_set_ints(g, node, "strides", win.strides, ns);
    node_set_ints(g, node, "dilations", win.dilations, ns);
    node_set_ints(g, node, "pads", win.pads, 2 * ns);
    node_set_int(g, node, "group", group);
    opu_set_string(g, node, "auto_pad", "NOTSET");
    window_store(&win, &n->at.conv.win);
    n->at.conv.group = group;
    Shape out = shape_make(rank, dims);
    int64_t total;
    if (opu_numel(g, node, d, &out, &total))
        return -1;
    opu_set_out(g, node, 0, t, out);
    return 0;
}

int compute_convtranspose(ComputeCtx *cx, int node, ComputeDef *def)
{
    LoopBuilder *lb = cx->lb;
    const Node *n = &cx->g->nodes[node];
    const Value *x = &cx->g->values[n->in[0]], *w = &cx->g->values[n->in[1]];
    const Value *y = &cx->g->values[n->out[0]];
    int rank = x->shape.rank, ns = rank - 2;
    const WindowAttrs *wa = &n->at.conv.win;
    const int64_t *ks = wa->kernel, *st = wa->strides, *dl = wa->dilations, *pd = wa->pads;
    if (wa->n != ns || n->at.conv.group < 1)
        return compute_fail(cx, node, "attributes not normalised (internal error)");
    int64_t group = n->at.conv.group;
    int64_t icg = x->shape.dims[1] / group, ocg = w->shape.dims[1];

    ComputeStage *s = compute_stage_new(cx, def, n->name, cx->buf_of(cx, n->out[0]), &y->shape);
    s->out_is_node_output = 1;
    LVar *ic = compute_add_raxis(cx, s, "ic", icg);
    LVar *kv[CTVM_MAX_RANK];
    for (int i = 0; i < ns; i++)
        kv[i] = compute_kernel_raxis(cx, s, ns, i, ks[i]);
    s->red = RED_SUM;

    Expr *m = lx_var(lb, s->axis[1]);
    Expr *cin = lx_add(lb, lx_muli(lb, lx_bin(lb, BO_DIV, m, lx_int(lb, ocg)), icg), lx_var(lb, ic));
    Expr *xi[CTVM_MAX_RANK] = {lx_var(lb, s->axis[0]), cin};
    Expr *cond = lx_int(lb, 1);
    for (int i = 0; i < ns; i++) {
        /* v = o + pb - k*d, shifted by s*A so that it is never negative */
        int64_t lowest = pd[i] - (ks[i] - 1) * dl[i];
        int64_t A = lowest < 0 ? (-lowest + st[i] - 1) / st[i] : 0;
        Expr *v = lx_add(lb, lx_var(lb, s->axis[2 + i]),
                         lx_add(lb, lx_muli(lb, lx_var(lb, kv[i]), -dl[i]), lx_int(lb, pd[i] + st[i] * A)));
        Expr *q = st[i] == 1 ? v : lx_bin(lb, BO_DIV, v, lx_int(lb, st[i]));
        if (st[i] != 1)
            cond = lx_bin(lb, BO_AND, cond,
                          lx_bin(lb, BO_EQ, lx_bin(lb, BO_MOD, v, lx_int(lb, st[i])), lx_int(lb, 0)));
        xi[2 + i] = lx_add(lb, q, lx_int(lb, -A));
        int64_t D = x->shape.dims[2 + i];
        int64_t max_i = (y->shape.dims[2 + i] - 1 + pd[i] + st[i] * A) / st[i] - A;
        cond = compute_bound(cx, cond, xi[2 + i], A > 0 ? 1 : 0, max_i, D);
    }
    Expr *xload = lx_load(lb, cx->buf_of(cx, n->in[0]), compute_flat_index(cx, &x->shape, xi));
    Expr *wi[CTVM_MAX_RANK] = {cin, lx_bin(lb, BO_MOD, m, lx_int(lb, ocg))};
    for (int i = 0; i < ns; i++)
        wi[2 + i] = lx_var(lb, kv[i]);
    Expr *wload = lx_load(lb, cx->buf_of(cx, n->in[1]), compute_flat_index(cx, &w->shape, wi));
    Expr *prod = lx_mul(lb, xload, wload);
    s->body = lx_select(lb, cond, prod, lx_zero(lb, prod->type));
    s->finalize = lx_var(lb, s->acc);
    if (n->n_in > 2 && n->in[2] >= 0)
        s->finalize = lx_add(lb, s->finalize, lx_load(lb, cx->buf_of(cx, n->in[2]), m));
    return 0;
}

DEFINE_EVAL_BY_COMPUTE(convtranspose)
