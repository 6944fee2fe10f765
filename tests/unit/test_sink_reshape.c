/* test_sink_reshape.c - pass sink_reshape (an elementwise node reading a
 * Reshape moves before it, so it can join its producer's epilogue):
 * onnxruntime's MatMulAddFusion shape MatMul -> Reshape -> Add(bias) ->
 * Add(residual of the reshaped shape) -> Gelu becomes MatMul -> Add -> Add
 * -> Gelu -> Reshape, and the rewritten graph, folded, equals
 * gelu(a W + b + r) computed here in double; and the cases it must leave
 * alone (a second reader of the Reshape, an operand that would broadcast
 * differently, a producer with no epilogue, a graph output). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "passes/pass_util.h"
#include "passes/passes.h"
#include "tests/unit/graph_build.h"

static const CodegenOptions GENERIC = {.target = NULL, .threads = 1};

enum { M = 4, K = 6, N = 8 };

static float W[K * N], B[N], R[M * N], A[M * K];

static void fill(void)
{
    for (int i = 0; i < K * N; i++)
        W[i] = (float)((i * 37 % 23) - 11) / 16.0f;
    for (int i = 0; i < N; i++)
        B[i] = (float)(i - 3) / 8.0f;
    for (int i = 0; i < M * N; i++)
        R[i] = (float)((i * 13 % 17) - 8) / 10.0f;
    for (int i = 0; i < M * K; i++)
        A[i] = (float)((i * 29 % 19) - 9) / 12.0f;
}

static int count_live(const Graph *g, const char *op_type)
{
    int n = 0;
    for (int i = 0; i < g->n_nodes; i++)
        n += !g->nodes[i].dead && strcmp(g->nodes[i].op_type, op_type) == 0;
    return n;
}

static int producer_op(const Graph *g, int v, const char *op_type)
{
    int p = g->values[v].producer;
    return p >= 0 && strcmp(g->nodes[p].op_type, op_type) == 0;
}

/* a [M,K] -> MatMul W -> Reshape [1,M,N] -> Add b [N] -> Add r [1,M,N] ->
 * Gelu -> Reshape [M*N] -> y; the nodes ids through the pointers. */
static Graph *ffn(int *a, int *y, int *mm, int *add, int *res, int *gelu, int *flat)
{
    Graph *g = graph_new("t");
    g->opset = 20; /* Gelu */
    int64_t da[2] = {M, K}, dw[2] = {K, N}, db[1] = {N}, dr[3] = {1, M, N}, s3[3] = {1, M, N}, s1[1] = {M * N};
    *a = tb_input(g, "a", 2, da);
    int w = tb_cf(g, "w", 2, dw, W), b = tb_cf(g, "b", 1, db, B), r = tb_cf(g, "r", 3, dr, R);
    int m = graph_add_value(g, "m"), v = graph_add_value(g, "v"), s = graph_add_value(g, "s"),
        t = graph_add_value(g, "t"), u = graph_add_value(g, "u");
    *y = graph_add_value(g, "y");
    *mm = tb_node(g, "MatMul", 2, 1, *a, w, m);
    tb_node(g, "Reshape", 2, 1, m, tb_ci1(g, "s3", 3, s3), v);
    *add = tb_node(g, "Add", 2, 1, v, b, s);
    *res = tb_node(g, "Add", 2, 1, r, s, t);
    *gelu = tb_node(g, "Gelu", 1, 1, t, u);
    *flat = tb_node(g, "Reshape", 2, 1, u, tb_ci1(g, "s1", 1, s1), *y);
    graph_add_output(g, *y);
    return g;
}

