/* window.h - the sliding-window geometry shared by Conv and the pools, for
 * any number of spatial axes (1-D, 2-D, 3-D, ...).
 *
 * Reads strides, dilations, pads and auto_pad of a node at inference (the
 * window_read* and window_infer functions), resolves auto_pad
 * into explicit pads (ONNX order: the begins of every spatial axis, then
 * the ends) and computes the output extents, following the ONNX rules:
 *   NOTSET      out = floor_or_ceil((in + pb + pe - ek) / s) + 1, ek = (k-1)*d+1;
 *               with ceil_mode the last window must start inside the input or
 *               the begin padding: if (out-1)*s >= in + pb then out -= 1.
 *   VALID       pads 0, out = floor((in - ek) / s) + 1 (ceil_mode alike).
 *   SAME_UPPER  out = ceil(in / s), total = max(0, (out-1)*s + ek - in),
 *               begin = total/2, end = total - begin (extra pad at the end).
 *   SAME_LOWER  the same with the extra pad at the beginning. */
#ifndef CTVM_OPS_WINDOW_H
#define CTVM_OPS_WINDOW_H

#include <stdint.h>

#include "ir/diag.h"
#include "ir/graph.h"

#define WINDOW_MAX_AXES 6 /* CTVM_MAX_RANK - 2 (batch and channel) */

typedef struct Window {
    int n;                                   /* spatial axes */
    int64_t kernel[WINDOW_MAX_AXES], strides[WINDOW_MAX_AXES], dilations[WINDOW_MAX_AXES];
    int64_t pads[2 * WINDOW_MAX_AXES];       /* begins, then ends */
    int64_t out[WINDOW_MAX_AXES];            /* output extents */
} Window;

/* Reads strides / dilations (n values each, default 1) and explicit pads
 * (2n values, default 0) into w, checking counts and signs; auto_pad is not
 * looked at. */
int window_read(Graph *g, int node, Diag *d, int n, Window *w);

/* in: input extents; kernel: kernel extents (n of each). ceil_mode: 0 or 1.
 * Reads the window (window_read), resolves auto_pad, fills w and writes the
 * normalised attributes back into the node (kernel_shape, strides,
 * dilations, pads; auto_pad becomes "NOTSET"). */
int window_infer(Graph *g, int node, Diag *d, int n, const int64_t *in, const int64_t *kernel, int ceil_mode,
                 Window *w);

/* Input x of a conv-like op must be [N, C, spatial...] with 1 to
 * WINDOW_MAX_AXES spatial axes; their count in *ns. */
int window_spatial_axes(Graph *g, int node, Diag *d, const Value *x, int *ns);

/* The input types of Conv, ConvTranspose, MaxUnpool, DeformConv: float16,
 * float32, float64, and bfloat16 from version 22. */
int window_float_type_ok(DType t, int version);

/* Weights w [M, C/group, k...] of a convolution over x [N, C, ...]: rank
 * equal to x's, `group` (attribute, default 1) dividing C and M, and C/group
 * input channels per group. The group in *group. */
int window_read_group(Graph *g, int node, Diag *d, const Value *x, const Value *w, int64_t *group);

/* Optional kernel_shape of a node with weights w: ns values equal to the
 * weights' spatial dims. */
int window_read_kernel_match(Graph *g, int node, Diag *d, const Value *w, int ns);

/* Required kernel_shape (pools, MaxUnpool): ns values; NULL after an error. */
const int64_t *window_read_kernel(Graph *g, int node, Diag *d, int ns);

/* The window of w as the typed attributes infer fills (ir/op_attrs.h). */
void window_store(const Window *w, WindowAttrs *a);

#endif
