/* fuzz_tensor.c - libFuzzer target: the tensor readers of ctvm-run --inputs /
 * --golden and of --bind (frontend/tensor_io.h). The first byte picks the
 * reader (0 .npy from memory, 1 .npz, 2 ONNX TensorProto .pb; modulo 3),
 * the rest is the file. Readers must refuse bad files with an error, never
 * crash, leak or read out of bounds; a tensor they accept must have as many
 * bytes of data as its shape and type say (read here to the last byte). */
#include "fuzz_util.h"

#include "frontend/tensor_io.h"
#include "ir/dtype.h"

static void touch_data(const Tensor *t)
{
    int64_t numel, bytes;
    if (!shape_numel(&t->shape, &numel) || !dtype_bytes(t->dtype, numel, &bytes))
        abort(); /* an accepted tensor has a size */
    volatile unsigned char sum = 0;
    for (int64_t i = 0; i < bytes; i++)
        sum ^= ((const unsigned char *)t->data)[i];
    (void)sum;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    Diag d = fuzz_diag("fuzz_tensor", "input");
    Arena *a = arena_new();
    Tensor one, *many = NULL;
    int n = 0;
    const char *path;
    switch (data[0] % 3) {
    case 0:
        if (tensor_read_npy_buffer(data + 1, size - 1, "input.npy", a, &one, &d) == 0)
            touch_data(&one);
        break;
    case 1:
        if ((path = fuzz_input_file(data + 1, size - 1)) && tensor_read_npz(path, a, &many, &n, &d) == 0)
            for (int i = 0; i < n; i++)
                touch_data(&many[i]);
        break;
    default:
        if ((path = fuzz_input_file(data + 1, size - 1)) && tensor_read_pb(path, a, &one, &d) == 0)
            touch_data(&one);
        break;
    }
    arena_free(a);
    return 0;
}
