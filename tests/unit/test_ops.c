/* test_ops.c - unit tests of ops/: shape rules, attribute normalisation and
 * reference kernels per family, and the error paths.
 *
 * Expected numbers were worked out by hand, except the grouped/strided/
 * dilated Conv, the Gemm and the batched MatMul cases, which come from a
 * plain-Python direct-loop reference (no numpy on the build machine) run
 * once; the script is described next to each literal. */
#include <float.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "ops/ops.h"
#include "ops/ops_fold.h"
#include "tests/unit/graph_build.h"
#include "tests/unit/op_expect.h"

static float *iota_f(Graph *g, int64_t n, float start)
{
    float *p = arena_array(g->arena, (size_t)n, sizeof(float));
    for (int64_t i = 0; i < n; i++)
        p[i] = start + (float)i;
    return p;
}

/* ---- Conv ---- */

static void test_conv_pads(void **state)
{
    (void)state;
    Graph *g = tb_graph(13);
    Diag d = quiet();
    float ones[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
    int x = tb_cf(g, "x", 4, D4(1, 1, 4, 4), iota_f(g, 16, 1));
    int w = tb_cf(g, "w", 4, D4(1, 1, 3, 3), ones);
    int y = graph_add_value(g, "y");
    int n = tb_node(g, "Conv", 2, 1, x, w, y);
    node_set_ints(g, n, "pads", D4(1, 1, 1, 1), 4);
    assert_int_equal(run(g, n, &d), 1);
    expect_shape(g, y, 4, D4(1, 1, 4, 4));
    /* 3x3 neighbourhood sums of 1..16, by hand */
    float want[16] = {14, 24, 30, 22, 33, 54, 63, 45, 57, 90, 99, 69, 46, 72, 78, 54};
    expect_f32(g, y, 16, want, 1e-5f);
    expect_ints_attr(g, n, "strides", 2, D2(1, 1));
    expect_ints_attr(g, n, "dilations", 2, D2(1, 1));
    assert_int_equal(attr_int(&g->nodes[n], "group", 0), 1);
    graph_free(g);
}

static void test_conv_group_stride_dilation(void **state)
{
    (void)state;
    Graph *g = tb_graph(13);
    Diag d = quiet();
    float *xd = arena_array(g->arena, 196, sizeof(float));
    float *wd = arena_array(g->arena, 108, sizeof(float));
    float bd[6];
    for (int i = 0; i < 196; i++)
        xd[i] = (float)((i * 7) % 11 - 5) * 0.25f;
    for (int i = 0; i < 108; i++)
        wd[i] = (float)((i * 5) % 13 - 6) * 0.1f;
    for (int i = 0; i < 6; i++)
        bd[i] = 0.1f * (float)i;
    int x = tb_cf(g, "x", 4, D4(1, 4, 7, 7), xd);
    int w = tb_cf(g, "w", 4, D4(6, 2, 3, 3), wd);
    int64_t six = 6;
    int b = tb_cf(g, "b", 1, &six, bd);
    int y = graph_add_value(g, "y");
    int n = tb_node(g, "Conv", 3, 1, x, w, b, y);
    node_set_int(g, n, "group", 2);
    node_set_ints(g, n, "strides", D2(2, 2), 2);
    node_set_ints(g, n, "dilations", D2(2, 2), 2);
    node_set_ints(g, n, "pads", D4(1, 2, 0, 1), 4);
    assert_int_equal(run(g, n, &d), 1);
    expect_shape(g, y, 4, D4(1, 6, 2, 3));
    /* direct-loop Python reference: x[i]=((7i)%11-5)/4, w[i]=((5i)%13-6)/10,
     * b[m]=m/10, group 2, strides 2, dilations 2, pads (1,2,0,1) */
    const float want[36] = {
        -0.300000f, -2.075000f, 1.400000f,  -0.000000f, -0.025000f, 0.900000f,
        0.050000f,  -0.575000f, 0.500000f,  -0.025000f, 1.125000f,  0.725000f,
        0.400000f,  0.925000f,  -0.400000f, -0.050000f, 2.275000f,  -0.425000f,
        -0.225000f, -0.100000f, 0.175000f,  1.550000f,  0.250000f,  -2.125000f,
        0.050000f,  0.225000f,  0.425000f,  1.000000f,  0.825000f,  -0.550000f,
        0.325000f,  1.525000f,  -0.950000f, 1.100000f,  1.725000f,  1.350000f};
    expect_f32(g, y, 36, want, 1e-4f);
    graph_free(g);
}

static void test_conv_auto_pad(void **state)
{
    (void)state;
    const char *modes[2] = {"SAME_UPPER", "SAME_LOWER"};
    for (int m = 0; m < 2; m++) {
        Graph *g = tb_graph(13);
        Diag d = quiet();
        int x = tb_input(g, "x", 4, D4(1, 1, 5, 5));
        int w = tb_cf(g, "w", 4, D4(1, 1, 2, 2), (float[]){1, 1, 1, 1});
        int y = graph_add_value(g, "y");
        int n = tb_node(g, "Conv", 2, 1, x, w, y);
        tb_set_string(g, n, "auto_pad", modes[m]);
        node_set_ints(g, n, "strides", D2(2, 2), 2);
        assert_int_equal(ops_infer(g, n, &d), 0);
        expect_shape(g, y, 4, D4(1, 1, 3, 3));
        /* total pad = (3-1)*2 + 2 - 5 = 1: at the end for UPPER, start for LOWER */
        expect_ints_attr(g, n, "pads", 4, m == 0 ? D4(0, 0, 1, 1) : D4(1, 1, 0, 0));
        assert_string_equal(attr_string(&g->nodes[n], "auto_pad", ""), "NOTSET");
        /* a second inference from the normalised attributes agrees */
        assert_int_equal(ops_infer(g, n, &d), 0);
        expect_shape(g, y, 4, D4(1, 1, 3, 3));
        graph_free(g);
    }
}

static void test_conv_errors(void **state)
{
    (void)state;
    Graph *g = tb_graph(13);
    Diag d = quiet();
    int64_t d2[2] = {4, 4};
    int x2 = tb_val(g, "x2", DT_FLOAT32, 2, d2);
    int w2 = tb_val(g, "w2", DT_FLOAT32, 2, d2);
    int y = graph_add_value(g, "y");
    int n = tb_node(g, "Conv", 2, 1, x2, w2, y);
    assert_int_equal(ops_infer(g, n, &d), -1);
    expect_error(&d, "input must have rank 3..8");
    expect_error(&d, "node 'Conv_0' (Conv)");
    int x = tb_input(g, "x", 4, D4(1, 3, 8, 8));
    int w = tb_val(g, "w", DT_FLOAT32, 4, D4(4, 2, 3, 3));
    int y2 = graph_add_value(g, "y2");
    n = tb_node(g, "Conv", 2, 1, x, w, y2);
    assert_int_equal(ops_infer(g, n, &d), -1);
    expect_error(&d, "do not match 3 input channels");
    graph_free(g);
}

/* ---- BatchNormalization ---- */

static void test_batchnorm(void **state)
{
    (void)state;
    Graph *g = tb_graph(13);
    Diag d = quiet();
    int64_t two = 2;
    int x = tb_cf(g, "x", 3, D3(1, 2, 2), (float[]){1, 2, 3, 4});
    int sc = tb_cf(g, "s", 1, &two, (float[]){2, 1});
    int bi = tb_cf(g, "b", 1, &two, (float[]){0.5f, -1});
    int mu = tb_cf(g, "m", 1, &two, (float[]){1, 3});
    int va = tb_cf(g, "v", 1, &two, (float[]){4, 0.25f});
    int y = graph_add_value(g, "y");
    int n = tb_node(g, "BatchNormalization", 5, 1, x, sc, bi, mu, va, y);
    node_set_float(g, n, "epsilon", 0);
    assert_int_equal(run(g, n, &d), 1);
    /* c0: 2*(x-1)/2+0.5 ; c1: 1*(x-3)/0.5-1 */
    expect_f32(g, y, 4, (float[]){0.5f, 1.5f, -1, 1}, 1e-6f);
    graph_free(g);
}

/* ---- unary ---- */

static int unary(Graph *g, const char *op, int n, const float *xs, int *node)
{
    int64_t len = n;
    int x = tb_cf(g, "x", 1, &len, xs);
    int y = graph_add_value(g, "y");
    *node = tb_node(g, op, 1, 1, x, y);
    return y;
}

static void test_unary_values(void **state)
{
    (void)state;
    Diag d = quiet();
    struct {
        const char *op;
        float x[3], want[3];
    } cases[] = {
        {"Relu", {-1, 0, 2}, {0, 0, 2}},
        {"Sigmoid", {0, 0, 0}, {0.5f, 0.5f, 0.5f}},
        {"Neg", {1, -2, 0}, {-1, 2, 0}},
        {"Abs", {-1.5f, 2, 0}, {1.5f, 2, 0}},
        {"Sqrt", {4, 9, 0}, {2, 3, 0}},
        {"HardSwish", {3, -1, -4}, {3, -1.0f / 3.0f, 0}},
        {"HardSigmoid", {1, -5, 5}, {0.7f, 0, 1}},
        {"LeakyRelu", {-2, 3, 0}, {-0.02f, 3, 0}},
        {"Tanh", {0, 0, 0}, {0, 0, 0}},
        {"Exp", {0, 1, 0}, {1, 2.7182818f, 1}},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        Graph *g = tb_graph(13);
        int n, y = unary(g, cases[i].op, 3, cases[i].x, &n);
        assert_int_equal(run(g, n, &d), 1);
        expect_f32(g, y, 3, cases[i].want, 1e-6f);
        graph_free(g);
    }
    /* int64 Neg folds shape arithmetic */
    Graph *g = tb_graph(13);
    int x = tb_ci1(g, "x", 2, (int64_t[]){5, -7});
    int y = graph_add_value(g, "y");
    int n = tb_node(g, "Neg", 1, 1, x, y);
    assert_int_equal(run(g, n, &d), 1);
    expect_i64(g, y, 2, (int64_t[]){-5, 7});
    /* Sigmoid on int64 is refused */
    y = graph_add_value(g, "y2");
    n = tb_node(g, "Sigmoid", 1, 1, x, y);
    assert_int_equal(ops_infer(g, n, &d), -1);
    expect_error(&d, "input type int64 is not supported");
    graph_free(g);
}

static void test_clip_opsets(void **state)
{
    (void)state;
    Diag d = quiet();
    /* opset 6: min/max attributes */
    Graph *g = tb_graph(6);
    int n, y = unary(g, "Clip", 3, (float[]){-1, 3, 8}, &n);
    node_set_float(g, n, "min", 0);
    node_set_float(g, n, "max", 6);
    assert_int_equal(run(g, n, &d), 1);
    expect_f32(g, y, 3, (float[]){0, 3, 6}, 0);
    graph_free(g);
    /* opset 13: min from input 1, max omitted */
    g = tb_graph(13);
    int x = tb_cf(g, "x", 1, D2(3, 0), (float[]){-1, 3, 8});
    int lo = tb_cf(g, "lo", 0, NULL, (float[]){1});
    y = graph_add_value(g, "y");
    n = tb_node(g, "Clip", 3, 1, x, lo, -1, y);
    assert_int_equal(run(g, n, &d), 1);
    expect_f32(g, y, 3, (float[]){1, 3, 8}, 0);
    /* opset 13: a run-time min is an input like any other */
    int rt = tb_val(g, "rt", DT_FLOAT32, 0, NULL);
    int y2 = graph_add_value(g, "y2");
    n = tb_node(g, "Clip", 2, 1, x, rt, y2);
    assert_int_equal(ops_infer(g, n, &d), 0);
    graph_free(g);
}

/* ---- binary ---- */

static void test_binary(void **state)
{
    (void)state;
    Diag d = quiet();
    Graph *g = tb_graph(13);
    int a = tb_cf(g, "a", 2, D2(2, 3), (float[]){1, 2, 3, 4, 5, 6});
    int b = tb_cf(g, "b", 1, D2(3, 0), (float[]){10, 20, 30});
    int y = graph_add_value(g, "y");
    int n = tb_node(g, "Add", 2, 1, a, b, y);
    assert_int_equal(run(g, n, &d), 1);
    expect_shape(g, y, 2, D2(2, 3));
    expect_f32(g, y, 6, (float[]){11, 22, 33, 14, 25, 36}, 0);
    /* [2,1] * [1,3] -> [2,3] */
    int c = tb_cf(g, "c", 2, D2(2, 1), (float[]){2, 3});
    int e = tb_cf(g, "e", 2, D2(1, 3), (float[]){1, 10, 100});
    int y2 = graph_add_value(g, "y2");
    n = tb_node(g, "Mul", 2, 1, c, e, y2);
    assert_int_equal(run(g, n, &d), 1);
    expect_f32(g, y2, 6, (float[]){2, 20, 200, 3, 30, 300}, 0);
    /* int64 Div truncates toward zero */
    int p = tb_ci1(g, "p", 2, (int64_t[]){-7, 7});
    int q = tb_ci(g, "q", 0, NULL, (int64_t[]){2});
    int y3 = graph_add_value(g, "y3");
    n = tb_node(g, "Div", 2, 1, p, q, y3);
    assert_int_equal(run(g, n, &d), 1);
    expect_i64(g, y3, 2, (int64_t[]){-3, 3});
    /* integer division by zero gives 0, as the generated code does */
    int z = tb_ci(g, "z", 0, NULL, (int64_t[]){0});
    int y4 = graph_add_value(g, "y4");
    n = tb_node(g, "Div", 2, 1, p, z, y4);
    assert_int_equal(run(g, n, &d), 1);
    expect_i64(g, y4, 2, (int64_t[]){0, 0});
    /* errors */
    int s13 = tb_val(g, "s13", DT_FLOAT32, 2, D2(1, 3));
    int s14 = tb_val(g, "s14", DT_FLOAT32, 2, D2(1, 4));
    int y5 = graph_add_value(g, "y5");
    n = tb_node(g, "Sub", 2, 1, s13, s14, y5);
    assert_int_equal(ops_infer(g, n, &d), -1);
    expect_error(&d, "shapes [1,3] and [1,4] do not broadcast");
    int y6 = graph_add_value(g, "y6");
    n = tb_node(g, "Add", 2, 1, s13, p, y6);
    assert_int_equal(ops_infer(g, n, &d), -1);
    expect_error(&d, "input 0 is float32, input 1 is int64");
    graph_free(g);
}

/* ---- pools ---- */

static int pool(Graph *g, const char *op, int64_t h, int64_t k, int64_t s, const int64_t *pads,
                int ceil_mode, int *node)
{
    int x = tb_cf(g, "x", 4, D4(1, 1, h, h), iota_f(g, h * h, 1));
    int y = graph_add_value(g, "y");
    *node = tb_node(g, op, 1, 1, x, y);
    node_set_ints(g, *node, "kernel_shape", D2(k, k), 2);
    node_set_ints(g, *node, "strides", D2(s, s), 2);
    if (pads)
        node_set_ints(g, *node, "pads", pads, 4);
    node_set_int(g, *node, "ceil_mode", ceil_mode);
    return y;
}

static void test_maxpool_ceil_mode(void **state)
{
    (void)state;
    Diag d = quiet();
    Graph *g = tb_graph(13);
    int n, y = pool(g, "MaxPool", 5, 2, 2, NULL, 1, &n);
    assert_int_equal(run(g, n, &d), 1);
    expect_shape(g, y, 4, D4(1, 1, 3, 3)); /* floor mode would give 2x2 */
    expect_f32(g, y, 9, (float[]){7, 9, 10, 17, 19, 20, 22, 24, 25}, 0);
    graph_free(g);
    /* floor mode */
    g = tb_graph(13);
    y = pool(g, "MaxPool", 5, 2, 2, NULL, 0, &n);
    assert_int_equal(run(g, n, &d), 1);
    expect_shape(g, y, 4, D4(1, 1, 2, 2));
    expect_f32(g, y, 4, (float[]){7, 9, 17, 19}, 0);
    graph_free(g);
    /* pads 1: ceil((5+2-2)/2)+1 = 4, but the 4th window would start at
     * 3*2-1 = 5, in the right padding: dropped, 3 */
    g = tb_graph(13);
    y = pool(g, "MaxPool", 5, 2, 2, D4(1, 1, 1, 1), 1, &n);
    assert_int_equal(run(g, n, &d), 1);
    expect_shape(g, y, 4, D4(1, 1, 3, 3));
    expect_f32(g, y, 9, (float[]){1, 3, 5, 11, 13, 15, 21, 23, 25}, 0);
    graph_free(g);
}

static void test_avgpool_count_include_pad(void **state)
{
    (void)state;
    Diag d = quiet();
    for (int inc = 0; inc < 2; inc++) {
        Graph *g = tb_graph(13);
        int n, y = pool(g, "AveragePool", 3, 2, 1, D4(1, 1, 1, 1), 0, &n);
        node_set_int(g, n, "count_include_pad", inc);
        assert_int_equal(run(g, n, &d), 1);
        expect_shape(g, y, 4, D4(1, 1, 4, 4));
        const float *o = g->values[y].data;
        /* corner (only x=1 inside), edge (1,2), centre (1,2,4,5), far corner (9) */
        float want0[4] = {1, 1.5f, 3, 9}, want1[4] = {0.25f, 0.75f, 3, 2.25f};
        const float *want = inc ? want1 : want0;
        assert_true(fabsf(o[0] - want[0]) < 1e-6f);
        assert_true(fabsf(o[1] - want[1]) < 1e-6f);
        assert_true(fabsf(o[5] - want[2]) < 1e-6f);
        assert_true(fabsf(o[15] - want[3]) < 1e-6f);
        assert_int_equal(attr_int(&g->nodes[n], "count_include_pad", -1), inc);
        graph_free(g);
    }
    /* ceil_mode window hanging past the input is not charged for the
     * overhang even with count_include_pad (no padding here) */
    Graph *g = tb_graph(13);
    int n, y = pool(g, "AveragePool", 5, 2, 2, NULL, 1, &n);
    node_set_int(g, n, "count_include_pad", 1);
    assert_int_equal(run(g, n, &d), 1);
    const float *o = g->values[y].data;
    assert_true(fabsf(o[2] - 7.5f) < 1e-6f); /* (5+10)/2 */
    assert_true(fabsf(o[8] - 25) < 1e-6f);
    graph_free(g);
}

static void test_global_pools_and_errors(void **state)
{
    (void)state;
    Diag d = quiet();
    Graph *g = tb_graph(13);
    int x = tb_cf(g, "x", 4, D4(1, 2, 2, 2), iota_f(g, 8, 1));
    int y = graph_add_value(g, "y"), y2 = graph_add_value(g, "y2");
    int n = tb_node(g, "GlobalAveragePool", 1, 1, x, y);
    assert_int_equal(run(g, n, &d), 1);
    expect_shape(g, y, 4, D4(1, 2, 1, 1));
    expect_f32(g, y, 2, (float[]){2.5f, 6.5f}, 1e-6f);
    n = tb_node(g, "GlobalMaxPool", 1, 1, x, y2);
    assert_int_equal(run(g, n, &d), 1);
    expect_f32(g, y2, 2, (float[]){4, 8}, 0);
    /* 1-D MaxPool, kernel 2 stride 2 */
    int x3 = tb_cf(g, "x3", 3, D3(1, 2, 8), iota_f(g, 16, 1));
    int y3 = graph_add_value(g, "y3"), y4 = graph_add_value(g, "y4");
    n = tb_node(g, "MaxPool", 1, 1, x3, y3);
    node_set_ints(g, n, "kernel_shape", (int64_t[]){2}, 1);
    node_set_ints(g, n, "strides", (int64_t[]){2}, 1);
    assert_int_equal(run(g, n, &d), 1);
    expect_shape(g, y3, 3, D3(1, 2, 4));
    expect_f32(g, y3, 8, (float[]){2, 4, 6, 8, 10, 12, 14, 16}, 0);
    n = tb_node(g, "MaxPool", 1, 1, x3, y4);
    node_set_ints(g, n, "kernel_shape", (int64_t[]){2, 2}, 2);
    assert_int_equal(ops_infer(g, n, &d), -1);
    expect_error(&d, "kernel_shape must have 1 values, got 2");
    graph_free(g);
}

/* ---- reduce ---- */

static void test_reduce(void **state)
{
    (void)state;
    Diag d = quiet();
    /* ReduceSum opset 13: axes from input, keepdims 0 */
    Graph *g = tb_graph(13);
    int x = tb_cf(g, "x", 2, D2(2, 3), iota_f(g, 6, 1));
    int ax = tb_ci1(g, "ax", 1, (int64_t[]){-1});
    int y = graph_add_value(g, "y");
    int n = tb_node(g, "ReduceSum", 2, 1, x, ax, y);
    node_set_int(g, n, "keepdims", 0);
    assert_int_equal(run(g, n, &d), 1);
    expect_shape(g, y, 1, D2(2, 0));
    expect_f32(g, y, 2, (float[]){6, 15}, 0);
    expect_ints_attr(g, n, "axes", 1, (int64_t[]){1});
    /* noop_with_empty_axes: identity */
    int y2 = graph_add_value(g, "y2");
    n = tb_node(g, "ReduceSum", 1, 1, x, y2);
    node_set_int(g, n, "noop_with_empty_axes", 1);
    assert_int_equal(run(g, n, &d), 1);
    expect_shape(g, y2, 2, D2(2, 3));
    expect_f32(g, y2, 6, (float[]){1, 2, 3, 4, 5, 6}, 0);
    graph_free(g);
    /* ReduceMean opset 11: axes attribute, keepdims default 1 */
    g = tb_graph(11);
    x = tb_cf(g, "x", 2, D2(2, 3), iota_f(g, 6, 1));
    y = graph_add_value(g, "y");
    n = tb_node(g, "ReduceMean", 1, 1, x, y);
    node_set_ints(g, n, "axes", (int64_t[]){-1}, 1);
    assert_int_equal(run(g, n, &d), 1);
    expect_shape(g, y, 2, D2(2, 1));
    expect_f32(g, y, 2, (float[]){2, 5}, 1e-6f);
    graph_free(g);
    /* ReduceMax opset 18 without axes: everything; ReduceMean opset 18 axes input */
    g = tb_graph(18);
    x = tb_cf(g, "x", 2, D2(2, 3), iota_f(g, 6, 1));
    y = graph_add_value(g, "y");
    n = tb_node(g, "ReduceMax", 1, 1, x, y);
    assert_int_equal(run(g, n, &d), 1);
    expect_shape(g, y, 2, D2(1, 1));
    expect_f32(g, y, 1, (float[]){6}, 0);
    expect_ints_attr(g, n, "axes", 2, D2(0, 1));
    ax = tb_ci1(g, "ax", 1, (int64_t[]){0});
    y2 = graph_add_value(g, "y2");
    n = tb_node(g, "ReduceMean", 2, 1, x, ax, y2);
    assert_int_equal(run(g, n, &d), 1);
    expect_shape(g, y2, 2, D2(1, 3));
    expect_f32(g, y2, 3, (float[]){2.5f, 3.5f, 4.5f}, 1e-6f);
    graph_free(g);
}

/* ---- ArgMax / ArgMin, CumSum, TopK ---- */

static void test_argmax_cumsum_topk(void **state)
{
    (void)state;
    Diag d = quiet();
    static const float xs[6] = {1, 3, 3, 5, 0, 5};
    Graph *g = tb_graph(13);
    int x = tb_cf(g, "x", 2, D2(2, 3), xs);
    /* ties: first index, or the last with select_last_index */
    int y = graph_add_value(g, "y");
    int n = tb_node(g, "ArgMax", 1, 1, x, y);
    node_set_int(g, n, "axis", 1);
    node_set_int(g, n, "keepdims", 0);
    assert_int_equal(run(g, n, &d), 1);
    expect_shape(g, y, 1, D2(2, 0));
    expect_i64(g, y, 2, D2(1, 0));
    int y2 = graph_add_value(g, "y2");
    n = tb_node(g, "ArgMax", 1, 1, x, y2);
    node_set_int(g, n, "axis", -1);
    node_set_int(g, n, "keepdims", 0);
    node_set_int(g, n, "select_last_index", 1);
    assert_int_equal(run(g, n, &d), 1);
    expect_i64(g, y2, 2, D2(2, 2));
    int y3 = graph_add_value(g, "y3");
    n = tb_node(g, "ArgMin", 1, 1, x, y3);
    assert_int_equal(run(g, n, &d), 1);
    expect_shape(g, y3, 2, D2(1, 3));
    expect_i64(g, y3, 3, (int64_t[]){0, 1, 0});
    graph_free(g);

    /* CumSum 14, reverse and exclusive along axis 1 */
    g = tb_graph(14);
    x = tb_cf(g, "x", 2, D2(2, 3), iota_f(g, 6, 1));
    int ax = tb_ci1(g, "ax", 1, (int64_t[]){1});
    y = graph_add_value(g, "y");
    n = tb_node(g, "CumSum", 2, 1, x, ax, y);
    node_set_int(g, n, "exclusive", 1);
    node_set_int(g, n, "reverse", 1);
    assert_int_equal(run(g, n, &d), 1);
    expect_f32(g, y, 6, (float[]){5, 3, 0, 11, 6, 0}, 0);
    graph_free(g);

    /* TopK 11: largest and smallest, equal values by lower index; k too large */
    g = tb_graph(11);
    x = tb_cf(g, "x", 2, D2(2, 3), xs);
    int k = tb_ci1(g, "k", 1, (int64_t[]){2});
    int v = graph_add_value(g, "v"), ix = graph_add_value(g, "i");
    n = tb_node(g, "TopK", 2, 2, x, k, v, ix);
    assert_int_equal(run(g, n, &d), 1);
    expect_shape(g, v, 2, D2(2, 2));
    expect_f32(g, v, 4, (float[]){3, 3, 5, 5}, 0);
    expect_i64(g, ix, 4, (int64_t[]){1, 2, 0, 2});
    int v2 = graph_add_value(g, "v2"), ix2 = graph_add_value(g, "i2");
    n = tb_node(g, "TopK", 2, 2, x, k, v2, ix2);
    node_set_int(g, n, "largest", 0);
    assert_int_equal(run(g, n, &d), 1);
    expect_f32(g, v2, 4, (float[]){1, 3, 0, 5}, 0);
    expect_i64(g, ix2, 4, (int64_t[]){0, 1, 1, 0});
    int k4 = tb_ci1(g, "k4", 1, (int64_t[]){4});
    int v3 = graph_add_value(g, "v3"), ix3 = graph_add_value(g, "i3");
    n = tb_node(g, "TopK", 2, 2, x, k4, v3, ix3);
    assert_int_equal(run(g, n, &d), -1);
    expect_error(&d, "outside");
    graph_free(g);
}

/* ---- Gemm / MatMul ---- */

static void test_gemm_transb_broadcast_c(void **state)
{
    (void)state;
    Diag d = quiet();
    Graph *g = tb_graph(13);
    float bd[12];
    for (int i = 0; i < 12; i++)
        bd[i] = (float)(i % 5 - 2);
    int a = tb_cf(g, "a", 2, D2(2, 3), iota_f(g, 6, 1));
    int b = tb_cf(g, "b", 2, D2(4, 3), bd);
    int c = tb_cf(g, "c", 1, D2(4, 0), (float[]){1, -1, 2, -2});
    int y = graph_add_value(g, "y");
    int n = tb_node(g, "Gemm", 3, 1, a, b, c, y);
    node_set_int(g, n, "transB", 1);
    node_set_float(g, n, "alpha", 2);
    node_set_float(g, n, "beta", 0.5f);
    assert_int_equal(run(g, n, &d), 1);
    expect_shape(g, y, 2, D2(2, 4));
    /* Python: Y[m][n] = 2*sum_k A[m][k]*B[n][k] + 0.5*C[n], A=1..6, B[i]=i%5-2 */
    expect_f32(g, y, 8, (float[]){-7.5f, -2.5f, 5, -11, -25.5f, 3.5f, 5, -17}, 1e-5f);
    assert_int_equal(attr_int(&g->nodes[n], "transA", -1), 0);
    /* C that cannot broadcast, and mismatched inner dims */
    int c2 = tb_cf(g, "c2", 1, D2(3, 0), (float[]){0, 0, 0});
    int y2 = graph_add_value(g, "y2");
    n = tb_node(g, "Gemm", 3, 1, a, b, c2, y2);
    node_set_int(g, n, "transB", 1);
    assert_int_equal(ops_infer(g, n, &d), -1);
    expect_error(&d, "does not broadcast to [2,4]");
    int y3 = graph_add_value(g, "y3");
    n = tb_node(g, "Gemm", 2, 1, a, b, y3);
    assert_int_equal(ops_infer(g, n, &d), -1);
    expect_error(&d, "inner dimensions differ");
    graph_free(g);
}

static void test_matmul_broadcast(void **state)
{
    (void)state;
    Diag d = quiet();
    Graph *g = tb_graph(13);
    float ad[12], bd[18];
    for (int i = 0; i < 12; i++)
        ad[i] = (float)(i % 7 - 3);
    for (int i = 0; i < 18; i++)
        bd[i] = (float)(i % 5 - 1);
    int a = tb_cf(g, "a", 4, D4(2, 1, 2, 3), ad);
    int b = tb_cf(g, "b", 3, D3(3, 3, 2), bd);
    int y = graph_add_value(g, "y");
    int n = tb_node(g, "MatMul", 2, 1, a, b, y);
    assert_int_equal(run(g, n, &d), 1);
    expect_shape(g, y, 4, D4(2, 3, 2, 2));
    /* Python loops over the broadcast batch [2,3], A[i]=i%7-3, B[i]=i%5-1 */
    float want[24] = {-2, -3, 7, 0, -3, -9, 0, 3, -9, -5, 3, 1,
                      -12, -4, 4, -1, -4, -6, -1, -1, -6, 7, -1, -1};
    expect_f32(g, y, 24, want, 1e-5f);
    /* 1-D operands: [3] x [3,2] -> [2]; [2,3] x [3] -> [2] */
    int v = tb_cf(g, "v", 1, D2(3, 0), (float[]){1, 2, 3});
    int m32 = tb_cf(g, "m32", 2, D2(3, 2), (float[]){1, 0, 0, 1, 1, 1});
    int m23 = tb_cf(g, "m23", 2, D2(2, 3), (float[]){1, 0, 1, 0, 1, 0});
    int y1 = graph_add_value(g, "y1"), y2 = graph_add_value(g, "y2");
    n = tb_node(g, "MatMul", 2, 1, v, m32, y1);
    assert_int_equal(run(g, n, &d), 1);
    expect_shape(g, y1, 1, D2(2, 0));
    expect_f32(g, y1, 2, (float[]){4, 5}, 0);
    n = tb_node(g, "MatMul", 2, 1, m23, v, y2);
    assert_int_equal(run(g, n, &d), 1);
    expect_shape(g, y2, 1, D2(2, 0));
    expect_f32(g, y2, 2, (float[]){4, 2}, 0);
    graph_free(g);
}

/* ---- Softmax ---- */

static void test_softmax_opsets(void **state)
{
    (void)state;
    Diag d = quiet();
    float xs[8] = {0, 1, 2, 3, 1, 1, 1, 1};
    /* opset 13: axis -1, pairs */
    Graph *g = tb_graph(13);
    int x = tb_cf(g, "x", 3, D3(2, 2, 2), xs);
    int y = graph_add_value(g, "y");
    int n = tb_node(g, "Softmax", 1, 1, x, y);
    assert_int_equal(run(g, n, &d), 1);
    float p = 1.0f / (1.0f + 2.7182818f); /* e^0/(e^0+e^1) */
    expect_f32(g, y, 8, (float[]){p, 1 - p, p, 1 - p, 0.5f, 0.5f, 0.5f, 0.5f}, 1e-6f);
    assert_int_equal(attr_int(&g->nodes[n], "axis", -9), 2);
    assert_int_equal(g->nodes[n].at.softmax.coerce2d, 0);
    graph_free(g);
    /* opset 11: axis 1, coerced to [2,4] */
    g = tb_graph(11);
    x = tb_cf(g, "x", 3, D3(2, 2, 2), xs);
    y = graph_add_value(g, "y");
    n = tb_node(g, "Softmax", 1, 1, x, y);
    assert_int_equal(run(g, n, &d), 1);
    /* e^k / (1+e+e^2+e^3), k=0..3 */
    expect_f32(g, y, 8,
               (float[]){0.0320586f, 0.0871443f, 0.2368828f, 0.6439143f, 0.25f, 0.25f, 0.25f, 0.25f},
               1e-6f);
    assert_int_equal(attr_int(&g->nodes[n], "axis", -9), 1);
    assert_int_equal(g->nodes[n].at.softmax.coerce2d, 1);
    int xi = tb_ci1(g, "xi", 2, (int64_t[]){1, 2});
    int y2 = graph_add_value(g, "y2");
    n = tb_node(g, "Softmax", 1, 1, xi, y2);
    assert_int_equal(ops_infer(g, n, &d), -1);
    expect_error(&d, "input type int64 is not supported");
    graph_free(g);
}

/* ---- Concat / Split ---- */

static void test_concat(void **state)
{
    (void)state;
    Diag d = quiet();
    Graph *g = tb_graph(13);
    int a = tb_ci(g, "a", 2, D2(2, 1), (int64_t[]){1, 2});
    int b = tb_ci(g, "b", 2, D2(2, 2), (int64_t[]){3, 4, 5, 6});
    int y = graph_add_value(g, "y");
    int n = tb_node(g, "Concat", 2, 1, a, b, y);
    node_set_int(g, n, "axis", -1);
    assert_int_equal(run(g, n, &d), 1);
    expect_shape(g, y, 2, D2(2, 3));
    expect_i64(g, y, 6, (int64_t[]){1, 3, 4, 2, 5, 6});
    assert_int_equal(attr_int(&g->nodes[n], "axis", -9), 1);
    int c = tb_ci1(g, "c", 2, (int64_t[]){1, 2});
    int y2 = graph_add_value(g, "y2");
    n = tb_node(g, "Concat", 2, 1, a, c, y2);
    node_set_int(g, n, "axis", 0);
    assert_int_equal(ops_infer(g, n, &d), -1);
    expect_error(&d, "differ in rank");
    graph_free(g);
}

static int split_run(Graph *g, Diag *d, int x, int parts, int split_in, int *outs)
{
    int ids[8];
    ids[0] = x;
    ids[1] = split_in;
    for (int i = 0; i < parts; i++)
        outs[i] = ids[2 + i] = graph_add_value(g, "o");
    int n = graph_add_node(g, "Split", NULL, split_in >= 0 ? 2 : 1, ids, parts, ids + 2);
    return run(g, n, d) == 1 ? n : -1;
}

static void test_split(void **state)
{
    (void)state;
    Diag d = quiet();
    int o[4];
    /* default equal split */
    Graph *g = tb_graph(11);
    int x = tb_ci1(g, "x", 6, (int64_t[]){1, 2, 3, 4, 5, 6});
    int n = split_run(g, &d, x, 3, -1, o);
    assert_true(n >= 0);
    expect_i64(g, o[2], 2, (int64_t[]){5, 6});
    expect_ints_attr(g, n, "split", 3, D3(2, 2, 2));
    graph_free(g);
    /* opset 11: "split" attribute */
    g = tb_graph(11);
    x = tb_ci1(g, "x", 6, (int64_t[]){1, 2, 3, 4, 5, 6});
    int ids[3] = {x, graph_add_value(g, "a"), graph_add_value(g, "b")};
    n = graph_add_node(g, "Split", NULL, 1, ids, 2, ids + 1);
    node_set_ints(g, n, "split", D2(1, 5), 2);
    assert_int_equal(run(g, n, &d), 1);
    expect_shape(g, ids[2], 1, (int64_t[]){5});
    expect_i64(g, ids[1], 1, (int64_t[]){1});
    graph_free(g);
    /* opset 13: sizes from input 1 */
    g = tb_graph(13);
    x = tb_ci1(g, "x", 6, (int64_t[]){1, 2, 3, 4, 5, 6});
    int sz = tb_ci1(g, "sz", 2, (int64_t[]){4, 2});
    n = split_run(g, &d, x, 2, sz, o);
    assert_true(n >= 0);
    expect_i64(g, o[0], 4, (int64_t[]){1, 2, 3, 4});
    expect_i64(g, o[1], 2, (int64_t[]){5, 6});
    /* opset 13: 7 does not split equally in 3 */
    int x7 = tb_ci1(g, "x7", 7, (int64_t[]){1, 2, 3, 4, 5, 6, 7});
    assert_int_equal(split_run(g, &d, x7, 3, -1, o), -1);
    expect_error(&d, "does not split into 3 equal parts");
    graph_free(g);
    /* opset 18: ceil-sized parts, smaller last */
    g = tb_graph(18);
    x7 = tb_ci1(g, "x7", 7, (int64_t[]){1, 2, 3, 4, 5, 6, 7});
    n = split_run(g, &d, x7, 3, -1, o);
    assert_true(n >= 0);
    expect_ints_attr(g, n, "split", 3, D3(3, 3, 1));
    expect_i64(g, o[2], 1, (int64_t[]){7});
    graph_free(g);
}

/* ---- Slice ---- */

static void test_slice(void **state)
{
    (void)state;
    Diag d = quiet();
    Graph *g = tb_graph(13);
    int64_t ten[10];
    for (int i = 0; i < 10; i++)
        ten[i] = i;
    int x = tb_ci1(g, "x", 10, ten);
    /* starts -1, ends INT64_MIN, step -3: 9, 6, 3, 0 */
    int st = tb_ci1(g, "st", 1, (int64_t[]){-1});
    int en = tb_ci1(g, "en", 1, (int64_t[]){INT64_MIN});
    int sp = tb_ci1(g, "sp", 1, (int64_t[]){-3});
    int y = graph_add_value(g, "y");
    int n = tb_node(g, "Slice", 5, 1, x, st, en, -1, sp, y);
    assert_int_equal(run(g, n, &d), 1);
    expect_shape(g, y, 1, (int64_t[]){4});
    expect_i64(g, y, 4, (int64_t[]){9, 6, 3, 0});
    expect_ints_attr(g, n, "starts", 1, (int64_t[]){9});
    expect_ints_attr(g, n, "ends", 1, (int64_t[]){-1});
    expect_ints_attr(g, n, "steps", 1, (int64_t[]){-3});
    /* starts 8, ends 1, step -2: 8, 6, 4, 2 */
    int st2 = tb_ci1(g, "st2", 1, (int64_t[]){8});
    int en2 = tb_ci1(g, "en2", 1, (int64_t[]){1});
    int sp2 = tb_ci1(g, "sp2", 1, (int64_t[]){-2});
    int y2 = graph_add_value(g, "y2");
    n = tb_node(g, "Slice", 5, 1, x, st2, en2, -1, sp2, y2);
    assert_int_equal(run(g, n, &d), 1);
    expect_i64(g, y2, 4, (int64_t[]){8, 6, 4, 2});
    /* 2-D with axes and clamping: rows 1..2, cols 0..2 of a 3x4 */
    int m = tb_cf(g, "m", 2, D2(3, 4), iota_f(g, 12, 0));
    int st3 = tb_ci1(g, "st3", 2, D2(1, -100));
    int en3 = tb_ci1(g, "en3", 2, D2(100, 3));
    int ax3 = tb_ci1(g, "ax3", 2, D2(0, -1));
    int y3 = graph_add_value(g, "y3");
    n = tb_node(g, "Slice", 4, 1, m, st3, en3, ax3, y3);
    assert_int_equal(run(g, n, &d), 1);
    expect_shape(g, y3, 2, D2(2, 3));
    expect_f32(g, y3, 6, (float[]){4, 5, 6, 8, 9, 10}, 0);
    expect_ints_attr(g, n, "starts", 2, D2(1, 0));
    expect_ints_attr(g, n, "ends", 2, D2(3, 3));
    /* non-constant starts */
    int rt = tb_val(g, "rt", DT_INT64, 1, (int64_t[]){1});
    int y4 = graph_add_value(g, "y4");
    n = tb_node(g, "Slice", 3, 1, x, rt, en, y4);
    assert_int_equal(ops_infer(g, n, &d), -1);
    expect_error(&d, "decides the output shape");
    graph_free(g);
    /* opset 9: attributes; a second inference is a fixed point */
    g = tb_graph(9);
    m = tb_cf(g, "m", 2, D2(3, 4), iota_f(g, 12, 0));
    y = graph_add_value(g, "y");
    n = tb_node(g, "Slice", 1, 1, m, y);
    node_set_ints(g, n, "starts", (int64_t[]){1}, 1);
    node_set_ints(g, n, "ends", (int64_t[]){-1}, 1);
    node_set_ints(g, n, "axes", (int64_t[]){1}, 1);
    assert_int_equal(run(g, n, &d), 1);
    expect_shape(g, y, 2, D2(3, 2));
    expect_f32(g, y, 6, (float[]){1, 2, 5, 6, 9, 10}, 0);
    assert_int_equal(ops_infer(g, n, &d), 0);
    expect_shape(g, y, 2, D2(3, 2));
    graph_free(g);
}

/* ---- Transpose, Reshape family ---- */

static void test_transpose(void **state)
{
    (void)state;
    Diag d = quiet();
    Graph *g = tb_graph(13);
    int x = tb_cf(g, "x", 2, D2(2, 3), iota_f(g, 6, 1));
    int y = graph_add_value(g, "y");
    int n = tb_node(g, "Transpose", 1, 1, x, y);
    assert_int_equal(run(g, n, &d), 1);
    expect_shape(g, y, 2, D2(3, 2));
    expect_f32(g, y, 6, (float[]){1, 4, 2, 5, 3, 6}, 0);
    expect_ints_attr(g, n, "perm", 2, D2(1, 0));
    int x3 = tb_cf(g, "x3", 3, D3(2, 1, 3), iota_f(g, 6, 1));
    int y3 = graph_add_value(g, "y3");
    n = tb_node(g, "Transpose", 1, 1, x3, y3);
    node_set_ints(g, n, "perm", D3(2, 0, 1), 3);
    assert_int_equal(run(g, n, &d), 1);
    expect_shape(g, y3, 3, D3(3, 2, 1));
    expect_f32(g, y3, 6, (float[]){1, 4, 2, 5, 3, 6}, 0);
    graph_free(g);
}

static void test_reshape(void **state)
{
    (void)state;
    Diag d = quiet();
    Graph *g = tb_graph(14);
    int x = tb_cf(g, "x", 3, D3(2, 3, 4), iota_f(g, 24, 0));
    int s = tb_ci1(g, "s", 2, D2(0, -1));
    int y = graph_add_value(g, "y");
    int n = tb_node(g, "Reshape", 2, 1, x, s, y);
    assert_int_equal(run(g, n, &d), 1);
    expect_shape(g, y, 2, D2(2, 12));
    assert_true(((float *)g->values[y].data)[23] == 23.0f);
    /* allowzero: 0 is a real zero */
    int z = tb_val(g, "z", DT_FLOAT32, 2, D2(3, 0));
    int s0 = tb_ci1(g, "s0", 2, D2(0, 3));
    int y0 = graph_add_value(g, "y0");
    n = tb_node(g, "Reshape", 2, 1, z, s0, y0);
    node_set_int(g, n, "allowzero", 1);
    assert_int_equal(ops_infer(g, n, &d), 0);
    expect_shape(g, y0, 2, D2(0, 3));
    node_set_int(g, n, "allowzero", 0); /* now 0 copies dim 0 = 3: 9 != 0 elements */
    assert_int_equal(ops_infer(g, n, &d), -1);
    expect_error(&d, "cannot reshape [3,0]");
    /* errors: two -1, runtime shape */
    int s2 = tb_ci1(g, "s2", 2, D2(-1, -1));
    int y2 = graph_add_value(g, "y2");
    n = tb_node(g, "Reshape", 2, 1, x, s2, y2);
    assert_int_equal(ops_infer(g, n, &d), -1);
    expect_error(&d, "more than one -1");
    int rs = tb_val(g, "rs", DT_INT64, 1, (int64_t[]){2});
    int y3 = graph_add_value(g, "y3");
    n = tb_node(g, "Reshape", 2, 1, x, rs, y3);
    assert_int_equal(ops_infer(g, n, &d), -1);
    expect_error(&d, "decides the output shape");
    graph_free(g);
}

static void test_flatten_squeeze_unsqueeze(void **state)
{
    (void)state;
    Diag d = quiet();
    Graph *g = tb_graph(11);
    int x = tb_val(g, "x", DT_FLOAT32, 3, D3(2, 3, 4));
    int y = graph_add_value(g, "y");
    int n = tb_node(g, "Flatten", 1, 1, x, y);
    node_set_int(g, n, "axis", -1);
    assert_int_equal(ops_infer(g, n, &d), 0);
    expect_shape(g, y, 2, D2(6, 4));
    assert_int_equal(attr_int(&g->nodes[n], "axis", -9), 2);
    int x1 = tb_val(g, "x1", DT_FLOAT32, 3, D3(1, 3, 1));
    int y1 = graph_add_value(g, "y1");
    n = tb_node(g, "Squeeze", 1, 1, x1, y1);
    node_set_ints(g, n, "axes", (int64_t[]){0}, 1);
    assert_int_equal(ops_infer(g, n, &d), 0);
    expect_shape(g, y1, 2, D2(3, 1));
    int y2 = graph_add_value(g, "y2");
    n = tb_node(g, "Squeeze", 1, 1, x, y2);
    node_set_ints(g, n, "axes", (int64_t[]){1}, 1);
    assert_int_equal(ops_infer(g, n, &d), -1);
    expect_error(&d, "cannot squeeze axis 1 of size 3");
    int v3 = tb_val(g, "v3", DT_FLOAT32, 1, (int64_t[]){3});
    int y3 = graph_add_value(g, "y3");
    n = tb_node(g, "Unsqueeze", 1, 1, v3, y3);
    node_set_ints(g, n, "axes", (int64_t[]){1}, 1);
    assert_int_equal(ops_infer(g, n, &d), 0);
    expect_shape(g, y3, 2, D2(3, 1));
    graph_free(g);
    /* opset 13: axes as inputs; Squeeze without axes drops every 1 */
    g = tb_graph(13);
    x1 = tb_cf(g, "x1", 3, D3(1, 3, 1), (float[]){7, 8, 9});
    y1 = graph_add_value(g, "y1");
    n = tb_node(g, "Squeeze", 1, 1, x1, y1);
    assert_int_equal(run(g, n, &d), 1);
    expect_shape(g, y1, 1, (int64_t[]){3});
    expect_f32(g, y1, 3, (float[]){7, 8, 9}, 0);
    int ax = tb_ci1(g, "ax", 2, D2(-1, 0));
    y3 = graph_add_value(g, "y3");
    n = tb_node(g, "Unsqueeze", 2, 1, y1, ax, y3);
    assert_int_equal(run(g, n, &d), 1);
    expect_shape(g, y3, 3, D3(1, 3, 1));
    expect_ints_attr(g, n, "axes", 2, D2(0, 2));
    graph_free(g);
}

/* ---- shape operators ---- */

static void test_gather(void **state)
{
    (void)state;
    Diag d = quiet();
    Graph *g = tb_graph(13);
    int x = tb_ci(g, "x", 2, D2(3, 2), (int64_t[]){1, 2, 3, 4, 5, 6});
    int ix = tb_ci1(g, "ix", 2, D2(-1, 0));
    int y = graph_add_value(g, "y");
    int n = tb_node(g, "Gather", 2, 1, x, ix, y);
    assert_int_equal(run(g, n, &d), 1);
    expect_shape(g, y, 2, D2(2, 2));
    expect_i64(g, y, 4, (int64_t[]){5, 6, 1, 2});
    int s = tb_ci(g, "s", 0, NULL, (int64_t[]){-1});
    int y2 = graph_add_value(g, "y2");
    n = tb_node(g, "Gather", 2, 1, x, s, y2);
    node_set_int(g, n, "axis", -1);
    assert_int_equal(run(g, n, &d), 1);
    expect_shape(g, y2, 1, (int64_t[]){3});
    expect_i64(g, y2, 3, (int64_t[]){2, 4, 6});
    assert_int_equal(attr_int(&g->nodes[n], "axis", -9), 1);
    int bad = tb_ci(g, "bad", 0, NULL, (int64_t[]){3});
    int y3 = graph_add_value(g, "y3");
    n = tb_node(g, "Gather", 2, 1, x, bad, y3);
    assert_int_equal(run(g, n, &d), -1);
    expect_error(&d, "index 3 out of range");
    graph_free(g);
}

static void test_shape_cast_constants(void **state)
{
    (void)state;
    Diag d = quiet();
    Graph *g = tb_graph(15);
    /* Shape of a runtime value with start/end (opset 15) folds */
    int x = tb_input(g, "x", 4, D4(2, 3, 4, 5));
    int y = graph_add_value(g, "y");
    int n = tb_node(g, "Shape", 1, 1, x, y);
    node_set_int(g, n, "start", 1);
    node_set_int(g, n, "end", -1);
    assert_int_equal(ops_infer(g, n, &d), 0);
    assert_true(ops_can_fold(g, &g->nodes[n]));
    assert_int_equal(ops_eval(g, n, NULL, &d), 1);
    expect_i64(g, y, 2, D2(3, 4));
    /* Cast float -> int64 truncates; int64 -> float; -> bool */
    int f = tb_cf(g, "f", 1, D3(3, 0, 0), (float[]){-1.7f, 2.9f, 0});
    int yi = graph_add_value(g, "yi"), yb = graph_add_value(g, "yb");
    n = tb_node(g, "Cast", 1, 1, f, yi);
    node_set_int(g, n, "to", 7);
    assert_int_equal(run(g, n, &d), 1);
    expect_i64(g, yi, 3, (int64_t[]){-1, 2, 0});
    int yf = graph_add_value(g, "yf");
    n = tb_node(g, "Cast", 1, 1, yi, yf);
    node_set_int(g, n, "to", 1);
    assert_int_equal(run(g, n, &d), 1);
    expect_f32(g, yf, 3, (float[]){-1, 2, 0}, 0);
    n = tb_node(g, "Cast", 1, 1, f, yb);
    node_set_int(g, n, "to", 9);
    assert_int_equal(run(g, n, &d), 1);
    assert_int_equal(g->values[yb].dtype, DT_BOOL);
    assert_memory_equal(g->values[yb].data, ((unsigned char[]){1, 1, 0}), 3);
    /* ConstantOfShape: int64 value, and the float zero default */
    int sh = tb_ci1(g, "sh", 2, D2(2, 3));
    int c7 = graph_add_value(g, "c7"), c0 = graph_add_value(g, "c0");
    n = tb_node(g, "ConstantOfShape", 1, 1, sh, c7);
    tb_set_tensor(g, n, "value", DT_INT64, 1, (int64_t[]){1}, (int64_t[]){7});
    assert_int_equal(run(g, n, &d), 1);
    expect_shape(g, c7, 2, D2(2, 3));
    expect_i64(g, c7, 6, (int64_t[]){7, 7, 7, 7, 7, 7});
    n = tb_node(g, "ConstantOfShape", 1, 1, sh, c0);
    assert_int_equal(run(g, n, &d), 1);
    expect_f32(g, c0, 6, (float[]){0, 0, 0, 0, 0, 0}, 0);
    /* Constant: value_ints and a tensor value */
    int k = graph_add_value(g, "k"), kt = graph_add_value(g, "kt");
    n = tb_node(g, "Constant", 0, 1, k);
    node_set_ints(g, n, "value_ints", D3(4, 5, 6), 3);
    assert_true(ops_can_fold(g, &g->nodes[n]));
    assert_int_equal(run(g, n, &d), 1);
    expect_i64(g, k, 3, D3(4, 5, 6));
    n = tb_node(g, "Constant", 0, 1, kt);
    tb_set_tensor(g, n, "value", DT_FLOAT32, 2, D2(1, 2), (float[]){1.5f, -2});
    assert_int_equal(run(g, n, &d), 1);
    expect_shape(g, kt, 2, D2(1, 2));
    expect_f32(g, kt, 2, (float[]){1.5f, -2}, 0);
    graph_free(g);
}

static void test_range_equal_where_expand(void **state)
{
    (void)state;
    Diag d = quiet();
    Graph *g = tb_graph(13);
    int s = tb_ci(g, "s", 0, NULL, (int64_t[]){1}), l = tb_ci(g, "l", 0, NULL, (int64_t[]){10});
    int dl = tb_ci(g, "dl", 0, NULL, (int64_t[]){3});
    int r = graph_add_value(g, "r");
    int n = tb_node(g, "Range", 3, 1, s, l, dl, r);
    assert_int_equal(run(g, n, &d), 1);
    expect_i64(g, r, 3, D3(1, 4, 7));
    int s2 = tb_ci(g, "s2", 0, NULL, (int64_t[]){5}), l2 = tb_ci(g, "l2", 0, NULL, (int64_t[]){0});
    int d2 = tb_ci(g, "d2", 0, NULL, (int64_t[]){-2});
    int r2 = graph_add_value(g, "r2");
    n = tb_node(g, "Range", 3, 1, s2, l2, d2, r2);
    assert_int_equal(run(g, n, &d), 1);
    expect_i64(g, r2, 3, D3(5, 3, 1));
    int fs = tb_cf(g, "fs", 0, NULL, (float[]){0}), fl = tb_cf(g, "fl", 0, NULL, (float[]){1});
    int fd = tb_cf(g, "fd", 0, NULL, (float[]){0.25f});
    int r3 = graph_add_value(g, "r3");
    n = tb_node(g, "Range", 3, 1, fs, fl, fd, r3);
    assert_int_equal(run(g, n, &d), 1);
    expect_f32(g, r3, 4, (float[]){0, 0.25f, 0.5f, 0.75f}, 0);
    /* Equal with broadcast -> bool; Where picks */
    int a = tb_ci1(g, "a", 3, D3(1, 2, 3)), b = tb_ci(g, "b", 0, NULL, (int64_t[]){2});
    int eq = graph_add_value(g, "eq");
    n = tb_node(g, "Equal", 2, 1, a, b, eq);
    assert_int_equal(run(g, n, &d), 1);
    assert_int_equal(g->values[eq].dtype, DT_BOOL);
    assert_memory_equal(g->values[eq].data, ((unsigned char[]){0, 1, 0}), 3);
    int ten = tb_ci1(g, "ten", 1, (int64_t[]){10});
    int w = graph_add_value(g, "w");
    n = tb_node(g, "Where", 3, 1, eq, a, ten, w);
    assert_int_equal(run(g, n, &d), 1);
    expect_i64(g, w, 3, D3(10, 2, 10));
    /* Expand [3,1] to [2,1,2] -> [2,3,2] */
    int e = tb_cf(g, "e", 2, D2(3, 1), (float[]){1, 2, 3});
    int es = tb_ci1(g, "es", 3, D3(2, 1, 2));
    int ey = graph_add_value(g, "ey");
    n = tb_node(g, "Expand", 2, 1, e, es, ey);
    assert_int_equal(run(g, n, &d), 1);
    expect_shape(g, ey, 3, D3(2, 3, 2));
    expect_f32(g, ey, 12, (float[]){1, 1, 2, 2, 3, 3, 1, 1, 2, 2, 3, 3}, 0);
    /* Expand to a shape whose size overflows */
    int big = tb_ci1(g, "big", 3, D3(INT64_C(1) << 40, 3, INT64_C(1) << 40));
    int by = graph_add_value(g, "by");
    n = tb_node(g, "Expand", 2, 1, e, big, by);
    assert_int_equal(ops_infer(g, n, &d), -1);
    expect_error(&d, "too large");
    graph_free(g);
}

/* ---- scatters, Tile, DepthToSpace, ReverseSequence ---- */

static void test_scatter_tile_depth_revseq(void **state)
{
    (void)state;
    Diag d = quiet();
    Graph *g = tb_graph(18);
    int x = tb_ci(g, "x", 2, D2(2, 3), (int64_t[]){1, 2, 3, 4, 5, 6});
    /* ScatterElements axis 1, reduction add, a negative and a repeated index */
    int ix = tb_ci(g, "ix", 2, D2(2, 2), (int64_t[]){-1, 2, 0, 0});
    int up = tb_ci(g, "up", 2, D2(2, 2), (int64_t[]){10, 20, 30, 40});
    int y = graph_add_value(g, "y");
    int n = tb_node(g, "ScatterElements", 3, 1, x, ix, up, y);
    node_set_int(g, n, "axis", -1);
    tb_set_string(g, n, "reduction", "add");
    assert_int_equal(run(g, n, &d), 1);
    expect_shape(g, y, 2, D2(2, 3));
    expect_i64(g, y, 6, (int64_t[]){1, 2, 33, 74, 5, 6});
    assert_int_equal(attr_int(&g->nodes[n], "axis", -9), 1);
    /* ScatterND: row 1 replaced */
    int ri = tb_ci(g, "ri", 2, D2(1, 1), (int64_t[]){1});
    int ru = tb_ci(g, "ru", 2, D2(1, 3), (int64_t[]){7, 8, 9});
    int y2 = graph_add_value(g, "y2");
    n = tb_node(g, "ScatterND", 3, 1, x, ri, ru, y2);
    assert_int_equal(run(g, n, &d), 1);
    expect_i64(g, y2, 6, (int64_t[]){1, 2, 3, 7, 8, 9});
    /* a constant index out of range is an error */
    int bad = tb_ci(g, "bad", 2, D2(1, 1), (int64_t[]){2});
    int y3 = graph_add_value(g, "y3");
    n = tb_node(g, "ScatterND", 3, 1, x, bad, ru, y3);
    assert_int_equal(run(g, n, &d), -1);
    expect_error(&d, "index 2 out of range");
    /* Tile [2,3] by [2,1] */
    int rep = tb_ci1(g, "rep", 2, D2(2, 1));
    int y4 = graph_add_value(g, "y4");
    n = tb_node(g, "Tile", 2, 1, x, rep, y4);
    assert_int_equal(run(g, n, &d), 1);
    expect_shape(g, y4, 2, D2(4, 3));
    expect_i64(g, y4, 12, (int64_t[]){1, 2, 3, 4, 5, 6, 1, 2, 3, 4, 5, 6});
    /* ReverseSequence, batch axis 0, time axis 1, lengths 3 and 2 */
    int len = tb_ci1(g, "len", 2, D2(3, 2));
    int y5 = graph_add_value(g, "y5");
    n = tb_node(g, "ReverseSequence", 2, 1, x, len, y5);
    node_set_int(g, n, "batch_axis", 0);
    node_set_int(g, n, "time_axis", 1);
    assert_int_equal(run(g, n, &d), 1);
    expect_i64(g, y5, 6, (int64_t[]){3, 2, 1, 5, 4, 6});
    /* DepthToSpace DCR: [1,4,1,1] -> [1,1,2,2] */
    int c4 = tb_ci(g, "c4", 4, (int64_t[]){1, 4, 1, 1}, (int64_t[]){1, 2, 3, 4});
    int y6 = graph_add_value(g, "y6");
    n = tb_node(g, "DepthToSpace", 1, 1, c4, y6);
    node_set_int(g, n, "blocksize", 2);
    assert_int_equal(run(g, n, &d), 1);
    expect_shape(g, y6, 4, (int64_t[]){1, 1, 2, 2});
    expect_i64(g, y6, 4, (int64_t[]){1, 2, 3, 4});
    int y7 = graph_add_value(g, "y7");
    n = tb_node(g, "SpaceToDepth", 1, 1, y6, y7);
    node_set_int(g, n, "blocksize", 3);
    assert_int_equal(run(g, n, &d), -1);
    expect_error(&d, "do not divide by blocksize 3");
    graph_free(g);
}

static void test_size_cast_dropout(void **state)
{
    (void)state;
    Diag d = quiet();
    Graph *g = tb_graph(19);
    /* Size of a runtime value folds from its static shape */
    int x = tb_input(g, "x", 3, D3(2, 3, 4));
    int sz = graph_add_value(g, "sz");
    int n = tb_node(g, "Size", 1, 1, x, sz);
    assert_int_equal(ops_infer(g, n, &d), 0);
    assert_true(ops_can_fold(g, &g->nodes[n]));
    assert_int_equal(ops_eval(g, n, NULL, &d), 1);
    expect_shape(g, sz, 0, NULL);
    expect_i64(g, sz, 1, (int64_t[]){24});
    /* Cast to float8e4m3fn: 1000 saturates to 448 (0x7e), or becomes NaN
       (0x7f) with saturate = 0 */
    int f = tb_cf(g, "f", 1, D3(2, 0, 0), (float[]){1000, -0.5f});
    int y8 = graph_add_value(g, "y8"), y8n = graph_add_value(g, "y8n");
    n = tb_node(g, "Cast", 1, 1, f, y8);
    node_set_int(g, n, "to", 17);
    assert_int_equal(run(g, n, &d), 1);
    assert_int_equal(g->values[y8].dtype, DT_FLOAT8E4M3FN);
    assert_memory_equal(g->values[y8].data, ((unsigned char[]){0x7e, 0xb0}), 2);
    n = tb_node(g, "Cast", 1, 1, f, y8n);
    node_set_int(g, n, "to", 17);
    node_set_int(g, n, "saturate", 0);
    assert_int_equal(run(g, n, &d), 1);
    assert_memory_equal(g->values[y8n].data, ((unsigned char[]){0x7f, 0xb0}), 2);
    /* CastLike takes the type of its second input */
    int like = tb_ci1(g, "like", 1, (int64_t[]){0});
    int yl = graph_add_value(g, "yl");
    n = tb_node(g, "CastLike", 2, 1, f, like, yl);
    assert_int_equal(run(g, n, &d), 1);
    expect_i64(g, yl, 2, (int64_t[]){1000, 0});
    /* Dropout at inference: the input, and an all-true mask */
    int dy = graph_add_value(g, "dy"), dm = graph_add_value(g, "dm");
    n = tb_node(g, "Dropout", 1, 2, f, dy, dm);
    assert_int_equal(run(g, n, &d), 1);
    expect_f32(g, dy, 2, (float[]){1000, -0.5f}, 0);
    assert_int_equal(g->values[dm].dtype, DT_BOOL);
    assert_memory_equal(g->values[dm].data, ((unsigned char[]){1, 1}), 2);
    graph_free(g);
    /* Cast version 1 names the type with a string */
    g = tb_graph(5);
    f = tb_cf(g, "f", 1, D3(2, 0, 0), (float[]){2.5f, -3.5f});
    int yi = graph_add_value(g, "yi");
    n = tb_node(g, "Cast", 1, 1, f, yi);
    tb_set_string(g, n, "to", "INT32");
    assert_int_equal(ops_infer(g, n, &d), 0);
    assert_int_equal(g->values[yi].dtype, DT_INT32);
    assert_int_equal(attr_int(&g->nodes[n], "to", 0), 6);
    graph_free(g);
}

/* ---- QuantizeLinear ---- */

static void test_quantize_linear(void **state)
{
    (void)state;
    Diag d = quiet();
    Graph *g = tb_graph(21);
    /* uint8 by default; ties round to even, then clamp to 0..255 */
    int x = tb_cf(g, "x", 2, D2(2, 3), (float[]){-1.5f, 0.5f, 2.5f, 300, 3.5f, 7});
    int s = tb_cf(g, "s", 1, D2(1, 0), (float[]){1});
    int y = graph_add_value(g, "y");
    int n = tb_node(g, "QuantizeLinear", 2, 1, x, s, y);
    assert_int_equal(run(g, n, &d), 1);
    assert_int_equal(g->values[y].dtype, DT_UINT8);
    const uint8_t want[6] = {0, 0, 2, 255, 4, 7};
    for (int i = 0; i < 6; i++)
        assert_int_equal(((const uint8_t *)g->values[y].data)[i], want[i]);
    assert_int_equal(g->nodes[n].at.quant.qmode, 0);
    /* per axis: the scale must match the axis' length */
    int s2 = tb_cf(g, "s2", 1, D2(2, 0), (float[]){1, 2});
    int y2 = graph_add_value(g, "y2");
    n = tb_node(g, "QuantizeLinear", 2, 1, x, s2, y2);
    assert_int_equal(ops_infer(g, n, &d), -1);
    expect_error(&d, "per-axis scale");
    node_set_int(g, n, "axis", 0);
    assert_int_equal(run(g, n, &d), 1);
    assert_int_equal(g->nodes[n].at.quant.qmode, 1);
    const uint8_t want2[6] = {0, 0, 2, 150, 2, 4}; /* row 1 / 2: 1.75->2, 3.5->4 */
    for (int i = 0; i < 6; i++)
        assert_int_equal(((const uint8_t *)g->values[y2].data)[i], want2[i]);
    graph_free(g);
}

static void test_unknown_op(void **state)
{
    (void)state;
    Diag d = quiet();
    Graph *g = tb_graph(13);
    int x = tb_input(g, "x", 1, (int64_t[]){3});
    int y = graph_add_value(g, "y");
    int n = tb_node(g, "Foo", 1, 1, x, y);
    assert_int_equal(ops_infer(g, n, &d), -1);
    expect_error(&d, "operator Foo is not supported");
    assert_false(ops_can_fold(g, &g->nodes[n]));
    graph_free(g);
}

/* ---- MaxUnpool, Col2Im, GridSample, RoiAlign (convpool group) ---- */

static void test_unpool_col2im_roi(void **state)
{
    (void)state;
    Diag d = quiet();
    Graph *g = tb_graph(22);
    /* MaxUnpool: indices refer to the inferred 4x4 shape, which sits in the
     * corner of the 5x5 output_shape (the ONNX test's numbers) */
    int x = tb_cf(g, "x", 4, D4(1, 1, 2, 2), iota_f(g, 4, 1));
    int ix = tb_ci(g, "ix", 4, D4(1, 1, 2, 2), (int64_t[]){5, 7, 13, 15});
    int os = tb_ci1(g, "os", 4, (int64_t[]){1, 1, 5, 5});
    int y = graph_add_value(g, "y");
    int n = tb_node(g, "MaxUnpool", 3, 1, x, ix, os, y);
    node_set_ints(g, n, "kernel_shape", (int64_t[]){2, 2}, 2);
    node_set_ints(g, n, "strides", (int64_t[]){2, 2}, 2);
    assert_int_equal(run(g, n, &d), 1);
    expect_shape(g, y, 4, D4(1, 1, 5, 5));
    float want[25] = {0};
    want[6] = 1, want[8] = 2, want[16] = 3, want[18] = 4;
    expect_f32(g, y, 25, want, 0);
    /* Col2Im: one 2x2 block fills a 2x2 image; image_shape as a graph input
     * must be bound */
    int c = tb_cf(g, "c", 3, D3(1, 4, 1), iota_f(g, 4, 1));
    int img = tb_ci1(g, "img", 2, (int64_t[]){2, 2}), blk = tb_ci1(g, "blk", 2, (int64_t[]){2, 2});
    int y2 = graph_add_value(g, "y2");
    n = tb_node(g, "Col2Im", 3, 1, c, img, blk, y2);
    assert_int_equal(run(g, n, &d), 1);
    expect_shape(g, y2, 4, D4(1, 1, 2, 2));
    expect_f32(g, y2, 4, (float[]){1, 2, 3, 4}, 0);
    int imgv = tb_val(g, "imgv", DT_INT64, 1, (int64_t[]){2});
    graph_add_input(g, imgv);
    n = tb_node(g, "Col2Im", 3, 1, c, imgv, blk, graph_add_value(g, "y3"));
    assert_int_equal(ops_infer(g, n, &d), -1);
    expect_error(&d, "--bind");
    /* GridSample: an unknown mode is refused by name */
    int gr = tb_cf(g, "gr", 4, D4(1, 3, 3, 2), iota_f(g, 18, -1));
    n = tb_node(g, "GridSample", 2, 1, x, gr, graph_add_value(g, "y4"));
    tb_set_string(g, n, "mode", "quadratic");
    assert_int_equal(ops_infer(g, n, &d), -1);
    expect_error(&d, "unsupported mode 'quadratic'");
    /* RoiAlign on a constant image: every in-range sample averages to it */
    float *twos = iota_f(g, 16, 0);
    for (int i = 0; i < 16; i++)
        twos[i] = 2.0f;
    int im = tb_cf(g, "im", 4, D4(1, 1, 4, 4), twos);
    int rois = tb_cf(g, "rois", 2, (int64_t[]){1, 4}, (float[]){0, 0, 3, 3});
    int bi = tb_ci1(g, "bi", 1, (int64_t[]){0});
    int y5 = graph_add_value(g, "y5");
    n = tb_node(g, "RoiAlign", 3, 1, im, rois, bi, y5);
    node_set_int(g, n, "output_height", 2);
    node_set_int(g, n, "output_width", 3);
    tb_set_string(g, n, "coordinate_transformation_mode", "output_half_pixel");
    assert_int_equal(run(g, n, &d), 1);
    expect_shape(g, y5, 4, D4(1, 1, 2, 3));
    expect_f32(g, y5, 6, (float[]){2, 2, 2, 2, 2, 2}, 1e-6f);
    graph_free(g);
}

/* ---- attention and transformer blocks ---- */

static void test_attention_blocks(void **state)
{
    (void)state;
    Diag d = quiet();
    Graph *g = tb_graph(28);
    /* Attention: scores [1, 0] (scale 1), Y = (e*1 + 1*3) / (e + 1); causal keeps key 0 only */
    int q = tb_cf(g, "q", 4, D4(1, 1, 1, 2), (float[]){1, 0});
    int k = tb_cf(g, "k", 4, D4(1, 1, 2, 2), (float[]){1, 0, 0, 1});
    int v = tb_cf(g, "v", 4, D4(1, 1, 2, 1), (float[]){1, 3});
    int y = graph_add_value(g, "y"), yc = graph_add_value(g, "yc");
    int n = tb_node(g, "Attention", 3, 1, q, k, v, y);
    node_set_float(g, n, "scale", 1.0f);
    assert_int_equal(run(g, n, &d), 1);
    expect_shape(g, y, 4, D4(1, 1, 1, 1));
    expect_f32(g, y, 1, (float[]){1.5378828f}, 1e-6f);
    n = tb_node(g, "Attention", 3, 1, q, k, v, yc);
    node_set_int(g, n, "is_causal", 1);
    assert_int_equal(run(g, n, &d), 1);
    expect_f32(g, yc, 1, (float[]){1}, 1e-6f);
    int q3 = tb_cf(g, "q3", 3, D3(1, 1, 2), (float[]){1, 0});
    int k3 = tb_cf(g, "k3", 3, D3(1, 2, 2), (float[]){1, 0, 0, 1});
    int v3 = tb_cf(g, "v3", 3, D3(1, 2, 1), (float[]){1, 3});
    n = tb_node(g, "Attention", 3, 1, q3, k3, v3, graph_add_value(g, "y3"));
    assert_int_equal(ops_infer(g, n, &d), -1);
    expect_error(&d, "q_num_heads and kv_num_heads");

    /* RotaryEmbedding, halves, caches per token: cos {0,1}, sin {1,0} */
    int x = tb_cf(g, "x", 4, D4(1, 1, 1, 4), (float[]){1, 2, 3, 4});
    int c = tb_cf(g, "c", 3, D3(1, 1, 2), (float[]){0, 1});
    int sn = tb_cf(g, "s", 3, D3(1, 1, 2), (float[]){1, 0});
    int yr = graph_add_value(g, "yr");
    n = tb_node(g, "RotaryEmbedding", 3, 1, x, c, sn, yr);
    assert_int_equal(run(g, n, &d), 1);
    expect_f32(g, yr, 4, (float[]){-3, 2, 1, 4}, 1e-6f);
    n = tb_node(g, "RotaryEmbedding", 3, 1, x, c, sn, graph_add_value(g, "yr2"));
    node_set_int(g, n, "rotary_embedding_dim", 3);
    assert_int_equal(ops_infer(g, n, &d), -1);
    expect_error(&d, "must be even");

    /* SwiGLU: a * sigmoid(a) * b */
    int a = tb_cf(g, "a", 1, D2(2, 0), (float[]){0, 1});
    int b = tb_cf(g, "b", 1, D2(2, 0), (float[]){2, 3});
    int ys = graph_add_value(g, "ys");
    n = tb_node(g, "SwiGLU", 2, 1, a, b, ys);
    assert_int_equal(run(g, n, &d), 1);
    expect_f32(g, ys, 2, (float[]){0, 2.1931758f}, 1e-6f);
    n = tb_node(g, "SwiGLU", 2, 1, a, x, graph_add_value(g, "ys2"));
    assert_int_equal(ops_infer(g, n, &d), -1);
    expect_error(&d, "same shape");

    /* LinearAttention, linear rule, one head of size 1: S = 3*5, out = 2*S */
    int lq = tb_cf(g, "lq", 3, D3(1, 1, 1), (float[]){2});
    int lk = tb_cf(g, "lk", 3, D3(1, 1, 1), (float[]){3});
    int lv = tb_cf(g, "lv", 3, D3(1, 1, 1), (float[]){5});
    int lo = graph_add_value(g, "lo"), ls = graph_add_value(g, "ls");
    n = tb_node(g, "LinearAttention", 3, 2, lq, lk, lv, lo, ls);
    node_set_int(g, n, "q_num_heads", 1);
    node_set_int(g, n, "kv_num_heads", 1);
    tb_set_string(g, n, "update_rule", "linear");
    assert_int_equal(run(g, n, &d), 1);
    expect_f32(g, lo, 1, (float[]){30}, 1e-5f);
    expect_shape(g, ls, 4, D4(1, 1, 1, 1));
    expect_f32(g, ls, 1, (float[]){15}, 1e-5f);
    n = tb_node(g, "LinearAttention", 3, 2, lq, lk, lv, graph_add_value(g, "lo2"), graph_add_value(g, "ls2"));
    node_set_int(g, n, "q_num_heads", 1);
    node_set_int(g, n, "kv_num_heads", 1);
    tb_set_string(g, n, "update_rule", "gated");
    assert_int_equal(ops_infer(g, n, &d), -1);
    expect_error(&d, "requires the decay");
    graph_free(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_conv_pads),
        cmocka_unit_test(test_conv_group_stride_dilation),
        cmocka_unit_test(test_conv_auto_pad),
        cmocka_unit_test(test_conv_errors),
        cmocka_unit_test(test_batchnorm),
        cmocka_unit_test(test_unary_values),
        cmocka_unit_test(test_clip_opsets),
        cmocka_unit_test(test_binary),
        cmocka_unit_test(test_maxpool_ceil_mode),
        cmocka_unit_test(test_avgpool_count_include_pad),
        cmocka_unit_test(test_global_pools_and_errors),
        cmocka_unit_test(test_reduce),
        cmocka_unit_test(test_argmax_cumsum_topk),
        cmocka_unit_test(test_gemm_transb_broadcast_c),
        cmocka_unit_test(test_matmul_broadcast),
        cmocka_unit_test(test_softmax_opsets),
        cmocka_unit_test(test_concat),
        cmocka_unit_test(test_split),
        cmocka_unit_test(test_slice),
        cmocka_unit_test(test_transpose),
        cmocka_unit_test(test_reshape),
        cmocka_unit_test(test_flatten_squeeze_unsqueeze),
        cmocka_unit_test(test_gather),
        cmocka_unit_test(test_scatter_tile_depth_revseq),
        cmocka_unit_test(test_shape_cast_constants),
        cmocka_unit_test(test_range_equal_where_expand),
        cmocka_unit_test(test_size_cast_dropout),
        cmocka_unit_test(test_quantize_linear),
        cmocka_unit_test(test_unknown_op),
        cmocka_unit_test(test_unpool_col2im_roi),
        cmocka_unit_test(test_attention_blocks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
