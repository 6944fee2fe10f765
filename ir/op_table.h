/* op_table.h - the one list of ONNX operators ctvm knows.
 *
 * X(ENUM, "OnnxName", family): each family is a file ops/<family>.c holding
 * the shape rule and reference evaluation (op_<family>_infer / _eval), and
 * schedule/compute_<family>.c holding its compute definition. Adding an
 * operator to an existing family is one line here; see docs/ADDING_AN_OP.md. */
#ifndef CTVM_IR_OP_TABLE_H
#define CTVM_IR_OP_TABLE_H

#define CTVM_OPS(X)                                       \
    X(CONV, "Conv", conv)                                 \
    X(BATCHNORM, "BatchNormalization", batchnorm)         \
    X(RELU, "Relu", unary)                                \
    X(CLIP, "Clip", unary)                                \
    X(SIGMOID, "Sigmoid", unary)                          \
    X(TANH, "Tanh", unary)                                \
    X(EXP, "Exp", unary)                                  \
    X(SQRT, "Sqrt", unary)                                \
    X(NEG, "Neg", unary)                                  \
    X(ABS, "Abs", unary)                                  \
    X(LEAKYRELU, "LeakyRelu", unary)                      \
    X(HARDSIGMOID, "HardSigmoid", unary)                  \
    X(HARDSWISH, "HardSwish", unary)                      \
    X(ADD, "Add", binary)                                 \
    X(SUB, "Sub", binary)                                 \
    X(MUL, "Mul", binary)                                 \
    X(DIV, "Div", binary)                                 \
    X(MAXPOOL, "MaxPool", pool)                           \
    X(AVGPOOL, "AveragePool", pool)                       \
    X(GLOBALAVGPOOL, "GlobalAveragePool", pool)           \
    X(GLOBALMAXPOOL, "GlobalMaxPool", pool)               \
    X(REDUCEMEAN, "ReduceMean", reduce)                   \
    X(REDUCESUM, "ReduceSum", reduce)                     \
    X(REDUCEMAX, "ReduceMax", reduce)                     \
    X(GEMM, "Gemm", gemm)                                 \
    X(MATMUL, "MatMul", gemm)                             \
    X(SOFTMAX, "Softmax", softmax)                        \
    X(CONCAT, "Concat", concat)                           \
    X(SPLIT, "Split", split)                              \
    X(SLICE, "Slice", slice)                              \
    X(TRANSPOSE, "Transpose", transpose)                  \
    X(RESHAPE, "Reshape", reshape)                        \
    X(FLATTEN, "Flatten", reshape)                        \
    X(SQUEEZE, "Squeeze", reshape)                        \
    X(UNSQUEEZE, "Unsqueeze", reshape)                    \
    X(IDENTITY, "Identity", reshape)                      \
    X(DROPOUT, "Dropout", reshape)                        \
    X(CONSTANT, "Constant", shapeops)                     \
    X(SHAPE, "Shape", shapeops)                           \
    X(GATHER, "Gather", shapeops)                         \
    X(CAST, "Cast", shapeops)                             \
    X(CONSTANTOFSHAPE, "ConstantOfShape", shapeops)       \
    X(RANGE, "Range", shapeops)                           \
    X(EQUAL, "Equal", shapeops)                           \
    X(WHERE, "Where", shapeops)                           \
    X(EXPAND, "Expand", shapeops)                         \
    /* internal, made by pass "layout" (never read from a model) */ \
    X(CONV_NCHWC, "ctvm.ConvNCHWc", convnchwc)            \
    X(PACK, "ctvm.Pack", layout)                          \
    X(UNPACK, "ctvm.Unpack", layout)                      \
    X(PADHW, "ctvm.PadHW", layout)

typedef enum OpKind {
    OP_UNKNOWN = 0,
#define X(e, name, fam) OP_##e,
    CTVM_OPS(X)
#undef X
    OP_COUNT
} OpKind;

OpKind op_kind_from_name(const char *onnx_name); /* OP_UNKNOWN if not listed */
const char *op_kind_name(OpKind k);

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
