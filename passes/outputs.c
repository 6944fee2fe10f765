/* outputs.c - pass "outputs": every graph output gets a buffer of its own
 * written by a kernel.
 *
 * After folding, a graph output may be a constant (Shape of a static input,
 * a fully bound model), a graph input passed straight through, or the same
 * value listed as two outputs. The caller's output pointer must still be
 * filled, so such an output is replaced by a new value written by an
 * Identity (a copy kernel) of the old one. Runs after dead-code elimination,
 * so drop_identity does not remove the copies. */
#include "passes/passes.h"

static int listed_before(const Graph *g, int k)
{
    for (int j = 0; j < k; j++)
        if (g->outputs[j] == g->outputs[k])
            return 1;
    return 0;
}

int pass_outputs(Graph *g, Diag *d)
{
    (void)d;
    for (int k = 0; k < g->n_outputs; k++) {
        int v = g->outputs[k];
        const Value *val = &g->values[v];
        if (!value_is_const(val) && !val->is_input && !listed_before(g, k))
            continue;
        int y = graph_add_value(g, arena_printf(g->arena, "%s_out%d", g->values[v].name, k));
        Value *vy = &g->values[y];
        vy->dtype = g->values[v].dtype;
        vy->shape = g->values[v].shape;
        int id = graph_add_node(g, "Identity", arena_printf(g->arena, "output_copy_%d", k), 1, &v, 1, &y);
        g->nodes[id].version = 1;
        /* the new value takes the output's place (and its name in the API) */
        const char *name = g->values[v].name;
        g->values[y].name = name;
        g->outputs[k] = y;
        g->values[y].is_output = 1;
        g->values[y].io_index = k;
        int still = 0; /* the old value stays an output only where it is still listed */
        for (int j = 0; j < g->n_outputs; j++)
            still |= g->outputs[j] == v;
        g->values[v].is_output = still;
        if (!still && !g->values[v].is_input) /* an input keeps its name in the API */
            g->values[v].name = arena_printf(g->arena, "%s_src", name);
    }
    graph_count_uses(g);
    return 0;
}
