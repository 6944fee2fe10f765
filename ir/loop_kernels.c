/* loop_kernels.c - the table of runtime kernels compiled into the compiler
 * (see loop_kernels.h). */
#include "loop_kernels.h"

#include <string.h>

#include "runtime_min/ctvm_runtime.h"

/* one #include per kernel of CTVM_KERNELS */

static const struct {
    const char *fn, *file;
    LoopKernelFn run;
} TABLE[] = {
#define X(name) {"ctvm_k_" #name, "templates/kernel_" #name ".h", ctvm_k_##name},
    CTVM_KERNELS(X)
#undef X
    {NULL, NULL, NULL}};

LoopKernelFn loop_kernel_find(const char *fn)
{
    for (int i = 0; TABLE[i].fn; i++)
        if (strcmp(TABLE[i].fn, fn) == 0)
            return TABLE[i].run;
    return NULL;
}

const char *loop_kernel_file(const char *fn)
{
    for (int i = 0; TABLE[i].fn; i++)
        if (strcmp(TABLE[i].fn, fn) == 0)
            return TABLE[i].file;
    return NULL;
}
