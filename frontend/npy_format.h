/* npy_format.h - the .npy byte format, shared by the .npy and .npz code:
 * decoding an in-memory .npy image and encoding a Tensor into one. */
#ifndef CTVM_FRONTEND_NPY_FORMAT_H
#define CTVM_FRONTEND_NPY_FORMAT_H

#include <stddef.h>

#include "ir/tensor.h"

/* A malloc'd .npy (version 1.0, or 2.0 for huge headers) image of t, or NULL
 * when t's type or size is not representable (*why says which). */
unsigned char *npy_encode(const Tensor *t, size_t *len, const char **why);

#endif
