/* onnx_tensor.h - ONNX TensorProto to ctvm Tensor, shared by the model
 * loader (initializers, tensor attributes) and the .pb tensor reader.
 *
 * Decoding is split in two so that the loader can write a weight straight
 * into its constant Value: onnx_tensor_info() checks the data type, the dims
 * (none negative or above ONNX_MAX_DIM, no overflow in numel * element size,
 * at most ONNX_MAX_TENSOR_BYTES; frontend/onnx_limits.h) and that the data
 * source holds exactly that many bytes; onnx_tensor_fill() then copies the
 * elements from raw_data, the typed fields (float_data, int32_data,
 * int64_data, double_data, uint64_data; onnx_typed.c) or external data.
 *
 * Every numeric ONNX element type ctvm knows (ir/dtype.h) is decoded into
 * its native storage: packed 4-bit and 2-bit types stay packed, element 0 in
 * the low bits, as ONNX packs them. STRING, COMPLEX64/128, FLOAT6* and
 * unknown codes are refused with a message naming the type. */
#ifndef CTVM_FRONTEND_ONNX_TENSOR_H
#define CTVM_FRONTEND_ONNX_TENSOR_H

#include <stddef.h>
#include <stdint.h>

#include "ir/arena.h"
#include "ir/diag.h"
#include "ir/graph.h"
#include "ir/tensor.h"
#include "onnx/onnx.pb-c.h"

typedef struct OnnxTensorCtx {
    const Graph *g;       /* names the model file in diagnostics; may be NULL */
    int node;             /* node the tensor belongs to (attributes), or -1 */
    const char *what;     /* how messages name it: "initializer", "x.pb: tensor" */
    const char *base_dir; /* folder for external data; NULL refuses external data */
} OnnxTensorCtx;

/* Checks type and dims, and that the data source (raw_data, typed field or
 * external file range) holds exactly that many elements - so nothing is
 * allocated for sizes a damaged file only claims. Sets *dt, *shape (static)
 * and *bytes. 0 ok, -1 error. */
int onnx_tensor_info(const Onnx__TensorProto *tp, const OnnxTensorCtx *c, DType *dt,
                     Shape *shape, int64_t *bytes, Diag *d);
/* Writes the elements into dst (bytes as given by a successful
 * onnx_tensor_info on the same tensor). */
int onnx_tensor_fill(const Onnx__TensorProto *tp, const OnnxTensorCtx *c, DType dt,
                     const Shape *shape, int64_t bytes, void *dst, Diag *d);
/* Both of the above into a Tensor whose name and data come from arena a. */
int onnx_tensor_decode(const Onnx__TensorProto *tp, const OnnxTensorCtx *c, Arena *a,
                       Tensor *out, Diag *d);

/* External data (onnx_external.c): check that tp->external_data names a
 * file inside c->base_dir holding exactly `bytes` bytes at its offset; read
 * them into dst. */
int onnx_external_check(const Onnx__TensorProto *tp, const OnnxTensorCtx *c, int64_t bytes,
                        Diag *d);
int onnx_external_read(const Onnx__TensorProto *tp, const OnnxTensorCtx *c, void *dst,
                       int64_t bytes, Diag *d);

/* Typed fields (onnx_typed.c). The field a tensor of type dt keeps its
 * values in ("float_data", "int32_data", ...). */
const char *onnx_typed_field(DType dt);
/* How many values that field holds for numel elements (packed types: one
 * value per packed byte). 0 on overflow. */
int onnx_typed_count(DType dt, int64_t numel, int64_t *count);
/* 0 when every value fits dt; else -1 with the reason in why. */
int onnx_typed_check(const Onnx__TensorProto *tp, DType dt, char *why, size_t cap);
/* Converts the (checked) values into dt's native storage at dst. */
void onnx_typed_fill(const Onnx__TensorProto *tp, DType dt, void *dst);

/* ONNX name of a TensorProto.DataType code ("FLOAT", "STRING", ...). */
const char *onnx_dtype_name(int code);

#endif
