/* graph.c - building and querying the dataflow graph (see graph.h). */
#include "graph.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

Graph *graph_new(const char *path)
{
    Arena *a = arena_new();
    Graph *g = arena_alloc(a, sizeof *g);
    g->arena = a;
    g->path = arena_strdup(a, path ? path : "<memory>");
    g->name = "";
    return g;
}

Graph *graph_new_sub(Graph *parent)
{
    Graph *g = arena_alloc(parent->arena, sizeof *g);
    g->arena = parent->arena;
    g->path = parent->path;
    g->name = "";
    g->opset = parent->opset;
    return g;
}

void graph_free(Graph *g)
{
    if (g)
        arena_free(g->arena);
}

int graph_add_value(Graph *g, const char *name)
{
    if (g->n_values == g->cap_values) {
        int cap = g->cap_values ? g->cap_values * 2 : 64;
        g->values = arena_grow(g->arena, g->values, (size_t)g->n_values, (size_t)cap, sizeof(Value));
        g->cap_values = cap;
    }
    int id = g->n_values++;
    Value *v = &g->values[id];
    memset(v, 0, sizeof *v);
    v->name = arena_strdup(g->arena, name ? name : "");
    v->shape = shape_unknown();
    v->producer = -1;
    v->view_of = -1;
    v->io_index = -1;
    return id;
}

int graph_find_value(const Graph *g, const char *name)
{
    for (int i = 0; i < g->n_values; i++)
        if (strcmp(g->values[i].name, name) == 0)
            return i;
    return -1;
}

int graph_add_const(Graph *g, const char *name, DType t, Shape s, const void *data)
{
    int id = graph_add_value(g, name);
    Value *v = &g->values[id];
    v->dtype = t;
    v->shape = s;
    int64_t bytes = 0;
    if (!value_bytes(v, &bytes)) {
        fprintf(stderr, "ctvm: constant '%s' has no static size\n", name);
        exit(3);
    }
    v->data = arena_alloc(g->arena, (size_t)bytes ? (size_t)bytes : 1);
    if (data && bytes)
        memcpy(v->data, data, (size_t)bytes);
    v->storage = STORE_CONST;
    return id;
}

int graph_add_node(Graph *g, const char *op_type, const char *name,
                   int n_in, const int *ins, int n_out, const int *outs)
{
    if (g->n_nodes == g->cap_nodes) {
        int cap = g->cap_nodes ? g->cap_nodes * 2 : 64;
        g->nodes = arena_grow(g->arena, g->nodes, (size_t)g->n_nodes, (size_t)cap, sizeof(Node));
        g->cap_nodes = cap;
    }
    int id = g->n_nodes++;
    Node *n = &g->nodes[id];
    memset(n, 0, sizeof *n);
    n->scratch.value = -1;
    n->scratch.value_u8 = -1;
    n->dyn.kind = -1;
    n->op_type = arena_strdup(g->arena, op_type);
    n->op = op_kind_from_name(op_type);
    if (n->op != OP_UNKNOWN && g->opset > 0) { /* the frontend checks it; passes' nodes take the graph's */
        int first, v = onnx_op_version(op_type, g->opset, &first);
        n->version = v > 0 ? v : 0;
    }
    n->domain = "";
    n->name = name && *name ? arena_strdup(g->arena, name)
                            : arena_printf(g->arena, "%s_%d", op_type, id);
    n->n_in = n_in;
    n->n_out = n_out;
    n->in = arena_array(g->arena, (size_t)(n_in ? n_in : 1), sizeof(int));
    n->out = arena_array(g->arena, (size_t)(n_out ? n_out : 1), sizeof(int));
    if (n_in)
        memcpy(n->in, ins, (size_t)n_in * sizeof(int));
    if (n_out)
        memcpy(n->out, outs, (size_t)n_out * sizeof(int));
    n->fused_into = -1;
    for (int i = 0; i < n_out; i++)
        if (outs[i] >= 0)
            g->values[outs[i]].producer = id;
    return id;
}

static int *append_id(Arena *a, int *arr, int n, int id)
{
    int *p = arena_grow(a, arr, (size_t)n, (size_t)n + 1, sizeof(int));
    p[n] = id;
    return p;
}

void graph_add_input(Graph *g, int value_id)
{
    g->values[value_id].is_input = 1;
    g->values[value_id].io_index = g->n_inputs;
    g->inputs = append_id(g->arena, g->inputs, g->n_inputs++, value_id);
}

void graph_add_output(Graph *g, int value_id)
{
    g->values[value_id].is_output = 1;
    g->values[value_id].io_index = g->n_outputs;
    g->outputs = append_id(g->arena, g->outputs, g->n_outputs++, value_id);
}

