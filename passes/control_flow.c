/* control_flow.c - If, Loop and Scan expanded into the graph during
 * inference (called by pass infer_fold when it reaches such a node).
 *
 * ctvm compiles straight-line code, so control flow must be decided at
 * compile time:
 *   - If: the condition must have folded to a constant; the chosen branch's
 *     nodes replace the If.
 *   - Loop: the trip count and the initial condition must be constants; the
 *     body is unrolled one iteration at a time, each iteration inferred (and
 *     folded) before the next so that the condition it computes is known;
 *     scan outputs are stacked along a new first axis.
 *   - Scan: the sequence length is a static dim; the body is unrolled over it
 *     (per batch element for Scan-8), slicing the scan inputs with Gather and
 *     stacking the scan outputs with Unsqueeze + Concat, in the directions
 *     and at the axes the attributes give.
 * A condition or trip count that is not a compile-time constant is refused
 * ("not a compile-time constant": data-dependent control flow), naming the
 * graph inputs to --bind when it depends on them.
 *
 * Inlining copies a body's nodes into the graph with fresh value names
 * ("<node>#<iteration>:<name>"); a body's formal inputs map to given values,
 * its initializers become constants, and the values it reads from enclosing
 * scopes resolve by name. A nested subgraph is copied with those outer names
 * renamed to the values they now stand for. New nodes are placed where the
 * control-flow node stood, which is then dead. */
#include <stdio.h>
#include <string.h>

#include "ops/op_util.h"
#include "passes/control_flow.h"
#include "ir/tensor.h"

#define MAX_UNROLL 4096

typedef struct Inline {
    Graph *g;
    int node;           /* the control-flow node (diagnostics) */
    const Graph *body;
    int *map;           /* body value id -> graph value id (-1: not yet) */
    const char *prefix; /* for fresh names */
} Inline;

static Graph *clone_subgraph(Inline *in, const Graph *sub);

/* The graph value a body value stands for. */
static int map_value(Inline *in, int bv, Diag *d)
{
    Graph *g = in->g;
    if (bv < 0)
        return -1;
    if (in->map[bv] >= 0)
        return in->map[bv];
    const Value *v = &in->body->values[bv];
    if (v->is_outer) {
        int id = graph_find_value(g, v->name);
        if (id < 0)
            diag_error(d, g, -1, "subgraph value '%s' is not defined in an enclosing graph", v->name);
        return in->map[bv] = id;
    }
    if (v->data) { /* a body initializer or folded constant: a new copy per inlining */
        int64_t bytes;
        if (value_bytes(v, &bytes) && opu_fold_reserve(g, in->node, d, bytes) != 0)
            return -1;
        int id = graph_add_const(g, arena_printf(g->arena, "%s:%s", in->prefix, v->name), v->dtype, v->shape, v->data);
        return in->map[bv] = id;
    }
    int id = graph_add_value(g, arena_printf(g->arena, "%s:%s", in->prefix, v->name));
    g->values[id].dtype = v->dtype;
    g->values[id].shape = shape_unknown();
    return in->map[bv] = id;
}

/* A copy of subgraph `sub` (nested in the body being inlined) whose
 * references to the body's values name the graph values they map to. */
