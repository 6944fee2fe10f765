/* norm.c - normalizations: BatchNormalization (every version, inference and
 * training mode), InstanceNormalization, LayerNormalization,
 * GroupNormalization (18: scale/bias per group; 21: per channel, stash_type),
 * RMSNormalization, MeanVarianceNormalization, LpNormalization and LRN.
 *
 * All but LRN and inference BatchNormalization reduce over a set of axes and
 * then write every element from its statistics; they share one loop nest
 * (norm_nest): for each index of the kept axes, a first pass sums the
 * elements (and, for MVN, their squares), a second the squared deviations,
 * both into register accumulators, and a third writes the outputs (when
 * the innermost axis is reduced and the statistics float32, its loops are
 * marked contiguous: the schedule runs them in vectors with per-lane
 * partial sums, schedule/schedule_custom.c). The
 * statistics are computed in the input's compute type (float32 for the
 * 16-bit floats), GroupNormalization-21 with stash_type 1 in float32, as
 * the ONNX reference does. A constant inference BatchNormalization is folded
 * into its producer by pass fold_batchnorm; what remains (run-time
 * statistics, per-activation statistics of spatial = 0 before version 9)
 * is a per-channel affine stage.
 *
 * Normalised attributes after infer: "epsilon" everywhere; LayerNorm and
 * RMSNorm "axis" >= 0; GroupNorm "num_groups"; MVN "axes" sorted >= 0; LRN
 * alpha, beta, bias, size (typed: Node.at.norm, with GroupNorm's
 * stash_type); BatchNorm (typed, Node.at.bn) training (1 when batch statistics are
 * used: training_mode = 1 from version 14, is_test = 0 before 7, more than
 * one output from 7 to 13), "momentum", "spatial". */
#include <math.h>
#include <string.h>

#include "ops/compute.h"
#include "ops/op_util.h"
#include "ops/ops.h"

static int float_type(DType t)
{
    return t == DT_FLOAT32 || t == DT_FLOAT64 || t == DT_FLOAT16 || t == DT_BFLOAT16;
}

static int64_t numel_of(const Value *v)
{
    int64_t n = 0;
    shape_numel(&v->shape, &n);
    return n;
}

/* ---- infer ---- */

static int infer_batchnorm(Graph *g, int node, Diag *d)
{
    Node *n = &g->nodes[node];
    if (opu_check_arity(g, node, d, 5, 5, 1, 5))
        return -1;
    Value *x = opu_in(g, node, 0);
    if (!float_type(x->dtype))
        return diag_error(d, g, node, "input type %s is not supported", dtype_name(x->dtype));
    if (x->shape.rank < 2)
        return diag_error(d, g, node, "input must have rank >= 2, got %s", opu_shape_str(&x->shape));
    int spatial = n->version < 9 ? (int)attr_int(n, "spatial", 1) : 1;
    int training;
    if (n->version >= 14)
        training = (int)attr_int(n, "training_mode", 0) != 0;
    else if (n->version < 7)
        training = !attr_int(n, "is_test", 0);
    else
        training = n->n_out > 1 && n->out[1] >= 0;
    if (training && !spatial)
        return diag_error(d, g, node, "training mode with spatial = 0 is not supported");
    int64_t c = x->shape.dims[1];
    Shape stat = shape_make(1, &c);
    if (!spatial) { /* statistics per activation: [C, D1, ...] */
        stat = shape_make(x->shape.rank - 1, x->shape.dims + 1);
    }
    static const char *const names[5] = {"X", "scale", "B", "mean", "var"};
    for (int i = 1; i < 5; i++) {
        Value *p = opu_in(g, node, i);
        if (!float_type(p->dtype))
            return diag_error(d, g, node, "%s type %s is not supported", names[i], dtype_name(p->dtype));
        if (numel_of(p) != numel_of(&(Value){.shape = stat}) || (spatial && p->shape.rank != 1))
            return diag_error(d, g, node, "%s must be %s, got %s", names[i], opu_shape_str(&stat),
                              opu_shape_str(&p->shape));
    }
    BatchNormAttrs *ba = &n->at.bn;
    ba->epsilon = attr_float(n, "epsilon", 1e-5f);
    ba->momentum = attr_float(n, "momentum", 0.9f);
    ba->training = training;
    ba->spatial = spatial;
    node_set_float(g, node, "epsilon", ba->epsilon);
    node_set_float(g, node, "momentum", ba->momentum);
    opu_set_out(g, node, 0, x->dtype, x->shape);
    for (int i = 1; i < n->n_out; i++)
        opu_set_out(g, node, i, opu_in(g, node, i == 1 || i == 3 ? 3 : 4)->dtype, stat);
    return 0;
}

