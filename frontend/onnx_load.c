/* onnx_load.c - ModelProto to Graph: the order of the loader's steps.
 *
 * 1. check the wire data's nesting and counts (proto_limits.h), decode the
 *    bytes with protobuf-c and check that they are a model
 *    (ir_version, a graph with nodes and outputs) - random bytes often
 *    decode as an empty message, so decoding alone proves nothing;
 * 2. the default-domain opset (1 to onnx_max_opset()), and the
 *    com.microsoft one, if imported;
 * 3. initializers become constant Values, decoded straight into their data;
 * 4. runtime inputs, --input-shapes overrides, static-shape check;
 * 5. nodes in file order; every input must already be defined (the file
 *    must be topologically sorted); "" names an omitted optional input;
 *    each default-domain node gets the version of its operator in force
 *    at the opset, which ctvm must implement (ir/op_table.h); a
 *    com.microsoft node of ir/ms_op_table.h gets its version in that
 *    domain's opset (it stays OP_UNKNOWN: inference lowers it, see
 *    passes/lower_msquant.c); other domains' nodes are left to inference
 *    to refuse by name;
 * 6. declared output and value_info shapes within limits; graph outputs,
 *    in order (the main graph's distinct and not its inputs).
 * Every failure reports one error and frees everything made so far. */
#include "onnx_load.h"

#include <stdlib.h>
#include <string.h>

#include "file_util.h"
#include "onnx/onnx.pb-c.h"
#include "onnx_internal.h"
#include "onnx_limits.h"
#include "onnx_tensor.h"
#include "ir/ms_op_table.h"
#include "proto_limits.h"

static int check_model(OnnxLoadCtx *c, const Onnx__ModelProto *m)
{
    Graph *g = c->g;
    if (!m->has_ir_version || m->ir_version <= 0)
        return diag_error(c->d, g, -1, "not an ONNX model: no ir_version");
    if (m->ir_version > 1000)
        return diag_error(c->d, g, -1, "not an ONNX model: implausible ir_version %lld",
                          (long long)m->ir_version);
    if (!m->graph)
        return diag_error(c->d, g, -1, "not an ONNX model: it holds no graph");
    if (m->graph->n_output == 0)
        return diag_error(c->d, g, -1, "not an ONNX model: the graph has no outputs");
    if (m->graph->n_node == 0) /* a valid ONNX model, but nothing to compute */
        return diag_error(c->d, g, -1,
                          "the graph has no nodes: its outputs are its inputs or initializers "
                          "unchanged, and ctvm compiles graphs of at least one operator (pass "
                          "them through an Identity node)");
    return 0;
}

static int is_default_domain(const char *domain)
{
    return !domain || !*domain || strcmp(domain, "ai.onnx") == 0;
}

static int read_opset(OnnxLoadCtx *c, const Onnx__ModelProto *m)
{
    int found = 0;
    for (size_t i = 0; i < m->n_opset_import; i++) {
        const Onnx__OperatorSetIdProto *op = m->opset_import[i];
        if (op->domain && strcmp(op->domain, CTVM_MS_DOMAIN) == 0)
            c->ms_opset = op->has_version && op->version > 0 ? op->version : 0;
        if (!is_default_domain(op->domain))
            continue;
        found = 1;
        c->g->opset = op->has_version ? op->version : 0;
    }
    if (!found)
        return diag_error(c->d, c->g, -1, "the model imports no opset for the default ONNX domain");
    if (c->g->opset < ONNX_MIN_OPSET || c->g->opset > onnx_max_opset())
        return diag_error(c->d, c->g, -1,
                          "opset %lld is not supported (ctvm knows default-domain opsets %d "
                          "to %d)",
                          (long long)c->g->opset, ONNX_MIN_OPSET, onnx_max_opset());
    return 0;
}

static int add_initializers(OnnxLoadCtx *c, const Onnx__GraphProto *gp)
{
    Graph *g = c->g;
    OnnxTensorCtx tc = {g, -1, "initializer", c->base_dir};
    for (size_t i = 0; i < gp->n_initializer; i++) {
        const Onnx__TensorProto *tp = gp->initializer[i];
        if (!tp->name || !*tp->name)
            return diag_error(c->d, g, -1, "initializer number %zu has no name", i);
        if (namemap_get(&c->names, tp->name) >= 0)
            return diag_error(c->d, g, -1, "initializer '%s' is defined twice", tp->name);
        DType dt;
        Shape s;
        int64_t bytes;
        if (onnx_tensor_info(tp, &tc, &dt, &s, &bytes, c->d))
            return -1;
        int id = graph_add_const(g, tp->name, dt, s, NULL);
        namemap_put(&c->names, id);
        if (onnx_tensor_fill(tp, &tc, dt, &s, bytes, g->values[id].data, c->d))
            return -1;
    }
    return 0;
}

