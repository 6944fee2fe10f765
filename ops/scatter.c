/* scatter.c - the scatters: Scatter (9, deprecated; 11 is ScatterElements
 * under its old name), ScatterElements (11..18), ScatterND (11..18) and
 * TensorScatter (24). Every data type; int32 or int64 indices, which may be
 * run-time values. The output starts as a copy of the data; then every
 * update is written, in row-major order of the updates (so with duplicate
 * indices and reduction "none" the last one wins, as in the reference).
 *
 *   ScatterElements y[i with coordinate "axis" replaced by ind[i]] (op)= upd[i];
 *                   indices and updates share a shape of the data's rank.
 *   ScatterND       the last dim k of the indices addresses the first k dims
 *                   of the data: y[ind[i..., :], j...] (op)= upd[i..., j...].
 *   reduction       "none" (assign), "add", "mul" (16+), "max", "min" (18+);
 *                   on bool add/max are "or", mul/min are "and".
 *   TensorScatter   a KV-cache update along "axis" (not the batch axis 0):
 *                   y[p..., t, q...] = upd[p..., t - w[p0], q...] when that
 *                   lies inside the update (w = write_indices, 0 when
 *                   absent; "circular" mode takes t - w modulo the axis),
 *                   else past[p..., t, q...]. Written as a gather, one stage.
 *
 * A negative index counts from the end of its axis. Constant indices are
 * checked against the axis at compile time; a run-time index outside
 * [-dim, dim) is clamped into the axis, so generated code never writes
 * outside the output.
 *
 * Normalised attributes after infer: "axis" >= 0 (ScatterElements, Scatter,
 * TensorScatter), "reduction" one of none/add/mul/max/min ("none" for
 * versions without it); typed: Node.at.scatter. */
#include <string.h>

#include "ops/compute.h"
#include "ops/index_util.h"
#include "ops/op_util.h"
#include "ops/ops.h"

enum { RD_NONE, RD_ADD, RD_MUL, RD_MAX, RD_MIN };

static int reduction_code(const char *s)
{
    static const char *names[] = {"none", "add", "mul", "max", "min"};
    for (int i = 0; i < 5; i++)
        if (!strcmp(s, names[i]))
            return i;
    return -1;
}

static int infer_reduction(Graph *g, int node, Diag *d)
{
    Node *n = &g->nodes[node];
    int v = n->version;
    const char *r = (n->op == OP_SCATTER || v < 16) ? "none" : attr_string(n, "reduction", "none");
    int code = reduction_code(r);
    if (code < 0 || (v < 18 && code >= RD_MAX))
        return diag_error(d, g, node, "reduction '%s' is not defined at version %d", r, v);
    if (node_attr(n, "reduction"))
        opu_set_string(g, node, "reduction", r);
    n->at.scatter.reduction = code;
    return 0;
}

static int infer_scatter_elements(Graph *g, int node, Diag *d)
{
    Value *x = opu_in(g, node, 0), *iv = opu_in(g, node, 1), *u = opu_in(g, node, 2);
    int axis;
    if (x->shape.rank < 1)
        return diag_error(d, g, node, "data must have rank >= 1");
    if (idx_read_axis(g, node, d, &axis))
        return -1;
    if (iv->shape.rank != x->shape.rank || !shape_equal(&iv->shape, &u->shape))
        return diag_error(d, g, node, "indices %s and updates %s must have one shape of the data's rank %d",
                          opu_shape_str(&iv->shape), opu_shape_str(&u->shape), x->shape.rank);
    if (idx_check_elements(g, node, d, iv, x, axis, "scatters into an empty axis"))
        return -1;
    node_set_int(g, node, "axis", axis);
    g->nodes[node].at.scatter.axis = axis;
    opu_set_out(g, node, 0, x->dtype, x->shape);
    return 0;
}

static int infer_scatter_nd(Graph *g, int node, Diag *d)
{
    Value *x = opu_in(g, node, 0), *iv = opu_in(g, node, 1), *u = opu_in(g, node, 2);
    int q = iv->shape.rank, r = x->shape.rank;
    if (q < 1 || r < 1)
        return diag_error(d, g, node, "data and indices must have rank >= 1");
    int64_t k = iv->shape.dims[q - 1];
    if (k < 1 || k > r)
        return diag_error(d, g, node, "indices' last dim %lld must be in [1, %d]", (long long)k, r);
    if (idx_check(g, node, d, 1, x->shape.dims, (int)k))
        return -1;
    Shape want = shape_make(0, NULL);
    for (int i = 0; i < q - 1; i++)
        want.dims[want.rank++] = iv->shape.dims[i];
    for (int i = (int)k; i < r; i++) {
        if (want.rank >= CTVM_MAX_RANK)
            return diag_error(d, g, node, "updates rank exceeds %d", CTVM_MAX_RANK);
        want.dims[want.rank++] = x->shape.dims[i];
    }
    if (!shape_equal(&want, &u->shape))
        return diag_error(d, g, node, "updates %s must have shape %s", opu_shape_str(&u->shape),
                          opu_shape_str(&want));
    int64_t cnt;
    if (opu_numel(g, node, d, &iv->shape, &cnt))
        return -1;
    for (int i = 0; cnt > 0 && i < k; i++)
        if (x->shape.dims[i] == 0)
            return diag_error(d, g, node, "scatters into an empty axis");
    opu_set_out(g, node, 0, x->dtype, x->shape);
    return 0;
}

