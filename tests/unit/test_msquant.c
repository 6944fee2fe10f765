/* test_msquant.c - com.microsoft quantized operators lowered during
 * inference (passes/lower_msquant.c): on hand-built graphs with constant
 * inputs, pass_infer_fold rewrites and folds them, and the folded outputs
 * are checked against ORT's documented formulas computed here in exact
 * integer arithmetic and double (QGemm: sum_k (a - az)(b - bz) + C, times
 * alpha * a_scale * b_scale, quantized with round half to even; QLinearAdd:
 * (a_scale (a - az) + b_scale (b - bz)) / c_scale + cz); with a runtime
 * input, the canonical form (MatMulInteger on the int8 weight constant ->
 * Cast -> Mul -> Add -> QuantizeLinear); and the errors: bad input types, an
 * unknown com.microsoft operator named with its domain. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include "passes/passes.h"
#include "tests/unit/graph_build.h"

static const CodegenOptions GENERIC = {.target = NULL, .threads = 1};

static int ms_node(Graph *g, const char *op, int n_in, const int *ins, int out)
{
    int id = graph_add_node(g, op, NULL, n_in, ins, 1, &out);
    g->nodes[id].domain = "com.microsoft";
    g->nodes[id].version = 1;
    return id;
}

static int cq(Graph *g, const char *name, DType t, int rank, const int64_t *dims, const void *data)
{
    return graph_add_const(g, name, t, shape_make(rank, dims), data);
}

static int count_live(const Graph *g, const char *op_type)
{
    int n = 0;
    for (int i = 0; i < g->n_nodes; i++)
        n += !g->nodes[i].dead && strcmp(g->nodes[i].op_type, op_type) == 0;
    return n;
}

enum { M = 3, K = 5, N = 4 };
static const uint8_t A[M * K] = {0, 17, 255, 128, 3, 90, 91, 200, 1, 64, 250, 12, 77, 140, 33};
static const int8_t B[N * K] = {-128, 127, 5, -7, 0, 33, -1, 100, -90, 12, 7, 7, -128, 64, 9, 1, 2, 3, -4, 127};
static const int32_t C[N] = {1000, -2500, 17, 0};
static const float B_SCALE[N] = {0.011f, 0.004f, 0.0301f, 0.002f};
static const float A_SCALE = 0.05f, Y_SCALE = 0.75f, ALPHA = 0.5f;
static const uint8_t A_ZP = 121, Y_ZP = 100;

/* QGemm(A [M,K] u8, B [N,K] s8 transB, per-column b_scale, C, y): the
 * reference y[m][n] of the operator's documented meaning, in double. */
static double qgemm_ref(int m, int n)
{
    int64_t sum = 0;
    for (int k = 0; k < K; k++)
        sum += (int64_t)(A[m * K + k] - A_ZP) * B[n * K + k];
    return (double)(sum + C[n]) * ALPHA * A_SCALE * B_SCALE[n];
}

static Graph *qgemm_graph(int quantized, int runtime_a, int *y)
{
    Graph *g = graph_new("t");
    int64_t da[2] = {M, K}, db[2] = {N, K}, dn[1] = {N};
    int a = runtime_a ? tb_val(g, "a", DT_UINT8, 2, da) : cq(g, "a", DT_UINT8, 2, da, A);
    if (runtime_a)
        graph_add_input(g, a);
    int ins[9] = {a, cq(g, "as", DT_FLOAT32, 0, NULL, &A_SCALE), cq(g, "az", DT_UINT8, 0, NULL, &A_ZP),
                  cq(g, "b", DT_INT8, 2, db, B), cq(g, "bs", DT_FLOAT32, 1, dn, B_SCALE), -1,
                  cq(g, "c", DT_INT32, 1, dn, C), cq(g, "ys", DT_FLOAT32, 0, NULL, &Y_SCALE),
                  cq(g, "yz", DT_UINT8, 0, NULL, &Y_ZP)};
    *y = graph_add_value(g, "y");
    int q = ms_node(g, "QGemm", quantized ? 9 : 7, ins, *y);
    node_set_int(g, q, "transB", 1);
    node_set_float(g, q, "alpha", ALPHA);
    graph_add_output(g, *y);
    return g;
}

static void test_qgemm_float_output(void **state)
{
    (void)state;
    int y;
    Graph *g = qgemm_graph(0, 0, &y);
    Diag d = quiet();
    assert_int_equal(pass_infer_fold(g, &GENERIC, &d), 0);
    const Value *v = &g->values[y];
    assert_int_equal(v->dtype, DT_FLOAT32);
    assert_non_null(v->data);
    for (int m = 0; m < M; m++)
        for (int n = 0; n < N; n++) {
            double ref = qgemm_ref(m, n), got = ((const float *)v->data)[m * N + n];
            if (fabs(got - ref) > 1e-6 * fabs(ref) + 1e-7)
                fail_msg("y[%d][%d] = %.9g, expected %.9g", m, n, got, ref);
        }
    graph_free(g);
}

