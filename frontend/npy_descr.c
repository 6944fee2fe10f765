/* npy_descr.c - .npy element types: numpy's descr strings for the types
 * numpy has, and for the others (bfloat16, float8, float4, int4/uint4,
 * int2/uint2) a one-field structured descr named after the ml_dtypes type
 * whose field holds the raw storage: [('bfloat16', '<u2')], [('int4', '|u1')].
 * See tensor_io.h for why. Reading accepts either byte order ('<', '>', '='
 * native, '|' for one-byte types) and, as a field name, ctvm's type name as
 * well as ml_dtypes'. */
#include <stdio.h>
#include <string.h>

#include "npy_format.h"

static const struct {
    DType dt;
    const char *write; /* descr written: order + kind + size */
    const char *field; /* structured field name (ml_dtypes' name), or NULL */
} TYPES[] = {
    {DT_FLOAT32, "<f4", NULL},          {DT_FLOAT64, "<f8", NULL},
    {DT_FLOAT16, "<f2", NULL},          {DT_INT8, "|i1", NULL},
    {DT_INT16, "<i2", NULL},            {DT_INT32, "<i4", NULL},
    {DT_INT64, "<i8", NULL},            {DT_UINT8, "|u1", NULL},
    {DT_UINT16, "<u2", NULL},           {DT_UINT32, "<u4", NULL},
    {DT_UINT64, "<u8", NULL},           {DT_BOOL, "|b1", NULL},
    {DT_BFLOAT16, "<u2", "bfloat16"},
    {DT_FLOAT8E4M3FN, "|u1", "float8_e4m3fn"},
    {DT_FLOAT8E4M3FNUZ, "|u1", "float8_e4m3fnuz"},
    {DT_FLOAT8E5M2, "|u1", "float8_e5m2"},
    {DT_FLOAT8E5M2FNUZ, "|u1", "float8_e5m2fnuz"},
    {DT_FLOAT8E8M0, "|u1", "float8_e8m0fnu"},
    {DT_FLOAT4E2M1, "|u1", "float4_e2m1fn"},
    {DT_INT4, "|u1", "int4"},           {DT_UINT4, "|u1", "uint4"},
    {DT_INT2, "|u1", "int2"},           {DT_UINT2, "|u1", "uint2"},
};
enum { N_TYPES = sizeof TYPES / sizeof TYPES[0] };

static const char STRUCT_NAMES[] =
    "bfloat16, float8_e4m3fn, float8_e4m3fnuz, float8_e5m2, float8_e5m2fnuz, "
    "float8_e8m0fnu, float4_e2m1fn, int4, uint4, int2, uint2";

/* Splits "<f4" into order and code; 0 if malformed. */
static int split(const char *descr, char *order, const char **code)
{
    if (!descr[0] || !strchr("<>=|", descr[0]))
        return 0;
    *order = descr[0];
    *code = descr + 1;
    return 1;
}

static int fail(char *why, size_t cap, const char *descr)
{
    if (descr[0] && strchr("<>=|", descr[0]) && descr[1] == 'V')
        snprintf(why, cap, "unsupported dtype '%s': a raw void type (np.save of an ml_dtypes "
                 "array does not record its type; save a.view([('bfloat16', '<u2')]) and the "
                 "like, see tensor_io.h)", descr);
    else
        snprintf(why, cap, "unsupported dtype '%s' (ctvm reads f2 f4 f8 i1 i2 i4 i8 u1 u2 u4 u8 "
                 "b1 in either byte order, and [(TYPE, '<u2' or '|u1')] for TYPE one of %s)",
                 descr, STRUCT_NAMES);
    return -1;
}

/* The row of a structured field name (ml_dtypes' or ctvm's), or -1. */
static int field_row(const char *field)
{
    for (int i = 0; i < N_TYPES; i++)
        if (TYPES[i].field &&
            (!strcmp(field, TYPES[i].field) || !strcmp(field, dtype_name(TYPES[i].dt))))
            return i;
    return -1;
}

/* The row of a plain code ("f4"), or -1. */
static int code_row(const char *code)
{
    for (int i = 0; i < N_TYPES; i++)
        if (!TYPES[i].field && !strcmp(code, TYPES[i].write + 1))
            return i;
    return -1;
}

int npy_type_parse(const char *descr, const char *field, NpyType *t, char *why, size_t cap)
{
    int row = field ? field_row(field) : -1;
    if (field && row < 0) {
        snprintf(why, cap, "structured dtypes are not supported (field '%s'), except one field "
                 "named after a type numpy lacks: %s", field, STRUCT_NAMES);
        return -1;
    }
    char order;
    const char *code;
    if (!split(descr, &order, &code))
        return fail(why, cap, descr);
    if (!field) {
        row = code_row(code);
        if (row < 0)
            return fail(why, cap, descr);
    } else if (strcmp(code, TYPES[row].write + 1) != 0) {
        snprintf(why, cap, "unsupported dtype: field '%s' must hold '%s', not '%s'", field,
                 TYPES[row].write, descr);
        return -1;
    }
    int item = code[1] - '0';
    if (order == '|' && item > 1)
        return fail(why, cap, descr); /* numpy writes '|' for one-byte types only */
    t->dt = TYPES[row].dt;
    t->item = item;
    t->swap = order == '>' && item > 1;
    return 0;
}

int npy_descr_for(DType dt, char *buf, size_t cap, int *item)
{
    for (int i = 0; i < N_TYPES; i++) {
        if (TYPES[i].dt != dt)
            continue;
        if (TYPES[i].field)
            snprintf(buf, cap, "[('%s', '%s')]", TYPES[i].field, TYPES[i].write);
        else
            snprintf(buf, cap, "'%s'", TYPES[i].write);
        *item = TYPES[i].write[2] - '0';
        return 0;
    }
    return -1;
}
