/* test_quant_lut.c - pass quant_lut on hand-built QDQ chains from an 8-bit
 * tensor u to a QuantizeLinear: GELU as a QDQ exporter writes it
 *   DQ(u) -> Div(sqrt 2) -> Erf -> Q -> DQ -> Add(1) -> Q -> DQ
 *         -> Mul(DQ(u), .) -> Q -> DQ -> Mul(0.5) -> Q -> y
 * on uint8 and int8 u. The chain must become one ctvm.Lut, and with u
 * made constant (all 256 byte values) the folded table lookup must equal,
 * bit for bit, the same chain folded node by node without the pass, and
 * lie within one step of y of the GELU written here in double precision.
 * The same with a Reshape to [1, 16, 16] after the first DequantizeLinear
 * (where sink_reshape puts onnxruntime's fc1 Reshape): one table, then a
 * Reshape to y's shape.
 * Chains the pass must leave alone: one without a transcendental operator
 * (it fuses as an epilogue), one with a per-element constant, and one whose
 * Reshape makes an operand broadcast to new positions. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "passes/passes.h"
#include "tests/unit/graph_build.h"

static const CodegenOptions GENERIC = {.target = NULL, .threads = 1};
static const float US = 0.045f, S1 = 0.0078f, S2 = 0.0078f, S3 = 0.021f, S4 = 0.0105f;

static int count_live(const Graph *g, const char *op_type)
{
    int n = 0;
    for (int i = 0; i < g->n_nodes; i++)
        n += !g->nodes[i].dead && strcmp(g->nodes[i].op_type, op_type) == 0;
    return n;
}

static int scalar_f(Graph *g, const char *name, float v)
{
    return graph_add_const(g, name, DT_FLOAT32, shape_make(0, NULL), &v);
}

static int zp(Graph *g, const char *name, DType t, int v)
{
    uint8_t u = (uint8_t)v;
    int8_t s = (int8_t)v;
    return graph_add_const(g, name, t, shape_make(0, NULL), t == DT_INT8 ? (const void *)&s : &u);
}

static int fresh(Graph *g)
{
    char name[32];
    snprintf(name, sizeof name, "v%d", g->n_values);
    return graph_add_value(g, name);
}

static int dq(Graph *g, int x, int s, int z)
{
    int y = fresh(g);
    tb_node(g, "DequantizeLinear", 3, 1, x, s, z, y);
    return y;
}

static int q(Graph *g, int x, int s, int z)
{
    int y = fresh(g);
    tb_node(g, "QuantizeLinear", 3, 1, x, s, z, y);
    return y;
}

static int bin(Graph *g, const char *op, int a, int b)
{
    int y = fresh(g);
    tb_node(g, op, 2, 1, a, b, y);
    return y;
}

/* u [16,16] of type t -> the GELU chain -> y of type t (zero points
 * around the middle of t's range); *u_out, *y_out: the values. */
static Graph *gelu_chain(DType t, int reshaped, int *u_out, int *y_out)
{
    Graph *g = tb_graph(13);
    int mid = t == DT_INT8 ? 0 : 128;
    int64_t dims[2] = {16, 16}, to[3] = {1, 16, 16}, three = 3;
    int u = tb_val(g, "u", t, 2, dims);
    graph_add_input(g, u);
    int x = dq(g, u, scalar_f(g, "us", US), zp(g, "uz", t, mid + 3));
    if (reshaped) {
        int r = fresh(g);
        tb_node(g, "Reshape", 2, 1, x, tb_ci(g, "to", 1, &three, to), r);
        x = r;
    }
    int e = bin(g, "Div", x, scalar_f(g, "sqrt2", 1.41421356f));
    int erf = graph_add_value(g, "erf");
    tb_node(g, "Erf", 1, 1, e, erf);
    int z1 = zp(g, "z1", t, mid), z2 = zp(g, "z2", t, mid - 128), z3 = zp(g, "z3", t, mid - 20);
    int a = dq(g, q(g, erf, scalar_f(g, "s1", S1), z1), scalar_f(g, "s1b", S1), z1);
    a = bin(g, "Add", a, scalar_f(g, "one", 1.0f));
    a = dq(g, q(g, a, scalar_f(g, "s2", S2), z2), scalar_f(g, "s2b", S2), z2);
    a = bin(g, "Mul", x, a);
    a = dq(g, q(g, a, scalar_f(g, "s3", S3), z3), scalar_f(g, "s3b", S3), z3);
    a = bin(g, "Mul", a, scalar_f(g, "half", 0.5f));
    int y = q(g, a, scalar_f(g, "s4", S4), zp(g, "z4", t, mid - 20));
    graph_add_output(g, y);
    *u_out = u;
    *y_out = y;
    return g;
}

/* y for every byte value of u: u made a constant, the graph folded. */
static void fold_all_bytes(Graph *g, int u, int y, DType t, uint8_t *out)
{
    uint8_t *ud = arena_alloc(g->arena, 256);
    for (int k = 0; k < 256; k++)
        ud[k] = (uint8_t)k;
    g->values[u].data = ud;
    Diag d = quiet();
    assert_int_equal(pass_infer_fold(g, &GENERIC, &d), 0);
    assert_non_null(g->values[y].data);
    assert_int_equal(g->values[y].dtype, t);
    memcpy(out, g->values[y].data, 256);
}

static int round_sat(double v, int lo, int hi)
{
    double r = nearbyint(v);
    return r < lo ? lo : r > hi ? hi : (int)r;
}

