/* hidden.c - pass "hidden": the extra buffers some kernels write besides
 * their outputs, made explicit as hidden outputs of their node.
 *
 *  - A data-dependent output (Value.dyn: NonZero, Unique, Compress,
 *    NonMaxSuppression) holds upper-bound dims; its actual dims are written
 *    at run time into an int64[rank] value. ctvm supports such outputs as
 *    graph outputs: the dims value becomes the caller's `out<i>_shape`
 *    array (STORE_OUTDIMS) and its id is recorded in Value.dyn_dims. A
 *    data-dependent value read by another node is refused: that node's
 *    shapes would depend on run-time data.
 *  - A node whose infer set attribute "scratch_bytes" gets a uint8 arena
 *    value of that size, live only while it runs (attribute "scratch_value");
 *    with attribute "scratch_dtype" the value has that element type instead
 *    (scratch_bytes / its size elements). A second scratch of uint8
 *    (NodeScratch.bytes_u8: the int8 LSTM's quantized states) is made the
 *    same way.
 * Hidden outputs are appended to the node's outputs, so the memory plan
 * places them like any other output. Runs after pass outputs. */
#include "passes/pass_util.h"
#include "passes/passes.h"

int pass_hidden(Graph *g, const CodegenOptions *cg, Diag *d)
{
    graph_count_uses(g);
    int n_nodes = g->n_nodes;
    for (int i = 0; i < n_nodes; i++) {
        if (g->nodes[i].dead)
            continue;
        int n_out = g->nodes[i].n_out;
        for (int k = 0; k < n_out; k++) {
            int v = g->nodes[i].out[k];
            if (v < 0 || !g->values[v].dyn)
                continue;
            OpKind op = g->nodes[i].op;
            if ((op == OP_COMPRESS || op == OP_UNIQUE) && (g->values[v].n_uses > 0 || !g->values[v].is_output))
                return diag_error(d, g, i,
                                  "output '%s' has a data-dependent shape; ctvm supports %s outputs only as "
                                  "graph outputs, not as inputs of other operators",
                                  g->values[v].name, g->nodes[i].op_type);
            if (g->values[v].is_output && g->values[v].n_uses > 0 && g->values[v].shape.rank > 1)
                return diag_error(d, g, i,
                                  "output '%s' has a data-dependent shape and is read by other operators; "
                                  "ctvm supports this for 1-D outputs only", g->values[v].name);
            int64_t rank = g->values[v].shape.rank;
            int dv = graph_add_value(g, arena_printf(g->arena, "%s_shape", g->values[v].name));
            g->values[dv].dtype = DT_INT64;
            g->values[dv].shape = shape_make(1, &rank);
            if (g->values[v].is_output) {
                g->values[dv].storage = STORE_OUTDIMS;
                g->values[dv].io_index = g->values[v].io_index;
            }
            g->values[v].dyn_dims = dv;
            pass_append_output(g, i, dv);
        }
        int64_t bytes = g->nodes[i].scratch.bytes;
        if (bytes > 0 && g->nodes[i].scratch.per_thread && cg->threads > 1 && !i64_mul(bytes, cg->threads, &bytes))
            return diag_error(d, g, i, "the kernel's scratch for %d threads overflows", cg->threads);
        if (bytes > 0 && g->nodes[i].scratch.value < 0) {
            int sv = graph_add_value(g, arena_printf(g->arena, "%s_scratch", g->nodes[i].name));
            DType sdt = g->nodes[i].scratch.dtype;
            int64_t numel = bytes / (int64_t)dtype_size(sdt);
            g->values[sv].dtype = sdt;
            g->values[sv].shape = shape_make(1, &numel);
            g->nodes[i].scratch.value = sv;
            pass_append_output(g, i, sv);
        }
        int64_t b8 = g->nodes[i].scratch.bytes_u8;
        if (b8 > 0 && g->nodes[i].scratch.value_u8 < 0) { /* the second scratch: uint8 */
            int sv = graph_add_value(g, arena_printf(g->arena, "%s_scratch_u8", g->nodes[i].name));
            g->values[sv].dtype = DT_UINT8;
            g->values[sv].shape = shape_make(1, &b8);
            g->nodes[i].scratch.value_u8 = sv;
            pass_append_output(g, i, sv);
        }
    }
    graph_count_uses(g);
    return 0;
}
