/* match_swish.c - pass "match_swish": x * Sigmoid(x) (SiLU/Swish as torch
 * and tf2onnx export it, in either operand order) becomes one Swish node
 * (alpha 1). x is then read once, and the Swish joins its producer's
 * epilogue (pass fuse): EfficientNet's convolutions and their activation in
 * one pass instead of a Sigmoid kernel and a Mul reading x again. float32;
 * the Sigmoid's output must have no other reader. */
#include "passes/pass_util.h"
#include "passes/passes.h"

int pass_match_swish(Graph *g, Diag *d)
{
    (void)d;
    for (int i = 0; i < g->n_nodes; i++) {
        const Node *n = &g->nodes[i];
        if (n->dead || n->op != OP_SIGMOID || n->fused_into >= 0 || n->n_in != 1 || n->n_out != 1)
            continue;
        int x = n->in[0], s = n->out[0], m = pass_sole_consumer(g, s);
        if (m < 0 || g->nodes[m].op != OP_MUL || pass_other_operand(g, m, s) != x || g->values[x].n_uses != 2 ||
            g->values[x].dtype != DT_FLOAT32 || !shape_equal(&g->values[g->nodes[m].out[0]].shape, &g->values[x].shape))
            continue;
        int dead[2] = {i, m};
        int sw = pass_replace_nodes(g, dead, 2, "Swish", 1, &x, g->nodes[m].out[0]);
        node_set_float(g, sw, "alpha", 1.0f);
        graph_count_uses(g);
    }
    return 0;
}
