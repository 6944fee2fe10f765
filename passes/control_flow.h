/* control_flow.h - If, Loop and Scan expanded into straight-line nodes
 * during inference (see control_flow.c). */
#ifndef CTVM_PASSES_CONTROL_FLOW_H
#define CTVM_PASSES_CONTROL_FLOW_H

#include "ir/codegen.h"
#include "ir/diag.h"
#include "ir/graph.h"

/* Infers (and folds, as cg's target computes) node i; returns how many
 * node slots it accounts for from i on (1, or more when it expanded into
 * new nodes), or -1. */
typedef int (*InferNodeFn)(Graph *g, int i, const CodegenOptions *cg, Diag *d);

/* Replaces control-flow node `node` by the nodes of its unrolled or chosen
 * body, placed at its index and inferred through `infer`. Returns the number
 * of node slots from `node` on that are now done (the new nodes and the
 * dead control-flow node), or -1 after an error. */
int cf_expand(Graph *g, int node, const CodegenOptions *cg, Diag *d, InferNodeFn infer);
int cf_is_control(OpKind k);

#endif
