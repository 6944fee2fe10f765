/* c_text.c - escaping of model and command-line text for generated C (c_text.h). */
#include "c_text.h"

#include <string.h>

/* One byte of src as `kind`: its text in out (NUL-terminated), its length returned. */
static size_t escape_byte(unsigned char c, CTextKind kind, char out[8])
{
    int alnum = (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
    int printable = c >= 0x20 && c < 0x7f;
    if (kind == C_IDENT) {
        out[0] = alnum ? (char)c : '_';
        out[1] = 0;
        return 1;
    }
    if (kind == C_STRING && (c == '"' || c == '\\' || c == '?')) {
        out[0] = '\\';
        out[1] = (char)c;
        out[2] = 0;
        return 2;
    }
    int special = kind == C_COMMENT ? (c == '*' || c == '\\' || c == '?') : 0;
    if (printable && !special) {
        out[0] = (char)c;
        out[1] = 0;
        return 1;
    }
    out[0] = '\\';
    out[1] = (char)('0' + ((c >> 6) & 7));
    out[2] = (char)('0' + ((c >> 3) & 7));
    out[3] = (char)('0' + (c & 7));
    out[4] = 0;
    return 4;
}

char *c_text(char *dst, size_t cap, const char *src, CTextKind kind)
{
    size_t k = 0;
    for (const unsigned char *p = (const unsigned char *)(src ? src : ""); *p; p++) {
        char e[8];
        size_t n = escape_byte(*p, kind, e);
        if (k + n + 1 > cap)
            break;
        memcpy(dst + k, e, n);
        k += n;
    }
    dst[k] = 0;
    return dst;
}

void c_text_print(FILE *f, const char *src, CTextKind kind)
{
    for (const unsigned char *p = (const unsigned char *)(src ? src : ""); *p; p++) {
        char e[8];
        fwrite(e, 1, escape_byte(*p, kind, e), f);
    }
}
