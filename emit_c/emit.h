/* emit.h - printing a Module (ir/module.h) as one self-contained model.c
 * (and optional model.h), as ctvm-tune's candidate programs, and as a
 * machine-readable description of the API.
 *
 * model.c holds, in order: a stamp comment, the API block, runtime_min/
 * pasted between banners, the weight blob, one static kernel per module
 * kernel, the entry points, and (under #ifdef CTVM_MAIN) a test/bench main
 * from templates/. Every decision about the code was made by lower_model
 * (lower/lower.h); these functions only print. */
#ifndef CTVM_EMIT_C_EMIT_H
#define CTVM_EMIT_C_EMIT_H

#include <stdio.h>

#include "ir/diag.h"
#include "ir/embedded.h"
#include "ir/module.h"

/* Stamped in generated files and tuning records. */
#define CTVM_VERSION "0.1.0"

typedef struct EmitOptions {
    const char *prefix;       /* API prefix: NAME_run, NAME_WORKSPACE_SIZE */
    const char *command_line; /* stamped in the header comment */
    const char *model_hash;   /* stamped in the header comment */
    int main_mode;            /* 1: define CTVM_MAIN so the harness main is compiled in */
    int verbose;              /* print the memory plan summary to stderr */
    const char *weights_section; /* --weights-section: linker section of the weight blob, or NULL */
    const char *arena_section;   /* --arena-section: linker section of the static arena, or NULL */
    int arena_caller;            /* --arena caller: no static arena and no NAME_run; only NAME_run_ws */
    int weights_text;            /* --weights-text: 0 auto, 1 octal, 2 raw (emit_c/emit_weights.h) */
} EmitOptions;

/* Writes model.c to c_out and, when h_out is not NULL, the header to h_out. */
int emit_module(const Module *m, const EmitOptions *o, FILE *c_out, FILE *h_out, Diag *d);

/* A tuning candidate (lower_kernel_bench's module: kernels "ctvm_cand" and
 * "ctvm_ref") as a program that checks the candidate against the
 * reference and times it (emit_bench.c); workload and node name the task
 * in its banner. */
int emit_kernel_bench(const Module *m, const char *workload, const char *node, const int knobs[4], FILE *out,
                      Diag *d);

/* --describe: the API of the module printed by emit_module with o, as JSON
 * (emit_describe.c): prefix, target, threads, flags, workspace, and each
 * input and output with name, dtype, shape, size and bytes. */
int emit_describe(const Module *m, const EmitOptions *o, FILE *out, Diag *d);

#endif