static Graph *clone_subgraph(Inline *in, const Graph *sub)
{
    Graph *c = graph_new_sub(in->g);
    c->name = sub->name;
    c->opset = sub->opset;
    for (int v = 0; v < sub->n_values; v++) {
        const Value *sv = &sub->values[v];
        int id = graph_add_value(c, sv->name);
        Value *cv = &c->values[id];
        const char *keep = cv->name;
        *cv = *sv;
        cv->name = keep;
        if (sv->is_outer) { /* a body value? then the name of its copy */
            int bv = graph_find_value(in->body, sv->name);
            if (bv >= 0 && !in->body->values[bv].is_outer && in->map[bv] >= 0)
                cv->name = in->g->values[in->map[bv]].name;
        }
    }
    for (int i = 0; i < sub->n_inputs; i++)
        graph_add_input(c, sub->inputs[i]);
    for (int i = 0; i < sub->n_outputs; i++)
        graph_add_output(c, sub->outputs[i]);
    /* outer references of the nested graphs inside: rename through this level too */
    for (int n = 0; n < sub->n_nodes; n++) {
        const Node *sn = &sub->nodes[n];
        int id = graph_add_node(c, sn->op_type, sn->name, sn->n_in, sn->in, sn->n_out, sn->out);
        Node *cn = &c->nodes[id];
        cn->op = sn->op;
        cn->version = sn->version;
        cn->domain = sn->domain;
        cn->n_attrs = sn->n_attrs;
        cn->attrs = arena_array(c->arena, (size_t)sn->n_attrs + 1, sizeof(Attr));
        for (int k = 0; k < sn->n_attrs; k++) {
            cn->attrs[k] = sn->attrs[k];
            if (sn->attrs[k].kind == ATTR_GRAPH)
                cn->attrs[k].graph = clone_subgraph(in, sn->attrs[k].graph);
        }
    }
    return c;
}

/* Copies the body's nodes into the graph (appended). formals[k] is the value
 * body input k stands for. Output k of the body is returned in outs[k].
 * Returns the number of nodes added, or -1. */
static int inline_body(Graph *g, int node, const Graph *body, const int *formals, const char *prefix, int *outs,
                       Diag *d)
{
    Inline in = {g, node, body, arena_array(g->arena, (size_t)body->n_values + 1, sizeof(int)), prefix};
    for (int v = 0; v < body->n_values; v++)
        in.map[v] = -1;
    for (int k = 0; k < body->n_inputs; k++)
        in.map[body->inputs[k]] = formals[k];
    int first = g->n_nodes;
    for (int n = 0; n < body->n_nodes; n++) {
        const Node *bn = &body->nodes[n];
        int ins[bn->n_in + 1], os[bn->n_out + 1];
        for (int k = 0; k < bn->n_in; k++) {
            ins[k] = map_value(&in, bn->in[k], d);
            if (bn->in[k] >= 0 && ins[k] < 0)
                return -1;
        }
        for (int k = 0; k < bn->n_out; k++)
            os[k] = map_value(&in, bn->out[k], d);
        int id = graph_add_node(g, bn->op_type, arena_printf(g->arena, "%s:%s", prefix, bn->name), bn->n_in, ins,
                                bn->n_out, os);
        Node *nn = &g->nodes[id];
        nn->op = bn->op;
        nn->version = bn->version;
        nn->domain = bn->domain;
        nn->n_attrs = bn->n_attrs;
        nn->attrs = arena_array(g->arena, (size_t)bn->n_attrs + 1, sizeof(Attr));
        for (int k = 0; k < bn->n_attrs; k++) {
            nn->attrs[k] = bn->attrs[k];
            if (bn->attrs[k].kind == ATTR_GRAPH)
                nn->attrs[k].graph = clone_subgraph(&in, bn->attrs[k].graph);
        }
    }
    for (int k = 0; k < body->n_outputs; k++) {
        outs[k] = map_value(&in, body->outputs[k], d);
        if (outs[k] < 0)
            return -1;
    }
    return g->n_nodes - first;
}

/* ---- node builders for the glue (versions fixed, independent of the opset) ---- */

static int glue(Graph *g, const char *op, int version, const char *name, int n_in, const int *ins, int out)
{
    int id = graph_add_node(g, op, name, n_in, ins, 1, &out);
    g->nodes[id].version = version;
    return id;
}

static int new_value(Graph *g, const char *name)
{
    return graph_add_value(g, name);
}

static int const_i64(Graph *g, const char *name, int64_t v, int as_1d)
{
    int64_t one = 1;
    return graph_add_const(g, name, DT_INT64, shape_make(as_1d, as_1d ? &one : NULL), &v);
}

