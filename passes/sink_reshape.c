/* sink_reshape.c - pass "sink_reshape": an elementwise node that reads a
 * Reshape moves before it, so the chain producer -> Reshape -> Gelu becomes
 * producer -> Gelu -> Reshape and the Gelu joins the producer's epilogue
 * (pass fuse follows a value only while its shape stays the same).
 * onnxruntime's MatMulAddFusion writes every 3-D MatMul + Add as
 * Reshape -> Gemm -> Reshape, so in its quantized encoders the activation
 * after fc1 and the residual Add after fc2 were kernels of their own, each
 * reading and writing the whole float32 tensor.
 *
 * Rewritten: E(Reshape(x), o...) -> Reshape(E(x, o'...)) when
 *   - E is elementwise on float32 (or a per-tensor Quantize/Dequantize-
 *     Linear of the Reshape's float32 or 8-bit data), no legacy broadcast
 *     attributes, and it does not broadcast the Reshape's output to a
 *     larger shape;
 *   - the Reshape's output has no other reader and is not a graph output,
 *     and neither is E's;
 *   - x has no other reader, and its producer takes an epilogue (Conv,
 *     MatMul, elementwise: also a node this pass moved) or is a Quantize/
 *     DequantizeLinear: only where a fusion can follow;
 *   - each other operand o broadcasts the same against x as against the
 *     Reshape's output: its dims (after leading ones) lie within the
 *     trailing dims that x and the output share; or it has the output's
 *     element count and is reshaped to x's shape (o').
 * Elementwise results do not depend on the shape, so outputs are
 * bit-identical. Runs before infer_fold2, which infers the new values and
 * folds the Reshapes of constant operands. */
#include "passes/pass_util.h"
#include "passes/passes.h"

#define SINK_MAX_INPUTS 8 /* Sum, Max, ... with more operands stay as they are */

/* How many trailing dims a and b have equal. */
static int common_suffix(const Shape *a, const Shape *b)
{
    int k = 0;
    while (k < a->rank && k < b->rank && a->dims[a->rank - 1 - k] == b->dims[b->rank - 1 - k])
        k++;
    return k;
}

/* How operand o reads against x instead of the Reshape's output `out`:
 * FIT_AS_IS (right-aligned, its dims past leading ones meet the same
 * trailing dims of x), FIT_SQUEEZE (the same, once the leading ones that
 * make it longer than x are dropped), FIT_RESHAPE (out's shape: reshaped to
 * x's), or FIT_NONE. */
enum { FIT_NONE, FIT_AS_IS, FIT_SQUEEZE, FIT_RESHAPE };
static int operand_fit(const Graph *g, int o, const Shape *x, const Shape *out, int suffix, int *lead)
{
    const Shape *s = &g->values[o].shape;
    if (!shape_is_static(s) || g->values[o].dtype != DT_FLOAT32)
        return FIT_NONE;
    *lead = 0;
    while (*lead < s->rank && s->dims[*lead] == 1)
        (*lead)++;
    if (s->rank - *lead <= suffix)
        return s->rank <= x->rank ? FIT_AS_IS : FIT_SQUEEZE;
    return shape_equal(s, out) ? FIT_RESHAPE : FIT_NONE;
}

/* The operand o as it reads against x (operand_fit's answer `fit`): o, or
 * a Reshape of it built at b. */
static int operand_for(PassBuild *b, int o, int fit, int lead, const Shape *x)
{
    if (fit == FIT_SQUEEZE) {
        const Shape *s = &b->g->values[o].shape;
        return pb_reshape(b, o, s->rank - lead, s->dims + lead, -1);
    }
    if (fit == FIT_RESHAPE)
        return pb_reshape(b, o, x->rank, x->dims, -1);
    return o;
}

static int sinkable_op(const Graph *g, const Node *e)
{
    if (e->op == OP_QUANTIZELINEAR || e->op == OP_DEQUANTIZELINEAR)
        return pass_quant_per_tensor(g, e) && e->n_out == 1;
    return op_is_elementwise(e->op) && !e->at.eltwise.legacy && e->n_out == 1 &&
           g->values[e->out[0]].dtype == DT_FLOAT32;
}

