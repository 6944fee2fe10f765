/* test_quant_canon.c - unit tests of the passes quant_canon and
 * quant_moves on small hand-built quantized graphs: the operators of the
 * rewritten graph (ConvInteger / MatMulInteger -> Cast -> Mul [-> Add]
 * [-> QuantizeLinear], int8 weights kept, the op on the integers), its
 * numbers against an exact integer reference written out here (double
 * arithmetic, round half to even) and against the unrewritten graph run by
 * the reference kernels, and the graphs the passes must leave alone
 * (negative or run-time scales, a per-channel axis off the output channel,
 * unequal parameters around a move, dynamic quantization). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

#include "ops/ops.h"
#include "passes/passes.h"
#include "tests/unit/graph_build.h"

static int count_op(const Graph *g, OpKind k)
{
    int n = 0;
    for (int i = 0; i < g->n_nodes; i++)
        n += !g->nodes[i].dead && g->nodes[i].op == k;
    return n;
}

static int live_nodes(const Graph *g)
{
    int n = 0;
    for (int i = 0; i < g->n_nodes; i++)
        n += !g->nodes[i].dead;
    return n;
}

/* The live node producing value v. */
static const Node *producer(const Graph *g, int v)
{
    for (int i = 0; i < g->n_nodes; i++)
        if (!g->nodes[i].dead)
            for (int k = 0; k < g->nodes[i].n_out; k++)
                if (g->nodes[i].out[k] == v)
                    return &g->nodes[i];
    return NULL;
}

/* Infer and evaluate every live node in order with input x = data; the
 * bytes of value y. */
static const void *run(Graph *g, int x, void *data, int y)
{
    Diag d = quiet();
    g->values[x].data = data;
    for (int i = 0; i < g->n_nodes; i++) {
        if (g->nodes[i].dead)
            continue;
        if (ops_infer(g, i, &d) != 0)
            fail_msg("infer %s: %s", g->nodes[i].op_type, d.last);
        assert_int_equal(ops_eval(g, i, NULL, &d), 1);
    }
    return g->values[y].data;
}

static int c8(Graph *g, const char *name, DType t, int rank, const int64_t *dims, const void *v)
{
    return graph_add_const(g, name, t, shape_make(rank, dims), v);
}

static int scalar_f(Graph *g, const char *name, float v)
{
    return graph_add_const(g, name, DT_FLOAT32, shape_make(0, NULL), &v);
}

static int dq(Graph *g, int x, int s, int z, int axis, const char *out)
{
    int y = graph_add_value(g, out);
    int n = z >= 0 ? tb_node(g, "DequantizeLinear", 3, 1, x, s, z, y) : tb_node(g, "DequantizeLinear", 2, 1, x, s, y);
    if (axis >= 0)
        node_set_int(g, n, "axis", axis);
    return y;
}

static double round_even(double v)
{
    double r = nearbyint(v); /* the default rounding mode: to nearest even */
    return r;
}

static double quant(double v, double s, int z, int lo, int hi)
{
    double q = round_even(v / s) + z;
    return q < lo ? lo : q > hi ? hi : q;
}

/* ---- DQ -> Conv -> Q ---- */

enum { C = 4, M = 4, H = 5, K = 3 };
static const float WS[M] = {0.011f, 0.023f, 0.017f, 0.031f};
static const int32_t BIAS[M] = {150, -220, 310, 0};
static const float XS = 0.05f, YS = 0.11f;
static const uint8_t XZ = 121, YZ = 97;

static int8_t w_at(int i)
{
    return (int8_t)((i * 37) % 255 - 127);
}

static uint8_t x_at(int i)
{
    return (uint8_t)((i * 53 + 7) % 256);
}

typedef struct ConvCase {
    float ws0;      /* overrides WS[0] (a negative scale must be refused) */
    int w_axis;     /* the weights' DequantizeLinear axis (0: output channel) */
    int rt_scale;   /* x's scale a run-time input */
} ConvCase;

