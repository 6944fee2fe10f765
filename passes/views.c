/* views.c - pass "views": Reshape, Flatten, Squeeze and Unsqueeze keep the
 * bytes and change only the shape, so their output becomes a zero-copy view
 * of their input and they emit no code. A node whose output is a graph
 * output stays a copy (the caller's output buffer must be written), and so
 * does one whose input is a constant (folding handles those). */
#include "passes.h"

int pass_views(Graph *g, Diag *d)
{
    (void)d;
    for (int i = 0; i < g->n_nodes; i++) {
        Node *n = &g->nodes[i];
        if (n->dead || !op_is_reshape(n->op) || n->in[0] < 0)
            continue;
        Value *src = &g->values[n->in[0]], *dst = &g->values[n->out[0]];
        if (dst->is_output || src->data || src->dtype != dst->dtype || dst->dyn)
            continue;
        n->is_view = 1;
        dst->storage = STORE_VIEW;
        dst->view_of = n->in[0];
    }
    return 0;
}
