/* cse.c - pass "cse": common subexpressions. Two live nodes of the same
 * operator computing from the same inputs with the same attributes give
 * the same values, so the later one is dropped and its readers read the
 * earlier one's outputs. onnxruntime's quantizers write one
 * DynamicQuantizeLinear per reader (an encoder's Q, K and V projections
 * each quantize the same LayerNorm output, behind Reshapes of their own),
 * so the tensor was read and quantized three times.
 *
 * Inputs are the same when they are the same value, or constants of the
 * same type, shape and bytes (each Reshape has its own shape initializer).
 * Only operators that are pure functions of their inputs and attributes
 * take part (a kernel scratch is the same when its size is, and is placed
 * later, by pass hidden): elementwise operators, the Reshape family,
 * Transpose, Cast and the three quantizers. Nodes whose outputs are graph
 * outputs are kept (the caller's buffers must be written). Runs in node
 * order, so a chain (Reshape, then the DynamicQuantizeLinear of it)
 * merges link by link. */
#include <string.h>

#include "passes/passes.h"

#define CSE_MAX_BUCKET 4096 /* candidates compared per node: no graph makes this quadratic */

static int pure_op(OpKind k)
{
    return op_is_elementwise(k) || op_is_reshape(k) || k == OP_TRANSPOSE || k == OP_CAST ||
           k == OP_QUANTIZELINEAR || k == OP_DEQUANTIZELINEAR || k == OP_DYNAMICQUANTIZELINEAR;
}

static int same_value(const Graph *g, int a, int b)
{
    if (a == b)
        return 1;
    if (a < 0 || b < 0)
        return 0;
    const Value *x = &g->values[a], *y = &g->values[b];
    int64_t bx = 0, by = 0;
    if (!x->data || !y->data || x->is_input || y->is_input || x->dtype != y->dtype || !shape_equal(&x->shape, &y->shape) ||
        !value_bytes(x, &bx) || !value_bytes(y, &by) || bx != by)
        return 0;
    return memcmp(x->data, y->data, (size_t)bx) == 0;
}

static int same_attr(const Attr *a, const Attr *b)
{
    if (strcmp(a->name, b->name) != 0 || a->kind != b->kind)
        return 0;
    switch (a->kind) {
    case ATTR_FLOAT: return memcmp(&a->f, &b->f, sizeof a->f) == 0;
    case ATTR_INT: return a->i == b->i;
    case ATTR_STRING: return strcmp(a->s ? a->s : "", b->s ? b->s : "") == 0;
    case ATTR_FLOATS: return a->n == b->n && (a->n == 0 || memcmp(a->floats, b->floats, (size_t)a->n * sizeof(float)) == 0);
    case ATTR_INTS: return a->n == b->n && (a->n == 0 || memcmp(a->ints, b->ints, (size_t)a->n * sizeof(int64_t)) == 0);
    default: return 0; /* tensors, graphs, strings lists: not compared, so not merged */
    }
}

static int same_node(const Graph *g, const Node *a, const Node *b)
{
    if (a->op != b->op || a->version != b->version || strcmp(a->domain ? a->domain : "", b->domain ? b->domain : "") ||
        a->n_in != b->n_in || a->n_out != b->n_out || a->n_attrs != b->n_attrs || a->dyn.kind >= 0 ||
        b->dyn.kind >= 0 || a->scratch.value >= 0 || b->scratch.value >= 0 || a->fused_into >= 0 || b->fused_into >= 0 ||
        memcmp(&a->scratch, &b->scratch, sizeof a->scratch) != 0 ||
        memcmp(&a->at, &b->at, sizeof a->at) != 0)
        return 0;
    for (int i = 0; i < a->n_in; i++)
        if (!same_value(g, a->in[i], b->in[i]))
            return 0;
    for (int i = 0; i < a->n_attrs; i++) { /* normalised by infer: the same order */
        if (!same_attr(&a->attrs[i], &b->attrs[i]))
            return 0;
    }
    for (int i = 0; i < a->n_out; i++) {
        if ((a->out[i] < 0) != (b->out[i] < 0))
            return 0;
        if (b->out[i] >= 0 && (g->values[b->out[i]].is_output || g->values[a->out[i]].is_output))
            return 0;
    }
    return 1;
}

int pass_cse(Graph *g, Diag *d)
{
    (void)d;
    graph_count_uses(g);
    int merged = 0;
    for (int j = 0; j < g->n_nodes; j++) {
        Node *b = &g->nodes[j];
        if (b->dead || !pure_op(b->op) || b->n_in < 1)
            continue;
        int looked = 0;
        for (int i = j - 1; i >= 0 && looked < CSE_MAX_BUCKET; i--) {
            const Node *a = &g->nodes[i];
            if (a->dead || a->op != b->op)
                continue;
            looked++;
            if (!same_node(g, a, b))
                continue;
            for (int k = 0; k < b->n_out; k++)
                if (b->out[k] >= 0)
                    graph_replace_uses(g, b->out[k], a->out[k]);
            b->dead = 1;
            merged++;
            break;
        }
    }
    if (merged)
        graph_count_uses(g);
    return 0;
}