/* Value ids of a node's inputs; -1 for "". */
static int resolve_inputs(OnnxLoadCtx *c, const Onnx__NodeProto *np, const char *node_name,
                          int *ins)
{
    for (size_t k = 0; k < np->n_input; k++) {
        const char *in = np->input[k] ? np->input[k] : "";
        ins[k] = *in ? namemap_get(&c->names, in) : -1;
        if (*in && ins[k] < 0 && c->is_subgraph) { /* a value of an enclosing graph */
            ins[k] = graph_add_value(c->g, in);
            c->g->values[ins[k]].is_outer = 1;
            namemap_put(&c->names, ins[k]);
        }
        if (*in && ins[k] < 0)
            return diag_error(c->d, c->g, -1,
                              "node '%s' (%s): input '%s' is not defined before the node (no "
                              "initializer, graph input or earlier node output has that name)",
                              node_name, np->op_type, in);
    }
    return 0;
}

static int add_outputs_of(OnnxLoadCtx *c, const Onnx__NodeProto *np, const char *node_name,
                          int *outs)
{
    for (size_t k = 0; k < np->n_output; k++) {
        const char *out = np->output[k] ? np->output[k] : "";
        outs[k] = -1;
        if (!*out)
            continue; /* omitted optional output */
        if (namemap_get(&c->names, out) >= 0)
            return diag_error(c->d, c->g, -1,
                              "node '%s' (%s): output '%s' is already defined elsewhere",
                              node_name, np->op_type, out);
        outs[k] = graph_add_value(c->g, out);
        namemap_put(&c->names, outs[k]);
    }
    return 0;
}

/* The version of node id's operator in force at the model's opset, which
 * ctvm must implement. */
static int resolve_version(OnnxLoadCtx *c, int id)
{
    Graph *g = c->g;
    Node *n = &g->nodes[id];
    int first, lo, hi;
    int v = onnx_op_version(n->op_type, g->opset, &first);
    op_kind_versions(n->op, &lo, &hi);
    if (v == 0)
        return diag_error(c->d, g, id, "operator %s does not exist at opset %lld (ONNX introduced it at opset %d)",
                          n->op_type, (long long)g->opset, first);
    if (v < 0 || v < lo || v > hi)
        return diag_error(c->d, g, id,
                          "operator %s version %d (in force at opset %lld) is not supported; ctvm implements "
                          "versions %d to %d of %s",
                          n->op_type, v, (long long)g->opset, lo, hi, n->op_type);
    n->version = v;
    return 0;
}

/* A com.microsoft operator ctvm imports: its version in force at the
 * model's com.microsoft opset. */
static int resolve_ms_version(OnnxLoadCtx *c, int id, MsOpKind k)
{
    Node *n = &c->g->nodes[id];
    if (c->ms_opset <= 0)
        return diag_error(c->d, c->g, id,
                          "operator %s of domain '%s': the model imports no opset for domain '%s'",
                          n->op_type, CTVM_MS_DOMAIN, CTVM_MS_DOMAIN);
    if (c->ms_opset < ms_op_since(k))
        return diag_error(c->d, c->g, id,
                          "operator %s does not exist at %s opset %lld (introduced at opset %d)",
                          n->op_type, CTVM_MS_DOMAIN, (long long)c->ms_opset, ms_op_since(k));
    n->version = ms_op_since(k); /* each has one version so far */
    return 0;
}

