/* control.c - If, Loop and Scan. They never reach shape inference, code
 * generation or folding as nodes: pass infer_fold expands them into the
 * graph when it meets them (passes/control_flow.c), so these entry points
 * only report an internal error if one slips through. */
#include "ops/compute.h"
#include "ops/ops.h"

int op_control_infer(Graph *g, int node, Diag *d)
{
    return diag_error(d, g, node, "control flow must be expanded before inference (internal error)");
}

int op_control_eval(Graph *g, int node, Diag *d)
{
    return diag_error(d, g, node, "control flow must be expanded before folding (internal error)");
}

int compute_control(ComputeCtx *cx, int node, ComputeDef *def)
{
    (void)def;
    return compute_fail(cx, node, "control flow must be expanded before code generation (internal error)");
}