static int check_params(Graph *g, int node, Diag *d, int first, int last, int64_t count, const char *what)
{
    for (int i = first; i <= last; i++) {
        const Value *p = opu_in(g, node, i);
        if (!p)
            continue;
        if (!float_type(p->dtype))
            return diag_error(d, g, node, "input %d type %s is not supported", i, dtype_name(p->dtype));
        if (count >= 0 && numel_of(p) != count)
            return diag_error(d, g, node, "input %d must have %lld elements (%s), got %s", i, (long long)count,
                              what, opu_shape_str(&p->shape));
    }
    return 0;
}

static int infer_norm(Graph *g, int node, Diag *d)
{
    Node *n = &g->nodes[node];
    OpKind k = n->op;
    int one = k == OP_MVN || k == OP_LRN || k == OP_LPNORM;
    int max_in = k == OP_RMSNORM ? 2 : one ? 1 : 3;
    int min_in = one ? 1 : k == OP_LAYERNORM || k == OP_RMSNORM ? 2 : 3;
    if (opu_check_arity(g, node, d, min_in, max_in, 1, k == OP_LAYERNORM ? 3 : 1))
        return -1;
    Value *x = opu_in(g, node, 0);
    if (!float_type(x->dtype))
        return diag_error(d, g, node, "input type %s is not supported", dtype_name(x->dtype));
    int r = x->shape.rank;
    NormAttrs *ta = &n->at.norm;
    *ta = (NormAttrs){.epsilon = attr_float(n, "epsilon", k == OP_MVN ? 1e-9f : 1e-5f)};
    node_set_float(g, node, "epsilon", ta->epsilon);
    switch (k) {
    case OP_INSTANCENORM:
        if (r < 2)
            return diag_error(d, g, node, "input must have rank >= 2");
        if (check_params(g, node, d, 1, 2, x->shape.dims[1], "channels"))
            return -1;
        break;
    case OP_GROUPNORM: {
        if (r < 2)
            return diag_error(d, g, node, "input must have rank >= 2");
        int64_t groups = attr_int(n, "num_groups", 0), c = x->shape.dims[1];
        if (groups <= 0 || c % groups)
            return diag_error(d, g, node, "num_groups %lld does not divide %lld channels", (long long)groups,
                              (long long)c);
        node_set_int(g, node, "num_groups", groups);
        ta->num_groups = groups;
        ta->stash_f32 = n->version >= 21 && attr_int(n, "stash_type", 1) == 1;
        if (check_params(g, node, d, 1, 2, n->version < 21 ? groups : c, n->version < 21 ? "groups" : "channels"))
            return -1;
        break;
    }
    case OP_LAYERNORM:
    case OP_RMSNORM: {
        int axis;
        if (opu_norm_axis(g, node, d, attr_int(n, "axis", -1), r, "axis", &axis))
            return -1;
        node_set_int(g, node, "axis", axis);
        ta->axis = axis;
        Shape norm = shape_make(r - axis, x->shape.dims + axis), bc;
        for (int i = 1; i < n->n_in; i++) {
            const Value *p = opu_in(g, node, i);
            if (p && (!float_type(p->dtype) || !shape_broadcast(&p->shape, &norm, &bc) || bc.rank > norm.rank ||
                      !shape_equal(&bc, &norm)))
                return diag_error(d, g, node, "input %d %s does not broadcast to the normalized shape %s", i,
                                  opu_shape_str(&p->shape), opu_shape_str(&norm));
        }
        Shape st = x->shape; /* Mean and InvStdDev keep the leading dims, 1 for the rest */
        for (int i = axis; i < r; i++)
            st.dims[i] = 1;
        DType sdt = x->dtype;
        for (int i = 1; i < n->n_out; i++)
            opu_set_out(g, node, i, sdt, st);
        break;
    }
    case OP_MVN: {
        int na = 0;
        const int64_t *a = attr_ints(n, "axes", &na);
        int64_t axes[CTVM_MAX_RANK];
        int cnt = 0;
        if (!a) { /* default [0, 2, 3] */
            int64_t def[3] = {0, 2, 3};
            for (int i = 0; i < 3; i++)
                if (def[i] < r)
                    axes[cnt++] = def[i];
        } else {
            for (int i = 0; i < na && cnt < CTVM_MAX_RANK; i++) {
                int ax;
                if (opu_norm_axis(g, node, d, a[i], r, "axes", &ax))
                    return -1;
                axes[cnt++] = ax;
            }
        }
        node_set_ints(g, node, "axes", axes, cnt);
        ta->n_axes = cnt;
        memcpy(ta->axes, axes, (size_t)cnt * sizeof axes[0]);
        break;
    }
    case OP_LPNORM: { /* y = x / ||x||_p along axis, p 1 or 2 */
        int axis;
        int64_t p = attr_int(n, "p", 2);
        if (p != 1 && p != 2)
            return diag_error(d, g, node, "p must be 1 or 2, got %lld", (long long)p);
        if (opu_norm_axis(g, node, d, attr_int(n, "axis", -1), r, "axis", &axis))
            return -1;
        node_set_int(g, node, "axis", axis);
        node_set_int(g, node, "p", p);
        ta->axis = axis;
        ta->p = (int)p;
        break;
    }
    case OP_LRN: {
        int64_t size = attr_int(n, "size", 0);
        if (size <= 0)
            return diag_error(d, g, node, "size must be positive");
        if (r < 2)
            return diag_error(d, g, node, "input must have rank >= 2");
        ta->size = size;
        ta->alpha = attr_float(n, "alpha", 1e-4f);
        ta->beta = attr_float(n, "beta", 0.75f);
        ta->bias = attr_float(n, "bias", 1.0f);
        node_set_float(g, node, "alpha", ta->alpha);
        node_set_float(g, node, "beta", ta->beta);
        node_set_float(g, node, "bias", ta->bias);
        break;
    }
    default:
        return diag_error(d, g, node, "not a normalization (internal error)");
    }
    opu_set_out(g, node, 0, x->dtype, x->shape);
    return 0;
}

