/* test_loop.c - unit tests of the loop IR (ir/loop.h) and its lowering to C
 * (emit_c/emit_loop.h): builder simplification (constant folding, x+0, x*1,
 * x*0, (x+c1)+c2, constant selects), substitution, float literal printing,
 * and hand-built loop nests (an elementwise kernel with an if, a reduction
 * through an ST_ALLOC accumulator) printed with emit_kernel, compiled with
 * gcc -std=c99 -pedantic -Werror, run, and checked against values computed
 * here. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "emit_c/emit.h"
#include "emit_c/emit_loop.h"
#include "ir/loop.h"
#include "tests/unit/cc_run.h"

static LoopBuilder new_lb(void)
{
    LoopBuilder lb;
    memset(&lb, 0, sizeof lb);
    lb.arena = arena_new();
    return lb;
}

/* loop_print_expr into a string (static buffer, overwritten by each call) */
static const char *pe(const Expr *e)
{
    static char out[4][512];
    static int k;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    loop_print_expr(f, e);
    fclose(f);
    char *o = out[k++ & 3];
    snprintf(o, 512, "%s", buf);
    free(buf);
    return o;
}

/* emit_expr into a string */
static const char *ce(const Expr *e)
{
    static char out[512];
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    emit_expr(f, e);
    fclose(f);
    snprintf(out, sizeof out, "%s", buf);
    free(buf);
    return out;
}

static void test_fold_constants(void **state)
{
    (void)state;
    LoopBuilder lb = new_lb();
    Expr *two = lx_int(&lb, 2), *three = lx_int(&lb, 3);
    struct {
        BinOp op;
        int64_t want;
    } cases[] = {{BO_ADD, 5}, {BO_SUB, -1}, {BO_MUL, 6}, {BO_DIV, 0}, {BO_MOD, 2}, {BO_MIN, 2},
                 {BO_MAX, 3}, {BO_LT, 1},   {BO_LE, 1},  {BO_GE, 0},  {BO_EQ, 0},  {BO_AND, 1}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        Expr *e = lx_bin(&lb, cases[i].op, two, three);
        assert_int_equal(e->kind, EX_INT);
        assert_int_equal(e->type, LT_INT);
        assert_int_equal(e->i, cases[i].want);
    }
    /* division by a zero constant is not folded (no trap in the compiler) */
    Expr *z = lx_bin(&lb, BO_DIV, two, lx_int(&lb, 0));
    assert_int_equal(z->kind, EX_BIN);
    /* nested: (2*3 + 4) * 5 */
    Expr *n = lx_mul(&lb, lx_add(&lb, lx_mul(&lb, two, three), lx_int(&lb, 4)), lx_int(&lb, 5));
    assert_string_equal(pe(n), "50");
    arena_free(lb.arena);
}

static void test_identities(void **state)
{
    (void)state;
    LoopBuilder lb = new_lb();
    LVar *x = lv_new(&lb, "x");
    Expr *xe = lx_var(&lb, x);
    assert_string_equal(pe(xe), "x_0");
    assert_ptr_equal(lx_add(&lb, xe, lx_int(&lb, 0)), xe);
    assert_ptr_equal(lx_add(&lb, lx_int(&lb, 0), xe), xe);
    assert_ptr_equal(lx_mul(&lb, xe, lx_int(&lb, 1)), xe);
    assert_ptr_equal(lx_mul(&lb, lx_int(&lb, 1), xe), xe);
    assert_ptr_equal(lx_bin(&lb, BO_SUB, xe, lx_int(&lb, 0)), xe);
    assert_ptr_equal(lx_bin(&lb, BO_DIV, xe, lx_int(&lb, 1)), xe);
    assert_string_equal(pe(lx_mul(&lb, xe, lx_int(&lb, 0))), "0");
    assert_string_equal(pe(lx_mul(&lb, lx_int(&lb, 0), xe)), "0");
    assert_string_equal(pe(lx_bin(&lb, BO_MOD, xe, lx_int(&lb, 1))), "0");
    /* (x + 3) + 4 -> x + 7, constants to the right, x - 2 -> x + -2 */
    assert_string_equal(pe(lx_add(&lb, lx_add(&lb, xe, lx_int(&lb, 3)), lx_int(&lb, 4))), "(x_0 + 7)");
    assert_string_equal(pe(lx_add(&lb, lx_int(&lb, 3), xe)), "(x_0 + 3)");
    assert_string_equal(pe(lx_muli(&lb, xe, 4)), "(x_0 * 4)");
    assert_string_equal(pe(lx_mul(&lb, lx_int(&lb, 4), xe)), "(x_0 * 4)");
    assert_string_equal(pe(lx_bin(&lb, BO_SUB, xe, lx_int(&lb, 2))), "(x_0 + -2)");
    assert_string_equal(pe(lx_add(&lb, lx_bin(&lb, BO_SUB, xe, lx_int(&lb, 2)), lx_int(&lb, 2))), "x_0");
    /* comparisons of index values are index values; of typed values, bool */
    Expr *fx = lx_call(&lb, CO_ITOF, xe);
    Expr *lt = lx_bin(&lb, BO_LT, fx, lx_float(&lb, 1.5));
    assert_int_equal(lt->type, LT_BOOL);
    assert_int_equal(lx_bin(&lb, BO_LT, xe, lx_int(&lb, 2))->type, LT_IDX);
    assert_string_equal(pe(lt), "(f32(x_0) < 1.5f)");
    /* float x + 0.0 and x * 1.0 vanish; x * 0.0 must not (NaN * 0 is NaN) */
    assert_ptr_equal(lx_add(&lb, fx, lx_float(&lb, 0.0)), fx);
    assert_ptr_equal(lx_mul(&lb, fx, lx_float(&lb, 1.0)), fx);
    assert_int_equal(lx_mul(&lb, fx, lx_float(&lb, 0.0))->kind, EX_BIN);
    assert_string_equal(pe(lx_bin(&lb, BO_MAX, fx, lx_float(&lb, 0))), "max(f32(x_0), 0f)");
    arena_free(lb.arena);
}

