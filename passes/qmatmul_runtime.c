/* qmatmul_runtime.c - pass "qmatmul_runtime": a MatMulInteger whose B is
 * computed at run time (attention's Q*K^T and P*V in a quantized
 * transformer) on the dot-product kernel ctvm.QMatMul (ops/qmatmul.c),
 * which wants B as int8 packed 4 k-values to an output lane.
 *
 * With A uint8 [..., M, K] (K a multiple of 4), B uint8 or int8 [..., K, N]
 * with A's batch dimensions, and constant per-tensor zero points az, bz:
 *   b'  = b - 128 for uint8 B (b xor 0x80 read as int8), b for int8 B
 *   bz' = bz - 128 (uint8) or bz (int8)
 *   sum_k (a - az)(b - bz) = sum_k a*b' - az*sum_k b'[n] - bz'*(sum_k a[m] - K*az)
 * so the graph gets, before the product (inferred and fused by the passes
 * after this one):
 *   Bp = ctvm.QPackB(B): b' as int8, 4 k-values to a lane   [..., K/4, N*4]
 *        (reading through a Transpose that made B, as attention's K^T)
 *   BS = QMatMul(ones [..., 1, K], Bp) viewed [..., N]: the column sums on
 *        the same dot-product kernel (column_sums; no zero point, so no
 *        column-sum input of its own)
 *   RC = Cast(ReduceSum(Cast(A, float32), axis -1), int32) * -bz' + K*az*bz'
 *                                       [..., M]  (when bz' != 0; the float
 *                                        sum is exact: 255*K < 2^24)
 * and the node becomes ctvm.QMatMul(A, Bp, az, BS[, RC]); a Cast to
 * float32 that is its only reader is folded in (at.conv.out_float) so the
 * float epilogue fuses into the register tile. The sums are exact int32.
 * Runs before infer_fold2, which infers the new nodes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ir/tensor.h"
#include "passes/pass_util.h"
#include "passes/passes.h"

/* The constant scalar zero point v as an integer (0 when absent); 0 when
 * it is not a constant scalar of type t. */
static int zero_point(const Graph *g, int v, DType t, int64_t *out)
{
    *out = 0;
    if (v < 0)
        return 1;
    const Value *c = &g->values[v];
    int64_t cnt = 0;
    if (c->dtype != t || !c->data || c->shape.rank > 1 || !shape_numel(&c->shape, &cnt) || cnt != 1)
        return 0;
    *out = (int64_t)tensor_get_f64(t, c->data, 0);
    return 1;
}

static int i32_scalar(PassBuild *b, const char *what, int64_t v)
{
    int32_t x = (int32_t)v;
    return graph_add_const(b->g, pass_unique_name(b->g, arena_printf(b->g->arena, "%s_%s", b->base, what)), DT_INT32,
                           shape_make(0, NULL), &x);
}

static int cast(PassBuild *b, int x, DType to)
{
    int out = pb_value(b, "cast");
    int id = pb_node(b, "Cast", 1, &x, out);
    node_set_int(b->g, id, "to", dtype_to_onnx(to));
    return out;
}

static int reduce_sum(PassBuild *b, int x, int64_t axis)
{
    int ins[2] = {x, pb_ints(b, "axes", 1, &axis)}, out = pb_value(b, "sum");
    int id = pb_node(b, "ReduceSum", 2, ins, out);
    node_set_int(b->g, id, "keepdims", 0);
    return out;
}

/* The column sums of b' [..., N] int32, from the packed bytes on the same
 * dot-product kernel: a QMatMul of one row of ones with no zero point (so
 * no column-sum input of its own), [..., 1, N] viewed [..., N]. One
 * vpdpbusd per 4 rows and vector of columns, where a Cast to int32 and a
 * ReduceSum over [..., K/4, N, 4] took 4 bytes a value and a strided
 * scalar sum (0.045 ms per product of bert_mini's attention). The ones are
 * batch * K bytes (rewrite bounds them); -1 when out of memory. */
static int column_sums(PassBuild *b, int bp, const Value *bv, int64_t batch, int64_t K, int64_t N)
{
    Graph *g = b->g;
    int r = bv->shape.rank;
    int64_t ones_d[CTVM_MAX_RANK], sum_d[CTVM_MAX_RANK];
    for (int i = 0; i < r - 2; i++)
        ones_d[i] = sum_d[i] = bv->shape.dims[i];
    ones_d[r - 2] = 1, ones_d[r - 1] = K, sum_d[r - 2] = N;
    uint8_t *ones = malloc((size_t)(batch * K));
    if (!ones)
        return -1;
    memset(ones, 1, (size_t)(batch * K));
    int ins[4] = {graph_add_const(g, pass_unique_name(g, arena_printf(g->arena, "%s_ones", b->base)), DT_UINT8,
                                  shape_make(r, ones_d), ones),
                  bp, -1, -1};
    free(ones);
    int row = pb_value(b, "colsum");
    pb_node(b, "ctvm.QMatMul", 4, ins, row);
    return pb_reshape(b, row, r - 1, sum_d, -1);
}

