/* quant_moves.c - pass "quant_moves": data movement between a
 * DequantizeLinear and a QuantizeLinear of the same per-tensor parameters
 * runs on the integers:
 *
 *   DQ(x; s, z) -> MaxPool / Reshape / Flatten / Transpose / Squeeze /
 *   Unsqueeze / Identity / Gather / Slice / Split -> Q(s, z)  ==  the op on x
 *   Concat(DQ(x_i; s, z)...) -> Q(s, z)                       ==  Concat(x_i...)
 *   DQ(x; s, z) -> Relu -> Q(s, z), z the type's minimum      ==  x
 *   DQ(x; s, z) -> Q(s, z)                                    ==  x
 *
 * Exact: these ops only move or select values (MaxPool selects the largest,
 * and dequantization with a positive scale keeps the order), and
 * Q(DQ(x)) == x for equal parameters (the float32 quotient (x - z) * s / s
 * rounds back to x - z). Every output of the op must be read by such a
 * QuantizeLinear alone. Like quant_canon it runs before infer_fold and
 * reads constants only. */
#include "passes/pass_util.h"
#include "passes/passes.h"
#include "passes/quant_util.h"

/* Inputs of the op that carry the data: the moving ops (qp_moving_inputs;
   MaxPool from version 8, without Indices) and Relu. */
static int data_inputs(const Node *n)
{
    if (n->op == OP_RELU)
        return 1;
    if (n->op == OP_MAXPOOL && n->version < 8)
        return 0;
    return qp_moving_inputs(n);
}

/* The QuantizeLinear reading value v alone, with parameters equal to p; -1 if none. */
static int equal_q(const Graph *g, int v, const QParams *p)
{
    int q = pass_sole_consumer(g, v);
    QParams qp;
    if (q < 0 || !qp_match_q(g, q, &qp) || g->nodes[q].in[0] != v || !qp_equal(p, &qp))
        return -1;
    return q;
}

static int type_min(DType t)
{
    return t == DT_INT8 ? -128 : 0;
}

static int move_one(Graph *g, int i)
{
    Node *n = &g->nodes[i];
    int nd = data_inputs(n);
    if (!nd || n->n_out < 1 || n->n_out > 64)
        return 0;
    QParams p, pk;
    if (!qp_match_dq(g, n->in[0], 0, &p) || p.axis >= 0)
        return 0;
    for (int k = 1; k < nd; k++)
        if (n->in[k] < 0 || !qp_match_dq(g, n->in[k], 0, &pk) || !qp_equal(&p, &pk))
            return 0;
    int qs[64];
    for (int k = 0; k < n->n_out; k++)
        if (n->out[k] < 0 || (qs[k] = equal_q(g, n->out[k], &p)) < 0)
            return 0;
    if (n->op == OP_RELU) { /* the QuantizeLinear clamps at z already */
        if (qp_zero(&p, 0) != type_min(p.qt))
            return 0;
        n->op = OP_IDENTITY;
        n->op_type = "Identity";
        pass_modern_version(g, i);
    }
    if (n->op == OP_MAXPOOL && n->version < 12)
        n->version = 12; /* int8/uint8 since 12; the attributes are 10's and 11's */
    for (int k = 0; k < nd; k++) {
        qp_match_dq(g, n->in[k], 0, &pk);
        n->in[k] = pk.x;
    }
    for (int k = 0; k < n->n_out; k++) {
        n->out[k] = g->nodes[qs[k]].out[0];
        g->nodes[qs[k]].dead = 1;
    }
    graph_count_uses(g);
    return 1;
}

/* Q(DQ(x; s, z); s, z) -> x, for readers of the QuantizeLinear's output */
static void drop_round_trip(Graph *g, int q)
{
    QParams qp, dp;
    const Node *n = &g->nodes[q];
    if (!qp_match_q(g, q, &qp) || g->values[qp.x].is_output || !qp_match_dq(g, n->in[0], 0, &dp) ||
        dp.axis >= 0 || !qp_equal(&qp, &dp))
        return;
    graph_replace_uses(g, qp.x, dp.x);
    g->nodes[q].dead = 1;
    graph_count_uses(g);
}

int pass_quant_moves(Graph *g, Diag *d)
{
    (void)d;
    graph_count_uses(g);
    for (int i = 0; i < g->n_nodes; i++) {
        if (g->nodes[i].dead)
            continue;
        if (g->nodes[i].op == OP_QUANTIZELINEAR)
            drop_round_trip(g, i);
        else
            move_one(g, i);
    }
    qp_drop_unread_dq(g);
    return 0;
}
