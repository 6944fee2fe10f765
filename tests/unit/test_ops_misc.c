/* test_ops_misc.c - unit tests of the misc group's operators (Trilu,
 * OneHot, EyeLike, BitCast, Det): shape rules, attribute normalisation,
 * values folded through their compute definitions, and the errors.
 * Expected numbers are worked out by hand. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "ops/ops.h"
#include "tests/unit/graph_build.h"
#include "tests/unit/op_expect.h"

static void test_trilu(void **state)
{
    (void)state;
    Diag d = quiet();
    Graph *g = tb_graph(26);
    int x = tb_cf(g, "x", 2, D2(3, 3), (float[]){1, 2, 3, 4, 5, 6, 7, 8, 9});
    int k = tb_ci(g, "k", 0, NULL, (int64_t[]){1});
    int y = graph_add_value(g, "y");
    int n = tb_node(g, "Trilu", 2, 1, x, k, y);
    assert_int_equal(run(g, n, &d), 1);
    expect_shape(g, y, 2, D2(3, 3));
    expect_f32(g, y, 9, (float[]){0, 2, 3, 0, 0, 6, 0, 0, 0}, 0);
    assert_int_equal(attr_int(&g->nodes[n], "upper", -1), 1);
    /* lower, k omitted (0) */
    int y2 = graph_add_value(g, "y2");
    n = tb_node(g, "Trilu", 1, 1, x, y2);
    node_set_int(g, n, "upper", 0);
    assert_int_equal(run(g, n, &d), 1);
    expect_f32(g, y2, 9, (float[]){1, 0, 0, 4, 5, 0, 7, 8, 9}, 0);
    /* a huge k is clamped: everything kept by lower */
    int kb = tb_ci(g, "kb", 0, NULL, (int64_t[]){INT64_MAX});
    int y3 = graph_add_value(g, "y3");
    n = tb_node(g, "Trilu", 2, 1, x, kb, y3);
    node_set_int(g, n, "upper", 0);
    assert_int_equal(run(g, n, &d), 1);
    expect_f32(g, y3, 9, (float[]){1, 2, 3, 4, 5, 6, 7, 8, 9}, 0);
    /* a run-time k keeps the node run-time */
    int kr = tb_val(g, "kr", DT_INT64, 0, NULL);
    graph_add_input(g, kr);
    int y4 = graph_add_value(g, "y4");
    n = tb_node(g, "Trilu", 2, 1, x, kr, y4);
    assert_int_equal(ops_infer(g, n, &d), 0);
    assert_int_equal(g->nodes[n].at.trilu.k_const, 0);
    /* rank 1 is refused */
    int v = tb_cf(g, "v", 1, (int64_t[]){3}, (float[]){1, 2, 3});
    int y5 = graph_add_value(g, "y5");
    n = tb_node(g, "Trilu", 1, 1, v, y5);
    assert_int_equal(ops_infer(g, n, &d), -1);
    expect_error(&d, "rank 2 or more");
    graph_free(g);
}

static void test_onehot(void **state)
{
    (void)state;
    Diag d = quiet();
    Graph *g = tb_graph(26);
    int ix = tb_ci1(g, "ix", 3, D3(1, -1, 5));
    int dp = tb_ci(g, "dp", 0, NULL, (int64_t[]){3});
    int vals = tb_cf(g, "vals", 1, (int64_t[]){2}, (float[]){-1, 2});
    int y = graph_add_value(g, "y");
    int n = tb_node(g, "OneHot", 3, 1, ix, dp, vals, y);
    assert_int_equal(run(g, n, &d), 1);
    expect_shape(g, y, 2, D2(3, 3));
    expect_f32(g, y, 9, (float[]){-1, 2, -1, -1, -1, 2, -1, -1, -1}, 0);
    assert_int_equal(attr_int(&g->nodes[n], "axis", -9), 1);
    /* axis 0 */
    int y2 = graph_add_value(g, "y2");
    n = tb_node(g, "OneHot", 3, 1, ix, dp, vals, y2);
    node_set_int(g, n, "axis", 0);
    assert_int_equal(run(g, n, &d), 1);
    expect_f32(g, y2, 9, (float[]){-1, -1, -1, 2, -1, -1, -1, 2, -1}, 0);
    /* a run-time depth needs --bind */
    int dr = tb_val(g, "dr", DT_INT64, 0, NULL);
    graph_add_input(g, dr);
    int y3 = graph_add_value(g, "y3");
    n = tb_node(g, "OneHot", 3, 1, ix, dr, vals, y3);
    assert_int_equal(ops_infer(g, n, &d), -1);
    expect_error(&d, "--bind");
    graph_free(g);
    /* version 9 (opset 10): a negative index is out of range, not wrapped */
    g = tb_graph(10);
    ix = tb_ci1(g, "ix", 3, D3(1, -1, 5));
    dp = tb_ci(g, "dp", 0, NULL, (int64_t[]){3});
    vals = tb_cf(g, "vals", 1, (int64_t[]){2}, (float[]){0, 1});
    y = graph_add_value(g, "y");
    n = tb_node(g, "OneHot", 3, 1, ix, dp, vals, y);
    assert_int_equal(run(g, n, &d), 1);
    expect_f32(g, y, 9, (float[]){0, 1, 0, 0, 0, 0, 0, 0, 0}, 0);
    graph_free(g);
}

