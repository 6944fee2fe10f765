/* quant_u8_acts.c - pass "quant_u8_acts": int8 activations become uint8
 * ones, so the integer convolutions and matrix products that read them run
 * on the u8 x s8 dot product (vpdpbusd) that ctvm.QConvNCHWc / QMatMul use.
 *
 * The shift by 128 (x xor 0x80 on the bytes) is exact everywhere it is
 * applied, because every reader and writer of the value subtracts or adds
 * its zero point:
 *   QuantizeLinear(x; s, z) to int8 + 128 == QuantizeLinear(x; s, z + 128)
 *     to uint8 (sat(r + z, -128, 127) + 128 == sat(r + z + 128, 0, 255)),
 *     so the producer writes the flipped byte itself;
 *   DequantizeLinear(q; s, z) == DequantizeLinear(q + 128; s, z + 128);
 *   ConvInteger / MatMulInteger: (q - z) == (q + 128) - (z + 128) for the
 *     activation operand (both operands of a run-time MatMulInteger), so
 *     the 128 * sum(w) compensation is the kernels' existing zero-point
 *     term, folded with the weight sums at compile time;
 *   MaxPool (its padding is the type's minimum, which shifts with it),
 *     Reshape, Flatten, Transpose, Squeeze, Unsqueeze, Identity, Gather,
 *     Slice, Split, Concat only move or select values, and keep the order.
 * A value is flipped only when all of that holds for its whole connected
 * set (every producer a QuantizeLinear with a constant zero point or one of
 * the moving ops, every reader one of the above with constant zero points)
 * and none of it is a graph input, output, constant or read by name inside
 * a subgraph. Runs before qmatmul_runtime, whose dot-product form of a
 * run-time MatMulInteger wants A uint8 (attention's int8 Q*K^T and P*V,
 * else left as int32 multiplies), and before layout; dead nodes are
 * skipped, live readers a later dce would drop only keep a value int8. */
#include <stdlib.h>
#include <string.h>

#include "passes/pass_util.h"
#include "passes/passes.h"
#include "passes/quant_util.h"

static int in_of(const Node *n, int i)
{
    return i < n->n_in ? n->in[i] : -1;
}

/* 1 when zero point input z is absent or a constant of type t. */
static int const_zp(const Graph *g, int z, DType t)
{
    return z < 0 || (g->values[z].data && g->values[z].dtype == t);
}

/* Drops value v (and reports a change) when it is a candidate. */
static int drop(char *cand, int v)
{
    if (v < 0 || !cand[v])
        return 0;
    cand[v] = 0;
    return 1;
}

/* One sweep over node i: drops candidates the node does not allow. */
static int check_node(const Graph *g, int i, char *cand)
{
    const Node *n = &g->nodes[i];
    int ch = 0, nm = qp_moving_inputs(n);
    if (nm) { /* all data inputs and outputs flip together, or none */
        int any = 0, all = 1;
        for (int k = 0; k < nm; k++)
            any |= in_of(n, k) >= 0 && cand[n->in[k]], all &= in_of(n, k) >= 0 && cand[n->in[k]];
        for (int k = 0; k < n->n_out; k++)
            any |= n->out[k] >= 0 && cand[n->out[k]], all &= n->out[k] >= 0 && cand[n->out[k]];
        if (any && !all) {
            for (int k = 0; k < nm; k++)
                ch |= drop(cand, in_of(n, k));
            for (int k = 0; k < n->n_out; k++)
                ch |= drop(cand, n->out[k]);
        }
        for (int k = nm; k < n->n_in; k++) /* an index / shape operand stays what it is */
            ch |= drop(cand, n->in[k]);
        return ch;
    }
    switch (n->op) {
    case OP_QUANTIZELINEAR:
        if (!const_zp(g, in_of(n, 2), DT_INT8) || in_of(n, 2) < 0 ||
            (n->version >= 21 && attr_int(n, "output_dtype", 0))) /* the type from the zero point only */
            ch |= drop(cand, n->out[0]);
        return ch;
    case OP_DEQUANTIZELINEAR:
        if (!const_zp(g, in_of(n, 2), DT_INT8))
            ch |= drop(cand, n->in[0]);
        return ch;
    case OP_CONVINTEGER: /* the activation only (int8 weights are what the kernels want) */
        if (!const_zp(g, in_of(n, 2), DT_INT8))
            ch |= drop(cand, n->in[0]);
        ch |= drop(cand, n->in[1]);
        return ch;
    case OP_MATMULINTEGER:
        if (!const_zp(g, in_of(n, 2), DT_INT8))
            ch |= drop(cand, n->in[0]);
        if (!const_zp(g, in_of(n, 3), DT_INT8))
            ch |= drop(cand, n->in[1]);
        return ch;
    default:
        for (int k = 0; k < n->n_in; k++)
            ch |= drop(cand, n->in[k]);
        for (int k = 0; k < n->n_out; k++)
            ch |= drop(cand, n->out[k]);
        return ch;
    }
}

