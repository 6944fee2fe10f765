/* tensor_io.h - reading and writing tensor files: .npy, .npz and ONNX
 * TensorProto .pb (as in the ONNX backend test data).
 *
 * Readers allocate the Tensors and their data from the given Arena and keep
 * the data in native (little-endian) byte order. Every error names the file
 * and the reason. Functions return 0 on success, -1 after a diag_error.
 *
 * Names: a .pb tensor keeps TensorProto.name; an .npz entry "x.npy" gives
 * "x"; a lone .npy file has no name (Tensor.name == NULL).
 *
 * Element types in .npy/.npz (every type of ir/dtype.h but string/complex):
 *
 * - Types numpy has use numpy's descr: '<f2' '<f4' '<f8' '|i1' '<i2' '<i4'
 *   '<i8' '|u1' '<u2' '<u4' '<u8' '|b1'. Readers also take big-endian ('>')
 *   and native ('=') variants, and any order mark on one-byte types.
 * - Types numpy lacks are written as a one-field structured dtype whose
 *   field is named after the ml_dtypes type and holds the raw storage:
 *       bfloat16                                      [('bfloat16', '<u2')]
 *       float8e4m3fn float8e4m3fnuz float8e5m2        [('float8_e4m3fn', '|u1')] ...
 *       float8e5m2fnuz float8e8m0 float4e2m1          ... 'float8_e8m0fnu', 'float4_e2m1fn'
 *       int4 uint4 int2 uint2                         [('int4', '|u1')] ...
 *   One element per file element: the bit pattern for the float types, and
 *   for the sub-byte types one byte per element holding its code in the low
 *   bits (upper bits zero) - byte for byte what ml_dtypes keeps in memory,
 *   so numpy loads such a file and `a.view(ml_dtypes.int4)` (or the type the
 *   field names) gives the values; an ml_dtypes array `x` is saved with
 *   np.save(f, x.view([('int4', '|u1')])). Readers also accept ctvm's names
 *   (dtype_name: 'float8e4m3fn', 'int4', ...) as the field name, '>u2' for
 *   bfloat16, and for int4/int2 the value sign-extended (0xff for -1).
 *   Why not what np.save writes for ml_dtypes arrays: that is '<V2'/'<V1'
 *   (raw void: the type is lost) or, for float8_e5m2, '<f1' (which numpy
 *   cannot load); readers refuse them, with a hint for the void ones.
 *   In memory (Tensor.data) the sub-byte types are packed like every ctvm
 *   tensor (ir/dtype.h: element 0 in the low bits of byte 0). */
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
