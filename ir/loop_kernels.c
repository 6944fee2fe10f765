/* loop_kernels.c - the table of runtime kernels compiled into the compiler
 * (see loop_kernels.h). */
#include "loop_kernels.h"

#include <string.h>

#include "ir/dtype.h"
#include "runtime_min/ctvm_runtime.h"
#include "templates/kernel_util.h"

/* one #include per kernel of CTVM_KERNELS */
#include "templates/kernel_bitcast.h"
#include "templates/kernel_compress.h"
#include "templates/kernel_nms.h"
#include "templates/kernel_nonzero.h"
#include "templates/kernel_unique.h"
#include "templates/kernel_roialign.h"
#include "templates/kernel_maxroipool.h"
#include "templates/kernel_topk.h"
#include "templates/kernel_dyn.h"
/* kernels on the vector API run here with one lane */
#include "templates/ctvm_vec_scalar.h"
#include "templates/ctvm_vec_math.h"
#include "templates/kernel_sdpa.h"

/* the kernels' type codes are ctvm's DType values */
_Static_assert(CTVM_DT_F32 == DT_FLOAT32 && CTVM_DT_I64 == DT_INT64 && CTVM_DT_I32 == DT_INT32 &&
                   CTVM_DT_I8 == DT_INT8 && CTVM_DT_U8 == DT_UINT8 && CTVM_DT_F16 == DT_FLOAT16 &&
                   CTVM_DT_BOOL == DT_BOOL && CTVM_DT_F64 == DT_FLOAT64 && CTVM_DT_I16 == DT_INT16 &&
                   CTVM_DT_U16 == DT_UINT16 && CTVM_DT_U32 == DT_UINT32 && CTVM_DT_U64 == DT_UINT64 &&
                   CTVM_DT_BF16 == DT_BFLOAT16,
               "templates/kernel_util.h type codes differ from ir/dtype.h");

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

int64_t loop_kernel_sdpa_scratch(int64_t T, int64_t Dk, int64_t Dv)
{
    if (T < 0 || Dk < 0 || Dv < 0 || Dk > INT32_MAX || Dv > INT32_MAX || T > INT64_MAX / (CTVM_SDPA_RB + Dk + Dv + 64))
        return -1;
    return CTVM_SDPA_SCRATCH(T, Dk, Dv);
}
