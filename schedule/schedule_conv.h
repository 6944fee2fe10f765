/* schedule_conv.h - the schedule of blocked convolution (ctvm.ConvNCHWc).
 *
 * Output [n, ocb, oh, ow, ol]: the lanes ol are one vector; a register tile
 * holds U output-channel blocks x T output columns of accumulators, the
 * reduction (input blocks, kh, kw, input lanes) runs around it, and bias and
 * fused epilogues are applied when the tile is stored. The (n, ocb/U, oh)
 * loops are fused into one parallel loop, rows before channel tiles when an
 * image's input overflows L2 and the weights fit (then no reduction chunks). Knobs (ComputeStage.knob):
 *   knob[0] = T (output columns per tile), knob[1] = U (channel blocks per
 *   tile); 0 picks them from the target's register count; knob[3] = input
 *   channel blocks per reduction chunk (0: chunks only when a tile's input
 *   and weights overflow L2; partial sums then live in the float32 output
 *   and the epilogues run after the last chunk). */
#ifndef CTVM_SCHEDULE_SCHEDULE_CONV_H
#define CTVM_SCHEDULE_SCHEDULE_CONV_H

#include "ops/compute.h"

Stmt *schedule_conv(ComputeCtx *cx, const ComputeStage *st);

#endif
