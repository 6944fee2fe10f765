/* test_passes.c - unit tests of pass_infer_fold, pass_drop_identity,
 * pass_fold_batchnorm, pass_dce, the rewriting passes (lower_conv,
 * pack_matmul, lower_attention, einsum_operands: the rewritten graph's
 * operators and its numbers against the original node evaluated by the
 * reference kernels) and graph_dump on small hand-built graphs:
 * node counts, dead flags and rewired inputs before/after, and, for the
 * BatchNorm folds, the numbers of the rewritten graph against Conv/Gemm
 * followed by BatchNormalization evaluated by the reference kernels. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

#include "ops/ops.h"
#include "ir/target.h"
#include "passes/passes.h"
#include "tests/unit/graph_build.h"

/* scalar C, one thread: constants folded as plain C computes them */
static const CodegenOptions GENERIC = {.target = NULL, .threads = 1};

static int live_nodes(const Graph *g)
{
    int n = 0;
    for (int i = 0; i < g->n_nodes; i++)
        n += !g->nodes[i].dead;
    return n;
}

static int count_op(const Graph *g, OpKind k)
{
    int n = 0;
    for (int i = 0; i < g->n_nodes; i++)
        n += !g->nodes[i].dead && g->nodes[i].op == k;
    return n;
}

static char *dump(const Graph *g)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    graph_dump(g, f);
    fclose(f);
    return buf;
}

static void expect_error(Diag *d, const char *part)
{
    if (!strstr(d->last, part))
        fail_msg("diagnostic '%s' lacks '%s'", d->last, part);
}

/* Evaluate live nodes in order, treating the given runtime input as
 * constant `data`; returns the data of value `out`. */
static const float *eval_all(Graph *g, int input, float *data, int out)
{
    Diag d = quiet();
    g->values[input].data = data;
    for (int i = 0; i < g->n_nodes; i++) {
        if (g->nodes[i].dead)
            continue;
        assert_int_equal(ops_infer(g, i, &d), 0);
        assert_int_equal(ops_eval(g, i, NULL, &d), 1);
    }
    return g->values[out].data;
}

/* ---- infer_fold ---- */

/* x[2,3,4] -> Shape -> Gather(0) -> Unsqueeze -> Concat(., [-1]) -> Reshape(x, .) -> y */
static Graph *shape_chain(int *reshape, int *shape_in, int *y)
{
    Graph *g = tb_graph(13);
    int x = tb_input(g, "x", 3, D3(2, 3, 4));
    int s = graph_add_value(g, "s"), n0 = graph_add_value(g, "n0"), u = graph_add_value(g, "u");
    int shp = graph_add_value(g, "shp");
    *y = graph_add_value(g, "y");
    int zero = tb_ci(g, "zero", 0, NULL, (int64_t[]){0});
    int ax = tb_ci1(g, "ax", 1, (int64_t[]){0});
    int m1 = tb_ci1(g, "m1", 1, (int64_t[]){-1});
    tb_node(g, "Shape", 1, 1, x, s);
    tb_node(g, "Gather", 2, 1, s, zero, n0);
    tb_node(g, "Unsqueeze", 2, 1, n0, ax, u);
    int c = tb_node(g, "Concat", 2, 1, u, m1, shp);
    node_set_int(g, c, "axis", 0);
    *reshape = tb_node(g, "Reshape", 2, 1, x, shp, *y);
    *shape_in = shp;
    graph_add_output(g, *y);
    return g;
}

static void test_infer_fold_shape_chain(void **state)
{
    (void)state;
    Diag d = quiet();
    int r, shp, y;
    Graph *g = shape_chain(&r, &shp, &y);
    assert_int_equal(live_nodes(g), 5);
    assert_int_equal(pass_infer_fold(g, &GENERIC, &d), 0);
    assert_int_equal(live_nodes(g), 1);
    assert_false(g->nodes[r].dead);
    assert_int_equal(g->nodes[r].in[1], shp);
    const Value *sv = &g->values[shp];
    assert_non_null(sv->data);
    assert_int_equal(sv->storage, STORE_CONST);
    assert_int_equal(sv->producer, -1);
    assert_int_equal(((int64_t *)sv->data)[0], 2);
    assert_int_equal(((int64_t *)sv->data)[1], -1);
    assert_int_equal(g->values[y].shape.rank, 2);
    assert_int_equal(g->values[y].shape.dims[1], 12);
    assert_null(g->values[y].data); /* the data input is a runtime value */
    char *text = dump(g);
    assert_non_null(strstr(text, "%y = Reshape(%x, %shp[2]={2,-1}) : float32[2,12]\n"));
    /* safe to run twice */
    assert_int_equal(pass_infer_fold(g, &GENERIC, &d), 0);
    assert_int_equal(live_nodes(g), 1);
    char *again = dump(g);
    assert_string_equal(text, again);
    free(text);
    free(again);
    graph_free(g);
}

static void test_infer_fold_errors(void **state)
{
    (void)state;
    Diag d = quiet();
    Graph *g = tb_graph(13);
    int x = tb_input(g, "x", 2, D2(-1, 3));
    int y = graph_add_value(g, "y");
    tb_node(g, "Relu", 1, 1, x, y);
    graph_add_output(g, y);
    assert_int_equal(pass_infer_fold(g, &GENERIC, &d), -1);
    expect_error(&d, "--input-shapes");
    expect_error(&d, "node 'Relu_0' (Relu)");
    graph_free(g);
}

static void test_infer_fold_keeps_runtime(void **state)
{
    (void)state;
    Diag d = quiet();
    /* Constant -> Add(x, const) : the Constant folds, the Add stays */
    Graph *g = tb_graph(13);
    int x = tb_input(g, "x", 1, (int64_t[]){2});
    int k = graph_add_value(g, "k"), y = graph_add_value(g, "y");
    int kn = tb_node(g, "Constant", 0, 1, k);
    node_set_ints(g, kn, "value_ints", D2(1, 2), 2);
    int c = graph_add_value(g, "c");
    tb_node(g, "Cast", 1, 1, k, c);
    node_set_int(g, g->n_nodes - 1, "to", 1);
    int add = tb_node(g, "Add", 2, 1, x, c, y);
    graph_add_output(g, y);
    assert_int_equal(pass_infer_fold(g, &GENERIC, &d), 0);
    assert_true(g->nodes[kn].dead);
    assert_false(g->nodes[add].dead);
    assert_int_equal(g->values[c].dtype, DT_FLOAT32);
    assert_true(((float *)g->values[c].data)[1] == 2.0f);
    assert_int_equal(g->values[c].n_uses, 1);
    graph_free(g);
}

/* ---- drop_identity ---- */

static void test_identity_inside(void **state)
{
    (void)state;
    Diag d = quiet();
    /* x -> Relu -> r -> Dropout(mask unused) -> m -> Sigmoid -> y */
    Graph *g = tb_graph(13);
    int x = tb_input(g, "x", 1, (int64_t[]){4});
    int r = graph_add_value(g, "r"), m = graph_add_value(g, "m"), mask = graph_add_value(g, "mask");
    int y = graph_add_value(g, "y");
    tb_node(g, "Relu", 1, 1, x, r);
    int dr = tb_node(g, "Dropout", 1, 2, r, m, mask);
    int sg = tb_node(g, "Sigmoid", 1, 1, m, y);
    graph_add_output(g, y);
    assert_int_equal(pass_infer_fold(g, &GENERIC, &d), 0);
    assert_int_equal(pass_drop_identity(g, &d), 0);
    assert_true(g->nodes[dr].dead);
    assert_int_equal(g->nodes[sg].in[0], r);
    assert_int_equal(live_nodes(g), 2);
    assert_int_equal(g->values[r].n_uses, 1);
    graph_free(g);
}