int op_norm_infer(Graph *g, int node, Diag *d)
{
    return g->nodes[node].op == OP_BATCHNORM ? infer_batchnorm(g, node, d) : infer_norm(g, node, d);
}

/* ---- the shared loop nest ---- */

typedef struct Norm Norm;
/* value of output element (the x value, its statistics, the index of every dim) */
typedef Expr *(*NormOutFn)(Norm *nm, Expr *x, Expr *mean, Expr *inv, LVar *const *v);

struct Norm {
    ComputeCtx *cx;
    const Node *n;
    const Shape *xs;
    int reduce[CTVM_MAX_RANK]; /* 1: the statistics run over this axis */
    LType t;                   /* type of the statistics */
    int mode;                  /* 0 mean/variance, 1 mean of squares (RMS), 2 MVN (E[x^2] - E[x]^2),
                                  3 / 4 LpNormalization p = 1 / 2 (sum |x|, sqrt of sum x^2) */
    Expr *lp_inv;              /* LpNormalization: 1 / norm, set by norm_nest */
    double eps;
    NormOutFn out;
    /* optional per-statistic outputs indexed by the kept axes (flat, row-major) */
    LBuf *mean_buf, *inv_buf, *var_buf;
    int group;                 /* GroupNorm: channels per group (axis 1 splits into group x within) */
    int lanes;                 /* the innermost axis is reduced and float32: its loops LR_LANES */
};

static Expr *flat(Norm *nm, LVar *const *v)
{
    Expr *idx[CTVM_MAX_RANK];
    for (int i = 0; i < nm->xs->rank; i++)
        idx[i] = lx_var(nm->cx->lb, v[i]);
    return compute_flat_index(nm->cx, nm->xs, idx);
}

