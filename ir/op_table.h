/* op_table.h - the one list of ONNX operators ctvm knows.
 *
 * X(ENUM, "OnnxName", family, lo, hi, flags): the operator belongs to the
 * family ops/<family>.c (shape rule, attribute normalisation and compute
 * definition, see ops/ops.h); ctvm implements its versions lo..hi, where a
 * version is an opset number at which ONNX defined a new version of the
 * operator (ir/onnx_op_history.inc, generated from the onnx package). A
 * node's version is the one in force at the model's opset; a version
 * outside lo..hi is refused by name. Internal operators (made by passes,
 * never read from a model) have lo = hi = 0. Flags:
 *   E  elementwise, fusable as an epilogue into its producer
 *   P  takes fused elementwise epilogues
 *   V  same bytes, new shape (can become a zero-copy view)
 * Adding an operator to an existing family is one line here; see
 * docs/ADDING_AN_OP.md. */
#ifndef CTVM_IR_OP_TABLE_H
#define CTVM_IR_OP_TABLE_H

#include <stdint.h>

enum { OPF_E = 1, OPF_P = 2, OPF_V = 4 };
#define OPF_ 0
#define OPF_EP (OPF_E | OPF_P)

#define CTVM_OPS(X)                                                  \
    X(CONV, "Conv", conv, 1, 11, OPF_P)                              \
    X(BATCHNORM, "BatchNormalization", batchnorm, 7, 15, OPF_P)      \
    X(RELU, "Relu", unary, 6, 14, OPF_EP)                            \
    X(CLIP, "Clip", unary, 6, 13, OPF_EP)                            \
    X(SIGMOID, "Sigmoid", unary, 6, 13, OPF_EP)                      \
    X(TANH, "Tanh", unary, 6, 13, OPF_EP)                            \
    X(EXP, "Exp", unary, 6, 13, OPF_EP)                              \
    X(SQRT, "Sqrt", unary, 6, 13, OPF_EP)                            \
    X(NEG, "Neg", unary, 6, 13, OPF_EP)                              \
    X(ABS, "Abs", unary, 6, 13, OPF_EP)                              \
    X(LEAKYRELU, "LeakyRelu", unary, 6, 16, OPF_EP)                  \
    X(HARDSIGMOID, "HardSigmoid", unary, 6, 6, OPF_EP)               \
    X(HARDSWISH, "HardSwish", unary, 14, 14, OPF_EP)                 \
    X(ADD, "Add", binary, 7, 14, OPF_EP)                             \
    X(SUB, "Sub", binary, 7, 14, OPF_EP)                             \
    X(MUL, "Mul", binary, 7, 14, OPF_EP)                             \
    X(DIV, "Div", binary, 7, 14, OPF_EP)                             \
    X(MAXPOOL, "MaxPool", pool, 1, 12, OPF_P)                        \
    X(AVGPOOL, "AveragePool", pool, 7, 11, OPF_P)                    \
    X(GLOBALAVGPOOL, "GlobalAveragePool", pool, 1, 1, OPF_P)         \
    X(GLOBALMAXPOOL, "GlobalMaxPool", pool, 1, 1, OPF_P)             \
    X(REDUCEMEAN, "ReduceMean", reduce, 1, 18, OPF_P)                \
    X(REDUCESUM, "ReduceSum", reduce, 1, 13, OPF_P)                  \
    X(REDUCEMAX, "ReduceMax", reduce, 1, 18, OPF_P)                  \
    X(GEMM, "Gemm", gemm, 7, 13, OPF_P)                              \
    X(MATMUL, "MatMul", gemm, 1, 13, OPF_P)                          \
    X(SOFTMAX, "Softmax", softmax, 1, 13, OPF_)                      \
    X(CONCAT, "Concat", concat, 4, 13, OPF_)                         \
    X(SPLIT, "Split", split, 2, 18, OPF_)                            \
    X(SLICE, "Slice", slice, 1, 13, OPF_P)                           \
    X(TRANSPOSE, "Transpose", transpose, 1, 13, OPF_P)               \
    X(RESHAPE, "Reshape", reshape, 5, 14, OPF_V)                     \
    X(FLATTEN, "Flatten", reshape, 1, 13, OPF_V)                     \
    X(SQUEEZE, "Squeeze", reshape, 1, 13, OPF_V)                     \
    X(UNSQUEEZE, "Unsqueeze", reshape, 1, 13, OPF_V)                 \
    X(IDENTITY, "Identity", reshape, 1, 16, OPF_)                    \
    X(DROPOUT, "Dropout", reshape, 7, 13, OPF_)                      \
    X(CONSTANT, "Constant", shapeops, 1, 13, OPF_)                   \
    X(SHAPE, "Shape", shapeops, 1, 15, OPF_)                         \
    X(GATHER, "Gather", shapeops, 1, 13, OPF_)                       \
    X(CAST, "Cast", shapeops, 6, 13, OPF_)                           \
    X(CONSTANTOFSHAPE, "ConstantOfShape", shapeops, 9, 9, OPF_)      \
    X(RANGE, "Range", shapeops, 11, 11, OPF_)                        \
    X(EQUAL, "Equal", shapeops, 7, 13, OPF_)                         \
    X(WHERE, "Where", shapeops, 9, 16, OPF_)                         \
    X(EXPAND, "Expand", shapeops, 8, 13, OPF_)                       \
    /* internal, made by pass "layout" (never read from a model) */  \
    X(CONV_NCHWC, "ctvm.ConvNCHWc", convnchwc, 0, 0, OPF_P)          \
    X(PACK, "ctvm.Pack", layout, 0, 0, OPF_)                         \
    X(UNPACK, "ctvm.Unpack", layout, 0, 0, OPF_)                     \
    X(PADHW, "ctvm.PadHW", layout, 0, 0, OPF_)

typedef enum OpKind {
    OP_UNKNOWN = 0,
#define X(e, name, fam, lo, hi, fl) OP_##e,
    CTVM_OPS(X)
#undef X
    OP_COUNT
} OpKind;

OpKind op_kind_from_name(const char *onnx_name); /* OP_UNKNOWN if not listed */
const char *op_kind_name(OpKind k);
/* The versions lo..hi of k ctvm implements (0..0 for internal operators). */
void op_kind_versions(OpKind k, int *lo, int *hi);

/* The newest default-domain opset ctvm knows the operator history of. */
int onnx_max_opset(void);
/* The version of ONNX operator `name` in force at `opset`: the largest
 * opset <= `opset` at which ONNX defined a version of it. 0 when the
 * operator does not exist yet at that opset; -1 when ONNX (as far as ctvm
 * knows) has no such operator. *first gets the opset that introduced it. */
int onnx_op_version(const char *name, int64_t opset, int *first);

#endif

#ifndef CTVM_IR_OP_CLASSES
#define CTVM_IR_OP_CLASSES
/* 1 for elementwise operators that can be fused as an epilogue. */
int op_is_elementwise(OpKind k);
/* 1 for operators whose single output can take fused epilogues. */
int op_takes_epilogue(OpKind k);
/* 1 for Reshape/Flatten/Squeeze/Unsqueeze: same bytes, new shape. */
int op_is_reshape(OpKind k);
#endif
