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

#define CTVM_OPS(X)                                                           \
    /* ---- convolution and pooling (ops/conv.c, pool.c; internal ones made by pass layout) ---- */\
    X(CONV, "Conv", conv, 1, 22, OPF_P)                                       \
    X(CONVTRANSPOSE, "ConvTranspose", convtranspose, 1, 22, OPF_P)            \
    X(MAXPOOL, "MaxPool", pool, 1, 22, OPF_P)                                 \
    X(AVGPOOL, "AveragePool", pool, 1, 22, OPF_P)                             \
    X(LPPOOL, "LpPool", pool, 1, 22, OPF_P)                                   \
    X(GLOBALAVGPOOL, "GlobalAveragePool", pool, 1, 22, OPF_P)                 \
    X(GLOBALMAXPOOL, "GlobalMaxPool", pool, 1, 22, OPF_P)                     \
    X(GLOBALLPPOOL, "GlobalLpPool", pool, 1, 22, OPF_P)                       \
    X(MAXUNPOOL, "MaxUnpool", maxunpool, 9, 22, OPF_)                         \
    X(GRIDSAMPLE, "GridSample", gridsample, 16, 22, OPF_)                     \
    X(CAUSALCONVWITHSTATE, "CausalConvWithState", causalconv, 27, 27, OPF_)   \
    X(COL2IM, "Col2Im", col2im, 18, 18, OPF_)                                 \
    X(AFFINEGRID, "AffineGrid", affinegrid, 20, 20, OPF_)                     \
    X(DEFORMCONV, "DeformConv", deformconv, 19, 22, OPF_)                     \
    X(ROIALIGN, "RoiAlign", roi, 10, 22, OPF_)                                \
    X(MAXROIPOOL, "MaxRoiPool", roi, 1, 22, OPF_)                             \
    X(CONV_NCHWC, "ctvm.ConvNCHWc", convnchwc, 0, 0, OPF_P)                   \
    X(WINOGRAD_CONV, "ctvm.WinogradConv", winograd, 0, 0, OPF_P)              \
    X(QCONV_NCHWC, "ctvm.QConvNCHWc", qconvnchwc, 0, 0, OPF_P)                \
    X(QMATMUL, "ctvm.QMatMul", qmatmul, 0, 0, OPF_P)                          \
    X(QPACKB, "ctvm.QPackB", qpackb, 0, 0, OPF_)                              \
    X(LUT, "ctvm.Lut", lut, 0, 0, OPF_)                                       \
    X(BF16MATMUL, "ctvm.BF16MatMul", bf16matmul, 0, 0, OPF_P)                \
    X(PACK, "ctvm.Pack", layout, 0, 0, OPF_)                                  \
    X(UNPACK, "ctvm.Unpack", layout, 0, 0, OPF_)                              \
    X(PADHW, "ctvm.PadHW", layout, 0, 0, OPF_)                                \
    /* ---- elementwise (ops/eltwise.c) ---- */                               \
    X(ABS, "Abs", eltwise, 1, 13, OPF_EP)                                     \
    X(NEG, "Neg", eltwise, 1, 13, OPF_EP)                                     \
    X(RELU, "Relu", eltwise, 1, 14, OPF_EP)                                   \
    X(EXP, "Exp", eltwise, 1, 13, OPF_EP)                                     \
    X(LOG, "Log", eltwise, 1, 13, OPF_EP)                                     \
    X(SQRT, "Sqrt", eltwise, 1, 13, OPF_EP)                                   \
    X(TANH, "Tanh", eltwise, 1, 13, OPF_EP)                                   \
    X(SIGMOID, "Sigmoid", eltwise, 1, 13, OPF_EP)                             \
    X(ERF, "Erf", eltwise, 9, 13, OPF_EP)                                     \
    X(SIN, "Sin", eltwise, 7, 22, OPF_EP)                                     \
    X(COS, "Cos", eltwise, 7, 22, OPF_EP)                                     \
    X(TAN, "Tan", eltwise, 7, 22, OPF_EP)                                     \
    X(ASIN, "Asin", eltwise, 7, 22, OPF_EP)                                   \
    X(ACOS, "Acos", eltwise, 7, 22, OPF_EP)                                   \
    X(ATAN, "Atan", eltwise, 7, 22, OPF_EP)                                   \
    X(SINH, "Sinh", eltwise, 9, 22, OPF_EP)                                   \
    X(COSH, "Cosh", eltwise, 9, 22, OPF_EP)                                   \
    X(ASINH, "Asinh", eltwise, 9, 22, OPF_EP)                                 \
    X(ACOSH, "Acosh", eltwise, 9, 22, OPF_EP)                                 \
    X(ATANH, "Atanh", eltwise, 9, 22, OPF_EP)                                 \
    X(FLOOR, "Floor", eltwise, 1, 13, OPF_EP)                                 \
    X(CEIL, "Ceil", eltwise, 1, 13, OPF_EP)                                   \
    X(ROUND, "Round", eltwise, 11, 22, OPF_EP)                                \
    X(RECIPROCAL, "Reciprocal", eltwise, 1, 13, OPF_EP)                       \
    X(SIGN, "Sign", eltwise, 9, 13, OPF_EP)                                   \
    X(NOT, "Not", eltwise, 1, 1, OPF_EP)                                      \
    X(BITWISENOT, "BitwiseNot", eltwise, 18, 18, OPF_EP)                      \
    X(ISNAN, "IsNaN", eltwise, 9, 20, OPF_EP)                                 \
    X(ISINF, "IsInf", eltwise, 10, 20, OPF_EP)                                \
    X(LEAKYRELU, "LeakyRelu", eltwise, 1, 16, OPF_EP)                         \
    X(PRELU, "PRelu", eltwise, 1, 16, OPF_EP)                                 \
    X(ELU, "Elu", eltwise, 1, 22, OPF_EP)                                     \
    X(SELU, "Selu", eltwise, 1, 22, OPF_EP)                                   \
    X(CELU, "Celu", eltwise, 12, 28, OPF_EP)                                  \
    X(HARDSIGMOID, "HardSigmoid", eltwise, 1, 22, OPF_EP)                     \
    X(HARDSWISH, "HardSwish", eltwise, 14, 22, OPF_EP)                        \
    X(SOFTPLUS, "Softplus", eltwise, 1, 22, OPF_EP)                           \
    X(SOFTSIGN, "Softsign", eltwise, 1, 22, OPF_EP)                           \
    X(MISH, "Mish", eltwise, 18, 22, OPF_EP)                                  \
    X(THRESHOLDEDRELU, "ThresholdedRelu", eltwise, 10, 22, OPF_EP)            \
    X(SHRINK, "Shrink", eltwise, 9, 9, OPF_EP)                                \
    X(GELU, "Gelu", eltwise, 20, 20, OPF_EP)                                  \
    X(SWISH, "Swish", eltwise, 24, 24, OPF_EP)                                \
    X(CLIP, "Clip", eltwise, 1, 13, OPF_EP)                                   \
    X(ADD, "Add", eltwise, 1, 14, OPF_EP)                                     \
    X(SUB, "Sub", eltwise, 1, 14, OPF_EP)                                     \
    X(MUL, "Mul", eltwise, 1, 14, OPF_EP)                                     \
    X(DIV, "Div", eltwise, 1, 14, OPF_EP)                                     \
    X(MOD, "Mod", eltwise, 10, 28, OPF_EP)                                    \
    X(POW, "Pow", eltwise, 1, 15, OPF_EP)                                     \
    X(AND, "And", eltwise, 1, 7, OPF_EP)                                      \
    X(OR, "Or", eltwise, 1, 7, OPF_EP)                                        \
    X(XOR, "Xor", eltwise, 1, 7, OPF_EP)                                      \
    X(BITWISEAND, "BitwiseAnd", eltwise, 18, 18, OPF_EP)                      \
    X(BITWISEOR, "BitwiseOr", eltwise, 18, 18, OPF_EP)                        \
    X(BITWISEXOR, "BitwiseXor", eltwise, 18, 18, OPF_EP)                      \
    X(BITSHIFT, "BitShift", eltwise, 11, 28, OPF_EP)                          \
    X(EQUAL, "Equal", eltwise, 1, 19, OPF_EP)                                 \
    X(LESS, "Less", eltwise, 1, 13, OPF_EP)                                   \
    X(GREATER, "Greater", eltwise, 1, 13, OPF_EP)                             \
    X(LESSOREQUAL, "LessOrEqual", eltwise, 12, 16, OPF_EP)                    \
    X(GREATEROREQUAL, "GreaterOrEqual", eltwise, 12, 16, OPF_EP)              \
    X(MAX, "Max", eltwise, 1, 13, OPF_EP)                                     \
    X(MIN, "Min", eltwise, 1, 13, OPF_EP)                                     \
    X(SUM, "Sum", eltwise, 1, 13, OPF_EP)                                     \
    X(MEAN, "Mean", eltwise, 1, 13, OPF_EP)                                   \
    X(WHERE, "Where", eltwise, 9, 16, OPF_EP)                                 \
    /* ---- normalization ---- */                                             \
    X(BATCHNORM, "BatchNormalization", norm, 1, 15, OPF_P)                    \
    X(INSTANCENORM, "InstanceNormalization", norm, 1, 22, OPF_)               \
    X(LAYERNORM, "LayerNormalization", norm, 17, 17, OPF_)                    \
    X(GROUPNORM, "GroupNormalization", norm, 18, 21, OPF_)                    \
    X(RMSNORM, "RMSNormalization", norm, 23, 23, OPF_)                        \
    X(MVN, "MeanVarianceNormalization", norm, 9, 13, OPF_)                    \
    X(LPNORM, "LpNormalization", norm, 1, 22, OPF_)                          \
    X(LRN, "LRN", norm, 1, 13, OPF_)                                          \
    /* ---- reductions, softmax, scans, top-k ---- */                         \
    X(REDUCEMEAN, "ReduceMean", reduce, 1, 18, OPF_P)                         \
    X(REDUCESUM, "ReduceSum", reduce, 1, 13, OPF_P)                           \
    X(REDUCEMAX, "ReduceMax", reduce, 1, 20, OPF_P)                           \
    X(REDUCEMIN, "ReduceMin", reduce, 1, 20, OPF_P)                           \
    X(REDUCEPROD, "ReduceProd", reduce, 1, 18, OPF_P)                         \
    X(REDUCEL1, "ReduceL1", reduce, 1, 18, OPF_P)                             \
    X(REDUCEL2, "ReduceL2", reduce, 1, 18, OPF_P)                             \
    X(REDUCELOGSUM, "ReduceLogSum", reduce, 1, 28, OPF_P)                     \
    X(REDUCELOGSUMEXP, "ReduceLogSumExp", reduce, 1, 28, OPF_)                \
    X(REDUCESUMSQUARE, "ReduceSumSquare", reduce, 1, 18, OPF_P)               \
    X(SOFTMAX, "Softmax", softmax, 1, 13, OPF_)                               \
    X(LOGSOFTMAX, "LogSoftmax", softmax, 1, 13, OPF_)                         \
    X(HARDMAX, "Hardmax", softmax, 1, 13, OPF_)                               \
    X(ARGMAX, "ArgMax", argmax, 1, 13, OPF_)                                  \
    X(ARGMIN, "ArgMin", argmax, 1, 13, OPF_)                                  \
    X(CUMSUM, "CumSum", cumsum, 11, 14, OPF_)                                 \
    X(CUMPROD, "CumProd", cumsum, 26, 26, OPF_)                               \
    X(TOPK, "TopK", topk, 1, 24, OPF_)                                        \
    /* ---- matrix products ---- */                                           \
    X(GEMM, "Gemm", gemm, 1, 13, OPF_P)                                       \
    X(MATMUL, "MatMul", gemm, 1, 13, OPF_P)                                   \
    X(EINSUM, "Einsum", einsum, 12, 28, OPF_)                                 \
    /* ---- shape, constants, casts, reshapes ---- */                         \
    X(RESHAPE, "Reshape", reshape, 1, 25, OPF_V)                              \
    X(FLATTEN, "Flatten", reshape, 1, 25, OPF_V)                              \
    X(SQUEEZE, "Squeeze", reshape, 1, 25, OPF_V)                              \
    X(UNSQUEEZE, "Unsqueeze", reshape, 1, 25, OPF_V)                          \
    X(IDENTITY, "Identity", reshape, 1, 25, OPF_)                             \
    X(DROPOUT, "Dropout", dropout, 1, 22, OPF_)                               \
    X(CONSTANT, "Constant", shapeops, 1, 25, OPF_)                            \
    X(SHAPE, "Shape", shapeops, 1, 25, OPF_)                                  \
    X(SIZE, "Size", shapeops, 1, 25, OPF_)                                    \
    X(CAST, "Cast", cast, 1, 28, OPF_)                                        \
    X(CASTLIKE, "CastLike", cast, 15, 25, OPF_)                               \
    X(CONSTANTOFSHAPE, "ConstantOfShape", shapeops, 9, 25, OPF_)              \
    X(RANGE, "Range", shapeops, 11, 27, OPF_)                                 \
    X(EXPAND, "Expand", shapeops, 8, 13, OPF_)                                \
    /* ---- data movement and indexing ---- */                                \
    X(CONCAT, "Concat", concat, 1, 13, OPF_)                                  \
    X(SPLIT, "Split", split, 1, 18, OPF_)                                     \
    X(SLICE, "Slice", slice, 1, 13, OPF_P)                                    \
    X(TRANSPOSE, "Transpose", transpose, 1, 25, OPF_P)                        \
    X(PAD, "Pad", pad, 1, 25, OPF_)                                           \
    X(CENTERCROPPAD, "CenterCropPad", pad, 18, 18, OPF_)                      \
    X(GATHER, "Gather", gather, 1, 13, OPF_)                                  \
    X(GATHERELEMENTS, "GatherElements", gather, 11, 13, OPF_)                 \
    X(GATHERND, "GatherND", gather, 11, 13, OPF_)                             \
    X(SCATTER, "Scatter", scatter, 9, 11, OPF_)                               \
    X(SCATTERELEMENTS, "ScatterElements", scatter, 11, 18, OPF_)              \
    X(SCATTERND, "ScatterND", scatter, 11, 18, OPF_)                          \
    X(TENSORSCATTER, "TensorScatter", scatter, 24, 24, OPF_)                  \
    X(TILE, "Tile", tile, 1, 13, OPF_)                                        \
    X(DEPTHTOSPACE, "DepthToSpace", depthspace, 1, 28, OPF_)                  \
    X(SPACETODEPTH, "SpaceToDepth", depthspace, 1, 28, OPF_)                  \
    X(REVERSESEQUENCE, "ReverseSequence", revseq, 10, 28, OPF_)               \
    /* ---- quantization ---- */                                              \
    X(QUANTIZELINEAR, "QuantizeLinear", quant, 10, 28, OPF_)                 \
    X(DEQUANTIZELINEAR, "DequantizeLinear", quant, 10, 28, OPF_)             \
    X(DYNAMICQUANTIZELINEAR, "DynamicQuantizeLinear", quant, 11, 11, OPF_)   \
    X(MATMULINTEGER, "MatMulInteger", qlinear, 10, 10, OPF_)                 \
    X(QLINEARMATMUL, "QLinearMatMul", qlinear, 10, 21, OPF_)                 \
    X(CONVINTEGER, "ConvInteger", qlinear, 10, 10, OPF_)                     \
    X(QLINEARCONV, "QLinearConv", qlinear, 10, 10, OPF_)                     \
    /* ---- recurrent networks ---- */                                        \
    X(RNN, "RNN", rnn, 1, 22, OPF_)                                           \
    X(GRU, "GRU", rnn, 1, 22, OPF_)                                           \
    X(LSTM, "LSTM", rnn, 1, 22, OPF_)                                         \
    /* ---- resampling ---- */                                                \
    X(RESIZE, "Resize", resize, 10, 19, OPF_)                                 \
    X(UPSAMPLE, "Upsample", resize, 1, 10, OPF_)                              \
    /* ---- detection and data-dependent shapes ---- */                       \
    X(NONZERO, "NonZero", dynamic, 9, 13, OPF_)                               \
    X(COMPRESS, "Compress", dynamic, 9, 28, OPF_)                             \
    X(UNIQUE, "Unique", dynamic, 11, 28, OPF_)                                \
    X(NONMAXSUPPRESSION, "NonMaxSuppression", dynamic, 10, 11, OPF_)          \
    X(DYNSELECT, "ctvm.DynSelect", dynamic, 0, 0, OPF_)                       \
    X(SDPA, "ctvm.Sdpa", sdpa, 0, 0, OPF_)                                    \
    /* ---- control flow ---- */                                              \
    X(IF, "If", control, 1, 25, OPF_)                                         \
    X(LOOP, "Loop", control, 1, 25, OPF_)                                     \
    X(SCAN, "Scan", control, 8, 25, OPF_)                                     \
    /* ---- attention and transformer blocks ---- */                          \
    X(ATTENTION, "Attention", attention, 23, 25, OPF_)                        \
    X(ROTARYEMBEDDING, "RotaryEmbedding", rotary, 23, 23, OPF_)               \
    X(SWIGLU, "SwiGLU", swiglu, 28, 28, OPF_)                                 \
    X(LINEARATTENTION, "LinearAttention", linattn, 27, 27, OPF_)              \
    /* ---- signal processing ---- */                                         \
    X(HANNWINDOW, "HannWindow", signal, 17, 17, OPF_)                         \
    X(HAMMINGWINDOW, "HammingWindow", signal, 17, 17, OPF_)                   \
    X(BLACKMANWINDOW, "BlackmanWindow", signal, 17, 17, OPF_)                 \
    X(DFT, "DFT", signal, 17, 20, OPF_)                                       \
    X(STFT, "STFT", signal, 17, 17, OPF_)                                     \
    X(MELWEIGHTMATRIX, "MelWeightMatrix", signal, 17, 17, OPF_)               \
    /* ---- losses ---- */                                                    \
    X(NLLLOSS, "NegativeLogLikelihoodLoss", loss, 12, 22, OPF_)               \
    X(SCELOSS, "SoftmaxCrossEntropyLoss", loss, 12, 13, OPF_)                 \
    /* ---- misc: triangles, one-hot, identity, bit casts, determinants (group misc) ---- */\
    X(TRILU, "Trilu", trilu, 14, 14, OPF_)                                    \
    X(ONEHOT, "OneHot", onehot, 9, 28, OPF_)                                  \
    X(EYELIKE, "EyeLike", eyelike, 9, 22, OPF_)                               \
    X(BITCAST, "BitCast", bitcast, 26, 26, OPF_)                              \
    X(DET, "Det", det, 11, 22, OPF_)                                          \
    /* ---- end of group misc ---- */                                         \
    /* ---- tfidf: n-gram counting (group tfidf) ---- */                      \
    X(TFIDFVECTORIZER, "TfIdfVectorizer", tfidf, 9, 9, OPF_)                   \
    /* ---- end of group tfidf ---- */                                        \
    /* end */

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