static void test_identity_graph_output(void **state)
{
    (void)state;
    Diag d = quiet();
    /* x -> Relu -> r -> Identity -> y (output); r also -> Sigmoid -> z (output) */
    Graph *g = tb_graph(13);
    int x = tb_input(g, "x", 1, (int64_t[]){4});
    int r = graph_add_value(g, "r"), y = graph_add_value(g, "y"), z = graph_add_value(g, "z");
    int re = tb_node(g, "Relu", 1, 1, x, r);
    int id = tb_node(g, "Identity", 1, 1, r, y);
    int sg = tb_node(g, "Sigmoid", 1, 1, r, z);
    graph_add_output(g, y);
    graph_add_output(g, z);
    assert_int_equal(pass_infer_fold(g, &GENERIC, &d), 0);
    assert_int_equal(pass_drop_identity(g, &d), 0);
    assert_true(g->nodes[id].dead);
    assert_int_equal(g->nodes[re].out[0], y); /* Relu now writes the output */
    assert_int_equal(g->nodes[sg].in[0], y);
    assert_int_equal(g->outputs[0], y);
    assert_int_equal(g->outputs[1], z);
    assert_string_equal(g->values[g->outputs[0]].name, "y");
    assert_int_equal(g->values[y].producer, re);
    assert_int_equal(g->values[y].n_uses, 1);
    graph_free(g);

    /* graph input -> Identity -> output: kept as an Identity copy; a
     * Dropout there becomes Identity with one output */
    g = tb_graph(13);
    x = tb_input(g, "x", 1, (int64_t[]){4});
    y = graph_add_value(g, "y");
    int mask = graph_add_value(g, "mask");
    int dr = tb_node(g, "Dropout", 1, 2, x, y, mask);
    graph_add_output(g, y);
    assert_int_equal(pass_infer_fold(g, &GENERIC, &d), 0);
    assert_int_equal(pass_drop_identity(g, &d), 0);
    assert_false(g->nodes[dr].dead);
    assert_int_equal(g->nodes[dr].op, OP_IDENTITY);
    assert_int_equal(g->nodes[dr].n_out, 1);
    assert_int_equal(g->nodes[dr].in[0], x);
    assert_int_equal(g->outputs[0], y);
    graph_free(g);
}

static void test_dropout_mask_used(void **state)
{
    (void)state;
    Diag d = quiet();
    Graph *g = tb_graph(13);
    int x = tb_input(g, "x", 1, (int64_t[]){4});
    int y = graph_add_value(g, "y"), mask = graph_add_value(g, "mask");
    int dr = tb_node(g, "Dropout", 1, 2, x, y, mask);
    graph_add_output(g, y);
    graph_add_output(g, mask);
    assert_int_equal(pass_infer_fold(g, &GENERIC, &d), 0);
    /* the used mask keeps the node: its definition writes the all-true mask */
    assert_int_equal(pass_drop_identity(g, &d), 0);
    assert_int_equal(g->nodes[dr].op, OP_DROPOUT);
    assert_false(g->nodes[dr].dead);
    graph_free(g);
}

/* ---- fold_batchnorm ---- */

static const float BN_SCALE[3] = {1.5f, -0.5f, 2}, BN_BIAS[3] = {0.1f, 0.2f, -0.3f},
                   BN_MEAN[3] = {0.5f, -1, 0.25f}, BN_VAR[3] = {0.8f, 1.7f, 0.3f};

static int add_bn(Graph *g, int x, int y)
{
    int64_t three = 3;
    int s = tb_cf(g, "bn_s", 1, &three, BN_SCALE), b = tb_cf(g, "bn_b", 1, &three, BN_BIAS);
    int m = tb_cf(g, "bn_m", 1, &three, BN_MEAN), v = tb_cf(g, "bn_v", 1, &three, BN_VAR);
    return tb_node(g, "BatchNormalization", 5, 1, x, s, b, m, v, y);
}

/* x[1,2,5,5] -> Conv(w[3,2,3,3], pads 1, stride 2, [bias]) -> c -> BN -> y */
static Graph *conv_bn(int with_bias, int *xin, int *conv, int *bn, int *y)
{
    Graph *g = tb_graph(13);
    float w[54], b[3] = {0.3f, -0.2f, 0.1f};
    for (int i = 0; i < 54; i++)
        w[i] = (float)((i * 7) % 9 - 4) * 0.125f;
    *xin = tb_input(g, "x", 4, D4(1, 2, 5, 5));
    int wv = tb_cf(g, "w", 4, D4(3, 2, 3, 3), w);
    int64_t three = 3;
    int bv = tb_cf(g, "b", 1, &three, b);
    int c = graph_add_value(g, "c");
    *y = graph_add_value(g, "y");
    *conv = with_bias ? tb_node(g, "Conv", 3, 1, *xin, wv, bv, c) : tb_node(g, "Conv", 2, 1, *xin, wv, c);
    node_set_ints(g, *conv, "pads", D4(1, 1, 1, 1), 4);
    node_set_ints(g, *conv, "strides", D2(2, 2), 2);
    *bn = add_bn(g, c, *y);
    graph_add_output(g, *y);
    return g;
}

static float *input_data(int64_t n)
{
    float *p = malloc((size_t)n * sizeof(float));
    for (int64_t i = 0; i < n; i++)
        p[i] = (float)((i * 5) % 17 - 8) * 0.25f;
    return p;
}

static void test_fold_bn_into_conv(void **state)
{
    (void)state;
    for (int with_bias = 0; with_bias < 2; with_bias++) {
        Diag d = quiet();
        int x, conv, bn, y, x2, conv2, bn2, y2;
        float *xd = input_data(50);
        /* reference: Conv then BatchNormalization, unfolded */
        Graph *ref = conv_bn(with_bias, &x, &conv, &bn, &y);
        const float *want = eval_all(ref, x, xd, y);
        /* folded */
        Graph *g = conv_bn(with_bias, &x2, &conv2, &bn2, &y2);
        assert_int_equal(pass_infer_fold(g, &GENERIC, &d), 0);
        assert_int_equal(pass_fold_batchnorm(g, &d), 0);
        assert_true(g->nodes[bn2].dead);
        assert_int_equal(count_op(g, OP_BATCHNORM), 0);
        assert_int_equal(live_nodes(g), 1);
        assert_int_equal(g->nodes[conv2].n_in, 3);
        assert_int_equal(g->nodes[conv2].out[0], y2);
        assert_int_equal(g->values[y2].producer, conv2);
        assert_non_null(g->values[g->nodes[conv2].in[1]].data);
        assert_int_not_equal(g->nodes[conv2].in[1], graph_find_value(g, "w"));
        const float *got = eval_all(g, x2, xd, y2);
        assert_true(tb_close(got, want, 3 * 3 * 3, 1e-5f));
        /* and the fold really changed the numbers of the conv */
        assert_false(tb_close(got, ref->values[graph_find_value(ref, "c")].data, 27, 1e-3f));
        free(xd);
        graph_free(ref);
        graph_free(g);
    }
}

