/* emit_weights.c - weight blob assembly and its byte-string printing. */
#include "emit_weights.h"

#include <stdlib.h>
#include <string.h>

const char *weights_member_name(const char *ctype)
{
    static const char *const N[] = {"f64", "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64"};
    int i = weights_member(ctype);
    return i < 0 ? "f" : N[i];
}

/* One row as a string literal: printable ASCII as itself, the rest as octal
 * escapes (three digits when a digit follows, so it cannot be absorbed).
 * Digits are written by hand: sprintf per byte was 85% of ctvm-emit's time
 * on ViT-B/16's 346 MB of weights. */
static void emit_row(FILE *f, const unsigned char *p, int64_t n, int raw)
{
    char line[CTVM_ROW * 4 + 8];
    int k = 0;
    line[k++] = '"';
    for (int64_t i = 0; i < n; i++) {
        unsigned c = p[i];
        int next_digit = i + 1 < n && p[i + 1] >= '0' && p[i + 1] <= '9';
        if ((c >= 0x20 && c < 0x7f && c != '"' && c != '\\' && c != '?') || (raw && c >= 0x80 && c != 0xe2)) {
            line[k++] = (char)c;
            continue;
        }
        line[k++] = '\\';
        if (next_digit || c > 077)
            line[k++] = (char)('0' + (c >> 6));
        if (next_digit || c > 07)
            line[k++] = (char)('0' + ((c >> 3) & 7));
        line[k++] = (char)('0' + (c & 7));
    }
    line[k++] = '"';
    fwrite(line, 1, (size_t)k, f);
}

static int weights_part_of(const WeightBlob *w, int64_t off)
{
    int lo = 0, hi = w->nparts - 1;
    while (lo < hi) { /* the last part starting at or before off */
        int mid = (lo + hi + 1) / 2;
        if (w->parts[mid] <= off)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

void weights_print_ref(FILE *f, const WeightBlob *w, const char *member, int64_t off)
{
    int k = weights_part_of(w, off);
    if (k > 0)
        fprintf(f, "CTVM_WP(%d, %s, %lld)", k, member, (long long)(off - w->parts[k]));
    else if (strcmp(member, "f") == 0)
        fprintf(f, "CTVM_W(%lld)", (long long)off);
    else
        fprintf(f, "CTVM_WT(%s, %lld)", member, (long long)off);
}

/* One part: bytes [start, end) of the blob as the union named name. */
static void emit_part(FILE *f, const WeightBlob *w, const char *name, int64_t start, int64_t end)
{
    int64_t size = end - start;
    /* as few rows as the literal limit allows, of equal length (a multiple of
       4), so the last row pads by less than 4 bytes per row, not by up to a
       whole row: that padding would be flash on a microcontroller */
    int64_t rows = (size + CTVM_ROW - 1) / CTVM_ROW;
    int64_t len = ((size + rows - 1) / rows + 3) / 4 * 4;
    fprintf(f, "/* weights: %lld bytes in %lld rows of %lld */\n", (long long)size, (long long)rows,
            (long long)len);
    /* The rows initialise the blob; kernels read it through the float member
       (reading a union member other than the one initialised is defined
       type punning, so no float is ever read through a char lvalue). */
    fprintf(f, "static const union {\n    char rows[%lld][%lld];\n    float f[%lld];\n", (long long)rows,
            (long long)len, (long long)(rows * len / 4));
    static const struct { const char *type, *member; int size; } M[] = {
        {"double", "f64", 8},   {"int8_t", "i8", 1},   {"int16_t", "i16", 2}, {"int32_t", "i32", 4},
        {"int64_t", "i64", 8},  {"uint8_t", "u8", 1},  {"uint16_t", "u16", 2}, {"uint32_t", "u32", 4},
        {"uint64_t", "u64", 8},
    };
    for (size_t i = 0; i < sizeof M / sizeof M[0]; i++)
        if (w->types & (1u << i))
            fprintf(f, "    %s %s[%lld];\n", M[i].type, M[i].member, (long long)(rows * len / M[i].size));
    fprintf(f, "    double align;\n} %s CTVM_DATA_ALIGN CTVM_WEIGHTS_SECTION = {{\n", name);
    for (int64_t r = 0; r < rows; r++) {
        int64_t n = size - r * len;
        if (n > len)
            n = len;
        if (n > 0)
            emit_row(f, w->bytes + start + r * len, n, w->raw_text);
        else
            fputs("\"\"", f);
        fputs(",\n", f);
    }
    fputs("}};\n", f);
}

void weights_emit(FILE *f, const WeightBlob *w)
{
    if (w->size == 0)
        return;
    if (w->raw_text)
        fputs("#ifdef __clang__ /* the rows hold bytes 0x80-0xff as themselves */\n#pragma clang diagnostic push\n"
              "#pragma clang diagnostic ignored \"-Winvalid-source-encoding\"\n#endif\n", f);
    for (int k = 0; k < w->nparts; k++) {
        char name[32];
        snprintf(name, sizeof name, k ? "ctvm_blob%d" : "ctvm_blob", k);
        emit_part(f, w, name, w->parts[k], k + 1 < w->nparts ? w->parts[k + 1] : w->size);
    }
    fputs("#define CTVM_W(off) (ctvm_blob.f + (off) / 4)\n"
          "#define CTVM_WT(member, off) (ctvm_blob.member + (off) / sizeof ctvm_blob.member[0])\n", f);
    if (w->nparts > 1)
        fputs("#define CTVM_WP(k, member, off) (ctvm_blob##k.member + (off) / sizeof ctvm_blob##k.member[0])\n", f);
    if (w->raw_text)
        fputs("#ifdef __clang__\n#pragma clang diagnostic pop\n#endif\n", f);
    fputs("\n", f);
}
