"""long_profile.py OUT_DIR - a model of 1000 kernels with long node names, whose
`ctvm-run --profile` table (one line per kernel, over 100 KB) is larger than
any fixed read buffer: tests/e2e.sh checks that ctvm-run reads all of it (a
reader that stops early leaves the model writing into a closed pipe, and the
run fails). Writes OUT_DIR/model.onnx and OUT_DIR/x.npy (numpy + onnx only)."""
import os
import sys

import numpy as np
import onnx
import onnx.numpy_helper
from onnx import TensorProto as TP
from onnx import helper as h

N = 1000


def main(out):
    os.makedirs(out, exist_ok=True)
    rng = np.random.default_rng(7)
    nodes, inits, prev = [], [], "x"
    for i in range(N):
        w = f"w{i}"
        inits.append(onnx.numpy_helper.from_array((rng.standard_normal((8, 8)) * 0.3).astype(np.float32), w))
        name = f"layer_{i:03d}_" + "a_rather_long_node_name_as_exporters_write_them_" * 4
        nodes.append(h.make_node("MatMul", [prev, w], [f"y{i}"], name=name))
        prev = f"y{i}"
    g = h.make_graph(nodes, "long_profile", [h.make_tensor_value_info("x", TP.FLOAT, [4, 8])],
                     [h.make_tensor_value_info(prev, TP.FLOAT, [4, 8])], inits)
    onnx.save(h.make_model(g, opset_imports=[h.make_opsetid("", 13)]), os.path.join(out, "model.onnx"))
    np.save(os.path.join(out, "x.npy"), rng.standard_normal((4, 8)).astype(np.float32))


if __name__ == "__main__":
    main(sys.argv[1])
