/* fuse.c - pass "fuse": elementwise epilogues into their producer.
 *
 * Starting from every node that can take an epilogue (Conv, Gemm, pools,
 * elementwise, ...), follow its output while it has exactly one consumer,
 * is not a graph output, and that consumer is elementwise, float32, of the
 * same output shape, and reads the value exactly once. Each such consumer
 * joins the group (Node.fused_into, anchor's epi[]). Bias adds, Relu, Clip
 * and residual Adds thus cost no memory traffic. The group runs where its
 * last node stood (ir/exec_order.h), so a residual operand computed after
 * the anchor is ready. A per-tensor QuantizeLinear to uint8/int8 may end
 * the chain (the contract's integer convolution -> float epilogue -> u8:
 * one kernel, the float32 result never in memory). A chain ending in such a
 * QuantizeLinear goes on when the quantized value's only reader is a
 * DequantizeLinear with constant parameters: the QDQ residual block conv ->
 * Q -> DQ -> Add(identity) -> Relu -> Q is one kernel, the same float32
 * operations in the same order as the unfused graph (bit-identical), with
 * neither the intermediate bytes nor their float32 copy in memory. A
 * blocked convolution's, pooling's or ctvm.Pack's group may end in the
 * ctvm.PadHW that reads it (pad_reader). */
#include "passes.h"
#include "passes/pass_util.h"

static int single_consumer(const Graph *g, int vid)
{
    int found = -1;
    for (int i = 0; i < g->n_nodes; i++) {
        const Node *n = &g->nodes[i];
        if (n->dead)
            continue;
        for (int k = 0; k < n->n_in; k++)
            if (n->in[k] == vid) {
                if (found >= 0)
                    return -1;
                found = i;
            }
    }
    return found;
}

static int reads_once(const Node *n, int vid)
{
    int c = 0;
    for (int k = 0; k < n->n_in; k++)
        c += n->in[k] == vid;
    return c == 1;
}

static void add_epilogue(Graph *g, Node *a, int anchor, int c)
{
    a->epi = arena_grow(g->arena, a->epi, (size_t)a->n_epi, (size_t)a->n_epi + 1, sizeof(int));
    a->epi[a->n_epi++] = c;
    g->nodes[c].fused_into = anchor;
}

/* The ctvm.PadHW that is the only reader of value v, the output of a group
 * whose one stage stores a blocked tensor point by point (a blocked
 * convolution or pooling, ctvm.Pack), else -1. It joins the group as its last node:
 * the group stores into the padded tensor's interior and fills its border,
 * where a kernel of its own copied the whole tensor (schedule_group). */
static int pad_reader(const Graph *g, const Node *a, int v)
{
    int stage = a->op == OP_CONV_NCHWC || a->op == OP_QCONV_NCHWC || a->op == OP_PACK ||
                ((a->op == OP_MAXPOOL || a->op == OP_AVGPOOL) && a->at.pool.blocked);
    if (!stage || a->n_out != 1 || g->values[v].is_output || g->values[v].n_uses != 1 ||
        g->values[v].shape.rank != 5)
        return -1;
    int c = single_consumer(g, v);
    if (c < 0)
        return -1;
    const Node *cn = &g->nodes[c];
    if (cn->op != OP_PADHW || cn->is_view || cn->fused_into >= 0 || cn->n_epi > 0 || cn->in[0] != v ||
        !reads_once(cn, v))
        return -1;
    return c;
}

int pass_fuse(Graph *g, Diag *d)
{
    (void)d;
    for (int i = 0; i < g->n_nodes; i++) {
        Node *a = &g->nodes[i];
        if (a->op == OP_PACK && !a->dead && a->fused_into < 0 && a->n_epi == 0) {
            int pad = pad_reader(g, a, a->out[0]); /* an image packed straight into its padded tensor */
            if (pad >= 0)
                add_epilogue(g, a, i, pad);
            continue;
        }
        if (a->dead || a->is_view || a->fused_into >= 0 || a->n_epi > 0 || !op_takes_epilogue(a->op) ||
            (a->n_out != 1 && a->op != OP_WINOGRAD_CONV) /* its extra outputs are scratch */ ||
            a->dyn.kind >= 0)
            continue; /* run-time shapes (ops/dynprop.c): kernels of their own */
        int cur = a->out[0], quantized = 0; /* quantized: cur is a fused QuantizeLinear's bytes */
        while ((g->values[cur].dtype == DT_FLOAT32 || quantized) && !g->values[cur].is_output &&
               g->values[cur].n_uses == 1) {
            int c = single_consumer(g, cur);
            if (c < 0)
                break;
            Node *cn = &g->nodes[c];
            const Value *cv = &g->values[cn->out[0]];
            int quant = !quantized && cn->op == OP_QUANTIZELINEAR && cn->n_out == 1 && cn->in[0] == cur &&
                        pass_quant_per_channel(g, cn) && (cv->dtype == DT_UINT8 || cv->dtype == DT_INT8);
            int dequant = quantized && cn->op == OP_DEQUANTIZELINEAR && cn->n_out == 1 && cn->in[0] == cur &&
                          pass_quant_per_channel(g, cn) && cv->dtype == DT_FLOAT32;
            if (quantized && !dequant)
                break;
            if (cn->is_view || cn->fused_into >= 0 || (!op_is_elementwise(cn->op) && !quant && !dequant) ||
                cn->n_out != 1 || !reads_once(cn, cur) || (cv->dtype != DT_FLOAT32 && !quant) ||
                !shape_equal(&cv->shape, &g->values[cur].shape))
                break;
            quantized = quant;
            add_epilogue(g, a, i, c);
            cur = cn->out[0];
        }
        int pad = pad_reader(g, a, cur);
        if (pad >= 0)
            add_epilogue(g, a, i, pad);
    }
    return 0;
}
