"""make_hostile_names.py OUT_DIR - a small valid model whose every name is an
attack on the generated C (tests/hostile_names.sh): quotes, backslashes,
newlines, comment terminators, ??/ trigraphs, '#' directives and bytes that
are not UTF-8, in the graph inputs, the graph output and the node names.
Writes OUT_DIR/hostile.onnx, the inputs in0.npy and in1.npy, the golden
out.npy (PyTorch), and names.hex: each I/O name's bytes in hex, one a line,
inputs then the output. Run with /usr/bin/python3."""
import sys

import numpy as np
import onnx
import torch
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]
# Python's protobuf writes only valid UTF-8 strings: these placeholders are
# replaced below, in the serialized bytes, by byte strings of the same length
NON_UTF8 = {b"@@NONUTF8_A@@": b"\xff\xfe\x80*/\xc0\x7fx"[:13].ljust(13, b"\x81"),
            b"@@NONUTF8_B@@": b"\xed\xa0\x80??/\n\xf8zz\x01".ljust(13, b"\x82")}
assert all(len(k) == len(v) for k, v in NON_UTF8.items())

payload_in = ('x"\n#include <stdio.h>\n__attribute__((constructor)) static void pwn_in(void) '
              '{ fclose(fopen("PWNED", "w")); }\n#define P "')
payload_b = 'b??/'  # a trigraph: "b??/" ends the literal one quote late under -std=c99
payload_out = ('y*/ __attribute__((constructor)) static void pwn_out(void) { } /* ??/\n\\\n#error bad '
               '@@NONUTF8_A@@ "\'')
node_conv = '*/ int pwned_conv; /*\n#error conv??/\n\\'
node_relu = 'relu @@NONUTF8_B@@ \t\r\x1b[31m'
node_add = '??= ??( ??) ??< ??> ??\' ??! ??- "\\"'

rng = np.random.default_rng(7)
w = rng.standard_normal((4, 3, 3, 3)).astype(np.float32) * 0.3
x = rng.standard_normal((1, 3, 8, 8)).astype(np.float32)
b = rng.standard_normal((1, 4, 6, 6)).astype(np.float32)
nodes = [
    helper.make_node("Conv", [payload_in, "w*/ weight ??/"], ["c\n#define Q"], name=node_conv),
    helper.make_node("Relu", ["c\n#define Q"], ["r\"*/"], name=node_relu),
    helper.make_node("Add", ["r\"*/", payload_b], [payload_out], name=node_add),
]
g = helper.make_graph(
    nodes, "hostile */ graph",
    [helper.make_tensor_value_info(payload_in, TensorProto.FLOAT, [1, 3, 8, 8]),
     helper.make_tensor_value_info(payload_b, TensorProto.FLOAT, [1, 4, 6, 6])],
    [helper.make_tensor_value_info(payload_out, TensorProto.FLOAT, [1, 4, 6, 6])],
    [numpy_helper.from_array(w, "w*/ weight ??/")])
m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)], producer_name="hostile \"*/")
data = m.SerializeToString()
for k, v in NON_UTF8.items():
    data = data.replace(k, v)
with open(f"{out}/hostile.onnx", "wb") as f:
    f.write(data)

ref = torch.relu(torch.nn.functional.conv2d(torch.from_numpy(x), torch.from_numpy(w))) + torch.from_numpy(b)
np.save(f"{out}/in0.npy", x)
np.save(f"{out}/in1.npy", b)
np.save(f"{out}/out.npy", ref.numpy())


def raw(name):
    bs = name.encode()
    for k, v in NON_UTF8.items():
        bs = bs.replace(k, v)
    return bs.hex()


with open(f"{out}/names.hex", "w") as f:
    for n in (payload_in, payload_b, payload_out):
        f.write(raw(n) + "\n")
