/* dtype.h - element types known to ctvm.
 *
 * The numbering is ctvm's own; the frontend maps ONNX TensorProto.DataType
 * codes onto it (dtype_from_onnx). Generated code computes in float32; the
 * integer types exist for shape computations that constant folding removes. */
#ifndef CTVM_IR_DTYPE_H
#define CTVM_IR_DTYPE_H

#include <stddef.h>

typedef enum DType {
    DT_UNDEFINED = 0,
    DT_FLOAT32,  /* float */
    DT_INT64,    /* int64_t */
    DT_INT32,    /* int32_t */
    DT_INT8,     /* int8_t */
    DT_UINT8,    /* uint8_t */
    DT_FLOAT16,  /* IEEE half, stored as uint16_t */
    DT_BOOL,     /* one byte, 0 or 1 */
    DT_FLOAT64,  /* double */
} DType;

size_t dtype_size(DType t);          /* bytes per element, 0 for DT_UNDEFINED */
const char *dtype_name(DType t);     /* "float32", "int64", ... */
DType dtype_from_onnx(int onnx_code); /* DT_UNDEFINED when ctvm has no such type */
int dtype_to_onnx(DType t);

#endif
