/* dropout.c - Dropout (versions 1..22) at inference: the output is the
 * input and the optional mask output is all ones (bool true from version
 * 10 on, the input's type before).
 *
 * Training is random, so it is refused unless it cannot drop anything:
 * version < 7 with is_test = 0, or version >= 12 with a true
 * training_mode input, is accepted only when the ratio is 0. The
 * training_mode and ratio inputs must then be constant. No attribute is
 * normalised: the compute definition needs none. */
#include "ops/compute.h"
#include "ops/op_util.h"
#include "ops/ops.h"

/* The ratio in force, from the attribute (< 12) or input 1 (>= 12). */
static int read_ratio(Graph *g, int node, Diag *d, double *ratio)
{
    Node *n = &g->nodes[node];
    *ratio = 0.5;
    if (n->version < 12) {
        const Attr *a = node_attr(n, "ratio");
        if (a && a->kind == ATTR_FLOAT)
            *ratio = a->f;
        return 0;
    }
    Value *r = opu_in(g, node, 1);
    if (!r)
        return 0;
    if (!value_is_const(r))
        return opu_need_const(g, node, d, 1, "ratio (training_mode is true)");
    int64_t cnt;
    if (!shape_numel(&r->shape, &cnt) || cnt != 1)
        return diag_error(d, g, node, "ratio must be a scalar");
    *ratio = tensor_get_f64(r->dtype, r->data, 0);
    return 0;
}

int op_dropout_infer(Graph *g, int node, Diag *d)
{
    Node *n = &g->nodes[node];
    int v = n->version;
    if (opu_check_arity(g, node, d, 1, v >= 12 ? 3 : 1, 1, 2))
        return -1;
    Value *x = opu_in(g, node, 0);
    if (!dtype_is_float(x->dtype) && v < 12)
        return diag_error(d, g, node, "input type %s is not a float type", dtype_name(x->dtype));
    int training = 0;
    if (v < 7) {
        training = attr_int(n, "is_test", 0) == 0;
    } else if (v >= 12) {
        Value *tm = opu_in(g, node, 2);
        if (tm) {
            if (!value_is_const(tm))
                return opu_need_const(g, node, d, 2, "training_mode");
            training = tensor_get_i64(tm->dtype, tm->data, 0) != 0;
        }
    }
    if (training) {
        double ratio;
        if (read_ratio(g, node, d, &ratio))
            return -1;
        if (ratio != 0)
            return diag_error(d, g, node, "training mode (%s) with ratio %g drops elements at "
                              "random; only inference (or ratio 0) is supported",
                              v < 7 ? "is_test = 0" : "training_mode = true", ratio);
    }
    opu_set_out(g, node, 0, x->dtype, x->shape);
    opu_set_out(g, node, 1, v >= 10 ? DT_BOOL : x->dtype, x->shape);
    return 0;
}

int compute_dropout(ComputeCtx *cx, int node, ComputeDef *def)
{
    LoopBuilder *lb = cx->lb;
    const Node *n = &cx->g->nodes[node];
    const Value *y = &cx->g->values[n->out[0]];
    ComputeStage *s = compute_stage_new(cx, def, n->name, cx->buf_of(cx, n->out[0]), &y->shape);
    s->out_is_node_output = 1;
    s->body = lx_load(lb, cx->buf_of(cx, n->in[0]), s->out_index);
    if (n->n_out > 1 && n->out[1] >= 0) {
        const Value *m = &cx->g->values[n->out[1]];
        ComputeStage *ms = compute_stage_new(cx, def, n->name, cx->buf_of(cx, n->out[1]), &m->shape);
        ms->out_is_node_output = 1;
        ms->body = m->dtype == DT_BOOL ? lx_const_i(lb, LT_BOOL, 1) : lx_one(lb, lt_of_dtype(m->dtype));
    }
    return 0;
}

DEFINE_EVAL_BY_COMPUTE(dropout)