/* x u8 [1,C,H,H] -> DQ -> Conv(DQ(w s8 per channel), DQ(bias int32), pads 1) -> Q u8 */
static Graph *qdq_conv(ConvCase cc, int *x, int *y)
{
    Graph *g = tb_graph(13);
    *x = tb_val(g, "x", DT_UINT8, 4, D4(1, C, H, H));
    graph_add_input(g, *x);
    int8_t w[M * C * K * K], wz[M] = {0};
    for (int i = 0; i < M * C * K * K; i++)
        w[i] = w_at(i);
    float ws[M], bs[M];
    int32_t bz[M] = {0};
    for (int m = 0; m < M; m++) {
        ws[m] = m ? WS[m] : cc.ws0;
        bs[m] = XS * ws[m];
    }
    int64_t m1 = M;
    int xs = scalar_f(g, "xs", XS);
    if (cc.rt_scale) {
        xs = tb_val(g, "xs_in", DT_FLOAT32, 0, NULL);
        graph_add_input(g, xs);
    }
    int xz = c8(g, "xz", DT_UINT8, 0, NULL, &XZ);
    int wv = c8(g, "w", DT_INT8, 4, D4(M, C, K, K), w);
    int dx = dq(g, *x, xs, xz, -1, "dx");
    int dw = dq(g, wv, c8(g, "ws", DT_FLOAT32, 1, &m1, ws), c8(g, "wz", DT_INT8, 1, &m1, wz), cc.w_axis, "dw");
    int db = dq(g, c8(g, "b", DT_INT32, 1, &m1, BIAS), c8(g, "bs", DT_FLOAT32, 1, &m1, bs),
                c8(g, "bz", DT_INT32, 1, &m1, bz), 0, "db");
    int c = graph_add_value(g, "c");
    int conv = tb_node(g, "Conv", 3, 1, dx, dw, db, c);
    node_set_ints(g, conv, "pads", (int64_t[]){1, 1, 1, 1}, 4);
    node_set_ints(g, conv, "kernel_shape", (int64_t[]){K, K}, 2);
    *y = graph_add_value(g, "y");
    tb_node(g, "QuantizeLinear", 3, 1, c, scalar_f(g, "ys", YS), c8(g, "yz", DT_UINT8, 0, NULL, &YZ), *y);
    graph_add_output(g, *y);
    return g;
}

/* The expected output, from the integers: exact sums, double scaling. */
static void conv_expect(const uint8_t *x, double *out)
{
    for (int m = 0; m < M; m++)
        for (int oh = 0; oh < H; oh++)
            for (int ow = 0; ow < H; ow++) {
                int64_t acc = 0;
                for (int c = 0; c < C; c++)
                    for (int kh = 0; kh < K; kh++)
                        for (int kw = 0; kw < K; kw++) {
                            int ih = oh + kh - 1, iw = ow + kw - 1;
                            if (ih < 0 || iw < 0 || ih >= H || iw >= H)
                                continue;
                            acc += (int64_t)(x[(c * H + ih) * H + iw] - XZ) * w_at(((m * C + c) * K + kh) * K + kw);
                        }
                double v = (double)acc * XS * WS[m] + (double)BIAS[m] * (double)(XS * WS[m]);
                out[(m * H + oh) * H + ow] = quant(v, YS, YZ, 0, 255);
            }
}

static uint8_t *conv_input(void)
{
    uint8_t *x = malloc(C * H * H);
    for (int i = 0; i < C * H * H; i++)
        x[i] = x_at(i);
    return x;
}

