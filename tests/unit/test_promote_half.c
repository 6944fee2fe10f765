/* test_promote_half.c - unit tests of pass_promote_half on hand-built
 * float16 / bfloat16 graphs: which nodes compute in float32 afterwards,
 * where the Casts go (after a half graph input, before a half graph output,
 * before an operator that keeps half types), the constants converted at
 * compile time against half bit patterns decoded here by their definition,
 * and the numbers of the rewritten graph against a double-precision
 * reference rounded once, at the output; which MatMuls it marks as
 * bfloat16 x bfloat16 and what pack_matmul makes of them per target. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

#include "ir/target.h"
#include "ops/ops.h"
#include "passes/passes.h"
#include "tests/unit/graph_build.h"

static const CodegenOptions GENERIC = {.target = NULL, .threads = 1};

/* An IEEE half's value from its fields (normal and subnormal numbers). */
static double half_value(uint16_t h)
{
    int e = (h >> 10) & 31, m = h & 1023;
    double v = e ? ldexp(1.0 + m / 1024.0, e - 15) : ldexp(m / 1024.0, -14);
    return h & 0x8000 ? -v : v;
}

/* A bfloat16's value: the upper half of a float32. */
static double bf16_value(uint16_t h)
{
    uint32_t u = (uint32_t)h << 16;
    float f;
    memcpy(&f, &u, 4);
    return f;
}

/* The live node of operator op (the only one), or -1. */
static int find_op(const Graph *g, OpKind op)
{
    int found = -1;
    for (int i = 0; i < g->n_nodes; i++)
        if (!g->nodes[i].dead && g->nodes[i].op == op) {
            assert_int_equal(found, -1);
            found = i;
        }
    return found;
}

static int count_op(const Graph *g, OpKind op)
{
    int n = 0;
    for (int i = 0; i < g->n_nodes; i++)
        n += !g->nodes[i].dead && g->nodes[i].op == op;
    return n;
}

/* Evaluates the live nodes in order with runtime input x holding data. */
static void eval_all(Graph *g, int x, void *data)
{
    Diag d = quiet();
    g->values[x].data = data;
    for (int i = 0; i < g->n_nodes; i++) {
        if (g->nodes[i].dead)
            continue;
        assert_int_equal(ops_infer(g, i, &d), 0);
        assert_int_equal(ops_eval(g, i, NULL, &d), 1);
    }
}

/* x f16 [1,2,3,3] -> Conv(w f16 [2,2,1,1], b f16 [2]) -> c -> Relu -> r
 *   r -> Add(k f16 [1]) -> y (f16 graph output)
 *   r -> Cast(to int32) -> z (int32 graph output) */
static const uint16_t W16[4] = {0x3C00, 0xC000, 0x3555, 0x3800}; /* 1, -2, 0.33325..., 0.5 */
static const uint16_t B16[2] = {0x3A00, 0xB400};                 /* 0.75, -0.25 */
static const uint16_t K16 = 0x4248;                              /* 3.140625 */

static Graph *conv_graph(int *x, int *conv, int *relu, int *add, int *cast, int *y, int *z)
{
    Graph *g = tb_graph(13);
    *x = tb_val(g, "x", DT_FLOAT16, 4, D4(1, 2, 3, 3));
    graph_add_input(g, *x);
    int w = graph_add_const(g, "w", DT_FLOAT16, shape_make(4, D4(2, 2, 1, 1)), W16);
    int b = graph_add_const(g, "b", DT_FLOAT16, shape_make(1, (int64_t[]){2}), B16);
    int k = graph_add_const(g, "k", DT_FLOAT16, shape_make(1, (int64_t[]){1}), &K16);
    int c = graph_add_value(g, "c"), r = graph_add_value(g, "r");
    *y = graph_add_value(g, "y");
    *z = graph_add_value(g, "z");
    *conv = tb_node(g, "Conv", 3, 1, *x, w, b, c);
    *relu = tb_node(g, "Relu", 1, 1, c, r);
    *add = tb_node(g, "Add", 2, 1, r, k, *y);
    *cast = tb_node(g, "Cast", 1, 1, r, *z);
    node_set_int(g, *cast, "to", 6); /* int32 */
    graph_add_output(g, *y);
    graph_add_output(g, *z);
    return g;
}