static void test_qgemm_quantized_output(void **state)
{
    (void)state;
    int y;
    Graph *g = qgemm_graph(1, 0, &y);
    Diag d = quiet();
    assert_int_equal(pass_infer_fold(g, &GENERIC, &d), 0);
    const Value *v = &g->values[y];
    assert_int_equal(v->dtype, DT_UINT8);
    int in_range = 0;
    for (int m = 0; m < M; m++)
        for (int n = 0; n < N; n++) {
            double q = nearbyint(qgemm_ref(m, n) / Y_SCALE) + Y_ZP; /* half to even, the default mode */
            int ref = q < 0 ? 0 : q > 255 ? 255 : (int)q;
            in_range += ref > 0 && ref < 255;
            assert_int_equal(((const uint8_t *)v->data)[m * N + n], ref);
        }
    assert_true(in_range >= 6); /* the data exercises rounding, not only saturation */
    graph_free(g);
}

/* With a runtime A: the contract's form, the weight an int8 constant. */
static void test_qgemm_canonical_form(void **state)
{
    (void)state;
    int y;
    Graph *g = qgemm_graph(1, 1, &y);
    Diag d = quiet();
    assert_int_equal(pass_infer_fold(g, &GENERIC, &d), 0);
    assert_int_equal(count_live(g, "QGemm"), 0);
    assert_int_equal(count_live(g, "MatMulInteger"), 1);
    assert_int_equal(count_live(g, "Cast"), 1);
    assert_int_equal(count_live(g, "Mul"), 1); /* the scale product folded into its constant */
    assert_int_equal(count_live(g, "Add"), 1);
    assert_int_equal(count_live(g, "QuantizeLinear"), 1);
    assert_int_equal(count_live(g, "DequantizeLinear"), 0);
    for (int i = 0; i < g->n_nodes; i++) {
        const Node *n = &g->nodes[i];
        if (n->dead || strcmp(n->op_type, "MatMulInteger") != 0)
            continue;
        const Value *w = &g->values[n->in[1]];
        assert_int_equal(w->dtype, DT_INT8);
        assert_non_null(w->data);
        assert_int_equal(w->shape.dims[0], K); /* transB folded: [K, N] */
        assert_int_equal(((const int8_t *)w->data)[1 * N + 0], B[0 * K + 1]);
    }
    assert_int_equal(g->values[y].dtype, DT_UINT8);
    graph_free(g);
}

static void test_qlinear_add_broadcast(void **state)
{
    (void)state;
    Graph *g = graph_new("t");
    int64_t da[2] = {2, 3}, db[1] = {3};
    const int8_t a[6] = {-128, -5, 0, 17, 127, 64}, b[3] = {-100, 3, 120};
    const float as = 0.07f, bs = 0.021f, cs = 0.05f;
    const int8_t az = -3, bz = 10, cz = 5;
    int ins[8] = {cq(g, "a", DT_INT8, 2, da, a), cq(g, "as", DT_FLOAT32, 0, NULL, &as),
                  cq(g, "az", DT_INT8, 0, NULL, &az), cq(g, "b", DT_INT8, 1, db, b),
                  cq(g, "bs", DT_FLOAT32, 0, NULL, &bs), cq(g, "bz", DT_INT8, 0, NULL, &bz),
                  cq(g, "cs", DT_FLOAT32, 0, NULL, &cs), cq(g, "cz", DT_INT8, 0, NULL, &cz)};
    int y = graph_add_value(g, "y");
    ms_node(g, "QLinearAdd", 8, ins, y);
    graph_add_output(g, y);
    Diag d = quiet();
    assert_int_equal(pass_infer_fold(g, &GENERIC, &d), 0);
    assert_int_equal(g->values[y].dtype, DT_INT8);
    for (int i = 0; i < 6; i++) {
        double q = nearbyint((as * (double)(a[i] - az) + bs * (double)(b[i % 3] - bz)) / cs) + cz;
        int ref = q < -128 ? -128 : q > 127 ? 127 : (int)q;
        assert_int_equal(((const int8_t *)g->values[y].data)[i], ref);
    }
    graph_free(g);
}

static void test_errors(void **state)
{
    (void)state;
    Graph *g = graph_new("t");
    int64_t da[1] = {4};
    const uint8_t a[4] = {1, 2, 3, 4};
    const int8_t b[4] = {1, 2, 3, 4};
    const float s = 0.1f;
    int sv = cq(g, "s", DT_FLOAT32, 0, NULL, &s);
    int ins[8] = {cq(g, "a", DT_UINT8, 1, da, a), sv, -1, cq(g, "b", DT_INT8, 1, da, b), sv, -1, sv, -1};
    int y = graph_add_value(g, "y");
    ms_node(g, "QLinearMul", 8, ins, y);
    graph_add_output(g, y);
    Diag d = quiet();
    assert_int_equal(pass_infer_fold(g, &GENERIC, &d), -1);
    assert_non_null(strstr(d.last, "node 'QLinearMul_0'"));
    assert_non_null(strstr(d.last, "com.microsoft"));
    assert_non_null(strstr(d.last, "A and B must have the same type (uint8 and int8)"));
    graph_free(g);

    g = graph_new("t");
    int x = cq(g, "a", DT_UINT8, 1, da, a);
    y = graph_add_value(g, "y");
    ms_node(g, "FusedConv", 1, &x, y);
    graph_add_output(g, y);
    d = quiet();
    assert_int_equal(pass_infer_fold(g, &GENERIC, &d), -1);
    assert_non_null(strstr(d.last, "operator FusedConv of domain 'com.microsoft' is not supported"));
    assert_non_null(strstr(d.last, "QGemm"));
    graph_free(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_qgemm_float_output),  cmocka_unit_test(test_qgemm_quantized_output),
        cmocka_unit_test(test_qgemm_canonical_form), cmocka_unit_test(test_qlinear_add_broadcast),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
