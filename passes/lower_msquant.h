/* lower_msquant.h - ONNX Runtime's com.microsoft quantized operators
 * (ir/ms_op_table.h) rewritten into standard ONNX operators during
 * inference (pass infer_fold calls msq_lower where it meets one, as it
 * expands control flow), so that their inputs' types, shapes and constants
 * are known when they are checked. The forms follow the issue-22 contract:
 *   QGemm, MatMulIntegerToFloat, DynamicQuantizeMatMul ->
 *     [DynamicQuantizeLinear ->] MatMulInteger -> Cast(float32) ->
 *     Mul(a_scale * b_scale [* alpha]) [-> Add(bias)] [-> QuantizeLinear]
 *   QLinearAdd/Mul/Sigmoid/LeakyRelu/Softmax/Concat/AveragePool/
 *   GlobalAveragePool -> DequantizeLinear -> the float32 operator ->
 *   QuantizeLinear (QLinearConcat: a plain Concat when every input has the
 *   output's scale and zero point)
 *   DynamicQuantizeLSTM -> DynamicQuantizeLinear(X) -> LSTM's int8 form
 *     (int8 W and R, ops/rnn.c), or an LSTM over the dequantized weights.
 *   QAttention -> MatMulInteger -> Cast -> Mul -> Add (the projection),
 *     then float32 attention (MatMul, Softmax, MatMul; msquant_attention.c).
 * msquant_qlinear.c and msquant_matmul.c hold the rewrites, lower_msquant.c
 * the dispatch and the helpers below. */
#ifndef CTVM_PASSES_LOWER_MSQUANT_H
#define CTVM_PASSES_LOWER_MSQUANT_H

#include "ir/diag.h"
#include "ir/graph.h"
#include "ir/ms_op_table.h"
#include "passes/pass_util.h"

/* The com.microsoft operator node `node` is, or MS_UNKNOWN. */
MsOpKind msq_kind(const Graph *g, int node);

/* Replaces node `node` (msq_kind != MS_UNKNOWN, inputs inferred) by
 * standard operators placed at its index (not yet inferred) and marks it
 * dead. 0, or -1 after an error naming the node and the reason. */
int msq_lower(Graph *g, int node, Diag *d);

/* ---- for the rewrites (msquant_*.c) ---- */
typedef struct Msq {
    Graph *g;
    int node; /* the com.microsoft node (its index moves up as nodes go in before it) */
    Diag *d;
    PassBuild b;
} Msq;

const Node *msq_n(const Msq *m);
/* The value of input i, or -1 when absent or omitted. */
int msq_in(const Msq *m, int i);
/* An error on the node: "com.microsoft <op>: <reason>". Returns -1. */
int msq_error(const Msq *m, const char *fmt, ...);
/* Input i present (else an error naming it); its value id or -1. */
int msq_need(const Msq *m, int i, const char *what);
/* Input i (present) uint8 or int8; 0 or -1. */
int msq_check_q8(const Msq *m, int i, const char *what);
/* Optional input i: when present, of type t, and with one element or
 * (per_len > 0) a 1-D tensor of per_len elements. Absent is fine unless
 * `required`. 0 or -1. */
int msq_check_param(const Msq *m, int i, const char *what, DType t, int64_t per_len, int required);
/* The shape of input i (present). */
const Shape *msq_shape(const Msq *m, int i);

/* Builders: new nodes at the node's place, named after it. */
int msq_node(Msq *m, const char *op, int n_in, const int *ins, int n_out, const int *outs);
int msq_value(Msq *m, const char *what);
int msq_dq(Msq *m, int x, int scale, int zp);                 /* DequantizeLinear -> float32 */
int msq_q(Msq *m, int x, int scale, int zp, DType t, int out); /* QuantizeLinear (zp 0 of t when -1) */
int msq_cast(Msq *m, int x, DType to);
int msq_float(Msq *m, const char *what, float v);             /* float32 scalar constant */
/* Copies the node's attributes (all but `except`, may be NULL) to node id. */
void msq_copy_attrs(Msq *m, int id, const char *except);
/* 1 when v and w are constants of one element with the same type and
 * bytes; an absent zero point (-1) counts as 0 of type t. */
int msq_same_scalar(const Msq *m, int v, int w, DType t);
/* Marks the com.microsoft node dead: the rewrite is done. */
void msq_done(Msq *m);

int msq_lower_qlinear(Msq *m, MsOpKind k); /* msquant_qlinear.c */
int msq_lower_matmul(Msq *m, MsOpKind k);  /* msquant_matmul.c */
int msq_lower_attention(Msq *m);           /* msquant_attention.c: QAttention */

#endif