/* Drops every value of g that subgraph `sub` (If / Loop /
 * Scan bodies, nested) reads by name: it must keep its type. */
static void drop_outer_reads(const Graph *g, const Graph *sub, char *cand)
{
    for (int v = 0; v < sub->n_values; v++)
        if (sub->values[v].is_outer) {
            int o = graph_find_value(g, sub->values[v].name);
            if (o >= 0 && o < g->n_values)
                cand[o] = 0;
        }
    for (int i = 0; i < sub->n_nodes; i++)
        for (int a = 0; a < sub->nodes[i].n_attrs; a++)
            if (sub->nodes[i].attrs[a].kind == ATTR_GRAPH && sub->nodes[i].attrs[a].graph)
                drop_outer_reads(g, sub->nodes[i].attrs[a].graph, cand);
}

/* A uint8 constant of z's shape holding z + 128 (z absent: the scalar 128);
 * one per source zero point (memo). */
static int shifted_zp(Graph *g, int z, int *memo)
{
    if (z >= 0 && memo[z] >= 0)
        return memo[z];
    int64_t ne = 1;
    Shape s = z >= 0 ? g->values[z].shape : shape_make(0, NULL);
    if (z >= 0)
        shape_numel(&s, &ne);
    uint8_t *u = malloc((size_t)ne + 1);
    if (!u)
        return -1;
    for (int64_t k = 0; k < ne; k++)
        u[k] = (uint8_t)((z >= 0 ? ((const int8_t *)g->values[z].data)[k] : 0) + 128);
    const char *base = z >= 0 ? arena_printf(g->arena, "%s_u8", g->values[z].name) : "zero_point_u8";
    int id = graph_add_const(g, pass_unique_name(g, base), DT_UINT8, s, u);
    free(u);
    if (z >= 0)
        memo[z] = id;
    return id;
}

/* Node i's zero point input `slot` (for a flipped operand) shifted. */
static int shift_input(Graph *g, int i, int slot, int *memo)
{
    int z = in_of(&g->nodes[i], slot);
    int id = shifted_zp(g, z, memo);
    if (id < 0)
        return -1;
    if (g->nodes[i].n_in <= slot)
        pass_grow_inputs(g, i, slot + 1);
    g->nodes[i].in[slot] = id;
    return 0;
}

int pass_quant_u8_acts(Graph *g, Diag *d)
{
    (void)d;
    int nv = g->n_values;
    char *cand = calloc((size_t)nv + 1, 1);
    int *memo = malloc(((size_t)nv + 1) * sizeof(int));
    if (!cand || !memo) {
        free(cand);
        free(memo);
        return -1;
    }
    int any = 0;
    for (int v = 0; v < nv; v++) {
        const Value *x = &g->values[v];
        memo[v] = -1;
        cand[v] = x->dtype == DT_INT8 && !x->data && !x->is_input && !x->is_output && !x->is_outer &&
                  x->producer >= 0 && !g->nodes[x->producer].dead;
        any |= cand[v];
    }
    for (int i = 0; i < g->n_nodes && any; i++)
        for (int a = 0; a < g->nodes[i].n_attrs; a++)
            if (!g->nodes[i].dead && g->nodes[i].attrs[a].kind == ATTR_GRAPH && g->nodes[i].attrs[a].graph)
                drop_outer_reads(g, g->nodes[i].attrs[a].graph, cand);
    for (int v = 0; v < nv && any; v++) /* a producer that is neither a Q nor a moving op */
        if (cand[v] && g->nodes[g->values[v].producer].op != OP_QUANTIZELINEAR &&
            !qp_moving_inputs(&g->nodes[g->values[v].producer]))
            cand[v] = 0;
    for (int changed = any; changed;) {
        changed = 0;
        for (int i = 0; i < g->n_nodes; i++)
            if (!g->nodes[i].dead)
                changed |= check_node(g, i, cand);
    }
    int rc = 0, n_nodes = g->n_nodes;
    for (int i = 0; i < n_nodes && !rc; i++) {
        Node *n = &g->nodes[i];
        if (n->dead)
            continue;
        int x0 = in_of(n, 0), x1 = in_of(n, 1);
        switch (n->op) {
        case OP_QUANTIZELINEAR:
            if (cand[n->out[0]]) {
                rc = shift_input(g, i, 2, memo);
            }
            break;
        case OP_DEQUANTIZELINEAR:
        case OP_CONVINTEGER:
            if (x0 >= 0 && cand[x0])
                rc = shift_input(g, i, 2, memo);
            break;
        case OP_MATMULINTEGER:
            if (x0 >= 0 && cand[x0])
                rc = shift_input(g, i, 2, memo);
            if (!rc && x1 >= 0 && cand[x1])
                rc = shift_input(g, i, 3, memo);
            break;
        default: break;
        }
    }
    for (int v = 0; v < nv && !rc; v++)
        if (cand[v])
            g->values[v].dtype = DT_UINT8;
    free(cand);
    free(memo);
    return rc;
}