static int infer_tensor_scatter(Graph *g, int node, Diag *d)
{
    Node *n = &g->nodes[node];
    Value *x = opu_in(g, node, 0), *u = opu_in(g, node, 1), *w = opu_in(g, node, 2);
    int r = x->shape.rank, axis;
    if (r < 2)
        return diag_error(d, g, node, "past_cache must have rank >= 2");
    if (opu_norm_axis(g, node, d, attr_int(n, "axis", -2), r, "axis", &axis))
        return -1;
    if (axis == 0)
        return diag_error(d, g, node, "axis must not be the batch axis 0");
    const char *mode = attr_string(n, "mode", "linear");
    if (strcmp(mode, "linear") && strcmp(mode, "circular"))
        return diag_error(d, g, node, "mode '%s' is neither linear nor circular", mode);
    if (u->dtype != x->dtype || u->shape.rank != r)
        return diag_error(d, g, node, "update must have past_cache's type and rank");
    for (int i = 0; i < r; i++)
        if (i == axis ? u->shape.dims[i] > x->shape.dims[i] : u->shape.dims[i] != x->shape.dims[i])
            return diag_error(d, g, node, "update %s does not fit past_cache %s",
                              opu_shape_str(&u->shape), opu_shape_str(&x->shape));
    if (w && (w->dtype != DT_INT64 || w->shape.rank != 1 || w->shape.dims[0] != x->shape.dims[0]))
        return diag_error(d, g, node, "write_indices must be int64 of shape [%lld]",
                          (long long)x->shape.dims[0]);
    node_set_int(g, node, "axis", axis);
    n->at.scatter.axis = axis;
    n->at.scatter.circular = !strcmp(mode, "circular");
    opu_set_out(g, node, 0, x->dtype, x->shape);
    return 0;
}

int op_scatter_infer(Graph *g, int node, Diag *d)
{
    int ts = g->nodes[node].op == OP_TENSORSCATTER;
    if (opu_check_arity(g, node, d, ts ? 2 : 3, 3, 1, 1))
        return -1;
    g->nodes[node].at.scatter = (ScatterAttrs){.reduction = RD_NONE};
    Value *x = opu_in(g, node, 0);
    if (!dtype_supported(x->dtype) || x->dtype == DT_STRING)
        return diag_error(d, g, node, "data type %s is not supported", dtype_name(x->dtype));
    if (ts)
        return infer_tensor_scatter(g, node, d);
    if (opu_in(g, node, 2)->dtype != x->dtype)
        return diag_error(d, g, node, "updates (%s) and data (%s) differ in type",
                          dtype_name(opu_in(g, node, 2)->dtype), dtype_name(x->dtype));
    if (infer_reduction(g, node, d))
        return -1;
    if (g->nodes[node].op == OP_SCATTERND)
        return infer_scatter_nd(g, node, d);
    return infer_scatter_elements(g, node, d);
}

/* old (op) upd for a reduction; bool add/max are or, mul/min are and. */
static Expr *combine(LoopBuilder *lb, int red, Expr *old, Expr *upd)
{
    int is_bool = old->type == LT_BOOL;
    switch (red) {
    case RD_ADD: return lx_bin(lb, is_bool ? BO_OR : BO_ADD, old, upd);
    case RD_MUL: return lx_bin(lb, is_bool ? BO_AND : BO_MUL, old, upd);
    case RD_MAX: return lx_bin(lb, is_bool ? BO_OR : BO_MAX, old, upd);
    case RD_MIN: return lx_bin(lb, is_bool ? BO_AND : BO_MIN, old, upd);
    default: return upd;
    }
}

/* Serial loops over vars[0..n) with the given extents around body. */
static Stmt *nest(LoopBuilder *lb, int n, LVar *const *vars, const int64_t *ext, Stmt *body)
{
    for (int i = n - 1; i >= 0; i--)
        body = ls_for(lb, vars[i], ext[i], LOOP_SERIAL, body);
    return body;
}