/* index of the kept axes, row-major over their extents */
static Expr *kept_flat(Norm *nm, LVar *const *v)
{
    LoopBuilder *lb = nm->cx->lb;
    Expr *e = lx_int(lb, 0);
    for (int i = 0; i < nm->xs->rank; i++)
        if (!nm->reduce[i])
            e = lx_add(lb, lx_muli(lb, e, nm->xs->dims[i]), lx_var(lb, v[i]));
    return e;
}

/* loops over the reduced axes around s, with fresh variables written to v;
 * with nm->lanes the innermost one is contiguous (LR_LANES). */
static Stmt *reduced_loops(Norm *nm, LVar **v, Stmt *(*body)(Norm *, LVar **, void *), void *u)
{
    LoopBuilder *lb = nm->cx->lb;
    int rank = nm->xs->rank, last = rank - 1;
    for (int i = 0; i < rank; i++)
        if (nm->reduce[i])
            v[i] = lv_new(lb, "r");
    Stmt *s = body(nm, v, u);
    for (int i = last; i >= 0; i--)
        if (nm->reduce[i])
            s = ls_role(ls_for(lb, v[i], nm->xs->dims[i], LOOP_SERIAL, s), i == last && nm->lanes ? LR_LANES : LR_NONE, 0);
    return s;
}

typedef struct AccArg {
    LBuf *acc, *x;
    Expr *sub;  /* subtracted before squaring, or NULL */
    int square;
    int absval; /* sum |x| (LpNormalization p = 1) */
} AccArg;

static Stmt *acc_body(Norm *nm, LVar **v, void *u)
{
    LoopBuilder *lb = nm->cx->lb;
    AccArg *a = u;
    Expr *z = lx_int(lb, 0);
    Expr *x = lx_cast(lb, nm->t, lx_load(lb, a->x, flat(nm, v)));
    if (a->sub)
        x = lx_sub(lb, x, a->sub);
    if (a->square)
        x = lx_mul(lb, x, x);
    if (a->absval)
        x = lx_call(lb, CO_ABS, x);
    return ls_store(lb, a->acc, z, lx_add(lb, lx_load(lb, a->acc, z), x));
}

typedef struct OutArg {
    LBuf *x, *y;
    Expr *mean, *inv;
} OutArg;

static Stmt *out_body(Norm *nm, LVar **v, void *u)
{
    LoopBuilder *lb = nm->cx->lb;
    OutArg *a = u;
    Expr *x = lx_cast(lb, nm->t, lx_load(lb, a->x, flat(nm, v)));
    return ls_store(lb, a->y, flat(nm, v), nm->out(nm, x, a->mean, a->inv, v));
}

