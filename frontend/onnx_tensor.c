/* onnx_tensor.c - TensorProto decoding (see onnx_tensor.h).
 *
 * raw_data and external data are little-endian on disk and are copied as is:
 * ctvm runs on little-endian hosts only (checked at compile time below), and
 * the packed 4-bit and 2-bit types are packed on disk exactly as ctvm stores
 * them (element 0 in the low bits). The typed fields are onnx_typed.c's. The
 * unused high bits of a packed tensor's last byte are cleared, so equal
 * tensors have equal bytes. */
#include "onnx_tensor.h"

#include <stdio.h>
#include <string.h>

#include "onnx_limits.h"

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
        "UNDEFINED",      "FLOAT",      "UINT8",      "INT8",           "UINT16",
        "INT16",          "INT32",      "INT64",      "STRING",         "BOOL",
        "FLOAT16",        "DOUBLE",     "UINT32",     "UINT64",         "COMPLEX64",
        "COMPLEX128",     "BFLOAT16",   "FLOAT8E4M3FN", "FLOAT8E4M3FNUZ", "FLOAT8E5M2",
        "FLOAT8E5M2FNUZ", "UINT4",      "INT4",       "FLOAT4E2M1",     "FLOAT8E8M0",
        "UINT2",          "INT2",       "FLOAT6E2M3", "FLOAT6E3M2",
    };
    if (code >= 0 && code < (int)(sizeof NAMES / sizeof NAMES[0]))
        return NAMES[code];
    return "unknown";
}

/* Why a TensorProto data type cannot be held, for messages. */
static const char *unsupported_reason(DType dt)
{
    switch (dt) {
    case DT_STRING: return "ctvm compiles numeric tensors only";
    case DT_COMPLEX64:
    case DT_COMPLEX128: return "complex numbers are not supported";
    case DT_UNDEFINED: return "ctvm does not know this element type";
    default: return "not supported";
    }
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
        snprintf(why, sizeof why, "unsupported data type %s (%d): %s",
                 onnx_dtype_name(tp->data_type), (int)tp->data_type, unsupported_reason(*dt));
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
        if (tp->dims[i] > ONNX_MAX_DIM) {
            snprintf(why, sizeof why, "dimension %lld at axis %zu is above ctvm's limit of %lld",
                     (long long)tp->dims[i], i, (long long)ONNX_MAX_DIM);
            return tensor_err(c, tp, d, why);
        }
        s.dims[i] = tp->dims[i];
    }
    int64_t numel = 1;
    for (int i = 0; i < s.rank; i++)
        if (!i64_mul(numel, s.dims[i], &numel))
            return tensor_err(c, tp, d, "element count overflows");
    if (!dtype_bytes(*dt, numel, bytes) || (uint64_t)*bytes > SIZE_MAX / 2)
        return tensor_err(c, tp, d, "byte size overflows");
    if (check_source(tp, c, *dt, &s, numel, *bytes, d))
        return -1;
    if (*bytes > ONNX_MAX_TENSOR_BYTES) { /* only external data can hold that much */
        snprintf(why, sizeof why, "%lld bytes are more than ctvm's limit of %lld for one tensor",
                 (long long)*bytes, (long long)ONNX_MAX_TENSOR_BYTES);
        return tensor_err(c, tp, d, why);
    }
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
    const char *want = onnx_typed_field(dt);
    if (strcmp(field, want) != 0) {
        snprintf(why, sizeof why, "a %s tensor must keep its values in %s, not %s",
                 dtype_name(dt), want, field);
        return tensor_err(c, tp, d, why);
    }
    int64_t count;
    onnx_typed_count(dt, numel, &count); /* cannot overflow: bytes did not */
    if ((uint64_t)n_typed != (uint64_t)count) {
        int per = dtype_is_packed(dt) ? 8 / dtype_bits(dt) : 1;
        if (per > 1)
            snprintf(why, sizeof why, "%s has %zu values, expected %lld (%lld %s elements, %d "
                     "packed in each value)", field, n_typed, (long long)count,
                     (long long)numel, dtype_name(dt), per);
        else
            snprintf(why, sizeof why, "%s has %zu values, expected %lld", field, n_typed,
                     (long long)count);
        return tensor_err(c, tp, d, why);
    }
    if (onnx_typed_check(tp, dt, why, sizeof why))
        return tensor_err(c, tp, d, why);
    return 0;
}

/* Clears the bits past the last element of a packed tensor. */
static void clear_padding(DType dt, const Shape *shape, int64_t bytes, void *dst)
{
    int64_t numel;
    if (!dtype_is_packed(dt) || bytes == 0 || !shape_numel(shape, &numel))
        return;
    int used = (int)((numel * dtype_bits(dt)) % 8);
    if (used)
        ((uint8_t *)dst)[bytes - 1] &= (uint8_t)((1u << used) - 1);
}

int onnx_tensor_fill(const Onnx__TensorProto *tp, const OnnxTensorCtx *c, DType dt,
                     const Shape *shape, int64_t bytes, void *dst, Diag *d)
{
    if (is_external(tp)) {
        if (onnx_external_read(tp, c, dst, bytes, d))
            return -1;
    } else if (tp->has_raw_data) {
        if (bytes)
            memcpy(dst, tp->raw_data.data, (size_t)bytes);
    } else {
        onnx_typed_fill(tp, dt, dst);
    }
    clear_padding(dt, shape, bytes, dst);
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
