/* driver.h - the whole compilation, shared by ctvm-emit and ctvm-run:
 * load (frontend) -> passes -> lower -> emit_c, writing model.c (and model.h) through
 * frontend/out_file.h: only a regular file (or a new one) is replaced, by
 * temporary files renamed into place together only on success, so a failed
 * or killed run leaves no partial output and the user's files as they were. */
#ifndef CTVM_CLI_DRIVER_H
#define CTVM_CLI_DRIVER_H

#include "emit_c/emit.h"
#include "frontend/onnx_load.h"
#include "ir/codegen.h"

typedef struct CompileOptions {
    const char *model;      /* model.onnx */
    const char *out_c;      /* model.c */
    const char *out_h;      /* model.h or NULL */
    const char *dump_after; /* --dump-after PASS (to stdout) or NULL */
    int64_t max_fold_bytes; /* --max-fold-bytes (0: the default, ir/graph.h) */
    const char *target;     /* --target name ("native" detects the host) */
    int threads;            /* --threads */
    struct SchedTuning *tuning; /* --tuning-records, or NULL */
    const char *describe;   /* --describe FILE (JSON) or NULL */
    OnnxLoadOptions load;
    EmitOptions emit;
} CompileOptions;

/* The graph after loading and every pass, or NULL after printing a
 * diagnostic; graph_free() it. *cg receives the code-generation options. */
Graph *driver_prepare(const CompileOptions *o, CodegenOptions *cg, Diag *d);
/* 0 on success; -1 after printing a diagnostic. */
int driver_compile(const CompileOptions *o, Diag *d);
/* --max-fold-bytes VAL: a byte count, optionally with a K, M or G suffix
 * (powers of 1024), into o->max_fold_bytes. 0 ok; -1 after printing
 * "tool: --max-fold-bytes takes ..." to stderr. */
int driver_parse_max_fold_bytes(const char *tool, const char *val, CompileOptions *o);
/* "a b c" from argv, quoted where needed (for the stamp). */
char *driver_join_args(int argc, char **argv);

#endif