static int compute_tensor_scatter(ComputeCtx *cx, int node, ComputeDef *def)
{
    LoopBuilder *lb = cx->lb;
    const Node *n = &cx->g->nodes[node];
    const Value *x = &cx->g->values[n->in[0]], *u = &cx->g->values[n->in[1]];
    int axis = n->at.scatter.axis, circ = n->at.scatter.circular;
    int64_t M = x->shape.dims[axis], S = u->shape.dims[axis];
    ComputeStage *s = compute_stage_new(cx, def, n->name, cx->buf_of(cx, n->out[0]), &x->shape);
    s->out_is_node_output = 1;
    Expr *w = lx_const_i(lb, LT_I64, 0);
    if (n->n_in > 2 && n->in[2] >= 0)
        w = lx_cast(lb, LT_I64, lx_load(lb, cx->buf_of(cx, n->in[2]), lx_var(lb, s->axis[0])));
    /* position inside the update: t - w (modulo M in circular mode) */
    Expr *p = lx_sub(lb, lx_cast(lb, LT_I64, lx_var(lb, s->axis[axis])), w);
    if (circ && M > 0) {
        Expr *m = lx_const_i(lb, LT_I64, M);
        p = lx_bin(lb, BO_MOD, lx_add(lb, lx_bin(lb, BO_MOD, p, m), m), m);
    }
    Expr *inside = lx_bin(lb, BO_AND, lx_bin(lb, BO_GE, p, lx_const_i(lb, LT_I64, 0)),
                          lx_bin(lb, BO_LT, p, lx_const_i(lb, LT_I64, S)));
    Expr *ui[CTVM_MAX_RANK];
    for (int a = 0; a < x->shape.rank; a++)
        ui[a] = lx_var(lb, s->axis[a]);
    /* clamped so the load stays inside the update even where it is not selected */
    Expr *pc = lx_bin(lb, BO_MIN, lx_bin(lb, BO_MAX, p, lx_const_i(lb, LT_I64, 0)),
                      lx_const_i(lb, LT_I64, S > 0 ? S - 1 : 0));
    ui[axis] = lx_cast(lb, LT_IDX, pc);
    Expr *past = lx_load(lb, cx->buf_of(cx, n->in[0]), s->out_index);
    if (S == 0) {
        s->body = past;
        return 0;
    }
    Expr *upd = lx_load(lb, cx->buf_of(cx, n->in[1]), compute_flat_index(cx, &u->shape, ui));
    s->body = lx_select(lb, inside, upd, past);
    return 0;
}

int compute_scatter(ComputeCtx *cx, int node, ComputeDef *def)
{
    if (cx->g->nodes[node].op == OP_TENSORSCATTER)
        return compute_tensor_scatter(cx, node, def);
    LoopBuilder *lb = cx->lb;
    const Node *n = &cx->g->nodes[node];
    const Value *x = &cx->g->values[n->in[0]], *iv = &cx->g->values[n->in[1]];
    const Value *u = &cx->g->values[n->in[2]];
    LBuf *xb = cx->buf_of(cx, n->in[0]), *ib = cx->buf_of(cx, n->in[1]);
    LBuf *ub = cx->buf_of(cx, n->in[2]), *yb = cx->buf_of(cx, n->out[0]);
    int red = n->at.scatter.reduction;
    int64_t total = 0;
    if (!shape_numel(&x->shape, &total))
        return compute_fail(cx, node, "data size unknown");
    /* y = data */
    LVar *f = lv_new(lb, "f");
    Stmt *copy = ls_for(lb, f, total, LOOP_SERIAL,
                        ls_store(lb, yb, lx_var(lb, f), lx_load(lb, xb, lx_var(lb, f))));
    LVar *v[CTVM_MAX_RANK];
    Expr *yi[CTVM_MAX_RANK], *ii[CTVM_MAX_RANK], *ui[CTVM_MAX_RANK];
    Stmt *loops;
    for (int a = 0; a < u->shape.rank; a++) {
        v[a] = lv_new(lb, "i");
        ui[a] = lx_var(lb, v[a]);
    }
    if (n->op == OP_SCATTERND) {
        int q = iv->shape.rank, k = (int)iv->shape.dims[q - 1];
        for (int j = 0; j < q - 1; j++)
            ii[j] = ui[j];
        for (int a = 0; a < x->shape.rank; a++) {
            if (a < k) {
                ii[q - 1] = lx_int(lb, a);
                yi[a] = idx_load_clamped(lb, ib, compute_flat_index(cx, &iv->shape, ii), x->shape.dims[a]);
            } else {
                yi[a] = ui[q - 1 + a - k];
            }
        }
    } else {
        int axis = n->at.scatter.axis;
        for (int a = 0; a < x->shape.rank; a++)
            yi[a] = a == axis ? idx_load_clamped(lb, ib, compute_flat_index(cx, &u->shape, ui), x->shape.dims[a])
                              : ui[a];
    }
    Expr *yf = compute_flat_index(cx, &x->shape, yi);
    Expr *upd = lx_load(lb, ub, compute_flat_index(cx, &u->shape, ui));
    Stmt *body = ls_store(lb, yb, yf, combine(lb, red, lx_load(lb, yb, yf), upd));
    loops = nest(lb, u->shape.rank, v, u->shape.dims, body);
    def->custom = ls_seq2(lb, copy, loops);
    return 0;
}

DEFINE_EVAL_BY_COMPUTE(scatter)