/* x[2,4] -> Gemm(B[3,4] transB, C[3]) or MatMul(W[4,3]) -> c -> BN -> y */
static Graph *dense_bn(int matmul, int *xin, int *dense, int *bn, int *y)
{
    Graph *g = tb_graph(13);
    float w[12], cb[3] = {0.5f, -1, 0.25f};
    for (int i = 0; i < 12; i++)
        w[i] = (float)((i * 5) % 7 - 3) * 0.5f;
    *xin = tb_input(g, "x", 2, D2(2, 4));
    int64_t three = 3;
    int c = graph_add_value(g, "c");
    *y = graph_add_value(g, "y");
    if (matmul) {
        int wv = tb_cf(g, "w", 2, D2(4, 3), w);
        *dense = tb_node(g, "MatMul", 2, 1, *xin, wv, c);
    } else {
        int wv = tb_cf(g, "w", 2, D2(3, 4), w), cv = tb_cf(g, "cb", 1, &three, cb);
        *dense = tb_node(g, "Gemm", 3, 1, *xin, wv, cv, c);
        node_set_int(g, *dense, "transB", 1);
        node_set_float(g, *dense, "beta", 0.5f);
    }
    *bn = add_bn(g, c, *y);
    graph_add_output(g, *y);
    return g;
}

static void test_fold_bn_into_gemm_and_matmul(void **state)
{
    (void)state;
    for (int matmul = 0; matmul < 2; matmul++) {
        Diag d = quiet();
        int x, dn, bn, y, x2, dn2, bn2, y2;
        float *xd = input_data(8);
        Graph *ref = dense_bn(matmul, &x, &dn, &bn, &y);
        const float *want = eval_all(ref, x, xd, y);
        Graph *g = dense_bn(matmul, &x2, &dn2, &bn2, &y2);
        assert_int_equal(pass_infer_fold(g, &GENERIC, &d), 0);
        assert_int_equal(pass_fold_batchnorm(g, &d), 0);
        assert_true(g->nodes[bn2].dead);
        assert_int_equal(live_nodes(g), 1);
        assert_int_equal(g->nodes[dn2].op, OP_GEMM); /* MatMul became Gemm */
        assert_int_equal(g->nodes[dn2].out[0], y2);
        const float *got = eval_all(g, x2, xd, y2);
        assert_true(tb_close(got, want, 6, 1e-5f));
        free(xd);
        graph_free(ref);
        graph_free(g);
    }
}

static void test_bn_to_mul_add(void **state)
{
    (void)state;
    Diag d = quiet();
    /* conv output used twice: not foldable -> Mul + Add right after the BN's place */
    int x, conv, bn, y, x2, conv2, bn2, y2;
    float *xd = input_data(50);
    Graph *ref = conv_bn(1, &x, &conv, &bn, &y);
    const float *want = eval_all(ref, x, xd, y);
    Graph *g = conv_bn(1, &x2, &conv2, &bn2, &y2);
    int c = g->nodes[conv2].out[0], z = graph_add_value(g, "z");
    int rl = tb_node(g, "Relu", 1, 1, c, z);
    graph_add_output(g, z);
    assert_int_equal(pass_infer_fold(g, &GENERIC, &d), 0);
    assert_int_equal(pass_fold_batchnorm(g, &d), 0);
    assert_int_equal(count_op(g, OP_BATCHNORM), 0);
    assert_int_equal(live_nodes(g), 4);
    const Node *mul = &g->nodes[bn2], *add = &g->nodes[bn2 + 1];
    assert_int_equal(mul->op, OP_MUL);
    assert_int_equal(add->op, OP_ADD);
    assert_int_equal(mul->in[0], c);
    assert_int_equal(add->in[0], mul->out[0]);
    assert_int_equal(add->out[0], y2);
    assert_int_equal(g->nodes[bn2 + 2].op, OP_RELU); /* shifted up by the insertion */
    assert_int_equal(g->nodes[bn2 + 2].in[0], c);
    const Value *sc = &g->values[mul->in[1]];
    assert_int_equal(sc->shape.rank, 3);
    assert_int_equal(sc->shape.dims[0], 3);
    assert_int_equal(sc->shape.dims[1], 1);
    assert_int_equal(g->values[y2].producer, bn2 + 1);
    (void)rl;
    const float *got = eval_all(g, x2, xd, y2);
    assert_true(tb_close(got, want, 27, 1e-5f));
    free(xd);
    graph_free(ref);
    graph_free(g);
}

static void test_bn_training_mode(void **state)
{
    (void)state;
    Diag d = quiet();
    Graph *g = tb_graph(13);
    int x = tb_input(g, "x", 4, D4(1, 3, 2, 2));
    int y = graph_add_value(g, "y"), rm = graph_add_value(g, "rm"), rv = graph_add_value(g, "rv");
    int bn = add_bn(g, x, y);
    int ins[5], outs[3] = {y, rm, rv};
    memcpy(ins, g->nodes[bn].in, sizeof ins);
    g->nodes[bn].dead = 1;
    graph_add_node(g, "BatchNormalization", NULL, 5, ins, 3, outs);
    graph_add_output(g, y);
    graph_add_output(g, rm);
    assert_int_equal(pass_infer_fold(g, &GENERIC, &d), 0);
    /* a BN whose running statistics are used stays for its own kernel */
    assert_int_equal(pass_fold_batchnorm(g, &d), 0);
    int live = 0;
    for (int i = 0; i < g->n_nodes; i++)
        live += !g->nodes[i].dead && g->nodes[i].op == OP_BATCHNORM;
    assert_int_equal(live, 1);
    assert_int_equal(g->nodes[g->n_nodes - 1].at.bn.training, 1);
    graph_free(g);
}

/* ---- dce ---- */

static void test_dce(void **state)
{
    (void)state;
    Diag d = quiet();
    Graph *g = tb_graph(13);
    int x = tb_input(g, "x", 1, (int64_t[]){4});
    int a = graph_add_value(g, "a"), b = graph_add_value(g, "b"), c = graph_add_value(g, "c");
    int e = graph_add_value(g, "e");
    int k = tb_cf(g, "k", 1, (int64_t[]){4}, (float[]){1, 2, 3, 4});
    int n_relu = tb_node(g, "Relu", 1, 1, x, a);
    int n_sig = tb_node(g, "Sigmoid", 1, 1, x, b);
    int n_add = tb_node(g, "Add", 2, 1, b, k, c);
    int n_exp = tb_node(g, "Exp", 1, 1, a, e); /* feeds the output via ... nothing */
    graph_add_output(g, a);
    assert_int_equal(pass_infer_fold(g, &GENERIC, &d), 0);
    assert_int_equal(pass_dce(g, &d), 0);
    assert_false(g->nodes[n_relu].dead);
    assert_true(g->nodes[n_sig].dead);
    assert_true(g->nodes[n_add].dead);
    assert_true(g->nodes[n_exp].dead);
    assert_int_equal(g->values[x].n_uses, 1);
    assert_int_equal(g->values[k].n_uses, 0);
    assert_int_equal(g->values[k].storage, STORE_NONE);
    (void)c;
    graph_free(g);
}

/* ---- graph_dump ---- */