static void test_eyelike(void **state)
{
    (void)state;
    Diag d = quiet();
    Graph *g = tb_graph(26);
    int x = tb_input(g, "x", 2, D2(2, 3));
    int y = graph_add_value(g, "y");
    int n = tb_node(g, "EyeLike", 1, 1, x, y);
    node_set_int(g, n, "k", 1);
    assert_int_equal(run(g, n, &d), 1);
    expect_shape(g, y, 2, D2(2, 3));
    expect_f32(g, y, 6, (float[]){0, 1, 0, 0, 0, 1}, 0);
    int y2 = graph_add_value(g, "y2");
    n = tb_node(g, "EyeLike", 1, 1, x, y2);
    node_set_int(g, n, "dtype", 7); /* int64 */
    node_set_int(g, n, "k", -1);
    assert_int_equal(run(g, n, &d), 1);
    assert_int_equal(g->values[y2].dtype, DT_INT64);
    assert_memory_equal(g->values[y2].data, ((int64_t[]){0, 0, 0, 1, 0, 0}), 6 * sizeof(int64_t));
    int x3 = tb_input(g, "x3", 3, D3(2, 2, 2));
    int y3 = graph_add_value(g, "y3");
    n = tb_node(g, "EyeLike", 1, 1, x3, y3);
    assert_int_equal(ops_infer(g, n, &d), -1);
    expect_error(&d, "must be 2-D");
    graph_free(g);
}

static void test_bitcast(void **state)
{
    (void)state;
    Diag d = quiet();
    Graph *g = tb_graph(26);
    int x = tb_cf(g, "x", 1, (int64_t[]){2}, (float[]){1, -2});
    int y = graph_add_value(g, "y");
    int n = tb_node(g, "BitCast", 1, 1, x, y);
    node_set_int(g, n, "to", 6); /* int32 */
    assert_int_equal(run(g, n, &d), 1);
    assert_int_equal(g->values[y].dtype, DT_INT32);
    expect_shape(g, y, 1, (int64_t[]){2});
    assert_memory_equal(g->values[y].data, ((uint32_t[]){0x3f800000u, 0xc0000000u}), 8);
    int y2 = graph_add_value(g, "y2");
    n = tb_node(g, "BitCast", 1, 1, x, y2);
    node_set_int(g, n, "to", 7); /* int64: another width */
    assert_int_equal(ops_infer(g, n, &d), -1);
    expect_error(&d, "differ in width");
    graph_free(g);
}

static void test_det(void **state)
{
    (void)state;
    Diag d = quiet();
    Graph *g = tb_graph(26);
    /* [[1,2],[3,4]] -> -2; [[0,1],[1,0]] (a pivot swap) -> -1; [[1,2],[2,4]] -> 0 */
    int x = tb_cf(g, "x", 3, D3(3, 2, 2), (float[]){1, 2, 3, 4, 0, 1, 1, 0, 1, 2, 2, 4});
    int y = graph_add_value(g, "y");
    int n = tb_node(g, "Det", 1, 1, x, y);
    assert_int_equal(run(g, n, &d), 1);
    expect_shape(g, y, 1, (int64_t[]){3});
    expect_f32(g, y, 3, (float[]){-2, -1, 0}, 1e-6f);
    /* a 3x3 whose first pivot is 0 */
    int x2 = tb_cf(g, "x2", 2, D2(3, 3), (float[]){0, 1, 1, 2, 1, 0, 1, 1, 1});
    int y2 = graph_add_value(g, "y2");
    n = tb_node(g, "Det", 1, 1, x2, y2);
    assert_int_equal(run(g, n, &d), 1);
    expect_shape(g, y2, 0, NULL);
    /* rows: [0,1,1],[2,1,0],[1,1,1]: 0*(1-0) - 1*(2-0) + 1*(2-1) = -1 */
    expect_f32(g, y2, 1, (float[]){-1}, 1e-6f);
    int x3 = tb_input(g, "x3", 2, D2(2, 3));
    int y3 = graph_add_value(g, "y3");
    n = tb_node(g, "Det", 1, 1, x3, y3);
    assert_int_equal(ops_infer(g, n, &d), -1);
    expect_error(&d, "square");
    graph_free(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_trilu),
        cmocka_unit_test(test_onehot),
        cmocka_unit_test(test_eyelike),
        cmocka_unit_test(test_bitcast),
        cmocka_unit_test(test_det),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
