/* ms_op_table.h - the operators of ONNX Runtime's "com.microsoft" domain
 * that ctvm imports, known by (domain, name).
 *
 * X(ENUM, "Name", since): the operator exists since version `since` of the
 * com.microsoft operator set (every one listed is version 1). These never
 * reach the back end: during inference pass infer_fold rewrites each into
 * standard ONNX operators where it stands (passes/lower_msquant.c), so they
 * have no OpKind, family or compute definition; a loaded node keeps
 * op = OP_UNKNOWN with its domain and op_type. A com.microsoft operator not
 * listed here is refused at inference by name and domain. */
#ifndef CTVM_IR_MS_OP_TABLE_H
#define CTVM_IR_MS_OP_TABLE_H

#define CTVM_MS_DOMAIN "com.microsoft"

#define CTVM_MS_OPS(X)                                            \
    X(QLINEARADD, "QLinearAdd", 1)                                \
    X(QLINEARMUL, "QLinearMul", 1)                                \
    X(QLINEARSIGMOID, "QLinearSigmoid", 1)                        \
    X(QLINEARLEAKYRELU, "QLinearLeakyRelu", 1)                    \
    X(QLINEARSOFTMAX, "QLinearSoftmax", 1)                        \
    X(QLINEARCONCAT, "QLinearConcat", 1)                          \
    X(QLINEARAVERAGEPOOL, "QLinearAveragePool", 1)                \
    X(QLINEARGLOBALAVERAGEPOOL, "QLinearGlobalAveragePool", 1)    \
    X(QGEMM, "QGemm", 1)                                          \
    X(MATMULINTEGERTOFLOAT, "MatMulIntegerToFloat", 1)            \
    X(DYNAMICQUANTIZEMATMUL, "DynamicQuantizeMatMul", 1)          \
    X(DYNAMICQUANTIZELSTM, "DynamicQuantizeLSTM", 1)              \
    X(QATTENTION, "QAttention", 1)                                \
    /* end */

typedef enum MsOpKind {
    MS_UNKNOWN = 0,
#define X(e, name, since) MS_##e,
    CTVM_MS_OPS(X)
#undef X
    MS_COUNT
} MsOpKind;

/* The operator `name` of `domain`: MS_UNKNOWN unless domain is
 * com.microsoft and the name is listed. */
MsOpKind ms_op_kind(const char *domain, const char *name);
const char *ms_op_name(MsOpKind k);
/* The com.microsoft opset version that introduced k. */
int ms_op_since(MsOpKind k);
/* "QLinearAdd, QLinearMul, ..." for messages (a static string). */
const char *ms_op_list(void);

#endif
