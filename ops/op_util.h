/* op_util.h - helpers shared by the operator families in ops/.
 *
 * Checking arity, reading constant integer inputs (axes, shapes, sizes),
 * normalising axes, setting output types, allocating folded outputs and the
 * index arithmetic of numpy broadcasting. Every helper that can fail reports
 * through diag_error naming the node and returns -1 (or NULL). */
#ifndef CTVM_OPS_OP_UTIL_H
#define CTVM_OPS_OP_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "ir/diag.h"
#include "ir/graph.h"

/* Inputs in [min_in, max_in] (counting trailing omitted ones as present) and
 * outputs in [min_out, max_out]; required inputs (< min_in) must not be omitted. */
int opu_check_arity(Graph *g, int node, Diag *d, int min_in, int max_in, int min_out,
                    int max_out);
/* For variadic operators (Concat, Einsum, Max/Min/Sum/Mean): every input is
   required, none may be the empty name. 0, or -1 after a diag_error. */
int opu_check_all_inputs(Graph *g, int node, Diag *d);

/* Input / output value i of a node, or NULL when absent or omitted. */
Value *opu_in(Graph *g, int node, int i);
Value *opu_out(Graph *g, int node, int i);

/* Set dtype and shape of output i (no-op when omitted). */
void opu_set_out(Graph *g, int node, int i, DType t, Shape s);

/* Allocate the bytes of output i from g->arena (at least 1 byte, zeroed) and
 * store them in Value.data. NULL when the output is omitted; an error (and
 * NULL) when its size is unknown or overflows, or when opu_fold_reserve
 * refuses its bytes. */
void *opu_alloc_out(Graph *g, int node, int i, Diag *d);

/* Constant folding's budget: count `bytes` more of constants made at compile
 * time for node (folded outputs, unrolled loop bodies' initializers), or,
 * when that would take the compile's total over opu_fold_limit(g), report
 * the bytes wanted, the limit and the option that raises it. 0 or -1.
 * Checked before allocating. */
int opu_fold_reserve(Graph *g, int node, Diag *d, int64_t bytes);
/* g->max_fold_bytes, or when 0 the default of ir/graph.h from g->fold_base. */
int64_t opu_fold_limit(const Graph *g);

/* axis in [-rank, rank) -> [0, rank); error naming `what` otherwise. */
int opu_norm_axis(Graph *g, int node, Diag *d, int64_t axis, int rank, const char *what,
                  int *out);

/* Error for input i (described by `what`) that decides an output shape but
 * is not a constant: names the graph inputs it depends on and how to bind
 * them (`--bind NAME=FILE`), or says the shape is data-dependent. Returns -1. */
int opu_need_const(Graph *g, int node, Diag *d, int i, const char *what);
/* The explanation part of that message, for callers that report their own. */
void opu_need_const_msg(const Graph *g, const Node *n, int i, const char *what, char *buf, size_t cap);

/* Read constant integer input i (int32/int64, scalar or 1-D, at most cap
 * elements) into out, count in *n. Error when absent, not constant, wrong
 * dtype or too long. */
int opu_const_ints(Graph *g, int node, Diag *d, int i, int64_t *out, int cap, int *n);

/* Element count of s with an overflow check; error when not static. */
int opu_numel(Graph *g, int node, Diag *d, const Shape *s, int64_t *n);

/* Broadcasting: for each dim of `out`, the stride of `in` along it in
 * elements (0 where `in` is broadcast). `in` is right-aligned with `out`. */
void opu_bcast_strides(const Shape *in, const Shape *out, int64_t *st);
/* Offset into an input for flat output index `flat` given its strides. */
int64_t opu_bcast_offset(const Shape *out, const int64_t *st, int64_t flat);

int opu_is_float(DType t); /* float32, float64 (float16 is not computed on) */
int opu_is_int(DType t);   /* int64, int32, int8, uint8 */

/* Replace the string of an existing string attribute (no-op when absent). */
void opu_set_string(Graph *g, int node, const char *name, const char *s);

/* "[1,3,224,224]" in a static buffer ring (4 slots) for messages. */
const char *opu_shape_str(const Shape *s);

/* The [outer, len, inner] view of shape s around axis: the product of the
 * dims before it, its own dim, the product of the dims after it. */
void opu_axis_view(const Shape *s, int axis, int64_t *outer, int64_t *len, int64_t *inner);

#endif