static void test_graph_dump_text(void **state)
{
    (void)state;
    Diag d = quiet();
    Graph *g = tb_graph(13);
    g->name = "tiny";
    int x = tb_input(g, "x", 4, D4(1, 1, 4, 4));
    int w = tb_cf(g, "w", 4, D4(2, 1, 3, 3), NULL);
    int c = graph_add_value(g, "c"), y = graph_add_value(g, "y");
    int n = tb_node(g, "Conv", 3, 1, x, w, -1, c);
    node_set_ints(g, n, "pads", D4(1, 1, 1, 1), 4);
    tb_node(g, "Relu", 1, 1, c, y);
    graph_add_output(g, y);
    assert_int_equal(pass_infer_fold(g, &GENERIC, &d), 0);
    char *text = dump(g);
    const char *want =
        "graph \"tiny\" opset 13\n"
        "input %x : float32[1,1,4,4]\n"
        "%c = Conv(%x, %w[2,1,3,3], _) {dilations=[1,1], group=1, kernel_shape=[3,3], "
        "pads=[1,1,1,1], strides=[1,1]} : float32[1,2,4,4]\n"
        "%y = Relu(%c) : float32[1,2,4,4]\n"
        "output %y : float32[1,2,4,4]\n";
    assert_string_equal(text, want);
    free(text);
    graph_free(g);
}


/* ---- layout ---- */

/* x[1,5,9,11] -> Conv 3x3 pad 1 (+b) -> Relu -> r; r -> Conv 1x1 -> Add(., r) -> y;
 * r -> depthwise Conv 3x3 stride 2 pad 1 -> y2 */
static Graph *blocky(int *x, int *y, int *y2)
{
    Graph *g = tb_graph(13);
    *x = tb_input(g, "x", 4, D4(1, 5, 9, 11));
    float w1[20 * 5 * 9], b1[20], w2[20 * 20], w3[20 * 9];
    for (int i = 0; i < 20 * 5 * 9; i++) w1[i] = (float)((i * 7) % 13 - 6) * 0.05f;
    for (int i = 0; i < 20; i++) b1[i] = (float)(i % 5) * 0.1f - 0.2f;
    for (int i = 0; i < 400; i++) w2[i] = (float)((i * 3) % 11 - 5) * 0.03f;
    for (int i = 0; i < 180; i++) w3[i] = (float)((i * 5) % 7 - 3) * 0.1f;
    int cw1 = tb_cf(g, "w1", 4, D4(20, 5, 3, 3), w1), cb1 = tb_cf(g, "b1", 1, (int64_t[]){20}, b1);
    int cw2 = tb_cf(g, "w2", 4, D4(20, 20, 1, 1), w2), cw3 = tb_cf(g, "w3", 4, D4(20, 1, 3, 3), w3);
    int c1 = graph_add_value(g, "c1"), r = graph_add_value(g, "r"), c2 = graph_add_value(g, "c2");
    *y = graph_add_value(g, "y");
    *y2 = graph_add_value(g, "y2");
    int n1 = tb_node(g, "Conv", 3, 1, *x, cw1, cb1, c1);
    node_set_ints(g, n1, "pads", D4(1, 1, 1, 1), 4);
    tb_node(g, "Relu", 1, 1, c1, r);
    tb_node(g, "Conv", 2, 1, r, cw2, c2);
    tb_node(g, "Add", 2, 1, c2, r, *y);
    int n3 = tb_node(g, "Conv", 2, 1, r, cw3, *y2);
    node_set_ints(g, n3, "pads", D4(1, 1, 1, 1), 4);
    node_set_ints(g, n3, "strides", D2(2, 2), 2);
    node_set_int(g, n3, "group", 20);
    graph_add_output(g, *y);
    graph_add_output(g, *y2);
    return g;
}

static void test_layout_blocked_matches(void **state)
{
    (void)state;
    const char *targets[] = {"x86_64-avx512", "x86_64-sse4", "generic"};
    for (int t = 0; t < 3; t++) {
        Diag d = quiet();
        int x, y, y2, gx, gy, gy2;
        float *xd = input_data(5 * 9 * 11);
        Graph *ref = blocky(&x, &y, &y2);
        const float *want = eval_all(ref, x, xd, y), *want2 = ref->values[y2].data;
        Graph *g = blocky(&gx, &gy, &gy2);
        CodegenOptions cg = {.target = target_find(targets[t]), .threads = 1};
        assert_int_equal(pass_infer_fold(g, &cg, &d), 0);
        assert_int_equal(pass_layout(g, &cg, &d), 0);
        assert_int_equal(count_op(g, OP_CONV), 0);
        assert_int_equal(count_op(g, OP_CONV_NCHWC), 3);
        assert_int_equal(count_op(g, OP_PADHW), 1);  /* depthwise pads in the kernel */
        assert_int_equal(count_op(g, OP_PACK), 0);   /* the depthwise conv reads r's twin */
        if (cg.target->vl > 1)
            assert_int_equal(count_op(g, OP_UNPACK), 2); /* one per graph output */
        /* the Relu and the residual Add run blocked */
        for (int i = 0; i < g->n_nodes; i++)
            if (g->nodes[i].op == OP_RELU || g->nodes[i].op == OP_ADD)
                assert_int_equal(g->values[g->nodes[i].out[0]].shape.rank, 5);
        const float *got = eval_all(g, gx, xd, gy);
        assert_true(tb_close(got, want, 20 * 9 * 11, 1e-5f));
        assert_true(tb_close(g->values[gy2].data, want2, 20 * 5 * 6, 1e-5f));
        free(xd);
        graph_free(ref);
        graph_free(g);
    }
}

/* ---- the rewriting passes: same numbers as the node they replace ---- */

typedef Graph *(*BuildFn)(int *x, int *y);
/* a pass of either kind (passes/passes.h) */
#define PASS(f) ((PassInfo){#f, f, NULL})
#define PASS_FOR(f) ((PassInfo){#f, NULL, f})

/* Builds the graph twice; evaluates the original, rewrites the copy (infer,
 * pass, infer) for `target`, checks op `want` appears `count` times
 * (count < 0: any) and the numbers match. Returns the rewritten graph. */
static Graph *rewrite_matches(BuildFn build, PassInfo pass, const char *target, OpKind want, int count, int64_t nx,
                              int64_t ny, float tol)
{
    Diag d = quiet();
    int x, y, gx, gy;
    float *xd = input_data(nx);
    Graph *ref = build(&x, &y);
    const float *ref_out = eval_all(ref, x, xd, y);
    float *want_out = malloc((size_t)ny * sizeof(float));
    memcpy(want_out, ref_out, (size_t)ny * sizeof(float));
    Graph *g = build(&gx, &gy);
    CodegenOptions cg = {.target = target_find(target), .threads = 1};
    assert_int_equal(pass_infer_fold(g, &cg, &d), 0);
    assert_int_equal(pass_run(&pass, g, &cg, &d), 0);
    assert_int_equal(pass_infer_fold(g, &cg, &d), 0);
    if (count >= 0)
        assert_int_equal(count_op(g, want), count);
    const float *got = eval_all(g, gx, xd, gy);
    assert_true(tb_close(got, want_out, ny, tol));
    free(want_out);
    free(xd);
    graph_free(ref);
    return g;
}

static float *ramp(int64_t n, float scale)
{
    float *p = malloc((size_t)n * sizeof(float));
    for (int64_t i = 0; i < n; i++)
        p[i] = (float)((i * 7) % 13 - 6) * scale;
    return p;
}

