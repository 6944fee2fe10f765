/* pass_util.c - node insertion, fresh names and the replacement builder
 * (PassBuild) for the passes (see pass_util.h). */
#include "passes/pass_util.h"

#include <string.h>

int pass_insert_node(Graph *g, int pos, const char *op_type, const char *name, int n_in,
                     const int *ins, int n_out, const int *outs)
{
    int id = graph_add_node(g, op_type, name, n_in, ins, n_out, outs);
    pass_modern_version(g, id);
    if (id != pos) {
        Node tmp = g->nodes[id];
        memmove(&g->nodes[pos + 1], &g->nodes[pos], (size_t)(id - pos) * sizeof(Node));
        g->nodes[pos] = tmp;
        for (int i = 0; i < g->n_nodes; i++) {
            Node *n = &g->nodes[i];
            if (n->fused_into >= pos)
                n->fused_into++;
            for (int k = 0; k < n->n_epi; k++)
                if (n->epi[k] >= pos)
                    n->epi[k]++;
        }
    }
    graph_count_uses(g);
    return pos;
}

void pass_modern_version(Graph *g, int node)
{
    int lo, hi;
    op_kind_versions(g->nodes[node].op, &lo, &hi);
    g->nodes[node].version = hi;
}

const char *pass_unique_name(Graph *g, const char *base)
{
    if (graph_find_value(g, base) < 0)
        return arena_strdup(g->arena, base);
    for (int k = 1;; k++) {
        const char *s = arena_printf(g->arena, "%s_%d", base, k);
        if (graph_find_value(g, s) < 0)
            return s;
    }
}

void pass_append_output(Graph *g, int node, int v)
{
    Node *n = &g->nodes[node];
    int *outs = arena_array(g->arena, (size_t)n->n_out + 2, sizeof(int));
    for (int k = 0; k < n->n_out; k++)
        outs[k] = n->out[k];
    outs[n->n_out] = v;
    n->out = outs;
    n->n_out++;
    g->values[v].producer = node;
}

void pass_grow_inputs(Graph *g, int node, int n_in)
{
    Node *n = &g->nodes[node];
    if (n->n_in >= n_in)
        return;
    int *in = arena_array(g->arena, (size_t)n_in, sizeof(int));
    for (int k = 0; k < n_in; k++)
        in[k] = k < n->n_in ? n->in[k] : -1;
    n->in = in;
    n->n_in = n_in;
}

int pass_producer(const Graph *g, int v, OpKind op)
{
    if (v < 0)
        return -1;
    int p = g->values[v].producer;
    return p >= 0 && !g->nodes[p].dead && g->nodes[p].op == op && g->nodes[p].fused_into < 0 ? p : -1;
}

int pass_sole_consumer(const Graph *g, int v)
{
    if (v < 0 || g->values[v].is_output || g->values[v].n_uses != 1)
        return -1;
    for (int i = 0; i < g->n_nodes; i++) {
        const Node *n = &g->nodes[i];
        if (n->dead)
            continue;
        for (int k = 0; k < n->n_in; k++)
            if (n->in[k] == v)
                return i;
    }
    return -1;
}

int pass_const_scalar(const Graph *g, int v, double *out)
{
    int64_t cnt;
    if (v < 0)
        return 0;
    const Value *c = &g->values[v];
    if (!c->data || c->dtype != DT_FLOAT32 || !shape_numel(&c->shape, &cnt) || cnt != 1)
        return 0;
    *out = *(const float *)c->data;
    return 1;
}

int pass_other_operand(const Graph *g, int node, int v)
{
    const Node *n = &g->nodes[node];
    if (n->n_in != 2 || (n->in[0] == v) == (n->in[1] == v))
        return -1;
    return n->in[0] == v ? n->in[1] : n->in[0];
}

int pass_replace_nodes(Graph *g, const int *ids, int n, const char *op, int n_in, const int *ins, int out)
{
    int last = 0;
    for (int k = 0; k < n; k++) {
        g->nodes[ids[k]].dead = 1;
        if (ids[k] > last)
            last = ids[k];
    }
    PassBuild L = {g, last, g->nodes[last].name};
    return pb_node(&L, op, n_in, ins, out);
}

int pb_value(PassBuild *b, const char *what)
{
    return graph_add_value(b->g, pass_unique_name(b->g, arena_printf(b->g->arena, "%s_%s", b->base, what)));
}

int pb_node(PassBuild *b, const char *op, int n_in, const int *ins, int out)
{
    int id = pass_insert_node(b->g, b->pos, op, pass_unique_name(b->g, arena_printf(b->g->arena, "%s_%s", b->base, op)),
                              n_in, ins, 1, &out);
    b->pos++;
    return id;
}

int pb_ints(PassBuild *b, const char *what, int n, const int64_t *v)
{
    int64_t len = n;
    return graph_add_const(b->g, pass_unique_name(b->g, arena_printf(b->g->arena, "%s_%s", b->base, what)), DT_INT64,
                           shape_make(1, &len), v);
}

int pb_reshape(PassBuild *b, int x, int rank, const int64_t *dims, int out)
{
    int ins[2] = {x, pb_ints(b, "shape", rank, dims)};
    if (out < 0)
        out = pb_value(b, "view");
    pb_node(b, "Reshape", 2, ins, out);
    return out;
}

int pb_transpose(PassBuild *b, int x, int rank, const int64_t *perm, int out)
{
    if (out < 0)
        out = pb_value(b, "t");
    int id = pb_node(b, "Transpose", 1, &x, out);
    node_set_ints(b->g, id, "perm", perm, rank);
    return out;
}

int pb_binary(PassBuild *b, const char *op, int a, int x)
{
    int ins[2] = {a, x}, out = pb_value(b, op);
    pb_node(b, op, 2, ins, out);
    return out;
}

int pass_quant_per_tensor(const Graph *g, const Node *n)
{
    if ((n->op != OP_QUANTIZELINEAR && n->op != OP_DEQUANTIZELINEAR) || n->n_in < 2 || n->at.quant.qmode != 0 ||
        n->at.quant.wide || n->at.quant.int_scale || n->at.quant.narrow != DT_UNDEFINED)
        return 0;
    for (int i = 1; i < n->n_in; i++) {
        int64_t ne = 0;
        if (n->in[i] >= 0 && (!g->values[n->in[i]].data || !shape_numel(&g->values[n->in[i]].shape, &ne) || ne != 1))
            return 0;
    }
    return g->values[n->in[1]].dtype == DT_FLOAT32;
}

int pass_quant_per_channel(const Graph *g, const Node *n)
{
    if ((n->op != OP_QUANTIZELINEAR && n->op != OP_DEQUANTIZELINEAR) || n->n_in < 2 || n->at.quant.qmode > 1 ||
        n->at.quant.wide || n->at.quant.int_scale || n->at.quant.narrow != DT_UNDEFINED)
        return 0;
    for (int i = 1; i < n->n_in; i++)
        if (n->in[i] >= 0 && !g->values[n->in[i]].data)
            return 0;
    return g->values[n->in[1]].dtype == DT_FLOAT32;
}
