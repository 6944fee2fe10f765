/* dce.c - pass_dce: dead-code elimination.
 *
 * A value is needed when it is a graph output or an input of a node with a
 * needed output. Walking the nodes backwards (they are in topological order)
 * marks every live node with no needed output dead. Values keep their ids;
 * constants that nothing uses any more (and that are not graph outputs) get
 * storage STORE_NONE so the back end does not emit them (their data stays).
 * Ends with graph_count_uses. */
#include <stdlib.h>

#include "passes/passes.h"

int pass_dce(Graph *g, Diag *d)
{
    char *needed = calloc((size_t)(g->n_values ? g->n_values : 1), 1);
    if (!needed)
        return diag_error(d, g, -1, "out of memory in dce");
    for (int k = 0; k < g->n_outputs; k++)
        needed[g->outputs[k]] = 1;
    for (int i = g->n_nodes - 1; i >= 0; i--) {
        Node *n = &g->nodes[i];
        if (n->dead)
            continue;
        int any = 0;
        for (int k = 0; k < n->n_out; k++)
            if (n->out[k] >= 0 && needed[n->out[k]])
                any = 1;
        if (!any) {
            n->dead = 1;
            continue;
        }
        for (int k = 0; k < n->n_in; k++)
            if (n->in[k] >= 0)
                needed[n->in[k]] = 1;
    }
    free(needed);
    graph_count_uses(g);
    for (int v = 0; v < g->n_values; v++) {
        Value *val = &g->values[v];
        if (val->data && val->storage == STORE_CONST && val->n_uses == 0 && !val->is_output)
            val->storage = STORE_NONE;
    }
    return 0;
}