/* x[..., index, ...] along axis (the axis removed), appended as a Gather. */
static int gather_at(Graph *g, int x, int64_t index, int axis, const char *prefix)
{
    int idx = const_i64(g, arena_printf(g->arena, "%s:idx", prefix), index, 0);
    int y = new_value(g, arena_printf(g->arena, "%s:slice", prefix));
    int ins[2] = {x, idx};
    int id = glue(g, "Gather", 13, arena_printf(g->arena, "%s:gather", prefix), 2, ins, y);
    node_set_int(g, id, "axis", axis);
    return y;
}

/* Stacks values vals[0..n) along a new axis `axis` into value y (Unsqueeze + Concat). */
static void stack_into(Graph *g, const int *vals, int n, int axis, int y, const char *prefix)
{
    int *parts = arena_array(g->arena, (size_t)n + 1, sizeof(int));
    int ax = const_i64(g, arena_printf(g->arena, "%s:axes", prefix), axis, 1);
    for (int k = 0; k < n; k++) {
        parts[k] = new_value(g, arena_printf(g->arena, "%s:part%d", prefix, k));
        int ins[2] = {vals[k], ax};
        glue(g, "Unsqueeze", 13, arena_printf(g->arena, "%s:unsqueeze%d", prefix, k), 2, ins, parts[k]);
    }
    int id = glue(g, "Concat", 13, arena_printf(g->arena, "%s:concat", prefix), n, parts, y);
    node_set_int(g, id, "axis", axis);
}

static void identity_into(Graph *g, int x, int y, const char *name)
{
    glue(g, "Identity", 13, name, 1, &x, y);
}

/* ---- placing and inferring appended nodes ---- */

typedef struct Cursor {
    Graph *g;
    int at;        /* where the next block goes: the control-flow node's current index */
    InferNodeFn infer;
    const CodegenOptions *cg;
    Diag *d;
} Cursor;

/* Moves the nodes appended since `first` in front of the control-flow node
 * and infers them (expanding nested control flow). */
static int place(Cursor *c, int first)
{
    Graph *g = c->g;
    int n = g->n_nodes - first;
    if (n <= 0)
        return 0;
    graph_move_nodes(g, first, c->at);
    int end = c->at + n;
    for (int j = c->at; j < end;) {
        int before = g->n_nodes;
        int r = c->infer(g, j, c->cg, c->d);
        if (r < 0)
            return -1;
        end += g->n_nodes - before; /* nested expansion inserted nodes in the block */
        j += r;
    }
    c->at = end;
    return 0;
}

/* A scalar control input that must be a compile-time constant. Only when it
 * decides output shapes (a Loop with scan outputs) does the error suggest
 * binding the graph inputs behind it; otherwise the control flow is
 * data-dependent, which ctvm does not compile. 1 when absent. */
static int need_scalar_const(Graph *g, int node, Diag *d, int input, const char *what, int decides_shape,
                             int64_t *out)
{
    const Value *v = opu_in(g, node, input);
    if (!v)
        return 1; /* absent */
    if (!v->data) {
        char why[800] = "";
        if (decides_shape)
            opu_need_const_msg(g, &g->nodes[node], input, what, why, sizeof why);
        return diag_error(d, g, node, "%s is not a compile-time constant (data-dependent control flow)%s%s%s", what,
                          decides_shape ? "; it decides the shape of the scan outputs: " : "", why,
                          decides_shape ? "" : "");
    }
    int64_t n;
    if (!shape_numel(&v->shape, &n) || n != 1)
        return diag_error(d, g, node, "%s must hold one element, got %s", what, opu_shape_str(&v->shape));
    *out = dtype_is_float(v->dtype) ? (int64_t)tensor_get_f64(v->dtype, v->data, 0)
                                    : tensor_get_i64(v->dtype, v->data, 0);
    return 0;
}

static const Graph *graph_attr(const Node *n, const char *name)
{
    const Attr *a = node_attr(n, name);
    return a && a->kind == ATTR_GRAPH ? a->graph : NULL;
}

/* ---- If ---- */

