/* ctvm_runtime.h - the minimal runtime pasted into every generated model.c.
 *
 * Status codes returned by NAME_run and small helpers the generated kernels
 * call. Compiled and tested on its own (tests/unit/test_runtime.c) and pasted
 * verbatim between fenced banners by emit_c. Strict C99, no library calls
 * besides <math.h>, no malloc, no I/O. Everything is static. */
#ifndef CTVM_RUNTIME_H
#define CTVM_RUNTIME_H

#include <math.h>
#include <stddef.h>
#include <string.h>

#define CTVM_OK 0           /* success */
#define CTVM_ERR_NULL 1     /* a required pointer was NULL */
#define CTVM_ERR_ALIGN 2    /* the workspace is not 64-byte aligned */

#define CTVM_WORKSPACE_ALIGN 64

static float ctvm_minf(float a, float b) { return a < b ? a : b; }
static float ctvm_maxf(float a, float b) { return a > b ? a : b; }
static float ctvm_sigmoidf(float x) { return 1.0f / (1.0f + expf(-x)); }

/* Checks the workspace pointer's alignment without a cast to an integer type
 * the target may lack: offset from the start of a static-aligned object is
 * not needed, so use the address difference against NULL's representation. */
static int ctvm_misaligned(const void *p)
{
    return (int)(((size_t)((const char *)p - (const char *)0)) % CTVM_WORKSPACE_ALIGN != 0);
}

#endif
