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
 * If, Loop and Scan are expanded into straight-line nodes where they stand
 * (passes/control_flow.c), which are then inferred like any other.
 * Ends with graph_count_uses. */
#include "ops/dynprop.h"
#include "ops/ops.h"
#include "ops/ops_fold.h"
#include "ops/op_util.h"
#include "passes/control_flow.h"
#include "passes/passes.h"

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
static int infer_node(Graph *g, int i, Diag *d)
{
    if (g->nodes[i].dead)
        return 1;
    if (cf_is_control(g->nodes[i].op))
        return cf_expand(g, i, d, infer_node);
    if (check_inputs(g, i, d) || ops_infer(g, i, d) || dyn_infer(g, i, d))
        return -1;
    if (!ops_can_fold(g, &g->nodes[i]))
        return 1;
    int r = ops_eval(g, i, d);
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

int pass_infer_fold(Graph *g, Diag *d)
{
    for (int i = 0; i < g->n_nodes;) {
        int r = infer_node(g, i, d);
        if (r < 0)
            return -1;
        i += r;
    }
    graph_count_uses(g);
    return 0;
}
