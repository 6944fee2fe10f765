/* test_tune_tasks.c - workload keys and knob overrides (schedule_key.c,
 * emit_tasks, EmitOptions.tuning): the same convolution in two graphs with
 * other names has one workload; stride, a fused Relu or another shape make
 * another; a tuning entry for the workload changes the kernel and counts
 * its use, one for another workload changes nothing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "emit_c/emit.h"
#include "emit_graph.h"
#include "graph_build.h"
#include "ir/target.h"
#include "passes/passes.h"
#include "schedule/schedule_key.h"

/* x[1,C,H,W] -> Conv 3x3 (C->C, pads 1, stride s) [-> Relu] -> y, every pass run */
static Graph *conv_model(const char *prefix, int64_t C, int64_t H, int64_t s, int relu)
{
    Graph *g = tb_graph(13);
    char name[64];
    int64_t xd[4] = {1, C, H, H}, wd[4] = {C, C, 3, 3};
    snprintf(name, sizeof name, "%s_x", prefix);
    int x = tb_input(g, name, 4, xd);
    float *w = calloc((size_t)(C * C * 9), sizeof(float));
    for (int64_t i = 0; i < C * C * 9; i++)
        w[i] = (float)((i * 7919) % 13) / 13.0f - 0.5f;
    snprintf(name, sizeof name, "%s_w", prefix);
    int wv = tb_cf(g, name, 4, wd, w);
    free(w);
    snprintf(name, sizeof name, "%s_c", prefix);
    int c = graph_add_value(g, name);
    snprintf(name, sizeof name, "%s_y", prefix);
    int y = relu ? graph_add_value(g, name) : c;
    int n = tb_node(g, "Conv", 2, 1, x, wv, c);
    node_set_ints(g, n, "pads", (int64_t[]){1, 1, 1, 1}, 4);
    node_set_ints(g, n, "strides", (int64_t[]){s, s}, 2);
    node_set_ints(g, n, "kernel_shape", (int64_t[]){3, 3}, 2);
    if (relu)
        tb_node(g, "Relu", 1, 1, c, y);
    graph_add_output(g, y);
    Diag d = quiet();
    graph_count_uses(g);
    if (passes_run(g, &(CodegenOptions){.target = target_find("x86_64-avx512"), .threads = 1}, &d, NULL, NULL) != 0)
        fail_msg("passes: %s", d.last);
    return g;
}

static EmitOptions opts(void)
{
    EmitOptions o;
    memset(&o, 0, sizeof o);
    o.prefix = "m";
    o.command_line = "test";
    o.model_hash = "0";
    return o;
}

/* the one conv workload of a model, into key */
static void one_task(Graph *g, char *key, size_t cap)
{
    LowerTask t[8];
    CodegenOptions o = {.target = target_find("x86_64-avx512"), .threads = 1};
    Diag d = quiet();
    int n = lower_tasks(g, &o, t, 8, &d);
    assert_int_equal(n, 1);
    assert_int_equal(t[0].count, 1);
    assert_true(t[0].flops > 0);
    assert_true(strncmp(t[0].workload, "conv ", 5) == 0);
    snprintf(key, cap, "%s", t[0].workload);
}

static void test_workload_keys(void **state)
{
    (void)state;
    char a[256], b[256], s2[256], r[256], big[256];
    Graph *g;
    one_task(g = conv_model("first", 32, 12, 1, 0), a, sizeof a), graph_free(g);
    one_task(g = conv_model("other", 32, 12, 1, 0), b, sizeof b), graph_free(g);
    one_task(g = conv_model("first", 32, 12, 2, 0), s2, sizeof s2), graph_free(g);
    one_task(g = conv_model("first", 32, 12, 1, 1), r, sizeof r), graph_free(g);
    one_task(g = conv_model("first", 32, 14, 1, 0), big, sizeof big), graph_free(g);
    assert_string_equal(a, b);      /* names do not matter */
    assert_string_not_equal(a, s2); /* stride does */
    assert_string_not_equal(a, r);  /* so does the fused epilogue */
    assert_string_not_equal(a, big);
    assert_true(strncmp(a, "conv 1x2x12x12x16 r", 19) == 0); /* [N, OCb, OH, OW, lanes] */
}

static char *emit_with(Graph *g, SchedTuning *t)
{
    EmitOptions o = opts();
    Diag d = quiet();
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    int rc = emit_graph(g, "x86_64-avx512", 1, t, &o, f, &d);
    fclose(f);
    if (rc != 0)
        fail_msg("emit: %s", d.last);
    return buf;
}

static void test_knobs_applied(void **state)
{
    (void)state;
    char key[256];
    Graph *g = conv_model("n", 32, 12, 1, 1);
    one_task(g, key, sizeof key);
    char *plain = emit_with(g, NULL);
    const char *keys[1] = {key};
    int knobs[1][4] = {{1, 1, 1, 0}}, used[1] = {0};
    SchedTuning t = {.n = 1, .workload = keys, .knobs = knobs, .used = used};
    char *tuned = emit_with(g, &t);
    assert_int_equal(used[0], 1);
    assert_string_not_equal(plain, tuned); /* T = U = R = 1: another loop nest */
    const char *other[1] = {"conv 1x2x12x12x16 r2x3x3x16 #0000000000000000"};
    used[0] = 0;
    t.workload = other;
    char *same = emit_with(g, &t);
    assert_int_equal(used[0], 0);
    assert_string_equal(plain, same);
    free(plain), free(tuned), free(same);
    graph_free(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_workload_keys),
        cmocka_unit_test(test_knobs_applied),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