static void test_select_and_subst(void **state)
{
    (void)state;
    LoopBuilder lb = new_lb();
    LVar *x = lv_new(&lb, "x"), *y = lv_new(&lb, "y");
    LBuf *in = lbuf_new(&lb, "in", LB_INPUT, 64);
    Expr *a = lx_float(&lb, 1.0), *b = lx_float(&lb, 2.0);
    assert_ptr_equal(lx_select(&lb, lx_int(&lb, 1), a, b), a);
    assert_ptr_equal(lx_select(&lb, lx_int(&lb, 0), a, b), b);
    assert_ptr_equal(lx_select(&lb, lx_bin(&lb, BO_LT, lx_int(&lb, 2), lx_int(&lb, 3)), a, b), a);
    Expr *cond = lx_bin(&lb, BO_LT, lx_var(&lb, x), lx_int(&lb, 4));
    Expr *sel = lx_select(&lb, cond, a, b);
    assert_int_equal(sel->kind, EX_SELECT);
    assert_int_equal(sel->type, LT_FLOAT);
    assert_string_equal(pe(sel), "select((x_0 < 4), 1f, 2f)");

    /* in[x*4 + y] with x := 2 -> in[y + 8] */
    Expr *idx = lx_add(&lb, lx_muli(&lb, lx_var(&lb, x), 4), lx_var(&lb, y));
    Expr *ld = lx_load(&lb, in, idx);
    assert_string_equal(pe(ld), "in[((x_0 * 4) + y_1)]");
    assert_true(lx_uses_var(ld, x));
    Expr *s = lx_subst(&lb, ld, x, lx_int(&lb, 2));
    assert_string_equal(pe(s), "in[(y_1 + 8)]");
    assert_false(lx_uses_var(s, x));
    assert_string_equal(pe(ld), "in[((x_0 * 4) + y_1)]"); /* original untouched */
    /* an expression not using the var comes back as is */
    Expr *only_y = lx_load(&lb, in, lx_var(&lb, y));
    assert_ptr_equal(lx_subst(&lb, only_y, x, lx_int(&lb, 0)), only_y);
    /* substituting into a select's condition folds the select */
    assert_ptr_equal(lx_subst(&lb, sel, x, lx_int(&lb, 1)), a);
    assert_ptr_equal(lx_subst(&lb, sel, x, lx_int(&lb, 9)), b);
    /* x := y + 1 */
    Expr *s2 = lx_subst(&lb, idx, x, lx_add(&lb, lx_var(&lb, y), lx_int(&lb, 1)));
    assert_string_equal(pe(s2), "(((y_1 + 1) * 4) + y_1)");

    /* ls_subst on a statement */
    LBuf *out = lbuf_new(&lb, "out", LB_OUTPUT, 64);
    Stmt *st = ls_for(&lb, y, 4, LOOP_SERIAL, ls_store(&lb, out, idx, ld));
    Stmt *st2 = ls_subst(&lb, st, x, lx_int(&lb, 3));
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    loop_print(f, st2, 0);
    fclose(f);
    assert_string_equal(buf, "for y_1 in 0..4 {\n  out[(y_1 + 12)] = in[(y_1 + 12)]\n}\n");
    free(buf);
    arena_free(lb.arena);
}

