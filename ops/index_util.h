/* index_util.h - index tensors shared by the gathers (gather.c) and the
 * scatters (scatter.c): checking int32/int64 indices against the axes they
 * address at compile time, the GatherElements / ScatterElements shape rule,
 * and loading a run-time index made non-negative and clamped into its axis
 * (so generated code never reads or writes outside the data). */
#ifndef CTVM_OPS_INDEX_UTIL_H
#define CTVM_OPS_INDEX_UTIL_H

#include <stdint.h>

#include "ir/diag.h"
#include "ir/graph.h"
#include "ir/loop.h"

/* Index input `in` must be int32/int64; when constant, entry k must lie in
 * [-dim, dim) with dim = dims[k % row] (row <= 1: dims[0] for every entry). */
int idx_check(Graph *g, int node, Diag *d, int in, const int64_t *dims, int row);

/* Attribute "axis" (default 0) normalised against input 0's rank into
 * *axis, and constant indices of input 1 checked against that axis. */
int idx_read_axis(Graph *g, int node, Diag *d, int *axis);

/* Elementwise rule: indices iv are no larger than data x on every axis but
 * `axis`; when any index exists the axis must not be empty (error
 * `empty_msg` otherwise). iv has x's rank (checked by the caller). */
int idx_check_elements(Graph *g, int node, Diag *d, const Value *iv, const Value *x, int axis,
                       const char *empty_msg);

/* The index stored at `flat` in buffer ib, made non-negative (counted from
 * the end of an axis of size dim) and clamped into [0, dim), as LT_IDX. */
Expr *idx_load_clamped(LoopBuilder *lb, LBuf *ib, Expr *flat, int64_t dim);

#endif
