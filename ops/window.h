/* window.h - the sliding-window geometry shared by Conv and the 2-D pools.
 *
 * Reads strides, dilations, pads and auto_pad of a node, resolves auto_pad
 * into explicit pads (top, left, bottom, right) and computes the output
 * height and width, following the ONNX rules:
 *   NOTSET      out = floor_or_ceil((in + pb + pe - ek) / s) + 1, ek = (k-1)*d+1;
 *               with ceil_mode the last window must start inside the input or
 *               the left padding: if (out-1)*s >= in + pb then out -= 1.
 *   VALID       pads 0, out = floor((in - ek) / s) + 1 (ceil_mode alike).
 *   SAME_UPPER  out = ceil(in / s), total = max(0, (out-1)*s + ek - in),
 *               begin = total/2, end = total - begin (extra pad at the end).
 *   SAME_LOWER  the same with the extra pad at the beginning. */
#ifndef CTVM_OPS_WINDOW_H
#define CTVM_OPS_WINDOW_H

#include <stdint.h>

#include "ir/diag.h"
#include "ir/graph.h"

typedef struct Window {
    int64_t kernel[2], strides[2], dilations[2];
    int64_t pads[4]; /* top, left, bottom, right */
    int64_t out[2];  /* output height, width */
} Window;

/* in: input height/width; kernel: kernel height/width. ceil_mode: 0 or 1.
 * Fills w and writes the normalised attributes back into the node
 * (kernel_shape, strides, dilations, pads; auto_pad becomes "NOTSET"). */
int window_resolve(Graph *g, int node, Diag *d, const int64_t in[2], const int64_t kernel[2],
                   int ceil_mode, Window *w);

#endif