static Graph *conv1d_graph(int *x, int *y)
{
    Graph *g = tb_graph(13);
    *x = tb_input(g, "x", 3, D3(2, 3, 10));
    float *w = ramp(4 * 3 * 3, 0.1f);
    int wv = tb_cf(g, "w", 3, D3(4, 3, 3), w);
    free(w);
    *y = graph_add_value(g, "y");
    int c = tb_node(g, "Conv", 2, 1, *x, wv, *y);
    node_set_ints(g, c, "pads", (int64_t[]){1, 2}, 2);
    node_set_ints(g, c, "strides", (int64_t[]){2}, 1);
    graph_add_output(g, *y);
    return g;
}

static Graph *conv3d_graph(int *x, int *y)
{
    Graph *g = tb_graph(13);
    *x = tb_input(g, "x", 5, (int64_t[]){1, 4, 5, 6, 6});
    float *w = ramp(6 * 2 * 3 * 2 * 3, 0.1f);
    int wv = tb_cf(g, "w", 5, (int64_t[]){6, 2, 3, 2, 3}, w);
    free(w);
    *y = graph_add_value(g, "y");
    int c = tb_node(g, "Conv", 2, 1, *x, wv, *y);
    node_set_int(g, c, "group", 2);
    node_set_ints(g, c, "pads", (int64_t[]){1, 0, 1, 1, 1, 0}, 6);
    node_set_ints(g, c, "strides", (int64_t[]){2, 1, 1}, 3);
    node_set_ints(g, c, "dilations", (int64_t[]){1, 2, 1}, 3);
    graph_add_output(g, *y);
    return g;
}

static Graph *convtranspose_graph(int *x, int *y)
{
    Graph *g = tb_graph(13);
    *x = tb_input(g, "x", 4, D4(1, 4, 4, 5));
    float *w = ramp(4 * 3 * 3 * 3, 0.1f), b[6] = {0.5f, -0.5f, 0.25f, 1, 2, 3};
    int wv = tb_cf(g, "w", 4, D4(4, 3, 3, 3), w), bv = tb_cf(g, "b", 1, (int64_t[]){6}, b);
    free(w);
    *y = graph_add_value(g, "y");
    int c = tb_node(g, "ConvTranspose", 3, 1, *x, wv, bv, *y);
    node_set_int(g, c, "group", 2);
    node_set_ints(g, c, "pads", (int64_t[]){1, 0, 1, 1}, 4);
    node_set_ints(g, c, "strides", (int64_t[]){2, 3}, 2);
    node_set_ints(g, c, "output_padding", (int64_t[]){1, 0}, 2);
    graph_add_output(g, *y);
    return g;
}

static void test_lower_conv(void **state)
{
    (void)state;
    /* 1-D: one 2-D Conv (blocked later by pass layout) between views */
    Graph *g = rewrite_matches(conv1d_graph, PASS(pass_lower_conv), "generic", OP_CONV, 1, 2 * 3 * 10, 2 * 4 * 5, 1e-5f);
    for (int i = 0; i < g->n_nodes; i++)
        if (!g->nodes[i].dead && g->nodes[i].op == OP_CONV)
            assert_int_equal(g->values[g->nodes[i].out[0]].shape.rank, 4);
    graph_free(g);
    /* 3-D with groups, depth stride and pads: depth taps as channels */
    g = rewrite_matches(conv3d_graph, PASS(pass_lower_conv), "generic", OP_GATHER, 1, 4 * 5 * 6 * 6, 6 * 3 * 7 * 4, 1e-5f);
    assert_int_equal(count_op(g, OP_CONV), 1);
    graph_free(g);
    /* ConvTranspose with groups, output_padding and a bias: MatMul + Col2Im + Add */
    g = rewrite_matches(convtranspose_graph, PASS(pass_lower_conv), "generic", OP_COL2IM, 1, 4 * 4 * 5, 6 * 8 * 13, 1e-5f);
    assert_int_equal(count_op(g, OP_CONVTRANSPOSE), 0);
    assert_int_equal(count_op(g, OP_MATMUL), 1);
    graph_free(g);
}

/* x [2, 33, 64] viewed as [66, 64] times a constant B [N, 64] (transB),
 * alpha 0.5, plus beta 2 times a constant C [N] */
static Graph *gemm_graph(int *x, int *y, int N)
{
    Graph *g = tb_graph(13);
    *x = tb_input(g, "x", 3, D3(2, 33, 64));
    float *w = ramp(64 * N, 0.05f), c[128];
    for (int i = 0; i < N; i++)
        c[i] = (float)i * 0.01f;
    int wv = tb_cf(g, "w", 2, (int64_t[]){N, 64}, w), cv = tb_cf(g, "c", 1, (int64_t[]){N}, c);
    free(w);
    int x2 = graph_add_value(g, "x2");
    tb_node(g, "Reshape", 2, 1, *x, tb_ci1(g, "s", 2, (int64_t[]){66, 64}), x2);
    *y = graph_add_value(g, "y");
    int n = tb_node(g, "Gemm", 3, 1, x2, wv, cv, *y);
    node_set_int(g, n, "transB", 1);
    node_set_float(g, n, "alpha", 0.5f);
    node_set_float(g, n, "beta", 2.0f);
    graph_add_output(g, *y);
    return g;
}

static Graph *dense_graph(int *x, int *y)
{
    return gemm_graph(x, y, 128);
}

/* N = 100, off AVX2's 16-column panels */
static Graph *dense_ragged_graph(int *x, int *y)
{
    return gemm_graph(x, y, 100);
}

/* MatMul, bias Add, Relu and a scale: the elementwise tail moves onto the
 * panels' Transpose (before the final view) */
static Graph *dense_tail_graph(int *x, int *y)
{
    Graph *g = tb_graph(13);
    *x = tb_input(g, "x", 3, D3(2, 33, 64));
    float *w = ramp(64 * 128, 0.05f), c[128], half = 0.5f;
    for (int i = 0; i < 128; i++)
        c[i] = (float)(i % 9) * 0.1f - 0.4f;
    int wv = tb_cf(g, "w", 2, (int64_t[]){64, 128}, w), cv = tb_cf(g, "c", 1, (int64_t[]){128}, c);
    free(w);
    int m = graph_add_value(g, "m"), a = graph_add_value(g, "a"), r = graph_add_value(g, "r");
    tb_node(g, "MatMul", 2, 1, *x, wv, m);
    tb_node(g, "Add", 2, 1, m, cv, a);
    tb_node(g, "Relu", 1, 1, a, r);
    *y = graph_add_value(g, "y");
    tb_node(g, "Mul", 2, 1, r, graph_add_const(g, "half", DT_FLOAT32, shape_make(0, NULL), &half), *y);
    graph_add_output(g, *y);
    return g;
}

/* A batched MatMul [2, 33, 64] x [64, 100] and a Relu after it */
static Graph *dense_ragged_tail_graph(int *x, int *y)
{
    Graph *g = tb_graph(13);
    *x = tb_input(g, "x", 3, D3(2, 33, 64));
    float *w = ramp(64 * 100, 0.05f);
    int wv = tb_cf(g, "w", 2, (int64_t[]){64, 100}, w);
    free(w);
    int m = graph_add_value(g, "m");
    tb_node(g, "MatMul", 2, 1, *x, wv, m);
    *y = graph_add_value(g, "y");
    tb_node(g, "Relu", 1, 1, m, *y);
    graph_add_output(g, *y);
    return g;
}

