/* quant_lut.c - pass "quant_lut": a chain of elementwise float operators
 * from one 8-bit tensor to a QuantizeLinear becomes a 256-entry table
 * (ctvm.Lut, ops/lut.c), as ONNX Runtime's QLinearSigmoid / QLinearLookup
 * and TFLite's int8 activations do.
 *
 * The chain is what QDQ exporters write around an activation, e.g. GELU in
 * a quantized encoder:
 *   DQ(u) -> Div -> Erf -> Q -> DQ -> Add -> Q -> DQ -> Mul(DQ(u), .) -> Q -> DQ -> Mul -> Q
 * Its output depends only on the byte of u at the same position when
 *  - every operator in it is elementwise (op_is_elementwise), a Cast, or a
 *    QuantizeLinear / DequantizeLinear, of the default domain, one output;
 *  - every input that is not made inside the chain is either u itself or a
 *    constant of one element (scalars: the scales, zero points, 0.5, sqrt 2);
 *  - a Reshape, Squeeze, Unsqueeze or Flatten of a chain value (constant
 *    shape or axes) is in the chain as well: it keeps the elements' order
 *    (sink_reshape moves onnxruntime's Reshape after fc1 past the
 *    DequantizeLinear, between u and the GELU); every value of the chain
 *    has u's element count, so no operand broadcasts to new positions;
 *  - the QuantizeLinear at its end (the root) writes int8 or uint8 of u's
 *    element count;
 *  - the table pays (worth_a_table): a transcendental operator and more
 *    than one step, else the chain stays and fuses as an epilogue.
 * The table is the chain itself evaluated at compile time on the 256 byte
 * values: the chain's nodes are copied with u replaced by the constant
 * [0..255] (or [-128..127]), and infer_fold2 folds the copies by running
 * their compute definitions in the interpreter, which rounds as the target
 * does, so the table holds what the chain computes at run time, bit for bit.
 * The copies skip the reshapes (the table is 256 values in a row). The
 * root becomes Lut(table, u), reshaped to the root's shape when u's
 * differs; the chain's nodes nothing else reads
 * die (dce), so an inner QuantizeLinear of a longer chain is not made a
 * table of its own. On bert_mini_qdq_u8 each GELU (5 divisions and an erf per
 * element) becomes one byte lookup.
 * Runs after quant_u8_acts (u's final type) and before infer_fold2. */
#include <stdlib.h>
#include <string.h>

#include "passes/pass_util.h"
#include "passes/passes.h"

#define LUT_MAX_NODES 64
#define LUT_MAX_INPUTS 16 /* inputs of a chain node (copy_node's array) */
#define LUT_VISIT_BUDGET 4096 /* visits per root: a lattice of shared operands can't blow up */

typedef struct Chain {
    const Graph *g;
    int leaf;                 /* u, the 8-bit value the chain reads; -1 until found */
    int n, nodes[LUT_MAX_NODES]; /* the chain's nodes, producers before readers */
    int n_costly;             /* transcendental ones (costly(): a polynomial and a division each) */
    int n_q;                  /* QuantizeLinear nodes (a division and a rounding each) */
    int budget;               /* visits left (LUT_VISIT_BUDGET) */
    int64_t numel;            /* the root's element count: every chain value's */
} Chain;

/* Operators whose float code is a library-grade polynomial per element. */
static int costly(OpKind op)
{
    switch (op) {
    case OP_ERF: case OP_EXP: case OP_LOG: case OP_TANH: case OP_SIGMOID: case OP_POW: case OP_SQRT:
    case OP_GELU: case OP_SOFTPLUS: case OP_MISH: case OP_ELU: case OP_SELU: case OP_CELU: case OP_SIN:
    case OP_COS: case OP_TAN: case OP_ASIN: case OP_ACOS: case OP_ATAN: case OP_SINH: case OP_COSH:
    case OP_ASINH: case OP_ACOSH: case OP_ATANH:
        return 1;
    default: return 0;
    }
}

static int one_element_const(const Value *v)
{
    int64_t n = 0;
    return v->data && shape_numel(&v->shape, &n) && n == 1;
}