static void test_conv_canonical(void **state)
{
    (void)state;
    Diag d = quiet();
    int x, y, xr, yr;
    ConvCase cc = {WS[0], 0, 0};
    Graph *g = qdq_conv(cc, &x, &y), *ref = qdq_conv(cc, &xr, &yr);
    assert_int_equal(pass_quant_canon(g, &d), 0);
    /* the Conv's only reader is a QuantizeLinear: ORT's order (its QDQ fusion
       makes a QLinearConv): ConvInteger(x, w int8, x_zp) -> Cast -> Add(int32
       bias, unscaled) -> Mul(x_scale * w_scale / y_scale) -> QuantizeLinear(1, y_zp) -> y */
    assert_int_equal(count_op(g, OP_CONV), 0);
    assert_int_equal(count_op(g, OP_DEQUANTIZELINEAR), 0); /* the weights' and bias' DQ dropped */
    assert_int_equal(count_op(g, OP_QUANTIZELINEAR), 1);   /* the model's one, folded in */
    const Node *q = producer(g, y);
    assert_non_null(q);
    assert_int_equal(q->op, OP_QUANTIZELINEAR);
    assert_true(((const float *)g->values[q->in[1]].data)[0] == 1.0f);
    const Node *mul = producer(g, q->in[0]);
    assert_int_equal(mul->op, OP_MUL);
    const Value *sc = &g->values[mul->in[1]];
    assert_int_equal(sc->shape.rank, 3);
    assert_int_equal(sc->shape.dims[0], M);
    assert_true(((const float *)sc->data)[1] == XS * WS[1] / YS);
    const Node *add = producer(g, mul->in[0]);
    assert_int_equal(add->op, OP_ADD);
    const Value *bv = &g->values[add->in[1]];
    for (int m = 0; m < M; m++)
        assert_true(((const float *)bv->data)[m] == (float)BIAS[m]);
    const Node *cast = producer(g, add->in[0]);
    assert_int_equal(cast->op, OP_CAST);
    const Node *core = producer(g, cast->in[0]);
    assert_int_equal(core->op, OP_CONVINTEGER);
    assert_int_equal(core->in[0], x);
    assert_int_equal(core->in[1], graph_find_value(g, "w")); /* the int8 constant itself */
    assert_int_equal(g->values[core->in[1]].dtype, DT_INT8);
    assert_int_equal(core->n_in, 3); /* the weights' zero point is all zero: omitted */
    assert_int_equal(attr_ints(core, "pads", &(int){0})[0], 1);
    /* numbers: the exact reference, and the float graph */
    uint8_t *xd = conv_input();
    double want[M * H * H];
    conv_expect(xd, want);
    const uint8_t *got = run(g, x, xd, y), *flt = run(ref, xr, xd, yr);
    int off = 0;
    for (int i = 0; i < M * H * H; i++) {
        assert_true(fabs(got[i] - want[i]) <= 1.0);
        assert_true(abs(got[i] - flt[i]) <= 1);
        off += got[i] != want[i];
    }
    assert_true(off <= 1);
    free(xd);
    graph_free(g);
    graph_free(ref);
}

static void test_conv_refused(void **state)
{
    (void)state;
    const ConvCase bad[] = {
        {-WS[0], 0, 0}, /* negative scale */
        {WS[0], 1, 0},  /* per channel along the input channels */
        {WS[0], 0, 1},  /* x's scale known at run time only */
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        Diag d = quiet();
        int x, y;
        Graph *g = qdq_conv(bad[k], &x, &y);
        int before = live_nodes(g);
        assert_int_equal(pass_quant_canon(g, &d), 0);
        assert_int_equal(pass_quant_moves(g, &d), 0);
        assert_int_equal(live_nodes(g), before);
        assert_int_equal(count_op(g, OP_CONV), 1);
        assert_int_equal(count_op(g, OP_CONVINTEGER), 0);
        graph_free(g);
    }
}

/* ---- DQ -> Gemm (transB, alpha, beta, bias) / MatMul, float result ---- */

enum { GM = 3, GK = 6, GN = 5 };

static int8_t b_at(int n, int k)
{
    return (int8_t)((n * 29 + k * 11) % 200 - 100);
}

