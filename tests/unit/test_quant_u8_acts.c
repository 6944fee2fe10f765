/* test_quant_u8_acts.c - unit test of pass quant_u8_acts on a small
 * hand-built graph: float32 x -> QuantizeLinear (int8, zero point -5) ->
 * MaxPool -> ConvInteger (int8 weights), and a DequantizeLinear of the
 * quantized value. After the pass the activations are uint8 with zero
 * point 123 (-5 + 128) everywhere they are read or written, and the
 * outputs (int32 products, float32 dequantized values) equal an exact
 * integer reference written out here. A quantized value that is also a
 * graph output is left int8. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

#include "ops/ops.h"
#include "passes/passes.h"
#include "tests/unit/graph_build.h"

enum { HW = 4, OC = 2 };
static const int8_t W[OC] = {3, -7};
static const float XS = 0.5f;
static const int XZ = -5;

typedef struct Net {
    Graph *g;
    int x, q, p, acc, f, zq, zc;
} Net;

static Net build(int q_is_output)
{
    Net n;
    Graph *g = n.g = tb_graph(13);
    n.x = tb_input(g, "x", 4, D4(1, 1, HW, HW));
    int8_t z = XZ;
    int s = graph_add_const(g, "s", DT_FLOAT32, shape_make(0, NULL), &XS);
    n.zq = graph_add_const(g, "z", DT_INT8, shape_make(0, NULL), &z);
    n.q = graph_add_value(g, "q");
    tb_node(g, "QuantizeLinear", 3, 1, n.x, s, n.zq, n.q);
    n.p = graph_add_value(g, "p");
    int mp = tb_node(g, "MaxPool", 1, 1, n.q, n.p);
    node_set_ints(g, mp, "kernel_shape", (int64_t[]){2, 2}, 2);
    node_set_ints(g, mp, "strides", (int64_t[]){2, 2}, 2);
    int w = graph_add_const(g, "w", DT_INT8, shape_make(4, D4(OC, 1, 1, 1)), W);
    n.acc = graph_add_value(g, "acc");
    n.zc = n.zq;
    tb_node(g, "ConvInteger", 3, 1, n.p, w, n.zc, n.acc);
    n.f = graph_add_value(g, "f");
    tb_node(g, "DequantizeLinear", 3, 1, n.q, s, n.zq, n.f);
    graph_add_output(g, n.acc);
    graph_add_output(g, n.f);
    if (q_is_output)
        graph_add_output(g, n.q);
    return n;
}

static void infer_all(Graph *g, int eval)
{
    Diag d = quiet();
    for (int i = 0; i < g->n_nodes; i++) {
        if (g->nodes[i].dead)
            continue;
        if (ops_infer(g, i, &d) != 0)
            fail_msg("infer %s: %s", g->nodes[i].op_type, d.last);
        if (eval)
            assert_int_equal(ops_eval(g, i, NULL, &d), 1);
    }
    graph_count_uses(g);
}

static void test_flipped(void **state)
{
    (void)state;
    Net n = build(0);
    float xd[HW * HW];
    for (int i = 0; i < HW * HW; i++)
        xd[i] = (float)((i * 47) % 300 - 150) * XS; /* exact quotients, some saturate */
    infer_all(n.g, 0);
    Diag d = quiet();
    assert_int_equal(pass_quant_u8_acts(n.g, &d), 0);
    assert_int_equal(n.g->values[n.q].dtype, DT_UINT8);
    assert_int_equal(n.g->values[n.p].dtype, DT_UINT8);
    for (int i = 0; i < n.g->n_nodes; i++) { /* every zero point of the value: uint8 123 */
        const Node *nd = &n.g->nodes[i];
        if (nd->op == OP_QUANTIZELINEAR || nd->op == OP_DEQUANTIZELINEAR || nd->op == OP_CONVINTEGER) {
            const Value *z = &n.g->values[nd->in[2]];
            assert_int_equal(z->dtype, DT_UINT8);
            assert_int_equal(((const uint8_t *)z->data)[0], XZ + 128);
        }
    }
    n.g->values[n.x].data = xd;
    infer_all(n.g, 1);
    int q[HW * HW];
    for (int i = 0; i < HW * HW; i++) {
        int v = (int)nearbyint(xd[i] / XS) + XZ;
        q[i] = v < -128 ? -128 : v > 127 ? 127 : v;
        assert_int_equal(((const uint8_t *)n.g->values[n.q].data)[i], q[i] + 128);
        assert_true(((const float *)n.g->values[n.f].data)[i] == (float)(q[i] - XZ) * XS);
    }
    const int32_t *acc = n.g->values[n.acc].data;
    for (int oc = 0; oc < OC; oc++)
        for (int oh = 0; oh < HW / 2; oh++)
            for (int ow = 0; ow < HW / 2; ow++) {
                int m = -128;
                for (int k = 0; k < 4; k++) {
                    int v = q[(oh * 2 + k / 2) * HW + ow * 2 + k % 2];
                    m = v > m ? v : m;
                }
                assert_int_equal(acc[(oc * 2 + oh) * 2 + ow], (m - XZ) * W[oc]);
            }
    graph_free(n.g);
}

static void test_output_left_int8(void **state)
{
    (void)state;
    Net n = build(1);
    infer_all(n.g, 0);
    Diag d = quiet();
    assert_int_equal(pass_quant_u8_acts(n.g, &d), 0);
    assert_int_equal(n.g->values[n.q].dtype, DT_INT8);
    assert_int_equal(n.g->values[n.p].dtype, DT_INT8);
    for (int i = 0; i < n.g->n_nodes; i++)
        if (n.g->nodes[i].op == OP_CONVINTEGER)
            assert_int_equal(n.g->nodes[i].in[2], n.zq);
    graph_free(n.g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_flipped),
        cmocka_unit_test(test_output_left_int8),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