static int add_node(OnnxLoadCtx *c, const Onnx__NodeProto *np)
{
    Graph *g = c->g;
    if (!np->op_type || !*np->op_type)
        return diag_error(c->d, g, -1, "node number %d has no op_type", g->n_nodes);
    if (np->n_input > (1u << 20) || np->n_output > (1u << 20))
        return diag_error(c->d, g, -1, "node number %d has too many inputs or outputs",
                          g->n_nodes);
    const char *name = np->name && *np->name
                           ? np->name
                           : arena_printf(g->arena, "%s_%d", np->op_type, g->n_nodes);
    int *ins = arena_array(g->arena, np->n_input + 1, sizeof(int));
    int *outs = arena_array(g->arena, np->n_output + 1, sizeof(int));
    if (resolve_inputs(c, np, name, ins) || add_outputs_of(c, np, name, outs))
        return -1;
    int id = graph_add_node(g, np->op_type, name, (int)np->n_input, ins, (int)np->n_output, outs);
    Node *n = &g->nodes[id];
    if (!is_default_domain(np->domain)) {
        n->domain = arena_strdup(g->arena, np->domain);
        n->op = OP_UNKNOWN; /* only the default domain's ops are known */
        MsOpKind k = ms_op_kind(np->domain, np->op_type);
        if (k != MS_UNKNOWN && resolve_ms_version(c, id, k))
            return -1;
    }
    if (strncmp(np->op_type, "ctvm.", 5) == 0)
        n->op = OP_UNKNOWN; /* ctvm's internal operators are made by passes only */
    if (n->op != OP_UNKNOWN && resolve_version(c, id))
        return -1;
    return onnx_attrs_decode(c, id, np);
}

/* The main graph's outputs name the compiled model's results, so each must
 * be distinct and computed (an output that is a runtime input has no code
 * writing it). A subgraph's outputs are positional: a Loop body may list
 * one value as both a carried value and a scan output, or pass an input
 * through. */
static int check_main_output(OnnxLoadCtx *c, const char *name, int id, unsigned char *listed)
{
    Graph *g = c->g;
    if (listed[id]++) /* a mark per value, not a search: a graph may have 2^20 outputs */
        return diag_error(c->d, g, -1, "graph output '%s' is listed twice", name);
    if (g->values[id].is_input)
        return diag_error(c->d, g, -1,
                          "graph output '%s' is the graph input '%s' itself; ctvm compiles "
                          "outputs that operators compute (pass it through an Identity node)",
                          name, name);
    return 0;
}

static int add_graph_outputs(OnnxLoadCtx *c, const Onnx__GraphProto *gp)
{
    unsigned char *listed = c->is_subgraph ? NULL : arena_array(c->g->arena,
                                                                (size_t)c->g->n_values + 1, 1);
    if (listed)
        memset(listed, 0, (size_t)c->g->n_values + 1);
    for (size_t i = 0; i < gp->n_output; i++) {
        const char *name = gp->output[i]->name ? gp->output[i]->name : "";
        int id = *name ? namemap_get(&c->names, name) : -1;
        if (id < 0)
            return diag_error(c->d, c->g, -1,
                              "graph output '%s' is not produced by any node, input or "
                              "initializer", name);
        if (listed && check_main_output(c, name, id, listed))
            return -1;
        graph_add_output(c->g, id);
    }
    return 0;
}

/* A subgraph's formal inputs: element type and whatever shape is declared
 * (a Loop body's carried values often declare none). */
static int add_subgraph_inputs(OnnxLoadCtx *c, const Onnx__GraphProto *gp)
{
    Graph *g = c->g;
    for (size_t i = 0; i < gp->n_input; i++) {
        const Onnx__ValueInfoProto *vi = gp->input[i];
        const char *name = vi->name ? vi->name : "";
        if (!*name || namemap_get(&c->names, name) >= 0)
            return diag_error(c->d, g, -1, "subgraph input '%s' has no name or is defined twice", name);
        if (onnx_declared_check(c, "subgraph input", vi, 0))
            return -1;
        int id = graph_add_value(g, name);
        namemap_put(&c->names, id);
        const Onnx__TypeProto *tp = vi->type;
        if (tp && tp->value_case == ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE && tp->tensor_type) {
            const Onnx__TypeProto__Tensor *tt = tp->tensor_type;
            g->values[id].dtype = dtype_from_onnx(tt->has_elem_type ? tt->elem_type : 0);
            if (tt->shape) { /* rank checked above */
                g->values[id].shape.rank = (int)tt->shape->n_dim;
                for (size_t k = 0; k < tt->shape->n_dim; k++) {
                    const Onnx__TensorShapeProto__Dimension *dim = tt->shape->dim[k];
                    g->values[id].shape.dims[k] =
                        dim->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE && dim->dim_value >= 0
                            ? dim->dim_value : -1;
                }
            }
        } else if (tp && tp->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE) {
            return diag_error(c->d, g, -1, "subgraph input '%s' is not a tensor (sequences, maps and optionals "
                                           "are not supported)", name);
        }
        graph_add_input(g, id);
    }
    return 0;
}

