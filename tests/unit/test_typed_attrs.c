/* test_typed_attrs.c - the back end reads typed attributes (ir/op_attrs.h),
 * never ONNX attribute names.
 *
 * The rule: in ops/, schedule/, lower/ and emit_c/, a node's attribute is
 * looked up by name (attr_int, attr_float, attr_string, attr_ints,
 * attr_floats, node_attr) only inside a function whose name contains
 * "infer" or "read": the family's infer and the helpers that read and
 * validate the ONNX attributes for it. Such a "read" helper is in turn
 * called only from functions named that way, so no compute definition,
 * eval, schedule or printer reaches one. Everything after infer reads the
 * typed struct infer filled (Node.at).
 *
 * Scans the sources (the test runs from the repository root, as make test
 * does) with comments and string literals blanked out; the enclosing
 * function of a line is the last definition that starts in column 0. */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tests/unit/read_text.h"

static const char *const LOOKUPS[] = {"attr_int", "attr_float", "attr_string", "attr_ints", "attr_floats",
                                      "node_attr"};
#define N_LOOKUPS (int)(sizeof LOOKUPS / sizeof LOOKUPS[0])
static const char *const DIRS[] = {"ops", "schedule", "lower", "emit_c"};
#define N_DIRS (int)(sizeof DIRS / sizeof DIRS[0])

#define MAX_FILES 256
#define MAX_READERS 256

typedef struct Src {
    char path[256];
    char *text; /* comments and literals blanked */
} Src;

static Src files[MAX_FILES];
static int n_files;
static char readers[MAX_READERS][64]; /* "read" helpers that look attributes up */
static int n_readers;