static void test_float_literals(void **state)
{
    (void)state;
    LoopBuilder lb = new_lb();
    assert_string_equal(ce(lx_float(&lb, 1.0)), "1.0f");
    assert_string_equal(ce(lx_float(&lb, 0.0)), "0.0f");
    assert_string_equal(ce(lx_float(&lb, 0.5)), "0.5f");
    assert_string_equal(ce(lx_float(&lb, -2.5)), "(-2.5f)");
    assert_string_equal(ce(lx_float(&lb, 1e30)), "1.00000002e+30f");
    assert_string_equal(ce(lx_float(&lb, 100.0)), "100.0f");
    assert_string_equal(ce(lx_float(&lb, INFINITY)), "(INFINITY)");
    assert_string_equal(ce(lx_float(&lb, -INFINITY)), "(-INFINITY)");
    assert_string_equal(ce(lx_float(&lb, NAN)), "(NAN)");
    assert_string_equal(ce(lx_int(&lb, -3)), "(-3)");
    /* x - -1.5 must not print as "x--1.5f" */
    LVar *x = lv_new(&lb, "x");
    Expr *d = lx_bin(&lb, BO_SUB, lx_call(&lb, CO_ITOF, lx_var(&lb, x)), lx_float(&lb, -1.5));
    assert_string_equal(ce(d), "(((float)x_0) - (-1.5f))");
    arena_free(lb.arena);
}

/* Kernel text of `body` named `name` (malloc'd). */
static char *kernel_text(const char *name, const Stmt *body, KernelParams *p)
{
    assert_int_equal(kernel_collect_params(body, p), 0);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    emit_kernel_text(f, name, "test kernel", body, p, 0);
    fclose(f);
    return buf;
}

/* runtime + scalar vector API and its math (as emit_c pastes them for the
 * generic target) + kernels + main, compiled and run; returns stdout
 * (malloc'd) */
static char *build_and_run(const char *kernels, const char *main_text)
{
    const char *rt = ctvm_embedded_find("runtime_min/ctvm_runtime.h");
    const char *vec = ctvm_embedded_find("templates/ctvm_vec_scalar.h");
    const char *math = ctvm_embedded_find("templates/ctvm_vec_math.h");
    assert_non_null(rt);
    assert_non_null(vec);
    assert_non_null(math);
    size_t n = strlen(rt) + strlen(vec) + strlen(math) + strlen(kernels) + strlen(main_text) + 64;
    char *text = malloc(n);
    snprintf(text, n, "#include <stdio.h>\n%s\n%s\n%s\n%s\n%s", rt, vec, math, kernels, main_text);
    CcDir c;
    assert_int_equal(cc_dir_open(&c), 0);
    int rc = cc_compile(&c, text, 0);
    if (rc != 0) {
        fprintf(stderr, "---- source ----\n%s\n", kernels);
        cc_dir_close(&c);
        free(text);
        fail_msg("generated kernel does not compile");
    }
    char *out = cc_run(&c);
    cc_dir_close(&c);
    free(text);
    assert_non_null(out);
    return out;
}

static void parse_floats(const char *s, float *v, int n)
{
    char *end;
    for (int i = 0; i < n; i++) {
        v[i] = strtof(s, &end);
        if (end == s)
            fail_msg("program printed only %d of %d numbers", i, n);
        s = end;
    }
}

/* out[i] = max(in[i]*2 + 1, 0) for i < 8; then, for i >= 5, out[i] = -in[i]
 * (an ST_IF inside an unrolled loop) and out[8] = sigmoid(in[0]) via a
 * constant index and a call. */