/* x [1, 4096] times a constant B [4096, 4160] of 68 MB: more than pack_matmul
 * stores as one constant (PACK_PART_BYTES, 64 MB) */
static Graph *dense_big_graph(int *x, int *y)
{
    Graph *g = tb_graph(13);
    *x = tb_input(g, "x", 2, (int64_t[]){1, 4096});
    float *w = ramp((int64_t)4096 * 4160, 0.002f);
    int wv = tb_cf(g, "w", 2, (int64_t[]){4096, 4160}, w);
    free(w);
    *y = graph_add_value(g, "y");
    tb_node(g, "MatMul", 2, 1, *x, wv, *y);
    graph_add_output(g, *y);
    return g;
}

static void test_pack_matmul(void **state)
{
    (void)state;
    /* AVX2: panels of 16 columns, a MatMul into [8, 66, 16] and a Transpose */
    Graph *g = rewrite_matches(dense_graph, PASS_FOR(pass_pack_matmul), "x86_64-avx2", OP_TRANSPOSE, 1, 2 * 33 * 64, 66 * 128,
                               1e-4f);
    assert_int_equal(count_op(g, OP_GEMM), 0);
    for (int i = 0; i < g->n_nodes; i++)
        if (!g->nodes[i].dead && g->nodes[i].op == OP_MATMUL)
            assert_int_equal(g->values[g->nodes[i].out[0]].shape.dims[2], 16);
    graph_free(g);
    /* the bias, Relu and scale run on the [66, 8, 16] rows, then one view */
    g = rewrite_matches(dense_tail_graph, PASS_FOR(pass_pack_matmul), "x86_64-avx2", OP_TRANSPOSE, 1, 2 * 33 * 64, 66 * 128,
                        1e-4f);
    for (int i = 0; i < g->n_nodes; i++) {
        const Node *n = &g->nodes[i];
        if (!n->dead && (n->op == OP_ADD || n->op == OP_RELU || n->op == OP_MUL))
            assert_int_equal(g->values[n->out[0]].shape.dims[2], 16);
    }
    assert_int_equal(count_op(g, OP_ADD) + count_op(g, OP_RELU) + count_op(g, OP_MUL), 3);
    graph_free(g);
    /* N = 100: 7 panels, the last with 12 zero columns, and a Slice back to
       100 columns (before the bias Add, or the Relu) */
    g = rewrite_matches(dense_ragged_graph, PASS_FOR(pass_pack_matmul), "x86_64-avx2", OP_SLICE, 1, 2 * 33 * 64, 66 * 100, 1e-4f);
    for (int i = 0; i < g->n_nodes; i++)
        if (!g->nodes[i].dead && g->nodes[i].op == OP_MATMUL) {
            const Shape *ps = &g->values[g->nodes[i].out[0]].shape;
            assert_int_equal(ps->dims[0], 7);
            assert_int_equal(ps->dims[2], 16);
        }
    graph_free(g);
    g = rewrite_matches(dense_ragged_tail_graph, PASS_FOR(pass_pack_matmul), "x86_64-avx2", OP_SLICE, 1, 2 * 33 * 64,
                        66 * 100, 1e-4f);
    graph_free(g);
    /* B of 68 MB: two constants of whole panels (AVX2: 260 panels of 16
       columns, 64 MB hold 256), two MatMuls joined by a Concat */
    g = rewrite_matches(dense_big_graph, PASS_FOR(pass_pack_matmul), "x86_64-avx2", OP_CONCAT, 1, 4096, 4160, 1e-4f);
    int parts = 0;
    for (int i = 0; i < g->n_nodes; i++)
        if (!g->nodes[i].dead && g->nodes[i].op == OP_MATMUL) {
            const Value *b = &g->values[g->nodes[i].in[1]];
            assert_true(b->data != NULL && b->shape.rank == 3 && b->shape.dims[1] == 4096);
            assert_true(b->shape.dims[0] * 4096 * 16 * 4 <= (64 << 20));
            parts += (int)b->shape.dims[0];
        }
    assert_int_equal(parts, 260);
    graph_free(g);
    /* scalar targets keep the Gemm */
    g = rewrite_matches(dense_graph, PASS_FOR(pass_pack_matmul), "generic", OP_GEMM, 1, 2 * 33 * 64, 66 * 128, 1e-4f);
    graph_free(g);
}

static int tb_scalar(Graph *g, const char *name, float v)
{
    return graph_add_const(g, name, DT_FLOAT32, shape_make(0, NULL), &v);
}

/* y = (x - mean) / sqrt(mean((x - mean)^2) + eps) * gamma + beta over the
 * last axis, as torch.onnx writes it below opset 17; `square` picks
 * Pow(d, 2) or Mul(d, d) */
static Graph *layernorm_graph_sq(int *x, int *y, int square_by_mul)
{
    Graph *g = tb_graph(13);
    *x = tb_input(g, "x", 3, D3(2, 3, 20));
    float gm[20], bt[20];
    for (int i = 0; i < 20; i++) {
        gm[i] = 0.5f + 0.1f * (float)i;
        bt[i] = 0.05f * (float)(i % 7) - 0.1f;
    }
    int m = graph_add_value(g, "m"), d = graph_add_value(g, "d"), p = graph_add_value(g, "p");
    int v = graph_add_value(g, "v"), a = graph_add_value(g, "a"), s = graph_add_value(g, "s");
    int q = graph_add_value(g, "q"), r = graph_add_value(g, "r");
    node_set_ints(g, tb_node(g, "ReduceMean", 1, 1, *x, m), "axes", (int64_t[]){-1}, 1);
    tb_node(g, "Sub", 2, 1, *x, m, d);
    if (square_by_mul)
        tb_node(g, "Mul", 2, 1, d, d, p);
    else
        tb_node(g, "Pow", 2, 1, d, tb_scalar(g, "two", 2.0f), p);
    node_set_ints(g, tb_node(g, "ReduceMean", 1, 1, p, v), "axes", (int64_t[]){2}, 1);
    tb_node(g, "Add", 2, 1, v, tb_scalar(g, "eps", 1e-5f), a);
    tb_node(g, "Sqrt", 1, 1, a, s);
    tb_node(g, "Div", 2, 1, d, s, q);
    tb_node(g, "Mul", 2, 1, q, tb_cf(g, "gamma", 1, (int64_t[]){20}, gm), r);
    *y = graph_add_value(g, "y");
    tb_node(g, "Add", 2, 1, tb_cf(g, "beta", 1, (int64_t[]){20}, bt), r, *y);
    graph_add_output(g, *y);
    return g;
}

static Graph *layernorm_pow_graph(int *x, int *y) { return layernorm_graph_sq(x, y, 0); }
static Graph *layernorm_mul_graph(int *x, int *y) { return layernorm_graph_sq(x, y, 1); }

/* the same with the mean also read elsewhere: not a LayerNorm any more */
static Graph *layernorm_shared_graph(int *x, int *y)
{
    Graph *g = layernorm_graph_sq(x, y, 0);
    int m = graph_find_value(g, "m"), z = graph_add_value(g, "z");
    tb_node(g, "Neg", 1, 1, m, z);
    graph_add_output(g, z);
    return g;
}

