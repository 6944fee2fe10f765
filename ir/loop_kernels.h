/* loop_kernels.h - runtime kernels: operators written once in C99 that a
 * loop nest calls (ST_CALL) instead of expressing them as loops (sorting,
 * TopK, NonMaxSuppression, ...).
 *
 * Kernel NAME is the function `ctvm_k_NAME` in templates/kernel_NAME.h,
 * with one calling convention for every kernel:
 *
 *     static void ctvm_k_NAME(void *const *buf, const int64_t *iarg, const double *farg);
 *
 * (buffers in the order of the ST_CALL, then its integer and float
 * arguments). emit_c pastes the file into a model that calls the kernel;
 * the compiler itself compiles every kernel in (loop_kernels.c) so the
 * interpreter runs the very same code when it folds constants. Adding a
 * kernel: the file, one X() line below and its #include in loop_kernels.c. */
#ifndef CTVM_IR_LOOP_KERNELS_H
#define CTVM_IR_LOOP_KERNELS_H

#include <stdint.h>

#define CTVM_KERNELS(X) X(nonzero) X(compress) X(unique) X(nms) X(bitcast) X(roialign) X(maxroipool) X(topk) X(dyn) X(sdpa)

typedef void (*LoopKernelFn)(void *const *buf, const int64_t *iarg, const double *farg);

/* The kernel `ctvm_k_NAME` given "ctvm_k_NAME", or NULL. */
LoopKernelFn loop_kernel_find(const char *fn);
/* The template file of kernel "ctvm_k_NAME" ("templates/kernel_NAME.h"), or NULL. */
const char *loop_kernel_file(const char *fn);

/* Floats of scratch one thread of ctvm_k_sdpa needs for T keys, Dk and Dv
 * (CTVM_SDPA_SCRATCH of templates/kernel_sdpa.h); -1 when that overflows. */
int64_t loop_kernel_sdpa_scratch(int64_t T, int64_t Dk, int64_t Dv);

#endif
