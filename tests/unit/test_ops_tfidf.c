/* test_ops_tfidf.c - unit tests of TfIdfVectorizer: shape rule,
 * normalised attributes, values folded through the compute definition
 * (TF, IDF, TFIDF, skips, a duplicated n-gram) and the errors. Expected
 * numbers are worked out by hand (and agree with ONNX's reference). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "ops/ops.h"
#include "tests/unit/graph_build.h"

static int run(Graph *g, int node, Diag *d)
{
    if (ops_infer(g, node, d))
        return -1;
    return ops_eval(g, node, NULL, d);
}

static void expect_f32(Graph *g, int v, int64_t n, const float *want)
{
    assert_int_equal(g->values[v].dtype, DT_FLOAT32);
    assert_non_null(g->values[v].data);
    const float *got = g->values[v].data;
    for (int64_t i = 0; i < n; i++)
        if (!(fabsf(got[i] - want[i]) <= 1e-6f))
            fail_msg("element %lld: got %.7g want %.7g", (long long)i, got[i], want[i]);
}

static void expect_error(Diag *d, const char *part)
{
    if (!strstr(d->last, part))
        fail_msg("diagnostic '%s' lacks '%s'", d->last, part);
}

static void set_floats(Graph *g, int node, const char *name, int n, const float *v)
{
    node_set_int(g, node, name, 0);
    Attr *a = (Attr *)node_attr(&g->nodes[node], name);
    a->kind = ATTR_FLOATS;
    a->n = n;
    a->floats = arena_alloc(g->arena, (size_t)n * sizeof *v);
    memcpy(a->floats, v, (size_t)n * sizeof *v);
}

/* pool: 1-grams 2 3 5 4, 2-grams (5,6) (7,8) (6,7); indexes 0..6 */
static int tfidf_node(Graph *g, int x, int y, const char *mode, int64_t mn, int64_t mx, int64_t skip)
{
    int n = tb_node(g, "TfIdfVectorizer", 1, 1, x, y);
    tb_set_string(g, n, "mode", mode);
    node_set_int(g, n, "min_gram_length", mn);
    node_set_int(g, n, "max_gram_length", mx);
    node_set_int(g, n, "max_skip_count", skip);
    node_set_ints(g, n, "ngram_counts", (int64_t[]){0, 4}, 2);
    node_set_ints(g, n, "ngram_indexes", (int64_t[]){0, 1, 2, 3, 4, 5, 6}, 7);
    node_set_ints(g, n, "pool_int64s", (int64_t[]){2, 3, 5, 4, 5, 6, 7, 8, 6, 7}, 10);
    return n;
}

static const int64_t X[12] = {1, 1, 3, 3, 3, 7, 8, 6, 7, 5, 6, 8};

static void test_tf(void **state)
{
    (void)state;
    Diag d = quiet();
    Graph *g = tb_graph(9);
    int x = tb_ci(g, "x", 2, D2(2, 6), X);
    int y = graph_add_value(g, "y");
    int n = tfidf_node(g, x, y, "TF", 1, 2, 5);
    assert_int_equal(run(g, n, &d), 1);
    assert_int_equal(g->values[y].shape.rank, 2);
    assert_int_equal(g->values[y].shape.dims[1], 7);
    assert_int_equal(g->nodes[n].at.tfidf.mode, 1);
    assert_int_equal(g->nodes[n].at.tfidf.cols, 6);
    /* row 0: 3 three times; row 1: 5 once, (7,8) skip 2, (5,6) skip 1, (6,7) skip 1 */
    expect_f32(g, y, 14, (float[]){0, 3, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 1, 1});
    /* bigrams only, no skip, one row: (7,8) now misses */
    int x1 = tb_ci1(g, "x1", 6, X + 6);
    int y1 = graph_add_value(g, "y1");
    n = tfidf_node(g, x1, y1, "TF", 2, 2, 0);
    assert_int_equal(run(g, n, &d), 1);
    assert_int_equal(g->values[y1].shape.rank, 1);
    expect_f32(g, y1, 7, (float[]){0, 0, 0, 0, 1, 0, 1});
    graph_free(g);
}