/* Nodes in file order, then the graph outputs. */
static int load_nodes_outputs(OnnxLoadCtx *c, const Onnx__GraphProto *gp)
{
    for (size_t i = 0; i < gp->n_node; i++)
        if (add_node(c, gp->node[i]))
            return -1;
    return onnx_declared_check_all(c, gp) || add_graph_outputs(c, gp) ? -1 : 0;
}

int onnx_subgraph_load(OnnxLoadCtx *parent, int node_id, const Onnx__GraphProto *gp, Graph **out)
{
    if (parent->depth >= ONNX_MAX_SUBGRAPH_DEPTH)
        return diag_error(parent->d, parent->g, node_id,
                          "subgraphs (If/Loop/Scan bodies) nested more than %d deep (ctvm's "
                          "limit)", ONNX_MAX_SUBGRAPH_DEPTH);
    OnnxLoadCtx c = {.g = graph_new_sub(parent->g), .base_dir = parent->base_dir, .d = parent->d,
                     .is_subgraph = 1, .depth = parent->depth + 1, .ms_opset = parent->ms_opset};
    if (gp->name)
        c.g->name = arena_strdup(c.g->arena, gp->name);
    size_t expected = gp->n_initializer + gp->n_input + 2 * gp->n_node + 16;
    namemap_init(&c.names, c.g, expected < (1u << 26) ? (int)expected : 1 << 26);
    if (add_initializers(&c, gp) || add_subgraph_inputs(&c, gp) || load_nodes_outputs(&c, gp))
        return -1;
    *out = c.g;
    return 0;
}

static int load_model(OnnxLoadCtx *c, const Onnx__ModelProto *m, const OnnxLoadOptions *opt)
{
    if (check_model(c, m) || read_opset(c, m))
        return -1;
    const Onnx__GraphProto *gp = m->graph;
    if (gp->name)
        c->g->name = arena_strdup(c->g->arena, gp->name);
    size_t expected = gp->n_initializer + gp->n_input + 2 * gp->n_node;
    namemap_init(&c->names, c->g, expected < (1u << 26) ? (int)expected : 1 << 26);
    if (add_initializers(c, gp) || onnx_bind_check_used(c, opt, gp) || onnx_inputs_add(c, gp, opt) || onnx_inputs_override(c, opt) ||
        onnx_inputs_check_static(c))
        return -1;
    return load_nodes_outputs(c, gp);
}

Graph *onnx_load_buffer(const void *buf, size_t len, const char *path_for_diag,
                        const OnnxLoadOptions *opt, Diag *d)
{
    Graph *g = graph_new(path_for_diag);
    OnnxLoadCtx c = {.g = g, .d = d};
    c.base_dir = path_for_diag ? file_dirname(g->arena, path_for_diag) : NULL;
    if (len == 0) {
        diag_error(d, g, -1, "not an ONNX model: the file is empty");
        graph_free(g);
        return NULL;
    }
    char why[256];
    int lim = proto_check_limits(buf, len, &onnx__model_proto__descriptor, why, sizeof why);
    if (lim == PROTO_OVER_LIMIT) {
        diag_error(d, g, -1, "refused before decoding: %s", why);
        graph_free(g);
        return NULL;
    }
    Onnx__ModelProto *m = lim == PROTO_OK ? onnx__model_proto__unpack(NULL, len, buf) : NULL;
    if (!m) {
        diag_error(d, g, -1, "not an ONNX model: protobuf decoding failed (the file is "
                             "truncated or is not a ModelProto)");
        graph_free(g);
        return NULL;
    }
    int rc = load_model(&c, m, opt);
    onnx__model_proto__free_unpacked(m, NULL);
    if (rc) {
        graph_free(g);
        return NULL;
    }
    return g;
}

Graph *onnx_load(const char *path, const OnnxLoadOptions *opt, Diag *d)
{
    unsigned char *buf;
    size_t len;
    if (file_read_all(path, &buf, &len, d))
        return NULL;
    Graph *g = onnx_load_buffer(buf, len, path, opt, d);
    free(buf);
    return g;
}