static int rewrite(Graph *g, int node)
{
    const Node *n = &g->nodes[node];
    int a = n->in[0], bm = n->in[1], az = n->n_in > 2 ? n->in[2] : -1, bz = n->n_in > 3 ? n->in[3] : -1;
    const Value *av = &g->values[a], *bv = &g->values[bm];
    int r = av->shape.rank;
    if (av->dtype != DT_UINT8 || (bv->dtype != DT_UINT8 && bv->dtype != DT_INT8) || bv->data || r < 2 ||
        bv->shape.rank != r || r >= CTVM_MAX_RANK || g->values[n->out[0]].shape.rank != r)
        return 0;
    int64_t K = av->shape.dims[r - 1], N = bv->shape.dims[r - 1];
    if (K % 4 || K <= 0 || 255 * K >= (1 << 24) || N <= 0 || bv->shape.dims[r - 2] != K)
        return 0;
    int64_t batch = 1; /* B's batch, bounded so the ones column_sums makes stay small */
    for (int i = 0; i < r - 2; i++) {
        if (av->shape.dims[i] != bv->shape.dims[i] || av->shape.dims[i] <= 0 ||
            batch > INT32_MAX / av->shape.dims[i] / K)
            return 0;
        batch *= av->shape.dims[i];
    }
    int64_t azv, bzv;
    if (!zero_point(g, az, DT_UINT8, &azv) || !zero_point(g, bz, bv->dtype, &bzv))
        return 0;
    int u8 = bv->dtype == DT_UINT8;
    int64_t bzp = bzv - (u8 ? 128 : 0);
    PassBuild b = {g, node, n->name};

    /* B made by a Transpose only this product reads: packed from its input */
    int src = bm, tp = g->values[bm].producer;
    int64_t perm[CTVM_MAX_RANK];
    for (int i = 0; i < r; i++)
        perm[i] = i;
    if (tp >= 0 && !g->nodes[tp].dead && g->nodes[tp].op == OP_TRANSPOSE && g->nodes[tp].n_in >= 1 &&
        pass_sole_consumer(g, bm) == node && g->values[g->nodes[tp].in[0]].shape.rank == r && !g->values[bm].is_output) {
        src = g->nodes[tp].in[0];
        for (int i = 0; i < r; i++)
            perm[i] = g->nodes[tp].at.transpose.perm[i];
    }
    int bp = pb_value(&b, "packed");
    int pk = pb_node(&b, "ctvm.QPackB", 1, &src, bp);
    memcpy(g->nodes[pk].at.transpose.perm, perm, sizeof perm);
    int bs = column_sums(&b, bp, bv, batch, K, N);
    if (bs < 0)
        return -1;
    int rc = -1;
    if (bzp != 0) { /* sum_k a in float32: exact below 2^24 */
        int rs = cast(&b, reduce_sum(&b, cast(&b, a, DT_FLOAT32), -1), DT_INT32);
        rc = pb_binary(&b, "Add", pb_binary(&b, "Mul", rs, i32_scalar(&b, "bzp", -bzp)),
                       i32_scalar(&b, "kzz", K * azv * bzp));
    }
    if (az < 0) {
        uint8_t zero = 0;
        az = graph_add_const(g, pass_unique_name(g, "qmatmul_zero_point"), DT_UINT8, shape_make(0, NULL), &zero);
    }
    node = b.pos;
    int y = g->nodes[node].out[0], c = pass_sole_consumer(g, y);
    int out_float = c >= 0 && g->nodes[c].op == OP_CAST && g->values[g->nodes[c].out[0]].dtype == DT_FLOAT32 &&
                    !g->values[y].is_output;
    pass_grow_inputs(g, node, 5);
    Node *q = &g->nodes[node];
    q->op = OP_QMATMUL;
    q->op_type = "ctvm.QMatMul";
    q->domain = "";
    q->version = 0;
    q->in[0] = a;
    q->in[1] = bp;
    q->in[2] = az;
    q->in[3] = bs;
    q->in[4] = rc;
    q->n_in = rc >= 0 ? 5 : 4;
    memset(&q->at, 0, sizeof q->at);
    q->at.conv.out_float = out_float;
    if (out_float) {
        q->out[0] = g->nodes[c].out[0];
        g->values[q->out[0]].producer = node;
        g->nodes[c].dead = 1;
    }
    return b.pos + 1;
}

int pass_qmatmul_runtime(Graph *g, Diag *d)
{
    for (int i = 0; i < g->n_nodes; i++) {
        const Node *n = &g->nodes[i];
        if (n->dead || n->op != OP_MATMULINTEGER || n->n_out != 1 || n->n_in < 2 || n->in[0] < 0 || n->in[1] < 0)
            continue;
        int next = rewrite(g, i);
        if (next < 0)
            return diag_error(d, g, i, "out of memory rewriting a run-time product");
        if (next > 0)
            i = next - 1;
    }
    graph_count_uses(g);
    return 0;
}
