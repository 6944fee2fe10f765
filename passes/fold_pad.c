/* fold_pad.c - pass "fold_pad": a constant-zero Pad of only the spatial axes
 * whose every reader is a Conv (as input X) becomes those Convs' own pads.
 * tf2onnx writes TensorFlow's asymmetric "same" padding of strided
 * convolutions this way; the Conv's padded reads cost nothing where a Pad
 * kernel copied the whole tensor (EfficientNetB0: four such copies).
 * float32, normalised Pad (after the first inference), pads >= 0. */
#include <string.h>

#include "passes/pass_util.h"
#include "passes/passes.h"

/* 1 when every reader of value v is a live Conv reading it as X */
static int only_conv_reads(const Graph *g, int v)
{
    if (g->values[v].is_output)
        return 0;
    int n_conv = 0;
    for (int i = 0; i < g->n_nodes; i++) {
        const Node *n = &g->nodes[i];
        if (n->dead)
            continue;
        for (int k = 0; k < n->n_in; k++)
            if (n->in[k] == v) {
                if (n->op != OP_CONV || k != 0 || n->fused_into >= 0)
                    return 0;
                n_conv++;
            }
    }
    return n_conv > 0 && n_conv == g->values[v].n_uses;
}

int pass_fold_pad(Graph *g, Diag *d)
{
    (void)d;
    for (int i = 0; i < g->n_nodes; i++) {
        const Node *p = &g->nodes[i];
        if (p->dead || p->op != OP_PAD || p->n_out != 1 || p->in[0] < 0)
            continue;
        int x = p->in[0], y = p->out[0], rank = g->values[x].shape.rank;
        const int64_t *pads = p->at.pad.pads;
        /* (a Pad before version 11 without its value attribute is left alone, as it always was) */
        if (rank < 3 || p->at.pad.mode != 0 || p->at.pad.cv_input || p->at.pad.value != 0.0f ||
            (p->version < 11 && !p->at.pad.value_given) ||
            g->values[x].dtype != DT_FLOAT32 || !only_conv_reads(g, y))
            continue;
        int ok = 1;
        for (int a = 0; a < rank; a++)
            ok &= pads[a] >= 0 && pads[rank + a] >= 0 && (a >= 2 || (pads[a] == 0 && pads[rank + a] == 0));
        for (int c = 0; ok && c < g->n_nodes; c++) /* every reader's window has the right size */
            if (!g->nodes[c].dead && g->nodes[c].op == OP_CONV && g->nodes[c].in[0] == y)
                ok &= g->nodes[c].at.conv.win.n == rank - 2;
        if (!ok)
            continue;
        int ns = rank - 2;
        for (int c = 0; c < g->n_nodes; c++) {
            Node *cn = &g->nodes[c];
            if (cn->dead || cn->op != OP_CONV || cn->in[0] != y)
                continue;
            const int64_t *cp = cn->at.conv.win.pads;
            int64_t np2[2 * OP_ATTRS_MAX_AXES];
            for (int a = 0; a < ns; a++) {
                np2[a] = cp[a] + pads[2 + a];
                np2[ns + a] = cp[ns + a] + pads[rank + 2 + a];
            }
            cn->in[0] = x;
            node_set_ints(g, c, "pads", np2, 2 * ns);
            memcpy(g->nodes[c].at.conv.win.pads, np2, (size_t)(2 * ns) * sizeof np2[0]);
        }
        g->nodes[i].dead = 1;
        graph_count_uses(g);
    }
    return 0;
}
