/* codegen.h - the options of code generation, given to lower_model
 * (lower/lower.h): which machine the code is for, how many threads share
 * each kernel, and the tuned schedule knobs. They are not properties of
 * the graph: the same graph lowers for several targets (ctvm-tune's
 * candidates, the tests' ISA loop). */
#ifndef CTVM_IR_CODEGEN_H
#define CTVM_IR_CODEGEN_H

#include <stdio.h>

struct Target;
struct SchedTuning;

typedef struct CodegenOptions {
    const struct Target *target; /* ir/target.h; NULL: generic (scalar C) */
    int threads;                 /* > 1: kernels with parallel loops run on a team */
    struct SchedTuning *tuning;  /* --tuning-records: knobs per workload, or NULL */
    /* --dump-after: print the module after the named loop pass ("all":
     * after each) to dump */
    const char *dump_after;
    FILE *dump;
} CodegenOptions;

#endif