static Stmt *norm_nest(Norm *nm, LBuf *xb, LBuf *yb)
{
    LoopBuilder *lb = nm->cx->lb;
    int rank = nm->xs->rank;
    int64_t count = 1;
    for (int i = 0; i < rank; i++)
        if (nm->reduce[i])
            count *= nm->xs->dims[i];
    LVar *v[CTVM_MAX_RANK];
    for (int i = 0; i < rank; i++)
        if (!nm->reduce[i])
            v[i] = lv_new(lb, "k");
    LBuf *s1 = lbuf_new_typed(lb, "sum", LB_LOCAL, lt_dtype(nm->t), 1);
    LBuf *s2 = lbuf_new_typed(lb, "sq", LB_LOCAL, lt_dtype(nm->t), 1);
    Expr *z = lx_int(lb, 0), *zero = lx_zero(lb, nm->t), *cnt = lx_const_f(lb, nm->t, (double)count);
    Expr *mean = lx_div(lb, lx_load(lb, s1, z), cnt);
    Stmt *items[16];
    int k = 0;
    /* the innermost axis contiguous when it is reduced and float32 (the
       schedule may keep per-lane partials of s1 and s2 along it) */
    nm->lanes = nm->t == LT_F32 && nm->reduce[rank - 1];
    items[k++] = ls_store(lb, s1, z, zero);
    items[k++] = ls_store(lb, s2, z, zero);
    AccArg a1 = {s1, xb, NULL, nm->mode == 1 || nm->mode == 4, nm->mode == 3};
    items[k++] = reduced_loops(nm, v, acc_body, &a1);
    Expr *var_or_ms;
    if (nm->mode >= 3) { /* LpNormalization: 1/sum|x| or 1/sqrt(sum x^2) */
        Expr *sum = lx_load(lb, s1, z);
        var_or_ms = mean;
        Expr *inv = lx_div(lb, lx_one(lb, nm->t), nm->mode == 4 ? lx_call(lb, CO_SQRT, sum) : sum);
        /* a zero vector stays zero (the reference divides by a norm of 1 there) */
        nm->lp_inv = lx_select(lb, lx_bin(lb, BO_GT, sum, lx_zero(lb, nm->t)), inv, lx_zero(lb, nm->t));
    } else if (nm->mode == 0) {
        AccArg a2 = {s2, xb, mean, 1, 0};
        items[k++] = reduced_loops(nm, v, acc_body, &a2);
        var_or_ms = lx_div(lb, lx_load(lb, s2, z), cnt);
    } else if (nm->mode == 2) {
        AccArg a2 = {s2, xb, NULL, 1, 0};
        items[k++] = reduced_loops(nm, v, acc_body, &a2);
        var_or_ms = lx_sub(lb, lx_div(lb, lx_load(lb, s2, z), cnt), lx_mul(lb, mean, mean));
    } else {
        var_or_ms = mean; /* the mean of the squares */
    }
    Expr *inv;
    if (nm->mode >= 3)
        inv = nm->lp_inv;
    else if (nm->mode == 2) /* MVN: 1 / (sqrt(var) + eps) */
        inv = lx_div(lb, lx_one(lb, nm->t), lx_add(lb, lx_call(lb, CO_SQRT, var_or_ms), lx_const_f(lb, nm->t, nm->eps)));
    else
        inv = lx_div(lb, lx_one(lb, nm->t), lx_call(lb, CO_SQRT, lx_add(lb, var_or_ms, lx_const_f(lb, nm->t, nm->eps))));
    /* keep the statistics in registers for the output pass */
    LBuf *st = lbuf_new_typed(lb, "st", LB_LOCAL, lt_dtype(nm->t), 2);
    items[k++] = ls_store(lb, st, z, nm->mode == 1 || nm->mode >= 3 ? zero : mean);
    items[k++] = ls_store(lb, st, lx_int(lb, 1), inv);
    Expr *m = lx_load(lb, st, z), *iv = lx_load(lb, st, lx_int(lb, 1));
    if (nm->mean_buf)
        items[k++] = ls_store(lb, nm->mean_buf, kept_flat(nm, v), m);
    if (nm->inv_buf)
        items[k++] = ls_store(lb, nm->inv_buf, kept_flat(nm, v), iv);
    if (nm->var_buf)
        items[k++] = ls_store(lb, nm->var_buf, kept_flat(nm, v), var_or_ms);
    OutArg oa = {xb, yb, m, iv};
    items[k++] = reduced_loops(nm, v, out_body, &oa);
    Stmt *s = ls_alloc(lb, s1, ls_alloc(lb, s2, ls_alloc(lb, st, ls_seq(lb, k, items))));
    for (int i = rank - 1; i >= 0; i--)
        if (!nm->reduce[i])
            s = ls_for(lb, v[i], nm->xs->dims[i], LOOP_SERIAL, s);
    return s;
}

/* ---- per-op output functions ---- */

/* a per-channel (axis 1) parameter, or NULL when absent */
static Expr *param_c(Norm *nm, int input, Expr *c)
{
    const Node *n = nm->n;
    if (input >= n->n_in || n->in[input] < 0)
        return NULL;
    return lx_cast(nm->cx->lb, nm->t, lx_load(nm->cx->lb, nm->cx->buf_of(nm->cx, n->in[input]), c));
}

static Expr *affine(Norm *nm, Expr *y, Expr *scale, Expr *bias)
{
    LoopBuilder *lb = nm->cx->lb;
    if (scale)
        y = lx_mul(lb, y, scale);
    if (bias)
        y = lx_add(lb, y, bias);
    return y;
}

static Expr *out_instance(Norm *nm, Expr *x, Expr *mean, Expr *inv, LVar *const *v)
{
    LoopBuilder *lb = nm->cx->lb;
    Expr *c = lx_var(lb, v[1]);
    Expr *y = lx_mul(lb, lx_sub(lb, x, mean), inv);
    return affine(nm, y, param_c(nm, 1, c), param_c(nm, 2, c));
}