/* An If whose condition is known only at run time: both branches are
 * inlined and run, and each output is a ctvm.DynSelect of the two
 * branches' values by the condition (ops/dynamic.c); the branches' outputs
 * need the same type and rank, the result is bounded by the larger bound. */
static int expand_if_runtime(Cursor *c, int node)
{
    Graph *g = c->g;
    Diag *d = c->d;
    const Node *n = &g->nodes[node];
    const Graph *tb = graph_attr(n, "then_branch"), *eb = graph_attr(n, "else_branch");
    if (!tb || !eb)
        return diag_error(d, g, node, "needs both a then_branch and an else_branch graph");
    if (tb->n_outputs != n->n_out || eb->n_outputs != n->n_out)
        return diag_error(d, g, node, "the branches have %d and %d outputs, the node %d", tb->n_outputs,
                          eb->n_outputs, n->n_out);
    const char *name = n->name;
    int m = n->n_out;
    int *to = arena_array(g->arena, (size_t)m + 1, sizeof(int)), *eo = arena_array(g->arena, (size_t)m + 1, sizeof(int));
    int first = g->n_nodes;
    if (inline_body(g, c->at, tb, NULL, arena_printf(g->arena, "%s#then", name), to, d) < 0 ||
        inline_body(g, c->at, eb, NULL, arena_printf(g->arena, "%s#else", name), eo, d) < 0)
        return -1;
    for (int k = 0; k < m; k++) {
        int y = g->nodes[node].out[k];
        if (y < 0)
            continue;
        int ins[3] = {g->nodes[node].in[0], to[k], eo[k]};
        glue(g, "ctvm.DynSelect", 0, arena_printf(g->arena, "%s:select%d", name, k), 3, ins, y);
    }
    g->nodes[node].dead = 1;
    return place(c, first);
}

static int expand_if(Cursor *c, int node)
{
    Graph *g = c->g;
    Diag *d = c->d;
    int64_t cond = 0;
    const Value *cv = opu_in(g, node, 0);
    if (cv && !cv->data && !cv->is_input)
        return expand_if_runtime(c, node);
    int r = need_scalar_const(g, node, d, 0, "the If condition", 0, &cond);
    if (r != 0)
        return r < 0 ? -1 : diag_error(d, g, node, "has no condition input");
    const Node *n = &g->nodes[node];
    const Graph *body = graph_attr(n, cond ? "then_branch" : "else_branch");
    if (!body)
        return diag_error(d, g, node, "has no %s graph", cond ? "then_branch" : "else_branch");
    if (body->n_outputs != n->n_out)
        return diag_error(d, g, node, "the branch has %d outputs, the node %d", body->n_outputs, n->n_out);
    const char *name = n->name;
    int *outs = arena_array(g->arena, (size_t)body->n_outputs + 1, sizeof(int));
    int first = g->n_nodes;
    if (inline_body(g, c->at, body, NULL, arena_printf(g->arena, "%s#%s", name, cond ? "then" : "else"), outs, d) < 0)
        return -1;
    for (int k = 0; k < g->nodes[node + 0].n_out; k++)
        if (g->nodes[node].out[k] >= 0)
            identity_into(g, outs[k], g->nodes[node].out[k], arena_printf(g->arena, "%s:out%d", name, k));
    g->nodes[node].dead = 1; /* its outputs are now written by the identities */
    return place(c, first);
}

/* ---- Loop ---- */

