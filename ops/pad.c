/* pad.c - Pad (every version) and CenterCropPad: each output element is an
 * input element chosen per axis by the padding mode, or a constant.
 *
 * Pad versions: 1 reads the "paddings" attribute and 2 the "pads"
 * attribute, both with a float "value"; from 11 the pads are input 1
 * (constant: they decide the shape) and the constant is the optional
 * scalar input 2, which may be a run-time value; from 18 the optional
 * input 3 names the axes the pads apply to; 19 adds mode "wrap". Modes:
 * constant, reflect (mirror without repeating the edge), edge (repeat the
 * border element), wrap (periodic). Pads larger than the axis keep going
 * (reflect is a triangle wave, wrap periodic), as numpy's pad does. A
 * negative pad removes elements from that side first; the remaining slice
 * is then padded.
 *
 * CenterCropPad (18): input 1 (constant) gives the target size of each
 * axis in "axes" (default all); a larger axis is cropped around its centre
 * (the extra element comes off the end), a smaller one zero-padded around
 * it (the extra element goes at the end). It becomes a constant-mode pad
 * with negative or positive pads.
 *
 * Typed attributes after infer (Node.at.pad): pads (2*rank: every axis's
 * begin, then every axis's end), mode 0 constant / 1 reflect / 2 edge /
 * 3 wrap, value (float constant of versions 1 and 2; 0 otherwise) and
 * cv_input (1 when input 2 holds the constant). */
#include <string.h>

#include "ops/compute.h"
#include "ops/op_util.h"
#include "ops/ops.h"

enum { PM_CONSTANT, PM_REFLECT, PM_EDGE, PM_WRAP };

static int check_dtype(Graph *g, int node, Diag *d, DType t)
{
    if (!dtype_supported(t) || t == DT_STRING)
        return diag_error(d, g, node, "input type %s is not supported", dtype_name(t));
    return 0;
}

/* Reads the optional axes input `i` (or all axes) into ax; *na entries. */
static int read_axes(Graph *g, int node, Diag *d, int i, int rank, int64_t *ax, int *na)
{
    if (!opu_in(g, node, i)) {
        for (int k = 0; k < rank; k++)
            ax[k] = k;
        *na = rank;
        return 0;
    }
    int64_t raw[CTVM_MAX_RANK];
    int seen[CTVM_MAX_RANK] = {0};
    if (opu_const_ints(g, node, d, i, raw, CTVM_MAX_RANK, na))
        return -1;
    for (int k = 0; k < *na; k++) {
        int a;
        if (opu_norm_axis(g, node, d, raw[k], rank, "axes", &a))
            return -1;
        if (seen[a]++)
            return diag_error(d, g, node, "axis %d repeated in axes", a);
        ax[k] = a;
    }
    return 0;
}

/* The typed attributes (Node.at.pad): pads of every axis, mode, where the
 * constant comes from. */
static void set_pad(Node *n, const int64_t *pads, int rank, int mode, int cv_input, float value)
{
    for (int i = 0; i < 2 * rank; i++)
        n->at.pad.pads[i] = pads[i];
    n->at.pad.mode = mode;
    n->at.pad.cv_input = cv_input;
    n->at.pad.value = value;
}

static int infer_center_crop_pad(Graph *g, int node, Diag *d)
{
    Node *n = &g->nodes[node];
    if (opu_check_arity(g, node, d, 2, 2, 1, 1))
        return -1;
    Value *x = opu_in(g, node, 0);
    int rank = x->shape.rank, na = 0, ns = 0, seen[CTVM_MAX_RANK] = {0};
    if (check_dtype(g, node, d, x->dtype))
        return -1;
    int64_t ax[CTVM_MAX_RANK], sh[CTVM_MAX_RANK], pads[2 * CTVM_MAX_RANK];
    if (opu_const_ints(g, node, d, 1, sh, CTVM_MAX_RANK, &ns))
        return -1;
    int nax = 0;
    const int64_t *axa = attr_ints(n, "axes", &nax);
    if (axa) {
        if (nax > CTVM_MAX_RANK)
            return diag_error(d, g, node, "too many axes");
        for (int k = 0; k < nax; k++) {
            int a;
            if (opu_norm_axis(g, node, d, axa[k], rank, "axes", &a))
                return -1;
            if (seen[a]++)
                return diag_error(d, g, node, "axis %d repeated in axes", a);
            ax[k] = a;
        }
        na = nax;
    } else {
        for (int k = 0; k < rank; k++)
            ax[k] = k;
        na = rank;
    }
    if (ns != na)
        return diag_error(d, g, node, "shape has %d entries for %d axes", ns, na);
    Shape out = x->shape;
    memset(pads, 0, sizeof pads);
    for (int k = 0; k < na; k++) {
        int a = (int)ax[k];
        int64_t dim = x->shape.dims[a];
        if (sh[k] < 0)
            return diag_error(d, g, node, "negative target size %lld", (long long)sh[k]);
        int64_t begin = sh[k] < dim ? -((dim - sh[k]) / 2) : (sh[k] - dim) / 2;
        pads[a] = begin;
        pads[rank + a] = sh[k] - dim - begin;
        out.dims[a] = sh[k];
    }
    set_pad(&g->nodes[node], pads, rank, PM_CONSTANT, 0, 0.0f);
    opu_set_out(g, node, 0, x->dtype, out);
    return 0;
}