static int8_t a_at(int i)
{
    return (int8_t)((i * 41) % 256 - 128);
}

/* a s8 [GM,GK] -> DQ -> Gemm(., DQ(B s8 [GN,GK] per row), C float [GN]) or
 * MatMul(., DQ(B^T [GK,GN] per column)) -> float y */
static Graph *qdq_dense(int gemm, int *x, int *y)
{
    Graph *g = tb_graph(13);
    *x = tb_val(g, "a", DT_INT8, 2, D2(GM, GK));
    graph_add_input(g, *x);
    int8_t b[GN * GK], az = -3;
    float bs[GN], cb[GN];
    int64_t n1 = GN;
    for (int n = 0; n < GN; n++) {
        bs[n] = 0.01f * (float)(n + 1);
        cb[n] = 0.25f * (float)n - 0.5f;
        for (int k = 0; k < GK; k++)
            b[gemm ? n * GK + k : k * GN + n] = b_at(n, k);
    }
    int da = dq(g, *x, scalar_f(g, "as", 0.02f), c8(g, "az", DT_INT8, 0, NULL, &az), -1, "da");
    int bv = c8(g, "b", DT_INT8, 2, gemm ? D2(GN, GK) : D2(GK, GN), b);
    int db = dq(g, bv, c8(g, "bs", DT_FLOAT32, 1, &n1, bs), -1, gemm ? 0 : 1, "db");
    *y = graph_add_value(g, "y");
    if (gemm) {
        int n = tb_node(g, "Gemm", 3, 1, da, db, c8(g, "c", DT_FLOAT32, 1, &n1, cb), *y);
        node_set_int(g, n, "transB", 1);
        node_set_float(g, n, "alpha", 0.5f);
        node_set_float(g, n, "beta", 2.0f);
    } else {
        tb_node(g, "MatMul", 2, 1, da, db, *y);
    }
    graph_add_output(g, *y);
    return g;
}

static void test_dense_canonical(void **state)
{
    (void)state;
    for (int gemm = 0; gemm < 2; gemm++) {
        Diag d = quiet();
        int x, y;
        Graph *g = qdq_dense(gemm, &x, &y);
        assert_int_equal(pass_quant_canon(g, &d), 0);
        assert_int_equal(count_op(g, OP_GEMM) + count_op(g, OP_MATMUL), 0);
        assert_int_equal(count_op(g, OP_QUANTIZELINEAR), 0); /* the result stays float */
        const Node *last = producer(g, y);
        assert_int_equal(last->op, gemm ? OP_ADD : OP_MUL);
        const Node *mul = gemm ? producer(g, last->in[0]) : last;
        const Node *core = producer(g, producer(g, mul->in[0])->in[0]);
        assert_int_equal(core->op, OP_MATMULINTEGER);
        const Value *b = &g->values[core->in[1]];
        assert_int_equal(b->dtype, DT_INT8); /* B^T made at compile time: [GK, GN] */
        assert_int_equal(b->shape.dims[0], GK);
        assert_int_equal(b->shape.dims[1], GN);
        int8_t ad[GM * GK];
        for (int i = 0; i < GM * GK; i++)
            ad[i] = a_at(i);
        const float *got = run(g, x, ad, y);
        for (int m = 0; m < GM; m++)
            for (int n = 0; n < GN; n++) {
                int64_t acc = 0;
                for (int k = 0; k < GK; k++)
                    acc += (int64_t)(ad[m * GK + k] + 3) * b_at(n, k);
                double want = (double)acc * 0.02 * 0.01 * (n + 1);
                if (gemm)
                    want = 0.5 * want + 2.0 * (0.25 * n - 0.5);
                assert_true(fabs(got[m * GN + n] - want) <= 1e-5 * (1 + fabs(want)));
            }
        graph_free(g);
    }
}

/* ---- QLinearConv ---- */