static int expand_loop(Cursor *c, int node)
{
    Graph *g = c->g;
    Diag *d = c->d;
    const Node *n = &g->nodes[node];
    const Graph *body = graph_attr(n, "body");
    if (!body)
        return diag_error(d, g, node, "has no body graph");
    int n_carried = n->n_in - 2;
    int n_scan = n->n_out - n_carried;
    if (n_carried < 0 || n_scan < 0 || body->n_inputs != n_carried + 2 || body->n_outputs != 1 + n_carried + n_scan)
        return diag_error(d, g, node, "body inputs/outputs do not match the node's (%d carried values)", n_carried);
    int64_t trip = -1, cond = 1;
    int r = need_scalar_const(g, node, d, 0, "the Loop trip count", n_scan > 0, &trip);
    if (r < 0)
        return -1;
    r = need_scalar_const(g, node, d, 1, "the Loop condition", n_scan > 0, &cond);
    if (r < 0)
        return -1;
    if (trip < 0 && trip != -1)
        trip = 0;
    const char *name = n->name;
    int *carried = arena_array(g->arena, (size_t)n_carried + 1, sizeof(int));
    for (int k = 0; k < n_carried; k++)
        carried[k] = n->in[2 + k];
    int cap = 16, iters = 0;
    int **scans = arena_array(g->arena, (size_t)n_scan + 1, sizeof(int *));
    for (int s = 0; s < n_scan; s++)
        scans[s] = arena_array(g->arena, (size_t)cap, sizeof(int));
    int cond_v = n->in[1] >= 0 ? n->in[1] : graph_add_const(g, arena_printf(g->arena, "%s:cond", name), DT_BOOL,
                                                               shape_make(0, NULL), &(uint8_t){1});
    for (int64_t it = 0; cond && (trip < 0 || it < trip); it++) {
        if (it >= MAX_UNROLL)
            return diag_error(d, g, c->at, "more than %d iterations: too many to unroll", MAX_UNROLL);
        const char *pre = arena_printf(g->arena, "%s#%lld", name, (long long)it);
        int first = g->n_nodes;
        int *formals = arena_array(g->arena, (size_t)n_carried + 3, sizeof(int));
        formals[0] = const_i64(g, arena_printf(g->arena, "%s:iter", pre), it, 0);
        formals[1] = cond_v;
        for (int k = 0; k < n_carried; k++)
            formals[2 + k] = carried[k];
        int *outs = arena_array(g->arena, (size_t)body->n_outputs + 1, sizeof(int));
        if (inline_body(g, c->at, body, formals, pre, outs, d) < 0 || place(c, first) < 0)
            return -1;
        const Value *cv = &g->values[outs[0]];
        if (!cv->data)
            return diag_error(d, g, c->at, "the condition computed by iteration %lld is not a compile-time constant "
                                          "(data-dependent control flow)", (long long)it);
        cond = tensor_get_i64(cv->dtype, cv->data, 0) != 0;
        cond_v = outs[0];
        for (int k = 0; k < n_carried; k++)
            carried[k] = outs[1 + k];
        if (iters == cap) {
            for (int s = 0; s < n_scan; s++)
                scans[s] = arena_grow(g->arena, scans[s], (size_t)cap, (size_t)cap * 2, sizeof(int));
            cap *= 2;
        }
        for (int s = 0; s < n_scan; s++)
            scans[s][iters] = outs[1 + n_carried + s];
        iters++;
    }
    n = &g->nodes[node + (c->at - node)]; /* the Loop node moved to c->at */
    int loop_at = c->at;
    int first = g->n_nodes;
    for (int k = 0; k < n_carried; k++)
        if (g->nodes[loop_at].out[k] >= 0)
            identity_into(g, carried[k], g->nodes[loop_at].out[k], arena_printf(g->arena, "%s:final%d", name, k));
    for (int s = 0; s < n_scan; s++) {
        int y = g->nodes[loop_at].out[n_carried + s];
        if (y < 0)
            continue;
        if (iters == 0)
            return diag_error(d, g, loop_at, "a Loop that runs no iteration has empty scan outputs of unknown shape");
        stack_into(g, scans[s], iters, 0, y, arena_printf(g->arena, "%s:scan%d", name, s));
    }
    g->nodes[loop_at].dead = 1;
    (void)n;
    return place(c, first);
}

/* ---- Scan ---- */

