/* exec_order.c - run order of fused groups (see exec_order.h). */
#include "exec_order.h"

int group_last_node(const Graph *g, int anchor)
{
    const Node *n = &g->nodes[anchor];
    int last = anchor;
    for (int i = 0; i < n->n_epi; i++)
        if (n->epi[i] > last)
            last = n->epi[i];
    return last;
}

int graph_exec_order(const Graph *g, int *order)
{
    /* position p holds the anchor whose last node is p (at most one) */
    int count = 0;
    for (int p = 0; p < g->n_nodes; p++) {
        const Node *n = &g->nodes[p];
        if (n->dead || n->is_view)
            continue;
        if (n->fused_into >= 0) {
            if (group_last_node(g, n->fused_into) == p)
                order[count++] = n->fused_into;
        } else if (group_last_node(g, p) == p) {
            order[count++] = p;
        }
    }
    return count;
}

int value_root(const Graph *g, int vid)
{
    int guard = 0;
    while (vid >= 0 && g->values[vid].storage == STORE_VIEW && guard++ < g->n_values)
        vid = g->values[vid].view_of;
    return vid;
}