static int is_8bit(DType t)
{
    return t == DT_UINT8 || t == DT_INT8;
}

/* an order-keeping reshape: data in slot 0, the rest constants */
static int reshape_op(const Graph *g, const Node *n)
{
    if (n->op != OP_RESHAPE && n->op != OP_SQUEEZE && n->op != OP_UNSQUEEZE && n->op != OP_FLATTEN)
        return 0;
    for (int i = 1; i < n->n_in; i++)
        if (n->in[i] >= 0 && !g->values[n->in[i]].data)
            return 0;
    return n->n_in >= 1 && n->n_out == 1 && (!n->domain || !*n->domain);
}

static int chain_op(const Node *n)
{
    return (op_is_elementwise(n->op) || n->op == OP_CAST || n->op == OP_QUANTIZELINEAR ||
            n->op == OP_DEQUANTIZELINEAR) &&
           n->n_out == 1 && n->n_in <= LUT_MAX_INPUTS && (!n->domain || !*n->domain);
}

static int in_chain(const Chain *c, int node)
{
    for (int i = 0; i < c->n; i++)
        if (c->nodes[i] == node)
            return 1;
    return 0;
}

/* 1 when value v is a function of the leaf's byte alone: adds its
 * producers to the chain (post-order) and sets the leaf on the way. */
static int visit(Chain *c, int v, int depth)
{
    const Graph *g = c->g;
    const Value *x = &g->values[v];
    if (--c->budget < 0)
        return 0;
    if (one_element_const(x))
        return 1;
    if (v == c->leaf)
        return 1;
    int p = x->producer;
    int64_t nx = -1;
    if (!shape_numel(&x->shape, &nx) || (c->numel >= 0 && nx != c->numel))
        return 0; /* every value of the chain has the root's element count */
    if (depth < LUT_MAX_NODES && p >= 0 && !g->nodes[p].dead &&
        (chain_op(&g->nodes[p]) || reshape_op(g, &g->nodes[p])) && !x->data) {
        if (in_chain(c, p))
            return 1;
        const Node *n = &g->nodes[p];
        int ok = 1, n0 = c->n, k0 = c->n_costly, q0 = c->n_q, l0 = c->leaf;
        int n_data = reshape_op(g, n) ? 1 : n->n_in; /* a reshape's shape or axes are constants */
        for (int i = 0; i < n_data && ok; i++)
            ok = n->in[i] < 0 || visit(c, n->in[i], depth + 1);
        if (ok && c->n < LUT_MAX_NODES) {
            c->nodes[c->n++] = p;
            c->n_costly += costly(n->op);
            c->n_q += n->op == OP_QUANTIZELINEAR;
            return 1;
        }
        /* not a chain through p: v may be the leaf */
        c->n = n0, c->n_costly = k0, c->n_q = q0, c->leaf = l0;
    }
    if (c->leaf < 0 && is_8bit(x->dtype) && !x->data && x->shape.rank >= 0) {
        c->leaf = v;
        return 1;
    }
    return 0;
}

/* Copies node `src` in at b->pos with input values remapped by map[]
 * (value id -> copy, -1: the same value); returns the copy's output. */
static int copy_node(PassBuild *b, int src, int *map)
{
    Graph *g = b->g;
    const Node *s = &g->nodes[src];
    int ins[LUT_MAX_INPUTS];
    for (int i = 0; i < s->n_in; i++)
        ins[i] = s->in[i] >= 0 && map[s->in[i]] >= 0 ? map[s->in[i]] : s->in[i];
    int out = pb_value(b, "lut");
    int id = pb_node(b, s->op_type, s->n_in, ins, out);
    s = &g->nodes[src >= id ? src + 1 : src]; /* moved up when inserted before */
    Node *n = &g->nodes[id];
    n->version = s->version;
    n->n_attrs = s->n_attrs;
    n->attrs = s->n_attrs ? arena_array(g->arena, (size_t)s->n_attrs, sizeof(Attr)) : NULL;
    if (s->n_attrs)
        memcpy(n->attrs, s->attrs, (size_t)s->n_attrs * sizeof(Attr));
    return out;
}