static void test_match_layernorm(void **state)
{
    (void)state;
    Graph *g = rewrite_matches(layernorm_pow_graph, PASS(pass_match_layernorm), "generic", OP_LAYERNORM, 1, 120, 120, 1e-5f);
    assert_int_equal(count_op(g, OP_REDUCEMEAN) + count_op(g, OP_SQRT) + count_op(g, OP_DIV), 0);
    graph_free(g);
    g = rewrite_matches(layernorm_mul_graph, PASS(pass_match_layernorm), "generic", OP_LAYERNORM, 1, 120, 120, 1e-5f);
    graph_free(g);
    g = rewrite_matches(layernorm_shared_graph, PASS(pass_match_layernorm), "generic", OP_LAYERNORM, 0, 120, 120, 1e-5f);
    graph_free(g);
}

/* GELU written out: erf form as x*0.5*(1+erf(x/sqrt2)) and (x*(1+erf(x*(1/sqrt2))))*0.5, tanh form with x*x*x */
static Graph *gelu_graph_form(int *x, int *y, int form)
{
    Graph *g = tb_graph(13);
    *x = tb_input(g, "x", 2, (int64_t[]){4, 30});
    int u = graph_add_value(g, "u"), e = graph_add_value(g, "e"), a = graph_add_value(g, "a");
    int h = graph_add_value(g, "h");
    *y = graph_add_value(g, "y");
    if (form == 2) {
        int sq = graph_add_value(g, "sq"), cu = graph_add_value(g, "cu"), c3 = graph_add_value(g, "c3");
        int in = graph_add_value(g, "in");
        tb_node(g, "Mul", 2, 1, *x, *x, sq);
        tb_node(g, "Mul", 2, 1, *x, sq, cu);
        tb_node(g, "Mul", 2, 1, tb_scalar(g, "k", 0.044715f), cu, c3);
        tb_node(g, "Add", 2, 1, *x, c3, in);
        tb_node(g, "Mul", 2, 1, tb_scalar(g, "r2pi", 0.7978845608f), in, u);
        tb_node(g, "Tanh", 1, 1, u, e);
    } else {
        if (form == 0)
            tb_node(g, "Div", 2, 1, *x, tb_scalar(g, "sqrt2", 1.4142135f), u);
        else
            tb_node(g, "Mul", 2, 1, *x, tb_scalar(g, "isqrt2", 0.70710678f), u);
        tb_node(g, "Erf", 1, 1, u, e);
    }
    tb_node(g, "Add", 2, 1, e, tb_scalar(g, "one", 1.0f), a);
    if (form == 0) {
        tb_node(g, "Mul", 2, 1, *x, tb_scalar(g, "half", 0.5f), h);
        tb_node(g, "Mul", 2, 1, h, a, *y);
    } else {
        tb_node(g, "Mul", 2, 1, *x, a, h);
        tb_node(g, "Mul", 2, 1, h, tb_scalar(g, "half", 0.5f), *y);
    }
    graph_add_output(g, *y);
    return g;
}

static Graph *gelu_erf_graph(int *x, int *y) { return gelu_graph_form(x, y, 0); }
static Graph *gelu_erf2_graph(int *x, int *y) { return gelu_graph_form(x, y, 1); }
static Graph *gelu_tanh_graph(int *x, int *y) { return gelu_graph_form(x, y, 2); }

static void test_match_gelu(void **state)
{
    (void)state;
    Graph *g = rewrite_matches(gelu_erf_graph, PASS(pass_match_gelu), "generic", OP_GELU, 1, 120, 120, 1e-6f);
    assert_int_equal(count_op(g, OP_ERF) + count_op(g, OP_MUL), 0);
    graph_free(g);
    g = rewrite_matches(gelu_erf2_graph, PASS(pass_match_gelu), "generic", OP_GELU, 1, 120, 120, 1e-6f);
    graph_free(g);
    g = rewrite_matches(gelu_tanh_graph, PASS(pass_match_gelu), "generic", OP_GELU, 1, 120, 120, 1e-6f);
    for (int i = 0; i < g->n_nodes; i++)
        if (!g->nodes[i].dead && g->nodes[i].op == OP_GELU)
            assert_string_equal(attr_string(&g->nodes[i], "approximate", ""), "tanh");
    assert_int_equal(count_op(g, OP_TANH) + count_op(g, OP_MUL), 0);
    graph_free(g);
}

/* a 3x3 convolution with dilation 4 and pads 4 on a 3x3 map: only the centre
 * tap ever reads the input; dilation 2 and pads 2 on 5x5: every tap does */
static Graph *conv_pad_only_graph_d(int *x, int *y, int dil, int hw)
{
    Graph *g = tb_graph(13);
    *x = tb_input(g, "x", 4, D4(1, 2, hw, hw));
    float *w = ramp(3 * 2 * 3 * 3, 0.1f), b[3] = {0.5f, -0.25f, 1.0f};
    int wv = tb_cf(g, "w", 4, D4(3, 2, 3, 3), w), bv = tb_cf(g, "b", 1, (int64_t[]){3}, b);
    free(w);
    *y = graph_add_value(g, "y");
    int c = tb_node(g, "Conv", 3, 1, *x, wv, bv, *y);
    node_set_ints(g, c, "pads", (int64_t[]){dil, dil, dil, dil}, 4);
    node_set_ints(g, c, "dilations", (int64_t[]){dil, dil}, 2);
    graph_add_output(g, *y);
    return g;
}

static Graph *conv_centre_only_graph(int *x, int *y) { return conv_pad_only_graph_d(x, y, 4, 3); }
static Graph *conv_all_taps_graph(int *x, int *y) { return conv_pad_only_graph_d(x, y, 2, 5); }

static void test_crop_conv_taps(void **state)
{
    (void)state;
    Graph *g = rewrite_matches(conv_centre_only_graph, PASS(pass_crop_conv_taps), "generic", OP_CONV, 1, 2 * 3 * 3, 3 * 3 * 3,
                               1e-6f);
    for (int i = 0; i < g->n_nodes; i++)
        if (!g->nodes[i].dead && g->nodes[i].op == OP_CONV) {
            int nk = 0, np = 0;
            const int64_t *k = attr_ints(&g->nodes[i], "kernel_shape", &nk), *p = attr_ints(&g->nodes[i], "pads", &np);
            assert_int_equal(k[0] * k[1], 1);
            assert_int_equal(p[0] + p[1] + p[2] + p[3], 0);
        }
    graph_free(g);
    g = rewrite_matches(conv_all_taps_graph, PASS(pass_crop_conv_taps), "generic", OP_CONV, 1, 2 * 5 * 5, 3 * 5 * 5, 1e-6f);
    for (int i = 0; i < g->n_nodes; i++)
        if (!g->nodes[i].dead && g->nodes[i].op == OP_CONV) {
            int nk = 0;
            assert_int_equal(attr_ints(&g->nodes[i], "kernel_shape", &nk)[0], 3);
        }
    graph_free(g);
}