static void test_lower_eltwise(void **state)
{
    (void)state;
    LoopBuilder lb = new_lb();
    LBuf *in = lbuf_new(&lb, "in", LB_INPUT, 8), *out = lbuf_new(&lb, "out", LB_OUTPUT, 9);
    LVar *i = lv_new(&lb, "i"), *j = lv_new(&lb, "j");
    Expr *v = lx_add(&lb, lx_mul(&lb, lx_load(&lb, in, lx_var(&lb, i)), lx_float(&lb, 2.0)), lx_float(&lb, 1.0));
    Stmt *s1 = ls_for(&lb, i, 8, LOOP_SERIAL,
                      ls_store(&lb, out, lx_var(&lb, i), lx_bin(&lb, BO_MAX, v, lx_float(&lb, 0.0))));
    Stmt *s2 = ls_for(&lb, j, 8, LOOP_UNROLL,
                      ls_if(&lb, lx_bin(&lb, BO_GE, lx_var(&lb, j), lx_int(&lb, 5)),
                            ls_store(&lb, out, lx_var(&lb, j),
                                     lx_call(&lb, CO_NEG, lx_load(&lb, in, lx_var(&lb, j))))));
    Stmt *s3 = ls_store(&lb, out, lx_int(&lb, 8), lx_call(&lb, CO_SIGMOID, lx_load(&lb, in, lx_int(&lb, 0))));
    Stmt *items[] = {s1, NULL, s2, s3};
    Stmt *body = ls_seq(&lb, 4, items);
    assert_int_equal(body->n, 3);

    KernelParams p;
    char *k = kernel_text("k_elt", body, &p);
    assert_int_equal(p.n, 2);
    assert_ptr_equal(p.buf[0], in);
    assert_int_equal(p.written[0], 0);
    assert_ptr_equal(p.buf[1], out);
    assert_int_equal(p.written[1], 1);
    assert_non_null(strstr(k, "static void k_elt(const float *CTVM_RESTRICT b0, float *CTVM_RESTRICT b1)"));

    float x[8] = {-3.0f, -0.5f, -0.25f, 0.0f, 0.75f, 1.5f, -2.0f, 10.0f};
    const char *main_text =
        "int main(void)\n{\n"
        "    float in[8] = {-3.0f, -0.5f, -0.25f, 0.0f, 0.75f, 1.5f, -2.0f, 10.0f};\n"
        "    float out[9];\n    int i;\n"
        "    k_elt(in, out);\n"
        "    for (i = 0; i < 9; i++) printf(\"%.9g\\n\", out[i]);\n"
        "    return 0;\n}\n";
    char *res = build_and_run(k, main_text);
    float got[9], want[9];
    for (int t = 0; t < 8; t++)
        want[t] = t >= 5 ? -x[t] : fmaxf(x[t] * 2.0f + 1.0f, 0.0f);
    want[8] = 1.0f / (1.0f + expf(3.0f));
    parse_floats(res, got, 9);
    for (int t = 0; t < 9; t++)
        if (fabsf(got[t] - want[t]) > 1e-6f)
            fail_msg("out[%d] = %g, want %g", t, got[t], want[t]);
    free(res);
    free(k);
    arena_free(lb.arena);
}

/* out[r] = (r < 2 ? acc : |acc|) + 0.5, acc = sum_k in[r*5+k] * w[k] - max over k,
 * with two ST_ALLOC accumulators; r over a parallel loop. */
