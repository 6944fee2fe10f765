/* test_emit.c - the weight blob and model assembly: weights_add alignment and
 * bytes; weights_emit text compiled by gcc -std=c99 -pedantic -Werror with a
 * tiny main that reads every byte and some floats back through CTVM_W
 * (escaping of 0, '"', '\\', '?', digits after octal escapes, 0xff, and a
 * blob spanning several 4092-byte rows); constants split over several
 * parts, read back through weights_print_ref's expressions; emit_model on a small graph run
 * through every pass: API names, runtime banner, and a compiled, linked run
 * whose outputs are checked; a zero-byte first constant (no NULL pointer
 * reaches memset/memcpy: run under UBSan to see it). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

#include "emit_c/emit.h"
#include "emit_graph.h"
#include "emit_c/emit_weights.h"
#include "passes/passes.h"
#include "tests/unit/cc_run.h"
#include "tests/unit/graph_build.h"

static void test_weights_add_aligns(void **state)
{
    (void)state;
    WeightBlob w;
    memset(&w, 0, sizeof w);
    unsigned char a[3] = {1, 2, 3}, b[100];
    for (int i = 0; i < 100; i++)
        b[i] = (unsigned char)(200 + i);
    assert_int_equal(weights_add(&w, a, 3), 0);
    assert_int_equal(weights_add(&w, b, 100), 64);
    assert_int_equal(weights_add(&w, a, 3), 192);
    assert_int_equal(weights_add(&w, b, 64), 256);
    assert_int_equal(weights_add(&w, a, 1), 320);
    assert_int_equal(w.size, 321);
    assert_memory_equal(w.bytes, a, 3);
    assert_memory_equal(w.bytes + 64, b, 100);
    assert_memory_equal(w.bytes + 256, b, 64);
    for (int i = 3; i < 64; i++)
        assert_int_equal(w.bytes[i], 0); /* padding is zero */
    /* growth past the first allocation keeps earlier bytes */
    static unsigned char big[100000];
    for (size_t i = 0; i < sizeof big; i++)
        big[i] = (unsigned char)(i * 31);
    assert_int_equal(weights_add(&w, big, sizeof big), 384);
    assert_memory_equal(w.bytes + 64, b, 100);
    assert_memory_equal(w.bytes + 384, big, sizeof big);
    weights_free(&w);
    assert_null(w.bytes);
    assert_int_equal(w.size, 0);
}

static void test_weights_emit_empty(void **state)
{
    (void)state;
    WeightBlob w;
    memset(&w, 0, sizeof w);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    weights_emit(f, &w);
    fclose(f);
    assert_int_equal(len, 0);
    free(buf);
}

