/* c_literal.c - a C string literal back into its bytes (see c_literal.h). */
#include "c_literal.h"

static int hex_digit(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* The escape after a backslash at *p: its byte value (advancing *p past
 * it), or -1 when it is not one. */
static int escape_value(const char **p)
{
    const char *s = *p;
    int v = 0, k;
    switch (*s) {
    case '"': case '\\': case '\'': case '?': v = *s; break;
    case 'a': v = '\a'; break;
    case 'b': v = '\b'; break;
    case 'f': v = '\f'; break;
    case 'n': v = '\n'; break;
    case 'r': v = '\r'; break;
    case 't': v = '\t'; break;
    case 'v': v = '\v'; break;
    case 'x':
        if (hex_digit(s[1]) < 0)
            return -1;
        for (s++; (k = hex_digit(*s)) >= 0; s++) {
            v = v * 16 + k;
            if (v > 0xff)
                return -1;
        }
        *p = s;
        return v;
    default:
        if (*s < '0' || *s > '7')
            return -1;
        for (k = 0; k < 3 && *s >= '0' && *s <= '7'; k++, s++)
            v = v * 8 + (*s - '0');
        *p = s;
        return v > 0xff ? -1 : v;
    }
    *p = s + 1;
    return v;
}

int c_literal_read(const char *s, char *dst, size_t cap, const char **end)
{
    size_t n = 0;
    if (!s || *s != '"' || cap == 0)
        return -1;
    for (s++; *s != '"'; ) {
        int c;
        if (*s == '\0' || *s == '\n')
            return -1;
        if (*s == '\\') {
            s++;
            c = escape_value(&s);
            if (c <= 0) /* malformed, or a NUL byte */
                return -1;
        } else {
            c = (unsigned char)*s++;
        }
        if (n + 1 >= cap)
            return -1;
        dst[n++] = (char)c;
    }
    dst[n] = '\0';
    if (end)
        *end = s + 1;
    return (int)n;
}
