/* test_attr_names.c - no pass or operator family writes an attribute that
 * ONNX does not define: what ctvm invents (modes, packing, scratch, run-time
 * dims) lives in the typed fields of ir/op_attrs.h.
 *
 * Scans the sources of ops/ and passes/ (the test runs from the repository
 * root, as make test does) for node_set_int/ints/float/string calls and
 * checks that each names its attribute with a string literal from the
 * allow-list of real ONNX attribute names below. */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tests/unit/read_text.h"

/* ONNX attribute names the infer functions normalise and the passes set on
 * the ONNX nodes they build. */
static const char *const ONNX_NAMES[] = {
    "align_corners", "alpha", "approximate", "axes", "axis", "batch_axis", "batch_dims", "beta", "bias",
    "block_size", "blocksize", "ceil_mode", "center_point_box", "count_include_pad", "dilations", "end",
    "ends", "epsilon", "equation", "exclusive", "group", "interleaved", "is_causal", "k", "keepdims",
    "kernel_shape", "kv_num_heads", "largest", "left_window_size", "momentum", "noop_with_empty_axes",
    "num_groups", "num_heads", "offset_group", "p", "pads", "perm", "q_num_heads", "qk_matmul_output_mode",
    "reverse", "right_window_size", "rotary_embedding_dim", "saturate", "scale", "select_last_index",
    "softcap", "sorted", "spatial_scale", "split", "start", "starts", "steps", "storage_order",
    "strides", "time_axis", "to", "transA", "transB", "upper",
};

static int allowed(const char *name, size_t len)
{
    for (size_t i = 0; i < sizeof ONNX_NAMES / sizeof ONNX_NAMES[0]; i++)
        if (strlen(ONNX_NAMES[i]) == len && !strncmp(ONNX_NAMES[i], name, len))
            return 1;
    return 0;
}

/* The third argument of the call whose '(' is at p: a string literal in
 * [*name, *name + *len), or *len = 0 when it is not a literal. */
static void third_arg(const char *p, const char **name, size_t *len)
{
    int depth = 0, commas = 0;
    *len = 0;
    for (p++; *p; p++) {
        if (*p == '(')
            depth++;
        else if (*p == ')' && depth-- == 0)
            return;
        else if (*p == ',' && depth == 0 && ++commas == 2)
            break;
    }
    while (*p == ',' || *p == ' ' || *p == '\n')
        p++;
    if (*p != '"')
        return;
    const char *e = strchr(p + 1, '"');
    if (!e)
        return;
    *name = p + 1;
    *len = (size_t)(e - p - 1);
}

/* Invented attribute names written in the files of dir; counts calls. */
static int scan_dir(const char *dir, int *calls)
{
    DIR *d = opendir(dir);
    assert_non_null(d); /* run from the repository root */
    int bad = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t n = strlen(e->d_name);
        if (n < 3 || strcmp(e->d_name + n - 2, ".c"))
            continue;
        char path[512];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        char *src = read_text(path);
        assert_non_null(src);
        static const char *const FNS[] = {"node_set_int(", "node_set_ints(", "node_set_float(", "node_set_string("};
        for (int k = 0; k < 4; k++)
            for (const char *p = strstr(src, FNS[k]); p; p = strstr(p + 1, FNS[k])) {
                if (p > src && (p[-1] == '_' || (p[-1] >= 'a' && p[-1] <= 'z')))
                    continue;
                const char *name = NULL;
                size_t len;
                third_arg(p + strlen(FNS[k]) - 1, &name, &len);
                (*calls)++;
                if (!len || !allowed(name, len)) {
                    bad++;
                    fprintf(stderr, "%s: %s writes %.*s, not an ONNX attribute name\n", path, FNS[k],
                            len ? (int)len : 20, len ? name : p);
                }
            }
        free(src);
    }
    closedir(d);
    return bad;
}

static void test_no_invented_attributes(void **state)
{
    (void)state;
    int calls = 0;
    assert_int_equal(scan_dir("ops", &calls) + scan_dir("passes", &calls), 0);
    assert_true(calls > 50); /* the scan saw the normalising calls */
}

static void test_scan_catches_an_invented_name(void **state)
{
    (void)state;
    const char *name = NULL;
    size_t len = 0;
    third_arg("(g, node, \"coerce2d\", 1);", &name, &len);
    assert_int_equal(len, 8);
    assert_false(allowed(name, len));
    third_arg("(g, node, key, 1);", &name, &len);
    assert_int_equal(len, 0);
    third_arg("(g, f(a, b), \"axis\", 1);", &name, &len);
    assert_true(len == 4 && allowed(name, len));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_no_invented_attributes),
        cmocka_unit_test(test_scan_catches_an_invented_name),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
