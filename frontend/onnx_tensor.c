/* onnx_tensor.c - TensorProto decoding (see onnx_tensor.h).
 *
 * raw_data is little-endian on disk and is copied as is: ctvm runs on
 * little-endian hosts only (checked at compile time below). The typed fields
 * follow onnx.proto: int32_data carries int32, int8, uint8, bool and float16
 * (the half's bit pattern in the low 16 bits). */
#include "onnx_tensor.h"

#include <stdio.h>
#include <string.h>

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "ctvm's frontend assumes a little-endian host"
#endif

static const char *tensor_name(const Onnx__TensorProto *tp)
{
    return tp->name ? tp->name : "";
}

static int tensor_err(const OnnxTensorCtx *c, const Onnx__TensorProto *tp, Diag *d,
                      const char *reason)
{
    if (!*tensor_name(tp))
        return diag_error(d, c->g, c->node, "%s: %s", c->what, reason);
    return diag_error(d, c->g, c->node, "%s '%s': %s", c->what, tensor_name(tp), reason);
}

const char *onnx_dtype_name(int code)
{
    static const char *const NAMES[] = {
        "UNDEFINED", "FLOAT",  "UINT8",  "INT8",   "UINT16",    "INT16",
        "INT32",     "INT64",  "STRING", "BOOL",   "FLOAT16",   "DOUBLE",
        "UINT32",    "UINT64", "COMPLEX64", "COMPLEX128", "BFLOAT16",
    };
    if (code >= 0 && code < (int)(sizeof NAMES / sizeof NAMES[0]))
        return NAMES[code];
    return "unknown";
}

static int check_source(const Onnx__TensorProto *tp, const OnnxTensorCtx *c, DType dt,
                        const Shape *shape, int64_t numel, int64_t bytes, Diag *d);

static int is_external(const Onnx__TensorProto *tp)
{
    return tp->has_data_location &&
           tp->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL;
}

int onnx_tensor_info(const Onnx__TensorProto *tp, const OnnxTensorCtx *c, DType *dt,
                     Shape *shape, int64_t *bytes, Diag *d)
{
    char why[256];
    if (!tp->has_data_type)
        return tensor_err(c, tp, d, "has no data type");
    *dt = dtype_from_onnx(tp->data_type);
    if (!dtype_supported(*dt)) {
        snprintf(why, sizeof why, "unsupported data type %s (%d)", onnx_dtype_name(tp->data_type),
                 (int)tp->data_type);
        return tensor_err(c, tp, d, why);
    }
    if (tp->segment)
        return tensor_err(c, tp, d, "segmented tensors are not supported");
    if (tp->n_dims > CTVM_MAX_RANK) {
        snprintf(why, sizeof why, "rank %zu exceeds ctvm's limit of %d", tp->n_dims,
                 CTVM_MAX_RANK);
        return tensor_err(c, tp, d, why);
    }
    Shape s = shape_unknown();
    s.rank = (int)tp->n_dims;
    for (size_t i = 0; i < tp->n_dims; i++) {
        if (tp->dims[i] < 0) {
            snprintf(why, sizeof why, "negative dimension %lld at axis %zu",
                     (long long)tp->dims[i], i);
            return tensor_err(c, tp, d, why);
        }
        s.dims[i] = tp->dims[i];
    }
    int64_t numel = 1;
    for (int i = 0; i < s.rank; i++)
        if (!i64_mul(numel, s.dims[i], &numel))
            return tensor_err(c, tp, d, "element count overflows");
    if (!i64_mul(numel, (int64_t)dtype_size(*dt), bytes) || (uint64_t)*bytes > SIZE_MAX / 2)
        return tensor_err(c, tp, d, "byte size overflows");
    if (check_source(tp, c, *dt, &s, numel, *bytes, d))
        return -1;
    *shape = s;
    return 0;
}

/* How many typed-field values the tensor carries, and in which field. */
static size_t typed_count(const Onnx__TensorProto *tp, const char **field)
{
    struct { size_t n; const char *name; } f[] = {
        {tp->n_float_data, "float_data"},   {tp->n_int32_data, "int32_data"},
        {tp->n_int64_data, "int64_data"},   {tp->n_double_data, "double_data"},
        {tp->n_uint64_data, "uint64_data"}, {tp->n_string_data, "string_data"},
    };
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
        if (f[i].n) {
            *field = f[i].name;
            return f[i].n;
        }
    *field = NULL;
    return 0;
}

/* The typed field that must hold values of dtype dt. */
static const char *typed_field_for(DType dt)
{
    switch (dt) {
    case DT_FLOAT32: return "float_data";
    case DT_INT64: return "int64_data";
    case DT_FLOAT64: return "double_data";
    default: return "int32_data";
    }
}