static int rewrite(Graph *g, int q, const Chain *c)
{
    int leaf = c->leaf;
    DType lt = g->values[leaf].dtype;
    unsigned char bytes[256];
    for (int k = 0; k < 256; k++)
        bytes[k] = (unsigned char)(lt == DT_INT8 ? k - 128 : k); /* int8: the byte of k - 128 */
    int64_t n256 = 256;
    PassBuild b = {g, q, g->nodes[q].name};
    int lin = graph_add_const(g, pass_unique_name(g, arena_printf(g->arena, "%s_lut_in", b.base)), lt,
                              shape_make(1, &n256), bytes);
    int nv = g->n_values + 2 * LUT_MAX_NODES + 8;
    int *map = malloc((size_t)nv * sizeof(int));
    if (!map)
        return -1;
    for (int i = 0; i < nv; i++)
        map[i] = -1;
    map[leaf] = lin;
    int nodes[LUT_MAX_NODES], table = -1;
    memcpy(nodes, c->nodes, (size_t)c->n * sizeof(int));
    for (int i = 0; i < c->n; i++) {
        int src = nodes[i];
        int out = g->nodes[src].out[0];
        if (reshape_op(g, &g->nodes[src])) { /* the 256 values stay a row */
            int in0 = g->nodes[src].in[0];
            map[out] = map[in0] >= 0 ? map[in0] : in0;
            continue;
        }
        int copy = copy_node(&b, src, map);
        map[out] = copy;
        for (int k = i + 1; k < c->n; k++) /* ids at or past the insertion moved up by one */
            if (nodes[k] >= b.pos - 1)
                nodes[k]++;
        table = copy;
    }
    free(map);
    /* the root (the chain's last node) stands right after the copies */
    int root = b.pos;
    int y = g->nodes[root].out[0];
    g->nodes[root].dead = 1;
    int ins[2] = {table, leaf};
    if (shape_equal(&g->values[leaf].shape, &g->values[y].shape)) {
        pb_node(&b, "ctvm.Lut", 2, ins, y);
        return 0;
    }
    Shape ys = g->values[y].shape; /* u's shape, then the root's */
    int t = pb_value(&b, "lut_flat");
    pb_node(&b, "ctvm.Lut", 2, ins, t);
    pb_reshape(&b, t, ys.rank, ys.dims, y);
    return 0;
}

/* A table is a kernel of its own (a byte load and store per element),
 * while a cheap chain fuses into its producer's epilogue and runs in
 * registers (attention's DQ -> Div -> Q after Q*K^T, a DQ -> Relu -> Q). It
 * pays when the chain holds a transcendental operator and more than one
 * step of it: requantized in the middle (GELU's four QuantizeLinear) or a
 * second transcendental operator. */
static int worth_a_table(const Chain *c)
{
    return c->n_costly > 0 && (c->n_q >= 2 || c->n_costly >= 2);
}

int pass_quant_lut(Graph *g, Diag *d)
{
    /* last to first: a chain's root is its last QuantizeLinear, so the
     * whole chain (GELU's four Q nodes) becomes one table, not four */
    for (int i = g->n_nodes - 1; i >= 0; i--) {
        const Node *n = &g->nodes[i];
        if (n->dead || n->op != OP_QUANTIZELINEAR || n->n_out != 1 || n->out[0] < 0)
            continue;
        const Value *y = &g->values[n->out[0]];
        if (!is_8bit(y->dtype) || (y->n_uses == 0 && !y->is_output))
            continue;
        int64_t ny = -1;
        if (!shape_is_static(&y->shape) || !shape_numel(&y->shape, &ny))
            continue;
        Chain c = {g, -1, 0, {0}, 0, 0, LUT_VISIT_BUDGET, ny};
        if (!visit(&c, n->out[0], 0) || c.leaf < 0 || c.n == 0 || c.nodes[c.n - 1] != i || !worth_a_table(&c))
            continue;
        if (!shape_is_static(&g->values[c.leaf].shape))
            continue;
        if (rewrite(g, i, &c))
            return diag_error(d, g, i, "out of memory making a table");
        if (pass_dce(g, d)) /* the chain's nodes only it read */
            return -1;
    }
    return 0;
}