/* Every byte of the blob and some floats through CTVM_W, compiled and run. */
static void weights_roundtrip(int raw)
{
    WeightBlob w;
    memset(&w, 0, sizeof w);
    w.raw_text = raw;
    /* tricky bytes: escapes, octal followed by digits, trigraph starters */
    static const unsigned char tricky[] = {0,    '1', '"', '\\', '?', '?', '=', 0xff, '7', 7,   '8', 0,
                                           0,    '0', 077, '7',  0100, '1', '\n', '\t', 0x7f, 0x80, '?',
                                           '?',  '/', '\r', 0,   '9', 'a',  0x1b, '2',  '*', '/', 0xff};
    int64_t o1 = weights_add(&w, tricky, sizeof tricky);
    unsigned char all[512];
    for (int i = 0; i < 512; i++)
        all[i] = (unsigned char)(i < 256 ? i : 511 - i);
    int64_t o2 = weights_add(&w, all, sizeof all);
    enum { NF = 3000 }; /* 12000 bytes: spans rows */
    float *fl = malloc(NF * sizeof(float));
    for (int i = 0; i < NF; i++)
        fl[i] = (float)i * 0.37f - 100.0f + (i % 7 == 0 ? 1e-30f : 0.0f);
    fl[5] = -0.0f;
    fl[6] = 3.4e38f;
    fl[7] = 1.4e-45f;
    int64_t o3 = weights_add(&w, fl, NF * sizeof(float));
    assert_int_equal(o1, 0);
    assert_int_equal(o2, 64);
    assert_int_equal(o3, 576);
    assert_true(w.size > 2 * CTVM_ROW);

    char *blob = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&blob, &len);
    weights_emit(f, &w);
    fclose(f);
    assert_non_null(strstr(blob, "#define CTVM_W(off)"));
    /* raw text holds byte 0xff as itself (and never 0xe2); octal text is ASCII */
    int high = 0, e2 = 0;
    for (size_t i = 0; i < len; i++) {
        high |= (unsigned char)blob[i] == 0xff;
        e2 |= (unsigned char)blob[i] == 0xe2;
    }
    assert_int_equal(high, raw);
    assert_int_equal(e2, 0);
    size_t cap = len + 2048;
    char *text = malloc(cap);
    snprintf(text, cap,
             "#include <stdio.h>\n#define CTVM_WEIGHTS_SECTION\n#define CTVM_DATA_ALIGN\n%s"
             "int main(void)\n{\n"
             "    const unsigned char *p = (const unsigned char *)(const void *)CTVM_W(0);\n"
             "    long i;\n"
             "    printf(\"%%lu\\n\", (unsigned long)sizeof ctvm_blob.rows);\n"
             "    for (i = 0; i < %lld; i++) printf(\"%%02x\", p[i]);\n"
             "    printf(\"\\n\");\n"
             "    for (i = 0; i < %d; i += 97) printf(\"%%.9g\\n\", (double)CTVM_W(%lld)[i]);\n"
             "    printf(\"%%.9g %%.9g %%.9g\\n\", (double)CTVM_W(%lld)[5], (double)CTVM_W(%lld)[6], "
             "(double)CTVM_W(%lld)[7]);\n"
             "    return 0;\n}\n",
             blob, (long long)w.size, NF, (long long)o3, (long long)o3, (long long)o3, (long long)o3);
    CcDir c;
    assert_int_equal(cc_dir_open(&c), 0);
    int rc = cc_compile(&c, text, 0);
    char *out = rc == 0 ? cc_run(&c) : NULL;
    int rc_clang = rc == 0 ? cc_compile_ex(&c, text, "clang", "", 1, 1) : 0; /* -Werror: no encoding warning */
    cc_dir_close(&c);
    free(text);
    free(blob);
    if (rc != 0 || rc_clang != 0)
        fail_msg("weight blob does not compile (gcc %d, clang %d)", rc, rc_clang);
    assert_non_null(out);

    char *s = out, *end;
    unsigned long rows_bytes = strtoul(s, &end, 10);
    int64_t rows = (w.size + CTVM_ROW - 1) / CTVM_ROW;
    /* equal rows of a multiple of 4 bytes: padding under 4 bytes per row */
    assert_true(rows_bytes >= (unsigned long)w.size && rows_bytes < (unsigned long)(w.size + 4 * rows));
    assert_int_equal(rows_bytes % 4, 0);
    s = end + 1;
    for (int64_t i = 0; i < w.size; i++) {
        unsigned v;
        if (sscanf(s + 2 * i, "%2x", &v) != 1)
            fail_msg("short byte dump at %lld", (long long)i);
        if (v != w.bytes[i])
            fail_msg("byte %lld: got 0x%02x, want 0x%02x", (long long)i, v, w.bytes[i]);
    }
    s += 2 * w.size;
    for (int i = 0; i < NF; i += 97) {
        float v = strtof(s, &end);
        assert_true(end != s);
        if (memcmp(&v, &fl[i], sizeof v) != 0)
            fail_msg("float %d: got %.9g, want %.9g", i, (double)v, (double)fl[i]);
        s = end;
    }
    float z = strtof(s, &end), big = strtof(end, &end), den = strtof(end, &end);
    assert_true(z == 0.0f && signbit(z));
    assert_true(big == 3.4e38f);
    assert_true(den == 1.4e-45f);
    free(out);
    free(fl);
    weights_free(&w);
}

