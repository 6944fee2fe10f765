/* drop_identity.c - pass_drop_identity: remove Identity and inference-mode
 * Dropout (output 0 = input 0).
 *
 * A Dropout whose mask output (1) is used or is a graph output stays as it
 * is (its compute definition writes the all-true mask). For a node x -> y:
 *   - y is not a graph output: every use of y reads x instead; node dead.
 *   - y is a graph output and x is produced by a live node (and x is not a
 *     graph input, constant or graph output itself): the producer is made to
 *     write y directly and other readers of x read y, so the graph output
 *     keeps its name and position; node dead ("rename" choice).
 *   - otherwise (x is a graph input, a constant or another graph output):
 *     the node stays as an Identity copy (a Dropout becomes Identity with one
 *     input and one output), since the output must be a separate buffer.
 * Ends with graph_count_uses. */
#include "passes/passes.h"

static void make_identity(Graph *g, int node)
{
    Node *n = &g->nodes[node];
    n->op = OP_IDENTITY;
    n->op_type = "Identity";
    n->n_in = 1;
    n->n_out = 1;
    n->n_attrs = 0;
}

int pass_drop_identity(Graph *g, Diag *d)
{
    graph_count_uses(g);
    for (int i = 0; i < g->n_nodes; i++) {
        Node *n = &g->nodes[i];
        if (n->dead || (n->op != OP_IDENTITY && n->op != OP_DROPOUT))
            continue;
        if (n->n_in < 1 || n->in[0] < 0 || n->n_out < 1 || n->out[0] < 0)
            return diag_error(d, g, i, "needs input 0 and output 0");
        if (n->op == OP_DROPOUT && n->n_out > 1 && n->out[1] >= 0) {
            const Value *m = &g->values[n->out[1]];
            if (m->n_uses > 0 || m->is_output)
                continue;
        }
        int x = n->in[0], y = n->out[0];
        Value *vx = &g->values[x], *vy = &g->values[y];
        if (!vy->is_output) {
            n->dead = 1;
            graph_replace_uses(g, y, x);
            continue;
        }
        int p = vx->producer;
        if (p >= 0 && !g->nodes[p].dead && !vx->is_input && !vx->is_output && !value_is_const(vx)) {
            n->dead = 1;
            graph_replace_uses(g, x, y);
            Node *pn = &g->nodes[p];
            for (int k = 0; k < pn->n_out; k++)
                if (pn->out[k] == x)
                    pn->out[k] = y;
            g->values[y].producer = p;
            g->values[x].producer = -1;
            continue;
        }
        make_identity(g, i);
    }
    graph_count_uses(g);
    return 0;
}
