/* schedule_tile.h - the scheduling primitives shared by every schedule:
 * register tiles (unrolled along up to two axes, vectorized along a third,
 * accumulators in registers, epilogue stored at the innermost tile) and
 * fused parallel outer loops. Each op family's schedule
 * (schedule/schedule_<kind>.c) picks axes and knob values and calls these. */
#ifndef CTVM_SCHEDULE_SCHEDULE_TILE_H
#define CTVM_SCHEDULE_SCHEDULE_TILE_H

#include "ops/compute.h"

/* A register tile of stage `st`: axis i takes the value at[i], except
 *   axis tax = at[tax] + j   for j in 0..T   (unrolled; tax < 0: none)
 *   axis uax = at[uax] + u   for u in 0..U   (unrolled; uax < 0: none)
 *   axis vax = at[vax] + lane for lane in 0..L (vectorized; vax < 0: none)
 *   axis rax = at[rax] + r   for r in 0..R   (unrolled, outermost; only when R > 1)
 * When uax == vax the U vectors lie side by side along that axis:
 *   axis vax = at[vax] + u*L + lane.
 * Reductions keep U*T*L accumulators, run the reduction axes in stage order
 * around the unrolled updates, and store finalize (with the fused
 * epilogues) once per output point (or, with reduction chunks, a partial
 * sum per chunk and finalize after the last). */
typedef struct Tile {
    int tax, uax, vax;
    int64_t T, U, L;
    int rax;
    int64_t R;
    /* Reduction chunks (nK > 1; float32 sums only): reduction axis kax runs
     * over kvar*Kc .. kvar*Kc+Kc-1, where kvar is a loop outside the tile
     * (0..nK-1). Chunk 0 starts from zero, later ones from the partial sums
     * kept in the output; only chunk nK-1 applies finalize (the epilogues). */
    int kax;
    int64_t Kc, nK;
    LVar *kvar;
    /* 1: the innermost reduction loop is unrolled (a depthwise conv's kw:
     * the C compiler then loads each input vector once for the columns and
     * taps that share it) */
    int unroll_r;
} Tile;
Stmt *sched_tile(ComputeCtx *cx, const ComputeStage *st, Expr *const *at, const Tile *t);

/* One output point of reduction stage st (axes at at[]) with its innermost
 * reduction axis in vectors of L lanes: per-lane partial results, a scalar
 * tail folded into lane 0, the lanes combined at the end, then finalize
 * (with the fused epilogues) stored once. For float32 reductions over a
 * contiguous innermost axis (a row sum, a spatial mean). */
Stmt *sched_reduce_lanes(ComputeCtx *cx, const ComputeStage *st, Expr *const *at, int64_t L);

/* Loops over the first n axes listed in `axes` (by index into st), fused
 * into one loop (parallel when threads > 1 and `parallel`); fills at[] with
 * each axis' expression of the fused variable. `inner` is called to build the
 * body once at[] is set. */
typedef Stmt *(*InnerFn)(ComputeCtx *cx, const ComputeStage *st, Expr **at, void *user);
Stmt *sched_fused_outer(ComputeCtx *cx, const ComputeStage *st, const int *axes, const int64_t *extents,
                        int n, int parallel, Expr **at, InnerFn inner, void *user);

/* `tile` < full ? a : b, as two guarded statements: the full tiles of a
 * blocked axis, then its last, partial one. */
Stmt *sched_split_case(LoopBuilder *lb, Expr *tile, int64_t full, Stmt *a, Stmt *b);

/* Largest T in [lo, hi] dividing n, else hi (n > hi), else n. */
int64_t sched_pick_tile(int64_t n, int64_t lo, int64_t hi);

#endif
