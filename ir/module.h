/* module.h - a model lowered for one target: what emit_c prints.
 *
 * lower_model (lower/lower.h) makes it from a graph that went through the
 * passes: every fused group scheduled into a kernel (a loop nest over
 * buffers), the loop passes run over each kernel (vector nodes, register
 * variables, the thread team's phases: ir/loop_vec.h), the weight blob and
 * the workspace laid out, and the entry point's inputs and outputs
 * described. A printer (emit_c/ for C) only walks it: every decision about
 * the code is made before. */
#ifndef CTVM_IR_MODULE_H
#define CTVM_IR_MODULE_H

#include <stdio.h>

#include "dtype.h"
#include "loop.h"
#include "shape.h"
#include "weight_blob.h"

struct Target;
struct NameSupply;

#define KERNEL_MAX_PARAMS 256

/* The non-local buffers a kernel reads or writes, in order of first use:
   its parameters. */
typedef struct KernelParams {
    int n;
    LBuf *buf[KERNEL_MAX_PARAMS];
    int written[KERNEL_MAX_PARAMS];
} KernelParams;

/* One input or output of the entry point. */
typedef struct ModuleIO {
    const char *name;  /* as in the model: raw bytes, escape before printing */
    DType dtype;
    Shape shape;       /* dyn: upper bounds */
    int dyn;           /* data-dependent shape: the run writes the actual dims */
    int64_t numel, bytes;
} ModuleIO;

/* An ONNX node a kernel computes (its anchor first, then fused epilogues). */
typedef struct KernelOrigin {
    const char *name, *op_type; /* raw model text */
    DType dtype;                /* of its first output */
    Shape shape;
} KernelOrigin;

typedef struct Kernel {
    const char *name;   /* C identifier, unique in the module */
    const char *label;  /* profile label (raw anchor name) */
    int n_origin;
    KernelOrigin *origin;
    double flops;       /* floating-point operations of one run (0: not counted) */
    Stmt *body;
    KernelParams params;
    int team;           /* run by every thread of the team (lower/lp_threads.c) */
} Kernel;

typedef struct Module {
    const struct Target *target;
    int threads;
    LoopBuilder lb;      /* the arena and counters the passes build with */
    int n_inputs, n_outputs;
    ModuleIO *inputs, *outputs;
    int64_t workspace_bytes;
    int64_t activation_bytes; /* sum of the arena values' sizes (before reuse) */
    WeightBlob blob;
    int n_kernels;
    Kernel *kernels;
    /* buffer <-> value: value_buf[root value id] (n_values entries) */
    int n_values;
    LBuf **value_buf;
    int narrow_types;    /* a value is stored in a type C lacks (float16, ...) */
    int uses_rounding;   /* a kernel rounds to float16/bfloat16 precision */
    int uses_vec;        /* a kernel, or a runtime kernel it calls, uses the vector API */
    int uses_vec_math;   /* a call of templates/ctvm_vec_math.h (vector or scalar form) */
    struct NameSupply *names; /* the C identifiers given so far (lower/lp_names.c) */
    int n_calls;         /* runtime kernels called (ir/loop_kernels.h), once each */
    const char *calls[64];
} Module;

/* Calls on_stmt on s and every statement inside it, outermost first. */
void loop_each_stmt(const Stmt *s, void (*on_stmt)(const Stmt *, void *), void *arg);
/* 1 when s is a loop or holds one */
int loop_has_for(const Stmt *s);
/* The expressions statement s holds itself (an if's condition, a store's
   index and value, an assignment's value, a call's run-time argument),
   into e[0..2]; returns their count. */
int loop_stmt_exprs(const Stmt *s, const Expr **e);
/* The parameters of s; -1 when more than KERNEL_MAX_PARAMS. */
int kernel_collect_params(const Stmt *s, KernelParams *p);
/* Adds the runtime kernels s calls to names[0..n) if not there yet;
   returns the new count (at most cap). */
int loop_collect_calls(const Stmt *s, const char **names, int n, int cap);
/* 1 when s rounds to float16/bfloat16 (CO_RND_F16/BF16) */
int loop_uses_rounding(const Stmt *s);
/* 1 when s calls a function of templates/ctvm_vec_math.h on float32
   (vector or scalar form, ir/call_prims.h) */
int loop_uses_math(const Stmt *s);
/* 1 when s calls fn on vectors */
int loop_uses_vcall(const Stmt *s, CallOp fn);
/* 1 when s has a vector node */
int loop_uses_vectors(const Stmt *s);
/* 1 when s has a LOOP_PARALLEL loop outside any ST_ALLOC. */
int loop_has_parallel(const Stmt *s);

/* The module as text: inputs, outputs, workspace, and each kernel's
   origin and loop nest (ctvm-emit --dump-after with a loop pass). */
void module_dump(const Module *m, FILE *f);
void module_free(Module *m);

#endif