static void check_gelu(DType t, int reshaped)
{
    int u, y;
    Diag d = quiet();
    Graph *g = gelu_chain(t, reshaped, &u, &y);
    assert_int_equal(pass_infer_fold(g, &GENERIC, &d), 0);
    assert_int_equal(pass_quant_lut(g, &d), 0);
    assert_int_equal(pass_infer_fold(g, &GENERIC, &d), 0); /* the table's copies of the chain fold */
    assert_int_equal(count_live(g, "ctvm.Lut"), 1);
    assert_int_equal(count_live(g, "Erf"), 0);
    assert_int_equal(count_live(g, "QuantizeLinear"), 0);
    assert_int_equal(count_live(g, "Reshape"), reshaped); /* the table's output to y's shape */
    assert_int_equal(g->values[y].shape.rank, reshaped ? 3 : 2);
    uint8_t got[256], want[256];
    fold_all_bytes(g, u, y, t, got);
    graph_free(g);

    Graph *plain = gelu_chain(t, reshaped, &u, &y); /* the same chain, node by node */
    assert_int_equal(pass_infer_fold(plain, &GENERIC, &d), 0);
    fold_all_bytes(plain, u, y, t, want);
    graph_free(plain);
    assert_memory_equal(got, want, 256);

    int lo = t == DT_INT8 ? -128 : 0, hi = t == DT_INT8 ? 127 : 255, mid = t == DT_INT8 ? 0 : 128, far = 0;
    for (int k = 0; k < 256; k++) { /* GELU in double, quantized once at the end */
        int uv = t == DT_INT8 ? (int8_t)k : k;
        double xv = (uv - (mid + 3)) * (double)US;
        int ref = round_sat(0.5 * xv * (1 + erf(xv / sqrt(2.0))) / S4 + (mid - 20), lo, hi);
        int gv = t == DT_INT8 ? (int8_t)got[k] : got[k];
        far += abs(gv - ref) > 1;
    }
    assert_int_equal(far, 0);
}

static void test_gelu_u8(void **state)
{
    (void)state;
    check_gelu(DT_UINT8, 0);
}

static void test_gelu_s8(void **state)
{
    (void)state;
    check_gelu(DT_INT8, 0);
}

static void test_gelu_reshaped(void **state)
{
    (void)state;
    check_gelu(DT_UINT8, 1);
    check_gelu(DT_INT8, 1);
}

/* Erf(f) -> Q -> DQ -> Add(1) -> Q: the output of a chain with a
 * transcendental operator and two steps, so only what lies under f can
 * keep it from becoming a table. */
static int erf_steps(Graph *g, int f)
{
    int e = fresh(g), z1 = zp(g, "z1", DT_UINT8, 128);
    tb_node(g, "Erf", 1, 1, f, e);
    e = dq(g, q(g, e, scalar_f(g, "s1", 0.01f), z1), scalar_f(g, "s1b", 0.01f), z1);
    return q(g, bin(g, "Add", e, scalar_f(g, "one", 1.0f)), scalar_f(g, "s2", 0.01f), zp(g, "z2", DT_UINT8, 0));
}

/* y made the output, the passes run: no table. */
static void assert_left_alone(Graph *g, int y)
{
    Diag d = quiet();
    graph_add_output(g, y);
    assert_int_equal(pass_infer_fold(g, &GENERIC, &d), 0);
    assert_int_equal(pass_quant_lut(g, &d), 0);
    assert_int_equal(count_live(g, "ctvm.Lut"), 0);
    graph_free(g);
}

static void test_left_alone(void **state)
{
    (void)state;
    int64_t dims[2] = {4, 8}, row = 8;
    /* DQ -> Div -> Q: no transcendental operator */
    Graph *g = tb_graph(13);
    int u = tb_val(g, "u", DT_UINT8, 2, dims);
    graph_add_input(g, u);
    int x = dq(g, u, scalar_f(g, "s", 0.1f), zp(g, "z", DT_UINT8, 128));
    assert_left_alone(g, q(g, bin(g, "Div", x, scalar_f(g, "k", 8.0f)), scalar_f(g, "s2", 0.02f),
                           zp(g, "z2", DT_UINT8, 128)));
    /* a per-column constant: the result depends on the position, not the byte alone */
    g = tb_graph(13);
    u = tb_val(g, "u", DT_UINT8, 2, dims);
    graph_add_input(g, u);
    float cols[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    x = dq(g, u, scalar_f(g, "s", 0.1f), zp(g, "z", DT_UINT8, 128));
    assert_left_alone(g, erf_steps(g, bin(g, "Mul", x, tb_cf(g, "cols", 1, &row, cols))));
    /* x [1, 32] times its Reshape to [32, 1]: a [32, 32] product, each
     * element two bytes of u */
    g = tb_graph(13);
    int64_t flat[2] = {1, 32}, col[2] = {32, 1}, two = 2;
    u = tb_val(g, "u", DT_UINT8, 2, flat);
    graph_add_input(g, u);
    x = dq(g, u, scalar_f(g, "s", 0.1f), zp(g, "z", DT_UINT8, 128));
    int xr = fresh(g);
    tb_node(g, "Reshape", 2, 1, x, tb_ci(g, "col", 1, &two, col), xr);
    assert_left_alone(g, erf_steps(g, bin(g, "Mul", x, xr)));
    /* 60 levels of Add(x, x) over a float input (no byte to make a table
     * of): left alone, each shared operand looked at once (a search that
     * retried both operands of every Add would take 2^60 steps) */
    g = tb_graph(13);
    int f = tb_val(g, "f", DT_FLOAT32, 2, dims);
    graph_add_input(g, f);
    for (int k = 0; k < 60; k++)
        f = bin(g, "Add", f, f);
    assert_left_alone(g, erf_steps(g, f));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gelu_u8),
        cmocka_unit_test(test_gelu_s8),
        cmocka_unit_test(test_gelu_reshaped),
        cmocka_unit_test(test_left_alone),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