static void test_weights_roundtrip(void **state)
{
    (void)state;
    weights_roundtrip(0);
}

/* bytes 0x80-0xff as themselves (--weights-text raw): the same bytes back */
static void test_weights_roundtrip_raw(void **state)
{
    (void)state;
    weights_roundtrip(1);
}

/* Constants past CTVM_PART bytes go to further blobs, each its own
 * declaration; weights_print_ref names each constant's part and offset and
 * the compiled expressions read the right values back. */
static void test_weights_parts(void **state)
{
    (void)state;
    WeightBlob w;
    memset(&w, 0, sizeof w);
    enum { NB = CTVM_PART / 4 + 1000 }; /* bigger than a part: a part of its own */
    float *big = malloc(NB * sizeof(float));
    for (int i = 0; i < NB; i++)
        big[i] = (float)(i % 1000) * 0.5f;
    float a[3] = {1.5f, -2.0f, 3.25f}, c[2] = {7.0f, -8.5f};
    int64_t small[2] = {-3, 1234567890123LL};
    int64_t oa = weights_add(&w, a, sizeof a);
    int64_t ob = weights_add(&w, big, NB * sizeof(float));
    int64_t oc = weights_add(&w, c, sizeof c);
    int64_t os = weights_add_typed(&w, small, sizeof small, "int64_t");
    assert_int_equal(w.nparts, 3);
    char *refs = NULL;
    size_t rlen = 0;
    FILE *f = open_memstream(&refs, &rlen);
    fputs("    printf(\"%.9g %.9g %.9g %.9g %.9g %lld\\n\", (double)", f);
    weights_print_ref(f, &w, "f", oa);
    fputs("[2], (double)", f);
    weights_print_ref(f, &w, "f", ob);
    fputs("[1999], (double)", f);
    weights_print_ref(f, &w, "f", ob);
    fprintf(f, "[%d], (double)", NB - 1);
    weights_print_ref(f, &w, "f", oc);
    fputs("[1], (double)", f);
    weights_print_ref(f, &w, "f", oc);
    fputs("[0], (long long)", f);
    weights_print_ref(f, &w, "i64", os);
    fputs("[1]);\n", f);
    fclose(f);
    assert_non_null(strstr(refs, "CTVM_WP(1, f, "));
    assert_non_null(strstr(refs, "CTVM_WP(2, f, "));
    assert_non_null(strstr(refs, "CTVM_WP(2, i64, "));

    char *blob = NULL;
    size_t len = 0;
    f = open_memstream(&blob, &len);
    weights_emit(f, &w);
    fclose(f);
    assert_non_null(strstr(blob, "ctvm_blob2 CTVM_DATA_ALIGN"));
    size_t cap = len + rlen + 512;
    char *text = malloc(cap);
    snprintf(text, cap,
             "#include <stdio.h>\n#include <stdint.h>\n#define CTVM_WEIGHTS_SECTION\n#define CTVM_DATA_ALIGN\n%s"
             "int main(void)\n{\n%s    return 0;\n}\n",
             blob, refs);
    CcDir cd;
    assert_int_equal(cc_dir_open(&cd), 0);
    int rc = cc_compile(&cd, text, 0);
    char *out = rc == 0 ? cc_run(&cd) : NULL;
    cc_dir_close(&cd);
    free(text);
    free(blob);
    free(refs);
    if (rc != 0)
        fail_msg("multi-part weight blob does not compile");
    assert_non_null(out);
    char want[128];
    snprintf(want, sizeof want, "%.9g %.9g %.9g %.9g %.9g %lld\n", (double)a[2], (double)big[1999],
             (double)big[NB - 1], (double)c[1], (double)c[0], (long long)small[1]);
    assert_string_equal(out, want);
    free(out);
    free(big);
    weights_free(&w);
}

