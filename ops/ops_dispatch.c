/* ops_dispatch.c - ops_infer / ops_eval / ops_can_fold: find the family of a
 * node through the X-macro table of ir/op_table.h (no string comparisons). */
#include "ops/ops.h"
#include "ops/ops_fold.h"

#include <string.h>

#include "ir/ms_op_table.h"

typedef int (*OpFn)(Graph *g, int node, Diag *d);

static const OpFn INFER[OP_COUNT] = {
#define X(e, name, fam, lo, hi, fl) [OP_##e] = op_##fam##_infer,
    CTVM_OPS(X)
#undef X
};

static const OpFn EVAL[OP_COUNT] = {
#define X(e, name, fam, lo, hi, fl) [OP_##e] = op_##fam##_eval,
    CTVM_OPS(X)
#undef X
};

static int unknown(Graph *g, int node, Diag *d)
{
    const Node *n = &g->nodes[node];
    if (n->domain && strcmp(n->domain, CTVM_MS_DOMAIN) == 0)
        return diag_error(d, g, node, "operator %s of domain '%s' is not supported (ctvm imports these "
                          "%s operators: %s)", n->op_type, n->domain, CTVM_MS_DOMAIN, ms_op_list());
    if (n->domain && *n->domain)
        return diag_error(d, g, node, "operator %s of domain '%s' is not supported",
                          n->op_type, n->domain);
    return diag_error(d, g, node, "operator %s is not supported", n->op_type);
}

int ops_infer(Graph *g, int node, Diag *d)
{
    OpKind k = g->nodes[node].op;
    if (k <= OP_UNKNOWN || k >= OP_COUNT || !INFER[k])
        return unknown(g, node, d);
    return INFER[k](g, node, d);
}

int ops_eval(Graph *g, int node, const struct Target *t, Diag *d)
{
    OpKind k = g->nodes[node].op;
    if (k <= OP_UNKNOWN || k >= OP_COUNT || !EVAL[k])
        return unknown(g, node, d);
    int r = EVAL[k](g, node, d);
    return r == OPS_EVAL_BY_COMPUTE ? ops_eval_compute(g, node, t, d) : r;
}

int ops_can_fold(const Graph *g, const Node *n)
{
    if (n->dead || n->op <= OP_UNKNOWN || n->op >= OP_COUNT)
        return 0;
    if (n->op == OP_SHAPE || n->op == OP_SIZE)
        return n->n_in >= 1 && n->in[0] >= 0 && shape_is_static(&g->values[n->in[0]].shape) &&
               !g->values[n->in[0]].dyn;
    for (int i = 0; i < n->n_in; i++)
        if (n->in[i] >= 0 && !value_is_const(&g->values[n->in[i]]))
            return 0;
    return 1;
}
