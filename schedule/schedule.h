/* schedule.h - from a fused group (anchor node + its epilogues) to a loop nest.
 *
 * schedule_group() asks the anchor's compute definition for its stages,
 * composes the fused elementwise epilogues into the last stage (so bias,
 * Relu, Clip and residual Add are applied at the store, with no intermediate
 * buffer), and lowers every stage with the default schedule: spatial loops
 * outermost in output order, reduction loops innermost around a register
 * accumulator. Schedules with knobs (split, reorder, vectorize, ...) plug in
 * here per op family. */
#ifndef CTVM_SCHEDULE_SCHEDULE_H
#define CTVM_SCHEDULE_SCHEDULE_H

#include "ops/compute.h"

/* The target's vector width in floats (1 when scalar) and the thread
 * count: what the schedules decide by. */
int sched_vl(const ComputeCtx *cx);
int sched_threads(const ComputeCtx *cx);

/* ComputeCtx.reg_tile: the register tile of a custom body's matrix
 * product, from the target's vector registers. */
void sched_reg_tile(const ComputeCtx *cx, int64_t rows, int64_t cols, int64_t lanes, int64_t *mr, int64_t *nr);

/* Loop nest of the group anchored at `anchor`; NULL after an error. */
Stmt *schedule_group(ComputeCtx *cx, int anchor);

/* Lower one stage with the default schedule. Its knob (ComputeStage.knob):
 * knob[0] = 1, set by a large Transpose [A, B, C] of a [B, A, C] input,
 * tiles it when C is at least a vector long: blocks of 8 rows of A shared among the threads, B outer and
 * the rows inner in a block, so reads and writes are both contiguous
 * pieces of 8 rows. */
Stmt *schedule_stage_default(ComputeCtx *cx, const ComputeStage *st);

#endif
