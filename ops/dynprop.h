/* dynprop.h - data-dependent shapes through operators (ops/dynprop.c). */
#ifndef CTVM_OPS_DYNPROP_H
#define CTVM_OPS_DYNPROP_H

#include "ir/diag.h"
#include "ir/graph.h"
#include "ops/compute.h"

/* attribute "dyn_kind" of a node reading or making a run-time-shaped value */
enum { DYN_PROG = 0, DYN_APPEND = 1, DYN_REDUCE = 2, DYN_TOPK = 3, DYN_SHAPE = 4 };
#define CTVM_MAX_OUT_DYN 16

/* After ops_infer: marks the outputs that get run-time dims (Value.dyn) and
 * records how they are computed; refuses operators that cannot read a dyn
 * input. No-op for nodes without dyn inputs. */
int dyn_infer(Graph *g, int node, Diag *d);
/* After the family's compute definition: the run-time dims (and kernels)
 * of a node that dyn_infer marked; no-op otherwise. */
int dyn_compute(ComputeCtx *cx, int node, ComputeDef *def);
/* In-place compaction of a dyn graph output of rank >= 2, or NULL. */
Stmt *dyn_compact_stmt(ComputeCtx *cx, int v);

#endif