static int ident_char(char c)
{
    return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/* comments, string and character literals replaced by spaces (newlines kept) */
static void blank(char *s)
{
    for (char *p = s; *p; p++) {
        if (p[0] == '/' && p[1] == '*') {
            for (; *p && !(p[0] == '*' && p[1] == '/'); p++)
                if (*p != '\n')
                    *p = ' ';
            if (*p)
                p[0] = p[1] = ' ', p++;
        } else if (p[0] == '/' && p[1] == '/') {
            for (; *p && *p != '\n'; p++)
                *p = ' ';
            if (!*p)
                return;
        } else if (*p == '"' || *p == '\'') {
            char q = *p;
            for (p++; *p && *p != q && *p != '\n'; p++) {
                if (*p == '\\' && p[1])
                    *p++ = ' ';
                *p = ' ';
            }
            if (!*p)
                return;
        }
    }
}

/* The function a column-0 line defines: the identifier before its first
 * '(' when the line starts with a letter and does not end in ';'
 * (a declaration); 0 when the line is no definition. */
static int def_name(const char *line, const char *end, char *name, size_t cap)
{
    if (!((*line >= 'a' && *line <= 'z') || (*line >= 'A' && *line <= 'Z') || *line == '_'))
        return 0;
    if (!strncmp(line, "typedef", 7) || !strncmp(line, "struct", 6) || !strncmp(line, "enum", 4))
        return 0;
    const char *e = end;
    while (e > line && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
        e--;
    if (e > line && e[-1] == ';')
        return 0;
    const char *par = memchr(line, '(', (size_t)(end - line));
    if (!par)
        return 0;
    const char *b = par;
    while (b > line && b[-1] == ' ')
        b--;
    const char *a = b;
    while (a > line && ident_char(a[-1]))
        a--;
    if (a == b || (size_t)(b - a) >= cap)
        return 0;
    memcpy(name, a, (size_t)(b - a));
    name[b - a] = 0;
    return 1;
}

static int reads_onnx(const char *fn)
{
    return strstr(fn, "infer") || strstr(fn, "read");
}

/* Calls of ident (an identifier followed by '(') in [p, end): the first one. */
static const char *find_call(const char *p, const char *end, const char *ident)
{
    size_t k = strlen(ident);
    for (const char *q = p; q + k < end; q++) {
        if (strncmp(q, ident, k) || (q > p && ident_char(q[-1])))
            continue;
        const char *r = q + k;
        while (r < end && *r == ' ')
            r++;
        if (r < end && *r == '(')
            return q;
    }
    return NULL;
}

/* Walks the lines of src: for each, the enclosing function name in fn.
 * mode 0: lookups outside an infer/read function are errors, and read
 * helpers with lookups are collected; mode 1: calls of collected readers
 * outside an infer/read function are errors. */
static int check_src(const Src *s, int mode, int *seen)
{
    int bad = 0, line_no = 0;
    char fn[64] = "";
    for (const char *line = s->text; *line;) {
        const char *end = strchr(line, '\n');
        if (!end)
            end = line + strlen(line);
        line_no++;
        char name[64];
        if (def_name(line, end, name, sizeof name))
            strcpy(fn, name);
        if (mode == 0) {
            for (int k = 0; k < N_LOOKUPS; k++)
                for (const char *q = line; (q = find_call(q, end, LOOKUPS[k])); q++) {
                    (*seen)++;
                    if (!fn[0] || !reads_onnx(fn)) {
                        bad++;
                        fprintf(stderr, "%s:%d: %s looks an attribute up by name in %s\n", s->path, line_no,
                                LOOKUPS[k], fn[0] ? fn : "(file scope)");
                    } else if (!strstr(fn, "infer")) {
                        int known = 0;
                        for (int r = 0; r < n_readers; r++)
                            known |= !strcmp(readers[r], fn);
                        if (!known && n_readers < MAX_READERS)
                            strcpy(readers[n_readers++], fn);
                    }
                }
        } else {
            if (ident_char(*line))
                goto next; /* a definition or prototype, no call */
            for (int r = 0; r < n_readers; r++)
                for (const char *q = line; (q = find_call(q, end, readers[r])); q++) {
                    (*seen)++;
                    if (!fn[0] || !reads_onnx(fn)) {
                        bad++;
                        fprintf(stderr, "%s:%d: %s (reads ONNX attributes) is called from %s\n", s->path,
                                line_no, readers[r], fn[0] ? fn : "(file scope)");
                    }
                }
        }
    next:
        line = *end ? end + 1 : end;
    }
    return bad;
}

static void load_sources(void)
{
    if (n_files)
        return;
    for (int i = 0; i < N_DIRS; i++) {
        DIR *d = opendir(DIRS[i]);
        assert_non_null(d); /* run from the repository root */
        struct dirent *e;
        while ((e = readdir(d))) {
            size_t n = strlen(e->d_name);
            if (n < 3 || strcmp(e->d_name + n - 2, ".c"))
                continue;
            assert_true(n_files < MAX_FILES);
            Src *s = &files[n_files++];
            snprintf(s->path, sizeof s->path, "%s/%s", DIRS[i], e->d_name);
            s->text = read_text(s->path);
            assert_non_null(s->text);
            blank(s->text);
        }
        closedir(d);
    }
}

static void test_lookups_only_where_onnx_is_read(void **state)
{
    (void)state;
    load_sources();
    int seen = 0, calls = 0, bad = 0;
    n_readers = 0;
    for (int i = 0; i < n_files; i++)
        bad += check_src(&files[i], 0, &seen);
    for (int i = 0; i < n_files; i++)
        bad += check_src(&files[i], 1, &calls);
    fprintf(stderr, "%d lookups by name, %d read helpers, %d calls of them, %d outside infer\n", seen, n_readers,
            calls, bad);
    assert_true(seen > 100); /* the scan saw the infer functions' lookups */
    assert_int_equal(bad, 0);
}

/* the scanner itself: a lookup in a compute definition is caught, one in an
 * infer or read helper is not, and a read helper called from an eval is */
static void test_scan_catches_a_lookup_after_infer(void **state)
{
    (void)state;
    static char text[] = "int op_x_infer(Graph *g, int node)\n{\n    int a = attr_int(n, \"axis\", 0);\n}\n"
                         "static int read_axis(const Node *n)\n{\n    return (int)attr_int(n, \"axis\", 0);\n}\n"
                         "/* compute_x reads attr_int(n) in a comment only */\n"
                         "int compute_x(ComputeCtx *cx, int node,\n              ComputeDef *def)\n{\n"
                         "    int b = attr_int(n, \"axis\", 0);\n    const char *s = \"node_attr(n)\";\n}\n"
                         "int op_x_eval(Graph *g, int node, Diag *d)\n{\n    return read_axis(&g->nodes[node]);\n}\n";
    Src s = {.path = "ops/x.c", .text = text};
    blank(s.text);
    int seen = 0, calls = 0;
    n_readers = 0;
    assert_int_equal(check_src(&s, 0, &seen), 1); /* compute_x */
    assert_int_equal(seen, 3);
    assert_int_equal(n_readers, 1);
    assert_string_equal(readers[0], "read_axis");
    assert_int_equal(check_src(&s, 1, &calls), 1); /* op_x_eval calls read_axis */
    assert_int_equal(calls, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scan_catches_a_lookup_after_infer),
        cmocka_unit_test(test_lookups_only_where_onnx_is_read),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