static void test_lower_reduction(void **state)
{
    (void)state;
    LoopBuilder lb = new_lb();
    LBuf *in = lbuf_new(&lb, "in", LB_INPUT, 20), *w = lbuf_new(&lb, "w", LB_CONST, 5);
    LBuf *out = lbuf_new(&lb, "out", LB_OUTPUT, 4);
    LBuf *acc = lbuf_new(&lb, "acc", LB_LOCAL, 1), *mx = lbuf_new(&lb, "mx", LB_LOCAL, 1);
    LVar *r = lv_new(&lb, "r"), *k = lv_new(&lb, "k");
    Expr *zero = lx_int(&lb, 0);
    Expr *x = lx_load(&lb, in, lx_add(&lb, lx_muli(&lb, lx_var(&lb, r), 5), lx_var(&lb, k)));
    Stmt *red = ls_for(&lb, k, 5, LOOP_SERIAL,
                       ls_seq2(&lb,
                               ls_store(&lb, acc, zero,
                                        lx_add(&lb, lx_load(&lb, acc, zero),
                                               lx_mul(&lb, x, lx_load(&lb, w, lx_var(&lb, k))))),
                               ls_store(&lb, mx, zero, lx_bin(&lb, BO_MAX, lx_load(&lb, mx, zero), x))));
    Expr *a = lx_bin(&lb, BO_SUB, lx_load(&lb, acc, zero), lx_load(&lb, mx, zero));
    Expr *fin = lx_add(&lb,
                       lx_select(&lb, lx_bin(&lb, BO_LT, lx_var(&lb, r), lx_int(&lb, 2)), a,
                                 lx_call(&lb, CO_ABS, a)),
                       lx_float(&lb, 0.5));
    Stmt *init[] = {ls_store(&lb, acc, zero, lx_float(&lb, 0.0)),
                    ls_store(&lb, mx, zero, lx_float(&lb, -INFINITY)), red,
                    ls_store(&lb, out, lx_var(&lb, r), fin)};
    Stmt *body = ls_for(&lb, r, 4, LOOP_PARALLEL,
                        ls_alloc(&lb, acc, ls_alloc(&lb, mx, ls_seq(&lb, 4, init))));

    KernelParams p;
    char *kt = kernel_text("k_red", body, &p);
    assert_int_equal(p.n, 3); /* locals are not parameters */
    assert_ptr_equal(p.buf[0], in);
    assert_ptr_equal(p.buf[1], w);
    assert_ptr_equal(p.buf[2], out);
    assert_non_null(strstr(kt, "(-INFINITY)"));

    float xin[20], wv[5] = {0.5f, -1.0f, 2.0f, 0.25f, -0.75f};
    for (int t = 0; t < 20; t++)
        xin[t] = (float)((t * 7) % 11) - 5.0f;
    /* main with the same data */
    char main_text[2048];
    int n = snprintf(main_text, sizeof main_text, "int main(void)\n{\n    float in[20] = {");
    for (int t = 0; t < 20; t++)
        n += snprintf(main_text + n, sizeof main_text - (size_t)n, "%.1ff, ", (double)xin[t]);
    n += snprintf(main_text + n, sizeof main_text - (size_t)n, "};\n    float w[5] = {");
    for (int t = 0; t < 5; t++)
        n += snprintf(main_text + n, sizeof main_text - (size_t)n, "%.2ff, ", (double)wv[t]);
    snprintf(main_text + n, sizeof main_text - (size_t)n,
             "};\n    float out[4];\n    int i;\n    k_red(in, w, out);\n"
             "    for (i = 0; i < 4; i++) printf(\"%%.9g\\n\", out[i]);\n    return 0;\n}\n");
    char *res = build_and_run(kt, main_text);
    float got[4];
    parse_floats(res, got, 4);
    for (int rr = 0; rr < 4; rr++) {
        float s = 0.0f, m = -INFINITY;
        for (int kk = 0; kk < 5; kk++) {
            s += xin[rr * 5 + kk] * wv[kk];
            m = fmaxf(m, xin[rr * 5 + kk]);
        }
        float av = s - m;
        float want = (rr < 2 ? av : fabsf(av)) + 0.5f;
        if (fabsf(got[rr] - want) > 1e-5f)
            fail_msg("out[%d] = %g, want %g", rr, got[rr], want);
    }
    free(res);
    free(kt);
    arena_free(lb.arena);
}

/* Float constants survive the trip through C text bit for bit. */
static void test_float_constants_compile(void **state)
{
    (void)state;
    static const double vals[] = {1.0, -1.0, 0.1, -0.1, 1e30, -3e-39, 16777216.0, 3.14159265358979,
                                  -INFINITY, INFINITY, 0.0, 123456.789, 1e-7};
    enum { N = sizeof vals / sizeof vals[0] };
    LoopBuilder lb = new_lb();
    LBuf *out = lbuf_new(&lb, "out", LB_OUTPUT, N);
    Stmt *items[N];
    for (int i = 0; i < N; i++)
        items[i] = ls_store(&lb, out, lx_int(&lb, i), lx_float(&lb, vals[i]));
    KernelParams p;
    char *kt = kernel_text("k_const", ls_seq(&lb, N, items), &p);
    char main_text[512];
    snprintf(main_text, sizeof main_text,
             "int main(void)\n{\n    float out[%d];\n    int i;\n    k_const(out);\n"
             "    for (i = 0; i < %d; i++) printf(\"%%.9g\\n\", out[i]);\n    return 0;\n}\n",
             N, N);
    char *res = build_and_run(kt, main_text);
    float got[N];
    parse_floats(res, got, N);
    for (int i = 0; i < N; i++) {
        float want = (float)vals[i];
        if (memcmp(&got[i], &want, sizeof want) != 0)
            fail_msg("constant %d: got %.9g, want %.9g", i, (double)got[i], (double)want);
    }
    free(res);
    free(kt);
    arena_free(lb.arena);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fold_constants),
        cmocka_unit_test(test_identities),
        cmocka_unit_test(test_select_and_subst),
        cmocka_unit_test(test_float_literals),
        cmocka_unit_test(test_lower_eltwise),
        cmocka_unit_test(test_lower_reduction),
        cmocka_unit_test(test_float_constants_compile),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
