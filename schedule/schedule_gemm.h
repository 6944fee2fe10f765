/* schedule_gemm.h - the register-tiled schedule of float32 Gemm and MatMul.
 *
 * Output [batch..., m, n]: a register tile holds MR rows x NR vectors of
 * accumulators (NR*L contiguous columns); the k loop runs inside it, loading
 * NR vectors of a B row and broadcasting one A element per row. Fused
 * epilogues (bias, Relu, residual Add) are applied when the tile is stored.
 * The loops (batch..., n blocks, m blocks) are fused into one parallel loop,
 * n blocks outside m blocks so a K x NR*L panel of B is reused from cache by
 * every row block; with K <= 64 m blocks go outside, so the output is
 * written row block by row block. Rows that do not fill MR make a shorter tile; columns
 * that do not fill NR vectors take whole vectors, then scalars. Knobs
 * (ComputeStage.knob): knob[0] = MR, knob[1] = NR; 0 picks them from the
 * target's register count; knob[2] = 1 m blocks outside, 2 n blocks
 * outside, 0 by K. */
#ifndef CTVM_SCHEDULE_SCHEDULE_GEMM_H
#define CTVM_SCHEDULE_SCHEDULE_GEMM_H

#include "ops/compute.h"

Stmt *schedule_gemm(ComputeCtx *cx, const ComputeStage *st);

#endif