static void test_ffn(void **state)
{
    (void)state;
    fill();
    int a, y, mm, add, res, gelu, flat;
    Graph *g = ffn(&a, &y, &mm, &add, &res, &gelu, &flat);
    Diag d = quiet();
    if (pass_infer_fold(g, &GENERIC, &d) != 0)
        fail_msg("%s", d.last);
    assert_int_equal(pass_sink_reshape(g, &d), 0);
    assert_int_equal(pass_infer_fold(g, &GENERIC, &d), 0);
    /* MatMul -> Add -> Add -> Gelu, all [M,N], then the Reshapes */
    int m = -1, gelu_out = -1;
    for (int i = 0; i < g->n_nodes; i++) {
        const Node *n = &g->nodes[i];
        if (n->dead)
            continue;
        if (strcmp(n->op_type, "MatMul") == 0)
            m = n->out[0];
        if (strcmp(n->op_type, "Gelu") == 0)
            gelu_out = n->out[0];
    }
    assert_true(m >= 0 && gelu_out >= 0);
    int c1 = pass_sole_consumer(g, m);
    assert_true(c1 >= 0 && strcmp(g->nodes[c1].op_type, "Add") == 0);
    int c2 = pass_sole_consumer(g, g->nodes[c1].out[0]);
    assert_true(c2 >= 0 && strcmp(g->nodes[c2].op_type, "Add") == 0);
    assert_int_equal(pass_sole_consumer(g, g->nodes[c2].out[0]), g->values[gelu_out].producer);
    assert_int_equal(g->values[gelu_out].shape.rank, 2);
    assert_int_equal(g->values[gelu_out].shape.dims[0], M);
    assert_int_equal(g->values[gelu_out].shape.dims[1], N);
    assert_true(producer_op(g, y, "Reshape"));
    assert_int_equal(g->values[y].shape.rank, 1);
    /* its value: the input made constant and the graph folded */
    g->values[a].data = A;
    assert_int_equal(pass_infer_fold(g, &GENERIC, &d), 0);
    const float *got = g->values[y].data;
    assert_non_null(got);
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            double s = B[j] + R[i * N + j];
            for (int k = 0; k < K; k++)
                s += (double)A[i * K + k] * W[k * N + j];
            double want = 0.5 * s * (1.0 + erf(s / sqrt(2.0)));
            assert_float_equal(got[i * N + j], want, 1e-5 * (1.0 + fabs(want)));
        }
    graph_free(g);
}

/* The graph is built, mutated by `spoil`, then the pass must change nothing. */
static void left_alone(void (*spoil)(Graph *g, int a, int mm, int add, int res, int gelu, int flat))
{
    int a, y, mm, add, res, gelu, flat;
    Graph *g = ffn(&a, &y, &mm, &add, &res, &gelu, &flat);
    Diag d = quiet();
    spoil(g, a, mm, add, res, gelu, flat);
    if (pass_infer_fold(g, &GENERIC, &d) != 0)
        fail_msg("%s", d.last);
    int nodes = g->n_nodes;
    assert_int_equal(pass_sink_reshape(g, &d), 0);
    assert_int_equal(g->n_nodes, nodes);
    assert_int_equal(count_live(g, "Reshape"), 2);
    assert_int_equal(g->values[g->nodes[add].out[0]].shape.rank, 3);
    graph_free(g);
}

static void second_reader(Graph *g, int a, int mm, int add, int res, int gelu, int flat)
{
    (void)a, (void)mm, (void)res, (void)gelu, (void)flat;
    graph_add_output(g, g->nodes[add].in[0]); /* the Reshape's output is also a graph output */
}

static void other_broadcast(Graph *g, int a, int mm, int add, int res, int gelu, int flat)
{
    (void)a, (void)mm, (void)res, (void)gelu, (void)flat;
    /* the reshape goes to [2,2,N]; a bias of [2,1,1] meets the leading 2, which x [4,N] does not have */
    int64_t s3[3] = {2, 2, N}, db[3] = {2, 1, 1};
    float bv[2] = {1.0f, -1.0f};
    int rs = g->values[g->nodes[add].in[0]].producer;
    g->nodes[rs].in[1] = tb_ci1(g, "s223", 3, s3);
    g->nodes[add].in[1] = tb_cf(g, "b221", 3, db, bv);
    g->nodes[res].op = OP_RELU;
    g->nodes[res].op_type = "Relu";
    g->nodes[res].n_in = 1;
    g->nodes[res].in[0] = g->nodes[add].out[0];
}

static void no_epilogue(Graph *g, int a, int mm, int add, int res, int gelu, int flat)
{
    (void)gelu;
    g->nodes[mm].dead = 1; /* the Reshape reads the graph input itself (a [M,K], reshaped to [1,M,N] when K = N) */
    int rs = g->values[g->nodes[add].in[0]].producer;
    int64_t s3[3] = {1, M, K};
    g->nodes[rs].in[0] = a;
    g->nodes[rs].in[1] = tb_ci1(g, "s1mk", 3, s3);
    int64_t db[1] = {K}, dr[3] = {1, M, K};
    g->nodes[add].in[1] = tb_cf(g, "bk", 1, db, B);
    g->nodes[res].in[0] = tb_cf(g, "rk", 3, dr, R);
    int64_t s1[1] = {M * K};
    g->nodes[flat].in[1] = tb_ci1(g, "s1mk1", 1, s1);
}

static void output_value(Graph *g, int a, int mm, int add, int res, int gelu, int flat)
{
    (void)a, (void)mm, (void)res, (void)gelu, (void)flat;
    graph_add_output(g, g->nodes[add].out[0]); /* the Add's own output is a graph output */
}

static void test_left_alone(void **state)
{
    (void)state;
    fill();
    left_alone(second_reader);
    left_alone(other_broadcast);
    left_alone(no_epilogue);
    left_alone(output_value);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ffn),
        cmocka_unit_test(test_left_alone),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
