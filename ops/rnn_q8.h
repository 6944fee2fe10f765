/* rnn_q8.h - the pieces of ops/rnn.c's int8 LSTM (ONNX Runtime's
 * DynamicQuantizeLSTM, docs/ARCHITECTURE.md) that the float32 layers do not
 * have: the integer input projection, h's quantization per step, and the
 * sequence-length test ONNX Runtime's quantization range follows. */
#ifndef CTVM_OPS_RNN_Q8_H
#define CTVM_OPS_RNN_Q8_H

#include "ops/compute.h"

/* The stage px[d, r, g] = Wb[d, g] + (sum_i X[r, i] W[d, g, i] - x_zp *
 * Wsum[d, g]) * (x_scale * Wscale[d, g]) over the D x ROWS x GH outputs of
 * LSTM node `node` (int8 form); 0, or -1 after compute_fail. */
int rnn_q8_projection(ComputeCtx *cx, int node, ComputeDef *def, LBuf *px, int64_t D, int64_t ROWS, int64_t GH);

/* s <= sequence_lens[b] clamped to 0..T (slb: sequence_lens' buffer). */
Expr *rnn_q8_within(LoopBuilder *lb, LBuf *slb, Expr *b, Expr *s, int64_t T);

/* h, the n = B*H floats of px at hs, quantized to uint8 into hq[hb..]
 * (scale and zero point at px[qs], px[qs + 1]); with slb, only the entries
 * b with s <= len[b] join the range (rnn_q8.c says why). */
Stmt *rnn_q8_quantize_h(LoopBuilder *lb, LBuf *px, int64_t hs, int64_t n, int64_t H, LBuf *slb, Expr *s, int64_t T,
                        int64_t qs, LBuf *hq, int64_t hb);

#endif