int op_pad_infer(Graph *g, int node, Diag *d)
{
    Node *n = &g->nodes[node];
    if (n->op == OP_CENTERCROPPAD)
        return infer_center_crop_pad(g, node, d);
    int v = n->version;
    if (opu_check_arity(g, node, d, v >= 11 ? 2 : 1, v >= 18 ? 4 : v >= 11 ? 3 : 1, 1, 1))
        return -1;
    Value *x = opu_in(g, node, 0);
    int rank = x->shape.rank, np = 0, na = 0;
    if (check_dtype(g, node, d, x->dtype))
        return -1;
    int64_t raw[2 * CTVM_MAX_RANK], ax[CTVM_MAX_RANK], pads[2 * CTVM_MAX_RANK];
    if (v >= 11) {
        if (opu_const_ints(g, node, d, 1, raw, 2 * CTVM_MAX_RANK, &np))
            return -1;
        if (read_axes(g, node, d, 3, rank, ax, &na))
            return -1;
        Value *cv = opu_in(g, node, 2);
        if (cv) {
            int64_t cnt;
            if (cv->dtype != x->dtype)
                return diag_error(d, g, node, "constant_value has type %s, data %s",
                                  dtype_name(cv->dtype), dtype_name(x->dtype));
            if (!shape_numel(&cv->shape, &cnt) || cnt != 1)
                return diag_error(d, g, node, "constant_value must hold one element, got %s",
                                  opu_shape_str(&cv->shape));
        }
    } else {
        const char *an = v >= 2 ? "pads" : "paddings";
        const int64_t *p = attr_ints(n, an, &np);
        if (!p)
            return diag_error(d, g, node, "attribute %s is required", an);
        if (np > 2 * CTVM_MAX_RANK)
            return diag_error(d, g, node, "%s has too many entries", an);
        memcpy(raw, p, (size_t)np * sizeof(int64_t));
        for (int k = 0; k < rank; k++)
            ax[k] = k;
        na = rank;
    }
    if (np != 2 * na)
        return diag_error(d, g, node, "pads has %d entries, expected %d (2 per axis)", np, 2 * na);
    const char *mode = attr_string(n, "mode", "constant");
    int pm = !strcmp(mode, "constant") ? PM_CONSTANT : !strcmp(mode, "reflect") ? PM_REFLECT
             : !strcmp(mode, "edge") ? PM_EDGE : !strcmp(mode, "wrap") && v >= 19 ? PM_WRAP : -1;
    if (pm < 0)
        return diag_error(d, g, node, "mode '%s' is not one of constant, reflect, edge%s", mode,
                          v >= 19 ? ", wrap" : "");
    memset(pads, 0, sizeof pads);
    for (int k = 0; k < na; k++) {
        pads[ax[k]] = raw[k];
        pads[rank + ax[k]] = raw[na + k];
    }
    Shape out = x->shape;
    for (int a = 0; a < rank; a++) {
        int64_t dim = x->shape.dims[a], b = pads[a], e = pads[rank + a];
        if (b < -dim || e < -dim || b > INT32_MAX || e > INT32_MAX)
            return diag_error(d, g, node, "pads %lld, %lld out of range for axis %d of size %lld",
                              (long long)b, (long long)e, a, (long long)dim);
        int64_t kept = dim + (b < 0 ? b : 0) + (e < 0 ? e : 0);
        out.dims[a] = dim + b + e;
        if (out.dims[a] < 0)
            return diag_error(d, g, node, "pads remove more than axis %d holds", a);
        if (pm != PM_CONSTANT && kept <= 0 && out.dims[a] > 0)
            return diag_error(d, g, node, "cannot pad an empty axis %d in mode %s", a, mode);
    }
    int64_t cnt;
    if (opu_numel(g, node, d, &out, &cnt))
        return -1;
    set_pad(&g->nodes[node], pads, rank, pm, v >= 11 && opu_in(g, node, 2) != NULL,
            v >= 11 ? 0.0f : attr_float(&g->nodes[node], "value", 0.0f));
    g->nodes[node].at.pad.value_given = v < 11 && node_attr(&g->nodes[node], "value") != NULL;
    opu_set_out(g, node, 0, x->dtype, out);
    return 0;
}

