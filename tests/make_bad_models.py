"""make_bad_models.py - ONNX models for the refusal tests of tests/e2e.sh
(an unsupported operator, a symbolic input dimension, a big model to kill
while it is emitted). Run with /usr/bin/python3."""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]

x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])
y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])
# an operator of a custom domain: no standard meaning, so it must stay refused
node = helper.make_node("FancyOp", ["x", "x"], ["y"], name="weird_node", domain="com.example")
g = helper.make_graph([node], "unsupported", [x], [y])
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13), helper.make_opsetid("com.example", 1)]),
          f"{out}/unsupported.onnx")

xs = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 3])
ys = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 3])
node = helper.make_node("Relu", ["x"], ["y"], name="relu")
g = helper.make_graph([node], "symbolic", [xs], [ys])
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), f"{out}/symbolic.onnx")

# big.onnx: a chain of 8 MatMuls with 1024x1024 weights (32 MB), whose
# emission takes long enough to send it a signal midway

n, k = 1024, 8
x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, n])
y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, n])
rng = np.random.default_rng(0)
inits, nodes, prev = [], [], "x"
for i in range(k):
    inits.append(numpy_helper.from_array(rng.standard_normal((n, n)).astype(np.float32), f"w{i}"))
    nxt = "y" if i == k - 1 else f"h{i}"
    nodes.append(helper.make_node("MatMul", [prev, f"w{i}"], [nxt], name=f"mm{i}"))
    prev = nxt
g = helper.make_graph(nodes, "big", [x], [y], inits)
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), f"{out}/big.onnx")
