/* tensor.h - a named block of typed data with a shape.
 *
 * Used for tensors read from files (.npy/.npz/.pb), for attribute tensors
 * (Constant's "value") and for test references. The data belongs to whoever
 * made the Tensor (an Arena in the compiler). */
#ifndef CTVM_IR_TENSOR_H
#define CTVM_IR_TENSOR_H

#include "dtype.h"
#include "shape.h"

typedef struct Tensor {
    const char *name; /* may be NULL */
    DType dtype;
    Shape shape;      /* static */
    void *data;       /* numel * dtype_size bytes, native byte order */
} Tensor;

/* Convert element i of a typed buffer to double / int64 (for folding and diffs). */
double tensor_get_f64(DType t, const void *data, int64_t i);
int64_t tensor_get_i64(DType t, const void *data, int64_t i);
void tensor_set_f64(DType t, void *data, int64_t i, double v);
void tensor_set_i64(DType t, void *data, int64_t i, int64_t v);
/* tensor_set_f64 with the float8 conversion's saturation (sat = 0: overflow
 * gives inf/NaN) and float8e8m0's rounding (CTVM_ROUND_*) chosen. */
void tensor_set_f64_mode(DType t, void *data, int64_t i, double v, int sat, int round_mode);

#endif
