/* test_cse.c - pass cse (a pure node computing what an earlier one already
 * computed is dropped, its readers read the earlier outputs): the shape
 * onnxruntime's dynamic quantizer writes, two Reshapes of one tensor (each
 * with its own, equal, shape initializer) each quantized by its own
 * DynamicQuantizeLinear, becomes one Reshape and one quantizer; two Relus
 * of one input become one, and the folded result equals 2 max(x, 0)
 * computed here; and what must stay: different attributes, constants of
 * different contents, a graph output. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "passes/passes.h"
#include "tests/unit/graph_build.h"

static const CodegenOptions GENERIC = {.target = NULL, .threads = 1};

static int count_live(const Graph *g, const char *op_type)
{
    int n = 0;
    for (int i = 0; i < g->n_nodes; i++)
        n += !g->nodes[i].dead && strcmp(g->nodes[i].op_type, op_type) == 0;
    return n;
}

static void infer(Graph *g)
{
    Diag d = quiet();
    if (pass_infer_fold(g, &GENERIC, &d) != 0)
        fail_msg("%s", d.last);
}

static void infer_and_cse(Graph *g)
{
    infer(g);
    Diag d = quiet();
    assert_int_equal(pass_cse(g, &d), 0);
}

static void test_dynamic_quantizers(void **state)
{
    (void)state;
    Graph *g = graph_new("t");
    g->opset = 13;
    int64_t dx[3] = {1, 8, 16}, flat[2] = {8, 16};
    int x = tb_input(g, "x", 3, dx);
    int s1 = tb_ci1(g, "shape_a", 2, flat), s2 = tb_ci1(g, "shape_b", 2, flat);
    int r1 = graph_add_value(g, "r1"), r2 = graph_add_value(g, "r2");
    tb_node(g, "Reshape", 2, 1, x, s1, r1);
    tb_node(g, "Reshape", 2, 1, x, s2, r2);
    int q[2][3];
    for (int k = 0; k < 2; k++) {
        for (int o = 0; o < 3; o++)
            q[k][o] = graph_add_value(g, arena_printf(g->arena, "q%d_%d", k, o));
        tb_node(g, "DynamicQuantizeLinear", 1, 3, k ? r2 : r1, q[k][0], q[k][1], q[k][2]);
    }
    /* each quantized tensor's reader: a Cast, then their sum is the output */
    int c1 = graph_add_value(g, "c1"), c2 = graph_add_value(g, "c2"), y = graph_add_value(g, "y");
    tb_node(g, "Cast", 1, 1, q[0][0], c1);
    node_set_int(g, g->n_nodes - 1, "to", 1);
    tb_node(g, "Cast", 1, 1, q[1][0], c2);
    node_set_int(g, g->n_nodes - 1, "to", 1);
    tb_node(g, "Add", 2, 1, c1, c2, y);
    graph_add_output(g, y);
    infer_and_cse(g);
    assert_int_equal(count_live(g, "Reshape"), 1);
    assert_int_equal(count_live(g, "DynamicQuantizeLinear"), 1);
    assert_int_equal(count_live(g, "Cast"), 1); /* then the Casts are the same too */
    int add = g->values[y].producer;
    assert_int_equal(g->nodes[add].in[0], g->nodes[add].in[1]);
    graph_free(g);
}

static void test_relu_value(void **state)
{
    (void)state;
    Graph *g = graph_new("t");
    g->opset = 13;
    int64_t dx[1] = {6};
    int x = tb_input(g, "x", 1, dx);
    int a = graph_add_value(g, "a"), b = graph_add_value(g, "b"), y = graph_add_value(g, "y");
    tb_node(g, "Relu", 1, 1, x, a);
    tb_node(g, "Relu", 1, 1, x, b);
    tb_node(g, "Add", 2, 1, a, b, y);
    graph_add_output(g, y);
    infer_and_cse(g);
    assert_int_equal(count_live(g, "Relu"), 1);
    static float xv[6] = {-2.5f, -0.0f, 0.25f, 3.0f, -1e-3f, 7.5f};
    g->values[x].data = xv;
    infer(g);
    const float *got = g->values[y].data;
    assert_non_null(got);
    for (int i = 0; i < 6; i++)
        assert_float_equal(got[i], 2.0f * (xv[i] > 0 ? xv[i] : 0.0f), 0.0f);
    graph_free(g);
}

static void test_left_alone(void **state)
{
    (void)state;
    Graph *g = graph_new("t");
    g->opset = 13;
    int64_t dx[2] = {4, 4};
    float k1[4] = {1, 2, 3, 4}, k2[4] = {1, 2, 3, 5};
    int64_t d4[1] = {4};
    int x = tb_input(g, "x", 2, dx);
    int ca = tb_cf(g, "ka", 1, d4, k1), cb = tb_cf(g, "kb", 1, d4, k2);
    int m1 = graph_add_value(g, "m1"), m2 = graph_add_value(g, "m2"); /* different constants */
    tb_node(g, "Mul", 2, 1, x, ca, m1);
    tb_node(g, "Mul", 2, 1, x, cb, m2);
    int i1 = graph_add_value(g, "i1"), i2 = graph_add_value(g, "i2"); /* different attributes */
    tb_node(g, "Cast", 1, 1, x, i1);
    node_set_int(g, g->n_nodes - 1, "to", 6);
    tb_node(g, "Cast", 1, 1, x, i2);
    node_set_int(g, g->n_nodes - 1, "to", 7);
    int n1 = graph_add_value(g, "n1"), n2 = graph_add_value(g, "n2"); /* the second is a graph output */
    tb_node(g, "Neg", 1, 1, x, n1);
    tb_node(g, "Neg", 1, 1, x, n2);
    int s = graph_add_value(g, "s");
    tb_node(g, "Add", 2, 1, m1, m2, s);
    graph_add_output(g, s);
    graph_add_output(g, i1);
    graph_add_output(g, i2);
    graph_add_output(g, n1);
    graph_add_output(g, n2);
    infer_and_cse(g);
    assert_int_equal(count_live(g, "Mul"), 2);
    assert_int_equal(count_live(g, "Cast"), 2);
    assert_int_equal(count_live(g, "Neg"), 2);
    graph_free(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dynamic_quantizers),
        cmocka_unit_test(test_relu_value),
        cmocka_unit_test(test_left_alone),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
