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

/* Loop nest of the group anchored at `anchor`; NULL after an error. */
Stmt *schedule_group(ComputeCtx *cx, int anchor);

/* Lower one stage with the default schedule. Its knob (ComputeStage.knob):
 * knob[0] = 1 runs the first two axes in swapped order (axis 1 outermost),
 * as a Transpose [A, B, C] of a [B, A, C] input sets it: the input is read
 * in its own order, one contiguous A x C block per index of B. */
Stmt *schedule_stage_default(ComputeCtx *cx, const ComputeStage *st);

#endif