/* x[1,4] + c[4] -> Relu -> Reshape [2,2] -> y, through every pass */
static Graph *small_model(void)
{
    Graph *g = tb_graph(13);
    g->name = "small";
    int64_t d14[2] = {1, 4}, d4 = 4;
    int x = tb_input(g, "x", 2, d14);
    int c = tb_cf(g, "c", 1, &d4, (const float[]){0.5f, -1.0f, 2.0f, -3.0f});
    int s = graph_add_value(g, "s"), r = graph_add_value(g, "r"), y = graph_add_value(g, "y");
    int shp = tb_ci1(g, "shp", 2, (int64_t[]){2, 2});
    tb_node(g, "Add", 2, 1, x, c, s);
    tb_node(g, "Relu", 1, 1, s, r);
    tb_node(g, "Reshape", 2, 1, r, shp, y);
    graph_add_output(g, y);
    Diag d = quiet();
    graph_count_uses(g);
    if (passes_run(g, &(CodegenOptions){.threads = 1}, &d, NULL, NULL) != 0)
        fail_msg("passes: %s", d.last);
    return g;
}

static char *emit_text_opts(Graph *g, const char *prefix, int arena_caller)
{
    EmitOptions o;
    memset(&o, 0, sizeof o);
    o.arena_caller = arena_caller;
    o.prefix = prefix;
    o.command_line = "test_emit";
    o.model_hash = "0";
    Diag d = quiet();
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    int rc = emit_graph(g, "generic", 1, NULL, &o, f, &d);
    fclose(f);
    if (rc != 0)
        fail_msg("emit: %s", d.last);
    return buf;
}

static char *emit_text(Graph *g, const char *prefix)
{
    return emit_text_opts(g, prefix, 0);
}

static void test_emit_model_text(void **state)
{
    (void)state;
    Graph *g = small_model();
    char *t = emit_text(g, "tnet");
    assert_non_null(strstr(t, "tnet_run("));
    assert_non_null(strstr(t, "tnet_run_ws("));
    assert_non_null(strstr(t, "#define tnet_WORKSPACE_SIZE"));
    assert_non_null(strstr(t, "/**** Begin runtime_min/ctvm_runtime.h ****/"));
    assert_non_null(strstr(t, "ctvm_blob")); /* the constant c */
    CcDir c;
    assert_int_equal(cc_dir_open(&c), 0);
    int rc = cc_compile(&c, t, 1);
    cc_dir_close(&c);
    free(t);
    graph_free(g);
    assert_int_equal(rc, 0);
}

/* Links the emitted tnet model with a main whose body is `body` (x, y and a
 * float workspace ws are declared; body prints y with "%.9g" after each run
 * and, last, the status of a call with a NULL pointer). Checks that `runs`
 * printed results are the model's numbers and that the NULL call returned
 * CTVM_ERR_NULL. Frees t. */
static void check_tnet_main(char *t, const char *body, int runs)
{
    size_t cap = strlen(t) + strlen(body) + 1024;
    char *text = malloc(cap);
    snprintf(text, cap,
             "%s\n#include <stdio.h>\n"
             "int main(void)\n{\n"
             "    float x[4] = {1.0f, 0.5f, -3.0f, 4.0f}, y[4] = {9, 9, 9, 9};\n"
             "    static float ws[tnet_WORKSPACE_SIZE / 4 + 1];\n"
             "    int i;\n"
             "%s"
             "    return 0;\n}\n",
             t, body);
    CcDir c;
    assert_int_equal(cc_dir_open(&c), 0);
    int rc = cc_compile(&c, text, 0);
    char *out = rc == 0 ? cc_run(&c) : NULL;
    cc_dir_close(&c);
    free(text);
    free(t);
    assert_int_equal(rc, 0);
    assert_non_null(out);
    const float want[4] = {1.5f, 0.0f, 0.0f, 1.0f};
    char *s = out, *end;
    for (int k = 0; k < 4 * runs; k++) {
        float v = strtof(s, &end);
        assert_true(end != s);
        if (v != want[k % 4])
            fail_msg("y[%d] = %g, want %g", k % 4, (double)v, (double)want[k % 4]);
        s = end;
    }
    assert_int_equal(strtol(s, &end, 10), 1); /* CTVM_ERR_NULL */
    free(out);
}