static void test_conv_chain_float16(void **state)
{
    (void)state;
    Diag d = quiet();
    int x, conv, relu, add, cast, y, z;
    Graph *g = conv_graph(&x, &conv, &relu, &add, &cast, &y, &z);
    assert_int_equal(pass_infer_fold(g, &GENERIC, &d), 0);
    assert_int_equal(pass_promote_half(g, &d), 0);
    /* node ids moved (Casts went in): find them again */
    conv = find_op(g, OP_CONV);
    relu = find_op(g, OP_RELU);
    add = find_op(g, OP_ADD);
    const Node *cv = &g->nodes[conv];
    /* the input is widened by a Cast, the constants converted exactly */
    const Value *xin = &g->values[cv->in[0]];
    assert_int_equal(xin->dtype, DT_FLOAT32);
    assert_int_equal(g->nodes[xin->producer].op, OP_CAST);
    assert_int_equal(g->nodes[xin->producer].in[0], x);
    assert_int_equal(g->values[x].dtype, DT_FLOAT16);
    const Value *w = &g->values[cv->in[1]], *b = &g->values[cv->in[2]];
    assert_int_equal(w->dtype, DT_FLOAT32);
    assert_int_equal(b->dtype, DT_FLOAT32);
    for (int i = 0; i < 4; i++)
        assert_true(((const float *)w->data)[i] == (float)half_value(W16[i]));
    for (int i = 0; i < 2; i++)
        assert_true(((const float *)b->data)[i] == (float)half_value(B16[i]));
    /* Conv, Relu and Add compute in float32, nothing rounded between */
    assert_int_equal(g->values[cv->out[0]].dtype, DT_FLOAT32);
    assert_int_equal(g->nodes[relu].in[0], cv->out[0]);
    int r = g->nodes[relu].out[0];
    assert_int_equal(g->values[r].dtype, DT_FLOAT32);
    assert_int_equal(g->nodes[add].in[0], r);
    assert_int_equal(g->values[g->nodes[add].in[1]].dtype, DT_FLOAT32);
    /* the graph output keeps its name and type, rounded by a Cast */
    assert_int_equal(g->values[y].dtype, DT_FLOAT16);
    assert_int_equal(g->outputs[0], y);
    const Node *round = &g->nodes[g->values[y].producer];
    assert_int_equal(round->op, OP_CAST);
    assert_int_equal(round->in[0], g->nodes[add].out[0]);
    assert_int_equal(g->values[round->in[0]].dtype, DT_FLOAT32);
    /* the Cast to int32 keeps reading a float16 value: r rounded back */
    cast = g->values[z].producer;
    const Value *rh = &g->values[g->nodes[cast].in[0]];
    assert_int_equal(rh->dtype, DT_FLOAT16);
    assert_int_equal(g->nodes[rh->producer].op, OP_CAST);
    assert_int_equal(g->nodes[rh->producer].in[0], r);
    assert_int_equal(count_op(g, OP_CAST), 4);

    /* numbers: y = round16(relu(conv(x)) + k), computed in double here */
    uint16_t xd[18];
    for (int i = 0; i < 18; i++)
        xd[i] = (uint16_t)(((i * 7) % 11 < 5 ? 0xB000 : 0x3000) + (uint16_t)(i * 37)); /* +-(0.125..0.25) */
    eval_all(g, x, xd);
    const uint16_t *got = g->values[y].data;
    const int32_t *gz = g->values[z].data;
    for (int oc = 0; oc < 2; oc++)
        for (int p = 0; p < 9; p++) {
            double s = half_value(B16[oc]);
            for (int ic = 0; ic < 2; ic++)
                s += half_value(W16[oc * 2 + ic]) * half_value(xd[ic * 9 + p]);
            double relu_v = s > 0 ? s : 0, want = relu_v + half_value(K16);
            double have = half_value(got[oc * 9 + p]);
            /* one rounding to float16 at the output: half an ulp */
            assert_true(fabs(have - want) <= want / 2048);
            assert_int_equal(gz[oc * 9 + p], (int32_t)relu_v);
        }
    graph_free(g);
}

/* x bf16 [2,4] -> MatMul(w bf16 [4,3]) -> y bf16 (graph output), and y read
 * again by a Tanh -> t bf16 (second output) */