/* linear half_pixel 2x (both axes) and cubic asymmetric 3x along W only */
static Graph *resize_graph_mode(int *x, int *y, int cubic)
{
    Graph *g = tb_graph(13);
    *x = tb_input(g, "x", 4, D4(1, 3, 5, 6));
    float sc[4] = {1, 1, cubic ? 1.0f : 2.0f, cubic ? 3.0f : 2.0f};
    int scv = tb_cf(g, "scales", 1, (int64_t[]){4}, sc);
    int roi = tb_cf(g, "roi", 1, (int64_t[]){0}, sc);
    *y = graph_add_value(g, "y");
    int r = tb_node(g, "Resize", 3, 1, *x, roi, scv, *y);
    node_set_string(g, r, "mode", cubic ? "cubic" : "linear");
    if (cubic)
        node_set_string(g, r, "coordinate_transformation_mode", "asymmetric");
    graph_add_output(g, *y);
    return g;
}

static Graph *resize_linear_graph(int *x, int *y) { return resize_graph_mode(x, y, 0); }
static Graph *resize_cubic_graph(int *x, int *y) { return resize_graph_mode(x, y, 1); }

static void test_lower_resize(void **state)
{
    (void)state;
    Graph *g = rewrite_matches(resize_linear_graph, PASS(pass_lower_resize), "generic", OP_MATMUL, 2, 3 * 5 * 6, 3 * 10 * 12,
                               1e-5f);
    assert_int_equal(count_op(g, OP_RESIZE), 0);
    graph_free(g);
    g = rewrite_matches(resize_cubic_graph, PASS(pass_lower_resize), "generic", OP_MATMUL, 1, 3 * 5 * 6, 3 * 5 * 18, 1e-5f);
    graph_free(g);
}

/* y = Conv(Pad(x, zeros on H and W)) * Sigmoid(...): the Pad folds into the
 * Conv's pads and the swish becomes one Swish */
static Graph *pad_conv_swish_graph(int *x, int *y)
{
    Graph *g = tb_graph(13);
    *x = tb_input(g, "x", 4, D4(1, 2, 5, 6));
    float *w = ramp(3 * 2 * 3 * 3, 0.1f);
    int wv = tb_cf(g, "w", 4, D4(3, 2, 3, 3), w);
    free(w);
    int p = graph_add_value(g, "p"), c = graph_add_value(g, "c"), sg = graph_add_value(g, "sg");
    tb_node(g, "Pad", 2, 1, *x, tb_ci1(g, "pads", 8, (int64_t[]){0, 0, 0, 1, 0, 0, 2, 1}), p);
    int cv = tb_node(g, "Conv", 2, 1, p, wv, c);
    node_set_ints(g, cv, "strides", (int64_t[]){2, 2}, 2);
    tb_node(g, "Sigmoid", 1, 1, c, sg);
    *y = graph_add_value(g, "y");
    tb_node(g, "Mul", 2, 1, sg, c, *y);
    graph_add_output(g, *y);
    return g;
}

static int fold_pad_then_swish(Graph *g, Diag *d)
{
    return pass_fold_pad(g, d) || pass_match_swish(g, d);
}

static void test_fold_pad_match_swish(void **state)
{
    (void)state;
    Graph *g = rewrite_matches(pad_conv_swish_graph, PASS(fold_pad_then_swish), "generic", OP_SWISH, 1, 2 * 5 * 6,
                               3 * 3 * 3, 1e-6f);
    assert_int_equal(count_op(g, OP_PAD) + count_op(g, OP_SIGMOID) + count_op(g, OP_MUL), 0);
    for (int i = 0; i < g->n_nodes; i++)
        if (!g->nodes[i].dead && g->nodes[i].op == OP_CONV) {
            int np = 0;
            const int64_t *p = attr_ints(&g->nodes[i], "pads", &np);
            assert_int_equal(np, 4);
            assert_true(p[0] == 0 && p[1] == 1 && p[2] == 2 && p[3] == 1);
        }
    graph_free(g);
}

static Graph *attention_graph(int *x, int *y)
{
    Graph *g = tb_graph(23);
    *x = tb_input(g, "q", 4, D4(1, 2, 5, 8));
    float *k = ramp(2 * 7 * 8, 0.1f), *v = ramp(2 * 7 * 8, 0.2f), *m = ramp(5 * 7, 0.3f);
    int kv = tb_cf(g, "k", 4, D4(1, 2, 7, 8), k), vv = tb_cf(g, "v", 4, D4(1, 2, 7, 8), v);
    int mv = tb_cf(g, "mask", 2, (int64_t[]){5, 7}, m);
    free(k);
    free(v);
    free(m);
    *y = graph_add_value(g, "y");
    int n = tb_node(g, "Attention", 4, 1, *x, kv, vv, mv, *y);
    node_set_int(g, n, "is_causal", 1);
    graph_add_output(g, *y);
    return g;
}

static void test_lower_attention(void **state)
{
    (void)state;
    Graph *g = rewrite_matches(attention_graph, PASS(pass_lower_attention), "generic", OP_SOFTMAX, 1, 2 * 5 * 8, 2 * 5 * 8,
                               1e-5f);
    assert_int_equal(count_op(g, OP_ATTENTION), 0);
    assert_int_equal(count_op(g, OP_MATMUL), 2);
    graph_free(g);
}

static Graph *einsum_graph(int *x, int *y)
{
    Graph *g = tb_graph(13);
    *x = tb_input(g, "x", 3, D3(2, 5, 6));
    float *k = ramp(2 * 7 * 6, 0.1f);
    int kv = tb_cf(g, "k", 3, D3(2, 7, 6), k);
    free(k);
    *y = graph_add_value(g, "y");
    int n = tb_node(g, "Einsum", 2, 1, *x, kv, *y);
    tb_set_string(g, n, "equation", "bij,bkj->bik");
    graph_add_output(g, *y);
    return g;
}

static void test_einsum_operands(void **state)
{
    (void)state;
    Graph *g = rewrite_matches(einsum_graph, PASS(pass_einsum_operands), "generic", OP_EINSUM, 1, 2 * 5 * 6, 2 * 5 * 7,
                               1e-5f);
    for (int i = 0; i < g->n_nodes; i++)
        if (!g->nodes[i].dead && g->nodes[i].op == OP_EINSUM)
            assert_string_equal(attr_string(&g->nodes[i], "equation", ""), "bij,bjk->bik");
    graph_free(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_infer_fold_shape_chain),
        cmocka_unit_test(test_infer_fold_errors),
        cmocka_unit_test(test_infer_fold_keeps_runtime),
        cmocka_unit_test(test_identity_inside),
        cmocka_unit_test(test_identity_graph_output),
        cmocka_unit_test(test_dropout_mask_used),
        cmocka_unit_test(test_fold_bn_into_conv),
        cmocka_unit_test(test_fold_bn_into_gemm_and_matmul),
        cmocka_unit_test(test_bn_to_mul_add),
        cmocka_unit_test(test_bn_training_mode),
        cmocka_unit_test(test_dce),
        cmocka_unit_test(test_graph_dump_text),
        cmocka_unit_test(test_layout_blocked_matches),
        cmocka_unit_test(test_lower_conv),
        cmocka_unit_test(test_pack_matmul),
        cmocka_unit_test(test_match_layernorm),
        cmocka_unit_test(test_match_gelu),
        cmocka_unit_test(test_crop_conv_taps),
        cmocka_unit_test(test_lower_resize),
        cmocka_unit_test(test_fold_pad_match_swish),
        cmocka_unit_test(test_lower_attention),
        cmocka_unit_test(test_einsum_operands),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
