"""make_bad_models.py - tiny ONNX models for the refusal tests of tests/e2e.sh
(an unsupported operator, a symbolic input dimension, and
hostile files: huge or negative dims, bad output lists, deep nesting, many
nodes, external data that is a FIFO). Run with /usr/bin/python3."""
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


def save(graph, name, opset=13):
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)]), f"{out}/{name}")


# hostile declarations: dims of 2^32 (whose product overflowed to SIZE 0), a -5 dim
relu = helper.make_node("Relu", ["x"], ["y"], name="relu")
save(helper.make_graph([relu], "huge", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2**32] * 3)],
                       [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2**32] * 3)]), "huge_dims.onnx")
save(helper.make_graph([relu], "neg", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [-5, 3])],
                       [y]), "neg_dim.onnx")
# outputs: listed twice; an output that is the input; no nodes at all
save(helper.make_graph([relu], "dup", [x], [y, y]), "dup_output.onnx")
save(helper.make_graph([relu], "outin", [x], [y, x]), "output_is_input.onnx")
save(helper.make_graph([], "identity", [x], [x]), "identity.onnx")

# If bodies nested 20 deep (ctvm's limit is 16)
cond = helper.make_tensor_value_info("c", TensorProto.BOOL, [])
def leaf(o):
    return helper.make_graph([helper.make_node("Identity", ["x"], [o])], "leaf", [],
                             [helper.make_tensor_value_info(o, TensorProto.FLOAT, [2, 3])])


body = leaf("o0")
for level in range(1, 21):
    o = f"o{level}"
    node = helper.make_node("If", ["c"], [o], name=f"if{level}", then_branch=body, else_branch=leaf(o))
    body = helper.make_graph([node], f"b{level}", [], [helper.make_tensor_value_info(o, TensorProto.FLOAT, [2, 3])])
save(helper.make_graph(body.node, "deep_if", [x, cond], [helper.make_tensor_value_info("o20", TensorProto.FLOAT, [2, 3])]),
     "deep_if.onnx")

# initializer W whose external data is the FIFO fifo.bin (e2e.sh makes it with mkfifo)
w = helper.make_tensor("W", TensorProto.FLOAT, [2, 3], [0.0] * 6)
w.ClearField("float_data")
w.data_location = TensorProto.EXTERNAL
w.external_data.add(key="location", value="fifo.bin")
add = helper.make_node("Add", ["x", "W"], ["y"], name="add")
save(helper.make_graph([add], "fifo_ext", [x], [y], initializer=[w]), "fifo_ext.onnx")


# raw protobuf bytes the onnx module would not write
def varint(v):
    b = bytearray()
    while True:
        b.append((v & 0x7F) | (0x80 if v > 0x7F else 0))
        v >>= 7
        if not v:
            return bytes(b)


def field(num, body):
    return varint(num << 3 | 2) + varint(len(body)) + body


def model_of_graph_body(body):
    return b"\x08\x08" + field(7, body)  # ir_version 8, graph


# 30000 levels: graph > node > attribute > graph ... (overflowed the stack in protobuf-c)
body = b""
for _ in range(10000):
    body = field(1, field(5, field(6, body)))
with open(f"{out}/deep_proto.onnx", "wb") as f:
    f.write(model_of_graph_body(body))
# 2^20 + 1 empty nodes (two bytes each)
with open(f"{out}/many_nodes.onnx", "wb") as f:
    f.write(model_of_graph_body(b"\x0a\x00" * (2**20 + 1)))
