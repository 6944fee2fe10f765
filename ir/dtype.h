/* dtype.h - element types known to ctvm.
 *
 * The numbering is ctvm's own; the frontend maps ONNX TensorProto.DataType
 * codes onto it (dtype_from_onnx). Every type listed here can be stored at
 * run time. Arithmetic happens in a *compute type* (dtype_compute): the
 * integer types, bool, float32 and float64 compute as themselves; float16,
 * bfloat16, the float8 types, float8e8m0 and float4e2m1 are stored as such
 * and computed in float32; the sub-byte integers (int4/uint4/int2/uint2)
 * are stored packed (element 0 in the low bits of byte 0) and computed as
 * int8/uint8. Strings and complex numbers are recognised (so errors can
 * name them) but not supported. */
#ifndef CTVM_IR_DTYPE_H
#define CTVM_IR_DTYPE_H

#include <stddef.h>
#include <stdint.h>

typedef enum DType {
    DT_UNDEFINED = 0,
    DT_FLOAT32,        /* float */
    DT_INT64,          /* int64_t */
    DT_INT32,          /* int32_t */
    DT_INT8,           /* int8_t */
    DT_UINT8,          /* uint8_t */
    DT_FLOAT16,        /* IEEE half, stored as uint16_t */
    DT_BOOL,           /* one byte, 0 or 1 */
    DT_FLOAT64,        /* double */
    DT_INT16,          /* int16_t */
    DT_UINT16,         /* uint16_t */
    DT_UINT32,         /* uint32_t */
    DT_UINT64,         /* uint64_t */
    DT_BFLOAT16,       /* upper half of a float32, stored as uint16_t */
    DT_FLOAT8E4M3FN,   /* 1-4-3, no inf, NaN 0x7f/0xff; stored as uint8_t */
    DT_FLOAT8E4M3FNUZ, /* 1-4-3 bias 8, no inf or -0, NaN 0x80 */
    DT_FLOAT8E5M2,     /* 1-5-2 with inf and NaN */
    DT_FLOAT8E5M2FNUZ, /* 1-5-2 bias 16, no inf or -0, NaN 0x80 */
    DT_FLOAT8E8M0,     /* 2^(e-127), NaN 0xff (a scale type) */
    DT_FLOAT4E2M1,     /* 1-2-1, 4 bits, two per byte */
    DT_INT4,           /* 4 bits, two per byte */
    DT_UINT4,
    DT_INT2,           /* 2 bits, four per byte */
    DT_UINT2,
    DT_STRING,         /* recognised only */
    DT_COMPLEX64,      /* recognised only */
    DT_COMPLEX128,     /* recognised only */
    DT_COUNT
} DType;

/* Bytes per element, 0 for sub-byte types, unsupported ones and DT_UNDEFINED. */
size_t dtype_size(DType t);
/* Bits per element (4 or 2 for the packed types), 0 when unsupported. */
int dtype_bits(DType t);
/* Bytes of n elements (sub-byte types rounded up); 0 with *ok = 0 on overflow. */
int dtype_bytes(DType t, int64_t n, int64_t *bytes);
const char *dtype_name(DType t);      /* "float32", "int64", ... */
DType dtype_from_name(const char *name); /* inverse of dtype_name; DT_UNDEFINED if unknown */
DType dtype_from_onnx(int onnx_code); /* DT_UNDEFINED when ONNX has no such code */
int dtype_to_onnx(DType t);
/* 1 when generated code can hold values of this type (not strings, complex). */
int dtype_supported(DType t);
/* The type values of t are computed in (see above). */
DType dtype_compute(DType t);
/* The C type of one stored element ("float", "uint16_t", ... "uint8_t" for
 * the packed types, whose storage unit is a byte). */
const char *dtype_c_storage(DType t);
int dtype_is_float(DType t);     /* any floating type, incl. 16-bit and 8-bit ones */
int dtype_is_int(DType t);       /* signed or unsigned integer, incl. packed, not bool */
int dtype_is_signed(DType t);    /* signed integers and floats */
int dtype_is_packed(DType t);    /* stored below one byte per element */

#endif
