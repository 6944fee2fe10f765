/* emit.h - assembling one self-contained model.c (and optional model.h).
 *
 * Takes a graph that went through every pass (fused, memory planned), asks
 * schedule/ for each group's loop nest, and writes, in order: a stamp
 * comment, the API block, runtime_min/ pasted between banners, the weight
 * blob, one static kernel per group, the entry points, and (under
 * #ifdef CTVM_MAIN) a test/bench main from templates/. */
#ifndef CTVM_EMIT_C_EMIT_H
#define CTVM_EMIT_C_EMIT_H

#include <stdio.h>

#include "ir/diag.h"
#include "ir/graph.h"

/* Stamped in generated files and tuning records. */
#define CTVM_VERSION "0.1.0"

typedef struct EmitOptions {
    const char *prefix;       /* API prefix: NAME_run, NAME_WORKSPACE_SIZE */
    const char *target;       /* --target name as given (see ir/target.h) */
    int threads;              /* --threads: 1 = no parallel loops */
    const char *command_line; /* stamped in the header comment */
    const char *model_hash;   /* stamped in the header comment */
    int main_mode;            /* 1: define CTVM_MAIN so the harness main is compiled in */
    int verbose;              /* print the memory plan summary to stderr */
    const char *weights_section; /* --weights-section: linker section of the weight blob, or NULL */
    const char *arena_section;   /* --arena-section: linker section of the static arena, or NULL */
    int arena_caller;            /* --arena caller: no static arena and no NAME_run; only NAME_run_ws */
    int weights_text;            /* --weights-text: 0 auto, 1 octal, 2 raw (emit_c/emit_weights.h) */
    struct SchedTuning *tuning;  /* --tuning-records: knobs per workload (schedule/schedule_key.h), or NULL */
} EmitOptions;

/* Writes model.c to c_out and, when h_out is not NULL, the header to h_out. */
int emit_model(Graph *g, const EmitOptions *o, FILE *c_out, FILE *h_out, Diag *d);

/* ctvm-tune: a tunable workload of a graph (schedule/schedule_key.h) */
typedef struct EmitTask {
    int step;            /* the first group in run order that has it */
    int count;           /* groups that have it */
    char workload[256];
    char node[64];       /* that group's anchor */
    double flops;        /* floating-point operations of one run of that group */
} EmitTask;

/* The distinct tunable workloads of a graph that went through the passes,
 * in run order (kernels on float32 buffers only); up to cap; -1 on error. */
int emit_tasks(Graph *g, const EmitOptions *o, EmitTask *tasks, int cap, Diag *d);
/* A tuning candidate: the task's group scheduled with knobs, as a program
 * that checks it against the plain loop nest and times it (emit_bench.c). */
int emit_kernel_bench(Graph *g, const EmitOptions *o, const EmitTask *task, const int knobs[4], FILE *out, Diag *d);

/* Targets known to --target. */
int emit_target_known(const char *name);

/* Text of an embedded runtime_min/ or templates/ file (tools/embed.c). */
const char *ctvm_embedded_find(const char *path);

#endif
