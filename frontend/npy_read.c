/* npy_read.c - decoding .npy images (format versions 1.0, 2.0 and 3.0).
 *
 * Layout: "\x93NUMPY", major, minor, header length (uint16 LE for 1.x,
 * uint32 LE for 2.x/3.x), then a Python dict literal with the keys 'descr',
 * 'fortran_order' and 'shape', then the raw elements. Supported descr:
 * little-endian '<f4' '<f8' '<i8' '<i4' '<f2' and one-byte '|u1' '|i1' '|b1'.
 * Only C order is accepted; the data length must match the shape exactly. */
#include <ctype.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "file_util.h"
#include "npy_format.h"
#include "tensor_io.h"

typedef struct NpyHeader {
    char descr[64];
    char field[64]; /* structured descr: the field's name */
    int structured;
    int have_descr, have_order, have_shape;
    int fortran;
    Shape shape;
} NpyHeader;

static const char *skip_ws(const char *p)
{
    while (isspace((unsigned char)*p))
        p++;
    return p;
}

/* A quoted Python string into out (cap bytes); NULL on syntax error. */
static const char *parse_str(const char *p, char *out, size_t cap)
{
    char q = *p;
    if (q != '\'' && q != '"')
        return NULL;
    const char *end = strchr(p + 1, q);
    if (!end || (size_t)(end - p - 1) >= cap)
        return NULL;
    memcpy(out, p + 1, (size_t)(end - p - 1));
    out[end - p - 1] = 0;
    return end + 1;
}

static const char *parse_shape(const char *p, Shape *s, const char **why)
{
    *s = shape_unknown();
    s->rank = 0;
    if (*p != '(')
        return *why = "'shape' is not a tuple", NULL;
    p = skip_ws(p + 1);
    while (*p != ')') {
        if (!isdigit((unsigned char)*p))
            return *why = "'shape' holds something other than non-negative integers", NULL;
        if (s->rank == CTVM_MAX_RANK)
            return *why = "rank exceeds ctvm's limit of 8", NULL;
        char *end;
        long long v = strtoll(p, &end, 10);
        if (v < 0 || v == LLONG_MAX)
            return *why = "dimension too large", NULL;
        s->dims[s->rank++] = v;
        p = skip_ws(end);
        if (*p == ',')
            p = skip_ws(p + 1);
        else if (*p != ')')
            return *why = "bad 'shape' tuple", NULL;
    }
    return p + 1;
}

/* A structured descr of one field: [('name', 'descr')] (trailing commas
 * allowed, as Python's repr may write them). */
static const char *parse_fields(const char *p, NpyHeader *h, const char **why)
{
    p = skip_ws(p + 1);
    if (*p != '(')
        return *why = "bad structured 'descr'", NULL;
    p = parse_str(skip_ws(p + 1), h->field, sizeof h->field);
    if (!p || *(p = skip_ws(p)) != ',')
        return *why = "bad structured 'descr'", NULL;
    p = parse_str(skip_ws(p + 1), h->descr, sizeof h->descr);
    if (!p)
        return *why = "bad structured 'descr' (a field with a shape or nested fields?)", NULL;
    p = skip_ws(p);
    if (*p == ',')
        p = skip_ws(p + 1);
    if (*p != ')')
        return *why = "bad structured 'descr' (a field with a shape?)", NULL;
    p = skip_ws(p + 1);
    if (*p == ',')
        p = skip_ws(p + 1);
    if (*p != ']')
        return *why = "structured dtypes of several fields are not supported", NULL;
    h->structured = 1;
    return p + 1;
}

