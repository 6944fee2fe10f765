/* lower_ctx.h - what scheduling the groups of one graph shares (lower/):
 * the compute context, the loop builder, a buffer per root value and the
 * weight blob those buffers fill as the schedules ask for them. */
#ifndef CTVM_LOWER_LOWER_CTX_H
#define CTVM_LOWER_LOWER_CTX_H

#include "ir/module.h"
#include "ops/compute.h"

typedef struct LowerCtx {
    ComputeCtx cx;
    LoopBuilder lb;
    LBuf **by_value; /* root value id -> buffer */
    WeightBlob blob;
    int failed;
} LowerCtx;

void lower_ctx_init(LowerCtx *e, Graph *g, const CodegenOptions *o, Diag *d);
/* The group anchored at `anchor` scheduled, and its parameters; NULL after
   a diagnostic. */
Stmt *lower_schedule_group(LowerCtx *e, int anchor, KernelParams *params);

/* The module-wide facts a printer needs (runtime kernels called, vector
   API used, ...), from the final kernels. */
void lower_module_flags(Module *m);

#endif
