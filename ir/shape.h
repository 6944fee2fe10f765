/* shape.h - tensor shapes: a rank and up to CTVM_MAX_RANK dimensions.
 *
 * rank == -1 means "not yet known". A dimension of -1 is symbolic (its name
 * lives in Value.dim_param) until --input-shapes or shape inference fixes it.
 * Element counts are computed with overflow checks. */
#ifndef CTVM_IR_SHAPE_H
#define CTVM_IR_SHAPE_H

#include <stdint.h>

#define CTVM_MAX_RANK 8
/* Most elements of one tensor: the generated C indexes tensors with int. */
#define CTVM_MAX_NUMEL INT64_C(0x7fffffff)

typedef struct Shape {
    int rank;                     /* -1: unknown */
    int64_t dims[CTVM_MAX_RANK];  /* -1: symbolic / unknown */
} Shape;

Shape shape_unknown(void);
Shape shape_make(int rank, const int64_t *dims);
int shape_is_static(const Shape *s);        /* rank known and every dim >= 0 */
/* Number of elements; returns 0 (and leaves *n) if not static or overflowing. */
int shape_numel(const Shape *s, int64_t *n);
int shape_equal(const Shape *a, const Shape *b);
/* Row-major strides in elements of a static shape. */
void shape_strides(const Shape *s, int64_t *strides);
/* "[1,3,224,224]" into buf; returns buf. */
char *shape_str(const Shape *s, char *buf, int cap);
/* Numpy-style broadcast of a and b into out; 0 if incompatible. */
int shape_broadcast(const Shape *a, const Shape *b, Shape *out);

#endif
