/* test_c_literal.c - unit tests of c_literal_read (frontend/c_literal.h):
 * names escaped as generated files write them come back byte for byte,
 * every escape of C is read, malformed literals are refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "frontend/c_literal.h"

/* The generated files' rule: " \ ? as \" \\ \?, bytes below 0x20 and from
   0x7f up as three-digit octal, all others literally. */
static void escape(const char *s, char *dst)
{
    *dst++ = '"';
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\' || c == '?')
            dst += sprintf(dst, "\\%c", c);
        else if (c < 0x20 || c >= 0x7f)
            dst += sprintf(dst, "\\%03o", c);
        else
            *dst++ = (char)c;
    }
    strcpy(dst, "\" /* after */");
}

static void test_round_trip(void **state)
{
    (void)state;
    char name[256], lit[1200], back[256];
    const char *end = NULL;
    for (int i = 0; i < 255; i++) /* every byte but NUL */
        name[i] = (char)(i + 1);
    name[255] = '\0';
    escape(name, lit);
    assert_int_equal(c_literal_read(lit, back, sizeof back, &end), 255);
    assert_memory_equal(back, name, 256);
    assert_string_equal(end, " /* after */");

    const char *names[] = {"x\"\n#define P \"", "a\\", "?\?/", "*/ evil /*", "\xff\xfe", "in\"put?\\\n\xc3\xa9", ""};
    for (size_t k = 0; k < sizeof names / sizeof *names; k++) {
        escape(names[k], lit);
        assert_int_equal(c_literal_read(lit, back, sizeof back, NULL), (int)strlen(names[k]));
        assert_string_equal(back, names[k]);
    }
}

static void test_escapes(void **state)
{
    (void)state;
    char b[64];
    assert_int_equal(c_literal_read("\"\\a\\b\\f\\n\\r\\t\\v\\'\\\"\\?\\\\\"", b, sizeof b, NULL), 11);
    assert_string_equal(b, "\a\b\f\n\r\t\v'\"?\\");
    /* octal takes at most three digits; hex all that follow */
    assert_int_equal(c_literal_read("\"\\1\\12\\1234\\x41\\x4a!\\xff\"", b, sizeof b, NULL), 8);
    assert_string_equal(b, "\001\012S4AJ!\xff");
}

static void test_refused(void **state)
{
    (void)state;
    char b[8];
    const char *end = "unchanged";
    assert_int_equal(c_literal_read("\"no end", b, sizeof b, &end), -1);
    assert_string_equal(end, "unchanged");
    assert_int_equal(c_literal_read("noquote\"", b, sizeof b, NULL), -1);
    assert_int_equal(c_literal_read("\"raw\nnewline\"", b, sizeof b, NULL), -1);
    assert_int_equal(c_literal_read("\"\\q\"", b, sizeof b, NULL), -1);      /* unknown escape */
    assert_int_equal(c_literal_read("\"\\x\"", b, sizeof b, NULL), -1);      /* \x without digits */
    assert_int_equal(c_literal_read("\"\\x100\"", b, sizeof b, NULL), -1);   /* above 0xff */
    assert_int_equal(c_literal_read("\"\\400\"", b, sizeof b, NULL), -1);    /* above 0xff */
    assert_int_equal(c_literal_read("\"a\\0b\"", b, sizeof b, NULL), -1);    /* a NUL byte */
    assert_int_equal(c_literal_read("\"ends in \\", b, sizeof b, NULL), -1);
    assert_int_equal(c_literal_read("\"1234567\"", b, sizeof b, NULL), 7);   /* fits with its NUL */
    assert_int_equal(c_literal_read("\"12345678\"", b, sizeof b, NULL), -1); /* does not */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_escapes),
        cmocka_unit_test(test_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
