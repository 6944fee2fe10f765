/* lower.h - from a graph that went through the passes to a Module
 * (ir/module.h), the stage between schedule/ and emit_c/.
 *
 * lower_model schedules every fused group (schedule/schedule.h) into a
 * kernel, lays out the weight blob (each constant a kernel reads, once)
 * and maps every buffer to its value, describes the entry point, then
 * runs the loop passes (lower/loop_passes.h) over each kernel. The tuner's
 * tasks and candidate programs come from the same lowering. */
#ifndef CTVM_LOWER_LOWER_H
#define CTVM_LOWER_LOWER_H

#include "ir/codegen.h"
#include "ir/diag.h"
#include "ir/graph.h"
#include "ir/module.h"

/* The module, or NULL after a diagnostic; module_free() it. Its nodes live
   in the graph's arena: free the graph after the module. */
Module *lower_model(Graph *g, const CodegenOptions *o, Diag *d);

/* ctvm-tune: a tunable workload of a graph (schedule/schedule_key.h) */
typedef struct LowerTask {
    int step;            /* the first group in run order that has it */
    int count;           /* groups that have it */
    char workload[256];
    char node[64];       /* that group's anchor */
    double flops;        /* floating-point operations of one run of that group */
} LowerTask;

/* The distinct tunable workloads of a graph, in run order (kernels on
   float32 buffers only); up to cap; -1 on error. */
int lower_tasks(Graph *g, const CodegenOptions *o, LowerTask *tasks, int cap, Diag *d);
/* A tuning candidate: a module of two kernels, the task's group scheduled
   with knobs and lowered as lower_model does ("ctvm_cand"), and the same
   group as the plain loop nest, unoptimised ("ctvm_ref"), which the
   candidate is checked against (emit_c/emit_bench.c prints the program).
   NULL after a diagnostic. */
Module *lower_kernel_bench(Graph *g, const CodegenOptions *o, const LowerTask *task, const int knobs[4], Diag *d);

/* Operations of a group's anchor: a convolution's or product's 2 per multiply-add
   (Conv, integer conv, Gemm, MatMul), a pooling's one per window tap; else 0 */
double lower_group_flops(const Graph *g, int anchor);

#endif
