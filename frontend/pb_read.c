/* pb_read.c - a tensor file holding one serialized ONNX TensorProto, as in
 * the ONNX backend test data (test_data_set_0/input_0.pb). Decoding is the
 * loader's own (onnx_tensor.c); external data is looked for next to the file. */
#include <stdlib.h>

#include "file_util.h"
#include "onnx/onnx.pb-c.h"
#include "onnx_tensor.h"
#include "proto_limits.h"
#include "tensor_io.h"

int tensor_read_pb(const char *path, Arena *a, Tensor *out, Diag *d)
{
    unsigned char *buf;
    size_t len;
    if (file_read_all(path, &buf, &len, d))
        return -1;
    if (len == 0) {
        free(buf);
        return diag_error(d, NULL, -1, "%s: empty file, not an ONNX TensorProto", path);
    }
    /* a TensorProto nests only Segment and StringStringEntryProto, but its
       repeated entries are bounded like a model's before unpacking */
    char why[256];
    int lim = proto_check_limits(buf, len, &onnx__tensor_proto__descriptor, why, sizeof why);
    Onnx__TensorProto *tp = lim == PROTO_OK ? onnx__tensor_proto__unpack(NULL, len, buf) : NULL;
    free(buf);
    if (lim == PROTO_OVER_LIMIT)
        return diag_error(d, NULL, -1, "%s: refused before decoding: %s", path, why);
    if (!tp)
        return diag_error(d, NULL, -1, "%s: not an ONNX TensorProto (protobuf decoding failed: "
                                       "truncated or corrupt)", path);
    int rc;
    if (!tp->has_data_type) {
        rc = diag_error(d, NULL, -1, "%s: not an ONNX TensorProto (no data type)", path);
    } else {
        char *what = arena_printf(a, "%s: tensor", path);
        OnnxTensorCtx c = {NULL, -1, what, file_dirname(a, path)};
        rc = onnx_tensor_decode(tp, &c, a, out, d);
    }
    onnx__tensor_proto__free_unpacked(tp, NULL);
    return rc;
}