static Expr *out_group(Norm *nm, Expr *x, Expr *mean, Expr *inv, LVar *const *v)
{
    /* the norm nest's axis 1 is the group and axis 2 the channel within it */
    LoopBuilder *lb = nm->cx->lb;
    Expr *grp = lx_var(lb, v[1]);
    Expr *c = nm->n->version < 21 ? grp : lx_add(lb, lx_muli(lb, grp, nm->group), lx_var(lb, v[2]));
    Expr *y = lx_mul(lb, lx_sub(lb, x, mean), inv);
    LType xt = lt_of_dtype(nm->cx->g->values[nm->n->in[0]].dtype);
    y = lx_cast(lb, xt, y); /* the second stage does not use stash_type */
    Expr *sc = lx_cast(lb, xt, param_c(nm, 1, c)), *bi = lx_cast(lb, xt, param_c(nm, 2, c));
    return affine(nm, y, sc, bi);
}

/* LayerNorm / RMSNorm: parameters broadcast over the normalized dims */
static Expr *param_norm(Norm *nm, int input, LVar *const *v)
{
    const Node *n = nm->n;
    if (input >= n->n_in || n->in[input] < 0)
        return NULL;
    const Value *p = &nm->cx->g->values[n->in[input]];
    int axis = n->at.norm.axis, r = nm->xs->rank, off = r - p->shape.rank;
    Expr *idx[CTVM_MAX_RANK];
    for (int i = 0; i < p->shape.rank; i++)
        idx[i] = p->shape.dims[i] == 1 || i + off < axis ? lx_int(nm->cx->lb, 0) : lx_var(nm->cx->lb, v[i + off]);
    return lx_cast(nm->cx->lb, nm->t,
                   lx_load(nm->cx->lb, nm->cx->buf_of(nm->cx, n->in[input]), compute_flat_index(nm->cx, &p->shape, idx)));
}

static Expr *out_layer(Norm *nm, Expr *x, Expr *mean, Expr *inv, LVar *const *v)
{
    LoopBuilder *lb = nm->cx->lb;
    Expr *y = lx_mul(lb, lx_sub(lb, x, mean), inv);
    return affine(nm, y, param_norm(nm, 1, v), param_norm(nm, 2, v));
}

static Expr *out_rms(Norm *nm, Expr *x, Expr *mean, Expr *inv, LVar *const *v)
{
    (void)mean;
    return affine(nm, lx_mul(nm->cx->lb, x, inv), param_norm(nm, 1, v), NULL);
}

static Expr *out_rms_plain(Norm *nm, Expr *x, Expr *mean, Expr *inv, LVar *const *v)
{
    (void)mean;
    (void)v;
    return lx_mul(nm->cx->lb, x, inv);
}

static Expr *out_mvn(Norm *nm, Expr *x, Expr *mean, Expr *inv, LVar *const *v)
{
    (void)v;
    return lx_mul(nm->cx->lb, lx_sub(nm->cx->lb, x, mean), inv);
}

static Expr *out_bn_train(Norm *nm, Expr *x, Expr *mean, Expr *inv, LVar *const *v)
{
    return out_instance(nm, x, mean, inv, v);
}

/* ---- compute definitions ---- */

/* Inference BatchNormalization: a per-channel (or per-activation) affine map. */
static int compute_bn_infer(ComputeCtx *cx, int node, ComputeDef *def)
{
    LoopBuilder *lb = cx->lb;
    const Node *n = &cx->g->nodes[node];
    const Value *y = &cx->g->values[n->out[0]];
    ComputeStage *s = compute_stage_new(cx, def, n->name, cx->buf_of(cx, n->out[0]), &y->shape);
    s->out_is_node_output = 1;
    LType t = lt_of_dtype(cx->g->values[n->in[0]].dtype);
    Expr *p[5];
    for (int i = 1; i < 5; i++)
        p[i] = lx_cast(lb, t, compute_load_aligned(cx, n->in[i], &y->shape, s->axis, 1));
    Expr *x = lx_load(lb, cx->buf_of(cx, n->in[0]), s->out_index);
    Expr *inv = lx_div(lb, p[1], lx_call(lb, CO_SQRT, lx_add(lb, p[4], lx_const_f(lb, t, n->at.bn.epsilon))));
    s->body = lx_add(lb, lx_mul(lb, lx_sub(lb, x, p[3]), inv), p[2]);
    return 0;
}

