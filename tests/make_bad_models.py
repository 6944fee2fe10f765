"""make_bad_models.py - tiny ONNX models for the refusal tests of tests/e2e.sh
(an unsupported operator, a symbolic input dimension) and of ctvm-run (input files of
the wrong shape, dtype or name). Run with /usr/bin/python3."""
import sys

import onnx
from onnx import TensorProto, helper

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

# ctvm-run's input files (tests/e2e.sh, "ctvm-run checks its inputs"): golden/small_cnn's
# input ([1,3,32,32] float32, named "input") in another shape, dtype or name, and a
# [1]-shaped model fed a scalar
import os

import numpy as np
from onnx import numpy_helper

x = np.load(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "golden", "small_cnn", "inputs.npz"))["input"]
np.save(f"{out}/in_nhwc.npy", x.reshape(3, 32, 32, 1))
np.save(f"{out}/in_flat.npy", x.reshape(3072))
np.save(f"{out}/in_f64.npy", x.astype(np.float64))
np.savez(f"{out}/in_other_name.npz", image=x, mask=x)
with open(f"{out}/in_other_name.pb", "wb") as f:
    f.write(numpy_helper.from_array(x, name="image").SerializeToString())
x1 = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])
y1 = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1])
g = helper.make_graph([helper.make_node("Relu", ["x"], ["y"], name="relu")], "one", [x1], [y1])
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), f"{out}/one.onnx")
np.save(f"{out}/scalar.npy", np.array(2.0, dtype=np.float32))
