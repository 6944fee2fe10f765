/* quant_util.h - reading the parameters of quantized operators for the
 * passes that rewrite them (quant_canon, quant_moves), before infer_fold:
 * constants are initializers or the tensors of Constant nodes not yet
 * folded, and a DequantizeLinear's integer type is taken from its zero
 * point, its constant input or the QuantizeLinear that made its input. */
#ifndef CTVM_PASSES_QUANT_UTIL_H
#define CTVM_PASSES_QUANT_UTIL_H

#include "ir/graph.h"

/* The contents of a constant value. */
typedef struct QConst {
    DType t;
    Shape s;
    int64_t n;
    const void *data;
} QConst;

/* 1 and *c when value v is a constant (Value.data, or a live Constant node's
 * "value" tensor) of a static shape. */
int qc_get(const Graph *g, int v, QConst *c);

/* Quantization parameters: a scale and a zero point, checked. */
typedef struct QParams {
    int x;         /* the integer tensor (a DequantizeLinear's input), or -1 */
    int x_const;   /* x is a constant, in xc */
    QConst xc;
    int scale, zp; /* value ids; zp -1 when absent */
    QConst s, z;   /* their contents; z.n is 0 when absent */
    DType qt;      /* the integer type: int8 / uint8 (int32 for biases) */
    int axis;      /* per axis: the axis of x the scale runs along; -1 per tensor */
} QParams;

/* Scale s and zero point z (z -1: absent) as read by node `node` (its "axis"
 * and "block_size"; node -1: axis `axis`) for a tensor of shape xs (NULL:
 * unknown, per tensor only). 1 when the scale is float32, positive and
 * finite, of one element or 1-D along the axis, and the zero point (int8,
 * uint8, or int32 when allow_i32) has the scale's element count or one. Sets
 * p->qt from the zero point (DT_UNDEFINED without one); p->x = -1. */
int qp_read(const Graph *g, int node, int s, int z, const Shape *xs, int axis, int allow_i32, QParams *p);

/* 1 when value v is made by a live DequantizeLinear to float32 whose
 * parameters qp_read accepts and whose integer type is known (int8 or
 * uint8; int32 too when allow_i32). */
int qp_match_dq(const Graph *g, int v, int allow_i32, QParams *p);

/* 1 when node q is a QuantizeLinear to int8/uint8 with per-tensor
 * parameters qp_read accepts; p->x is its output. */
int qp_match_q(const Graph *g, int q, QParams *p);

float qp_scale(const QParams *p, int64_t k); /* scale of channel k (0 per tensor) */
int64_t qp_zero(const QParams *p, int64_t k); /* zero point of channel k (0 when absent) */
int qp_zero_all_zero(const QParams *p);
/* Same type and per-tensor scale (bitwise) and zero point. */
int qp_equal(const QParams *a, const QParams *b);
/* The float32 values of DequantizeLinear(p->xc) into out[p->xc.n], as the
 * operator computes them (float64 for int32). */
void qp_dequantize(const QParams *p, float *out);

/* Marks dead every DequantizeLinear whose output nothing reads any more
 * (so infer_fold does not fold the weights it read into float32). */
void qp_drop_unread_dq(Graph *g);

/* How many leading inputs of n carry the data when n is an op that only
 * moves elements (MaxPool without Indices, Reshape, Flatten, Transpose,
 * Squeeze, Unsqueeze, Identity, Gather, Slice, Split: 1; Concat: all), so it
 * runs on integers as on floats; 0 for any other op. */
int qp_moving_inputs(const Node *n);

#endif