#define PRINT_Y "    for (i = 0; i < 4; i++) printf(\"%.9g\\n\", (double)y[i]);\n"

/* Link the model with a main and check its numbers. */
static void test_emit_model_runs(void **state)
{
    (void)state;
    Graph *g = small_model();
    char *t = emit_text(g, "tnet");
    graph_free(g);
    check_tnet_main(t,
                    "    if (tnet_run(x, y) != 0) return 1;\n" PRINT_Y
                    "    if (tnet_run_ws(ws, x, y) != 0) return 1;\n" PRINT_Y
                    "    printf(\"%d\\n\", tnet_run(0, y));\n",
                    2);
}

/* --arena caller: no static workspace and no NAME_run; NAME_run_ws with the
 * caller's float workspace gives the same numbers as the static form. */
static void test_emit_arena_caller(void **state)
{
    (void)state;
    Graph *g = small_model();
    char *t = emit_text_opts(g, "tnet", 1);
    graph_free(g);
    assert_null(strstr(t, "int tnet_run("));
    assert_null(strstr(t, "ctvm_arena"));
    check_tnet_main(t,
                    "    if (tnet_run_ws(ws, x, y) != 0) return 1;\n" PRINT_Y
                    "    printf(\"%d\\n\", tnet_WORKSPACE_SIZE > 0 ? tnet_run_ws(0, x, y) : 1);\n",
                    1);
}

/* A zero-byte constant first in the blob: weights_add must not hand the
 * blob's NULL pointer to memset/memcpy (UBSan: null pointer passed as
 * argument), and the model around it still compiles. */
static void test_emit_zero_byte_first_constant(void **state)
{
    (void)state;
    WeightBlob w;
    memset(&w, 0, sizeof w);
    assert_int_equal(weights_add(&w, NULL, 0), 0);
    assert_int_equal(w.size, 0);
    const unsigned char one[2] = {7, 9};
    assert_int_equal(weights_add(&w, one, 2), 0);
    assert_memory_equal(w.bytes, one, 2);
    weights_free(&w);

    Graph *g = tb_graph(13);
    g->name = "empty_first";
    int64_t d03[2] = {0, 3}, d23[2] = {2, 3};
    int e = tb_cf(g, "empty", 2, d03, NULL); /* the model's first initializer: 0 bytes */
    int x = tb_input(g, "x", 2, d23);
    int y = graph_add_value(g, "y");
    int n = tb_node(g, "Concat", 2, 1, e, x, y);
    node_set_int(g, n, "axis", 0);
    graph_add_output(g, y);
    Diag d = quiet();
    graph_count_uses(g);
    if (passes_run(g, &(CodegenOptions){.threads = 1}, &d, NULL, NULL) != 0)
        fail_msg("passes: %s", d.last);
    char *t = emit_text(g, "enet");
    graph_free(g);
    CcDir c;
    assert_int_equal(cc_dir_open(&c), 0);
    int rc = cc_compile(&c, t, 1);
    cc_dir_close(&c);
    free(t);
    assert_int_equal(rc, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_weights_add_aligns),
        cmocka_unit_test(test_weights_emit_empty),
        cmocka_unit_test(test_weights_roundtrip),
        cmocka_unit_test(test_weights_roundtrip_raw),
        cmocka_unit_test(test_weights_parts),
        cmocka_unit_test(test_emit_model_text),
        cmocka_unit_test(test_emit_model_runs),
        cmocka_unit_test(test_emit_arena_caller),
        cmocka_unit_test(test_emit_zero_byte_first_constant),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