static int expand_scan(Cursor *c, int node)
{
    Graph *g = c->g;
    Diag *d = c->d;
    const Node *n = &g->nodes[node];
    const Graph *body = graph_attr(n, "body");
    if (!body)
        return diag_error(d, g, node, "has no body graph");
    int v8 = n->version < 9;
    int m = (int)attr_int(n, "num_scan_inputs", 0);
    int first_in = v8 ? 1 : 0; /* Scan-8 starts with sequence_lens */
    int n_state = n->n_in - first_in - m;
    int n_scan_out = n->n_out - n_state;
    if (m <= 0 || n_state < 0 || n_scan_out < 0 || body->n_inputs != n_state + m ||
        body->n_outputs != n_state + n_scan_out)
        return diag_error(d, g, node, "num_scan_inputs %d does not match the inputs and the body", m);
    int in_axis[64], in_rev[64], out_axis[64], out_rev[64];
    if (m > 64 || n_scan_out > 64)
        return diag_error(d, g, node, "more than 64 scan inputs or outputs");
    int nax;
    const int64_t *a = attr_ints(n, v8 ? "directions" : "scan_input_directions", &nax);
    for (int k = 0; k < m; k++) {
        in_rev[k] = a && k < nax ? (int)a[k] : 0;
        in_axis[k] = v8 ? 1 : 0;
    }
    if (!v8) {
        a = attr_ints(n, "scan_input_axes", &nax);
        for (int k = 0; a && k < m && k < nax; k++)
            in_axis[k] = (int)a[k];
        a = attr_ints(n, "scan_output_axes", &nax);
        for (int k = 0; k < n_scan_out; k++)
            out_axis[k] = a && k < nax ? (int)a[k] : 0;
        a = attr_ints(n, "scan_output_directions", &nax);
        for (int k = 0; k < n_scan_out; k++)
            out_rev[k] = a && k < nax ? (int)a[k] : 0;
    } else {
        for (int k = 0; k < n_scan_out; k++)
            out_axis[k] = 0, out_rev[k] = 0;
    }
    if (v8 && n->in[0] >= 0)
        return diag_error(d, g, node, "sequence_lens (variable-length sequences) is not supported");
    /* sequence length and batch */
    int64_t T = -1, B = 1;
    for (int k = 0; k < m; k++) {
        const Value *x = &g->values[n->in[first_in + n_state + k]];
        int r = x->shape.rank;
        int ax = in_axis[k] < 0 ? in_axis[k] + r : in_axis[k];
        if (ax < 0 || ax >= r)
            return diag_error(d, g, node, "scan input %d: axis %d out of range for rank %d", k, in_axis[k], r);
        in_axis[k] = ax;
        if (T >= 0 && x->shape.dims[ax] != T)
            return diag_error(d, g, node, "scan inputs have different sequence lengths");
        T = x->shape.dims[ax];
        if (v8)
            B = x->shape.dims[0];
    }
    if ((int64_t)T * B > MAX_UNROLL)
        return diag_error(d, g, node, "%lld steps: too many to unroll", (long long)(T * B));
    const char *name = n->name;
    int first = g->n_nodes;
    int *states = arena_array(g->arena, (size_t)n_state + 1, sizeof(int));
    int *per_b_state = arena_array(g->arena, (size_t)(n_state * B) + 1, sizeof(int));
    int *per_b_scan = arena_array(g->arena, (size_t)(n_scan_out * B) + 1, sizeof(int));
    int **steps = arena_array(g->arena, (size_t)n_scan_out + 1, sizeof(int *));
    for (int s = 0; s < n_scan_out; s++)
        steps[s] = arena_array(g->arena, (size_t)T + 1, sizeof(int));
    for (int64_t b = 0; b < B; b++) {
        const char *pb = arena_printf(g->arena, "%s#b%lld", name, (long long)b);
        for (int k = 0; k < n_state; k++) {
            int x = g->nodes[node].in[first_in + k];
            states[k] = v8 ? gather_at(g, x, b, 0, arena_printf(g->arena, "%s:state%d", pb, k)) : x;
        }
        for (int64_t t = 0; t < T; t++) {
            const char *pre = arena_printf(g->arena, "%s#%lld", pb, (long long)t);
            int *formals = arena_array(g->arena, (size_t)(n_state + m) + 1, sizeof(int));
            for (int k = 0; k < n_state; k++)
                formals[k] = states[k];
            for (int k = 0; k < m; k++) {
                int x = g->nodes[node].in[first_in + n_state + k];
                int ax = in_axis[k];
                if (v8) { /* drop the batch axis, then the sequence axis (now 0) */
                    x = gather_at(g, x, b, 0, arena_printf(g->arena, "%s:in%d_b", pre, k));
                    ax -= 1;
                }
                formals[n_state + k] = gather_at(g, x, in_rev[k] ? T - 1 - t : t, ax,
                                                 arena_printf(g->arena, "%s:in%d", pre, k));
            }
            int *outs = arena_array(g->arena, (size_t)body->n_outputs + 1, sizeof(int));
            if (inline_body(g, c->at, body, formals, pre, outs, d) < 0)
                return -1;
            for (int k = 0; k < n_state; k++)
                states[k] = outs[k];
            for (int s = 0; s < n_scan_out; s++)
                steps[s][t] = outs[n_state + s];
            n = &g->nodes[node];
        }
        for (int k = 0; k < n_state; k++)
            per_b_state[b * n_state + k] = states[k];
        for (int s = 0; s < n_scan_out; s++) {
            int *order = arena_array(g->arena, (size_t)T + 1, sizeof(int));
            for (int64_t t = 0; t < T; t++)
                order[t] = steps[s][out_rev[s] ? T - 1 - t : t];
            if (!v8) {
                per_b_scan[s] = -1;
                int y = g->nodes[node].out[n_state + s];
                if (y >= 0 && T > 0) /* a negative axis counts from the end of the stacked rank */
                    stack_into(g, order, (int)T, out_axis[s], y, arena_printf(g->arena, "%s:scan%d", name, s));
            } else {
                int yb = new_value(g, arena_printf(g->arena, "%s:scan%d", pb, s));
                stack_into(g, order, (int)T, 0, yb, arena_printf(g->arena, "%s:scan%d", pb, s));
                per_b_scan[b * n_scan_out + s] = yb;
            }
        }
    }
    const Node *sn = &g->nodes[node];
    for (int k = 0; k < n_state; k++) {
        int y = sn->out[k];
        if (y < 0)
            continue;
        if (v8) {
            int *vals = arena_array(g->arena, (size_t)B + 1, sizeof(int));
            for (int64_t b = 0; b < B; b++)
                vals[b] = per_b_state[b * n_state + k];
            stack_into(g, vals, (int)B, 0, y, arena_printf(g->arena, "%s:final%d", name, k));
        } else {
            identity_into(g, states[k], y, arena_printf(g->arena, "%s:final%d", name, k));
        }
    }
    if (v8)
        for (int s = 0; s < n_scan_out; s++) {
            int y = sn->out[n_state + s];
            if (y < 0)
                continue;
            int *vals = arena_array(g->arena, (size_t)B + 1, sizeof(int));
            for (int64_t b = 0; b < B; b++)
                vals[b] = per_b_scan[b * n_scan_out + s];
            stack_into(g, vals, (int)B, 0, y, arena_printf(g->arena, "%s:scanout%d", name, s));
        }
    if (T == 0 && n_scan_out > 0)
        return diag_error(d, g, node, "a Scan over an empty sequence is not supported");
    g->nodes[node].dead = 1;
    return place(c, first);
}

int cf_expand(Graph *g, int node, const CodegenOptions *cg, Diag *d, InferNodeFn infer)
{
    Cursor c = {g, node, infer, cg, d};
    int r;
    switch (g->nodes[node].op) {
    case OP_IF: r = expand_if(&c, node); break;
    case OP_LOOP: r = expand_loop(&c, node); break;
    case OP_SCAN: r = expand_scan(&c, node); break;
    default: return diag_error(d, g, node, "not a control-flow operator (internal error)");
    }
    if (r < 0)
        return -1;
    return c.at - node + 1; /* the inserted nodes and the dead control-flow node */
}

int cf_is_control(OpKind k)
{
    return k == OP_IF || k == OP_LOOP || k == OP_SCAN;
}
