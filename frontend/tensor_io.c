/* tensor_io.c - choosing the tensor reader by file extension. */
#include "tensor_io.h"

#include "file_util.h"

int tensor_read_file(const char *path, Arena *a, Tensor **out, int *n_out, Diag *d)
{
    *out = NULL;
    *n_out = 0;
    if (file_has_suffix(path, ".npz"))
        return tensor_read_npz(path, a, out, n_out, d);
    int rc;
    Tensor *t = arena_alloc(a, sizeof *t);
    if (file_has_suffix(path, ".npy"))
        rc = tensor_read_npy(path, a, t, d);
    else if (file_has_suffix(path, ".pb"))
        rc = tensor_read_pb(path, a, t, d);
    else
        return diag_error(d, NULL, -1,
                          "%s: unknown tensor file type (expected .npy, .npz or .pb)", path);
    if (rc)
        return -1;
    *out = t;
    *n_out = 1;
    return 0;
}