static void test_matmul_bfloat16(void **state)
{
    (void)state;
    Diag d = quiet();
    Graph *g = tb_graph(13);
    int x = tb_val(g, "x", DT_BFLOAT16, 2, D2(2, 4));
    graph_add_input(g, x);
    uint16_t w16[12];
    for (int i = 0; i < 12; i++)
        w16[i] = (uint16_t)((i % 3 == 0 ? 0xBF80 : 0x3F80) + i * 9); /* +-(1..2) */
    int w = graph_add_const(g, "w", DT_BFLOAT16, shape_make(2, D2(4, 3)), w16);
    int y = graph_add_value(g, "y"), t = graph_add_value(g, "t");
    tb_node(g, "MatMul", 2, 1, x, w, y);
    tb_node(g, "Tanh", 1, 1, y, t);
    graph_add_output(g, y);
    graph_add_output(g, t);
    assert_int_equal(pass_infer_fold(g, &GENERIC, &d), 0);
    assert_int_equal(pass_promote_half(g, &d), 0);
    int mm = find_op(g, OP_MATMUL), th = find_op(g, OP_TANH);
    assert_int_equal(g->nodes[mm].bf16_operands, 1); /* both operands bfloat16 in the model */
    const Value *wv = &g->values[g->nodes[mm].in[1]];
    assert_int_equal(wv->dtype, DT_FLOAT32);
    for (int i = 0; i < 12; i++)
        assert_true(((const float *)wv->data)[i] == (float)bf16_value(w16[i]));
    /* Tanh reads the unrounded float32 product, not the bfloat16 output */
    int y32 = g->nodes[mm].out[0];
    assert_int_not_equal(y32, y);
    assert_int_equal(g->values[y32].dtype, DT_FLOAT32);
    assert_int_equal(g->nodes[th].in[0], y32);
    assert_int_equal(g->values[y].dtype, DT_BFLOAT16);
    assert_int_equal(g->values[t].dtype, DT_BFLOAT16);
    assert_int_equal(g->nodes[g->values[t].producer].op, OP_CAST);
    uint16_t xd[8];
    for (int i = 0; i < 8; i++)
        xd[i] = (uint16_t)(0x3E00 + i * 301);
    eval_all(g, x, xd);
    const uint16_t *gy = g->values[y].data, *gt = g->values[t].data;
    for (int r = 0; r < 2; r++)
        for (int c = 0; c < 3; c++) {
            double s = 0;
            for (int k = 0; k < 4; k++)
                s += bf16_value(xd[r * 4 + k]) * bf16_value(w16[k * 3 + c]);
            /* bfloat16 keeps 8 significant bits: one rounding, 2^-9 relative */
            assert_true(fabs(bf16_value(gy[r * 3 + c]) - s) <= fabs(s) / 256);
            assert_true(fabs(bf16_value(gt[r * 3 + c]) - tanh(s)) <= fabs(tanh(s)) / 256 + 1e-30);
        }
    graph_free(g);
}

/* keep_io_types form: x f32 -> Cast(f16) -> Sigmoid -> Cast(f32) -> y, and
 * h = the Sigmoid's float16 value, a second output. The Casts become
 * Identities (dropped by drop_identity): ORT removes float32 -> float16 ->
 * float32 pairs, so y is never rounded; h still is. */
static void test_keep_io_types(void **state)
{
    (void)state;
    Diag d = quiet();
    Graph *g = tb_graph(13);
    int x = tb_input(g, "x", 2, D2(2, 4));
    int xh = graph_add_value(g, "xh"), h = graph_add_value(g, "h"), y = graph_add_value(g, "y");
    node_set_int(g, tb_node(g, "Cast", 1, 1, x, xh), "to", 10);
    tb_node(g, "Sigmoid", 1, 1, xh, h);
    node_set_int(g, tb_node(g, "Cast", 1, 1, h, y), "to", 1);
    graph_add_output(g, y);
    graph_add_output(g, h);
    assert_int_equal(pass_infer_fold(g, &GENERIC, &d), 0);
    assert_int_equal(pass_promote_half(g, &d), 0);
    assert_int_equal(pass_drop_identity(g, &d), 0);
    int sg = find_op(g, OP_SIGMOID);
    assert_int_equal(g->nodes[sg].in[0], x);
    assert_int_equal(g->values[g->nodes[sg].out[0]].dtype, DT_FLOAT32);
    assert_int_equal(g->values[y].dtype, DT_FLOAT32);
    assert_int_equal(g->values[h].dtype, DT_FLOAT16);
    assert_int_equal(count_op(g, OP_CAST), 1); /* the rounding into h */
    assert_int_equal(count_op(g, OP_IDENTITY), 0);
    float xd[8];
    for (int i = 0; i < 8; i++)
        xd[i] = 0.1234567f * (float)(i - 3); /* not float16 values */
    eval_all(g, x, xd);
    const float *gy = g->values[y].data;
    const uint16_t *gh = g->values[h].data;
    for (int i = 0; i < 8; i++) {
        double want = 1 / (1 + exp(-(double)xd[i]));
        assert_true(fabs(gy[i] - want) <= 1e-6);       /* float32 all the way */
        assert_true(fabs(half_value(gh[i]) - want) <= want / 2048); /* rounded once */
    }
    graph_free(g);
}

/* Which products promote_half marks as bfloat16 x bfloat16
 * (Node.bf16_operands), and what pack_matmul then makes of them on a target
 * with vdpbf16ps and on one without. form 0: x bfloat16 input @ w bfloat16;
 * 1: the zoo's form, x float32 @ Cast(w bfloat16 -> float32); 2: Cast(x
 * bfloat16 -> float32) @ float32 weights that are all bfloat16 numbers; 3:
 * the same with one weight that is not. [64, 64] x [64, 64]: enough work to
 * pack. */
static uint16_t PW16[64 * 64];

