/* npy_format.h - the .npy byte format, shared by the .npy and .npz code:
 * the element types ('descr', npy_descr.c), the conversion between file
 * elements and ctvm's native storage (npy_elems.c), and encoding a Tensor
 * into an .npy image (npy_write.c). The conventions are in tensor_io.h. */
#ifndef CTVM_FRONTEND_NPY_FORMAT_H
#define CTVM_FRONTEND_NPY_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#include "ir/tensor.h"

/* How one element of an .npy file is laid out. */
typedef struct NpyType {
    DType dt;
    int item; /* bytes per element in the file */
    int swap; /* 1: the file's elements are big-endian */
} NpyType;

/* The type of a descr: `descr` is the descr string ('<f4') or, when `field`
 * is not NULL, the type of the one field of a structured descr
 * [('bfloat16', '<u2')] whose name is `field`. 0 ok; -1 with the reason in
 * why (which starts with "unsupported dtype" or "structured dtypes"). */
int npy_type_parse(const char *descr, const char *field, NpyType *t, char *why, size_t cap);
/* The header's descr value for dt ("'<f4'" or "[('bfloat16', '<u2')]") into
 * buf, and the bytes one element takes in the file; -1 when dt has none. */
int npy_descr_for(DType dt, char *buf, size_t cap, int *item);

/* numel file elements at src into native storage at dst (dtype_bytes of
 * t->dt, numel bytes): byte swap, bool as 0/1, sub-byte types packed. -1 with
 * the reason in why when an element does not hold a value of the type. */
int npy_elems_decode(const NpyType *t, const unsigned char *src, int64_t numel, void *dst,
                     char *why, size_t cap);
/* The inverse for writing: native storage to little-endian file elements,
 * sub-byte types one element a byte. */
void npy_elems_encode(DType dt, const void *src, int64_t numel, unsigned char *dst);

/* A malloc'd .npy (version 1.0, or 2.0 for huge headers) image of t, or NULL
 * when t's type or size is not representable (*why says which). */
unsigned char *npy_encode(const Tensor *t, size_t *len, const char **why);

#endif
