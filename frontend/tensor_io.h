/* tensor_io.h - reading and writing tensor files: .npy, .npz and ONNX
 * TensorProto .pb (as in the ONNX backend test data).
 *
 * Readers allocate the Tensors and their data from the given Arena and keep
 * the data in native (little-endian) byte order. Every error names the file
 * and the reason. Functions return 0 on success, -1 after a diag_error.
 *
 * Names: a .pb tensor keeps TensorProto.name; an .npz entry "x.npy" gives
 * "x"; a lone .npy file has no name (Tensor.name == NULL). */
#ifndef CTVM_FRONTEND_TENSOR_IO_H
#define CTVM_FRONTEND_TENSOR_IO_H

#include <stddef.h>

#include "ir/arena.h"
#include "ir/diag.h"
#include "ir/tensor.h"

/* By extension (.npy, .npz, .pb): all tensors of the file into *out (an
 * array of *n_out Tensors from a). */
int tensor_read_file(const char *path, Arena *a, Tensor **out, int *n_out, Diag *d);

int tensor_read_npy(const char *path, Arena *a, Tensor *out, Diag *d);
/* An .npy image in memory; `what` names it in messages ("x.npz: entry 'a.npy'"). */
int tensor_read_npy_buffer(const void *buf, size_t len, const char *what, Arena *a,
                           Tensor *out, Diag *d);
int tensor_read_npz(const char *path, Arena *a, Tensor **out, int *n_out, Diag *d);
int tensor_read_pb(const char *path, Arena *a, Tensor *out, Diag *d);

/* .npy version 1.0, C order. */
int tensor_write_npy(const char *path, const Tensor *t, Diag *d);
/* Uncompressed .npz (like np.savez); entry names are "<name>.npy", or
 * "arr_<i>.npy" for unnamed tensors. No file is left behind on failure. */
int tensor_write_npz(const char *path, const Tensor *ts, int n, Diag *d);

#endif