static void test_qlinearconv(void **state)
{
    (void)state;
    Diag d = quiet();
    Graph *g = tb_graph(13);
    int x = tb_val(g, "x", DT_UINT8, 4, D4(1, C, H, H));
    graph_add_input(g, x);
    int8_t w[M * C * K * K], wz = 0;
    for (int i = 0; i < M * C * K * K; i++)
        w[i] = w_at(i);
    int64_t m1 = M;
    int y = graph_add_value(g, "y");
    int ins[9] = {x, scalar_f(g, "xs", XS), c8(g, "xz", DT_UINT8, 0, NULL, &XZ),
                  c8(g, "w", DT_INT8, 4, D4(M, C, K, K), w), c8(g, "ws", DT_FLOAT32, 1, &m1, WS),
                  c8(g, "wz", DT_INT8, 0, NULL, &wz), scalar_f(g, "ys", YS), c8(g, "yz", DT_UINT8, 0, NULL, &YZ),
                  c8(g, "b", DT_INT32, 1, &m1, BIAS)};
    int n = graph_add_node(g, "QLinearConv", NULL, 9, ins, 1, &y);
    node_set_ints(g, n, "pads", (int64_t[]){1, 1, 1, 1}, 4);
    graph_add_output(g, y);
    assert_int_equal(pass_quant_canon(g, &d), 0);
    assert_int_equal(count_op(g, OP_QLINEARCONV), 0);
    assert_int_equal(count_op(g, OP_CONVINTEGER), 1);
    assert_int_equal(producer(g, y)->op, OP_QUANTIZELINEAR);
    uint8_t *xd = conv_input();
    double want[M * H * H];
    conv_expect(xd, want);
    const uint8_t *got = run(g, x, xd, y);
    int off = 0;
    for (int i = 0; i < M * H * H; i++) {
        assert_true(fabs(got[i] - want[i]) <= 1.0);
        off += got[i] != want[i];
    }
    assert_true(off <= 1);
    free(xd);
    graph_free(g);
}

/* ---- moves: DQ -> op -> Q on the integers ---- */

/* x u8 [1,2,4,4] -> DQ(s, z) -> op -> Q(s2, z2) -> y */
static Graph *moved(const char *op, float s2, uint8_t z, uint8_t z2, int *x, int *y)
{
    Graph *g = tb_graph(13);
    *x = tb_val(g, "x", DT_UINT8, 4, D4(1, 2, 4, 4));
    graph_add_input(g, *x);
    int dx = dq(g, *x, scalar_f(g, "s", 0.07f), c8(g, "z", DT_UINT8, 0, NULL, &z), -1, "dx");
    int t = graph_add_value(g, "t");
    int n = tb_node(g, op, 1, 1, dx, t);
    if (strcmp(op, "MaxPool") == 0) {
        node_set_ints(g, n, "kernel_shape", (int64_t[]){2, 2}, 2);
        node_set_ints(g, n, "strides", (int64_t[]){2, 2}, 2);
    }
    *y = graph_add_value(g, "y");
    tb_node(g, "QuantizeLinear", 3, 1, t, scalar_f(g, "s2", s2), c8(g, "z2", DT_UINT8, 0, NULL, &z2), *y);
    graph_add_output(g, *y);
    return g;
}