static int parse_header(const char *p, NpyHeader *h, const char **why)
{
    memset(h, 0, sizeof *h);
    p = skip_ws(p);
    if (*p != '{')
        return *why = "header is not a dict", -1;
    p = skip_ws(p + 1);
    while (*p != '}') {
        char key[32];
        p = parse_str(p, key, sizeof key);
        if (!p)
            return *why = "bad key in header", -1;
        p = skip_ws(p);
        if (*p != ':')
            return *why = "missing ':' in header", -1;
        p = skip_ws(p + 1);
        if (strcmp(key, "descr") == 0 && *p == '[') {
            p = parse_fields(p, h, why);
            if (!p)
                return -1;
            h->have_descr = 1;
        } else if (strcmp(key, "descr") == 0) {
            p = parse_str(p, h->descr, sizeof h->descr);
            if (!p)
                return *why = "bad 'descr'", -1;
            h->have_descr = 1;
        } else if (strcmp(key, "fortran_order") == 0) {
            if (strncmp(p, "True", 4) == 0)
                h->fortran = 1, p += 4;
            else if (strncmp(p, "False", 5) == 0)
                h->fortran = 0, p += 5;
            else
                return *why = "bad 'fortran_order'", -1;
            h->have_order = 1;
        } else if (strcmp(key, "shape") == 0) {
            p = parse_shape(p, &h->shape, why);
            if (!p)
                return -1;
            h->have_shape = 1;
        } else {
            return *why = "unknown key in header", -1;
        }
        p = skip_ws(p);
        if (*p == ',')
            p = skip_ws(p + 1);
        else if (*p != '}')
            return *why = "bad header dict", -1;
    }
    if (!h->have_descr || !h->have_order || !h->have_shape)
        return *why = "header lacks 'descr', 'fortran_order' or 'shape'", -1;
    return 0;
}

int tensor_read_npy_buffer(const void *buf, size_t len, const char *what, Arena *a,
                           Tensor *out, Diag *d)
{
    const unsigned char *b = buf;
    if (len < 10 || memcmp(b, "\x93NUMPY", 6) != 0)
        return diag_error(d, NULL, -1, "%s: not an .npy file (bad magic)", what);
    int major = b[6];
    size_t prefix = major == 1 ? 10 : 12;
    if (major < 1 || major > 3)
        return diag_error(d, NULL, -1, "%s: unsupported .npy format version %d.%d", what, major,
                          b[7]);
    if (len < prefix)
        return diag_error(d, NULL, -1, "%s: truncated .npy header", what);
    size_t hlen = major == 1 ? (size_t)b[8] | (size_t)b[9] << 8
                             : (size_t)b[8] | (size_t)b[9] << 8 | (size_t)b[10] << 16 |
                                   (size_t)b[11] << 24;
    if (hlen > len - prefix)
        return diag_error(d, NULL, -1, "%s: truncated .npy header (%zu bytes announced, %zu left)",
                          what, hlen, len - prefix);
    char *text = malloc(hlen + 1);
    if (!text)
        return diag_error(d, NULL, -1, "%s: out of memory", what);
    memcpy(text, b + prefix, hlen);
    text[hlen] = 0;
    NpyHeader h;
    const char *why = NULL;
    int rc = parse_header(text, &h, &why);
    free(text);
    if (rc)
        return diag_error(d, NULL, -1, "%s: malformed .npy header: %s", what, why);
    if (h.fortran)
        return diag_error(d, NULL, -1, "%s: fortran_order arrays are not supported; save a "
                                       "C-ordered array (np.ascontiguousarray)", what);
    NpyType nt;
    char reason[512];
    if (npy_type_parse(h.descr, h.structured ? h.field : NULL, &nt, reason, sizeof reason))
        return diag_error(d, NULL, -1, "%s: %s", what, reason);
    int64_t numel, file_bytes, bytes;
    if (!shape_numel(&h.shape, &numel) || !i64_mul(numel, nt.item, &file_bytes) ||
        !dtype_bytes(nt.dt, numel, &bytes) || (uint64_t)bytes > SIZE_MAX / 2)
        return diag_error(d, NULL, -1, "%s: array size overflows", what);
    size_t have = len - prefix - hlen;
    if ((uint64_t)have != (uint64_t)file_bytes) {
        char sb[96];
        return diag_error(d, NULL, -1, "%s: %s data for shape %s needs %lld bytes, the file has %zu%s",
                          what, dtype_name(nt.dt), shape_str(&h.shape, sb, sizeof sb),
                          (long long)file_bytes, have,
                          (uint64_t)have < (uint64_t)file_bytes ? " (truncated)" : "");
    }
    memset(out, 0, sizeof *out);
    out->dtype = nt.dt;
    out->shape = h.shape;
    out->data = arena_alloc(a, bytes ? (size_t)bytes : 1);
    if (npy_elems_decode(&nt, b + prefix + hlen, numel, out->data, reason, sizeof reason))
        return diag_error(d, NULL, -1, "%s: %s", what, reason);
    return 0;
}

int tensor_read_npy(const char *path, Arena *a, Tensor *out, Diag *d)
{
    unsigned char *buf;
    size_t len;
    if (file_read_all(path, &buf, &len, d))
        return -1;
    int rc = tensor_read_npy_buffer(buf, len, path, a, out, d);
    free(buf);
    return rc;
}
