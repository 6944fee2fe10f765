/* test_c_text.c - emit_c/c_text.h, the one way model text reaches generated
 * C: the exact text of each form, truncation only at a whole escape, and every
 * byte from 1 to 255 through a string literal and a comment compiled by gcc
 * -std=c99 (trigraphs on) -pedantic -Werror: the literal holds exactly the
 * bytes, and the comment hides a payload that would otherwise print. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cc_run.h"
#include "ir/c_text.h"

static void test_forms(void **state)
{
    (void)state;
    char b[128];
    assert_string_equal(c_text(b, sizeof b, "a\"b\\c?d", C_STRING), "a\\\"b\\\\c\\?d");
    assert_string_equal(c_text(b, sizeof b, "x\n\x01\xff\x7f""7", C_STRING), "x\\012\\001\\377\\1777");
    assert_string_equal(c_text(b, sizeof b, "?\?/", C_STRING), "\\?\\?/");
    assert_string_equal(c_text(b, sizeof b, "a*/b/*c", C_COMMENT), "a\\052/b/\\052c");
    assert_string_equal(c_text(b, sizeof b, "x?\?/\n\\", C_COMMENT), "x\\077\\077/\\012\\134");
    assert_string_equal(c_text(b, sizeof b, "# \"q\" ok", C_COMMENT), "# \"q\" ok");
    assert_string_equal(c_text(b, sizeof b, "Conv_1/a.b-c\xff", C_IDENT), "Conv_1_a_b_c_");
    assert_string_equal(c_text(b, sizeof b, NULL, C_STRING), "");
}

static void test_truncation(void **state)
{
    (void)state;
    char b[6];
    /* "ab" then \012 (4 bytes) does not fit in 5 characters: cut before it */
    assert_string_equal(c_text(b, sizeof b, "ab\ncd", C_STRING), "ab");
    assert_string_equal(c_text(b, sizeof b, "a\"", C_STRING), "a\\\"");
    assert_string_equal(c_text(b, sizeof b, "abcdefgh", C_IDENT), "abcde");
    char one[1];
    assert_string_equal(c_text(one, sizeof one, "abc", C_STRING), "");
}

/* Every byte 1..255 through both forms, compiled and run. */
static void test_compiled(void **state)
{
    (void)state;
    char raw[256];
    for (int i = 1; i < 256; i++)
        raw[i - 1] = (char)i;
    raw[255] = 0;
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    assert_non_null(f);
    fputs("#include <stdio.h>\nstatic const char s[] = \"", f);
    c_text_print(f, raw, C_STRING);
    fputs("\";\n/* ", f);
    c_text_print(f, raw, C_COMMENT);
    c_text_print(f, "*/ int main(void) { puts(\"PWNED\"); return 0; } /*", C_COMMENT);
    fputs(" */\nint main(void)\n{\n    for (size_t i = 0; i < sizeof s - 1; i++)\n"
          "        printf(\"%02x\", (unsigned char)s[i]);\n    return 0;\n}\n", f);
    fclose(f);
    CcDir c;
    assert_int_equal(cc_dir_open(&c), 0);
    int built = cc_compile(&c, text, 0) == 0;
    if (!built)
        cc_show_log(&c);
    assert_true(built);
    char *out = cc_run(&c);
    assert_non_null(out);
    char want[600];
    for (int i = 1; i < 256; i++)
        snprintf(want + 2 * (i - 1), 3, "%02x", i);
    assert_string_equal(out, want);
    free(out);
    cc_dir_close(&c);
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_forms),
        cmocka_unit_test(test_truncation),
        cmocka_unit_test(test_compiled),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