static Graph *product_graph(int form)
{
    Graph *g = tb_graph(13);
    int x = tb_val(g, "x", form == 1 ? DT_FLOAT32 : DT_BFLOAT16, 2, D2(64, 64));
    graph_add_input(g, x);
    uint16_t *w16 = PW16;
    static float w32[64 * 64];
    for (int i = 0; i < 64 * 64; i++) {
        w16[i] = (uint16_t)(0x3C00 + (i * 37) % 0x0700 + (i % 5 == 0 ? 0x8000 : 0));
        w32[i] = (float)bf16_value(w16[i]);
    }
    if (form == 3)
        w32[77] += w32[77] / 1024; /* 10 significant bits: not a bfloat16 */
    int w = form >= 2 ? graph_add_const(g, "w", DT_FLOAT32, shape_make(2, D2(64, 64)), w32)
                      : graph_add_const(g, "w", DT_BFLOAT16, shape_make(2, D2(64, 64)), w16);
    int a = x, y = graph_add_value(g, "y");
    if (form == 1) {
        int wf = graph_add_value(g, "wf");
        node_set_int(g, tb_node(g, "Cast", 1, 1, w, wf), "to", 1);
        w = wf;
    }
    if (form >= 2) {
        a = graph_add_value(g, "xf");
        node_set_int(g, tb_node(g, "Cast", 1, 1, x, a), "to", 1);
    }
    tb_node(g, "MatMul", 2, 1, a, w, y);
    graph_add_output(g, y);
    return g;
}

static void test_bf16_products_marked(void **state)
{
    (void)state;
    for (int form = 0; form < 4; form++) {
        for (int tgt = 0; tgt < 2; tgt++) {
            Diag d = quiet();
            Graph *g = product_graph(form);
            CodegenOptions cg = {.target = target_find(tgt ? "x86_64-avx512-bf16" : "x86_64-avx512-vnni"), .threads = 1};
            assert_int_equal(pass_infer_fold(g, &cg, &d), 0);
            assert_int_equal(pass_promote_half(g, &d), 0);
            int mm = find_op(g, OP_MATMUL), want = form == 0 || form == 2;
            assert_int_equal(g->nodes[mm].bf16_operands, want);
            assert_int_equal(pass_drop_identity(g, &d), 0);
            assert_int_equal(pass_pack_matmul(g, &cg, &d), 0);
            assert_int_equal(pass_infer_fold(g, &cg, &d), 0);
            /* vdpbf16ps only for the marked product on the target that has it */
            assert_int_equal(count_op(g, OP_BF16MATMUL), want && tgt);
            assert_int_equal(count_op(g, OP_MATMUL), !(want && tgt));
            if (want && tgt) {
                const Node *b = &g->nodes[find_op(g, OP_BF16MATMUL)];
                const Value *bp = &g->values[b->in[1]];
                assert_int_equal(g->values[b->in[0]].dtype, DT_BFLOAT16);
                assert_int_equal(bp->dtype, DT_BFLOAT16);
                /* panels of NB = 32 columns, 2 k-values to a lane: [2, 32, 64] */
                assert_int_equal(bp->shape.rank, 3);
                assert_int_equal(bp->shape.dims[0], 2);
                assert_int_equal(bp->shape.dims[1], 32);
                assert_int_equal(bp->shape.dims[2], 64);
                /* panel 1, k pair 5, column 7, odd k: B[11, 39] */
                const uint16_t *h = bp->data;
                assert_int_equal(h[(1 * 32 + 5) * 64 + 7 * 2 + 1], PW16[11 * 64 + 39]);
                /* A is the model's bfloat16 input itself (no rounding Cast) */
                assert_int_equal(b->in[0], g->inputs[0]);
            }
            graph_free(g);
        }
    }
}

/* A float32 graph is left exactly as it was. */
static void test_float32_untouched(void **state)
{
    (void)state;
    Diag d = quiet();
    Graph *g = tb_graph(13);
    int x = tb_input(g, "x", 2, D2(2, 4));
    int y = graph_add_value(g, "y");
    tb_node(g, "Relu", 1, 1, x, y);
    graph_add_output(g, y);
    assert_int_equal(pass_infer_fold(g, &GENERIC, &d), 0);
    int nodes = g->n_nodes, values = g->n_values;
    assert_int_equal(pass_promote_half(g, &d), 0);
    assert_int_equal(g->n_nodes, nodes);
    assert_int_equal(g->n_values, values);
    assert_int_equal(g->values[y].dtype, DT_FLOAT32);
    graph_free(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_conv_chain_float16),
        cmocka_unit_test(test_matmul_bfloat16),
        cmocka_unit_test(test_keep_io_types),
        cmocka_unit_test(test_float32_untouched),
        cmocka_unit_test(test_bf16_products_marked),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
