/* test_qmatmul_runtime.c - pass qmatmul_runtime (a MatMulInteger whose B is
 * computed at run time -> ctvm.QPackB + ctvm.QMatMul with B's column sums
 * (a second QMatMul, of a row of ones) and A's row term): the rewrite's shape on batched uint8 x uint8 and
 * uint8 x int8 products, then its value: the operands made constant and
 * the graph folded (the kernels' compute definitions, interpreted) against
 * sum_k (a - az)(b - bz) in exact integer arithmetic; and the cases it
 * leaves alone (K off the 4-grid, a constant B). */
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

enum { BT = 2, M = 3, K = 8, N = 5 };

static int count_live(const Graph *g, const char *op_type)
{
    int n = 0;
    for (int i = 0; i < g->n_nodes; i++)
        n += !g->nodes[i].dead && strcmp(g->nodes[i].op_type, op_type) == 0;
    return n;
}

/* MatMulInteger(A [BT,M,k] u8, B [BT,k,N] bt, az, bz) on run-time operands. */
static Graph *product(DType bt, int64_t k, int az_v, int bz_v, int *a, int *b, int *y)
{
    Graph *g = graph_new("t");
    int64_t da[3] = {BT, M, k}, db[3] = {BT, k, N};
    *a = tb_val(g, "a", DT_UINT8, 3, da);
    *b = tb_val(g, "b", bt, 3, db);
    graph_add_input(g, *a);
    graph_add_input(g, *b);
    uint8_t az = (uint8_t)az_v;
    int8_t bz8 = (int8_t)bz_v;
    uint8_t bzu = (uint8_t)bz_v;
    int ins[4] = {*a, *b, graph_add_const(g, "az", DT_UINT8, shape_make(0, NULL), &az),
                  graph_add_const(g, "bz", bt, shape_make(0, NULL), bt == DT_INT8 ? (const void *)&bz8 : &bzu)};
    *y = graph_add_value(g, "y");
    graph_add_node(g, "MatMulInteger", NULL, 4, ins, 1, y);
    graph_add_output(g, *y);
    return g;
}

static void check(DType bt, int az, int bz)
{
    int a, b, y;
    Graph *g = product(bt, K, az, bz, &a, &b, &y);
    Diag d = quiet();
    assert_int_equal(pass_infer_fold(g, &GENERIC, &d), 0);
    assert_int_equal(pass_qmatmul_runtime(g, &d), 0);
    assert_int_equal(pass_infer_fold(g, &GENERIC, &d), 0);
    assert_int_equal(count_live(g, "MatMulInteger"), 0);
    assert_int_equal(count_live(g, "ctvm.QMatMul"), 2); /* the product and B's column sums */
    assert_int_equal(count_live(g, "ctvm.QPackB"), 1);
    assert_int_equal(count_live(g, "ReduceSum"), (bt == DT_UINT8 ? bz - 128 : bz) != 0); /* A's row term only */
    assert_int_equal(g->values[y].dtype, DT_INT32);
    /* the operands made constant: folding runs the rewritten graph */
    uint8_t *av = arena_alloc(g->arena, BT * M * K);
    uint8_t *bv = arena_alloc(g->arena, BT * K * N);
    for (int i = 0; i < BT * M * K; i++)
        av[i] = (uint8_t)(i * 37 + 11);
    for (int i = 0; i < BT * K * N; i++)
        bv[i] = (uint8_t)(i * 101 + 7);
    g->values[a].data = av;
    g->values[b].data = bv;
    assert_int_equal(pass_infer_fold(g, &GENERIC, &d), 0);
    const int32_t *got = g->values[y].data;
    assert_non_null(got);
    for (int t = 0; t < BT; t++)
        for (int m = 0; m < M; m++)
            for (int n = 0; n < N; n++) {
                int64_t s = 0;
                for (int k = 0; k < K; k++) {
                    int bk = bt == DT_INT8 ? (int8_t)bv[(t * K + k) * N + n] : bv[(t * K + k) * N + n];
                    s += (int64_t)(av[(t * M + m) * K + k] - az) * (bk - bz);
                }
                assert_int_equal(got[(t * M + m) * N + n], s);
            }
    graph_free(g);
}

static void test_u8_u8(void **state)
{
    (void)state;
    check(DT_UINT8, 121, 130); /* the row term: bz - 128 = 2 */
    check(DT_UINT8, 0, 128);   /* none */
}

static void test_u8_s8(void **state)
{
    (void)state;
    check(DT_INT8, 7, -3);
}

static void test_left_alone(void **state)
{
    (void)state;
    int a, b, y;
    Graph *g = product(DT_UINT8, 6, 1, 2, &a, &b, &y); /* K = 6: not whole 4-byte groups */
    Diag d = quiet();
    assert_int_equal(pass_infer_fold(g, &GENERIC, &d), 0);
    assert_int_equal(pass_qmatmul_runtime(g, &d), 0);
    assert_int_equal(count_live(g, "MatMulInteger"), 1);
    assert_int_equal(count_live(g, "ctvm.QMatMul"), 0);
    graph_free(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_u8_u8),
        cmocka_unit_test(test_u8_s8),
        cmocka_unit_test(test_left_alone),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
