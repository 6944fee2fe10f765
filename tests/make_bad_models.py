"""make_bad_models.py - tiny ONNX models for the refusal tests of tests/e2e.sh
(an unsupported operator, a symbolic input dimension). Run with /usr/bin/python3."""
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