static int is_qdq(const Node *n)
{
    return n->op == OP_QUANTIZELINEAR || n->op == OP_DEQUANTIZELINEAR;
}

/* Rewrites node e (reading Reshape node r's output in operand slot k) when
 * the rules above allow; 1 if it did. */
static int sink(Graph *g, int e, int r, int k)
{
    const Node *rn = &g->nodes[r];
    int x = rn->in[0], y = g->nodes[e].out[0], rv = rn->out[0];
    const Value *vx = &g->values[x];
    int qdq = is_qdq(&g->nodes[e]);
    int x_ok = vx->dtype == DT_FLOAT32 ||
               (g->nodes[e].op == OP_DEQUANTIZELINEAR && (vx->dtype == DT_UINT8 || vx->dtype == DT_INT8));
    if (g->values[rv].n_uses != 1 || g->values[rv].is_output || g->values[y].is_output || vx->data || !x_ok ||
        vx->n_uses != 1 || vx->is_output || !shape_is_static(&vx->shape) || !shape_is_static(&g->values[y].shape) ||
        !shape_equal(&g->values[y].shape, &g->values[rv].shape) || g->nodes[e].dyn.kind >= 0 ||
        g->nodes[e].n_in > SINK_MAX_INPUTS)
        return 0;
    int p = vx->producer;
    if (p < 0 || g->nodes[p].dead || !(op_takes_epilogue(g->nodes[p].op) || is_qdq(&g->nodes[p])))
        return 0;
    Shape xs = vx->shape, ys = g->values[y].shape;
    int suffix = common_suffix(&xs, &ys), n_in = g->nodes[e].n_in;
    /* How each other operand fits, building nothing yet, so a refusal leaves the graph as it was;
       a Q/DQ's other operands are its scalar parameters, kept as they are. */
    int fit[SINK_MAX_INPUTS], lead[SINK_MAX_INPUTS] = {0};
    for (int i = 0; i < n_in; i++) {
        int o = g->nodes[e].in[i];
        fit[i] = FIT_AS_IS;
        if (i == k || o < 0 || qdq)
            continue;
        if (o == rv)
            return 0; /* reads the Reshape twice */
        fit[i] = operand_fit(g, o, &xs, &ys, suffix, &lead[i]);
        if (fit[i] == FIT_NONE)
            return 0;
    }
    int ins[SINK_MAX_INPUTS];
    PassBuild b = {g, e, g->nodes[e].name};
    for (int i = 0; i < n_in; i++)
        ins[i] = i == k ? x : operand_for(&b, g->nodes[e].in[i], fit[i], lead[i], &xs);
    e = b.pos; /* the operand Reshapes went in before it */
    b.base = g->nodes[e].name;
    int y2 = pb_value(&b, "flat");
    g->values[y2].dtype = g->values[y].dtype;
    g->values[y2].shape = xs;
    for (int i = 0; i < n_in; i++)
        g->nodes[e].in[i] = ins[i];
    g->nodes[e].out[0] = y2;
    g->nodes[r].dead = 1;
    PassBuild after = {g, e + 1, g->nodes[e].name};
    pb_reshape(&after, y2, ys.rank, ys.dims, y);
    graph_count_uses(g);
    return 1;
}

int pass_sink_reshape(Graph *g, Diag *d)
{
    (void)d;
    graph_count_uses(g);
    for (int i = 0; i < g->n_nodes; i++) {
        const Node *e = &g->nodes[i];
        if (e->dead || e->fused_into >= 0 || !sinkable_op(g, e))
            continue;
        int n_in = is_qdq(e) ? 1 : e->n_in; /* a Q/DQ moves past a Reshape of its data input only */
        for (int k = 0; k < n_in; k++) {
            int v = g->nodes[i].in[k], r = v >= 0 ? g->values[v].producer : -1;
            if (r < 0 || g->nodes[r].dead || !op_is_reshape(g->nodes[r].op) || g->nodes[r].n_in < 1 ||
                g->nodes[r].in[0] < 0)
                continue;
            int before = g->n_nodes;
            if (sink(g, i, r, k)) {
                i += g->n_nodes - before - 1; /* to the node itself; its new Reshape follows */
                break;
            }
        }
    }
    return 0;
}