static void test_weights(void **state)
{
    (void)state;
    Diag d = quiet();
    Graph *g = tb_graph(9);
    int x = tb_ci(g, "x", 2, D2(2, 6), X);
    const float w[7] = {1, 2, 3, 4, 5, 6, 0.5f};
    int y = graph_add_value(g, "y");
    int n = tfidf_node(g, x, y, "TFIDF", 1, 2, 5);
    set_floats(g, n, "weights", 7, w);
    assert_int_equal(run(g, n, &d), 1);
    expect_f32(g, y, 14, (float[]){0, 6, 0, 0, 0, 0, 0, 0, 0, 3, 0, 5, 6, 0.5f});
    int y2 = graph_add_value(g, "y2");
    n = tfidf_node(g, x, y2, "IDF", 1, 2, 5);
    set_floats(g, n, "weights", 7, w);
    assert_int_equal(run(g, n, &d), 1);
    expect_f32(g, y2, 14, (float[]){0, 2, 0, 0, 0, 0, 0, 0, 0, 3, 0, 5, 6, 0.5f});
    /* IDF without weights: 1 where present */
    int y3 = graph_add_value(g, "y3");
    n = tfidf_node(g, x, y3, "IDF", 1, 2, 5);
    assert_int_equal(run(g, n, &d), 1);
    expect_f32(g, y3, 14, (float[]){0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 1, 1});
    graph_free(g);
}

static void test_duplicate(void **state)
{
    (void)state;
    Diag d = quiet();
    Graph *g = tb_graph(9);
    int x = tb_ci1(g, "x", 5, (int64_t[]){6, 7, 5, 6, 7});
    int y = graph_add_value(g, "y");
    int n = tb_node(g, "TfIdfVectorizer", 1, 1, x, y);
    tb_set_string(g, n, "mode", "TF");
    node_set_int(g, n, "min_gram_length", 2);
    node_set_int(g, n, "max_gram_length", 2);
    node_set_int(g, n, "max_skip_count", 0);
    node_set_ints(g, n, "ngram_counts", (int64_t[]){0, 0}, 2);
    node_set_ints(g, n, "ngram_indexes", (int64_t[]){0, 1, 1}, 3);
    node_set_ints(g, n, "pool_int64s", (int64_t[]){6, 7, 6, 7, 7, 5}, 6);
    assert_int_equal(run(g, n, &d), 1);
    /* the later (6,7) takes the id: index 0 never counts */
    expect_f32(g, y, 2, (float[]){0, 3});
    graph_free(g);
}

static void test_errors(void **state)
{
    (void)state;
    Diag d = quiet();
    Graph *g = tb_graph(9);
    int x = tb_ci(g, "x", 2, D2(2, 6), X);
    int y = graph_add_value(g, "y");
    int n = tfidf_node(g, x, y, "BM25", 1, 2, 0);
    assert_int_equal(ops_infer(g, n, &d), -1);
    expect_error(&d, "mode");
    y = graph_add_value(g, "y1");
    n = tfidf_node(g, x, y, "TF", 1, 2, 0);
    node_set_ints(g, n, "ngram_indexes", (int64_t[]){0, 1}, 2);
    assert_int_equal(ops_infer(g, n, &d), -1);
    expect_error(&d, "ngram_indexes");
    y = graph_add_value(g, "y2");
    n = tfidf_node(g, x, y, "TF", 1, 2, 0);
    tb_set_string(g, n, "pool_strings", "a");
    assert_int_equal(ops_infer(g, n, &d), -1);
    expect_error(&d, "string");
    int xf = tb_cf(g, "xf", 1, (int64_t[]){2}, (float[]){1, 2});
    y = graph_add_value(g, "y3");
    n = tfidf_node(g, xf, y, "TF", 1, 2, 0);
    assert_int_equal(ops_infer(g, n, &d), -1);
    expect_error(&d, "int32 or int64");
    int x3 = tb_ci(g, "x3", 3, D3(1, 2, 6), X);
    y = graph_add_value(g, "y4");
    n = tfidf_node(g, x3, y, "TF", 1, 2, 0);
    assert_int_equal(ops_infer(g, n, &d), -1);
    expect_error(&d, "[N, C]");
    /* a run-time int32 input stays run-time */
    int xr = tb_val(g, "xr", DT_INT32, 2, D2(3, 4));
    graph_add_input(g, xr);
    y = graph_add_value(g, "y5");
    n = tfidf_node(g, xr, y, "TF", 1, 2, 0);
    assert_int_equal(ops_infer(g, n, &d), 0);
    assert_int_equal(g->values[y].shape.dims[0], 3);
    assert_int_equal(g->values[y].shape.dims[1], 7);
    graph_free(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tf),
        cmocka_unit_test(test_weights),
        cmocka_unit_test(test_duplicate),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