/* Training BatchNormalization: batch statistics over every axis but 1; the
 * optional outputs are the running mean and variance (version 14+) or, from
 * 7 to 13, running mean, running variance, saved mean and saved variance. */
static int compute_bn_train(ComputeCtx *cx, int node, ComputeDef *def)
{
    LoopBuilder *lb = cx->lb;
    const Node *n = &cx->g->nodes[node];
    const Value *x = &cx->g->values[n->in[0]];
    Norm nm = {.cx = cx, .n = n, .xs = &x->shape, .t = lt_of_dtype(x->dtype), .mode = 0,
               .eps = n->at.bn.epsilon, .out = out_bn_train};
    for (int i = 0; i < x->shape.rank; i++)
        nm.reduce[i] = i != 1;
    int64_t C = x->shape.dims[1], count = 1;
    for (int i = 0; i < x->shape.rank; i++)
        if (i != 1)
            count *= x->shape.dims[i];
    /* the batch mean and variance go to local arrays, then the extra outputs */
    LBuf *mb = lbuf_new_typed(lb, "bmean", LB_LOCAL, lt_dtype(nm.t), C);
    LBuf *vb = lbuf_new_typed(lb, "bvar", LB_LOCAL, lt_dtype(nm.t), C);
    nm.mean_buf = mb;
    nm.var_buf = vb;
    Stmt *main = norm_nest(&nm, cx->buf_of(cx, n->in[0]), cx->buf_of(cx, n->out[0]));
    /* running statistics: input * momentum + batch * (1 - momentum); the
       batch variance from the inverse standard deviation */
    float mom = n->at.bn.momentum;
    LVar *c = lv_new(lb, "c");
    Expr *ce = lx_var(lb, c);
    Expr *bmean = lx_load(lb, mb, ce), *bvar = lx_load(lb, vb, ce);
    (void)count;
    Stmt *items[4];
    int k = 0;
    int run_mean = n->n_out > 1 ? n->out[1] : -1, run_var = n->n_out > 2 ? n->out[2] : -1;
    Expr *m = lx_const_f(lb, nm.t, mom), *m1 = lx_const_f(lb, nm.t, 1.0 - mom);
    if (run_mean >= 0)
        items[k++] = ls_store(lb, cx->buf_of(cx, run_mean), ce,
                              lx_add(lb, lx_mul(lb, param_c(&nm, 3, ce), m), lx_mul(lb, bmean, m1)));
    if (run_var >= 0)
        items[k++] = ls_store(lb, cx->buf_of(cx, run_var), ce,
                              lx_add(lb, lx_mul(lb, param_c(&nm, 4, ce), m), lx_mul(lb, bvar, m1)));
    if (n->version < 14 && n->n_out > 3 && n->out[3] >= 0)
        items[k++] = ls_store(lb, cx->buf_of(cx, n->out[3]), ce, bmean);
    if (n->version < 14 && n->n_out > 4 && n->out[4] >= 0)
        items[k++] = ls_store(lb, cx->buf_of(cx, n->out[4]), ce, bvar);
    Stmt *tail = ls_for(lb, c, C, LOOP_SERIAL, ls_seq(lb, k, items));
    def->custom = ls_alloc(lb, mb, ls_alloc(lb, vb, ls_seq2(lb, main, tail)));
    return 0;
}