int compute_pad(ComputeCtx *cx, int node, ComputeDef *def)
{
    LoopBuilder *lb = cx->lb;
    const Node *n = &cx->g->nodes[node];
    const Value *x = &cx->g->values[n->in[0]], *y = &cx->g->values[n->out[0]];
    int rank = x->shape.rank, pm = n->at.pad.mode;
    const int64_t *pads = n->at.pad.pads;
    LType t = lt_of_dtype(x->dtype);
    ComputeStage *s = compute_stage_new(cx, def, n->name, cx->buf_of(cx, n->out[0]), &y->shape);
    s->out_is_node_output = 1;
    Expr *xi[CTVM_MAX_RANK];
    Expr *inside = lx_int(lb, 1);
    for (int a = 0; a < rank; a++) {
        int64_t dim = x->shape.dims[a], b = pads[a], e = pads[rank + a];
        int64_t c0 = b < 0 ? -b : 0;                 /* elements cropped at the start */
        int64_t kept = dim - c0 - (e < 0 ? -e : 0);  /* elements left to pad around */
        int64_t lead = b > 0 ? b : 0;
        Expr *o = lx_var(lb, s->axis[a]);
        Expr *j = lx_sub(lb, o, lx_int(lb, lead)); /* coordinate in the kept slice */
        if (lead == 0 && y->shape.dims[a] <= kept) {
            xi[a] = lx_add(lb, j, lx_int(lb, c0));
            continue;
        }
        if (pm == PM_CONSTANT) {
            inside = compute_bound(cx, inside, j, lead, y->shape.dims[a] - 1 - lead, kept);
        } else if (pm == PM_EDGE || kept == 1) {
            j = lx_bin(lb, BO_MIN, lx_bin(lb, BO_MAX, j, lx_int(lb, 0)), lx_int(lb, kept - 1));
        } else if (pm == PM_WRAP) {
            int64_t shift = (lead / kept + 1) * kept; /* keeps the operand non-negative */
            j = lx_bin(lb, BO_MOD, lx_add(lb, j, lx_int(lb, shift)), lx_int(lb, kept));
        } else { /* reflect: a triangle wave of period 2 * (kept - 1) */
            int64_t per = 2 * (kept - 1), shift = (lead / per + 1) * per;
            Expr *r = lx_bin(lb, BO_MOD, lx_add(lb, j, lx_int(lb, shift)), lx_int(lb, per));
            j = lx_select(lb, lx_bin(lb, BO_LT, r, lx_int(lb, kept)), r, lx_sub(lb, lx_int(lb, per), r));
        }
        xi[a] = lx_add(lb, j, lx_int(lb, c0));
    }
    Expr *val = lx_load(lb, cx->buf_of(cx, n->in[0]), compute_flat_index(cx, &x->shape, xi));
    if (pm == PM_CONSTANT && !(inside->kind == EX_INT && inside->i)) {
        Expr *cv;
        if (n->at.pad.cv_input)
            cv = lx_cast(lb, t, lx_load(lb, cx->buf_of(cx, n->in[2]), lx_int(lb, 0)));
        else
            cv = lx_const_f(lb, t, n->at.pad.value);
        val = lx_select(lb, inside, val, cv);
    }
    s->body = val;
    return 0;
}

DEFINE_EVAL_BY_COMPUTE(pad)