static void test_moves(void **state)
{
    (void)state;
    uint8_t xd[32];
    for (int i = 0; i < 32; i++)
        xd[i] = (uint8_t)((i * 97) % 256);
    /* MaxPool with equal parameters: on the uint8 values, and the same numbers */
    Diag d = quiet();
    int x, y, xr, yr;
    Graph *g = moved("MaxPool", 0.07f, 3, 3, &x, &y), *ref = moved("MaxPool", 0.07f, 3, 3, &xr, &yr);
    assert_int_equal(pass_quant_moves(g, &d), 0);
    assert_int_equal(live_nodes(g), 1);
    const Node *p = producer(g, y);
    assert_int_equal(p->op, OP_MAXPOOL);
    assert_int_equal(p->in[0], x);
    const uint8_t *got = run(g, x, xd, y), *want = run(ref, xr, xd, yr);
    for (int i = 0; i < 8; i++) {
        int m = 0; /* the largest of the 2x2 window, from the input itself */
        int c = i / 4, oh = i % 4 / 2, ow = i % 2;
        for (int k = 0; k < 4; k++) {
            int v = xd[c * 16 + (oh * 2 + k / 2) * 4 + ow * 2 + k % 2];
            m = v > m ? v : m;
        }
        assert_int_equal(got[i], m);
        assert_int_equal(want[i], m);
    }
    graph_free(g);
    graph_free(ref);
    /* unequal scale or zero point: left alone */
    g = moved("MaxPool", 0.08f, 3, 3, &x, &y);
    assert_int_equal(pass_quant_moves(g, &d), 0);
    assert_int_equal(live_nodes(g), 3);
    graph_free(g);
    g = moved("Flatten", 0.07f, 3, 4, &x, &y);
    assert_int_equal(pass_quant_moves(g, &d), 0);
    assert_int_equal(live_nodes(g), 3);
    graph_free(g);
    /* Relu clamped by Q's zero point 0: the integers unchanged */
    g = moved("Relu", 0.07f, 0, 0, &x, &y);
    assert_int_equal(pass_quant_moves(g, &d), 0);
    assert_int_equal(live_nodes(g), 1);
    assert_int_equal(producer(g, y)->op, OP_IDENTITY);
    got = run(g, x, xd, y);
    assert_memory_equal(got, xd, 32);
    graph_free(g);
    /* Relu with zero point 3: Relu clamps at 3, not the type's minimum: left alone */
    g = moved("Relu", 0.07f, 3, 3, &x, &y);
    assert_int_equal(pass_quant_moves(g, &d), 0);
    assert_int_equal(count_op(g, OP_RELU), 1);
    graph_free(g);
}

/* DynamicQuantizeLinear -> MatMulInteger -> Cast -> Mul(scale * w_scale):
 * already canonical, untouched */
static void test_dynamic_untouched(void **state)
{
    (void)state;
    Diag d = quiet();
    Graph *g = tb_graph(13);
    int x = tb_input(g, "x", 2, D2(2, 4));
    int8_t w[12] = {1, -2, 3, 4, -5, 6, 7, 8, -9, 10, 11, 12};
    int q = graph_add_value(g, "q"), s = graph_add_value(g, "s"), z = graph_add_value(g, "z");
    tb_node(g, "DynamicQuantizeLinear", 1, 3, x, q, s, z);
    int acc = graph_add_value(g, "acc"), f = graph_add_value(g, "f"), sw = graph_add_value(g, "sw");
    tb_node(g, "MatMulInteger", 3, 1, q, c8(g, "w", DT_INT8, 2, D2(4, 3), w), z, acc);
    int cn = tb_node(g, "Cast", 1, 1, acc, f);
    node_set_int(g, cn, "to", 1);
    tb_node(g, "Mul", 2, 1, s, scalar_f(g, "ws", 0.1f), sw);
    int y = graph_add_value(g, "y");
    tb_node(g, "Mul", 2, 1, f, sw, y);
    graph_add_output(g, y);
    int before = live_nodes(g);
    assert_int_equal(pass_quant_canon(g, &d), 0);
    assert_int_equal(pass_quant_moves(g, &d), 0);
    assert_int_equal(live_nodes(g), before);
    assert_int_equal(count_op(g, OP_MATMULINTEGER), 1);
    graph_free(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_conv_canonical),
        cmocka_unit_test(test_conv_refused),
        cmocka_unit_test(test_dense_canonical),
        cmocka_unit_test(test_qlinearconv),
        cmocka_unit_test(test_moves),
        cmocka_unit_test(test_dynamic_untouched),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