int compute_norm(ComputeCtx *cx, int node, ComputeDef *def)
{
    const Node *n = &cx->g->nodes[node];
    const Value *x = &cx->g->values[n->in[0]];
    if (n->op == OP_BATCHNORM)
        return n->at.bn.training ? compute_bn_train(cx, node, def) : compute_bn_infer(cx, node, def);
    LoopBuilder *lb = cx->lb;
    LType t = lt_of_dtype(x->dtype);
    int r = x->shape.rank;
    const NormAttrs *na = &n->at.norm;
    Norm nm = {.cx = cx, .n = n, .xs = &x->shape, .t = t, .eps = na->epsilon};
    LBuf *xb = cx->buf_of(cx, n->in[0]), *yb = cx->buf_of(cx, n->out[0]);
    switch (n->op) {
    case OP_INSTANCENORM:
        for (int i = 2; i < r; i++)
            nm.reduce[i] = 1;
        nm.out = out_instance;
        break;
    case OP_GROUPNORM: {
        /* view x as [N, G, C/G, spatial...] and reduce over all but N and G */
        static Shape gs;
        int64_t G = na->num_groups, C = x->shape.dims[1];
        gs.rank = r + 1;
        gs.dims[0] = x->shape.dims[0];
        gs.dims[1] = G;
        gs.dims[2] = C / G;
        for (int i = 2; i < r; i++)
            gs.dims[i + 1] = x->shape.dims[i];
        nm.xs = &gs;
        for (int i = 2; i < gs.rank; i++)
            nm.reduce[i] = 1;
        nm.group = (int)(C / G);
        if (na->stash_f32)
            nm.t = LT_F32;
        nm.out = out_group;
        break;
    }
    case OP_LAYERNORM:
    case OP_RMSNORM: {
        int axis = na->axis;
        for (int i = axis; i < r; i++)
            nm.reduce[i] = 1;
        nm.mode = n->op == OP_RMSNORM;
        nm.out = n->op == OP_RMSNORM ? out_rms : out_layer;
        if (n->op == OP_LAYERNORM) {
            if (n->n_out > 1 && n->out[1] >= 0)
                nm.mean_buf = cx->buf_of(cx, n->out[1]);
            if (n->n_out > 2 && n->out[2] >= 0)
                nm.inv_buf = cx->buf_of(cx, n->out[2]);
        }
        break;
    }
    case OP_MVN: {
        for (int i = 0; i < na->n_axes; i++)
            nm.reduce[na->axes[i]] = 1;
        nm.mode = 2;
        nm.eps = 1e-9;
        nm.out = out_mvn;
        break;
    }
    case OP_LPNORM:
        nm.reduce[na->axis] = 1;
        nm.mode = na->p == 1 ? 3 : 4;
        nm.out = out_rms_plain;
        break;
    case OP_LRN: {
        /* y = x / (bias + alpha / size * sum of squares over the channel window) ^ beta */
        const Value *y = &cx->g->values[n->out[0]];
        ComputeStage *s = compute_stage_new(cx, def, n->name, yb, &y->shape);
        s->out_is_node_output = 1;
        int64_t size = na->size, C = x->shape.dims[1];
        int64_t lo = (size - 1) / 2, hi = size - 1 - lo; /* floor and ceil of (size-1)/2 */
        LVar *w = compute_add_raxis(cx, s, "w", size);
        Expr *cc = lx_add(lb, lx_var(lb, s->axis[1]), lx_add(lb, lx_var(lb, w), lx_int(lb, -lo)));
        Expr *idx[CTVM_MAX_RANK];
        for (int i = 0; i < r; i++)
            idx[i] = i == 1 ? cc : lx_var(lb, s->axis[i]);
        Expr *in = compute_bound(cx, lx_int(lb, 1), cc, lo, C - 1 + hi, C);
        Expr *xv = lx_cast(lb, t, lx_load(lb, xb, compute_flat_index(cx, &x->shape, idx)));
        s->body = lx_select(lb, in, lx_mul(lb, xv, xv), lx_zero(lb, t));
        s->red = RED_SUM;
        Expr *den = lx_add(lb, lx_const_f(lb, t, na->bias),
                           lx_mul(lb, lx_const_f(lb, t, na->alpha / (double)size),
                                  lx_var(lb, s->acc)));
        Expr *xc = lx_cast(lb, t, lx_load(lb, xb, s->out_index));
        s->finalize = lx_div(lb, xc, lx_bin(lb, BO_POW, den, lx_const_f(lb, t, na->beta)));
        return 0;
    }
    default:
        return compute_fail(cx, node, "not a normalization (internal error)");
    }
    def->custom = norm_nest(&nm, xb, yb);
    return 0;
}

DEFINE_EVAL_BY_COMPUTE(norm)