static void fill_from_int32(const int32_t *src, DType dt, size_t n, void *dst)
{
    for (size_t i = 0; i < n; i++) {
        switch (dt) {
        case DT_INT32: ((int32_t *)dst)[i] = src[i]; break;
        case DT_INT8: ((int8_t *)dst)[i] = (int8_t)src[i]; break;
        case DT_UINT8: ((uint8_t *)dst)[i] = (uint8_t)src[i]; break;
        case DT_BOOL: ((uint8_t *)dst)[i] = src[i] != 0; break;
        case DT_FLOAT16: ((uint16_t *)dst)[i] = (uint16_t)src[i]; break;
        default: break;
        }
    }
}

/* Checks that the data the tensor points to has exactly the size its type and
 * dims announce, before anything is allocated for it. */
static int check_source(const Onnx__TensorProto *tp, const OnnxTensorCtx *c, DType dt,
                        const Shape *shape, int64_t numel, int64_t bytes, Diag *d)
{
    char why[256];
    const char *field;
    size_t n_typed = typed_count(tp, &field);
    int external = is_external(tp);
    int raw = tp->has_raw_data && !external;
    if (raw + external + (n_typed > 0) > 1) {
        snprintf(why, sizeof why, "holds its data in more than one place (%s%s%s)",
                 raw ? "raw_data " : "", external ? "external " : "", n_typed ? field : "");
        return tensor_err(c, tp, d, why);
    }
    if (external)
        return onnx_external_check(tp, c, bytes, d);
    if (raw) {
        if ((uint64_t)tp->raw_data.len != (uint64_t)bytes) {
            char sb[96];
            snprintf(why, sizeof why, "raw_data has %zu bytes, expected %lld (%s %s)",
                     tp->raw_data.len, (long long)bytes, dtype_name(dt),
                     shape_str(shape, sb, sizeof sb));
            return tensor_err(c, tp, d, why);
        }
        return 0;
    }
    if (n_typed == 0) {
        if (numel == 0)
            return 0;
        return tensor_err(c, tp, d, "has no data (no raw_data, typed values or external data)");
    }
    const char *want = typed_field_for(dt);
    if (strcmp(field, want) != 0) {
        snprintf(why, sizeof why, "a %s tensor must keep its values in %s, not %s",
                 dtype_name(dt), want, field);
        return tensor_err(c, tp, d, why);
    }
    if ((uint64_t)n_typed != (uint64_t)numel) {
        snprintf(why, sizeof why, "%s has %zu values, expected %lld", field, n_typed,
                 (long long)numel);
        return tensor_err(c, tp, d, why);
    }
    return 0;
}

int onnx_tensor_fill(const Onnx__TensorProto *tp, const OnnxTensorCtx *c, DType dt,
                     const Shape *shape, int64_t bytes, void *dst, Diag *d)
{
    (void)shape;
    if (is_external(tp))
        return onnx_external_read(tp, c, dst, bytes, d);
    if (tp->has_raw_data) {
        if (bytes)
            memcpy(dst, tp->raw_data.data, (size_t)bytes);
        return 0;
    }
    /* an empty field has a NULL array: memcpy(dst, NULL, 0) is undefined */
    switch (dt) {
    case DT_FLOAT32: if (tp->n_float_data) memcpy(dst, tp->float_data, tp->n_float_data * sizeof(float)); break;
    case DT_INT64: if (tp->n_int64_data) memcpy(dst, tp->int64_data, tp->n_int64_data * sizeof(int64_t)); break;
    case DT_FLOAT64: if (tp->n_double_data) memcpy(dst, tp->double_data, tp->n_double_data * sizeof(double)); break;
    default: fill_from_int32(tp->int32_data, dt, tp->n_int32_data, dst); break;
    }
    return 0;
}

int onnx_tensor_decode(const Onnx__TensorProto *tp, const OnnxTensorCtx *c, Arena *a,
                       Tensor *out, Diag *d)
{
    DType dt;
    Shape s;
    int64_t bytes;
    if (onnx_tensor_info(tp, c, &dt, &s, &bytes, d))
        return -1;
    void *data = arena_alloc(a, bytes ? (size_t)bytes : 1);
    if (onnx_tensor_fill(tp, c, dt, &s, bytes, data, d))
        return -1;
    memset(out, 0, sizeof *out);
    out->name = arena_strdup(a, tensor_name(tp));
    out->dtype = dt;
    out->shape = s;
    out->data = data;
    return 0;
}
