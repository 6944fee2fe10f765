/* infer_fold.c - pass_infer_fold: shape inference and constant folding in
 * one walk over the nodes in topological order.
 *
 * For each live node: every present input must have a known dtype and a
 * static shape (else an error asking for --input-shapes), ops_infer sets the
 * output types and normalises the attributes, and when ops_can_fold says so
 * ops_eval computes the outputs, which become constants (Value.data,
 * STORE_CONST, no producer) while the node is marked dead. Folding happens
 * before the next node is inferred, so Shape -> Gather -> Unsqueeze ->
 * Concat chains turn into the constant shape input of a Reshape whose data
 * input stays a runtime value. Idempotent: folded nodes are dead, live ones
 * are re-inferred from normalised attributes that are a fixed point.
 * Every graph input and every inferred output must have at most
 * CTVM_MAX_NUMEL elements (the generated C indexes with int), so no later
 * stage multiplies dims that overflow; folding is capped by opu_fold_reserve.
 * If, Loop and Scan are expanded into straight-line nodes where they stand
 * (passes/control_flow.c), which are then inferred like any other; so are
 * the com.microsoft operators ctvm imports, rewritten into standard ones
 * where they stand once their inputs are known (passes/lower_msquant.c).
 * Ends with graph_count_uses. */
#include <stdio.h>

#include "ops/dynprop.h"
#include "ops/ops.h"
#include "ops/ops_fold.h"
#include "ops/op_util.h"
#include "passes/control_flow.h"
#include "passes/lower_msquant.h"
#include "passes/passes.h"

/* Value vid (made by node, or -1 for a graph input) indexable by the
 * generated C: each dim and its element count fit CTVM_MAX_NUMEL (so its
 * bytes and any product of its dims fit int64 too). */
static int check_size(Graph *g, int node, int vid, Diag *d)
{
    const Value *v = &g->values[vid];
    if (!shape_is_static(&v->shape))
        return 0;
    /* every dim too: a dim past int with another dim 0 has no elements, but
       its loops and strides still would not fit (found by fuzz_model) */
    for (int a = 0; a < v->shape.rank; a++)
        if (v->shape.dims[a] > CTVM_MAX_NUMEL)
            return diag_error(d, g, node,
                              "%s '%s' of shape %s has dimension %lld at axis %d; the generated C indexes "
                              "tensors with int, so at most %lld",
                              node < 0 ? "input" : "value", v->name, opu_shape_str(&v->shape),
                              (long long)v->shape.dims[a], a, (long long)CTVM_MAX_NUMEL);
    int64_t numel;
    int fits = shape_numel(&v->shape, &numel);
    if (fits && numel <= CTVM_MAX_NUMEL)
        return 0;
    char count[64] = "more than 2^63";
    if (fits)
        snprintf(count, sizeof count, "%lld", (long long)numel);
    return diag_error(d, g, node,
                      "%s '%s' of shape %s has %s elements; the generated C indexes tensors "
                      "with int, so at most %lld",
                      node < 0 ? "input" : "value", v->name, opu_shape_str(&v->shape), count,
                      (long long)CTVM_MAX_NUMEL);
}

/* a + b, saturating at INT64_MAX (both >= 0) */
static int64_t add_sat(int64_t a, int64_t b)
{
    return b > INT64_MAX - a ? INT64_MAX : a + b;
}

/* The model's own constant bytes, the base of the default folding cap:
 * constants (initializers, --bind) and tensor attributes (Constant), in
 * subgraphs too. */
static int64_t model_const_bytes(const Graph *g)
{
    int64_t sum = 0, b;
    for (int v = 0; v < g->n_values; v++)
        if (g->values[v].data && value_bytes(&g->values[v], &b))
            sum = add_sat(sum, b);
    for (int i = 0; i < g->n_nodes; i++)
        for (int k = 0; k < g->nodes[i].n_attrs; k++) {
            const Attr *a = &g->nodes[i].attrs[k];
            int64_t n;
            if (a->kind == ATTR_GRAPH && a->graph) {
                sum = add_sat(sum, model_const_bytes(a->graph));
            } else if (a->kind == ATTR_TENSOR && a->t && shape_numel(&a->t->shape, &n) &&
                dtype_bytes(a->t->dtype, n, &b))
                sum = add_sat(sum, b);
        }
    return sum;
}

static int check_inputs(Graph *g, int node, Diag *d)
{
    const Node *n = &g->nodes[node];
    for (int k = 0; k < n->n_in; k++) {
        if (n->in[k] < 0)
            continue;
        const Value *v = &g->values[n->in[k]];
        if (v->dtype == DT_UNDEFINED)
            return diag_error(d, g, node, "input %d ('%s') has no known dtype", k, v->name);
        if (!shape_is_static(&v->shape))
            return diag_error(d, g, node,
                              "input %d ('%s') has a non-static shape %s; "
                              "fix it with --input-shapes", k, v->name,
                              opu_shape_str(&v->shape));
    }
    return 0;
}

/* Infers and, when it can, folds node i; expands control flow in place.
 * Returns the number of node slots done from i on (see control_flow.h). */
static int infer_node(Graph *g, int i, const CodegenOptions *cg, Diag *d)
{
    if (g->nodes[i].dead)
        return 1;
    if (cf_is_control(g->nodes[i].op))
        return cf_expand(g, i, cg, d, infer_node);
    if (msq_kind(g, i) != MS_UNKNOWN) /* 0 done: slot i now holds the first new node */
        return check_inputs(g, i, d) || msq_lower(g, i, d) ? -1 : 0;
    if (check_inputs(g, i, d) || ops_infer(g, i, d) || dyn_infer(g, i, d))
        return -1;
    for (int k = 0; k < g->nodes[i].n_out; k++)
        if (g->nodes[i].out[k] >= 0 && check_size(g, i, g->nodes[i].out[k], d))
            return -1;
    if (!ops_can_fold(g, &g->nodes[i]))
        return 1;
    int r = ops_eval(g, i, cg->target, d);
    if (r < 0)
        return -1;
    if (r == 0)
        return 1;
    Node *n = &g->nodes[i];
    for (int k = 0; k < n->n_out; k++) {
        if (n->out[k] < 0)
            continue;
        Value *v = &g->values[n->out[k]];
        v->storage = STORE_CONST;
        v->producer = -1;
    }
    n->dead = 1;
    return 1;
}

int pass_infer_fold(Graph *g, const CodegenOptions *cg, Diag *d)
{
    if (g->fold_base == 0 && g->fold_bytes == 0) /* once: before anything is folded */
        g->fold_base = model_const_bytes(g);
    for (int k = 0; k < g->n_inputs; k++)
        if (check_size(g, -1, g->inputs[k], d))
            return -1;
    for (int i = 0; i < g->n_nodes;) {
        int r = infer_node(g, i, cg, d);
        if (r < 0)
            return -1;
        i += r;
    }
    graph_count_uses(g);
    return 0;
}