void graph_move_nodes(Graph *g, int from, int pos)
{
    int n = g->n_nodes - from;
    if (n <= 0 || pos >= from)
        return;
    Node *tmp = malloc(sizeof(Node) * (size_t)n);
    if (!tmp) {
        fprintf(stderr, "ctvm: out of memory\n");
        exit(3);
    }
    memcpy(tmp, &g->nodes[from], sizeof(Node) * (size_t)n);
    memmove(&g->nodes[pos + n], &g->nodes[pos], sizeof(Node) * (size_t)(from - pos));
    memcpy(&g->nodes[pos], tmp, sizeof(Node) * (size_t)n);
    free(tmp);
    graph_count_uses(g);
}

void graph_count_uses(Graph *g)
{
    for (int i = 0; i < g->n_values; i++) {
        g->values[i].n_uses = 0;
        g->values[i].producer = -1;
    }
    for (int i = 0; i < g->n_nodes; i++) {
        Node *n = &g->nodes[i];
        if (n->dead)
            continue;
        for (int k = 0; k < n->n_in; k++)
            if (n->in[k] >= 0)
                g->values[n->in[k]].n_uses++;
        for (int k = 0; k < n->n_out; k++)
            if (n->out[k] >= 0)
                g->values[n->out[k]].producer = i;
    }
}

void graph_replace_uses(Graph *g, int from, int to)
{
    for (int i = 0; i < g->n_nodes; i++) {
        Node *n = &g->nodes[i];
        if (n->dead)
            continue;
        for (int k = 0; k < n->n_in; k++)
            if (n->in[k] == from)
                n->in[k] = to;
    }
    for (int k = 0; k < g->n_outputs; k++)
        if (g->outputs[k] == from) {
            g->outputs[k] = to;
            g->values[to].is_output = 1;
            g->values[to].io_index = k;
            g->values[from].is_output = 0;
        }
}

int value_bytes(const Value *v, int64_t *bytes)
{
    int64_t n;
    if (!shape_numel(&v->shape, &n))
        return 0;
    return dtype_bytes(v->dtype, n, bytes);
}

int value_is_const(const Value *v)
{
    return v->data != NULL;
}

const Attr *node_attr(const Node *n, const char *name)
{
    for (int i = 0; i < n->n_attrs; i++)
        if (strcmp(n->attrs[i].name, name) == 0)
            return &n->attrs[i];
    return NULL;
}

int64_t attr_int(const Node *n, const char *name, int64_t def)
{
    const Attr *a = node_attr(n, name);
    return a && a->kind == ATTR_INT ? a->i : def;
}

float attr_float(const Node *n, const char *name, float def)
{
    const Attr *a = node_attr(n, name);
    return a && a->kind == ATTR_FLOAT ? a->f : def;
}

const char *attr_string(const Node *n, const char *name, const char *def)
{
    const Attr *a = node_attr(n, name);
    return a && a->kind == ATTR_STRING ? a->s : def;
}

const int64_t *attr_ints(const Node *n, const char *name, int *n_out)
{
    const Attr *a = node_attr(n, name);
    if (!a || a->kind != ATTR_INTS)
        return NULL;
    *n_out = a->n;
    return a->ints;
}

static Attr *attr_slot(Graph *g, int node, const char *name)
{
    Node *n = &g->nodes[node];
    for (int i = 0; i < n->n_attrs; i++)
        if (strcmp(n->attrs[i].name, name) == 0) {
            memset(&n->attrs[i], 0, sizeof(Attr));
            n->attrs[i].name = arena_strdup(g->arena, name);
            return &n->attrs[i];
        }
    n->attrs = arena_grow(g->arena, n->attrs, (size_t)n->n_attrs, (size_t)n->n_attrs + 1, sizeof(Attr));
    Attr *a = &n->attrs[n->n_attrs++];
    a->name = arena_strdup(g->arena, name);
    return a;
}

void node_set_int(Graph *g, int node, const char *name, int64_t v)
{
    Attr *a = attr_slot(g, node, name);
    a->kind = ATTR_INT;
    a->i = v;
}

void node_set_ints(Graph *g, int node, const char *name, const int64_t *v, int n)
{
    Attr *a = attr_slot(g, node, name);
    a->kind = ATTR_INTS;
    a->n = n;
    a->ints = arena_array(g->arena, (size_t)(n ? n : 1), sizeof(int64_t));
    if (n)
        memcpy(a->ints, v, (size_t)n * sizeof(int64_t));
}

void node_set_float(Graph *g, int node, const char *name, float v)
{
    Attr *a = attr_slot(g, node, name);
    a->kind = ATTR_FLOAT;
    a->f = v;
}

void node_set_string(Graph *g, int node, const char *name, const char *v)
{
    Attr *a = attr_slot(g, node, name);
    a->kind = ATTR_STRING;
    a->s = arena_strdup(g->arena, v);
}

Value *node_input(Graph *g, const Node *n, int i)
{
    if (i < 0 || i >= n->n_in || n->in[i] < 0)
        return NULL;
    return &g->values[n->in[i]];
}
